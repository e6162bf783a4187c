/* gw_body.h - the request policy of the vendor's model endpoints
 * (--body-policy anthropic|openai, docs/gateway.md "Request policy").
 *
 * The vendor's API can be asked to act for the agent: server-side tools
 * (web fetch and search, code execution, MCP connectors, file search,
 * image generation) and background runs make the vendor's servers fetch
 * or run what a request names, out of reach of the egress proxy. So the
 * body of every request to a model endpoint is read whole (bounded) and
 * judged before any byte of it is forwarded: every top-level field must
 * be one the API's list admits, every tool a client-side one (no "type",
 * or "custom" / "function" and the like: the agent runs those itself),
 * and every flag of the API's beta header (anthropic-beta, OpenAI-Beta)
 * one the list admits. The lists are what
 * the pinned Claude Code and Codex send (measured, docs/gateway.md); an
 * operator widens them on purpose (--allow-field, --allow-tool-type,
 * --allow-beta).
 *
 * Pure code.
 */
#ifndef GW_BODY_H
#define GW_BODY_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

#include "http_rule.h"

#define GW_BODY_EXTRA_MAX 32 /* each of the widening lists */
#define GW_BODY_NAME_MAX  HTTP_POLICY_NAME_MAX /* a field, tool, beta */

enum gw_api {
    GW_API_NONE,      /* no body is judged */
    GW_API_ANTHROPIC, /* /v1/messages, /v1/messages/count_tokens */
    GW_API_OPENAI,    /* /v1/responses, /v1/chat/completions */
};

struct gw_body_policy {
    enum gw_api api;
    char fields[GW_BODY_EXTRA_MAX][GW_BODY_NAME_MAX + 1];
    char tools[GW_BODY_EXTRA_MAX][GW_BODY_NAME_MAX + 1];
    char betas[GW_BODY_EXTRA_MAX][GW_BODY_NAME_MAX + 1];
    size_t nfields, ntools, nbetas;
};

/* A model endpoint: one table (gw_body.c) for the request policy (the
 * bodies judged), the usage reader (the answers read for their tokens)
 * and the head rebuild (the answers asked for identity coding), so the
 * three cannot disagree on which paths those are. */
struct gw_endpoint {
    const char *path;
    enum gw_api api;
    bool bills; /* its answers carry the tokens billed (count_tokens: no) */
};

/* The endpoint whose path is exactly path (len bytes, before any '?'),
 * or NULL. */
const struct gw_endpoint *gw_endpoint_find(const char *path, size_t len);

/* "anthropic" or "openai" (-1 with e otherwise). */
int gw_body_set_api(struct gw_body_policy *p, const char *name, struct err *e);

/* Widen a list: which is 'f' (field), 't' (tool type) or 'b' (beta).
 * -1 with e for a bad or over-long name, or a full list. */
int gw_body_allow(struct gw_body_policy *p, char which, const char *name,
                  struct err *e);

/* The path (before any '?') is a model endpoint of the API: its body is
 * judged. */
bool gw_body_judged(const struct gw_body_policy *p, const char *path,
                    size_t len);

/* The path lies below a model endpoint of the API and is not one itself
 * ("/v1/messages/batches", "/v1/messages/", "/v1/responses/compact"): a
 * prefix rule admits it, the vendor may serve it (Anthropic's Message
 * Batches take the same tools), and its body would go unjudged and its
 * usage uncounted, so the gateway refuses it. */
bool gw_body_below(const struct gw_body_policy *p, const char *path,
                   size_t len);

/* NULL when the body may be forwarded, else why, written into why (a
 * sentence the model can read: 'tools[2].type "web_search_20250305" is a
 * server-side tool, not allowed'). */
const char *gw_body_check(const struct gw_body_policy *p, const char *body,
                          size_t n, char *why, size_t size);

/* The header that carries the API's beta flags: "anthropic-beta" or
 * "openai-beta" (lower case, as gw_field_is compares); NULL for none. */
const char *gw_body_beta_header(const struct gw_body_policy *p);

/* The same for a value of that header (a comma list; each flag compared
 * whole, "responses_websockets=2026-02-06" with its date). */
const char *gw_body_check_betas(const struct gw_body_policy *p,
                                const char *value, size_t n, char *why,
                                size_t size);

#endif
