/* box_pool.h - the warm pool: boxes (an internal network, a started proxy,
 * a passed boundary probe) made ahead per vendor and handed to exactly
 * one invocation each (box_pool.c, docs/warm-pool.md). */
#ifndef BOX_POOL_H
#define BOX_POOL_H

#include "ctl.h"

/* Boxes of the pool being built at once, at most. */
#define CTL_POOL_BUILDING 2

/* Arm the pool's timer (off with --once); the first fill runs at once. */
void box_pool_start(struct ctl *c);
/* Stop it and forget the boxes still there (a drain that ran out of
 * time, a second signal, a kill): left on the daemon for the next start's
 * garbage collection; the pool document goes. */
void box_pool_stop(struct ctl *c);
/* A clean stop (SIGTERM, SIGINT): remove every box first, the loop ended
 * once they are gone or after CTL_POOL_STOP_DRAIN_S. false when the pool
 * holds none (nothing to wait for). c->stopping must be set. */
#define CTL_POOL_STOP_DRAIN_S 10.0
bool box_pool_drain_for_stop(struct ctl *c);
/* Start boxes until each vendor of warmPool has its count, building at
 * most CTL_POOL_BUILDING at a time; none while an invocation's box is
 * being built (try_build.c), the daemon is down or after a failure's
 * backoff. */
void box_pool_fill(struct ctl *c);
/* Remove every box (a config reload: what they were built from may have
 * changed); the next fill makes new ones. */
void box_pool_drain(struct ctl *c, const char *why);

/* Give the invocation (captured, nothing of its box made yet) a ready box
 * of its vendor: recorded in its status (status.box, the network and proxy
 * IDs, their progress, BoundaryVerified reason WarmBox) and revalidated by
 * a round before its next step. false when the pool has none (the
 * invocation builds its own). */
bool box_pool_hand_over(struct ctl_inv *inv);

/* A box of the pool has this uid (garbage collection keeps its objects). */
bool box_pool_holds(const struct ctl *c, const char *uid);
/* A Docker event about a box (its uid label, or the ID of its network or
 * proxy): a waiting box is inspected again. */
void box_pool_event(struct ctl *c, const char *uid, const char *id);

#endif
