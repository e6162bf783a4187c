/* rc_adapter_launch.c - the launcher in front of every vendor CLI
 * (docs/phase-policy.md): its argv prefix and the policy file it reads,
 * written from the phase, the runner and the box's ports. The same for
 * every adapter, so a vendor's own settings are never the only layer:
 *
 *   exec     the CLI's own binary and loader (the launcher finds them),
 *            the helpers beside it the adapter names (codex's code-mode
 *            host), plus the launcher itself where the runner tool exists
 *            (the CLI starts it as its MCP server);
 *   write    the scratch volume (/tmp, HOME), /dev/null, and /work only in
 *            execute and fix;
 *   connect  the proxy's port and the gateway's;
 *   runner   the spec's argv, run by the launcher outside the CLI's
 *            domain when the tool asks (launch.h).
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "rc_adapter_int.h"

/* The box's defaults when the caller gives none (unit tests, describe of
 * a spec without a captured box). */
static const struct rc_adapter_box rc_launch_default_box = {
    .gateway_url = NULL,
    .proxy_port = 3128,
    .gateway_port = 0,
    .landlock_optional = false,
    .runner_timeout = 600,
    .runner_max_bytes = 1024 * 1024,
    .runner_dir = "/work",
};

static const struct rc_adapter_box *
launch_box(const struct rc__adapter *b)
{
    return b->box != NULL ? b->box : &rc_launch_default_box;
}

char *
rc__adapter_runner_mcp_json(struct rc__adapter *b)
{
    return rc__adapter_strf(b, "{\"command\": \"%s\", \"args\": "
                               "[\"--mcp-runner\", \"%s\"]}",
                            RC_LAUNCH_BIN, RC_RUNNER_SOCKET);
}

/* A runner word on one line of the policy: the parser takes the rest of
 * the line as the value, so only a newline could break it, which
 * rc_adapter_check refuses. */
static int
launch_runner_lines(struct buf *t, const struct rc_adapter_policy *p,
                    const struct rc_adapter_box *box, struct err *e)
{
    int rc = 0;

    if (!p->run)
        return 0;
    rc = buf_printf(t, e, "exec %s\n", RC_LAUNCH_BIN);
    for (size_t i = 0; rc == 0 && i < p->runner_n; i++)
        rc = buf_printf(t, e, "runner-arg %s\n", p->runner[i]);
    if (rc == 0 && box->credential_env != NULL)
        rc = buf_printf(t, e, "runner-unset %s\n", box->credential_env);
    if (rc == 0)
        rc = buf_printf(t, e,
                        "runner-dir %s\nrunner-home %s\nrunner-timeout %u\n"
                        "runner-max-bytes %lu\nrunner-socket %s\n",
                        box->runner_dir, RC_RUNNER_HOME, box->runner_timeout,
                        box->runner_max_bytes, RC_RUNNER_SOCKET);
    return rc;
}

static char *
launch_policy_text(struct rc__adapter *b)
{
    const struct rc_adapter_box *box = launch_box(b);
    const struct rc_adapter_policy *p = &b->out->policy;
    struct buf t;
    struct err e = { 0 };
    int rc;

    buf_init(&t, RC__ADAPTER_TEXT_MAX);
    rc = buf_printf(&t, &e,
                    "# agent-launch policy (agentctl): phase %s, adapter %s\n"
                    "landlock %s\nwrite /tmp\nwrite /dev/null\n%s"
                    "connect %u\n",
                    spec_phase_name(b->out->phase), b->out->adapter,
                    box->landlock_optional ? "optional" : "required",
                    p->edit ? "write /work\n" : "", box->proxy_port);
    if (rc == 0 && box->gateway_port != 0)
        rc = buf_printf(&t, &e, "connect %u\n", box->gateway_port);
    for (const char *const *s = b->exec_siblings; rc == 0 && s && *s; s++)
        rc = buf_printf(&t, &e, "exec-sibling %s\n", *s);
    if (rc == 0)
        rc = launch_runner_lines(&t, p, box, &e);
    if (rc != 0) {
        buf_cleanup(&t);
        rc__adapter_fail(b, e.code, "spec.runner", "%s", e.msg);
        return NULL;
    }
    return buf_take(&t);
}

bool
rc_adapter_launched(const struct rc_adapter_out *o)
{
    return o != NULL && o->argc > 0 && strcmp(o->argv[0], RC_LAUNCH_BIN) == 0;
}

/* describe's line gets the kernel's layer: what the domain may execute,
 * write and connect to, as the policy file says. */
static void
launch_summary(struct rc__adapter *b)
{
    const struct rc_adapter_box *box = launch_box(b);
    struct buf t;
    struct err e = { 0 };
    int rc;

    if (b->failed || b->out->summary == NULL)
        return;
    buf_init(&t, RC__ADAPTER_TEXT_MAX);
    rc = buf_printf(&t, &e, "%s; kernel: Landlock%s (exec: the CLI",
                    b->out->summary,
                    box->landlock_optional ? " where the kernel has it" : "");
    for (const char *const *s = b->exec_siblings; rc == 0 && s && *s; s++)
        rc = buf_printf(&t, &e, ", %s", *s);
    if (rc == 0)
        rc = buf_printf(&t, &e, "%s; write: %s; connect: the proxy%s), "
                                "seccomp",
                        b->out->policy.run ? ", the runner tool" : "",
                        b->out->policy.edit ? "/work, /tmp" : "/tmp",
                        box->gateway_port ? " and gateway" : "");
    if (rc != 0) {
        buf_cleanup(&t);
        rc__adapter_fail(b, ERR_NOMEM, NULL, NULL);
        return;
    }
    free(b->out->summary);
    b->out->summary = buf_take(&t);
}

int
rc__adapter_launch(struct rc__adapter *b)
{
    static const char *const prefix[] = { RC_LAUNCH_BIN, "--policy",
                                          RC_LAUNCH_POLICY, "--" };
    struct rc_adapter_out *o = b->out;
    size_t n = sizeof(prefix) / sizeof(prefix[0]);

    if (b->failed)
        return -1;
    if (launch_box(b)->unlaunched)
        return 0;
    if (o->argc + n > RC_ADAPTER_MAX_ARGS)
        return rc__adapter_fail(b, ERR_LIMIT, NULL, "too many arguments");
    memmove(o->argv + n, o->argv, (o->argc + 1) * sizeof(char *));
    for (size_t i = 0; i < n; i++)
        o->argv[i] = NULL;
    o->argc += n;
    for (size_t i = 0; i < n; i++)
        if ((o->argv[i] = strdup(prefix[i])) == NULL)
            return rc__adapter_fail(b, ERR_NOMEM, NULL, NULL);
    rc__adapter_file(b, RC_LAUNCH_POLICY, launch_policy_text(b), 0444);
    launch_summary(b);
    return b->failed ? -1 : 0;
}
