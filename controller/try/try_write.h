/* try_write.h - the status writes of one loop iteration, grouped, sent
 * without blocking the loop.
 *
 * On a store that groups writes (etcd: store_groups_status()), the
 * status write that ends a pass joins the next group write, sent before
 * the loop next waits (an ev_prepare watcher) as one txn per 128 keys on
 * the store's own connection pool (store_status_write_many_async()): the
 * loop goes on serving /healthz, Docker's answers and events, timers and
 * other passes while etcd answers. One group is in flight at a time (two
 * txns of one name could otherwise land in either order); the next goes
 * after its answer.
 *
 * Record, then act: while the store groups, the Docker client holds
 * every request it is asked for (dk_hold(), docker/dk_client.c) and a
 * group lets go of those made before it was sent only when etcd has
 * answered it. A request a pass starts therefore leaves after the status
 * that pass wrote is on etcd, as it did when the write blocked. A group
 * that fails still lets its requests go (as before: the write was tried
 * first); the failed invocations' next pass fails with the error and
 * backs off, and their record goes again with the next write.
 *
 * A pass never runs while its invocation's status is in flight
 * (try_write_in_flight): its answer runs it again, so no blocking write
 * or delete of a pass races with the group. The write a pass makes
 * before its step (what the last answer taught) joins the group too
 * (try_write_first): the pass ends there and the group's answer runs it
 * again. Those writes go at most CTL_WRITE_GROUP per group, oldest first.
 * An event made outside a pass (a step's answer) joins the group as
 * well, through ctl->join_group, which try_write_start() sets for
 * inv_status.c. The claims and releases go on their own txn
 * (try_claim_send); a release waits until its invocation's status is
 * written (try_claim_after_pass). Elsewhere (the directory store) the
 * end of a pass writes at once, as inv_status_flush() does, and nothing
 * is held. */
#ifndef TRY_WRITE_H
#define TRY_WRITE_H

#include "ctl.h"

/* Writes that passes wait for (try_write_first) one loop iteration sends,
 * at most, beside the statuses that ended passes (those always go): a
 * bulk's thousand passes cost the loop one txn of about 128 keys per
 * iteration, with its other watchers (/healthz, Docker's answers and
 * events, timers) served in between, instead of one long stretch. */
#define CTL_WRITE_GROUP 32

/* The status write that ends a pass: joins the group write, or (not
 * grouping) inv_status_flush(). */
int try_write_end(struct ctl_inv *inv, struct err *e);
/* Its status is in the group etcd has not answered: true, and the answer
 * runs a pass again. */
bool try_write_in_flight(struct ctl_inv *inv);
/* The same, also when its status is queued for the next group. */
bool try_write_waits(struct ctl_inv *inv);
/* The write a pass makes before its step, on a grouping store: 1 when
 * the record joins the group write and the pass ends (the group's answer
 * runs it again: record, then act); -1 with e when the last group write
 * of it failed (the pass's outcome, with backoff); 0: go on (the store
 * does not group, or nothing is pending). */
int try_write_first(struct ctl_inv *inv, struct err *e);
/* An invocation goes: its place in the group is given up and what it
 * still had to write is written now. */
void try_write_unqueue(struct ctl_inv *inv);
/* The group write's watcher and the Docker client's hold; stop waits
 * for the group in flight and writes what is still queued. */
void try_write_start(struct ctl *c);
void try_write_stop(struct ctl *c);

#endif
