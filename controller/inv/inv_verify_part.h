/* inv_verify_part.h - the revalidation's part of an invocation (struct
 * ctl_inv_verify in ctl.h, read and written by drift_verify.c, drift.c
 * and drift_neighbours.c) and its one reset. A header of its own, under
 * every module: the modules that start an attempt over (try_attempt.c,
 * pass_inv.c's capture) sit under drift_verify.c, which reaches them through
 * the result and the status write. */
#ifndef INV_VERIFY_PART_H
#define INV_VERIFY_PART_H

#include <stdlib.h>

#include "ctl.h"

/* The drift found and not yet acted on, allocated when something is
 * found: NULL when the allocation fails (the caller falls back, closed). */
static inline struct ctl_drift_finding *
inv_verify_finding(struct ctl_inv *inv)
{
    if (inv->verify.found == NULL)
        inv->verify.found = calloc(1, sizeof(*inv->verify.found));
    return inv->verify.found;
}

/* A round's drift waits for the daemon's new connection (drift.c), with
 * its details or, when they found no memory, its rule alone. */
static inline bool
inv_verify_drift_pending(const struct ctl_inv *inv)
{
    return inv->verify.drift_lost != NULL ||
           (inv->verify.found != NULL &&
            inv->verify.found->drift_rule[0] != '\0');
}

/* A docker exec or cp waits for the next round (drift_neighbours.c),
 * with its details or, when they found no memory, its rule alone. */
static inline bool
inv_verify_foreign_pending(const struct ctl_inv *inv)
{
    return inv->verify.foreign_lost != NULL ||
           (inv->verify.found != NULL &&
            inv->verify.found->foreign_seen[0] != '\0');
}

/* Frees the finding once nothing of it is pending (and on the
 * invocation's end). */
static inline void
inv_verify_finding_done(struct ctl_inv *inv, bool all)
{
    if (inv->verify.found == NULL ||
        (!all &&
         (inv_verify_drift_pending(inv) || inv_verify_foreign_pending(inv))))
        return;
    free(inv->verify.found);
    inv->verify.found = NULL;
}

/* Whatever starts over (a new attempt or capture, a claim, a new subnet,
 * a repair) is inspected again before its start, by a round of its own:
 * a round left half done checked the old objects, and drift found on
 * them goes with them. */
static inline void
inv_verify_reset(struct ctl_inv *inv)
{
    inv->verify.prestart_verified = false;
    inv->verify.storage_verified = false;
    inv->verify.verified = 0;
    inv->verify.again = false;
    inv->verify.round_open = false;
    inv->verify.drift_lost = NULL;
    if (inv->verify.found != NULL)
        inv->verify.found->drift_rule[0] = '\0';
    inv_verify_finding_done(inv, false);
}

#endif
