/* ctl_verify_part.h - the revalidation's part of an invocation (struct
 * ctl_inv_verify in ctl.h, read and written by ctl_verify.c, ctl_drift.c
 * and ctl_neighbours.c) and its one reset. A header of its own, under
 * every module: the modules that start an attempt over (ctl_attempt.c,
 * ctl_inv.c's capture) sit under ctl_verify.c, which reaches them through
 * the result and the status write. */
#ifndef CTL_VERIFY_PART_H
#define CTL_VERIFY_PART_H

#include "ctl.h"

/* Whatever starts over (a new attempt or capture, a claim, a new subnet,
 * a repair) is inspected again before its start, by a round of its own:
 * a round left half done checked the old objects, and drift found on
 * them goes with them. */
static inline void
ctl_verify_reset(struct ctl_inv *inv)
{
    inv->verify.prestart_verified = false;
    inv->verify.storage_verified = false;
    inv->verify.verified = 0;
    inv->verify.again = false;
    inv->verify.round_open = false;
    inv->verify.drift_rule[0] = '\0';
}

#endif
