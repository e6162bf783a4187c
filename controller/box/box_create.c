/* box_create.c - creating one object of the attempt (box_create.h).
 *
 * The ID goes into the record as soon as Docker returns it. A create
 * that answers 409 found the name taken: the object is ours only when a
 * killed controller created it for this very attempt (its labels match
 * and it is no recorded stand-in); anything else fails the attempt
 * closed and is left in place. */
#include "box_create.h"

#include <stdio.h>
#include <string.h>

#include "box_boxreq.h"
#include "drift_objects.h"
#include "ctl_record.h"
#include "try_result.h"
#include "inv_status.h"
#include "inv_stop.h"
#include "ctl_testhooks.h"
#include "log.h"

/* The name is held by an object that is not this attempt's: fail closed,
 * leave it in place. */
enum ctl_step
box_create_refuse_name(struct ctl_inv *inv, const char *rname,
                       const char *name)
{
    char msg[300];

    snprintf(msg, sizeof(msg),
             "%s %s already exists and is not this attempt's: refusing it",
             rname, name);
    inv_event(inv, true, "NameConflict", "%s", msg);
    inv_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, msg);
    return CTL_STEP_DONE;
}

static enum ctl_step
on_conflict_inspected(struct ctl_inv *inv, struct dk_response *r)
{
    enum rc_role role = inv->lane->creating;
    const char *rname = rc_role_name(role);
    const char *name = rc_desired_object(inv->desired, role)->name;
    const char *id;

    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    id = drift_objects_identity(r->json, drift_role_dk_kind(role) == DK_VOLUME);
    if (id == NULL || !drift_objects_ours(inv, r->json, rname))
        return box_create_refuse_name(inv, rname, name);
    ctl_record_set_role(&inv->rec, ctl_record_role(rname), id, name);
    inv_event(inv, false, "Adopted",
              "%s %s was created for this attempt before a restart: adopted",
              rname, name);
    return CTL_STEP_DONE;
}

/* A create by network name answered "ambiguous": the network is held
 * twice (a create that outlasted its request). The network step lists
 * and removes the unrecorded twin first (box_network.c). */
static enum ctl_step
network_ambiguous(struct ctl_inv *inv, const struct err *why)
{
    log_kv(LOG_WARN,
           "the attempt's network name is ambiguous: removing the "
           "unrecorded twin",
           "invocation", inv->name, "error", why->msg, NULL);
    inv->net.retry = CTL_NET_SWEEP;
    return try_step_failed(inv, why);
}

static enum ctl_step
create_failed(struct ctl_inv *inv, struct dk_response *r)
{
    enum rc_role role = inv->lane->creating;
    struct err e;

    if (strstr(r->err->msg, "is ambiguous") != NULL)
        return network_ambiguous(inv, r->err);
    if (r->err->code != ERR_CONFLICT)
        return try_step_failed(inv, r->err);
    return try_step_request(
        inv, on_conflict_inspected,
        dk_inspect(inv->ctl->dk, drift_role_dk_kind(role),
                   rc_desired_object(inv->desired, role)->name,
                   try_step_answered, inv, &e),
        &e);
}

enum ctl_step
box_create_answered(struct ctl_inv *inv, struct dk_response *r)
{
    enum rc_role role = inv->lane->creating;
    enum dk_kind k = drift_role_dk_kind(role);
    const char *name = rc_desired_object(inv->desired, role)->name;
    const char *id;
    struct err e;

    if (r->err != NULL)
        return create_failed(inv, r);
    id = drift_objects_identity(r->json, k == DK_VOLUME);
    if (id == NULL) {
        err_set(&e, ERR_SYNTAX, "create answer has no %s",
                k == DK_VOLUME ? "CreatedAt" : "Id");
        return try_step_failed(inv, &e);
    }
    /* A volume create answers 201 with a same-named volume that exists:
     * one the revalidation reported as a stand-in is not ours. */
    if (k == DK_VOLUME && ctl_record_is_standin(&inv->rec, id))
        return box_create_refuse_name(inv, rc_role_name(role), name);
    ctl_test_point("created", rc_role_name(role));
    ctl_record_set_role(&inv->rec, role, id, name);
    return CTL_STEP_DONE;
}

/* Docker creates networks one at a time, so with many invocations a
 * network create can wait far longer than other calls. A create that
 * timed out is survived (box_network.c lists before retrying), but each
 * one costs a removal: give creates a deadline well past that queue
 * instead of the default 30 s. */
#define CTL_CREATE_TIMEOUT_MS (10L * 60 * 1000)

enum ctl_step
box_create_request(struct ctl_inv *inv, enum rc_role role,
                   ctl_answer_fn *answer)
{
    const struct rc_object *o = rc_desired_object(inv->desired, role);
    /* the agent's env holds a secret: wipe the printed body */
    struct dk_call call = { .timeout_ms = CTL_CREATE_TIMEOUT_MS,
                            .wipe_body = o->sensitive };
    struct box_boxreq q = { .ctl = inv->ctl,
                            .desired = inv->desired,
                            .role = role,
                            .opts = &call,
                            .done = try_step_answered,
                            .arg = inv };
    struct err e;

    inv->lane->creating = role;
    return try_step_request(inv, answer,
                            box_boxreq_send(CTL_BOXREQ_CREATE, &q, &e), &e);
}

enum ctl_step
box_create(struct ctl_inv *inv, enum rc_role role)
{
    return box_create_request(inv, role, box_create_answered);
}
