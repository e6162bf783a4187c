/* pass_cleanup.c - remove an attempt's Docker objects, one per step, by the
 * ID recorded in the status and never by name: a same-named object with
 * another ID is someone else's and is left alone (Warning event).
 *
 * Order (plan/plan_step.c): probe, agent, the egress audit read, the
 * credential gateway, keeper, proxy (containers, force: a running one is
 * killed at once), then the volumes, then the network. Volumes have no ID, so a
 * volume is removed only when its CreatedAt and uid label are the ones
 * recorded at creation.
 */
#include "pass_cleanup.h"

#include <stdio.h>
#include <string.h>

#include "try_attempt.h"
#include "box_canary.h"
#include "out_changes.h"
#include "out_egress.h"
#include "box_git.h"
#include "drift_objects.h"
#include "pass_plan.h"
#include "ctl_record.h"
#include "try_result.h"
#include "inv_status.h"
#include "ctl_testhooks.h"
#include "log.h"

static bool
is_volume_role(const char *role)
{
    int r = rc_role_by_name(role);

    return r >= 0 && rc_role_kind((enum rc_role)r) == RC_KIND_VOLUME;
}

/* A volume still mounted once every container of the attempt is gone is
 * held by one that is not ours (a stand-in that copied the mounts):
 * Docker will not remove it while that container exists, and the
 * controller does not remove the stranger. Say so once and leave it,
 * instead of retrying the 409 forever. */
static enum ctl_step
volume_held(struct ctl_inv *inv, const char *holder)
{
    inv_event(
        inv, true, "VolumeHeld",
        "%s %s is mounted by container %.12s, which is not this "
        "attempt's: left in place",
        inv->cleanup.role,
        ctl_record_role_obj_name(&inv->rec, ctl_record_role(inv->cleanup.role)),
        holder ? holder : "?");
    ctl_record_drop_role(&inv->rec, ctl_record_role(inv->cleanup.role));
    return CTL_STEP_DONE;
}

static enum ctl_step
on_removed(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err != NULL && r->err->code != ERR_NOTFOUND) {
        if (r->err->code == ERR_CONFLICT && is_volume_role(inv->cleanup.role)) {
            const char *in_use = strstr(r->err->msg, "in use - [");

            return volume_held(inv,
                               in_use ? in_use + strlen("in use - [") : NULL);
        }
        return try_step_failed(inv, r->err);
    }
    ctl_test_point("removed", inv->cleanup.role);
    ctl_record_drop_role(&inv->rec, ctl_record_role(inv->cleanup.role));
    return CTL_STEP_DONE;
}

static enum ctl_step
remove_object(struct ctl_inv *inv, const char *role, enum dk_kind kind,
              const char *ref)
{
    struct err e;

    if (role != inv->cleanup.role)
        snprintf(inv->cleanup.role, sizeof(inv->cleanup.role), "%s", role);
    return try_step_request(
        inv, on_removed,
        dk_remove(inv->ctl->dk, kind, ref, try_step_answered, inv, &e), &e);
}

/* Not the volume this attempt created: left in place and remembered -
 * POST /volumes/create answers 201 with a volume that exists, and the
 * rebuild after a repair must not take it for ours. */
static enum ctl_step
standin_left(struct ctl_inv *inv, const char *created)
{
    const char *role = inv->cleanup.role;
    const char *want = ctl_record_role_id(&inv->rec, ctl_record_role(role));

    inv_event(inv, true, "StandInLeft",
              "volume %s is not the one this attempt created (created "
              "%s, recorded %s): left in place",
              ctl_record_role_obj_name(&inv->rec, ctl_record_role(role)),
              created[0] != '\0' ? created : "?", want ? want : "?");
    if (created[0] != '\0')
        ctl_record_add_standin(&inv->rec, created, role);
    ctl_record_drop_role(&inv->rec, ctl_record_role(role));
    return CTL_STEP_DONE;
}

/* The containers that mount the volume: any (ours are all gone by now)
 * means it is held, and the CreatedAt it showed says nothing (a mounted
 * tmpfs shows the ctime of its root); none means that CreatedAt is its
 * own, and the volume is a stand-in. */
static enum ctl_step
on_volume_holders(struct ctl_inv *inv, struct dk_response *r)
{
    const cJSON *first;

    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    first = cJSON_GetArrayItem(r->json, 0);
    if (first != NULL)
        return volume_held(inv,
                           cJSON_GetStringValue(
                               cJSON_GetObjectItemCaseSensitive(first, "Id")));
    return standin_left(inv, inv->cleanup.created);
}

/* The volume answered: remove it only if it is the one we made. */
static enum ctl_step
on_volume_inspected(struct ctl_inv *inv, struct dk_response *r)
{
    const char *role = inv->cleanup.role;
    const char *want = ctl_record_role_id(&inv->rec, ctl_record_role(role));
    const char *name =
        ctl_record_role_obj_name(&inv->rec, ctl_record_role(role));
    const cJSON *created, *labels, *uid;

    if (r->err != NULL) {
        if (r->err->code != ERR_NOTFOUND)
            return try_step_failed(inv, r->err);
        ctl_record_drop_role(&inv->rec, ctl_record_role(role));
        return CTL_STEP_DONE;
    }
    created = cJSON_GetObjectItemCaseSensitive(r->json, "CreatedAt");
    labels = cJSON_GetObjectItemCaseSensitive(r->json, "Labels");
    uid = cJSON_GetObjectItemCaseSensitive(labels, "agentctl.dev/uid");
    if (!cJSON_IsString(created) || want == NULL ||
        strcmp(created->valuestring, want) != 0 || !cJSON_IsString(uid) ||
        strcmp(uid->valuestring, inv->rec.uid) != 0) {
        snprintf(inv->cleanup.created, sizeof(inv->cleanup.created), "%s",
                 cJSON_IsString(created) ? created->valuestring : "");
        return drift_objects_list(inv, DK_CONTAINER, "volume",
                                (const char *const[]){ name }, 1,
                                on_volume_holders);
    }
    return remove_object(inv, role, DK_VOLUME, name);
}

static enum ctl_step
remove_volume(struct ctl_inv *inv, const char *role)
{
    const char *name =
        ctl_record_role_obj_name(&inv->rec, ctl_record_role(role));
    struct err e;

    if (name == NULL) {
        ctl_record_drop_role(&inv->rec, ctl_record_role(role));
        return CTL_STEP_DONE;
    }
    snprintf(inv->cleanup.role, sizeof(inv->cleanup.role), "%s", role);
    return try_step_request(
        inv, on_volume_inspected,
        dk_inspect(inv->ctl->dk, DK_VOLUME, name, try_step_answered, inv, &e),
        &e);
}

/* A container with the labels of a role whose create answered (its ID
 * was recorded) is not ours, whatever it copied: a stand-in made while
 * the controller looked elsewhere (another rule failed the attempt before
 * the name was inspected). Remembered, so no later step and no garbage
 * collection takes it for ours, and left in place. */
static void
standin_seen(struct ctl_inv *inv, const char *id, const char *role)
{
    inv_event(inv, true, "StandInFound",
              "container %.12s carries the labels of this attempt's %s, "
              "whose create answered with another ID: a stand-in, left in "
              "place, never removed",
              id, role);
    ctl_record_add_standin(&inv->rec, id, role);
}

/* A controller killed between a create and recording its ID leaves a
 * container of this attempt that the status does not name; it would hold
 * the volumes (409 "in use") forever. Once the recorded containers are
 * gone, the ones carrying this attempt's labels are removed by ID, one
 * per step, until the listing has none - but only for a role whose create
 * never answered: labels stand for a lost create answer, nothing else. */
static enum ctl_step
on_unrecorded_listed(struct ctl_inv *inv, struct dk_response *r)
{
    const cJSON *it, *role;

    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    cJSON_ArrayForEach(it, r->json)
    {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "Id");

        role = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(it, "Labels"),
            "agentctl.dev/role");
        if (!cJSON_IsString(id) || !cJSON_IsString(role) ||
            !drift_objects_ours(inv, it, role->valuestring))
            continue;
        if (ctl_record_role_answered(&inv->rec, role->valuestring) &&
            !ctl_test_disabled("standin-sweep")) {
            standin_seen(inv, id->valuestring, role->valuestring);
            continue;
        }
        inv_event(inv, true, "UnrecordedRemoved",
                  "container %.12s (%s) of this attempt was never recorded "
                  "(a controller killed after creating it): removed by ID",
                  id->valuestring, role->valuestring);
        return remove_object(inv, "unrecorded", DK_CONTAINER, id->valuestring);
    }
    inv->cleanup.swept = true;
    return CTL_STEP_DONE;
}

static void
mark_cleaned(struct ctl_inv *inv)
{
    inv->rec.cleaned_up = true;
    inv->rec.dirty = true;
    inv_event(inv, false, "CleanedUp",
              "every Docker object of attempt %s was removed",
              inv->rec.attempt);
}

/* One object of the attempt, by the ID (a volume: the name) recorded. */
static enum ctl_step
remove_role(struct ctl_inv *inv, enum rc_role role)
{
    enum dk_kind kind = drift_role_dk_kind(role);

    if (kind == DK_VOLUME)
        return remove_volume(inv, rc_role_name(role));
    return remove_object(inv, rc_role_name(role), kind,
                         ctl_record_role_id(&inv->rec, role));
}

/* The planner (plan/plan_step.c) picks what goes next; CTL_STEP_NONE
 * when nothing is left. */
enum ctl_step
pass_cleanup_step(struct ctl_inv *inv)
{
    struct plan_view v;
    struct plan_step s;
    enum ctl_step st;

    if ((st = box_canary_settle(inv)) != CTL_STEP_NONE)
        return st;
    /* after a restart: the capture says what the read-backs need (the
     * phase, the workspace's limits) */
    (void)try_inv_load_captured(inv);
    pass_plan_view(inv, &v);
    s = plan_cleanup_next(&v);
    switch (s.action) {
    case PLAN_REMOVE_PROBE:
        return remove_object(inv, "probe", DK_CONTAINER,
                             ctl_record_role_id(&inv->rec, CTL_REC_PROBE));
    case PLAN_REMOVE:
        return remove_role(inv, s.role);
    case PLAN_READ_GIT:
        return box_git_read_back(inv);
    case PLAN_READ_CHANGES:
        return out_changes_step(inv);
    case PLAN_READ_EGRESS:
        return out_egress_step(inv);
    case PLAN_SWEEP_UNRECORDED:
        return drift_objects_list_ours(inv, DK_CONTAINER, NULL,
                                     on_unrecorded_listed);
    case PLAN_MARK_CLEANED:
        mark_cleaned(inv);
        return CTL_STEP_NONE;
    default:
        return CTL_STEP_NONE;
    }
}
