/* out_usage_record.c - an attempt's usage, once its gateway's audit is
 * read: into status.usage, a TokenBudgetSpent event, and the vendor's
 * counters on /metrics (see obs_usage.h). */
#include "obs_usage.h"

#include "ctl.h"
#include "obs_observe.h"
#include "ctl_record.h"
#include "inv_status.h"

void
out_usage_record(struct ctl_inv *inv, const struct obs_usage *u)
{
    cJSON *o;

    /* env mode: no gateway, nothing counted (not "zero requests") */
    if (ctl_record_role_id(&inv->rec, RC_ROLE_GATEWAY) == NULL)
        return;
    o = obs_usage_to_json(u);
    if (o == NULL)
        return; /* out of memory: the last record stands */
    cJSON_Delete(inv->rec.usage);
    inv->rec.usage = o;
    inv->rec.dirty = true;
}

void
out_usage_finish(struct ctl_inv *inv, const struct obs_usage *u)
{
    const struct spec_invocation *s =
        inv->captured != NULL ? inv->captured : inv->spec;

    if (ctl_record_role_id(&inv->rec, RC_ROLE_GATEWAY) == NULL)
        return;
    out_usage_record(inv, u);
    if (u->token_spent > 0)
        inv_event(inv, true, "TokenBudgetSpent",
                  "%llu requests were refused by the gateway (429): the "
                  "attempt's token budget (vendorBudget.tokens or "
                  "limits.maxVendorTokens) was spent",
                  (unsigned long long)u->token_spent);
    if (s != NULL)
        obs_observe_usage(inv->ctl, s->vendor, spec_phase_name(s->phase), u);
}
