/* cli_misc.c - agentctl delete, cancel, logs, wait and version: the small
 * commands that act on one name. The controller does the real work
 * (cleanup, stopping the agent); these only change the spec or read
 * what the controller recorded. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define CLI_POLL_MS 200

static void
sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool
terminal(const char *phase)
{
    return phase != NULL &&
           (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0 ||
            strcmp(phase, "Cancelled") == 0);
}

/* NAME as the only argument of a command. */
static const char *
one_name(int argc, char **argv, const char *usage)
{
    if (argc != 2 || argv[1][0] == '-') {
        cli_usage_error(argv[0], "expected one NAME");
        (void)usage;
        return NULL;
    }
    return argv[1];
}

static const char delete_usage[] =
    "usage: agentctl delete NAME\n\n"
    "Remove the spec file that holds NAME. The controller then stops the\n"
    "attempt and removes everything it created for it.\n";

int
cli_delete(struct cli *c, int argc, char **argv)
{
    const char *name;
    struct err e = { 0 };

    if (cli_wants_help(argc, argv, delete_usage))
        return CLI_OK;
    if ((name = one_name(argc, argv, delete_usage)) == NULL)
        return CLI_USAGE;
    if (!store_name_ok(name))
        return cli_not_found(name);
    if (store_del(c->store, name, NULL, &e) == -1) {
        if (e.code == ERR_NOTFOUND)
            return cli_not_found(name);
        fprintf(stderr, "error: %s\n", e.msg);
        return CLI_FAIL;
    }
    store_doc_del(c->store, STORE_DOC_APPLIED, name, NULL);
    printf(CLI_KIND " \"%s\" deleted\n", name);
    return CLI_OK;
}

/* The applied record follows a rewrite that apply's bytes started, so
 * prune still knows the file as apply's. */
static void
follow_applied(struct cli *c, const struct store_spec *old, const char *yaml)
{
    cJSON *rec = NULL;
    const cJSON *sha;
    char now[65], was[65];

    if (store_json_get(c->store, STORE_DOC_APPLIED, old->name, &rec, NULL) ==
        -1)
        return;
    sha = cJSON_GetObjectItemCaseSensitive(rec, "sha256");
    /* the old bytes' hash, not the revision (an etcd revision is no hash) */
    spec_sha256_hex(old->data, old->len, was);
    if (cJSON_IsString(sha) && strcmp(sha->valuestring, was) == 0) {
        spec_sha256_hex(yaml, strlen(yaml), now);
        cJSON_SetValuestring((cJSON *)sha, now);
        store_json_put(c->store, STORE_DOC_APPLIED, old->name, rec, NULL);
    }
    cJSON_Delete(rec);
}

static int
cancel_locked(struct cli *c, const char *name)
{
    struct store_spec sp;
    struct err e = { 0 };
    cJSON *spec;
    char *yaml = NULL;
    int rc = CLI_FAIL;

    if (store_get(c->store, name, &sp, &e) == -1)
        return e.code == ERR_NOTFOUND ? cli_not_found(name) : CLI_FAIL;
    if (sp.inv == NULL) {
        fprintf(stderr, "error: %s does not validate; fix it first\n", sp.key);
        goto out;
    }
    if (sp.inv->cancel) {
        printf(CLI_KIND "/%s unchanged (already cancelled)\n", name);
        rc = CLI_OK;
        goto out;
    }
    spec = cJSON_GetObjectItemCaseSensitive(sp.inv->resource, "spec");
    cJSON_ReplaceItemInObjectCaseSensitive(spec, "cancel", cJSON_CreateTrue());
    yaml = cli_yaml_emit(sp.inv->resource);
    if (yaml == NULL ||
        store_put(c->store, name, yaml, strlen(yaml), sp.rev, NULL, &e)) {
        fprintf(stderr, "error: cancel \"%s\": %s\n", name,
                yaml ? e.msg : "out of memory");
        goto out;
    }
    follow_applied(c, &sp, yaml);
    printf(CLI_KIND "/%s cancelled\n", name);
    rc = CLI_OK;
out:
    free(yaml);
    store_spec_cleanup(&sp);
    return rc;
}

static const char cancel_usage[] =
    "usage: agentctl cancel NAME\n\n"
    "Set spec.cancel: true in NAME's spec (atomically). The controller\n"
    "stops the attempt with stopReason cancelled.\n";

int
cli_cancel(struct cli *c, int argc, char **argv)
{
    const char *name;
    struct err e = { 0 };
    int rc;

    if (cli_wants_help(argc, argv, cancel_usage))
        return CLI_OK;
    if ((name = one_name(argc, argv, cancel_usage)) == NULL)
        return CLI_USAGE;
    if (!store_name_ok(name))
        return cli_not_found(name);
    if (store_lock(c->store, &e) == -1) {
        fprintf(stderr, "error: %s\n", e.msg);
        return CLI_FAIL;
    }
    rc = cancel_locked(c, name);
    store_unlock(c->store);
    return rc;
}

/* Copy what fd holds from *off on to stdout. */
static void
copy_out(int fd, off_t *off)
{
    char buf[65536];
    ssize_t r;

    while ((r = pread(fd, buf, sizeof(buf), *off)) > 0) {
        fwrite(buf, 1, (size_t)r, stdout);
        *off += r;
    }
    fflush(stdout);
}

static const char logs_usage[] =
    "usage: agentctl logs NAME [-f]\n\n"
    "Print the captured output (stdout and stderr) of NAME's attempt.\n"
    "  -f, --follow  keep printing until the attempt has finished\n";

int
cli_logs(struct cli *c, int argc, char **argv)
{
    const char *name = NULL;
    bool follow = false;
    struct store_spec sp;
    char path[4096], *phase = NULL;
    off_t off = 0;
    int fd = -1;

    if (cli_wants_help(argc, argv, logs_usage))
        return CLI_OK;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-f") == 0 || strcmp(argv[i], "--follow") == 0)
            follow = true;
        else if (argv[i][0] != '-' && name == NULL)
            name = argv[i];
        else
            return cli_usage_error("logs", "unexpected argument \"%s\"",
                                   argv[i]);
    }
    if (name == NULL)
        return cli_usage_error("logs", "expected NAME");
    if (!store_name_ok(name) || store_get(c->store, name, &sp, NULL) == -1)
        return cli_not_found(name);
    store_spec_cleanup(&sp);
    if (store_output_path(c->store, name, path, sizeof(path), NULL) == -1)
        return CLI_FAIL;
    for (;;) {
        bool done;

        if (fd == -1)
            fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd != -1)
            copy_out(fd, &off);
        if (!follow)
            break;
        free(phase);
        phase = cli_status_phase(c, name);
        done = terminal(phase);
        if (done && fd != -1)
            copy_out(fd, &off); /* what came after the last read */
        if (done)
            break;
        sleep_ms(CLI_POLL_MS);
    }
    free(phase);
    if (fd != -1)
        close(fd);
    return CLI_OK;
}

/* "30s", "5m", "1h", "500ms", "90" (seconds) -> seconds; -1 when bad. */
static double
parse_duration(const char *s)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || end == s || v < 0)
        return -1;
    if (*end == '\0' || strcmp(end, "s") == 0)
        return v;
    if (strcmp(end, "ms") == 0)
        return v / 1000;
    if (strcmp(end, "m") == 0)
        return v * 60;
    if (strcmp(end, "h") == 0)
        return v * 3600;
    return -1;
}

static const char wait_usage[] =
    "usage: agentctl wait NAME --for=phase=PHASE [--timeout=DURATION]\n\n"
    "Wait until NAME's status phase is PHASE (e.g. Succeeded). Exit 1 when\n"
    "the timeout (default 30s; 90, 30s, 5m, 1h) passes first.\n";

static int
parse_wait(int argc, char **argv, const char **name, const char **phase,
           double *timeout)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (strncmp(a, "--for=phase=", 12) == 0 && a[12] != '\0')
            *phase = a + 12;
        else if (strncmp(a, "--timeout=", 10) == 0)
            *timeout = parse_duration(a + 10);
        else if (strcmp(a, "--timeout") == 0 && i + 1 < argc)
            *timeout = parse_duration(argv[++i]);
        else if (a[0] != '-' && *name == NULL)
            *name = a;
        else
            return cli_usage_error("wait", "unexpected argument \"%s\"", a);
    }
    if (*name == NULL || *phase == NULL)
        return cli_usage_error("wait", "expected NAME --for=phase=PHASE");
    if (*timeout < 0)
        return cli_usage_error("wait", "bad --timeout");
    return CLI_OK;
}

int
cli_wait(struct cli *c, int argc, char **argv)
{
    const char *name = NULL, *want = NULL;
    double timeout = 30, start;
    struct store_spec sp;
    int rc;

    if (cli_wants_help(argc, argv, wait_usage))
        return CLI_OK;
    if ((rc = parse_wait(argc, argv, &name, &want, &timeout)) != CLI_OK)
        return rc;
    if (!store_name_ok(name) || store_get(c->store, name, &sp, NULL) == -1)
        return cli_not_found(name);
    store_spec_cleanup(&sp);
    start = now_s();
    for (;;) {
        char *phase = cli_status_phase(c, name);
        bool met = phase != NULL && strcasecmp(phase, want) == 0;

        free(phase);
        if (met) {
            printf(CLI_KIND "/%s condition met\n", name);
            return CLI_OK;
        }
        if (now_s() - start >= timeout)
            break;
        sleep_ms(CLI_POLL_MS);
    }
    fprintf(stderr,
            "error: timed out waiting for the condition on "
            "agentinvocations/%s (phase=%s)\n",
            name, want);
    return CLI_FAIL;
}

int
cli_version(struct cli *c, int argc, char **argv)
{
    (void)c;
    if (cli_wants_help(argc, argv, "usage: agentctl version\n"))
        return CLI_OK;
    if (argc != 1)
        return cli_usage_error("version", "version takes no arguments");
    printf("agentctl version %s\n", AGENTCTL_VERSION);
    return CLI_OK;
}
