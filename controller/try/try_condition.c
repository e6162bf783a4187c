/* try_condition.c - a step error that keeps an invocation from
 * progressing, where a kubectl user looks for it (`describe`): the
 * condition Ready=False, reason StepFailed, the error as its message, and
 * a Warning event StepFailed counting the failures in a row ("x8 over
 * 40s"). The event is written at the 1st, 2nd, 4th, 8th ... failure with
 * the same message, so a retry loop (backoff capped at CTL_BACKOFF_MAX)
 * does not grow the event log without bound; the count is exact when
 * written. Once a step goes through again, a Normal event Progressing
 * says after how many failures, and Ready goes back to what it said
 * before (True/Running for an agent that runs), or to False/Progressing
 * when there was none; a Ready another step set meanwhile is kept.
 *
 * An invocation whose steps never failed gets no StepFailed. */
#include "try_condition.h"

#include "ctl_record.h"
#include "inv_status.h"
#include "try_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stop reason is recorded or the phase is final: Ready is the stop's. */
static bool
stopped(const struct ctl_inv *inv)
{
    return inv->rec.stop != CTL_STOP_NONE || ctl_phase_terminal(inv->rec.phase);
}

static bool
power_of_two(unsigned n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

/* The Ready condition before StepFailed replaces it. */
static void
remember_ready(struct ctl_inv *inv)
{
    const struct ctl_record_cond *r = ctl_record_condition(&inv->rec, "Ready");
    struct ctl_stuck *s = inv->stuck;

    s->had_ready = r != NULL && strcmp(r->reason, "StepFailed") != 0;
    if (!s->had_ready)
        return;
    s->ready_status = r->status;
    snprintf(s->ready_reason, sizeof(s->ready_reason), "%s", r->reason);
    snprintf(s->ready_message, sizeof(s->ready_message), "%s",
             r->message ? r->message : "");
}

static void
restore_ready(struct ctl_inv *inv, const char *msg)
{
    const struct ctl_record_cond *r = ctl_record_condition(&inv->rec, "Ready");
    struct ctl_stuck *s = inv->stuck;

    if (r == NULL || strcmp(r->reason, "StepFailed") != 0 || stopped(inv))
        return; /* another step set Ready since: it knows better */
    if (s->had_ready)
        inv_status_set_condition(inv, "Ready", s->ready_status, s->ready_reason,
                                 s->ready_message);
    else
        inv_status_set_condition(inv, "Ready", false, "Progressing", msg);
}

void
try_condition_step_failed(struct ctl_inv *inv, const struct err *why)
{
    const char *msg = why != NULL && why->msg[0] ? why->msg : "unknown error";
    struct ctl_stuck *s;

    /* held only while steps fail: most invocations never need one */
    if (inv->stuck == NULL && (inv->stuck = calloc(1, sizeof(*s))) == NULL)
        return; /* out of memory: the retry goes on, unshown */
    s = inv->stuck;
    if (s->count == 0)
        remember_ready(inv);
    if (s->count == 0 || strcmp(s->message, msg) != 0) {
        s->count = 0;
        snprintf(s->message, sizeof(s->message), "%s", msg);
        inv_now(s->first);
    }
    s->count++;
    if (!inv->rec.present)
        return; /* no status to hold a condition (it is being created) */
    /* a stopped attempt's Ready says why it stopped; the retries of its
     * cleanup show in the event alone */
    if (!stopped(inv))
        inv_status_set_condition(inv, "Ready", false, "StepFailed", s->message);
    if (power_of_two(s->count))
        inv_event_counted(inv, true, "StepFailed", s->count, s->first,
                          s->message);
    /* best effort (the next pass writes it before its first step): now,
     * or on etcd with the iteration's group write */
    try_write_end(inv, NULL);
}

void
try_condition_step_ok(struct ctl_inv *inv)
{
    struct ctl_stuck *s = inv->stuck;
    char msg[320];

    if (s == NULL)
        return;
    snprintf(msg, sizeof(msg), "the step that failed %u time%s went through",
             s->count, s->count == 1 ? "" : "s");
    if (inv->rec.present) {
        restore_ready(inv, msg);
        inv_event(inv, false, "Progressing", "%s (last error: %s)", msg,
                  s->message);
    }
    free(s);
    inv->stuck = NULL;
}
