/* try_claim.h - claims on a store that has them, etcd (try_claim.c). */
#ifndef TRY_CLAIM_H
#define TRY_CLAIM_H

#include "ctl.h"

void try_claim_start(struct ctl *c);
void try_claim_stop(struct ctl *c);
/* At the start of a pass: true when this controller may act on inv
 * (it holds the claim, or the store has no claims). */
bool try_claim_gate(struct ctl_inv *inv);
/* After a pass's status write: release a claim whose work is done. */
void try_claim_after_pass(struct ctl_inv *inv);

/* Claims and releases asked for since the last call, the oldest
 * CTL_CLAIM_GROUP names as one etcd txn sent without blocking (a bulk of
 * 1,000 new names is 16 txns, one after the other's answer, while the
 * loop serves everything else); called by the loop iteration's group
 * write (try_write.c) after the statuses. Nothing while the last group
 * is unanswered. A claim won queues the invocation's pass. At the
 * controller's stop what is queued or unanswered is dropped
 * (try_claim_stop): the lease's expiry frees those names. */
#define CTL_CLAIM_GROUP 64 /* distinct names per txn */
void try_claim_send(struct ctl *c);
/* Claims wait and none is unanswered: the next group can go now. */
bool try_claim_ready(const struct ctl *c);
/* inv is being freed: a request of its still goes, but answers nobody. */
void try_claim_forget(struct ctl_inv *inv);

/* etcd could not be reached (or did not answer in time): /healthz says
 * so until the next request that reaches it (other codes: nothing). */
void try_store_trouble(struct ctl *c, const struct err *e);

#endif
