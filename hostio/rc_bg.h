/* rc_bg.h - one function run on a worker thread, off the controller's
 * loop, for work that reads or writes files for seconds (the change set
 * of a large workspace: rc_changes_build()). The loop watches a
 * descriptor that reaches end-of-file once the function returned, then
 * reads its outcome; it never waits for the thread.
 *
 * Threads: the worker runs fn(arg) and touches nothing else; the loop
 * owns the job. Freed while running, the job is cancelled (*cancel
 * becomes non-zero: fn should look at it between files and chunks) and
 * the worker frees it, and arg, when fn returns. */
#ifndef RC_BG_H
#define RC_BG_H

#include <stdbool.h>

#include "err.h"

typedef int rc_bg_fn(void *arg, const int *cancel, struct err *e);
typedef void rc_bg_free_fn(void *arg);

struct rc_bg;

/* Start fn(arg) on a thread; arg is the job's from now on, freed with
 * free_arg (may be NULL) when the job is. NULL with e (arg freed) when no
 * thread could start. */
struct rc_bg *rc_bg_start(rc_bg_fn *fn, void *arg, rc_bg_free_fn *free_arg,
                          struct err *e);

/* Non-blocking; end-of-file once fn returned. */
int rc_bg_fd(const struct rc_bg *j);

/* arg, for the loop to read what fn wrote once done. */
void *rc_bg_arg(const struct rc_bg *j);

/* fn's return (0, or -1 with e), once done; -1 with ERR_IO while it
 * runs. Never blocks. */
int rc_bg_result(struct rc_bg *j, struct err *e);

/* Cancel and free (see above). NULL is a no-op. */
void rc_bg_free(struct rc_bg *j);

#endif
