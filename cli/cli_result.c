/* cli_result.c - agentctl result: the answer the agent's CLI returned
 * through its documented channel, as the controller read and checked it
 * (status.result, docs/status.md "result"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* status.result without the change set (agentctl changes shows that);
 * NULL when no result was read. */
static cJSON *
result_of(const cJSON *r)
{
    cJSON *copy;

    if (cJSON_GetObjectItemCaseSensitive(r, "channel") == NULL)
        return NULL;
    copy = cJSON_Duplicate(r, true);
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "changes");
    return copy;
}

#define CELL_MAX 40

char *
cli_result_cell(const cJSON *r)
{
    const char *problem =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "problem"));
    const char *text =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "text"));
    const cJSON *json = cJSON_GetObjectItemCaseSensitive(r, "json");
    char *s, *cell;
    size_t n;

    if (problem != NULL)
        return strdup(problem);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "isError")))
        return strdup("error");
    s = json != NULL ? cJSON_PrintUnformatted(json)
        : text != NULL ? strdup(text)
                       : NULL;
    if (s == NULL || s[0] == '\0') {
        free(s);
        return strdup("<none>");
    }
    n = strcspn(s, "\n\t");
    if (n > CELL_MAX) { /* cut before a character, never inside one */
        n = CELL_MAX;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    cell = strndup(s, n);
    free(s);
    return cell;
}

static int
no_result(const struct ctl_record *rec, const char *name)
{
    const char *phase = ctl_record_phase_text(rec);

    fprintf(stderr,
            "error: %s has no result yet (phase %s): one is read when the "
            "agent of a prompt spec (vendor adapter claude or codex) exits\n",
            name, phase != NULL ? phase : "Pending");
    return CLI_FAIL;
}

/* The JSON answer when there is one, else the text. */
static int
print_answer(const cJSON *r)
{
    const cJSON *json = cJSON_GetObjectItemCaseSensitive(r, "json");
    const char *text =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "text"));
    char *s;

    if (json != NULL) {
        if ((s = cli_json_emit(json)) == NULL)
            return CLI_FAIL;
        fputs(s, stdout);
        free(s);
    } else if (text != NULL) {
        fputs(text, stdout);
        if (text[0] != '\0' && text[strlen(text) - 1] != '\n')
            putchar('\n');
    }
    return CLI_OK;
}

static int
print_as(const cJSON *r, const char *out)
{
    char *s;

    if (strncmp(out, "jsonpath=", 9) == 0) {
        if ((s = cli_jsonpath(out + 9, r)) == NULL)
            return CLI_FAIL;
        fputs(s, stdout);
        free(s);
        return CLI_OK;
    }
    return cli_print_doc(r, out);
}

/* A result the controller refused, or a CLI that reported an error:
 * said on stderr, and the exit is 1 (a pipeline gates on it). */
static int
verdict(const cJSON *r, const char *name)
{
    const char *problem =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "problem"));
    const char *detail =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "detail"));

    if (problem != NULL) {
        fprintf(stderr, "error: %s: result %s: %s\n", name, problem,
                detail != NULL ? detail : "");
        return CLI_FAIL;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "isError"))) {
        fprintf(stderr, "error: %s: the CLI reported an error (isError)\n",
                name);
        return CLI_FAIL;
    }
    return CLI_OK;
}

int
cli_result(struct cli *c, const struct cli_args *a)
{
    const char *name = a->pos[0], *out = cli_args_get(a, "output", NULL);
    char why[160];
    cJSON *st, *r;
    struct ctl_record rec;
    int rc;

    if (a->npos != 1)
        return cli_usage_error(a->cmd, "give exactly one NAME");
    if (out != NULL && strcmp(out, "json") != 0 && strcmp(out, "yaml") != 0 &&
        strncmp(out, "jsonpath=", 9) != 0)
        return cli_usage_error(a->cmd, "-o %s: want json, yaml or "
                                       "jsonpath=TEMPLATE", out);
    if (out != NULL && strncmp(out, "jsonpath=", 9) == 0 &&
        cli_jsonpath_check(out + 9, why, sizeof(why)) != NULL)
        return cli_usage_error(a->cmd, "-o %s: %s", out, why);
    if (!store_name_ok(name))
        return cli_not_found(name);
    st = cli_status(c, name);
    if (st == NULL) {
        struct store_spec sp;

        if (store_get(c->store, name, &sp, NULL) == -1)
            return cli_not_found(name);
        store_spec_cleanup(&sp);
    }
    cli_record_of(st, &rec);
    cJSON_Delete(st);
    r = result_of(rec.result);
    if (r == NULL)
        rc = no_result(&rec, name);
    ctl_record_cleanup(&rec);
    if (r == NULL)
        return rc;
    rc = out != NULL ? print_as(r, out) : print_answer(r);
    fflush(stdout);
    if (rc == CLI_OK)
        rc = verdict(r, name);
    cJSON_Delete(r);
    return rc;
}
