/* obs_usage.c - sum the gateway's audit lines into status.usage (see
 * obs_usage.h). Pure: no controller state. */
#include "obs_usage.h"

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
obs_usage_add_line(struct obs_usage *u, const char *line)
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

/* The status object's keys, in the order of usage_fields(). */
static const char *const usage_keys[] = { "requests",        "refused",
                                          "inputTokens",     "outputTokens",
                                          "cacheReadTokens", "cacheWriteTokens" };
#define N_USAGE_KEYS (sizeof(usage_keys) / sizeof(usage_keys[0]))

static void
usage_fields(struct obs_usage *u, uint64_t *f[N_USAGE_KEYS])
{
    f[0] = &u->requests;
    f[1] = &u->refused;
    f[2] = &u->input;
    f[3] = &u->output;
    f[4] = &u->cache_read;
    f[5] = &u->cache_write;
}

cJSON *
obs_usage_to_json(const struct obs_usage *u)
{
    struct obs_usage copy = *u; /* usage_fields() hands out pointers */
    uint64_t *f[N_USAGE_KEYS];
    cJSON *o = cJSON_CreateObject();

    usage_fields(&copy, f);
    for (size_t i = 0; o != NULL && i < N_USAGE_KEYS; i++)
        if (cJSON_AddNumberToObject(o, usage_keys[i], (double)*f[i]) == NULL) {
            cJSON_Delete(o);
            return NULL;
        }
    return o;
}

void
obs_usage_from_json(struct obs_usage *u, const cJSON *o)
{
    uint64_t *f[N_USAGE_KEYS];

    if (!cJSON_IsObject(o))
        return;
    usage_fields(u, f);
    for (size_t i = 0; i < N_USAGE_KEYS; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, usage_keys[i]);

        if (cJSON_IsNumber(v) && v->valuedouble >= 0 &&
            v->valuedouble < 1.8e19)
            *f[i] = (uint64_t)v->valuedouble;
    }
}
