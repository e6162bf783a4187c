/* try_result.c - the result interpreter (try_result.h): every step's
 * outcome ends here, and only here is a retry, its backoff and what a
 * failure says about the daemon decided. */
#include "try_result.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>

#include "ctl.h"
#include "try_build.h"
#include "try_condition.h"
#include "inv_queue.h"
#include "log.h"

/* Out of memory for the error itself: the retry still goes on. */
static const struct err step_err_nomem = {
    .code = ERR_NOMEM,
    .msg = "the step failed (out of memory keeping its error)",
};

enum ctl_step
try_step_failed(struct ctl_inv *inv, const struct err *why)
{
    /* held only while steps fail: most invocations never need one */
    if (inv->step_err == NULL &&
        (inv->step_err = malloc(sizeof(*inv->step_err))) == NULL)
        return CTL_STEP_FAILED;
    if (why != NULL)
        *inv->step_err = *why;
    else
        err_set(inv->step_err, ERR_IO, "the step failed");
    return CTL_STEP_FAILED;
}

enum ctl_step
try_step_request(struct ctl_inv *inv, ctl_answer_fn *answer, struct dk_req *req,
                 const struct err *e)
{
    if (req == NULL)
        return try_step_failed(inv, e);
    inv->lane->call = req;
    inv->lane->answer = answer;
    return CTL_STEP_STARTED;
}

void
try_step_answered(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    struct ctl_lane *lane = &inv->lanes[CTL_LANE_MAIN];
    ctl_answer_fn *answer;
    enum ctl_step s;

    for (int i = 0; i < CTL_LANES; i++)
        if (inv->lanes[i].call == req)
            lane = &inv->lanes[i];
    answer = lane->answer;
    lane->call = NULL;
    lane->answer = NULL;
    /* The answer function, and any request it starts, run on its lane. */
    inv->lane = lane;
    s = answer(inv, r);
    inv->lane = &inv->lanes[CTL_LANE_MAIN];
    try_inv_settle(inv, s);
}

/* The Docker daemon could not be reached: /healthz says so, and an agent that
 * was running went unwatched (inv_stop_lost() on the next pass). */
static void
note_daemon_unreachable(struct ctl_inv *inv, const struct err *why)
{
    struct ctl *c = inv->ctl;

    /* only Docker's: a store that cannot be reached says so in /healthz
     * itself (try_store_trouble()) and leaves running agents alone */
    if (why->code != ERR_UNAVAIL || why->peer != ERR_PEER_DOCKER)
        return;
    if (inv->rec.present && inv->rec.phase == CTL_RUNNING)
        inv->run.daemon_lost = true;
    if (c->docker_up) {
        snprintf(c->docker_error, sizeof(c->docker_error), "%s", why->msg);
        c->docker_up = false;
    }
}

double
try_retry_delay(unsigned *failures, double base)
{
    double delay = base * pow(2.0, *failures);

    if (delay > CTL_BACKOFF_MAX)
        delay = CTL_BACKOFF_MAX;
    (*failures)++;
    return delay;
}

static void
retry_later(struct ctl_inv *inv)
{
    const struct err *why = inv->step_err ? inv->step_err : &step_err_nomem;
    double delay = try_retry_delay(&inv->queue.failures, CTL_BACKOFF_MIN);

    inv->ctl->reconciles_error++;
    inv->ctl->queue_retries++;
    note_daemon_unreachable(inv, why);
    try_build_yield(inv); /* no build slot held through a backoff */
    log_kv(LOG_WARN, "step failed, will retry", "invocation", inv->name,
           "error", why->msg, NULL);
    try_condition_step_failed(inv, why);
    inv_requeue(inv, delay);
}

void
try_inv_settle(struct ctl_inv *inv, enum ctl_step s)
{
    switch (s) {
    case CTL_STEP_DONE:
        inv->queue.failures = 0;
        free(inv->step_err);
        inv->step_err = NULL;
        try_condition_step_ok(inv);
        inv_kick(inv, 0);
        break;
    case CTL_STEP_FAILED:
        retry_later(inv);
        break;
    case CTL_STEP_NONE:
        /* nothing failed and nothing is in flight: the pass went through */
        if (!inv_in_flight(inv))
            try_condition_step_ok(inv);
        break;
    case CTL_STEP_STARTED:
        break; /* the answer decides */
    }
    /* A pass asked for while a request was in flight (an event, a
     * stream's end, the resync) runs once nothing is: an answer that
     * settles CTL_STEP_NONE queues nothing of its own, and with --once
     * an invocation with nothing queued looks finished (inv_idle). */
    if (inv->queue.pass_asked && !inv_in_flight(inv)) {
        inv->queue.pass_asked = false;
        if (!ev_is_active(&inv->queue.kick))
            inv_kick(inv, 0);
    }
}
