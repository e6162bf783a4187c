/* gw_policy.c - method and path rules, the budget (see gw_policy.h). */
#include "gw_policy.h"

#include <string.h>

int
gw_policy_add(struct gw_policy *p, const char *spec, struct err *e)
{
    struct gw_rule *r;
    const char *why;
    size_t ml;

    if (p->len == GW_RULES_MAX)
        return err_set(e, ERR_LIMIT, "more than %d --allow rules",
                       GW_RULES_MAX);
    why = http_rule_check(spec, &ml);
    if (why != NULL)
        return err_set(e, ERR_SYNTAX, "--allow \"%s\": %s", spec, why);
    r = &p->rules[p->len++];
    memcpy(r->method, spec, ml);
    r->method[ml] = '\0';
    memcpy(r->prefix, spec + ml + 1, strlen(spec + ml + 1) + 1);
    return 0;
}

static bool
prefix_admits(const char *prefix, const char *path, size_t len)
{
    size_t pl = strlen(prefix);

    if (len < pl || memcmp(path, prefix, pl) != 0)
        return false;
    return len == pl || prefix[pl - 1] == '/' || path[pl] == '/';
}

const char *
gw_policy_check(const struct gw_policy *p, const char *method,
                size_t method_len, const char *path, size_t path_len)
{
    bool path_ok = false;

    if (!http_path_is_normal(path, path_len))
        return "path not in normal form";
    for (size_t i = 0; i < p->len; i++) {
        const struct gw_rule *r = &p->rules[i];

        if (!prefix_admits(r->prefix, path, path_len))
            continue;
        path_ok = true;
        if (strlen(r->method) == method_len &&
            memcmp(r->method, method, method_len) == 0)
            return NULL;
    }
    return path_ok ? "method not allowed" : "path not allowed";
}

static const char body_over[] = "request body over --max-body";
static const char bytes_spent[] = "byte budget spent";

/* True when n more bytes would take the bytes used past max_bytes (a
 * response may have taken them past it already). */
static bool
bytes_past(const struct gw_budget *b, uint64_t n)
{
    return b->max_bytes != 0 &&
           (b->bytes > b->max_bytes || n > b->max_bytes - b->bytes);
}

const char *
gw_budget_admit(struct gw_budget *b, uint64_t head, uint64_t body, int *status)
{
    *status = 429;
    if (b->max_body != 0 && body > b->max_body) {
        *status = 413;
        return body_over;
    }
    if (b->max_requests != 0 && b->requests >= b->max_requests)
        return "request budget spent";
    if (b->max_tokens != 0 && b->tokens >= b->max_tokens)
        return "token budget spent";
    if (b->max_bytes != 0 && b->bytes >= b->max_bytes)
        return bytes_spent;
    if (bytes_past(b, UINT64_MAX - head < body ? UINT64_MAX : head + body))
        return bytes_spent;
    b->requests++;
    return NULL;
}

const char *
gw_budget_body(const struct gw_budget *b, uint64_t body, uint64_t n,
               int *status)
{
    if (b->max_body != 0 && body > b->max_body) {
        *status = 413;
        return body_over;
    }
    if (bytes_past(b, n)) {
        *status = 429;
        return bytes_spent;
    }
    return NULL;
}

void
gw_budget_add_bytes(struct gw_budget *b, uint64_t n)
{
    b->bytes = UINT64_MAX - b->bytes < n ? UINT64_MAX : b->bytes + n;
}

void
gw_budget_add_tokens(struct gw_budget *b, uint64_t n)
{
    b->tokens = UINT64_MAX - b->tokens < n ? UINT64_MAX : b->tokens + n;
}

void
gw_budget_spend_unknown(struct gw_budget *b)
{
    if (b->max_tokens != 0 && b->tokens < b->max_tokens)
        b->tokens = b->max_tokens;
}

int64_t
gw_budget_tokens_left(const struct gw_budget *b)
{
    if (b->max_tokens == 0)
        return -1;
    return b->tokens >= b->max_tokens ? 0
                                      : (int64_t)(b->max_tokens - b->tokens);
}

int64_t
gw_budget_requests_left(const struct gw_budget *b)
{
    if (b->max_requests == 0)
        return -1;
    return b->requests >= b->max_requests
               ? 0
               : (int64_t)(b->max_requests - b->requests);
}

int64_t
gw_budget_bytes_left(const struct gw_budget *b)
{
    if (b->max_bytes == 0)
        return -1;
    return b->bytes >= b->max_bytes ? 0 : (int64_t)(b->max_bytes - b->bytes);
}
