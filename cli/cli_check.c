/* cli_check.c - agentctl check vendor NAME: the one command to run after
 * changing a key, a pin or the egress profile. It runs a tiny prompt
 * spec with a schema through a real box - the same admission, proxy,
 * probe, launcher and (for a gateway vendor) gateway as any run - and
 * reports each step as the controller reaches it, with the seconds since
 * the check began: admitted, box verified (the boundary probe), CLI
 * started, CLI answered, the vendor's answer (reached and authenticated:
 * not is_error, exit 0) and valid output (status.result.valid). Then it
 * deletes the spec (the controller removes the box). Exit 0 when every
 * step passed, 1 at the first that failed, with the controller's or the
 * CLI's own words. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "cli.h"
#include "duration.h"

#define CHECK_POLL_MS 200
#define CHECK_SCHEMA                                                           \
    "{type: object, required: [ok], properties: {ok: {type: boolean}}}"
#define CHECK_PROMPT                                                           \
    "agentctl vendor check: answer with the JSON object {\"ok\": true} "     \
    "and nothing else."

enum step { S_ADMITTED, S_BOX, S_STARTED, S_ANSWERED, S_VENDOR, S_VALID, S_N };

static const char *const step_name[S_N] = {
    "admitted", "box verified", "CLI started", "CLI answered",
    "vendor (reached, authenticated)", "valid output",
};

struct check {
    double t0;
    bool done[S_N];
    char why[600];
};

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
pass(struct check *k, enum step s, const char *detail)
{
    if (k->done[s])
        return;
    k->done[s] = true;
    printf("ok      %-32s +%.1fs  %s\n", step_name[s], now_s() - k->t0,
           detail != NULL ? detail : "");
    fflush(stdout);
}

static int
failed(struct check *k, enum step s, const char *detail)
{
    printf("FAILED  %-32s +%.1fs  %s\n", step_name[s], now_s() - k->t0,
           detail != NULL ? detail : "");
    return CLI_FAIL;
}

/* v, or "" for none (never NULL) */
static const char *
or_empty(const char *v)
{
    return v != NULL ? v : "";
}

/* The message of condition `type`, "" without one. */
static const char *
cond_message(const struct ctl_record *st, const char *type)
{
    const struct ctl_record_cond *c = ctl_record_condition(st, type);

    return c != NULL ? or_empty(c->message) : "";
}

/* o[k] as a string; "" when absent (never NULL) */
static const char *
str(const cJSON *o, const char *k)
{
    const char *v =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));

    return v != NULL ? v : "";
}

static bool
final_phase(const char *p)
{
    return (strcmp(p, "Succeeded") == 0 ||
                         strcmp(p, "Failed") == 0 ||
                         strcmp(p, "Cancelled") == 0);
}

/* The end: the CLI's answer judged (vendor, valid). */
static int
judge(struct check *k, const struct ctl_record *st)
{
    const cJSON *r = st->result;
    double code = st->has_exit_code ? (double)st->exit_code : NAN;
    const char *text = str(r, "text"),
               *stop = or_empty(ctl_record_stop_text(st));
    char d[600];

    if (r == NULL || str(r, "channel")[0] == '\0') {
        snprintf(d, sizeof(d), "no result read (stop reason %s: %s)",
                 stop[0] ? stop : "none", cond_message(st, "Ready"));
        return failed(k, S_ANSWERED, d);
    }
    snprintf(d, sizeof(d), "exit %.0f, %.0f bytes through %s", code,
             cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(r, "bytes")),
             str(r, "channel"));
    pass(k, S_ANSWERED, d);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "isError")) ||
        (st->has_exit_code && st->exit_code != 0)) {
        snprintf(d, sizeof(d), "the CLI reported: %.400s",
                 text[0] ? text : "(no text)");
        return failed(k, S_VENDOR, d);
    }
    pass(k, S_VENDOR, NULL);
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "valid"))) {
        snprintf(d, sizeof(d), "result %s: %s", str(r, "problem"),
                 str(r, "detail"));
        return failed(k, S_VALID, d);
    }
    pass(k, S_VALID, text);
    return CLI_OK;
}

/* The condition is there and its status, as written, is this one (an
 * Unknown or absent status is neither True nor False). */
static bool
says(const struct ctl_record_cond *c, const char *status)
{
    return c != NULL && c->status_text != NULL &&
           strcmp(c->status_text, status) == 0;
}

/* One look at the status (the record: not present before there is
 * one); CLI_OK/CLI_FAIL when the check has ended, -1 while it goes on. */
static int
look(struct check *k, const struct ctl_record *st)
{
    const struct ctl_record_cond *adm = ctl_record_condition(st, "Admitted");
    const struct ctl_record_cond *valid = ctl_record_condition(st, "Valid");
    const struct ctl_record_cond *bv;
    const char *phase = or_empty(ctl_record_phase_text(st)),
               *stop = or_empty(ctl_record_stop_text(st));

    if (!st->present)
        return -1;
    if (says(valid, "False"))
        return failed(k, S_ADMITTED, or_empty(valid->message));
    if (says(adm, "False"))
        return failed(k, S_ADMITTED, or_empty(adm->message));
    if (or_empty(st->captured_at)[0] || or_empty(st->attempt)[0])
        pass(k, S_ADMITTED, NULL);
    bv = ctl_record_condition(st, "BoundaryVerified");
    if (says(bv, "True"))
        pass(k, S_BOX, or_empty(bv->message));
    if (or_empty(st->started_at)[0])
        pass(k, S_STARTED, NULL);
    if (!final_phase(phase))
        return -1;
    for (int s = S_ADMITTED; s <= S_STARTED; s++)
        if (!k->done[s]) {
            char d[600];

            snprintf(d, sizeof(d), "%s (%s): %s", phase,
                     stop[0] ? stop : "no stop reason",
                     cond_message(st, "Ready"));
            return failed(k, (enum step)s, d);
        }
    return judge(k, st);
}

static bool
env_given(char *const *env, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strncmp(env[i], key, strlen(key)) == 0 &&
            env[i][strlen(key)] == '=')
            return true;
    return false;
}

/* The spec of the check, as YAML. */
static char *
check_spec(const char *name, const char *vendor, const struct cli_args *a,
           long deadline)
{
    struct buf b;
    size_t n;
    char *const *env = cli_args_list(a, "env", &n);
    const char *cred = cli_args_get(a, "credential", NULL);
    const char *prompt = cli_args_get(a, "prompt", CHECK_PROMPT);
    cJSON *p = cJSON_CreateString(prompt);
    char *quoted = cJSON_PrintUnformatted(p), *out;

    buf_init(&b, 1 << 20);
    buf_printf(&b, NULL,
               "apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n"
               "metadata:\n  name: %s\n  labels: {agentctl.dev/check: vendor}\n"
               "spec:\n  vendor: %s\n  phase: planning\n  image: %s\n"
               "  prompt: %s\n  deadlineSeconds: %ld\n"
               "  output: {maxResultBytes: 4Ki, schema: " CHECK_SCHEMA "}\n",
               name, vendor, cli_args_get(a, "image", ""),
               quoted ? quoted : "\"\"", deadline);
    if (cred != NULL)
        buf_printf(&b, NULL, "  credential: %s\n", cred);
    /* a check fails in seconds: Claude Code retries a refused request
     * ten times with backoff (minutes for a wrong key); once is enough */
    if (strcmp(vendor, "claude") == 0 && !env_given(env, n,
                                                    "CLAUDE_CODE_MAX_RETRIES"))
        buf_printf(&b, NULL, "  env:\n    CLAUDE_CODE_MAX_RETRIES: \"1\"\n");
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(env[i], '=');
        cJSON *v = cJSON_CreateString(eq ? eq + 1 : "");
        char *vq = cJSON_PrintUnformatted(v);

        buf_printf(&b, NULL, "%s%.*s: %s\n",
                   i == 0 && strstr(b.data, "  env:\n") == NULL ? "  env:\n    "
                                                                : "    ",
                   (int)(eq ? (size_t)(eq - env[i]) : strlen(env[i])), env[i],
                   vq ? vq : "\"\"");
        cJSON_free(vq);
        cJSON_Delete(v);
    }
    cJSON_free(quoted);
    cJSON_Delete(p);
    out = b.data;
    b.data = NULL;
    buf_cleanup(&b);
    return out;
}

static int
run(struct cli *c, const char *name, double timeout, bool keep)
{
    struct check k = { .t0 = now_s() };
    int rc = -1;
    struct err e;

    while (rc == -1) {
        cJSON *st = cli_status(c, name);
        struct timespec ts = { 0, CHECK_POLL_MS * 1000000L };
        struct ctl_record rec;

        cli_record_of(st, &rec);
        cJSON_Delete(st);
        rc = look(&k, &rec);
        ctl_record_cleanup(&rec);
        if (rc == -1 && now_s() - k.t0 > timeout) {
            for (int s = 0; s < S_N; s++)
                if (!k.done[s]) {
                    rc = failed(&k, (enum step)s, "timed out waiting");
                    break;
                }
        }
        if (rc == -1)
            nanosleep(&ts, NULL);
    }
    if (!keep && store_del(c->store, name, NULL, &e) == -1)
        fprintf(stderr, "warning: %s could not be deleted: %s\n", name, e.msg);
    printf("check %s: %s%s\n", name, rc == CLI_OK ? "passed" : "FAILED",
           keep ? " (kept: agentctl describe it, delete it)" : "");
    return rc;
}

int
cli_check(struct cli *c, const struct cli_args *a)
{
    const char *tstr = cli_args_get(a, "timeout", "120s");
    char name[64], *yaml;
    double timeout;
    struct err e;
    unsigned rnd;
    FILE *f;

    if (a->npos != 2 || strcmp(a->pos[0], "vendor") != 0)
        return cli_usage_error(a->cmd, "want: check vendor NAME --image IMAGE");
    if (cli_args_get(a, "image", NULL) == NULL)
        return cli_usage_error(a->cmd, "--image is required: the vendor's "
                                       "CLI image (with its CA, if any)");
    if (duration_parse(tstr, &timeout) == -1 || timeout < 1 ||
        timeout > 3600)
        return cli_usage_error(a->cmd, "--timeout %s: want 1s to 1h", tstr);
    f = fopen("/dev/urandom", "re");
    if (f == NULL || fread(&rnd, sizeof(rnd), 1, f) != 1)
        rnd = (unsigned)time(NULL);
    if (f != NULL)
        fclose(f);
    snprintf(name, sizeof(name), "check-%.40s-%06x", a->pos[1],
             rnd & 0xffffff);
    if (!store_name_ok(name))
        return cli_usage_error(a->cmd, "%s: not a vendor name (a-z, 0-9, -)",
                               a->pos[1]);
    yaml = check_spec(name, a->pos[1], a, (long)timeout);
    if (yaml == NULL || store_put(c->store, name, yaml, strlen(yaml), "",
                                  NULL, &e) == -1) {
        fprintf(stderr, "error: cannot write the check's spec %s: %s\n", name,
                yaml ? e.msg : "out of memory");
        free(yaml);
        return CLI_FAIL;
    }
    free(yaml);
    printf("check %s: vendor %s, image %s\n", name, a->pos[1],
           cli_args_get(a, "image", ""));
    return run(c, name, timeout, cli_args_has(a, "keep"));
}
