/* out_changes.h - the agent's work brought back before its storage goes
 * (out_changes.c, docs/changes.md); what the controller holds of a read
 * is inv_changesjob.h. */
#ifndef OUT_CHANGES_H
#define OUT_CHANGES_H

#include "ctl.h"
#include "inv_changesjob.h"

/* The cleanup step PLAN_READ_CHANGES: stream the keeper's /work to the
 * state disk, build the change set on a worker thread, record
 * status.result.changes and progress changesRead, raise ChangesKept (and
 * ChangesRefused). A keeper Docker no longer has is recorded as
 * unavailable; a daemon that cannot be reached fails the step (retried). */
enum ctl_step out_changes_step(struct ctl_inv *inv);

#endif
