/* pass_plan.c - what the step planner (plan/plan_step.h) is told about an
 * invocation: the one place the record and the pass's memory are reduced
 * to the facts the next step depends on. The steps themselves run in
 * pass_prepare.c, box_probe.c and pass_cleanup.c. */
#include "pass_plan.h"

#include "inv_changesjob.h"
#include "box_egressnet.h"
#include "box_git.h"
#include "ctl_record.h"

void
pass_plan_view(const struct ctl_inv *inv, struct plan_view *v)
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
    v->progress = rec->progress; /* one enum: the planner reads the bits */
    v->probe_recorded = ctl_record_role_id(rec, CTL_REC_PROBE) != NULL;
    v->probe_exited = inv->probe.exited;
    v->has_workspace = inv->captured != NULL && inv->captured->has_workspace;
    /* the controller saw the shared network: no inspect per attempt */
    v->egress_checked =
        inv->net.egress_checked || box_egressnet_known(inv->ctl);
    v->network_sweep = inv->net.retry == CTL_NET_SWEEP;
    v->prestart_verified = inv->verify.prestart_verified;
    v->storage_verified = inv->verify.storage_verified;
    box_git_digests(inv, &v->git_digest_before, &v->git_digest_after);
    v->changes_wanted = inv_changes_wanted(inv);
    v->unrecorded_swept = inv->cleanup.swept;
    v->has_uid = rec->uid != NULL;
    v->has_attempt = rec->attempt != NULL;
    v->terminal = ctl_phase_terminal(rec->phase);
    v->cleaned_up = rec->cleaned_up;
}
