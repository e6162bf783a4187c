/* inv_changesjob.h - an invocation's change-set read as the controller
 * holds it (inv_changesjob.c): wanted or not, its files, its worker in
 * flight or not, stopped, freed and forgotten. Below ctl_result and
 * ctl_queue, which ask and free; the steps that read the set are
 * out_changes.h. */
#ifndef INV_CHANGESJOB_H
#define INV_CHANGESJOB_H

#include <stdbool.h>
#include <stdint.h>

#include "ctl.h"

struct rc_bg;

/* A read in progress (inv->cleanup.changes). */
struct inv_changes {
    struct ctl_inv *inv;
    int fd;          /* the spool, while the archive comes */
    uint64_t got, max;
    int write_errno; /* the spool could not be written */
    struct rc_bg *job;
    ev_io io;
};

/* The attempt's agent ran in a phase that writes /work (execute, fix)
 * with a workspace: its change set is read at cleanup. */
bool inv_changes_wanted(const struct ctl_inv *inv);

/* output/<name><ext> of the invocation (store_beside_output). */
int inv_changes_path(const struct ctl_inv *inv, const char *ext, char *path,
                     size_t size, struct err *e);

/* Where the workspace upload writes the base manifest (the path of
 * <output>.changes.base), or -1 with e. */
int inv_changes_base_path(const struct ctl_inv *inv, char *path, size_t size,
                          struct err *e);

/* The worker is building the set: the pass waits for it. */
bool inv_changes_in_flight(const struct ctl_inv *inv);

/* Drop a read or build in progress (the worker is cancelled and frees
 * itself). NULL-safe. */
void inv_changes_free(struct ctl_inv *inv);

/* A new attempt, or a deleted invocation: the last change set goes. */
void inv_changes_forget(struct ctl_inv *inv);

#endif
