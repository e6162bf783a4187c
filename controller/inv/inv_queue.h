/* inv_queue.h - the invocations this controller knows, and the work
 * queue that runs their passes: one timer per invocation, so a pass is
 * queued at most once and an earlier one is never postponed. The pass
 * itself is the function inv_queue_init() was given (pass_inv_pass); the
 * queue knows nothing of what it does. */
#ifndef INV_QUEUE_H
#define INV_QUEUE_H

#include "ctl.h"

typedef void inv_pass_fn(struct ctl_inv *inv);

/* Seconds of passes one loop iteration runs before the rest wait for the
 * next in a first-in first-out backlog (I/O and timers are served
 * between): the longest a bulk of due passes delays the watch, /healthz
 * or a running agent's deadline. */
#define CTL_PASS_SLICE 0.05

/* Set the pass every queued invocation runs. */
void inv_queue_init(struct ctl *c, inv_pass_fn *pass);

/* Put a new invocation on the list, its pass not yet queued. */
void inv_link(struct ctl *c, struct ctl_inv *inv);
struct ctl_inv *inv_find(struct ctl *c, const char *name);
/* The invocation whose status records this uid (Docker labels carry it). */
struct ctl_inv *inv_by_uid(struct ctl *c, const char *uid);
/* Unlink and free an invocation (pass_inv_forget() seals its output
 * first). */
void inv_remove(struct ctl_inv *inv);
/* true when no invocation has work pending (for --once); never while
 * the daemon has not answered and there are invocations. */
bool inv_idle(const struct ctl *c);
/* --once, at each resync: true (the loop is ended, exit status 1) when
 * the daemon or the store's first list has not answered for
 * CTL_ONCE_STALLS resync periods in a row. */
#define CTL_ONCE_STALLS 3
bool inv_once_gave_up(struct ctl *c);

/* Whether a step request of inv is in flight on any of its lanes, or its
 * workspace check: an answer will settle the invocation. */
bool inv_in_flight(const struct ctl_inv *inv);

/* Queue a pass after `after` seconds, unless one is due sooner. */
void inv_kick(struct ctl_inv *inv, double after);
/* Queue the pass after exactly `after` seconds (a backoff:
 * try_result.c alone). */
void inv_requeue(struct ctl_inv *inv, double after);
/* Something may have changed (a Docker event, a spec change, the daemon
 * back): a revalidation round and a pass now. A round under way ends
 * with one more, since what changed may be newer than an answer it has
 * checked. */
void inv_revalidate(struct ctl_inv *inv);
/* The resync tick: a round due and a pass now. A round under way is
 * round enough: the tick reports no change of its own. */
void inv_resync(struct ctl_inv *inv);

#endif
