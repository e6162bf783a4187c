/* ctl_queue.h - the invocations this controller knows, and the work
 * queue that runs their passes: one timer per invocation, so a pass is
 * queued at most once and an earlier one is never postponed. The pass
 * itself is the function ctl_queue_init() was given (ctl_inv_pass); the
 * queue knows nothing of what it does. */
#ifndef CTL_QUEUE_H
#define CTL_QUEUE_H

#include "ctl.h"

typedef void ctl_pass_fn(struct ctl_inv *inv);

/* Seconds of passes one loop iteration runs before the rest wait for the
 * next in a first-in first-out backlog (I/O and timers are served
 * between): the longest a bulk of due passes delays the watch, /healthz
 * or a running agent's deadline. */
#define CTL_PASS_SLICE 0.05

/* Set the pass every queued invocation runs. */
void ctl_queue_init(struct ctl *c, ctl_pass_fn *pass);

/* Put a new invocation on the list, its pass not yet queued. */
void ctl_inv_link(struct ctl *c, struct ctl_inv *inv);
struct ctl_inv *ctl_inv_find(struct ctl *c, const char *name);
/* The invocation whose status records this uid (Docker labels carry it). */
struct ctl_inv *ctl_inv_by_uid(struct ctl *c, const char *uid);
/* Unlink and free an invocation (ctl_inv_forget() seals its output
 * first). */
void ctl_inv_remove(struct ctl_inv *inv);
/* true when no invocation has work pending (for --once); never while
 * the daemon has not answered and there are invocations. */
bool ctl_idle(const struct ctl *c);
/* --once, at each resync: true (the loop is ended, exit status 1) when
 * the daemon or the store's first list has not answered for
 * CTL_ONCE_STALLS resync periods in a row. */
#define CTL_ONCE_STALLS 3
bool ctl_once_gave_up(struct ctl *c);

/* Whether a step request of inv is in flight on any of its lanes, or its
 * workspace check: an answer will settle the invocation. */
bool ctl_inv_in_flight(const struct ctl_inv *inv);

/* Queue a pass after `after` seconds, unless one is due sooner. */
void ctl_inv_kick(struct ctl_inv *inv, double after);
/* Queue the pass after exactly `after` seconds (a backoff:
 * ctl_result.c alone). */
void ctl_inv_requeue(struct ctl_inv *inv, double after);
/* Something may have changed (a Docker event, a spec change, the daemon
 * back): a revalidation round and a pass now. A round under way ends
 * with one more, since what changed may be newer than an answer it has
 * checked. */
void ctl_inv_revalidate(struct ctl_inv *inv);
/* The resync tick: a round due and a pass now. A round under way is
 * round enough: the tick reports no change of its own. */
void ctl_inv_resync(struct ctl_inv *inv);

#endif
