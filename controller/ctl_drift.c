/* ctl_drift.c - what drift found by the revalidation means for the
 * attempt (ctl_drift.h). */
#include "ctl_drift.h"

#include "ctl_observe.h"
#include "ctl_status.h"
#include "ctl_stop.h"
#include "log.h"

/* Fail closed while running; before the start, tear down and rebuild. */
enum ctl_step
ctl_drift_found(struct ctl_inv *inv, const char *rule, const char *message)
{
    enum ctl_phase phase = inv->rec.phase;

    inv->verify_due = false;
    inv->verified = 0;
    ctl_observe_drift(inv->ctl, rule);
    ctl_status_set_condition(inv, "Drifted", true, rule, message);
    if (phase == CTL_RUNNING) {
        ctl_stop(inv, CTL_FAILED, CTL_STOP_BOUNDARY_DRIFT, message);
        return CTL_STEP_DONE;
    }
    if (ctl_phase_terminal(phase)) {
        /* A stop (deadline, output limit) came while this inspect was in
         * flight: its reason stands, cleanup removes everything, and
         * there is nothing to repair. The drift is still recorded. */
        log_kv(LOG_WARN, "drift seen after the attempt stopped", "invocation",
               inv->name, "rule", rule, NULL);
        return CTL_STEP_DONE;
    }
    ctl_event(inv, true, "DriftRepaired",
              "%s: removing every object of the attempt and building it again",
              message);
    inv->repairing = true;
    inv->prestart_verified = false;
    inv->egress_checked = false;
    return CTL_STEP_DONE;
}
