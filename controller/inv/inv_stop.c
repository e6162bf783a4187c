/* inv_stop.c - the stop decision (inv_stop.h). */
#include "inv_stop.h"

#include <stdlib.h>

#include "inv_queue.h"
#include "ctl_record.h"
#include "inv_status.h"
#include "log.h"

int
inv_output_close(struct ctl_inv *inv, struct rc_output_result *r,
                 struct err *e)
{
    struct rc_output_result ignored;
    int rc;

    if (inv->run.out == NULL)
        return 0;
    rc = rc_output_close(inv->run.out, r != NULL ? r : &ignored, e);
    free(inv->run.out);
    inv->run.out = NULL;
    return rc;
}

void
inv_stop_detach(struct ctl_inv *inv)
{
    struct rc_output_result r;
    struct err e;

    dk_cancel(inv->run.logs);
    dk_cancel(inv->run.wait);
    inv->run.logs = inv->run.wait = NULL;
    if (inv->run.out == NULL)
        return;
    if (inv_output_close(inv, &r, &e) == -1)
        log_kv(LOG_WARN, "closing the output failed", "invocation", inv->name,
               "error", e.msg, NULL);
    if (inv->rec.present)
        ctl_record_set_output(&inv->rec, (double)r.bytes, r.truncated,
                              r.sha256);
}

void
inv_stop(struct ctl_inv *inv, enum ctl_phase phase, enum ctl_stop_reason why,
         const char *message)
{
    const char *stop_reason = ctl_stop_reason_name(why);

    if (ctl_phase_terminal(inv->rec.phase) || inv->rec.stop != CTL_STOP_NONE)
        return; /* the first stop cause is the one kept */
    ctl_record_set_stop(&inv->rec, why);
    inv_status_set_condition(inv, "Ready", false, stop_reason, message);
    inv_event(inv, phase != CTL_CANCELLED, "Stopped", "%s: %s", stop_reason,
              message);
    inv_stop_detach(inv);
    inv_status_set_phase(inv, phase);
    ev_timer_stop(inv->ctl->loop, &inv->deadline);
    ev_timer_stop(inv->ctl->loop, &inv->probe.canary);
    inv_kick(inv, 0);
}

/* The daemon went away while the agent ran: whatever exit code it
 * reports is not the agent's own (docs/docker-notes.md: no live-restore),
 * the boundary went unwatched meanwhile, and the attempt is never rerun. */
void
inv_stop_lost(struct ctl_inv *inv)
{
    inv_stop(inv, CTL_FAILED, CTL_STOP_AGENT_LOST,
             "AgentLost: the Docker daemon became unreachable while the "
             "agent ran");
}
