/* drift_objects.c - which Docker objects are this attempt's (drift_objects.h). */
#include "drift_objects.h"

#include "ctl_record.h"
#include "try_result.h"

#include <stdio.h>
#include <string.h>

enum dk_kind
drift_role_dk_kind(enum rc_role role)
{
    switch (rc_role_kind(role)) {
    case RC_KIND_NETWORK:
        return DK_NETWORK;
    case RC_KIND_VOLUME:
        return DK_VOLUME;
    case RC_KIND_CONTAINER:
        break;
    }
    return DK_CONTAINER;
}

const char *
drift_objects_identity(const cJSON *json, bool volume)
{
    const cJSON *v =
        cJSON_GetObjectItemCaseSensitive(json, volume ? "CreatedAt" : "Id");

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

bool
drift_objects_ours(const struct ctl_inv *inv, const cJSON *json, const char *role)
{
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(json, "Config");
    const cJSON *labels =
        cJSON_GetObjectItemCaseSensitive(cfg ? cfg : json, "Labels");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(json, "Id");
    const char *want[][2] = {
        { "agentctl.dev/uid", inv->rec.uid },
        { "agentctl.dev/attempt", inv->rec.attempt },
        { "agentctl.dev/role", role },
        { "agentctl.dev/managed-by", inv->ctl->opts.controller_id },
    };

    if (ctl_record_is_standin(&inv->rec, cJSON_GetStringValue(id)))
        return false; /* labels copied by a stand-in (drift_verify.c) */
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(labels, want[i][0]);

        if (!cJSON_IsString(v) || want[i][1] == NULL ||
            strcmp(v->valuestring, want[i][1]) != 0)
            return false;
    }
    return true;
}

enum ctl_step
drift_objects_list(struct ctl_inv *inv, enum dk_kind kind, const char *key,
                 const char *const *values, size_t n, ctl_answer_fn *answer)
{
    struct err e;

    return try_step_request(
        inv, answer,
        dk_list(inv->ctl->dk, kind, key, values, n, try_step_answered, inv, &e),
        &e);
}

enum ctl_step
drift_objects_list_ours(struct ctl_inv *inv, enum dk_kind kind, const char *role,
                      ctl_answer_fn *answer)
{
    char uid[128], rl[64];
    const char *labels[2] = { uid, rl };

    snprintf(uid, sizeof(uid), "agentctl.dev/uid=%s", inv->rec.uid);
    snprintf(rl, sizeof(rl), "agentctl.dev/role=%s", role ? role : "");
    return drift_objects_list(inv, kind, "label", labels, role ? 2 : 1, answer);
}

void
drift_objects_egress_ip(const struct ctl *c, const cJSON *inspect, char out[16])
{
    const cJSON *eg = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(inspect, "NetworkSettings"),
                "Networks"),
            c->cfg->egress_network),
        "IPAddress");

    if (cJSON_IsString(eg))
        snprintf(out, 16, "%s", eg->valuestring);
}

void
drift_objects_keep_image_config(struct ctl *c, const char *image_id,
                              cJSON *image_inspect)
{
    cJSON *cfg =
        cJSON_DetachItemFromObjectCaseSensitive(image_inspect, "Config");

    cJSON_AddItemToObject(c->image_configs, image_id,
                          cfg ? cfg : cJSON_CreateObject());
}
