/* rc_drift_neighbour.c - a container that is not the attempt's, judged
 * against the attempt's boxes: does it join one of their namespaces
 * (`--network container:<id>`, `--pid container:<id>`, `--ipc
 * container:<id>`) or mount one of the attempt's volumes (`-v
 * <volume>:/x`, `--volumes-from`)? Neither shows on the attempt's own
 * objects: a namespace joiner has no endpoint on the internal network,
 * and a volume's inspect does not list who mounts it. Pure: the
 * controller lists and inspects, this file only reads what it got. */
#include "rc_drift.h"
#include "rc_drift_int.h"

#include <stdio.h>
#include <string.h>

static const char *const ns_modes[] = { "NetworkMode", "PidMode", "IpcMode" };

/* The role of ours whose recorded ID mode ("container:<id>") names, or
 * -1. Docker writes the full ID there whatever the user typed. */
static int
joined_role(const char *mode, const struct rc_drift_neighbours *ours)
{
    const char *ref;

    if (mode == NULL || strncmp(mode, "container:", 10) != 0)
        return -1;
    ref = mode + 10;
    for (int r = 0; r < RC_ROLE_COUNT; r++) {
        const char *id = ours->container_ids[r];

        if (id != NULL && id[0] != '\0' && strcmp(ref, id) == 0)
            return r;
    }
    return -1;
}

/* The role of ours whose volume name is mounted by the container, or -1
 * (Mounts[] of a list entry or an inspect: a volume mount has its Name). */
static int
mounted_role(const cJSON *mounts, const struct rc_desired *d,
             const cJSON **which)
{
    const cJSON *m;

    cJSON_ArrayForEach(m, mounts)
    {
        const char *name =
            rc_drift__str(cJSON_GetObjectItemCaseSensitive(m, "Name"));

        for (int r = 0; name != NULL && r < RC_ROLE_COUNT; r++) {
            const struct rc_object *o = &d->objects[r];

            if (o->body != NULL && o->kind == RC_KIND_VOLUME &&
                strcmp(o->name, name) == 0) {
                *which = m;
                return r;
            }
        }
    }
    return -1;
}

/* Fill out for rule `id` about our role `role`. -1 when the rule is
 * unknown or out of memory. What holds the other container's ID and mount
 * path (the daemon's reply; the path its creator's text) is scrubbed of
 * the credential, as every report is. */
static int
neighbour_report(const struct rc_desired *d, const char *id, int role,
                 const char *field, const char *expected, const char *observed,
                 const char *message, struct rc_drift_report *out)
{
    int i = rc_drift_rule_by_id(id);

    if (i < 0)
        return -1;
    memset(out, 0, sizeof(*out));
    out->rule = rc_drift_rule_id((size_t)i);
    out->role = (enum rc_role)role;
    snprintf(out->object, sizeof(out->object), "%s", d->objects[role].name);
    snprintf(out->expected, sizeof(out->expected), "%s", expected);
    if (rc_drift__put(d, out->field, sizeof(out->field), field) == -1 ||
        rc_drift__put(d, out->observed, sizeof(out->observed), observed) ==
            -1 ||
        rc_drift__put(d, out->message, sizeof(out->message), message) == -1)
        return -1;
    rc_drift_set_add(&out->drifted, (size_t)i);
    out->count = 1;
    return 1;
}

int
rc_drift_check_neighbour(const struct rc_desired *d, const cJSON *other,
                         const struct rc_drift_neighbours *ours,
                         const struct rc_drift_set *disabled_rules,
                         struct rc_drift_report *out)
{
    const cJSON *id, *hc, *mount = NULL;
    const char *cid;
    char msg[RC_DRIFT_MSG_MAX], field[RC_DRIFT_FIELD_MAX];
    int r, joined = rc_drift_rule_by_id("container.joined");
    int mounted = rc_drift_rule_by_id("volume.foreign-mount");

    if (d == NULL || ours == NULL || disabled_rules == NULL || out == NULL ||
        !cJSON_IsObject(other) || joined < 0 || mounted < 0)
        return -1;
    id = cJSON_GetObjectItemCaseSensitive(other, "Id");
    cid = cJSON_IsString(id) ? id->valuestring : "?";
    hc = cJSON_GetObjectItemCaseSensitive(other, "HostConfig");
    for (size_t k = 0; k < sizeof(ns_modes) / sizeof(ns_modes[0]) &&
                       !rc_drift_set_has(disabled_rules, (size_t)joined);
         k++) {
        const char *mode =
            rc_drift__str(cJSON_GetObjectItemCaseSensitive(hc, ns_modes[k]));

        r = joined_role(mode, ours);
        if (r < 0)
            continue;
        snprintf(field, sizeof(field), "HostConfig.%s of %.12s", ns_modes[k],
                 cid);
        snprintf(msg, sizeof(msg),
                 "%s %s: container %.12s, not this attempt's, joins its "
                 "namespace (%s %s)",
                 rc_role_name((enum rc_role)r), d->objects[r].name, cid,
                 ns_modes[k], "container:<its ID>");
        return neighbour_report(d, "container.joined", r, field,
                                "no other container", cid, msg, out);
    }
    if (rc_drift_set_has(disabled_rules, (size_t)mounted))
        return 0;
    r = mounted_role(cJSON_GetObjectItemCaseSensitive(other, "Mounts"), d,
                     &mount);
    if (r < 0)
        return 0;
    snprintf(field, sizeof(field), "Mounts of %.12s", cid);
    snprintf(
        msg, sizeof(msg),
        "%s %s: container %.12s, not this attempt's, mounts it at %s",
        rc_role_name((enum rc_role)r), d->objects[r].name, cid,
        rc_drift__str(cJSON_GetObjectItemCaseSensitive(mount, "Destination"))
            ? rc_drift__str(
                  cJSON_GetObjectItemCaseSensitive(mount, "Destination"))
            : "?");
    return neighbour_report(d, "volume.foreign-mount", r, field,
                            "mounted by this attempt's containers only", cid,
                            msg, out);
}

bool
rc_drift_neighbour_needs_inspect(const cJSON *other)
{
    const cJSON *hc = cJSON_GetObjectItemCaseSensitive(other, "HostConfig");

    /* a list entry's HostConfig has NetworkMode only */
    return cJSON_GetObjectItemCaseSensitive(hc, "PidMode") == NULL;
}
