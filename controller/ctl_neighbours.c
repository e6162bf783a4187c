/* ctl_neighbours.c - the last check of a revalidation round: the other
 * containers on the daemon, judged against the attempt's boxes
 * (rc_drift_check_neighbour). A container that joins the agent's or the
 * proxy's network or PID namespace (`--network container:<agent>`, `--pid
 * container:<agent>`) has no endpoint on the internal network, and one
 * that mounts the workspace volume (`-v <volume>:/x`, `--volumes-from`)
 * shows on neither the volume's inspect nor ours; both fail the attempt
 * closed like any drift (container.joined, volume.foreign-mount).
 *
 * One GET /containers/json per round, filtered `since` the proxy (the
 * attempt's first container: a joiner names an ID, so it is created after
 * it). A list entry has NetworkMode and Mounts; PidMode and IpcMode need
 * the inspect, one per container ever seen, cached by container ID in
 * struct ctl (they are create-time only). Also here: an exec_create or
 * exec_start event on one of the attempt's containers (ctl_events.c) is
 * container.exec-ids at once, since an exec that ended is gone from
 * ExecIDs by the next inspect.
 */
#include "ctl_neighbours.h"

#include <stdio.h>
#include <string.h>

#include "ctl_drift.h"
#include "ctl_objects.h"
#include "ctl_queue.h"
#include "ctl_testhooks.h"
#include "log.h"
#include "rc_drift.h"

/* Past this many cached containers the cache starts over (a host that
 * churns containers must not grow the controller without bound). */
#define NS_CACHE_MAX 4096

static struct rc_drift_neighbours
ours_of(const struct ctl_inv *inv)
{
    struct rc_drift_neighbours n;

    memset(&n, 0, sizeof(n));
    n.container_ids[RC_ROLE_PROXY] =
        ctl_record_role_id(&inv->rec, RC_ROLE_PROXY);
    n.container_ids[RC_ROLE_KEEPER] =
        ctl_record_role_id(&inv->rec, RC_ROLE_KEEPER);
    n.container_ids[RC_ROLE_AGENT] =
        ctl_record_role_id(&inv->rec, RC_ROLE_AGENT);
    n.container_ids[RC_ROLE_GATEWAY] =
        ctl_record_role_id(&inv->rec, RC_ROLE_GATEWAY);
    return n;
}

static enum ctl_step
checked(struct ctl_inv *inv)
{
    inv->verified |= CTL_VERIFIED_NEIGHBOURS;
    return CTL_STEP_DONE;
}

/* The entry with the cached PidMode and IpcMode put into its HostConfig
 * (caller deletes), or NULL when the cache does not know it yet. */
static cJSON *
with_cached_modes(struct ctl *c, const cJSON *entry, const char *id)
{
    const cJSON *modes = cJSON_GetObjectItemCaseSensitive(c->ns_modes, id);
    cJSON *copy, *hc, *k;

    if (modes == NULL)
        return NULL;
    copy = cJSON_Duplicate(entry, true);
    hc = cJSON_GetObjectItemCaseSensitive(copy, "HostConfig");
    if (hc == NULL && copy != NULL)
        hc = cJSON_AddObjectToObject(copy, "HostConfig");
    if (hc == NULL) {
        cJSON_Delete(copy);
        return NULL;
    }
    cJSON_ArrayForEach(k, modes)
    {
        cJSON_DeleteItemFromObjectCaseSensitive(hc, k->string);
        cJSON_AddItemToObject(hc, k->string, cJSON_Duplicate(k, false));
    }
    return copy;
}

/* 1: reported (the attempt is failing), 0: clean, -1: could not judge. */
static int
judge(struct ctl_inv *inv, const cJSON *other)
{
    struct rc_drift_neighbours n = ours_of(inv);
    struct rc_drift_report rep;
    int rc = rc_drift_check_neighbour(inv->desired, other, &n,
                                      &inv->ctl->disabled_rules, &rep);

    if (rc == 1)
        ctl_drift_found(inv, rep.rule, rep.message);
    return rc;
}

static enum ctl_step
on_other_inspected(struct ctl_inv *inv, struct dk_response *r)
{
    struct ctl *c = inv->ctl;
    const cJSON *id, *hc;
    cJSON *modes;

    if (r->err != NULL) {
        if (r->err->code == ERR_NOTFOUND)
            return CTL_STEP_DONE; /* gone since the listing: list again */
        return ctl_step_failed(inv, r->err);
    }
    id = cJSON_GetObjectItemCaseSensitive(r->json, "Id");
    hc = cJSON_GetObjectItemCaseSensitive(r->json, "HostConfig");
    if (!cJSON_IsString(id))
        return CTL_STEP_DONE;
    if (judge(inv, r->json) == 1)
        return CTL_STEP_DONE; /* the drift is recorded */
    if (cJSON_GetArraySize(c->ns_modes) >= NS_CACHE_MAX) {
        cJSON_Delete(c->ns_modes);
        c->ns_modes = cJSON_CreateObject();
    }
    modes = cJSON_CreateObject();
    cJSON_AddItemToObject(
        modes, "PidMode",
        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(hc, "PidMode"), 0));
    cJSON_AddItemToObject(
        modes, "IpcMode",
        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(hc, "IpcMode"), 0));
    cJSON_AddItemToObject(c->ns_modes, id->valuestring, modes);
    return CTL_STEP_DONE; /* the round lists again, now with this known */
}

/* A container under one of the attempt's names that is not the recorded
 * one is a stand-in: the role's own check names it precisely
 * (container.id, container.name) on this round or the next, with both IDs
 * and the standIns record, so it is left to that check here; one under
 * the name of a canary being created is left to the canary's step. */
static bool
holds_our_name(const struct ctl_inv *inv, const cJSON *entry)
{
    const char *pending = inv->rec.canary_pending;
    const cJSON *n;

    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(entry, "Names"))
    {
        const char *name = cJSON_GetStringValue(n);

        /* a canary create whose answer a restart lost: ctl_canary.c
         * adopts it by its labels or fails the attempt closed */
        if (name != NULL && pending != NULL &&
            strcmp(name + (name[0] == '/'), pending) == 0)
            return true;
        for (int r = 0; name != NULL && r < RC_ROLE_COUNT; r++) {
            const struct rc_object *o = &inv->desired->objects[r];

            if (o->body != NULL && o->kind == RC_KIND_CONTAINER &&
                strcmp(name + (name[0] == '/'), o->name) == 0)
                return true;
        }
    }
    return false;
}

/* Judge every listed container that is not the attempt's; the first one
 * whose namespaces are not cached yet is inspected (and the listing made
 * again after it), so a round costs one request once all are known. */
static enum ctl_step
on_listed(struct ctl_inv *inv, struct dk_response *r)
{
    const cJSON *it;
    struct err e;

    if (r->err != NULL) {
        /* The proxy is gone since its inspect in this round (removed, or
         * replaced by a stand-in): the round starts over, and the proxy's
         * own check names it. Docker 20.10 answers a `since` that names
         * no container with 500 "no such container", not 404: retrying
         * the listing would never end the round. */
        if (r->err->code == ERR_NOTFOUND ||
            strstr(r->err->msg, "no such container") != NULL) {
            inv->verified = 0;
            return CTL_STEP_DONE;
        }
        return ctl_step_failed(inv, r->err);
    }
    cJSON_ArrayForEach(it, r->json)
    {
        const char *id =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "Id"));
        cJSON *full;
        int rc;

        if (id == NULL || ctl_record_holds(&inv->rec, id, NULL) ||
            holds_our_name(inv, it))
            continue;
        if (judge(inv, it) == 1)
            return CTL_STEP_DONE; /* the drift is recorded */
        if (!rc_drift_neighbour_needs_inspect(it))
            continue;
        full = with_cached_modes(inv->ctl, it, id);
        if (full == NULL)
            return ctl_step_request(inv, on_other_inspected,
                                    dk_inspect(inv->ctl->dk, DK_CONTAINER, id,
                                               ctl_step_answered, inv, &e),
                                    &e);
        rc = judge(inv, full);
        cJSON_Delete(full);
        if (rc == 1)
            return CTL_STEP_DONE;
    }
    return checked(inv);
}

enum ctl_step
ctl_neighbours_step(struct ctl_inv *inv)
{
    const char *proxy = ctl_record_role_id(&inv->rec, RC_ROLE_PROXY);

    if (inv->verified & CTL_VERIFIED_NEIGHBOURS)
        return CTL_STEP_NONE;
    if (proxy == NULL) {
        inv->verified |= CTL_VERIFIED_NEIGHBOURS;
        return CTL_STEP_NONE;
    }
    ctl_test_point("round", "neighbours");
    return ctl_objects_list(inv, DK_CONTAINER, "since",
                            (const char *const[]){ proxy }, 1, on_listed);
}

/* The role of the attempt's container with this ID, or NULL. */
static const char *
container_role(const struct ctl_inv *inv, const char *id)
{
    static const int roles[] = { RC_ROLE_PROXY, RC_ROLE_KEEPER, RC_ROLE_AGENT,
                                 RC_ROLE_GATEWAY, CTL_REC_PROBE };

    for (size_t i = 0; id != NULL && i < sizeof(roles) / sizeof(roles[0]);
         i++) {
        const char *rid = ctl_record_role_id(&inv->rec, roles[i]);

        if (rid != NULL && strcmp(rid, id) == 0)
            return ctl_record_role_name(roles[i]);
    }
    return NULL;
}

void
ctl_neighbours_exec_seen(struct ctl_inv *inv, const char *container_id,
                         const char *action)
{
    const char *role = container_role(inv, container_id);
    int rule = rc_drift_rule_by_id("container.exec-ids");

    if (role == NULL || rule < 0 ||
        rc_drift_set_has(&inv->ctl->disabled_rules, (size_t)rule) ||
        inv->exec_seen[0] != '\0')
        return;
    snprintf(inv->exec_seen, sizeof(inv->exec_seen),
             "%s %.12s: Docker reports \"%.80s\": a process started with "
             "docker exec, outside the box's user, capabilities and "
             "no-new-privileges",
             role, container_id, action);
    ctl_inv_revalidate(inv);
}
