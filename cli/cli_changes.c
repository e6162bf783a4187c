/* cli_changes.c - agentctl changes: the agent's work on /work, kept by the
 * controller when the attempt ended (docs/changes.md). The change set is
 * three files beside the output (store_beside_output): .changes.diff,
 * .changes.tar and .changes.json, the last one written last. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rc_changes.h"

/* Copy a file to stdout; -1 with errno. */
static int
cat_file(const char *path)
{
    char buf[65536];
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd == -1)
        return -1;
    while ((n = read(fd, buf, sizeof(buf))) > 0)
        if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
            break;
    close(fd);
    fflush(stdout);
    return n < 0 ? -1 : 0;
}

static cJSON *
load(const char *path)
{
    FILE *f = fopen(path, "re");
    char *text = NULL;
    size_t cap = 0;
    cJSON *j = NULL;

    if (f == NULL)
        return NULL;
    if (getdelim(&text, &cap, '\0', f) > 0)
        j = cJSON_Parse(text);
    free(text);
    fclose(f);
    return j;
}

/* Why there is no change set: the status says, or the phase. */
static int
no_set(struct cli *c, const char *name)
{
    cJSON *st = cli_status(c, name);
    struct ctl_record r;
    const cJSON *ch;
    const char *why, *phase;

    cli_record_of(st, &r);
    cJSON_Delete(st);
    ch = cJSON_GetObjectItemCaseSensitive(r.result, "changes");
    why = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(ch, "unavailable"));
    phase = ctl_record_phase_text(&r);

    if (why != NULL)
        fprintf(stderr, "error: %s has no change set: %s\n", name, why);
    else
        fprintf(stderr,
                "error: %s has no change set (phase %s): one is kept when an "
                "attempt in phase execute or fix, with a workspace, has "
                "ended and its box is removed\n",
                name, phase ? phase : "Pending");
    ctl_record_cleanup(&r);
    return CLI_FAIL;
}

static void
stat_list(const cJSON *j, const char *list, const char *mark)
{
    const cJSON *it;

    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(j, list))
    {
        const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(it, "path"));
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(it, "type"));
        const cJSON *size = cJSON_GetObjectItem(it, "size");
        const char *mode = cJSON_GetStringValue(cJSON_GetObjectItem(it, "mode"));
        const char *base =
            cJSON_GetStringValue(cJSON_GetObjectItem(it, "baseMode"));
        const char *reason =
            cJSON_GetStringValue(cJSON_GetObjectItem(it, "reason"));

        printf(" %s %s", mark, path ? path : "?");
        if (reason != NULL)
            printf(": %s", reason);
        else if (strcmp(mark, "m") == 0 && base && mode)
            printf(" (mode %s -> %s)", base, mode);
        else if (type != NULL && strcmp(type, "file") != 0)
            printf(" (%s)", type);
        else if (cJSON_IsNumber(size) && strcmp(mark, "D") != 0)
            printf(" (%.0f bytes)", size->valuedouble);
        printf("\n");
    }
}

static int
print_stat(const char *json_path)
{
    cJSON *j = load(json_path);
    int added, modified, deleted, moded, refused;

    if (j == NULL) {
        fprintf(stderr, "error: %s: not a change set\n", json_path);
        return CLI_FAIL;
    }
    stat_list(j, "added", "A");
    stat_list(j, "modified", "M");
    stat_list(j, "deleted", "D");
    stat_list(j, "modeChanged", "m");
    stat_list(j, "notDiffed", "?");
    stat_list(j, "refused", "!");
    added = cJSON_GetArraySize(cJSON_GetObjectItem(j, "added"));
    modified = cJSON_GetArraySize(cJSON_GetObjectItem(j, "modified"));
    deleted = cJSON_GetArraySize(cJSON_GetObjectItem(j, "deleted"));
    moded = cJSON_GetArraySize(cJSON_GetObjectItem(j, "modeChanged"));
    refused = cJSON_GetArraySize(cJSON_GetObjectItem(j, "refused"));
    printf("%d added, %d modified, %d deleted, %d mode changed, %d refused; "
           "%.0f bytes%s%s\n",
           added, modified, deleted, moded, refused,
           cJSON_GetNumberValue(cJSON_GetObjectItem(j, "bytes")),
           cJSON_IsTrue(cJSON_GetObjectItem(j, "partial"))
               ? "; partial (the attempt did not succeed)"
               : "",
           cJSON_IsTrue(cJSON_GetObjectItem(j, "truncated"))
               ? "; truncated (a list or the diff was cut at its bound)"
               : "");
    cJSON_Delete(j);
    return CLI_OK;
}

static int
apply_to(const char *set, const char *dir)
{
    struct err e = { 0 };

    if (rc_changes_apply(set, dir, stdout, &e) == -1) {
        fprintf(stderr, "error: --apply-to %s: %s%s\n", dir, e.msg,
                e.code == ERR_CONFLICT ? " (nothing was changed)" : "");
        return CLI_FAIL;
    }
    return CLI_OK;
}

int
cli_changes(struct cli *c, const struct cli_args *a)
{
    const char *name = a->pos[0], *out = cli_args_get(a, "output", NULL);
    const char *dir = cli_args_get(a, "apply-to", NULL);
    char set[4096], path[4200];
    struct store_spec sp;

    if (a->npos != 1)
        return cli_usage_error(a->cmd, "give exactly one NAME");
    if (out != NULL && strcmp(out, "tar") != 0 && strcmp(out, "json") != 0 &&
        strcmp(out, "diff") != 0)
        return cli_usage_error(a->cmd, "-o %s: want diff, tar or json", out);
    if ((out != NULL) + cli_args_has(a, "stat") + (dir != NULL) > 1)
        return cli_usage_error(a->cmd, "give one of -o, --stat, --apply-to");
    if (!store_name_ok(name) || store_get(c->store, name, &sp, NULL) == -1)
        return cli_not_found(name);
    store_spec_cleanup(&sp);
    if (store_beside_output(c->store, name, ".changes", set, sizeof(set),
                            NULL) == -1)
        return CLI_FAIL;
    snprintf(path, sizeof(path), "%s.json", set);
    if (access(path, R_OK) == -1)
        return no_set(c, name);
    if (dir != NULL)
        return apply_to(set, dir);
    if (cli_args_has(a, "stat"))
        return print_stat(path);
    if (out != NULL && strcmp(out, "json") != 0)
        snprintf(path, sizeof(path), "%s.%s", set, out);
    else if (out == NULL)
        snprintf(path, sizeof(path), "%s.diff", set);
    if (out != NULL && strcmp(out, "tar") == 0 && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "error: -o tar writes an archive: redirect it to a "
                        "file or a pipe\n");
        return CLI_FAIL;
    }
    if (cat_file(path) == -1) {
        fprintf(stderr, "error: %s: %s\n", path, strerror(errno));
        return CLI_FAIL;
    }
    return CLI_OK;
}
