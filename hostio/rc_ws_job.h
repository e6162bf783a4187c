/* rc_ws_job.h - the workspace check and tar off the controller's event
 * loop (docs/decisions.md "The workspace walk runs on a worker thread").
 *
 * A job is one worker thread that walks the tree with the rules of
 * rc_workspace.h: it checks <root>/<source> against the limits
 * (rc_workspace_check()) and, for an upload, then packs it
 * (rc_workspace_tar(), capped by rc_workspace_tar_max() of the check's
 * stats) into one end of a socket pair. The loop reads the other end, a
 * non-blocking descriptor: the archive's bytes (none for a check), then
 * end-of-file once the worker is done. The socket's buffer (at most
 * RC_WS_JOB_SOCKBUF bytes) is all the archive that is ever held, so an
 * 8 GiB workspace costs the controller what a small one does.
 *
 * Threads: the worker touches only the filesystem, its own copy of the
 * options and its end of the socket; the loop thread owns the job, the
 * other end, and everything else (libev, libcurl). The result is read
 * under a mutex after end-of-file.
 */
#ifndef RC_WS_JOB_H
#define RC_WS_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "rc_workspace.h"

/* The send buffer asked for on the worker's end of the socket pair (the
 * kernel may give less: net.core.wmem_max). */
#define RC_WS_JOB_SOCKBUF (256u * 1024)

struct rc_ws_job;

struct rc_ws_job_opts {
    const char *root;   /* the controller's workspaceRoot */
    const char *source; /* relative to root (rc_workspace_check()) */
    uint64_t max_bytes, max_inodes;
    bool tar;             /* false: check only; true: check, then tar */
    uid_t uid;            /* tar: owner of every entry */
    gid_t gid;
    const char *skip_top; /* tar: top-level name left out, or NULL */
    /* tar: digest the entries under this top-level directory (".git") as
     * they are written, the digest rc_workspace_tar_digest() would make
     * of the archive; NULL: none. */
    const char *digest_top;
    /* tar: write the change set's base manifest here (rc_changes.h),
     * committed when the archive is whole; NULL: none */
    const char *base_manifest;
    /* tar: wait this long before the walk, as a slow disk would (the
     * controller's test-hooks build only: AGENTCTL_TEST_SLOW_UPLOAD) */
    unsigned slow_ms;
};

/* Start the worker. The strings are copied. NULL with e (ERR_NOMEM,
 * ERR_IO) when it cannot start. */
struct rc_ws_job *rc_ws_job_start(const struct rc_ws_job_opts *o,
                                  struct err *e);

/* The loop's end: non-blocking, close-on-exec, owned by the job. Read
 * the archive from it (tar); end-of-file means the worker is done. */
int rc_ws_job_fd(const struct rc_ws_job *j);

/* The worker's outcome, once the fd said end-of-file: 0 with st (and
 * digest, NUL-terminated hex; "" when there was no digest_top) filled, or -1 with e holding the walk's error (rc_workspace.h's
 * classes: ERR_INVALID unsafe, ERR_LIMIT too large, ERR_CONFLICT changed
 * while read, ERR_IO/ERR_NOMEM). Before the worker is done: -1 with
 * ERR_IO. st and digest may be NULL. Never blocks. */
int rc_ws_job_result(struct rc_ws_job *j, struct rc_workspace_stats *st,
                     char digest[65], struct err *e);

/* The worker has written its outcome (its end may not be closed yet). */
bool rc_ws_job_done(struct rc_ws_job *j);

/* Stop and free. A worker still running is told to stop (its next write
 * fails, the tar checks a flag per entry and per chunk) and left to free
 * what it holds when it ends: this never waits for it. NULL is a no-op. */
void rc_ws_job_free(struct rc_ws_job *j);

#endif
