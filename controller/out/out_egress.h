/* out_egress.h - the attempt's egress audit, followed from its gateway's
 * and proxy's logs while the attempt runs and finished when its box is
 * removed (out_egress.c; the state it keeps: inv_egressjob.h). */
#ifndef OUT_EGRESS_H
#define OUT_EGRESS_H

#include "ctl.h"

/* A pass of a live attempt (Preparing, Running): follow the log of each
 * audited container started so far and not followed yet (again after a
 * restart or a broken stream, from the recorded position). Lines reach
 * the file as they come; status.egress is updated with them and a pass
 * queued to write it. Never fails a step: a follow that cannot start is
 * logged and tried at the next pass. */
void out_egress_follow(struct ctl_inv *inv);

/* The cleanup step PLAN_READ_EGRESS: stop the follows, read each log
 * from its position to its end, complete the file, raise EgressAudit /
 * VendorBudgetSpent, record progress egressRead. A log Docker cannot
 * give is a Warning event, never a failed step; a daemon that cannot be
 * reached is (it is retried). */
enum ctl_step out_egress_step(struct ctl_inv *inv);

#endif
