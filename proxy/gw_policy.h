/* gw_policy.h - what the gateway forwards: methods and path prefixes
 * (--allow "POST /v1/messages", repeatable) and the attempt's budget
 * (--max-requests, --max-bytes, --max-tokens) with the cap on one request
 * body (--max-body).
 *
 * Pure code. A prefix admits the path itself and everything below it at a
 * segment boundary: "/v1/messages" admits "/v1/messages",
 * "/v1/messages/count_tokens" and "/v1/messages?beta=true", never
 * "/v1/messagesX". A path that a vendor could read as another path (not
 * in normal form, common/http_rule.h) is refused before any rule is looked
 * at. The syntax of a rule is http_rule.h's too: the controller config
 * checks a vendor's gateway.allow with it.
 */
#ifndef GW_POLICY_H
#define GW_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "http_rule.h"

/* Most --allow rules. */
#define GW_RULES_MAX  64
#define GW_METHOD_MAX HTTP_RULE_METHOD_MAX
#define GW_PREFIX_MAX HTTP_RULE_PREFIX_MAX

struct gw_rule {
    char method[GW_METHOD_MAX + 1]; /* exact, upper case as sent */
    char prefix[GW_PREFIX_MAX + 1]; /* starts with '/' */
};

struct gw_policy {
    struct gw_rule rules[GW_RULES_MAX];
    size_t len;
};

/* Add one rule "METHOD /prefix" (http_rule_check()). -1 with ERR_SYNTAX
 * or ERR_LIMIT. */
int gw_policy_add(struct gw_policy *p, const char *spec, struct err *e);

/* NULL when the request may be forwarded, else the refusal's details
 * ("path not allowed", "method not allowed", "path not in normal
 * form"), a static string. path is the target before any '?'. */
const char *gw_policy_check(const struct gw_policy *p, const char *method,
                            size_t method_len, const char *path,
                            size_t path_len);

/* --max-body when the flag is not given: the Anthropic Messages API's
 * own request size limit. */
#define GW_MAX_BODY_DEFAULT (32ull * 1024 * 1024)

/* The attempt's budget and the per-request body cap; a max of 0 means
 * unlimited. */
struct gw_budget {
    uint64_t max_requests, max_bytes;
    uint64_t max_tokens;      /* the vendor's billed tokens (gw_usage.h) */
    uint64_t max_body;        /* bytes of one request body (--max-body) */
    uint64_t requests, bytes; /* used so far */
    uint64_t tokens;          /* counted when each response ends */
};

/* Admit one more request whose head is head bytes and whose body
 * declares body bytes (Content-Length; 0 for none or chunked): NULL when
 * it fits, and it is counted as a request (its bytes are counted as they
 * move, gw_budget_add_bytes()). Else why not, with *status, and nothing
 * is counted: 413 "request body over --max-body" (body > max_body), 429
 * "request budget spent", 429 "token budget spent" (the tokens counted
 * so far reached max_tokens: tokens are known only once a response ends,
 * so the responses in flight then may take the count past it), 429 "byte
 * budget spent" (the budget is used up, or head + body would take it past
 * max_bytes). */
const char *gw_budget_admit(struct gw_budget *b, uint64_t head, uint64_t body,
                            int *status);

/* n more bytes of an admitted request body, which has body bytes with
 * these n (chunk framing included): NULL when they may be forwarded. Else
 * why not, with *status: 413 "request body over --max-body", 429 "byte
 * budget spent" (bytes + n past max_bytes). A chunked body declares no
 * length, so it is held to both limits here as it is relayed; a
 * Content-Length body met them at admission and meets the byte budget
 * here again (other connections spend it too). */
const char *gw_budget_body(const struct gw_budget *b, uint64_t body, uint64_t n,
                           int *status);

/* Count bytes moved (either way) by an admitted request. */
void gw_budget_add_bytes(struct gw_budget *b, uint64_t n);

/* Count the tokens a response said the vendor billed. */
void gw_budget_add_tokens(struct gw_budget *b, uint64_t n);

/* A model endpoint's successful answer whose usage could not be read
 * (a stream the agent asked to carry none, one cut before its count, a
 * body that is not what the API documents): with a token budget it
 * spends what is left, since what the vendor billed is unknown and the
 * agent may have chosen that (fail closed); without one it counts
 * nothing. */
void gw_budget_spend_unknown(struct gw_budget *b);

/* What is left, or -1 when unlimited. */
int64_t gw_budget_requests_left(const struct gw_budget *b);
int64_t gw_budget_bytes_left(const struct gw_budget *b);
int64_t gw_budget_tokens_left(const struct gw_budget *b);

#endif
