/* ctl_write.h - the status writes of one loop iteration, grouped.
 *
 * On a store that groups writes (etcd: store_groups_status()), the
 * status write that ends a pass joins the iteration's group write, sent
 * before the loop next waits (an ev_prepare watcher): one txn per 128
 * keys instead of one request per invocation. That is before any request
 * the pass queued goes out and before the next pass of any invocation,
 * so what a status records still reaches the store before the next step
 * acts on it (the Docker client sends only from the loop's own I/O and
 * timer callbacks: curl multi driven by libev, docker/dk_client.c). A
 * failed write queues a pass, whose first write (blocking,
 * ctl_status_flush) reports it as a step. Then the claims and releases
 * the iteration's passes asked for go (ctl_claim_send), so a release
 * follows the status that ended the work. Elsewhere (the directory
 * store) the end of a pass writes at once, as ctl_status_flush() does.
 *
 * The write a pass makes before its step (what the last answer taught)
 * joins the group too (ctl_write_first): the pass ends there and the
 * group's answer runs it again, so it acts only on a record that is on
 * etcd. Those writes go at most CTL_WRITE_GROUP per iteration, oldest
 * first; the loop does not wait while some are left. An event made
 * outside a pass (a step's answer) joins the group as well, through
 * ctl->join_group, which ctl_write_start() sets for ctl_status.c. */
#ifndef CTL_WRITE_H
#define CTL_WRITE_H

#include "ctl.h"

/* Writes that passes wait for (ctl_write_first) one loop iteration sends,
 * at most, beside the statuses that ended passes (those always go): a
 * bulk's thousand passes cost the loop one txn of about 128 keys per
 * iteration, with its other watchers (/healthz, Docker's answers and
 * events, timers) served in between, instead of one long stretch. */
#define CTL_WRITE_GROUP 32

/* The status write that ends a pass: joins the group write, or (not
 * grouping) ctl_status_flush(). */
int ctl_write_end(struct ctl_inv *inv, struct err *e);
/* The write a pass makes before its step, on a grouping store: the
 * record joins the group write and the pass ends; the group's answer
 * runs it again (record, then act, with one txn for every pass of the
 * iteration instead of a blocking request each). false: write it now
 * (ctl_status_flush): the store does not group, nothing is pending, or
 * the last group write of it failed (the flush reports the failure as a
 * step, with backoff). */
bool ctl_write_first(struct ctl_inv *inv);
/* An invocation goes: its place in the group is given up and what it
 * still had to write is written now. */
void ctl_write_unqueue(struct ctl_inv *inv);
/* The group write's watcher; stop writes what is still queued. */
void ctl_write_start(struct ctl *c);
void ctl_write_stop(struct ctl *c);

#endif
