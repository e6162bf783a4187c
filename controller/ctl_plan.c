/* ctl_plan.c - what the step planner (plan/plan_step.h) is told about an
 * invocation: the one place the record and the pass's memory are reduced
 * to the facts the next step depends on. The steps themselves run in
 * ctl_prepare.c, ctl_probe.c and ctl_cleanup.c. */
#include "ctl_plan.h"

#include "ctl_changesjob.h"
#include "ctl_egressnet.h"
#include "ctl_git.h"
#include "ctl_record.h"

/* The record's progress bits and the planner's for them. */
static const struct {
    enum plan_progress bit;
    enum ctl_progress done;
} progress_bits[] = {
    { PLAN_PROXY_CONNECTED, CTL_PROG_PROXY_CONNECTED },
    { PLAN_PROXY_STARTED, CTL_PROG_PROXY_STARTED },
    { PLAN_KEEPER_STARTED, CTL_PROG_KEEPER_STARTED },
    { PLAN_WORKSPACE_UPLOADED, CTL_PROG_WORKSPACE_UPLOADED },
    { PLAN_CONFIG_UPLOADED, CTL_PROG_CONFIG_UPLOADED },
    { PLAN_PROBE_STARTED, CTL_PROG_PROBE_STARTED },
    { PLAN_BOUNDARY_VERIFIED, CTL_PROG_BOUNDARY_VERIFIED },
    { PLAN_GATEWAY_CONNECTED, CTL_PROG_GATEWAY_CONNECTED },
    { PLAN_GATEWAY_STARTED, CTL_PROG_GATEWAY_STARTED },
    { PLAN_KEY_UPLOADED, CTL_PROG_KEY_UPLOADED },
    { PLAN_EGRESS_READ, CTL_PROG_EGRESS_READ },
    { PLAN_CHANGES_READ, CTL_PROG_CHANGES_READ },
};

void
ctl_plan_view(const struct ctl_inv *inv, struct plan_view *v)
{
    const struct ctl_record *rec = &inv->rec;

    *v = (struct plan_view){ 0 };
    for (unsigned r = 0; r < RC_ROLE_COUNT; r++) {
        if (rc_desired_object(inv->desired, r) != NULL)
            v->desired |= 1u << r;
        if (ctl_record_role_id(rec, (int)r) != NULL)
            v->recorded |= 1u << r;
        if (ctl_record_role_obj_name(rec, (int)r) != NULL)
            v->named |= 1u << r;
    }
    for (size_t i = 0; i < sizeof(progress_bits) / sizeof(progress_bits[0]);
         i++)
        if (ctl_record_done(rec, progress_bits[i].done))
            v->progress |= progress_bits[i].bit;
    v->probe_recorded = ctl_record_role_id(rec, CTL_REC_PROBE) != NULL;
    v->probe_exited = inv->probe_exited;
    v->has_workspace = inv->captured != NULL && inv->captured->has_workspace;
    /* the controller saw the shared network: no inspect per attempt */
    v->egress_checked =
        inv->net.egress_checked || ctl_egressnet_known(inv->ctl);
    v->network_sweep = inv->net.retry == CTL_NET_SWEEP;
    v->prestart_verified = inv->verify.prestart_verified;
    v->storage_verified = inv->verify.storage_verified;
    ctl_git_digests(inv, &v->git_digest_before, &v->git_digest_after);
    v->changes_wanted = ctl_changes_wanted(inv);
    v->unrecorded_swept = inv->cleanup.swept;
    v->has_uid = rec->uid != NULL;
    v->has_attempt = rec->attempt != NULL;
    v->terminal = ctl_phase_terminal(rec->phase);
    v->cleaned_up = rec->cleaned_up;
}
