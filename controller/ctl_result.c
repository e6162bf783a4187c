/* ctl_result.c - the result interpreter (ctl_result.h): every step's
 * outcome ends here, and only here is a retry, its backoff and what a
 * failure says about the daemon decided. */
#include "ctl_result.h"

#include <math.h>
#include <stdio.h>

#include "ctl.h"
#include "ctl_condition.h"
#include "ctl_queue.h"
#include "ctl_wsjob.h"
#include "log.h"

enum ctl_step
ctl_step_failed(struct ctl_inv *inv, const struct err *why)
{
    if (why != NULL)
        inv->step_err = *why;
    else
        err_set(&inv->step_err, ERR_IO, "the step failed");
    return CTL_STEP_FAILED;
}

enum ctl_step
ctl_step_request(struct ctl_inv *inv, ctl_answer_fn *answer, struct dk_req *req,
                 const struct err *e)
{
    if (req == NULL)
        return ctl_step_failed(inv, e);
    inv->call = req;
    inv->answer = answer;
    return CTL_STEP_STARTED;
}

bool
ctl_step_in_flight(const struct ctl_inv *inv)
{
    return inv->call != NULL || ctl_ws_in_flight(inv);
}

void
ctl_step_answered(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    ctl_answer_fn *answer = inv->answer;

    (void)req;
    inv->call = NULL;
    inv->answer = NULL;
    ctl_inv_settle(inv, answer(inv, r));
}

/* The daemon could not be reached: /healthz says so, and an agent that
 * was running went unwatched (ctl_stop_lost() on the next pass). */
static void
note_daemon_unreachable(struct ctl_inv *inv, const struct err *why)
{
    struct ctl *c = inv->ctl;

    if (why->code != ERR_UNAVAIL)
        return;
    if (inv->rec.present && inv->rec.phase == CTL_RUNNING)
        inv->daemon_lost = true;
    if (c->docker_up) {
        snprintf(c->docker_error, sizeof(c->docker_error), "%s", why->msg);
        c->docker_up = false;
    }
}

static void
retry_later(struct ctl_inv *inv)
{
    double delay = CTL_BACKOFF_MIN * pow(2.0, inv->failures);

    if (delay > CTL_BACKOFF_MAX)
        delay = CTL_BACKOFF_MAX;
    inv->failures++;
    inv->ctl->reconciles_error++;
    inv->ctl->queue_retries++;
    note_daemon_unreachable(inv, &inv->step_err);
    log_kv(LOG_WARN, "step failed, will retry", "invocation", inv->name,
           "error", inv->step_err.msg, NULL);
    ctl_condition_step_failed(inv, &inv->step_err);
    ctl_inv_requeue(inv, delay);
}

void
ctl_inv_settle(struct ctl_inv *inv, enum ctl_step s)
{
    switch (s) {
    case CTL_STEP_DONE:
        inv->failures = 0;
        ctl_condition_step_ok(inv);
        ctl_inv_kick(inv, 0);
        break;
    case CTL_STEP_FAILED:
        retry_later(inv);
        break;
    case CTL_STEP_NONE:
        /* nothing failed and nothing is in flight: the pass went through */
        if (!ctl_step_in_flight(inv))
            ctl_condition_step_ok(inv);
        break;
    case CTL_STEP_STARTED:
        break; /* the answer decides */
    }
}
