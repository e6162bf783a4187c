/* inv_stop.h - ending an attempt. Any module may decide a stop (deadline,
 * cancel, drift, a breach, a lost lease); the first reason recorded is
 * the one kept, and the next pass kills and cleans up. */
#ifndef INV_STOP_H
#define INV_STOP_H

#include "ctl.h"

/* Record the stop (phase, stopReason, Ready=False, an event), detach from
 * the agent and queue a pass. A second stop is ignored. */
void inv_stop(struct ctl_inv *inv, enum ctl_phase phase,
              enum ctl_stop_reason why, const char *message);
/* Stop with agent-lost: the daemon was unreachable while the agent ran. */
void inv_stop_lost(struct ctl_inv *inv);
/* Stop following the agent (logs, wait) and seal what was captured. */
void inv_stop_detach(struct ctl_inv *inv);
/* Close and free the output capture if one is open (inv->run.out), filling
 * r when not NULL. 0, or -1 with e when the last write failed. */
int inv_output_close(struct ctl_inv *inv, struct rc_output_result *r,
                     struct err *e);

#endif
