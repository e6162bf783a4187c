/* drift_neighbours.c - the last check of a revalidation round: the other
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
 * struct ctl (drift_nscache.h; they are create-time only). The inspects a
 * listing needs go one after the other (their IDs queued), each judged
 * as it comes, so a round lists once. Also here: an exec_create or
 * exec_start event on one of the attempt's containers (loop_events.c) is
 * container.exec-ids at once, since an exec that ended is gone from
 * ExecIDs by the next inspect.
 */
#include "drift_neighbours.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drift.h"
#include "drift_nscache.h"
#include "drift_objects.h"
#include "inv_queue.h"
#include "ctl_record.h"
#include "try_result.h"
#include "ctl_testhooks.h"
#include "inv_verify_part.h"
#include "log.h"
#include "rc_drift.h"

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

/* The IDs a listing left to inspect, at most this many: the rest after
 * a listing again. Only the IDs are kept, not the listing (at N = 50
 * keeping each invocation's listing tripled the controller's RSS). */
#define NS_QUEUE_MAX 64

static void
drop_listing(struct ctl_inv *inv)
{
    free(inv->verify.ns_queue);
    inv->verify.ns_queue = NULL;
    inv->verify.ns_queue_n = inv->verify.ns_queue_at = 0;
    inv->verify.ns_queue_more = false;
}

/* 0 queued, -1 full or out of memory (listed again after the queue). */
static int
queue_id(struct ctl_inv *inv, const char *id)
{
    if (inv->verify.ns_queue == NULL &&
        (inv->verify.ns_queue =
             malloc(NS_QUEUE_MAX * sizeof(*inv->verify.ns_queue))) == NULL)
        return -1;
    if (inv->verify.ns_queue_n == NS_QUEUE_MAX || strlen(id) >= 65)
        return -1;
    memcpy(inv->verify.ns_queue[inv->verify.ns_queue_n++], id, strlen(id) + 1);
    return 0;
}

/* The round's neighbours are judged. */
static enum ctl_step
checked(struct ctl_inv *inv)
{
    drop_listing(inv);
    inv->verify.verified |= CTL_VERIFIED_NEIGHBOURS;
    return CTL_STEP_DONE;
}

/* Put the cached PidMode and IpcMode into the list entry's HostConfig
 * (the answer is ours to change). false: not cached yet. */
static bool
add_cached_modes(struct ctl *c, cJSON *entry, const char *id)
{
    const struct drift_ns_modes *m = drift_nscache_get(c->ns_modes, id);
    const char *names[] = { "PidMode", "IpcMode" };
    cJSON *hc;

    if (m == NULL)
        return false;
    hc = cJSON_GetObjectItemCaseSensitive(entry, "HostConfig");
    if (hc == NULL &&
        (hc = cJSON_AddObjectToObject(entry, "HostConfig")) == NULL)
        return false;
    for (size_t i = 0; i < 2; i++) {
        const char *v = i == 0 ? m->pid_mode : m->ipc_mode;

        cJSON_DeleteItemFromObjectCaseSensitive(hc, names[i]);
        if (v != NULL && cJSON_AddStringToObject(hc, names[i], v) == NULL)
            return false;
    }
    return true;
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
        drift_found(inv, rep.rule, rep.message);
    return rc;
}

static enum ctl_step inspect_next(struct ctl_inv *inv);

/* The round ended while the inspect was out (a drift found or waiting
 * for its confirmation, a stop): the rest of the listing is not wanted. */
static bool
round_over(const struct ctl_inv *inv)
{
    return !inv->verify.due || inv_verify_drift_pending(inv) ||
           ctl_phase_terminal(inv->rec.phase);
}

static enum ctl_step
on_other_inspected(struct ctl_inv *inv, struct dk_response *r)
{
    const cJSON *id, *hc;

    if (round_over(inv)) {
        drop_listing(inv);
        return CTL_STEP_DONE;
    }
    if (r->err != NULL) {
        if (r->err->code == ERR_NOTFOUND)
            return inspect_next(inv); /* gone since the listing */
        drop_listing(inv);
        return try_step_failed(inv, r->err);
    }
    id = cJSON_GetObjectItemCaseSensitive(r->json, "Id");
    hc = cJSON_GetObjectItemCaseSensitive(r->json, "HostConfig");
    if (!cJSON_IsString(id)) {
        drop_listing(inv);
        return CTL_STEP_DONE; /* the round lists again */
    }
    if (judge(inv, r->json) == 1) {
        drop_listing(inv);
        return CTL_STEP_DONE; /* the drift is recorded */
    }
    /* out of memory: inspected again next round */
    (void)drift_nscache_put(
        &inv->ctl->ns_modes, id->valuestring,
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hc, "PidMode")),
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hc, "IpcMode")));
    return inspect_next(inv);
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

        /* a canary create whose answer a restart lost: box_canary.c
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

/* The next queued neighbour's inspect; once none is left the round's
 * neighbours are judged, or listed again when the queue was full. */
static enum ctl_step
inspect_next(struct ctl_inv *inv)
{
    struct err e;

    if (inv->verify.ns_queue_at < inv->verify.ns_queue_n)
        return try_step_request(
            inv, on_other_inspected,
            dk_inspect(inv->ctl->dk, DK_CONTAINER,
                       inv->verify.ns_queue[inv->verify.ns_queue_at++],
                       try_step_answered, inv, &e),
            &e);
    if (inv->verify.ns_queue_more) {
        drop_listing(inv);
        return CTL_STEP_DONE; /* the round lists again, these now known */
    }
    return checked(inv);
}

/* Judge every listed container that is not the attempt's; one whose
 * namespaces are not cached yet is queued for an inspect, which is
 * judged when it answers. */
static enum ctl_step
on_listed(struct ctl_inv *inv, struct dk_response *r)
{
    cJSON *it;

    if (r->err != NULL) {
        /* The proxy is gone since its inspect in this round (removed, or
         * replaced by a stand-in): the round starts over, and the proxy's
         * own check names it. Docker 20.10 answers a `since` that names
         * no container with 500 "no such container", not 404: retrying
         * the listing would never end the round. */
        if (r->err->code == ERR_NOTFOUND ||
            strstr(r->err->msg, "no such container") != NULL) {
            inv->verify.verified = 0;
            return CTL_STEP_DONE;
        }
        return try_step_failed(inv, r->err);
    }
    drop_listing(inv);
    cJSON_ArrayForEach(it, r->json)
    {
        const char *id =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "Id"));

        if (id == NULL || ctl_record_holds(&inv->rec, id, NULL) ||
            holds_our_name(inv, it))
            continue;
        if (judge(inv, it) == 1) {
            drop_listing(inv);
            return CTL_STEP_DONE; /* the drift is recorded */
        }
        if (!rc_drift_neighbour_needs_inspect(it))
            continue;
        if (!add_cached_modes(inv->ctl, it, id)) {
            if (queue_id(inv, id) == -1)
                inv->verify.ns_queue_more = true;
            continue;
        }
        if (judge(inv, it) == 1) {
            drop_listing(inv);
            return CTL_STEP_DONE;
        }
    }
    return inspect_next(inv);
}

enum ctl_step
drift_neighbours_step(struct ctl_inv *inv)
{
    const char *proxy = ctl_record_role_id(&inv->rec, RC_ROLE_PROXY);

    if (inv->verify.verified & CTL_VERIFIED_NEIGHBOURS)
        return CTL_STEP_NONE;
    if (proxy == NULL) {
        inv->verify.verified |= CTL_VERIFIED_NEIGHBOURS;
        return CTL_STEP_NONE;
    }
    ctl_test_point("round", "neighbours");
    drop_listing(inv); /* one left by a round cut short */
    return drift_objects_list(inv, DK_CONTAINER, "since",
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
drift_neighbours_event_seen(struct ctl_inv *inv, const char *container_id,
                          const char *action)
{
    const char *role = container_role(inv, container_id);
    bool exec = strncmp(action, "exec_create", 11) == 0 ||
                strncmp(action, "exec_start", 10) == 0;
    bool copy = strcmp(action, "archive-path") == 0 ||
                strcmp(action, "extract-to-dir") == 0;
    const char *id = exec ? "container.exec-ids" : "container.archive";
    int rule = rc_drift_rule_by_id(id);
    struct ctl_drift_finding *f;

    /* the keeper's archives are the controller's own uploads and
     * read-backs */
    if (role == NULL || !(exec || copy) || rule < 0 ||
        (copy && strcmp(role, "keeper") == 0) ||
        rc_drift_set_has(&inv->ctl->disabled_rules, (size_t)rule) ||
        inv_verify_foreign_pending(inv))
        return;
    /* No round can see either one (an exec that ended is gone from
     * ExecIDs, no inspect shows a copy): this event is the finding. */
    f = inv_verify_finding(inv);
    if (f == NULL) { /* no memory for the details: the rule alone */
        inv->verify.foreign_lost = id;
    } else {
        f->foreign_rule = id;
        snprintf(f->foreign_seen, sizeof(f->foreign_seen),
                 exec ? "%s %.12s: Docker reports \"%.80s\": a process "
                        "started with docker exec, outside the box's user, "
                        "capabilities and no-new-privileges"
                      : "%s %.12s: Docker reports \"%.80s\": files copied "
                        "into or out of it with docker cp, past the box's "
                        "mounts and its egress proxy",
                 role, container_id, action);
    }
    inv_revalidate(inv);
}
