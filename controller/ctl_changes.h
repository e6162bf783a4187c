/* ctl_changes.h - the agent's work brought back before its storage goes
 * (ctl_changes.c, docs/changes.md); what the controller holds of a read
 * is ctl_changesjob.h. */
#ifndef CTL_CHANGES_H
#define CTL_CHANGES_H

#include "ctl.h"
#include "ctl_changesjob.h"

/* The cleanup step PLAN_READ_CHANGES: stream the keeper's /work to the
 * state disk, build the change set on a worker thread, record
 * status.result.changes and progress changesRead, raise ChangesKept (and
 * ChangesRefused). A keeper Docker no longer has is recorded as
 * unavailable; a daemon that cannot be reached fails the step (retried). */
enum ctl_step ctl_changes_step(struct ctl_inv *inv);

#endif
