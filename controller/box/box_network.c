/* box_network.c - the attempt's internal network, created idempotently.
 *
 * Docker creates networks one at a time, so with many invocations a
 * create can outlast its request; it still happens on the daemon's side.
 * A retry would then race a same-named twin (and every later create by
 * name answers "ambiguous"), or read the twin's subnet as a foreign
 * overlap and walk on to the next subnet. So this attempt's networks are
 * listed by their labels before every create and after every create that
 * failed: one with the desired name is adopted, every other one is
 * removed by ID, and a conflict or an overlap that is not ours is
 * believed only when the list is empty.
 *
 * Labels stand for a create of ours whose answer was lost, nothing else:
 * the name goes on disk (status.networkPending) before the first create
 * of a build, and only then may a listed network be adopted or removed
 * as a twin. A network with the attempt's labels that the list finds
 * before that (the first build, or the rebuild after a repair, which
 * forgets the old creates) was made by someone who copied the labels: a
 * stand-in, reported, remembered and left in place; holding the name, it
 * fails the attempt (NameConflict).
 */
#include "box_network.h"

#include <stdio.h>
#include <string.h>

#include "try_attempt.h"
#include "box_create.h"
#include "drift_objects.h"
#include "ctl_record.h"
#include "try_result.h"
#include "inv_status.h"
#include "inv_stop.h"
#include "ctl_testhooks.h"
#include "log.h"

static const char *
str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A create of ours was sent this build (status.networkPending): only
 * then can a listed network be one it made. The test-hooks build's
 * "network-standin" believes the labels alone, as before. */
static bool
creates_sent(const struct ctl_inv *inv)
{
    return inv->rec.network_pending != NULL ||
           ctl_test_disabled("network-standin");
}

/* Listed, with this attempt's labels, and no recorded stand-in. */
static bool
candidate(const struct ctl_inv *inv, const cJSON *n)
{
    const char *id = str_of(n, "Id");

    return id != NULL && drift_objects_ours(inv, n, "network") &&
           !ctl_record_is_standin(&inv->rec, id);
}

/* The one to keep: the recorded network when there is one (a sweep after
 * "ambiguous"), else, when a create of ours may have made it, the oldest
 * with the desired name. */
static const cJSON *
pick_keeper(const struct ctl_inv *inv, const cJSON *list)
{
    const char *recorded = ctl_record_role_id(&inv->rec, RC_ROLE_NETWORK);
    const char *want = rc_desired_object(inv->desired, RC_ROLE_NETWORK)->name;
    const cJSON *n, *best = NULL;

    cJSON_ArrayForEach(n, list)
    {
        const char *id = str_of(n, "Id"), *name = str_of(n, "Name");
        const char *created = str_of(n, "Created");

        if (!candidate(inv, n))
            continue;
        if (recorded != NULL) {
            if (strcmp(id, recorded) == 0)
                return n;
            continue;
        }
        if (!creates_sent(inv) || name == NULL || strcmp(name, want) != 0)
            continue;
        if (best == NULL || (created != NULL && str_of(best, "Created") &&
                             strcmp(created, str_of(best, "Created")) < 0))
            best = n;
    }
    return best;
}

static enum ctl_step
on_extra_removed(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err != NULL && r->err->code != ERR_NOTFOUND)
        return try_step_failed(inv, r->err);
    return CTL_STEP_DONE; /* list again: one removal per pass */
}

static enum ctl_step
remove_extra(struct ctl_inv *inv, const char *id, const char *name)
{
    struct err e;

    inv_event(inv, true, "NetworkDuplicate",
              "network %s (%.12s) is a second network of this attempt, "
              "left by a create that outlasted its request: removing it",
              name ? name : "?", id);
    return try_step_request(
        inv, on_extra_removed,
        dk_remove(inv->ctl->dk, DK_NETWORK, id, try_step_answered, inv, &e),
        &e);
}

/* A network with the attempt's labels while no create of ours was sent:
 * someone copied them. Remembered (no path removes or adopts it), left. */
static void
standin_seen(struct ctl_inv *inv, const char *id, const char *name)
{
    inv_event(inv, true, "StandInFound",
              "network %s (%.12s) carries the labels of this attempt's "
              "network, which no create of ours made: a stand-in, left in "
              "place, never adopted nor removed",
              name ? name : "?", id);
    ctl_record_add_standin(&inv->rec, id, "network");
}

static enum ctl_step
adopt(struct ctl_inv *inv, const cJSON *net)
{
    const char *id = str_of(net, "Id"), *name = str_of(net, "Name");

    if (ctl_record_role_id(&inv->rec, RC_ROLE_NETWORK) == NULL) {
        ctl_record_set_role(&inv->rec, RC_ROLE_NETWORK, id, name);
        inv_event(inv, false, "Adopted",
                  "network %s was created for this attempt by an earlier "
                  "request: adopted",
                  name);
    }
    inv->net.retry = CTL_NET_FRESH;
    return CTL_STEP_DONE;
}

/* No network of this attempt exists: act on why the list ran. */
static enum ctl_step
none_found(struct ctl_inv *inv)
{
    enum ctl_net_retry why = inv->net.retry;
    char msg[300];

    inv->net.retry = CTL_NET_FRESH;
    if (why == CTL_NET_CONFLICT) {
        snprintf(msg, sizeof(msg),
                 "network %s already exists and is not this attempt's: "
                 "refusing it",
                 rc_desired_object(inv->desired, RC_ROLE_NETWORK)->name);
        inv_event(inv, true, "NameConflict", "%s", msg);
        inv_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, msg);
        return CTL_STEP_DONE;
    }
    if (why == CTL_NET_OVERLAP)
        return try_attempt_next_subnet(inv);
    inv->net.listed = true;
    return CTL_STEP_DONE;
}

static enum ctl_step
on_listed(struct ctl_inv *inv, struct dk_response *r)
{
    const cJSON *keep, *n;

    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    if (ctl_test_disabled("network-adoption"))
        return none_found(inv);
    keep = pick_keeper(inv, r->json);
    cJSON_ArrayForEach(n, r->json)
    {
        if (n == keep || !candidate(inv, n))
            continue;
        if (!creates_sent(inv))
            standin_seen(inv, str_of(n, "Id"), str_of(n, "Name"));
        else
            return remove_extra(inv, str_of(n, "Id"), str_of(n, "Name"));
    }
    return keep != NULL ? adopt(inv, keep) : none_found(inv);
}

/* A create of the network failed: a conflict or an overlap is believed
 * only when the list that follows finds no network of this attempt. */
static enum ctl_step
on_created(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err == NULL)
        return box_create_answered(inv, r);
    if (r->err->code == ERR_CONFLICT)
        inv->net.retry = CTL_NET_CONFLICT;
    else if (r->status == 403 && strstr(r->err->msg, "overlaps") != NULL)
        inv->net.retry = CTL_NET_OVERLAP;
    if (inv->net.retry != CTL_NET_FRESH)
        return CTL_STEP_DONE;
    return try_step_failed(inv, r->err); /* a timeout: it may exist anyway */
}

enum ctl_step
box_network_step(struct ctl_inv *inv)
{
    const char *want = rc_desired_object(inv->desired, RC_ROLE_NETWORK)->name;

    if (!inv->net.listed || inv->net.retry == CTL_NET_SWEEP)
        return drift_objects_list_ours(inv, DK_NETWORK, "network", on_listed);
    if (inv->rec.network_pending == NULL) {
        /* on disk before the create: the next pass writes it, then
         * creates (a crash after the create then finds it adoptable) */
        ctl_record_set_str(&inv->rec, &inv->rec.network_pending, want);
        return CTL_STEP_DONE;
    }
    inv->net.listed = false; /* a failed create lists again first */
    return box_create_request(inv, RC_ROLE_NETWORK, on_created);
}
