/* rc_adapter.c - the vendor adapter front: check the inputs every vendor
 * shares (phase vs runner, argument sizes), dispatch to the vendor file,
 * and the plain-data output (builder, free, JSON for golden files).
 */
#include "rc_adapter.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "rc_adapter_int.h"

struct rc_adapter_kind {
    const char *name;
    rc__adapter_fn *build;
};

static const struct rc_adapter_kind rc_adapter_kinds[] = {
    { "claude", rc__adapter_claude },
    { "codex", rc__adapter_codex },
    { "generic", rc__adapter_generic },
};

const char *
rc_adapter_for_vendor(const char *vendor_name)
{
    if (vendor_name != NULL && strcmp(vendor_name, "claude") == 0)
        return "claude";
    if (vendor_name != NULL && strcmp(vendor_name, "codex") == 0)
        return "codex";
    return "generic";
}

int
rc__adapter_fail(struct rc__adapter *b, enum err_code c, const char *field,
                 const char *fmt, ...)
{
    char msg[sizeof(b->e->msg)];
    va_list ap;

    if (b->failed)
        return -1;
    b->failed = true;
    if (fmt == NULL)
        return err_set(b->e, ERR_NOMEM,
                       "out of memory building the agent "
                       "command");
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return err_set_at(b->e, c, NULL, 0, 0, field, "%s", msg);
}

static char *rc_adapter_vstrf(struct rc__adapter *b, const char *fmt,
                              va_list ap) ERR_PRINTF(2, 0);

static char *
rc_adapter_vstrf(struct rc__adapter *b, const char *fmt, va_list ap)
{
    char *s = NULL;
    va_list cp;
    int n;

    va_copy(cp, ap);
    n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n >= 0 && (size_t)n < RC__ADAPTER_TEXT_MAX) {
        s = malloc((size_t)n + 1);
        if (s != NULL)
            vsnprintf(s, (size_t)n + 1, fmt, ap);
    }
    if (s == NULL && n >= 0 && (size_t)n >= RC__ADAPTER_TEXT_MAX)
        rc__adapter_fail(b, ERR_LIMIT, NULL, "text over %u bytes",
                         RC__ADAPTER_TEXT_MAX);
    else if (s == NULL)
        rc__adapter_fail(b, ERR_NOMEM, NULL, NULL);
    return s;
}

char *
rc__adapter_strf(struct rc__adapter *b, const char *fmt, ...)
{
    va_list ap;
    char *s;

    if (b->failed)
        return NULL;
    va_start(ap, fmt);
    s = rc_adapter_vstrf(b, fmt, ap);
    va_end(ap);
    return s;
}

void
rc__adapter_arg(struct rc__adapter *b, const char *s)
{
    struct rc_adapter_out *o = b->out;

    if (b->failed)
        return;
    if (o->argc >= RC_ADAPTER_MAX_ARGS) {
        rc__adapter_fail(b, ERR_LIMIT, NULL, "more than %d arguments",
                         RC_ADAPTER_MAX_ARGS);
        return;
    }
    o->argv[o->argc] = strdup(s);
    if (o->argv[o->argc] == NULL) {
        rc__adapter_fail(b, ERR_NOMEM, NULL, NULL);
        return;
    }
    o->argc++;
}

void
rc__adapter_argf(struct rc__adapter *b, const char *fmt, ...)
{
    struct rc_adapter_out *o = b->out;
    va_list ap;
    char *s;

    if (b->failed)
        return;
    va_start(ap, fmt);
    s = rc_adapter_vstrf(b, fmt, ap);
    va_end(ap);
    if (s == NULL)
        return;
    if (o->argc >= RC_ADAPTER_MAX_ARGS) {
        free(s);
        rc__adapter_fail(b, ERR_LIMIT, NULL, "more than %d arguments",
                         RC_ADAPTER_MAX_ARGS);
        return;
    }
    o->argv[o->argc++] = s;
}

void
rc__adapter_env(struct rc__adapter *b, const char *key, const char *value)
{
    struct rc_adapter_out *o = b->out;
    char *s;

    if (b->failed)
        return;
    if (o->n_env >= RC_ADAPTER_MAX_ENV) {
        rc__adapter_fail(b, ERR_LIMIT, NULL, "more than %d env entries",
                         RC_ADAPTER_MAX_ENV);
        return;
    }
    s = rc__adapter_strf(b, "%s=%s", key, value);
    if (s != NULL && strlen(s) > RC_ADAPTER_ARG_MAX) {
        free(s);
        rc__adapter_fail(b, ERR_LIMIT, "spec.prompt",
                         "env %s is over the %d bytes one env entry can "
                         "carry (Linux MAX_ARG_STRLEN); shorten it",
                         key, RC_ADAPTER_ARG_MAX);
        return;
    }
    if (s != NULL)
        o->env[o->n_env++] = s;
}

void
rc__adapter_file(struct rc__adapter *b, const char *path, char *content,
                 unsigned mode)
{
    struct rc_adapter_out *o = b->out;
    struct rc_adapter_file *f;

    if (content == NULL)
        rc__adapter_fail(b, ERR_NOMEM, NULL, NULL);
    if (b->failed || o->n_files >= RC_ADAPTER_MAX_FILES) {
        free(content);
        rc__adapter_fail(b, ERR_LIMIT, NULL, "more than %d config files",
                         RC_ADAPTER_MAX_FILES);
        return;
    }
    f = &o->files[o->n_files];
    f->path = strdup(path);
    if (f->path == NULL) {
        free(content);
        rc__adapter_fail(b, ERR_NOMEM, NULL, NULL);
        return;
    }
    f->content = content;
    f->mode = mode;
    o->n_files++;
}

static bool
rc_shell_safe(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s != '\0'; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || strchr("_@%+=:,./-", *s) != NULL))
            return false;
    return true;
}

char *
rc_adapter_shell_line(char *const *argv, size_t n)
{
    struct buf t;
    struct err e = { 0 };
    int rc = 0;

    buf_init(&t, RC__ADAPTER_TEXT_MAX);
    rc = buf_append(&t, "", 0, &e);
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (i > 0)
            rc = buf_puts(&t, " ", &e);
        if (rc == 0 && rc_shell_safe(argv[i])) {
            rc = buf_puts(&t, argv[i], &e);
            continue;
        }
        rc = rc == 0 ? buf_puts(&t, "'", &e) : rc;
        for (const char *p = argv[i]; *p != '\0' && rc == 0; p++)
            rc = *p == '\'' ? buf_puts(&t, "'\\''", &e)
                            : buf_append(&t, p, 1, &e);
        rc = rc == 0 ? buf_puts(&t, "'", &e) : rc;
    }
    if (rc != 0) {
        buf_cleanup(&t);
        return NULL;
    }
    return buf_take(&t);
}

void
rc_adapter_out_free(struct rc_adapter_out *o)
{
    if (o == NULL)
        return;
    for (size_t i = 0; i < o->argc; i++)
        free(o->argv[i]);
    for (size_t i = 0; i < o->n_env; i++)
        free(o->env[i]);
    for (size_t i = 0; i < o->n_files; i++) {
        free(o->files[i].path);
        free(o->files[i].content);
    }
    for (size_t i = 0; i < o->policy.runner_n; i++)
        free(o->policy.runner[i]);
    free(o->policy.runner);
    free(o->policy.runner_line);
    free(o->argv);
    free(o->env);
    free(o->files);
    free(o->summary);
    free(o->vendor);
    free(o->adapter);
    free(o);
}

/* The launcher's policy file holds one runner word per line. */
static int
rc_adapter_newline(size_t i, struct err *e)
{
    char field[48];

    snprintf(field, sizeof(field), "spec.runner[%zu]", i);
    return err_set_at(e, ERR_INVALID, NULL, 0, 0, field,
                      "a runner argument holds a newline; put such a "
                      "command in a script in the worktree");
}

/* Inputs every adapter relies on; vendor-specific ones are in the vendor
 * files. */
static int
rc_adapter_check(const char *vendor_name, enum spec_phase phase,
                 const char *prompt, const struct spec_argv *runner,
                 struct err *e)
{
    size_t n = runner != NULL ? runner->n : 0;

    if (vendor_name == NULL || (unsigned)phase > SPEC_PHASE_FIX)
        return err_set(e, ERR_INVALID, "adapter: no vendor or bad phase");
    if (prompt == NULL || prompt[0] == '\0')
        return err_set_at(e, ERR_INVALID, NULL, 0, 0, "spec.prompt",
                          "a prompt spec needs a non-empty prompt");
    if (strlen(prompt) > RC_ADAPTER_ARG_MAX)
        return err_set_at(e, ERR_LIMIT, NULL, 0, 0, "spec.prompt",
                          "prompt of %zu bytes is over the %d bytes one "
                          "argument can carry (Linux MAX_ARG_STRLEN); "
                          "shorten it",
                          strlen(prompt), RC_ADAPTER_ARG_MAX);
    if (n > 0 &&
        (phase == SPEC_PHASE_PLANNING || phase == SPEC_PHASE_QUESTIONS))
        return err_set_at(e, ERR_INVALID, NULL, 0, 0, "spec.runner",
                          "phase %s has no runner (read, list and search "
                          "only)",
                          spec_phase_name(phase));
    if (n > 64)
        return err_set_at(e, ERR_LIMIT, NULL, 0, 0, "spec.runner",
                          "runner has more than 64 arguments");
    for (size_t i = 0, total = 0; i < n; i++) {
        /* the launcher's policy file is at most 64 KiB: the runner's
         * lines keep to half of it */
        total += runner->argv[i] ? strlen(runner->argv[i]) + 12 : 0;
        if (total > RC_ADAPTER_RUNNER_MAX)
            return err_set_at(e, ERR_LIMIT, NULL, 0, 0, "spec.runner",
                              "the runner's words take more than %u bytes; "
                              "put such a command in a script in the "
                              "worktree",
                              RC_ADAPTER_RUNNER_MAX);
    }
    for (size_t i = 0; i < n; i++)
        if (runner->argv[i] == NULL || runner->argv[i][0] == '\0' ||
            strlen(runner->argv[i]) > 4096)
            return err_set_at(e, ERR_INVALID, NULL, 0, 0, "spec.runner",
                              "runner[%zu] must be 1..4096 bytes", i);
        else if (strchr(runner->argv[i], '\n') != NULL)
            return rc_adapter_newline(i, e);
    return 0;
}

static int
rc_adapter_policy_init(struct rc_adapter_out *o, const struct spec_argv *r)
{
    o->policy.edit = spec_phase_writable(o->phase);
    if (r == NULL || r->n == 0)
        return 0;
    o->policy.run = true;
    o->policy.runner = calloc(r->n, sizeof(char *));
    if (o->policy.runner == NULL)
        return -1;
    for (size_t i = 0; i < r->n; i++) {
        o->policy.runner[i] = strdup(r->argv[i]);
        if (o->policy.runner[i] == NULL)
            return -1;
        o->policy.runner_n = i + 1;
    }
    o->policy.runner_line = rc_adapter_shell_line(r->argv, r->n);
    return o->policy.runner_line == NULL ? -1 : 0;
}

static struct rc_adapter_out *
rc_adapter_out_new(const char *vendor_name, const char *adapter,
                   enum spec_phase phase, const struct spec_argv *runner)
{
    struct rc_adapter_out *o = calloc(1, sizeof(*o));

    if (o == NULL)
        return NULL;
    o->phase = phase;
    o->vendor = strdup(vendor_name);
    o->adapter = strdup(adapter);
    o->argv = calloc(RC_ADAPTER_MAX_ARGS + 1, sizeof(char *));
    o->env = calloc(RC_ADAPTER_MAX_ENV, sizeof(char *));
    o->files = calloc(RC_ADAPTER_MAX_FILES, sizeof(*o->files));
    if (o->vendor == NULL || o->adapter == NULL || o->argv == NULL ||
        o->env == NULL || o->files == NULL ||
        rc_adapter_policy_init(o, runner) == -1) {
        rc_adapter_out_free(o);
        return NULL;
    }
    return o;
}

struct rc_adapter_out *
rc_adapter_build(const char *vendor_name, const char *adapter,
                 enum spec_phase phase, const char *prompt,
                 const struct spec_argv *runner,
                 const struct rc_adapter_box *box, struct err *e)
{
    const struct rc_adapter_kind *k = NULL;
    struct rc__adapter b = { 0 };

    for (size_t i = 0; adapter != NULL && i < sizeof(rc_adapter_kinds) /
                                                  sizeof(rc_adapter_kinds[0]);
         i++)
        if (strcmp(adapter, rc_adapter_kinds[i].name) == 0)
            k = &rc_adapter_kinds[i];
    if (k == NULL)
        return err_set_at(e, ERR_INVALID, NULL, 0, 0, "adapter",
                          "unknown adapter \"%s\" (known: claude, codex, "
                          "generic)",
                          adapter != NULL ? adapter : ""),
               NULL;
    if (rc_adapter_check(vendor_name, phase, prompt, runner, e) == -1)
        return NULL;
    b.out = rc_adapter_out_new(vendor_name, adapter, phase, runner);
    b.prompt = prompt;
    b.box = box;
    b.e = e;
    if (b.out == NULL) {
        err_set(e, ERR_NOMEM, "out of memory building the agent command");
        return NULL;
    }
    /* the runner tool runs exactly the argv, for every vendor */
    b.out->policy.run_exact = b.out->policy.run;
    if (k->build(&b) == -1 || rc__adapter_launch(&b) == -1 || b.failed ||
        b.out->summary == NULL) {
        if (!b.failed)
            rc__adapter_fail(&b, ERR_NOMEM, NULL, NULL);
        rc_adapter_out_free(b.out);
        return NULL;
    }
    return b.out;
}

static cJSON *
rc_adapter_strings(char *const *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();

    for (size_t i = 0; a != NULL && i < n; i++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateString(v[i]))) {
            cJSON_Delete(a);
            return NULL;
        }
    return a;
}

static cJSON *
rc_adapter_files_json(const struct rc_adapter_out *o)
{
    cJSON *a = cJSON_CreateArray();
    char mode[16];

    for (size_t i = 0; a != NULL && i < o->n_files; i++) {
        cJSON *f = cJSON_CreateObject();

        snprintf(mode, sizeof(mode), "%04o", o->files[i].mode);
        if (!cJSON_AddItemToArray(a, f) ||
            cJSON_AddStringToObject(f, "path", o->files[i].path) == NULL ||
            cJSON_AddStringToObject(f, "mode", mode) == NULL ||
            cJSON_AddStringToObject(f, "content", o->files[i].content) ==
                NULL) {
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

static cJSON *
rc_adapter_policy_json(const struct rc_adapter_out *o)
{
    const struct rc_adapter_policy *p = &o->policy;
    cJSON *j = cJSON_CreateObject();
    bool ok = j != NULL;

    ok = ok && cJSON_AddBoolToObject(j, "edit", p->edit) != NULL;
    ok = ok && cJSON_AddBoolToObject(j, "run", p->run) != NULL;
    ok = ok && cJSON_AddBoolToObject(j, "runExact", p->run_exact) != NULL;
    ok = ok && cJSON_AddItemToObject(
                   j, "runner", rc_adapter_strings(p->runner, p->runner_n));
    ok = ok && (p->runner_line != NULL
                    ? cJSON_AddStringToObject(j, "runnerLine", p->runner_line)
                    : cJSON_AddNullToObject(j, "runnerLine")) != NULL;
    ok = ok && cJSON_AddBoolToObject(j, "web", false) != NULL;
    ok = ok && cJSON_AddItemToObject(
                   j, "mcpServers",
                   p->run ? cJSON_CreateStringArray(
                                (const char *const[]){ RC_RUNNER_MCP_SERVER },
                                1)
                          : cJSON_CreateArray());
    ok = ok && cJSON_AddStringToObject(j, "stdin", "closed") != NULL;
    ok = ok && cJSON_AddStringToObject(j, "summary", o->summary) != NULL;
    if (!ok) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

char *
rc_adapter_out_to_json(const struct rc_adapter_out *o)
{
    cJSON *j = cJSON_CreateObject();
    char *s = NULL;
    bool ok = j != NULL;

    ok = ok && cJSON_AddStringToObject(j, "vendor", o->vendor) != NULL;
    ok = ok && cJSON_AddStringToObject(j, "adapter", o->adapter) != NULL;
    ok = ok &&
         cJSON_AddStringToObject(j, "phase", spec_phase_name(o->phase)) != NULL;
    ok = ok &&
         cJSON_AddItemToObject(j, "argv", rc_adapter_strings(o->argv, o->argc));
    ok = ok &&
         cJSON_AddItemToObject(j, "env", rc_adapter_strings(o->env, o->n_env));
    ok = ok && cJSON_AddItemToObject(j, "files", rc_adapter_files_json(o));
    ok = ok && cJSON_AddItemToObject(j, "policy", rc_adapter_policy_json(o));
    if (ok)
        s = cJSON_Print(j);
    cJSON_Delete(j);
    return s;
}
