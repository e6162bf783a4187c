/* ctl_changes.h - the agent's work brought back before its storage goes
 * (ctl_changes.c, docs/changes.md). */
#ifndef CTL_CHANGES_H
#define CTL_CHANGES_H

#include <stdbool.h>

#include "ctl.h"

/* The attempt's agent ran in a phase that writes /work (execute, fix)
 * with a workspace: its change set is read at cleanup. */
bool ctl_changes_wanted(const struct ctl_inv *inv);

/* Where the workspace upload writes the base manifest (the path of
 * <output>.changes.base), or -1 with e. */
int ctl_changes_base_path(const struct ctl_inv *inv, char *path, size_t size,
                          struct err *e);

/* The cleanup step PLAN_READ_CHANGES: stream the keeper's /work to the
 * state disk, build the change set on a worker thread, record
 * status.result.changes and progress changesRead, raise ChangesKept (and
 * ChangesRefused). A keeper Docker no longer has is recorded as
 * unavailable; a daemon that cannot be reached fails the step (retried). */
enum ctl_step ctl_changes_step(struct ctl_inv *inv);

/* The worker is building the set: the pass waits for it. */
bool ctl_changes_in_flight(const struct ctl_inv *inv);

/* Drop a read or build in progress (the worker is cancelled and frees
 * itself). NULL-safe. */
void ctl_changes_free(struct ctl_inv *inv);

/* A new attempt, or a deleted invocation: the last change set goes. */
void ctl_changes_forget(struct ctl_inv *inv);

#endif
