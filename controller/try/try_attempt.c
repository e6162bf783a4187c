/* try_attempt.c - what an attempt holds in memory (the desired objects,
 * the captured spec, the credential, the deadline timer), the one reset
 * that starts it over, and the subnet it runs on (try_attempt.h). */
#include "try_attempt.h"

#include "inv_egressjob.h"
#include "inv_probing.h"
#include "ctl_record.h"
#include "inv_stop.h"
#include "inv_verify_part.h"
#include "rc_credential.h"
#include "rc_desired.h"

/* Taken by another live attempt, or by a box of the warm pool
 * (box_pool.c; a box handed is recorded by its invocation). */
static bool
subnet_taken(const struct ctl *c, const struct ctl_inv *self, long index)
{
    for (const struct ctl_inv *i = c->invs; i != NULL; i = i->next) {
        if (i != self && i->rec.has_subnet && i->rec.subnet_index == index &&
            !ctl_phase_terminal(i->rec.phase))
            return true;
    }
    for (const struct ctl_box *b = c->boxes; b != NULL; b = b->next)
        if (b->subnet == index)
            return true;
    return false;
}

/* Another owner on the daemon is found at network create (403 overlap),
 * and then the next index is tried. */
long
try_subnet_alloc_for(const struct ctl *c, const struct ctl_inv *self, long from)
{
    long max = 1L << (24 - c->cfg->pool_prefix);

    for (long i = from; i < max; i++)
        if (!subnet_taken(c, self, i))
            return i;
    return -1;
}

long
try_subnet_alloc(const struct ctl_inv *inv, long from)
{
    return try_subnet_alloc_for(inv->ctl, inv, from);
}

void
try_attempt_set_subnet(struct ctl_inv *inv, long index)
{
    char user[RC_USER_MAX];

    ctl_record_set_subnet(&inv->rec, index);
    /* an index outside the pool fails the desired build, which names it */
    if (index >= 0 &&
        rc_agent_user_for(inv->ctl->cfg, (unsigned)index, user, NULL) == 0)
        ctl_record_set_str(&inv->rec, &inv->rec.agent_user, user);
}

/* Docker says the subnet overlaps a network that is not this attempt's
 * (box_network.c listed ours first): take the next free index of the pool
 * (nothing exists yet, the network comes first). */
enum ctl_step
try_attempt_next_subnet(struct ctl_inv *inv)
{
    const struct ctl_record *rec = &inv->rec;
    long next =
        try_subnet_alloc(inv, rec->has_subnet ? rec->subnet_index + 1 : 0);

    if (next < 0) {
        inv_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED,
                 "no free /24 left in subnetPool");
        return CTL_STEP_DONE;
    }
    try_attempt_set_subnet(inv, next);
    try_inv_reset_attempt(inv, CTL_RESET_SUBNET);
    return CTL_STEP_DONE;
}

/* What was built in memory from the capture; the next pass builds it
 * again from the record. */
static void
forget_built(struct ctl_inv *inv, bool capture_too)
{
    rc_desired_free(inv->desired);
    inv->desired = NULL;
    if (!capture_too)
        return;
    spec_invocation_free(inv->captured);
    inv->captured = NULL;
    rc_credential_free(inv->credential);
    inv->credential = NULL;
    ev_timer_stop(inv->ctl->loop, &inv->deadline);
    inv_probing_reset(inv);
    inv_egress_free(inv); /* a read half done belongs to the old record */
}

/* Every start-over of an attempt, by kind:
 *
 * NEW_ATTEMPT: the previous attempt is finished and cleaned, the spec
 *   names an unused attempt ID. Everything built for it goes (desired,
 *   captured spec, credential, deadline and canary timers) and the record
 * forgets its run (ctl_record_reset_attempt: stop reason, times, exit code,
 * output, progress, capture, subnet, git); the ID stays in usedAttempts, the
 *   conditions, stand-ins and events stay as history.
 * CLAIMED: the record was just read back from the store, written by
 *   another controller (or by us before the claim lapsed): what this one
 *   built from an older record is stale; the record is not touched.
 * SUBNET: the subnet overlapped a foreign network before anything
 *   existed, or a warm box was recorded (box_pool.c); only the desired
 *   objects (which carry the subnet and the box's identity) are rebuilt
 *   from the record, the capture stays.
 * REPAIR: drift before the start tore every object down. The same attempt
 *   (capture, subnet, credential) is built again from the network up, so
 *   only the one-off actions (record progress) and the checks made on the
 *   old objects are forgotten. Not a new attempt: nothing else changes. */
void
try_inv_reset_attempt(struct ctl_inv *inv, enum try_reset what)
{
    inv_verify_reset(inv); /* a round of its own before the start */
    switch (what) {
    case CTL_RESET_NEW_ATTEMPT:
        forget_built(inv, true);
        ctl_record_reset_attempt(&inv->rec);
        break;
    case CTL_RESET_CLAIMED:
        forget_built(inv, true);
        break;
    case CTL_RESET_SUBNET:
        forget_built(inv, false);
        break;
    case CTL_RESET_REPAIR:
        /* a warm box that drifted is gone with the rest: the attempt
         * builds a box of its own under its own names */
        if (inv->rec.box != NULL) {
            ctl_record_set_box(&inv->rec, NULL);
            forget_built(inv, false);
        }
        inv->verify.repairing = false;
        inv->verify.resumed = false; /* the rebuild is this process's own */
        inv->net.egress_checked = false;
        inv->verify.start_checked = false;
        inv->cleanup.swept = false;
        inv_probing_reset(inv);
        ctl_record_reset_progress(&inv->rec);
        /* the old network went by ID; the rebuild's creates are new, and
         * a network with our labels found before them is not ours */
        ctl_record_set_str(&inv->rec, &inv->rec.network_pending, NULL);
        break;
    }
}

bool
try_inv_load_captured(struct ctl_inv *inv)
{
    struct spec_invocation *s;

    if (inv->captured != NULL)
        return true;
    /* the spec this controller captured, or the status's parsed once (a
     * restart, a claim): an invocation that never captured has none */
    s = ctl_record_captured_spec(&inv->rec);
    inv->captured = s != NULL ? spec_invocation_ref(s) : NULL;
    return inv->captured != NULL;
}
