/* rc_adapter_generic.c - operator-defined vendors: the image's /agent
 * gets the prompt, the runner and the phase policy in env variables
 * (AGENT_PROMPT, AGENT_RUNNER as a JSON array, AGENT_TOOL_POLICY as a JSON
 * object) and no arguments, so nothing in the prompt can ever be read as
 * an option. The agent cannot run the runner itself (the launcher's
 * Landlock domain lets it execute only its own binary): it asks the
 * runner socket (AGENT_RUNNER_SOCKET, docs/phase-policy.md "The runner
 * tool") or starts the MCP server of AGENT_RUNNER_MCP.
 */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "rc_adapter_int.h"

#define GENERIC_AGENT "/agent"

static cJSON *
generic_runner(const struct rc_adapter_policy *p)
{
    cJSON *a = cJSON_CreateArray();

    for (size_t i = 0; a != NULL && i < p->runner_n; i++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateString(p->runner[i]))) {
            cJSON_Delete(a);
            return NULL;
        }
    return a;
}

static cJSON *
generic_policy(const struct rc__adapter *b)
{
    const struct rc_adapter_policy *p = &b->out->policy;
    cJSON *j = cJSON_CreateObject();
    cJSON *tools = NULL;
    bool ok = j != NULL;

    ok = ok &&
         cJSON_AddStringToObject(j, "phase", spec_phase_name(b->out->phase));
    tools = ok ? cJSON_AddArrayToObject(j, "tools") : NULL;
    ok = ok && tools != NULL;
    ok = ok && cJSON_AddItemToArray(tools, cJSON_CreateString("read"));
    ok = ok && cJSON_AddItemToArray(tools, cJSON_CreateString("list"));
    ok = ok && cJSON_AddItemToArray(tools, cJSON_CreateString("search"));
    if (ok && p->edit)
        ok = cJSON_AddItemToArray(tools, cJSON_CreateString("edit"));
    if (ok && p->run)
        ok = cJSON_AddItemToArray(tools, cJSON_CreateString("run"));
    ok = ok && cJSON_AddBoolToObject(j, "edit", p->edit);
    ok = ok && cJSON_AddItemToObject(j, "runner", generic_runner(p));
    ok = ok && cJSON_AddBoolToObject(j, "web", false);
    ok = ok && cJSON_AddItemToObject(
                   j, "mcpServers",
                   p->run ? cJSON_CreateStringArray(
                                (const char *const[]){ RC_RUNNER_MCP_SERVER },
                                1)
                          : cJSON_CreateArray());
    ok = ok && cJSON_AddStringToObject(j, "stdin", "closed");
    if (!ok) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static char *
generic_print(struct rc__adapter *b, cJSON *j)
{
    char *s = j != NULL ? cJSON_PrintUnformatted(j) : NULL;

    cJSON_Delete(j);
    if (s == NULL)
        rc__adapter_fail(b, ERR_NOMEM, NULL, NULL);
    return s;
}

int
rc__adapter_generic(struct rc__adapter *b)
{
    const struct rc_adapter_policy *p = &b->out->policy;
    char *runner = generic_print(b, generic_runner(p));
    char *policy = generic_print(b, generic_policy(b));
    char *mcp = p->run ? rc__adapter_runner_mcp_json(b) : NULL;

    rc__adapter_arg(b, GENERIC_AGENT);
    rc__adapter_env(b, "AGENT_PROMPT", b->prompt);
    if (runner != NULL)
        rc__adapter_env(b, "AGENT_RUNNER", runner);
    if (mcp != NULL) /* (in the order the box's env is sorted) */
        rc__adapter_env(b, "AGENT_RUNNER_MCP", mcp);
    if (p->run)
        rc__adapter_env(b, "AGENT_RUNNER_SOCKET", RC_RUNNER_SOCKET);
    if (policy != NULL)
        rc__adapter_env(b, "AGENT_TOOL_POLICY", policy);
    b->out->summary = rc__adapter_strf(
        b,
        "tools: read, list, search%s%s; runner: %s%s; edits: %s; mcp: %s; "
        "%s (policy in AGENT_TOOL_POLICY)",
        p->edit ? ", edit" : "", p->run ? ", run" : "",
        p->run ? p->runner_line : "none",
        p->run ? " (exact argv, agentctl runner tool)" : "",
        p->edit ? "worktree" : "off", p->run ? "agentctl runner only" : "none",
        RC__ADAPTER_ALWAYS);
    free(runner);
    free(policy);
    free(mcp);
    return b->failed ? -1 : 0;
}
