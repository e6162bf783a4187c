/* ctl_usage.c - sum the gateway's audit lines into status.usage (see
 * ctl_usage.h). Pure: no controller state. */
#include "ctl_usage.h"

#include <string.h>

/* v as a count: a non-negative integer the gateway wrote, else 0. */
static uint64_t
count_of(const cJSON *v)
{
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
        v->valuedouble > 9007199254740992.0) /* 2^53: exact in a double */
        return 0;
    return (uint64_t)v->valuedouble;
}

static void
add(uint64_t *to, uint64_t n)
{
    *to = UINT64_MAX - *to < n ? UINT64_MAX : *to + n;
}

void
ctl_usage_add_line(struct ctl_usage *u, const char *line)
{
    cJSON *doc = cJSON_Parse(line);
    const cJSON *status, *reason, *usage;

    add(&u->requests, 1);
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return;
    }
    status = cJSON_GetObjectItemCaseSensitive(doc, "status");
    reason = cJSON_GetObjectItemCaseSensitive(doc, "reason");
    /* a 4xx the vendor gave is "forwarded"; any other 4xx is the
     * gateway's refusal (rules, body policy, budget, framing) */
    if (cJSON_IsNumber(status) && status->valueint >= 400 &&
        status->valueint < 500 && cJSON_IsString(reason) &&
        strcmp(reason->valuestring, "forwarded") != 0) {
        add(&u->refused, 1);
        if (strcmp(reason->valuestring, "token budget spent") == 0)
            add(&u->token_spent, 1);
    }
    usage = cJSON_GetObjectItemCaseSensitive(doc, "usage");
    if (cJSON_IsObject(usage)) {
        add(&u->input,
            count_of(cJSON_GetObjectItemCaseSensitive(usage, "input")));
        add(&u->output,
            count_of(cJSON_GetObjectItemCaseSensitive(usage, "output")));
        add(&u->cache_read,
            count_of(cJSON_GetObjectItemCaseSensitive(usage, "cacheRead")));
        add(&u->cache_write,
            count_of(cJSON_GetObjectItemCaseSensitive(usage, "cacheWrite")));
    }
    cJSON_Delete(doc);
}

cJSON *
ctl_usage_to_json(const struct ctl_usage *u)
{
    static const char *const keys[] = { "requests",        "refused",
                                        "inputTokens",     "outputTokens",
                                        "cacheReadTokens", "cacheWriteTokens" };
    const uint64_t v[] = { u->requests, u->refused,    u->input,
                           u->output,   u->cache_read, u->cache_write };
    cJSON *o = cJSON_CreateObject();

    for (size_t i = 0; o != NULL && i < sizeof(keys) / sizeof(keys[0]); i++)
        if (cJSON_AddNumberToObject(o, keys[i], (double)v[i]) == NULL) {
            cJSON_Delete(o);
            return NULL;
        }
    return o;
}
