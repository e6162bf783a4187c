/* try_result.h - what a step's result means, and the one place that
 * decides what happens next (the shape of controller-runtime's
 * reconcileHandler).
 *
 * A step (one rung of the planner's ladder, or one stage of a pass) and
 * the answer function of the request it starts both return an enum
 * ctl_step: they say what happened, never what to schedule. Only
 * try_inv_settle() turns it into the next pass: now, after a backoff, or
 * when the request in flight answers. A failure that ends the attempt for
 * good (a name conflict, a breach, an image that is not there) is written
 * into the record by the step (inv_stop.h) and reported as CTL_STEP_DONE:
 * the next pass cleans up. */
#ifndef TRY_RESULT_H
#define TRY_RESULT_H

#include <stdbool.h>

#include "ctl.h"
#include "err.h"

struct ctl_inv;
struct dk_req;
struct dk_response;

/* The step failed for now: keep why (logs, /healthz, the backoff) and
 * return CTL_STEP_FAILED. */
enum ctl_step try_step_failed(struct ctl_inv *inv, const struct err *why);

/* A step's request was started (req, from a dk_* call given
 * try_step_answered and inv) or could not be (NULL, e says why), on the
 * lane the step runs on (inv->lane: the main one, or the storage lane of
 * a box being built). The daemon client never answers from inside the
 * call that starts a request, so `answer` is in place before it runs. */
enum ctl_step try_step_request(struct ctl_inv *inv, ctl_answer_fn *answer,
                               struct dk_req *req, const struct err *e);

/* The dk_done_fn of every step request: hands the answer to the step's
 * answer function (on the request's lane) and its result to
 * try_inv_settle(). */
void try_step_answered(struct dk_req *req, struct dk_response *r, void *arg);

/* The one retry delay, of an invocation's failed step and of the warm
 * pool's failed box (box.c): base * 2^failures up to CTL_BACKOFF_MAX;
 * counts the failure. */
double try_retry_delay(unsigned *failures, double base);

/* The one decision point: DONE queues the next pass now (failures
 * reset), FAILED queues it after an exponential backoff, STARTED and
 * NONE queue nothing (an answer, a watch, an event or a timer will). */
void try_inv_settle(struct ctl_inv *inv, enum ctl_step s);

#endif
