/* ctl_round.h - a revalidation round's inspects sent together
 * (ctl_round.c). ctl_verify.c decides what a round inspects and checks
 * every answer in its own order; this module only lets the daemon answer
 * them side by side instead of one after the other. */
#ifndef CTL_ROUND_H
#define CTL_ROUND_H

#include "ctl.h"

/* Open the invocation's round (inv->round): from now on an event about
 * it may be newer than an answer of the round (ctl_inv_revalidate() asks
 * for one more round). -1 out of memory. */
int ctl_round_open(struct ctl_inv *inv, struct err *e);

/* Send the round's inspect of role r (kind, by ref) now; its answer is
 * kept for ctl_round_take(). Nothing when no round is open or one was
 * sent already; a request the client refuses is simply not kept (the
 * check sends its own). */
void ctl_round_send(struct ctl_inv *inv, enum rc_role r, enum dk_kind kind,
                    const char *ref);

/* The inspect of role r by ref, as a step: true when the round sent it,
 * *s then is `answer`'s result on the kept answer, or CTL_STEP_STARTED
 * with the request still in flight now on inv->lane (its answer goes to
 * `answer` through ctl_step_answered()). false: not sent by the round
 * (or for another ref): the caller sends it. */
bool ctl_round_take(struct ctl_inv *inv, enum rc_role r, const char *ref,
                    ctl_answer_fn *answer, enum ctl_step *s);

/* Close the round: its answers not taken are dropped, its requests not
 * taken are cancelled. A request taken onto a lane stays there. */
void ctl_round_close(struct ctl_inv *inv);

#endif
