/* drift.c - what drift found by the revalidation means for the
 * attempt (drift.h). */
#include "drift.h"

#include <stdio.h>

#include "obs_observe.h"
#include "ctl_record.h"
#include "try_result.h"
#include "inv_status.h"
#include "inv_stop.h"
#include "ctl_testhooks.h"
#include "inv_verify_part.h"
#include "dk_engine.h"
#include "log.h"
#include "rc_drift.h"

/* Fail closed while running; before the start, tear down and rebuild. */
static enum ctl_step
act_on_drift(struct ctl_inv *inv, const char *rule, const char *message)
{
    enum ctl_phase phase = inv->rec.phase;

    obs_observe_drift(inv->ctl, rule);
    inv_status_set_condition(inv, "Drifted", true, rule, message);
    if (phase == CTL_RUNNING) {
        inv_stop(inv, CTL_FAILED, CTL_STOP_BOUNDARY_DRIFT, message);
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
    inv_event(inv, true, "DriftRepaired",
              "%s: removing every object of the attempt and building it again",
              message);
    inv->verify.repairing = true;
    inv->verify.prestart_verified = false;
    inv->net.egress_checked = false;
    return CTL_STEP_DONE;
}

/* No memory for the details: the rule alone (the table's own string)
 * waits for the daemon, so a daemon's restart is still told from drift;
 * the details go to the log. A rule not in the table is acted on now
 * (closed). */
static enum ctl_step
wait_without_memory(struct ctl_inv *inv, const char *rule,
                    const char *message)
{
    int i = rc_drift_rule_by_id(rule);

    if (i < 0)
        return act_on_drift(inv, rule, message);
    inv->verify.drift_lost = rc_drift_rule_id((size_t)i);
    log_kv(LOG_WARN, "drift found, its details lost: out of memory",
           "invocation", inv->name, "rule", rule, "finding", message, NULL);
    return CTL_STEP_DONE;
}

enum ctl_step
drift_found(struct ctl_inv *inv, const char *rule, const char *message)
{
    struct ctl_drift_finding *f;

    inv->verify.due = false;
    inv->verify.again = false; /* what comes next is decided here */
    inv->verify.verified = 0;
    inv->verify.round_open = false;
    if (ctl_test_disabled("drift-confirmation"))
        return act_on_drift(inv, rule, message);
    f = inv_verify_finding(inv);
    if (f == NULL)
        return wait_without_memory(inv, rule, message);
    snprintf(f->drift_rule, sizeof(f->drift_rule), "%s", rule);
    snprintf(f->drift_message, sizeof(f->drift_message), "%s", message);
    return CTL_STEP_DONE;
}

/* The pending drift, taken: its details, or the rule alone and a fixed
 * message when they found no memory. */
static void
take_pending(struct ctl_inv *inv, char *rule, size_t rule_size,
             char *message, size_t message_size)
{
    struct ctl_drift_finding *f = inv->verify.found;

    if (f != NULL && f->drift_rule[0] != '\0') {
        snprintf(rule, rule_size, "%s", f->drift_rule);
        snprintf(message, message_size, "%s", f->drift_message);
        f->drift_rule[0] = '\0';
    } else {
        snprintf(rule, rule_size, "%s",
                 inv->verify.drift_lost ? inv->verify.drift_lost : "?");
        snprintf(message, message_size,
                 "drift found by the revalidation (its details were lost: "
                 "out of memory; the controller's log has them)");
    }
    inv->verify.drift_lost = NULL;
    inv_verify_finding_done(inv, false);
}

static enum ctl_step
on_daemon_answered(struct ctl_inv *inv, struct dk_response *r)
{
    char rule[sizeof(inv->verify.found->drift_rule)];
    char message[sizeof(inv->verify.found->drift_message)];

    take_pending(inv, rule, sizeof(rule), message, sizeof(message));
    if (r->err != NULL) {
        /* ERR_UNAVAIL marks the daemon lost (try_result.c); once it is
         * back, a round inspects everything again. */
        log_kv(LOG_WARN,
               "drift not counted: the daemon did not answer a new connection",
               "invocation", inv->name, "rule", rule, "error", r->err->msg,
               NULL);
        inv->verify.due = true;
        return try_step_failed(inv, r->err);
    }
    return act_on_drift(inv, rule, message);
}

/* A dockerd stopped with SIGTERM closes its listener, then stops every
 * container, and still answers on the connections opened before: a round
 * on such a connection sees the daemon's own teardown (endpoints gone,
 * containers exited). So drift counts only when a new connection to the
 * daemon is accepted after it was seen, as an agent's exit (pass_run.c). */
enum ctl_step
drift_step(struct ctl_inv *inv)
{
    struct err e;

    if (!inv_verify_drift_pending(inv))
        return CTL_STEP_NONE;
    return try_step_request(
        inv, on_daemon_answered,
        dk_ping(inv->ctl->dk, true, try_step_answered, inv, &e), &e);
}
