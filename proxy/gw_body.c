/* gw_body.c - the request policy of the model endpoints (see gw_body.h).
 *
 * The built-in lists: the top-level fields and tool types the pinned
 * Claude Code and Codex send in every phase with the adapters' settings
 * (measured against the test vendor: tests/integration/vendors/, records
 * kept with AGENTCTL_VENDOR_RECORDS), plus the ordinary generation
 * parameters of each API, none of which makes the vendor fetch, run or
 * keep anything for the agent. Left out on purpose: Anthropic's
 * mcp_servers and container, OpenAI's background, conversation, prompt
 * and web_search_options, and every server-side tool type. */
#include "gw_body.h"

#include <stdio.h>
#include <string.h>

#include "gw_json.h"
#include "http_rule.h"

static const struct gw_endpoint endpoints[] = {
    { "/v1/messages", GW_API_ANTHROPIC, true },
    { "/v1/messages/count_tokens", GW_API_ANTHROPIC, false },
    { "/v1/responses", GW_API_OPENAI, true },
    { "/v1/chat/completions", GW_API_OPENAI, true },
    { NULL, GW_API_NONE, false },
};

/* Claude Code 2.1.332 sends model, messages, system, tools, metadata,
 * max_tokens, thinking, context_management, output_config, stream */
static const char *const anthropic_fields[] = {
    "model",       "messages",       "system",      "max_tokens",
    "metadata",    "stop_sequences", "stream",      "temperature",
    "top_p",       "top_k",          "tools",       "tool_choice",
    "thinking",    "service_tier",   "context_management",
    "output_config", NULL,
};
/* Codex 0.171.0 sends model, stream, input, tool_choice,
 * parallel_tool_calls, reasoning, store, include, prompt_cache_key, text,
 * client_metadata (and tools when it offers any) */
static const char *const openai_fields[] = {
    /* Responses */
    "model", "input", "instructions", "tools", "tool_choice",
    "parallel_tool_calls", "reasoning", "store", "stream", "include",
    "prompt_cache_key", "text", "max_output_tokens", "temperature", "top_p",
    "metadata", "user", "service_tier", "truncation", "client_metadata",
    /* Chat Completions */
    "messages", "stream_options", "max_tokens", "max_completion_tokens", "n",
    "stop", "presence_penalty", "frequency_penalty", "logit_bias", "logprobs",
    "top_logprobs", "response_format", "seed", "reasoning_effort", NULL,
};
/* tools the client runs itself */
static const char *const anthropic_tools[] = { "custom", NULL };
static const char *const openai_tools[] = { "function", "custom", NULL };
/* anthropic-beta flags that change how the model answers, not what the
 * vendor does for the client; Claude Code 2.1.332 sends the first seven */
static const char *const anthropic_betas[] = {
    "claude-code-20250219",
    "context-management-2025-06-27",
    "effort-2025-11-24",
    "interleaved-thinking-2025-05-14",
    "mid-conversation-tool-changes-2026-07-01",
    "per-turn-control-2026-07-01",
    "thinking-token-count-2026-05-13",
    "fine-grained-tool-streaming-2025-05-14",
    "token-efficient-tools-2025-02-19",
    "prompt-caching-2024-07-31",
    "output-128k-2025-02-19",
    "context-1m-2025-08-07",
    NULL,
};

/* OpenAI-Beta values: Codex 0.171.0 sends none through the gateway (its
 * provider there has no WebSocket; with one it sends
 * "responses_websockets=2026-02-06" on the upgrade, which the gateway
 * does not carry). The others name APIs the path rules refuse anyway
 * (assistants, realtime), so nothing is admitted unless widened. */
static const char *const openai_betas[] = { NULL };

int
gw_body_set_api(struct gw_body_policy *p, const char *name, struct err *e)
{
    if (strcmp(name, "anthropic") == 0)
        p->api = GW_API_ANTHROPIC;
    else if (strcmp(name, "openai") == 0)
        p->api = GW_API_OPENAI;
    else
        return err_set(e, ERR_INVALID,
                       "--body-policy %s: want anthropic or openai", name);
    return 0;
}

int
gw_body_allow(struct gw_body_policy *p, char which, const char *name,
              struct err *e)
{
    char(*list)[GW_BODY_NAME_MAX + 1] =
        which == 'f' ? p->fields : which == 't' ? p->tools : p->betas;
    size_t *n = which == 'f' ? &p->nfields : which == 't' ? &p->ntools
                                                          : &p->nbetas;
    const char *why = http_policy_name_check(name);

    if (why != NULL)
        return err_set(e, ERR_INVALID, "\"%s\": %s", name, why);
    if (*n == GW_BODY_EXTRA_MAX)
        return err_set(e, ERR_LIMIT, "more than %d names", GW_BODY_EXTRA_MAX);
    memcpy(list[(*n)++], name, strlen(name) + 1);
    return 0;
}

static bool
in(const char *const *builtin, const char (*extra)[GW_BODY_NAME_MAX + 1],
   size_t nextra, const char *name, size_t len)
{
    for (size_t i = 0; builtin[i] != NULL; i++)
        if (strlen(builtin[i]) == len && memcmp(builtin[i], name, len) == 0)
            return true;
    for (size_t i = 0; i < nextra; i++)
        if (strlen(extra[i]) == len && memcmp(extra[i], name, len) == 0)
            return true;
    return false;
}

const struct gw_endpoint *
gw_endpoint_find(const char *path, size_t len)
{
    for (size_t i = 0; endpoints[i].path != NULL; i++)
        if (strlen(endpoints[i].path) == len &&
            memcmp(endpoints[i].path, path, len) == 0)
            return &endpoints[i];
    return NULL;
}

bool
gw_body_judged(const struct gw_body_policy *p, const char *path, size_t len)
{
    const struct gw_endpoint *ep = gw_endpoint_find(path, len);

    /* exact paths; what lies below them and is not one of them is
     * refused (gw_body_below) */
    return p->api != GW_API_NONE && ep != NULL && ep->api == p->api;
}

bool
gw_body_below(const struct gw_body_policy *p, const char *path, size_t len)
{
    for (size_t i = 0; endpoints[i].path != NULL; i++) {
        size_t n = strlen(endpoints[i].path);

        if (endpoints[i].api == p->api && len > n &&
            memcmp(endpoints[i].path, path, n) == 0 && path[n] == '/')
            return !gw_body_judged(p, path, len);
    }
    return false;
}

/* One element of tools[]: it must be an object whose "type", if it has
 * one, is a client-side tool. */
static const char *
check_tool(const struct gw_body_policy *p, struct gw_json *j, int idx,
           char *why, size_t size)
{
    const char *const *tools =
        p->api == GW_API_ANTHROPIC ? anthropic_tools : openai_tools;
    char key[GW_BODY_NAME_MAX + 2], type[GW_BODY_NAME_MAX + 2];
    bool cut, seen = false;
    int r;

    if (gw_json_object_begin(j) == -1)
        return j->why;
    while ((r = gw_json_member(j, key, sizeof(key), &cut)) == 1) {
        if (cut || strcmp(key, "type") != 0) {
            if (gw_json_skip(j) == -1)
                return j->why;
            continue;
        }
        if (seen) {
            snprintf(why, size, "tools[%d] has \"type\" twice", idx);
            return why;
        }
        seen = true;
        if (gw_json_string(j, type, sizeof(type), &cut) == -1)
            return j->why;
        if (cut || !in(tools, p->tools,
                       p->ntools, type, strlen(type))) {
            snprintf(why, size,
                     "tools[%d].type \"%.64s\" is not a tool the agent runs "
                     "itself (a server-side tool: the vendor would act for "
                     "the agent): not allowed",
                     idx, type);
            return why;
        }
    }
    return r == -1 ? j->why : NULL;
}

static const char *
check_tools(const struct gw_body_policy *p, struct gw_json *j, char *why,
            size_t size)
{
    const char *no;
    int r, idx = 0;

    if (gw_json_array_begin(j) == -1)
        return j->why;
    while ((r = gw_json_element(j)) == 1)
        if ((no = check_tool(p, j, idx++, why, size)) != NULL)
            return no;
    return r == -1 ? j->why : NULL;
}

const char *
gw_body_check(const struct gw_body_policy *p, const char *body, size_t n,
              char *why, size_t size)
{
    const char *const *fields =
        p->api == GW_API_ANTHROPIC ? anthropic_fields : openai_fields;
    char key[GW_BODY_NAME_MAX + 2];
    struct gw_json j;
    bool cut, tools_seen = false;
    const char *no;
    int r;

    gw_json_init(&j, body, n);
    if (gw_json_object_begin(&j) == -1)
        goto bad;
    while ((r = gw_json_member(&j, key, sizeof(key), &cut)) == 1) {
        if (cut || !in(fields, p->fields,
                       p->nfields, key, strlen(key))) {
            snprintf(why, size,
                     "field \"%.64s%s\" is not allowed in a request to the "
                     "vendor",
                     key, cut ? "..." : "");
            return why;
        }
        if (strcmp(key, "tools") != 0) {
            if (gw_json_skip(&j) == -1)
                goto bad;
            continue;
        }
        /* two "tools": one reader would see the first, another the last */
        if (tools_seen) {
            snprintf(why, size, "field \"tools\" appears twice");
            return why;
        }
        tools_seen = true;
        if ((no = check_tools(p, &j, why, size)) != NULL) {
            if (j.why != NULL) /* not a refusal: broken JSON */
                goto bad;
            return no;
        }
    }
    if (r == -1 || gw_json_finish(&j) == -1)
        goto bad;
    return NULL;
bad:
    snprintf(why, size, "the body is not strict JSON: %s",
             j.why ? j.why : "?");
    return why;
}

const char *
gw_body_beta_header(const struct gw_body_policy *p)
{
    return p->api == GW_API_ANTHROPIC ? "anthropic-beta"
           : p->api == GW_API_OPENAI  ? "openai-beta"
                                      : NULL;
}

const char *
gw_body_check_betas(const struct gw_body_policy *p, const char *value,
                    size_t n, char *why, size_t size)
{
    const char *const *betas =
        p->api == GW_API_ANTHROPIC ? anthropic_betas : openai_betas;
    size_t i = 0;

    while (i < n) {
        size_t s, e;

        while (i < n && (value[i] == ' ' || value[i] == '\t' || value[i] == ','))
            i++;
        s = i;
        while (i < n && value[i] != ',')
            i++;
        e = i;
        while (e > s && (value[e - 1] == ' ' || value[e - 1] == '\t'))
            e--;
        if (e > s && !in(betas, p->betas, p->nbetas, value + s, e - s)) {
            snprintf(why, size,
                     "%s \"%.*s\" is not allowed (it may let the vendor "
                     "act for the agent)",
                     p->api == GW_API_ANTHROPIC ? "anthropic-beta"
                                                : "OpenAI-Beta",
                     (int)(e - s > 64 ? 64 : e - s), value + s);
            return why;
        }
    }
    return NULL;
}
