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
 * struct ctl (ctl_nscache.h; they are create-time only). The inspects a
 * listing needs go one after the other from its answer, each judged as
 * it comes, so a round lists once. Also here: an exec_create or
 * exec_start event on one of the attempt's containers (ctl_events.c) is
 * container.exec-ids at once, since an exec that ended is gone from
 * ExecIDs by the next inspect.
 */
#include "ctl_neighbours.h"

#include <stdio.h>
#include <string.h>

#include "ctl_drift.h"
#include "ctl_nscache.h"
#include "ctl_objects.h"
#include "ctl_queue.h"
#include "ctl_testhooks.h"
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

/* The listing's answer is kept while its containers are judged (the
 * inspects of those not cached go one after the other from it): one
 * listing per round. */
static void
drop_listing(struct ctl_inv *inv)
{
    cJSON_Delete(inv->ns_listing);
    inv->ns_listing = NULL;
    inv->ns_next = NULL;
}

/* The round's neighbours are judged (or a drift is recorded). */
static enum ctl_step
checked(struct ctl_inv *inv)
{
    drop_listing(inv);
    inv->verified |= CTL_VERIFIED_NEIGHBOURS;
    return CTL_STEP_DONE;
}

/* Put the cached PidMode and IpcMode into the list entry's HostConfig
 * (the answer is ours to change). false: not cached yet. */
static bool
add_cached_modes(struct ctl *c, cJSON *entry, const char *id)
{
    const struct ctl_ns_modes *m = ctl_nscache_get(c->ns_modes, id);
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
        ctl_drift_found(inv, rep.rule, rep.message);
    return rc;
}

static enum ctl_step judge_listed(struct ctl_inv *inv);

static enum ctl_step
on_other_inspected(struct ctl_inv *inv, struct dk_response *r)
{
    const cJSON *id, *hc;

    if (r->err != NULL) {
        if (r->err->code == ERR_NOTFOUND)
            return judge_listed(inv); /* gone since the listing */
        drop_listing(inv);
        return ctl_step_failed(inv, r->err);
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
    (void)ctl_nscache_put(
        &inv->ctl->ns_modes, id->valuestring,
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hc, "PidMode")),
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(hc, "IpcMode")));
    return judge_listed(inv);
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

/* Judge the listed containers from inv->ns_next on. One whose namespaces
 * are not cached yet is inspected, and its inspect judged; the rest of
 * the listing follows from that answer. */
static enum ctl_step
judge_listed(struct ctl_inv *inv)
{
    struct err e;

    for (cJSON *it = inv->ns_next; it != NULL; it = it->next) {
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
            inv->ns_next = it->next;
            return ctl_step_request(inv, on_other_inspected,
                                    dk_inspect(inv->ctl->dk, DK_CONTAINER, id,
                                               ctl_step_answered, inv, &e),
                                    &e);
        }
        if (judge(inv, it) == 1) {
            drop_listing(inv);
            return CTL_STEP_DONE;
        }
    }
    return checked(inv);
}

static enum ctl_step
on_listed(struct ctl_inv *inv, struct dk_response *r)
{
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
    drop_listing(inv);
    inv->ns_listing = r->json;
    r->json = NULL;
    inv->ns_next = inv->ns_listing != NULL ? inv->ns_listing->child : NULL;
    return judge_listed(inv);
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
    drop_listing(inv); /* one left by a round cut short */
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
