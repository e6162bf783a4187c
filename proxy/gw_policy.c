/* gw_policy.c - method and path rules, the budget (see gw_policy.h). */
#include "gw_policy.h"

#include <string.h>
#include <strings.h>

int
gw_policy_add(struct gw_policy *p, const char *spec, struct err *e)
{
    const char *sp = strchr(spec, ' ');
    struct gw_rule *r;
    size_t ml, pl;

    if (p->len == GW_RULES_MAX)
        return err_set(e, ERR_LIMIT, "more than %d --allow rules",
                       GW_RULES_MAX);
    if (sp == NULL)
        return err_set(e, ERR_SYNTAX, "--allow \"%s\": want \"METHOD /path\"",
                       spec);
    ml = (size_t)(sp - spec);
    pl = strlen(sp + 1);
    if (ml == 0 || ml > GW_METHOD_MAX)
        return err_set(e, ERR_SYNTAX, "--allow \"%s\": bad method", spec);
    for (size_t i = 0; i < ml; i++)
        if (spec[i] < 'A' || spec[i] > 'Z')
            return err_set(e, ERR_SYNTAX,
                           "--allow \"%s\": method must be upper case", spec);
    if (pl == 0 || pl > GW_PREFIX_MAX || sp[1] != '/' ||
        strpbrk(sp + 1, " ?#") != NULL || !gw_path_is_normal(sp + 1, pl))
        return err_set(e, ERR_SYNTAX,
                       "--allow \"%s\": the path must be a normal absolute "
                       "path without a query",
                       spec);
    r = &p->rules[p->len++];
    memcpy(r->method, spec, ml);
    r->method[ml] = '\0';
    memcpy(r->prefix, sp + 1, pl + 1);
    return 0;
}

bool
gw_path_is_normal(const char *path, size_t len)
{
    size_t seg = 0; /* start of the current segment */

    if (len == 0 || path[0] != '/')
        return false;
    for (size_t i = 1; i <= len; i++) {
        /* A backslash is a separator to some servers, ";" starts path
         * parameters ("/..;/" is ".." to some). */
        if (i < len && (path[i] == '\\' || path[i] == ';'))
            return false;
        if (i < len && path[i] == '%') {
            /* %2e . %2f / %5c \ %25 % %3b ; %00: each could become a
             * separator, a dot segment or an end after one more
             * decoding. */
            if (i + 2 >= len)
                return false;
            char a = path[i + 1], b = (char)(path[i + 2] | 0x20);
            if ((a == '2' && (b == 'e' || b == 'f' || b == '5')) ||
                (a == '5' && b == 'c') || (a == '3' && b == 'b') ||
                (a == '0' && b == '0'))
                return false;
        }
        if (i == len || path[i] == '/') {
            size_t n = i - seg - 1;
            const char *s = path + seg + 1;

            if (i < len && n == 0)
                return false; /* "//" */
            if ((n == 1 && s[0] == '.') ||
                (n == 2 && s[0] == '.' && s[1] == '.'))
                return false;
            seg = i;
        }
    }
    return true;
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

    if (!gw_path_is_normal(path, path_len))
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

const char *
gw_budget_admit(struct gw_budget *b)
{
    if (b->max_requests != 0 && b->requests >= b->max_requests)
        return "request budget spent";
    if (b->max_bytes != 0 && b->bytes >= b->max_bytes)
        return "byte budget spent";
    b->requests++;
    return NULL;
}

void
gw_budget_add_bytes(struct gw_budget *b, uint64_t n)
{
    b->bytes = UINT64_MAX - b->bytes < n ? UINT64_MAX : b->bytes + n;
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
