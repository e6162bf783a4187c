/* rc_adapter_claude.c - the Claude Code CLI in print mode (`claude -p`):
 * the phase's tools as --tools (nothing else exists for the model), a
 * settings file whose permissions allow exactly those tools plus, with a
 * runner, the agentctl runner tool (mcp__agentctl__run, our MCP server,
 * the only one) in dontAsk mode (anything not allowed is denied, no
 * prompt), Bash never (the CLI's own judgement of "read-only" commands let
 * other commands through an exact Bash rule), every other settings source
 * off, and the prompt after `--`. docs/adapters.md cites the Claude Code
 * docs for each flag.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rc_adapter_int.h"

#define CLAUDE_DIR      RC_ADAPTER_CONFIG_DIR "/claude"
#define CLAUDE_SETTINGS CLAUDE_DIR "/settings.json"
#define CLAUDE_MCP      CLAUDE_DIR "/mcp.json"

/* Tools of every phase: read, list (Glob) and search (Grep). */
static const char *const claude_read_tools[] = { "Read", "Glob", "Grep" };
/* Edit tools: only in execute and fix. */
static const char *const claude_edit_tools[] = { "Edit", "Write",
                                                 "NotebookEdit" };
/* Never: the web. */
static const char *const claude_web_tools[] = { "WebFetch", "WebSearch" };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

#define CLAUDE_RUNNER_TOOL \
    "mcp__" RC_RUNNER_MCP_SERVER "__" RC_RUNNER_MCP_TOOL

/* Comma-joined built-in tool names: the read tools, then the edit tools in
 * writable phases; with_runner adds the runner tool (an MCP tool, which
 * --tools does not list: it names built-in tools only). */
static char *
claude_tools(struct rc__adapter *b, bool with_runner)
{
    const struct rc_adapter_policy *p = &b->out->policy;

    return rc__adapter_strf(b, "Read,Glob,Grep%s%s",
                            p->edit ? ",Edit,Write,NotebookEdit" : "",
                            with_runner && p->run ? "," CLAUDE_RUNNER_TOOL
                                                  : "");
}

static char *
claude_denied(struct rc__adapter *b)
{
    const struct rc_adapter_policy *p = &b->out->policy;

    return rc__adapter_strf(b, "WebFetch,WebSearch%s,Bash",
                            p->edit ? "" : ",Edit,Write,NotebookEdit");
}

static bool
claude_add_names(cJSON *a, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateString(names[i])))
            return false;
    return true;
}

static cJSON *
claude_permissions(struct rc__adapter *b)
{
    const struct rc_adapter_policy *p = &b->out->policy;
    cJSON *perm = cJSON_CreateObject();
    cJSON *allow = cJSON_AddArrayToObject(perm, "allow");
    cJSON *deny = cJSON_AddArrayToObject(perm, "deny");
    bool ok = allow != NULL && deny != NULL;

    ok = ok && cJSON_AddStringToObject(perm, "defaultMode", "dontAsk");
    ok = ok && cJSON_AddStringToObject(perm, "disableBypassPermissionsMode",
                                       "disable");
    ok = ok &&
         claude_add_names(allow, claude_read_tools, NELEM(claude_read_tools));
    if (ok && p->edit)
        ok = claude_add_names(allow, claude_edit_tools,
                              NELEM(claude_edit_tools));
    if (ok && p->run)
        ok = cJSON_AddItemToArray(allow,
                                  cJSON_CreateString(CLAUDE_RUNNER_TOOL));
    ok =
        ok && claude_add_names(deny, claude_web_tools, NELEM(claude_web_tools));
    if (ok && !p->edit)
        ok =
            claude_add_names(deny, claude_edit_tools, NELEM(claude_edit_tools));
    ok = ok && cJSON_AddItemToArray(deny, cJSON_CreateString("Bash"));
    if (!ok) {
        cJSON_Delete(perm);
        return NULL;
    }
    return perm;
}

/* settings.json: the one settings source the CLI reads (--setting-sources
 * ""), so the worktree's .claude/ cannot add rules, hooks or servers. */
static char *
claude_settings(struct rc__adapter *b)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *perm = claude_permissions(b);
    char *s = NULL;

    if (j != NULL && perm != NULL &&
        cJSON_AddItemToObject(j, "permissions", perm) &&
        cJSON_AddBoolToObject(j, "disableAllHooks", true) &&
        cJSON_AddBoolToObject(j, "enableAllProjectMcpServers", false))
        s = cJSON_Print(j);
    else if (perm != NULL && cJSON_GetObjectItem(j, "permissions") != perm)
        cJSON_Delete(perm);
    cJSON_Delete(j);
    if (s == NULL)
        rc__adapter_fail(b, ERR_NOMEM, NULL, NULL);
    return s;
}

/* Appended to the system prompt so the model knows the rules it is held
 * to; the CLI enforces them either way. */
static char *
claude_system_note(struct rc__adapter *b)
{
    const struct rc_adapter_policy *p = &b->out->policy;
    char *run = NULL, *s;

    if (p->run)
        run = rc__adapter_strf(b,
                               " The one command you can run is `%s`: call "
                               "the " CLAUDE_RUNNER_TOOL " tool (no "
                               "arguments) and it runs it in /work and "
                               "returns its exit code and output.",
                               p->runner_line);
    else
        run = rc__adapter_strf(b, " You cannot run commands.");
    s = rc__adapter_strf(b,
                         "agentctl phase %s: you may read, list and search "
                         "files%s.%s Web access is off; stdin is closed.",
                         spec_phase_name(b->out->phase),
                         p->edit ? " and edit files in the worktree"
                                 : " (the worktree is read-only)",
                         run != NULL ? run : "");
    free(run);
    return s;
}

static void
claude_summary(struct rc__adapter *b)
{
    const struct rc_adapter_policy *p = &b->out->policy;

    b->out->summary = rc__adapter_strf(
        b, "tools: Read, Glob, Grep%s%s; runner: %s%s; edits: %s; mcp: %s; %s",
        p->edit ? ", Edit, Write, NotebookEdit" : "",
        p->run ? ", " CLAUDE_RUNNER_TOOL : "", p->run ? p->runner_line : "none",
        p->run ? " (exact argv, agentctl runner tool)" : "",
        p->edit ? "worktree" : "off", p->run ? "agentctl runner only" : "none",
        RC__ADAPTER_ALWAYS);
}

/* mcp.json, the only MCP source (--strict-mcp-config): the runner tool's
 * server where there is a runner, no server otherwise. */
static char *
claude_mcp(struct rc__adapter *b)
{
    char *server, *s;

    if (!b->out->policy.run)
        return rc__adapter_strf(b, "{\"mcpServers\": {}}\n");
    server = rc__adapter_runner_mcp_json(b);
    s = server != NULL ? rc__adapter_strf(b,
                                          "{\"mcpServers\": {\"%s\": %s}}\n",
                                          RC_RUNNER_MCP_SERVER, server)
                       : NULL;
    free(server);
    return s;
}

static void
claude_flag_value(struct rc__adapter *b, const char *flag, char *value)
{
    /* --flag=value: a variadic flag given as one token cannot swallow the
     * arguments after it (anthropics/claude-code#25978). */
    if (value != NULL)
        rc__adapter_argf(b, "%s=%s", flag, value);
    free(value);
}

int
rc__adapter_claude(struct rc__adapter *b)
{
    rc__adapter_arg(b, "claude");
    rc__adapter_arg(b, "-p");
    /* one JSON envelope on stdout: the result text, is_error, the turn
     * count and the permission denials (docs/vendor-clis.md) */
    rc__adapter_arg(b, "--output-format");
    rc__adapter_arg(b, "json");
    rc__adapter_arg(b, "--setting-sources");
    rc__adapter_arg(b, "");
    rc__adapter_arg(b, "--settings");
    rc__adapter_arg(b, CLAUDE_SETTINGS);
    rc__adapter_arg(b, "--strict-mcp-config");
    rc__adapter_arg(b, "--mcp-config");
    rc__adapter_arg(b, CLAUDE_MCP);
    rc__adapter_arg(b, "--permission-mode");
    rc__adapter_arg(b, "dontAsk");
    claude_flag_value(b, "--tools", claude_tools(b, false));
    claude_flag_value(b, "--allowedTools", claude_tools(b, true));
    claude_flag_value(b, "--disallowedTools", claude_denied(b));
    claude_flag_value(b, "--append-system-prompt", claude_system_note(b));
    /* the schema of the answer (envelope member structured_output) */
    if (b->box != NULL && b->box->output_schema != NULL)
        claude_flag_value(b, "--json-schema",
                          rc__adapter_strf(b, "%s", b->box->output_schema));
    rc__adapter_arg(b, "--");
    rc__adapter_arg(b, b->prompt);
    rc__adapter_env(b, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    rc__adapter_file(b, CLAUDE_SETTINGS, claude_settings(b), 0444);
    rc__adapter_file(b, CLAUDE_MCP, claude_mcp(b), 0444);
    claude_summary(b);
    return b->failed ? -1 : 0;
}
