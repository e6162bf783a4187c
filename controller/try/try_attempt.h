/* try_attempt.h - what an attempt holds in memory and how it starts over
 * (try_attempt.c), and the /24 of the subnet pool it runs on. */
#ifndef TRY_ATTEMPT_H
#define TRY_ATTEMPT_H

#include "ctl.h"

/* What try_inv_reset_attempt() starts over. */
enum try_reset {
    CTL_RESET_NEW_ATTEMPT, /* a new attempt ID after a finished one */
    CTL_RESET_CLAIMED,     /* claimed a status another controller wrote */
    CTL_RESET_SUBNET,      /* moved to another subnet before any object */
    CTL_RESET_REPAIR,      /* drift before the start: objects rebuilt */
};

/* The one place that forgets state of an attempt (see try_attempt.c for
 * what each kind clears and keeps). */
void try_inv_reset_attempt(struct ctl_inv *inv, enum try_reset what);
/* The lowest index of the pool, from `from` on, that no live invocation
 * of ours holds; -1 when none is left. */
long try_subnet_alloc(const struct ctl_inv *inv, long from);
/* The same for any owner (self NULL: a box of the warm pool). */
long try_subnet_alloc_for(const struct ctl *c, const struct ctl_inv *self,
                          long from);
/* The captured spec (inv->captured): the record's, which is the spec this
 * controller captured, or status.captured parsed once after a restart or
 * a claim; false when the status holds none or an unreadable one. */
bool try_inv_load_captured(struct ctl_inv *inv);
/* The attempt's subnet is number index, and its agent's user the one that
 * goes with it (rc_agent_user_for: status.agentUser, fixed from here on
 * whatever the config says later). */
void try_attempt_set_subnet(struct ctl_inv *inv, long index);
/* The subnet overlapped a foreign network before anything existed: move
 * to the next free one, or stop the attempt when the pool is full. */
enum ctl_step try_attempt_next_subnet(struct ctl_inv *inv);

#endif
