/* cli_wait.c - agentctl wait and logs: the commands that watch what the
 * controller records. Both poll the store (CLI_POLL_MS); neither ever
 * talks to Docker.
 *
 * wait --for=phase=P exits 1 at once when the phase is final and is not
 * P (a final phase only changes with a new spec.attempt), naming the
 * phase and stop reason; --for=condition=TYPE[=STATUS] and --for=delete
 * wait until the timeout. --for=delete is met once the spec is gone and
 * the controller has deleted the status (cleanup done). */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"

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

enum wait_kind { WAIT_PHASE, WAIT_CONDITION, WAIT_DELETE, WAIT_JSONPATH };

struct wait_for {
    enum wait_kind kind;
    char what[256];   /* the phase, the condition type, or the template */
    char status[16];  /* the condition status wanted ("True") */
    char value[256];  /* jsonpath: the value wanted; "": any non-empty */
};

/* jsonpath='{.status.result.json.verdict}'=pass (kubectl's form): the
 * template up to its last '}', then "=VALUE" or nothing. */
static int
parse_jsonpath(const char *cmd, const char *s, struct wait_for *w)
{
    const char *close = strrchr(s, '}');
    char why[160];

    if (s[0] != '{' || close == NULL || (close[1] != '\0' && close[1] != '='))
        return cli_usage_error(cmd, "--for=jsonpath=%s: want "
                                    "jsonpath='{.path}'[=VALUE]", s);
    w->kind = WAIT_JSONPATH;
    snprintf(w->what, sizeof(w->what), "%.*s", (int)(close - s + 1), s);
    snprintf(w->value, sizeof(w->value), "%s", close[1] ? close + 2 : "");
    if (cli_jsonpath_check(w->what, why, sizeof(why)) != NULL)
        return cli_usage_error(cmd, "--for=jsonpath=%s: %s", s, why);
    return CLI_OK;
}

/* The template on the whole resource gives the value (or, with none
 * asked for, anything). */
static bool
jsonpath_met(struct cli *c, const struct store_spec *sp,
             const struct wait_for *w)
{
    cJSON *doc = cli_resource_full(c, sp);
    char *got = doc != NULL ? cli_jsonpath(w->what, doc) : NULL;
    bool met = got != NULL && (w->value[0] != '\0' ? strcmp(got, w->value) == 0
                                                    : got[0] != '\0');

    free(got);
    cJSON_Delete(doc);
    return met;
}

/* The phases of docs/status.md: a wait for any other would only run out
 * its timeout. */
static const char *const wait_phases[] = {
    "Pending", "Preparing", "Running", "Succeeded", "Failed", "Cancelled", NULL,
};

static bool
known_phase(const char *p)
{
    for (size_t i = 0; wait_phases[i] != NULL; i++)
        if (strcasecmp(wait_phases[i], p) == 0)
            return true;
    return false;
}

static int
parse_for(const char *cmd, const char *s, struct wait_for *w)
{
    const char *eq;

    memset(w, 0, sizeof(*w));
    if (s == NULL)
        return cli_usage_error(cmd, "--for is required: phase=PHASE, jsonpath=..., "
                                    "condition=TYPE[=STATUS] or delete");
    if (strcmp(s, "delete") == 0) {
        w->kind = WAIT_DELETE;
        return CLI_OK;
    }
    if (strncmp(s, "phase=", 6) == 0 && !known_phase(s + 6))
        return cli_usage_error(cmd, "--for=%s: no such phase (Pending, "
                                    "Preparing, Running, Succeeded, Failed, "
                                    "Cancelled)",
                               s);
    if (strncmp(s, "phase=", 6) == 0) {
        w->kind = WAIT_PHASE;
        snprintf(w->what, sizeof(w->what), "%s", s + 6);
        return CLI_OK;
    }
    if (strncmp(s, "jsonpath=", 9) == 0)
        return parse_jsonpath(cmd, s + 9, w);
    if (strncmp(s, "condition=", 10) == 0 && s[10] != '\0' && s[10] != '=') {
        w->kind = WAIT_CONDITION;
        eq = strchr(s + 10, '=');
        snprintf(w->what, sizeof(w->what), "%.*s",
                 (int)(eq ? (size_t)(eq - s - 10) : strlen(s + 10)), s + 10);
        snprintf(w->status, sizeof(w->status), "%s",
                 eq && eq[1] ? eq + 1 : "True");
        return CLI_OK;
    }
    return cli_usage_error(cmd, "unrecognized condition: \"%s\" (phase=PHASE, jsonpath=, "
                                "condition=TYPE[=STATUS] or delete)",
                           s);
}

static bool
condition_met(const struct ctl_record *r, const struct wait_for *w)
{
    for (size_t i = 0; i < r->nconds; i++) {
        const struct ctl_record_cond *c = &r->conds[i];

        /* the text as written: an Unknown or absent status is neither
         * True nor False */
        if (c->type != NULL && strcasecmp(c->type, w->what) == 0)
            return c->status_text != NULL &&
                   strcasecmp(c->status_text, w->status) == 0;
    }
    return false;
}
enum wait_state { W_NOT_YET, W_MET, W_NEVER, W_NOT_FOUND };

/* One look at name: met, not yet, or never (final in another phase). */
static enum wait_state
look(struct cli *c, const char *name, const struct wait_for *w, char *why,
     size_t size)
{
    struct store_spec sp;
    struct err e = { 0 }, se = { 0 };
    bool exists = store_get(c->store, name, &sp, &e) == 0;
    cJSON *st = NULL;
    struct ctl_record rec;
    const char *phase;
    enum wait_state r = W_NOT_YET;

    why[0] = '\0';
    if (w->kind == WAIT_JSONPATH && exists && jsonpath_met(c, &sp, w))
        r = W_MET;
    if (exists)
        store_spec_cleanup(&sp);
    if (r == W_MET)
        return W_MET;
    if (store_json_get(c->store, STORE_DOC_STATUS, name, &st, &se) == -1)
        st = NULL;
    /* a store that does not answer says nothing about the name: neither
     * deleted nor missing (--for=delete passed at once with etcd down) */
    if ((!exists && e.code != ERR_NOTFOUND) ||
        (st == NULL && se.code != ERR_NOTFOUND && se.code != ERR_SYNTAX)) {
        snprintf(why, size, "%.180s",
                 !exists && e.code != ERR_NOTFOUND ? e.msg : se.msg);
        cJSON_Delete(st);
        return W_NOT_YET;
    }
    cli_record_of(st, &rec);
    phase = ctl_record_phase_text(&rec);
    if (w->kind == WAIT_DELETE)
        r = !exists && st == NULL ? W_MET : W_NOT_YET;
    else if (!exists)
        r = W_NOT_FOUND;
    else if (w->kind == WAIT_CONDITION)
        r = condition_met(&rec, w) ? W_MET : W_NOT_YET;
    else if (w->kind == WAIT_PHASE && phase != NULL &&
             strcasecmp(phase, w->what) == 0)
        r = W_MET;
    else if (terminal(phase)) {
        const char *stop = ctl_record_stop_text(&rec);

        snprintf(why, size, "phase is %s%s%s%s, which is final", phase,
                 stop ? " (stopReason " : "", stop ? stop : "",
                 stop ? ")" : "");
        r = W_NEVER;
    }
    ctl_record_cleanup(&rec);
    cJSON_Delete(st);
    return r;
}

static int
wait_one(struct cli *c, const char *name, const struct wait_for *w,
         double deadline)
{
    char why[200] = "";

    for (;;) {
        switch (look(c, name, w, why, sizeof(why))) {
        case W_MET:
            printf(CLI_KIND "/%s %s\n", name,
                   w->kind == WAIT_DELETE ? "deleted" : "condition met");
            return CLI_OK;
        case W_NOT_FOUND:
            return cli_not_found(name);
        case W_NEVER:
            fprintf(stderr,
                    "error: agentinvocations/%s will not %s %s%s%s: %s\n",
                    name, w->kind == WAIT_JSONPATH ? "meet" : "reach phase",
                    w->what, w->value[0] ? "=" : "", w->value, why);
            return CLI_FAIL;
        case W_NOT_YET:
            break;
        }
        if (now_s() >= deadline)
            break;
        sleep_ms(CLI_POLL_MS);
    }
    fprintf(stderr,
            "error: timed out waiting for the condition on "
            "agentinvocations/%s%s%s%s\n",
            name, why[0] ? " (the store: " : "", why, why[0] ? ")" : "");
    return CLI_FAIL;
}

/* The usage errors: --for, --timeout, the names (w and *timeout filled). */
static int
wait_args(const struct cli_args *a, struct wait_for *w, double *timeout)
{
    const char *t = cli_args_get(a, "timeout", "30s");

    if (parse_for(a->cmd, cli_args_get(a, "for", NULL), w) != CLI_OK)
        return CLI_USAGE;
    if (duration_parse(t, timeout) == -1)
        return cli_usage_error(a->cmd, "invalid --timeout \"%s\": expected "
                                       "a duration such as 90s, 5m, 1h30m",
                               t);
    if (a->npos == 0)
        return cli_usage_error(a->cmd, "expected NAME");
    return CLI_OK;
}

int
cli_wait_usage(const struct cli_args *a)
{
    struct wait_for w;
    double timeout;

    return wait_args(a, &w, &timeout);
}

int
cli_wait(struct cli *c, const struct cli_args *a)
{
    struct wait_for w;
    double timeout, deadline;
    int rc = CLI_OK;

    if ((rc = wait_args(a, &w, &timeout)) != CLI_OK)
        return rc;
    deadline = now_s() + timeout;
    for (size_t i = 0; i < a->npos; i++) {
        int one = store_name_ok(a->pos[i])
                      ? wait_one(c, a->pos[i], &w, deadline)
                      : (w.kind == WAIT_DELETE ? CLI_OK
                                               : cli_not_found(a->pos[i]));

        if (one != CLI_OK)
            rc = one;
    }
    return rc;
}

/* --- logs --- */

struct logs_opts {
    bool follow;
    long tail;      /* lines to start with; -1 = all */
    double since;   /* seconds; < 0 = no limit */
    double timeout; /* seconds for -f to wait; 0 = no limit */
};

static int
parse_logs(const struct cli_args *a, struct logs_opts *o)
{
    const char *tail = cli_args_get(a, "tail", "-1");
    const char *since = cli_args_get(a, "since", NULL);
    const char *timeout = cli_args_get(a, "timeout", "0");
    char *end;

    o->follow = cli_args_has(a, "follow");
    errno = 0;
    o->tail = strtol(tail, &end, 10);
    if (errno != 0 || *end != '\0' || end == tail || o->tail < -1)
        return cli_usage_error(a->cmd, "invalid --tail \"%s\": a number of "
                                       "lines, or -1 for all",
                               tail);
    o->since = -1;
    if (since != NULL && duration_parse(since, &o->since) == -1)
        return cli_usage_error(a->cmd, "invalid --since \"%s\"", since);
    if (duration_parse(timeout, &o->timeout) == -1)
        return cli_usage_error(a->cmd, "invalid --timeout \"%s\"", timeout);
    if (a->npos != 1)
        return cli_usage_error(a->cmd, "expected one NAME");
    return CLI_OK;
}

/* Where the last `lines` lines of the first `size` bytes begin. */
static off_t
tail_start(int fd, off_t size, long lines)
{
    char buf[4096];
    off_t pos = size;
    long seen = 0;

    if (lines < 0)
        return 0;
    if (lines == 0)
        return size;
    while (pos > 0) {
        size_t n = pos > (off_t)sizeof(buf) ? sizeof(buf) : (size_t)pos;
        ssize_t r = pread(fd, buf, n, pos - (off_t)n);

        if (r != (ssize_t)n)
            return 0;
        for (size_t i = n; i-- > 0;) {
            off_t at = pos - (off_t)n + (off_t)i;

            /* a final newline ends the last line; it does not start one */
            if (buf[i] == '\n' && at != size - 1 && ++seen == lines)
                return at + 1;
        }
        pos -= (off_t)n;
    }
    return 0;
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

/* The first read of the file: --since, then --tail decide where. */
static off_t
first_offset(int fd, const struct logs_opts *o)
{
    struct stat st;

    if (fstat(fd, &st) == -1)
        return 0;
    /* no per-line times are kept: --since goes by the file's last write */
    if (o->since >= 0 && (double)(time(NULL) - st.st_mtime) > o->since)
        return st.st_size;
    return tail_start(fd, st.st_size, o->tail);
}

/* Follow the output until the phase is final; 1 on timeout. */
static int
follow(struct cli *c, const char *name, const char *path,
       const struct logs_opts *o)
{
    double deadline = o->timeout > 0 ? now_s() + o->timeout : 0;
    bool said = false;
    off_t off = 0;
    int fd = -1, rc = CLI_OK;

    for (;;) {
        char *phase = cli_status_phase(c, name);
        bool done = terminal(phase);

        if (fd == -1 && (fd = open(path, O_RDONLY | O_CLOEXEC)) != -1)
            off = first_offset(fd, o);
        if (fd == -1 && !done && !said) {
            fprintf(stderr, "waiting for the attempt of %s to start (phase "
                            "%s)...\n",
                    name, phase ? phase : "Pending");
            said = true;
        }
        free(phase);
        if (fd != -1)
            copy_out(fd, &off); /* also what came before the phase was final */
        if (done)
            break;
        if (deadline > 0 && now_s() >= deadline) {
            fprintf(stderr, "error: timed out waiting for the attempt of %s "
                            "to finish\n",
                    name);
            rc = CLI_FAIL;
            break;
        }
        sleep_ms(CLI_POLL_MS);
    }
    if (fd != -1)
        close(fd);
    return rc;
}

/* Nothing was captured for name (yet): kubectl's logs of a container
 * that has not started is an error ("is waiting to start"), not an empty
 * success a script would take for an agent that printed nothing. */
static int
no_output(struct cli *c, const char *name, bool egress)
{
    char *phase = cli_status_phase(c, name);

    fprintf(stderr, "error: %s has no %s yet (phase %s)%s\n", name,
            egress ? "egress audit" : "output", phase ? phase : "Pending",
            terminal(phase) ? ": its attempt ended before anything was captured"
            : egress        ? ""
                            : "; -f waits for it");
    free(phase);
    return CLI_FAIL;
}

int
cli_logs(struct cli *c, const struct cli_args *a)
{
    struct logs_opts o;
    struct store_spec sp;
    const char *name;
    char path[4096];
    off_t off;
    int fd, rc;

    if ((rc = parse_logs(a, &o)) != CLI_OK)
        return rc;
    name = a->pos[0];
    /* the audit grows while the attempt runs and is completed when its
     * box is removed, after the phase is final: -f would stop short */
    if (o.follow && cli_args_has(a, "egress"))
        return cli_usage_error(a->cmd, "--egress cannot be followed (-f): "
                                       "run it again, the audit grows while "
                                       "the attempt runs");
    if (!store_name_ok(name) || store_get(c->store, name, &sp, NULL) == -1)
        return cli_not_found(name);
    store_spec_cleanup(&sp);
    if ((cli_args_has(a, "egress")
             ? store_egress_path(c->store, name, path, sizeof(path), NULL)
             : store_output_path(c->store, name, path, sizeof(path), NULL)) ==
        -1)
        return CLI_FAIL;
    if (o.follow)
        return follow(c, name, path, &o);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
        if (errno == ENOENT)
            return no_output(c, name, cli_args_has(a, "egress"));
        fprintf(stderr, "error: %s: %s\n", path, strerror(errno));
        return CLI_FAIL;
    }
    off = first_offset(fd, &o);
    copy_out(fd, &off);
    close(fd);
    return CLI_OK;
}
