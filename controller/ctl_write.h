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
 * store) the end of a pass writes at once, as ctl_status_flush() does. */
#ifndef CTL_WRITE_H
#define CTL_WRITE_H

#include "ctl.h"

/* The status write that ends a pass: joins the group write, or (not
 * grouping) ctl_status_flush(). */
int ctl_write_end(struct ctl_inv *inv, struct err *e);
/* An invocation goes: its place in the group is given up and what it
 * still had to write is written now. */
void ctl_write_unqueue(struct ctl_inv *inv);
/* The group write's watcher; stop writes what is still queued. */
void ctl_write_start(struct ctl *c);
void ctl_write_stop(struct ctl *c);

#endif
