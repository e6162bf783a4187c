/* loop_sync.h - specs from the store into invocations (loop_sync.c). */
#ifndef LOOP_SYNC_H
#define LOOP_SYNC_H

#include "ctl.h"

int loop_sync_start(struct ctl *c, struct err *e);
void loop_sync_stop(struct ctl *c);
/* Re-read every spec and status from the store; create, update or mark
 * deleted the invocations, and queue a pass for each. */
void loop_sync_all(struct ctl *c);
/* Queue a pass with the live state checked for every known invocation,
 * from memory: no store request. */
void loop_sync_requeue(struct ctl *c);

#endif
