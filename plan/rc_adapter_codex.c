/* rc_adapter_codex.c - the OpenAI Codex CLI, non-interactive
 * (`codex exec`): no shell tool in any phase, the runner as the agentctl
 * runner tool (our MCP server, the only one), no approvals, web search
 * and analytics off, CODEX_HOME on the scratch volume, and the prompt
 * after `--`.
 *
 * Codex cannot limit its shell tool to one argv (its rules decide what
 * runs outside its sandbox, not what runs inside it), and its own sandbox
 * (bubblewrap, which needs user namespaces) cannot start in the box (no
 * capabilities, no-new-privileges; measured: docs/vendor-clis.md). So the
 * shell is off everywhere and the sandbox is ours: the launcher's Landlock
 * domain (rc_adapter_launch.c). codex's sandbox mode then only decides
 * whether it applies patches: danger-full-access (no codex sandbox) in
 * execute and fix, read-only elsewhere. docs/adapters.md has the sources.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "rc_adapter_int.h"

/* The policy as a file, for the operator (describe, the box's
 * /etc/agentctl/agent); codex itself gets every key with -c, because it
 * must write under CODEX_HOME, which is therefore the scratch volume
 * (fresh for each attempt, so no earlier run leaves a config there). */
#define CODEX_CONFIG RC_ADAPTER_CONFIG_DIR "/codex/config.toml"
#define CODEX_HOME   "/tmp"

/* s as a TOML basic string, quotes included. */
static char *
codex_toml_string(struct rc__adapter *b, const char *s)
{
    struct buf t;
    struct err e = { 0 };
    int rc;

    buf_init(&t, RC__ADAPTER_TEXT_MAX);
    rc = buf_puts(&t, "\"", &e);
    for (const unsigned char *c = (const unsigned char *)s;
         *c != '\0' && rc == 0; c++) {
        if (*c == '"' || *c == '\\')
            rc = buf_printf(&t, &e, "\\%c", *c);
        else if (*c == '\n')
            rc = buf_puts(&t, "\\n", &e);
        else if (*c < 0x20 || *c == 0x7f)
            rc = buf_printf(&t, &e, "\\u%04X", *c);
        else
            rc = buf_append(&t, c, 1, &e);
    }
    rc = rc == 0 ? buf_puts(&t, "\"", &e) : rc;
    if (rc != 0) {
        buf_cleanup(&t);
        rc__adapter_fail(b, ERR_NOMEM, NULL, NULL);
        return NULL;
    }
    return buf_take(&t);
}

/* The mode decides only whether apply_patch may write (nothing else runs:
 * no shell tool); the kernel's confinement is the launcher's. */
static const char *
codex_sandbox(const struct rc__adapter *b)
{
    return b->out->policy.edit ? "danger-full-access" : "read-only";
}

/* mcp_servers as a TOML inline table: the runner tool's server, or none.
 * Its tool is approved ahead (default_tools_approval_mode = "approve"):
 * with approval_policy "never" codex 0.171.0 otherwise refuses every MCP
 * call ("MCP tool call requires approval, but approval policy is never",
 * measured); the tool runs only the spec's runner. */
static char *
codex_mcp_servers(struct rc__adapter *b)
{
    if (!b->out->policy.run)
        return rc__adapter_strf(b, "{}");
    return rc__adapter_strf(b,
                            "{ %s = { command = \"%s\", args = "
                            "[\"--mcp-runner\", \"%s\"], "
                            "default_tools_approval_mode = \"approve\" } }",
                            RC_RUNNER_MCP_SERVER, RC_LAUNCH_BIN,
                            RC_RUNNER_SOCKET);
}

static char *
codex_instructions(struct rc__adapter *b)
{
    const struct rc_adapter_policy *p = &b->out->policy;
    char *run, *s;

    if (p->run)
        run = rc__adapter_strf(b,
                               " The one command you can run is `%s`: call "
                               "the %s tool of the %s MCP server (no "
                               "arguments) and it runs it in /work and "
                               "returns its exit code and output.",
                               p->runner_line, RC_RUNNER_MCP_TOOL,
                               RC_RUNNER_MCP_SERVER);
    else
        run = rc__adapter_strf(b, " You cannot run commands.");
    s = rc__adapter_strf(b,
                         "agentctl phase %s: %s.%s Web access is off; "
                         "stdin is closed.",
                         spec_phase_name(b->out->phase),
                         p->edit ? "you may edit files in the worktree"
                                 : "the worktree is read-only",
                         run != NULL ? run : "");
    free(run);
    return s;
}

/* config.toml: the same keys as the -c overrides (the worktree's .codex/
 * is a project layer, which codex loads only for a trusted project, and
 * nothing here trusts one). No MCP server table. */
static char *
codex_config(struct rc__adapter *b)
{
    char *note = codex_instructions(b);
    char *q = note != NULL ? codex_toml_string(b, note) : NULL;
    char *mcp = codex_mcp_servers(b);
    char *s = NULL;

    if (q != NULL && mcp != NULL)
        s = rc__adapter_strf(
            b,
            "# agentctl: codex exec policy for phase %s (generated)\n"
            "approval_policy = \"never\"\n"
            "sandbox_mode = \"%s\"\n"
            "web_search = \"disabled\"\n"
            "developer_instructions = %s\n"
            "check_for_update_on_startup = false\n"
            "\n"
            "mcp_servers = %s\n"
            "\n"
            "[features]\n"
            "shell_tool = false\n"
            "plugins = false\n"
            "remote_plugin = false\n"
            "apps = false\n"
            "unified_exec = false\n"
            "web_search_request = false\n"
            "\n"
            "[tools]\n"
            "web_search = false\n"
            "\n"
            "[sandbox_workspace_write]\n"
            "network_access = false\n"
            "\n"
            "[analytics]\n"
            "enabled = false\n",
            spec_phase_name(b->out->phase), codex_sandbox(b), q, mcp);
    free(note);
    free(q);
    free(mcp);
    return s;
}

static void
codex_mcp_arg(struct rc__adapter *b)
{
    char *mcp = codex_mcp_servers(b);

    if (mcp != NULL) {
        rc__adapter_arg(b, "-c");
        rc__adapter_argf(b, "mcp_servers=%s", mcp);
    }
    free(mcp);
}

/* -c developer_instructions="...": the phase policy in words. */
static void
codex_instructions_arg(struct rc__adapter *b)
{
    char *note = codex_instructions(b);
    char *q = note != NULL ? codex_toml_string(b, note) : NULL;

    if (q != NULL) {
        rc__adapter_arg(b, "-c");
        rc__adapter_argf(b, "developer_instructions=%s", q);
    }
    free(note);
    free(q);
}

static void
codex_summary(struct rc__adapter *b)
{
    const struct rc_adapter_policy *p = &b->out->policy;

    b->out->summary = rc__adapter_strf(
        b, "tools: %s (shell tool off); sandbox: agentctl's (Landlock; "
           "codex's needs user namespaces); runner: %s%s; edits: %s; mcp: "
           "%s; %s",
        p->edit && p->run ? "apply_patch, agentctl run"
        : p->edit         ? "apply_patch"
        : p->run          ? "agentctl run"
                          : "none",
        p->run ? p->runner_line : "none",
        p->run ? " (exact argv, agentctl runner tool)" : "",
        p->edit ? "worktree" : "off", p->run ? "agentctl runner only" : "none",
        RC__ADAPTER_ALWAYS);
}

/* What codex 0.171.0 executes itself, beside its binary: the code-mode
 * host its one `exec` tool runs JavaScript in (measured: without it every
 * tool call ends "gRPC code-mode session opening failed: Permission
 * denied"; hack/images/build-codex.sh ships it). */
static const char *const codex_exec_siblings[] = { "codex-code-mode-host",
                                                   NULL };

/* The result's documented channel: the last message into a file of the
 * scratch volume (read back through the keeper), and the schema, when the
 * spec has one, as the file --output-schema names. */
static void
codex_result_args(struct rc__adapter *b)
{
    const struct rc_adapter_box *box = b->box;

    if (box != NULL && box->result_unread)
        return;
    rc__adapter_arg(b, "--output-last-message");
    rc__adapter_arg(b, RC_CODEX_RESULT_FILE);
    if (box == NULL || box->output_schema == NULL)
        return;
    rc__adapter_arg(b, "--output-schema");
    rc__adapter_arg(b, RC_CODEX_SCHEMA_FILE);
    rc__adapter_file(b, RC_CODEX_SCHEMA_FILE,
                     rc__adapter_strf(b, "%s\n", box->output_schema), 0444);
}

int
rc__adapter_codex(struct rc__adapter *b)
{
    /* `codex exec -` reads the prompt from stdin, which is closed. */
    if (strcmp(b->prompt, "-") == 0)
        return rc__adapter_fail(b, ERR_INVALID, "spec.prompt",
                                "codex reads a prompt of \"-\" from stdin, "
                                "which the agent does not have");
    b->exec_siblings = codex_exec_siblings;
    rc__adapter_arg(b, "codex");
    rc__adapter_arg(b, "exec");
    rc__adapter_arg(b, "--sandbox");
    rc__adapter_arg(b, codex_sandbox(b));
    rc__adapter_arg(b, "--skip-git-repo-check");
    rc__adapter_arg(b, "--ephemeral");
    rc__adapter_arg(b, "--color");
    rc__adapter_arg(b, "never");
    /* -c overrides beat every config layer (docs: config precedence). */
    rc__adapter_arg(b, "-c");
    rc__adapter_arg(b, "approval_policy=\"never\"");
    rc__adapter_arg(b, "-c");
    rc__adapter_arg(b, "web_search=\"disabled\"");
    rc__adapter_arg(b, "-c");
    rc__adapter_arg(b, "features.web_search_request=false");
    codex_mcp_arg(b);
    rc__adapter_arg(b, "-c");
    rc__adapter_arg(b, "features.shell_tool=false");
    rc__adapter_arg(b, "-c");
    rc__adapter_arg(b, "features.unified_exec=false");
    rc__adapter_arg(b, "-c");
    rc__adapter_arg(b, "sandbox_workspace_write.network_access=false");
    rc__adapter_arg(b, "-c");
    rc__adapter_arg(b, "analytics.enabled=false");
    /* non-essential traffic 0.171.0 sends otherwise (the proxy refused
     * it in tests/integration/vendors/test_codex_phases.sh): the update
     * check (api.github.com) and the plugin and app catalogues
     * (chatgpt.com) */
    rc__adapter_arg(b, "-c");
    rc__adapter_arg(b, "check_for_update_on_startup=false");
    rc__adapter_arg(b, "-c");
    rc__adapter_arg(b, "features.plugins=false");
    rc__adapter_arg(b, "-c");
    rc__adapter_arg(b, "features.remote_plugin=false");
    rc__adapter_arg(b, "-c");
    rc__adapter_arg(b, "features.apps=false");
    /* 0.171.0 ignores OPENAI_BASE_URL in the environment
     * (docs/vendor-clis.md): the gateway's URL goes in as config */
    if (b->box != NULL && b->box->gateway_url != NULL) {
        rc__adapter_arg(b, "-c");
        rc__adapter_arg(b, "model_provider=\"agentctl-gateway\"");
        rc__adapter_arg(b, "-c");
        rc__adapter_argf(b,
                         "model_providers.agentctl-gateway={name=\"agentctl "
                         "gateway\",base_url=\"%s/v1\",wire_api=\"responses\","
                         "supports_websockets=false}",
                         b->box->gateway_url);
    }
    codex_instructions_arg(b);
    codex_result_args(b);
    rc__adapter_arg(b, "--");
    rc__adapter_arg(b, b->prompt);
    rc__adapter_env(b, "CODEX_HOME", CODEX_HOME);
    rc__adapter_file(b, CODEX_CONFIG, codex_config(b), 0444);
    codex_summary(b);
    return b->failed ? -1 : 0;
}
