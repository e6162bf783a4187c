/* ctl_egress.h - the attempt's egress audit, read from its gateway's and
 * proxy's logs when its box is removed (ctl_egress.c). */
#ifndef CTL_EGRESS_H
#define CTL_EGRESS_H

#include "ctl.h"

/* The cleanup step PLAN_READ_EGRESS: read the logs, write the audit file
 * (store_egress_path), raise EgressAudit / VendorBudgetSpent, record
 * progress egressRead. A log Docker cannot give is a Warning event, never
 * a failed step; a daemon that cannot be reached is (it is retried). */
enum ctl_step ctl_egress_step(struct ctl_inv *inv);

/* Drop a read in progress. NULL-safe. */
void ctl_egress_free(struct ctl_inv *inv);

#endif
