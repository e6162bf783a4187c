/* out_ws.c - the workspace check and upload as steps in flight (out_ws.h).
 *
 * The check: the worker walks the tree; its end of the socket closes when
 * it is done, an ev_io on ours sees end-of-file and hands the outcome to
 * the step's answer function, as a Docker reply would be.
 *
 * The upload: the worker checks, then packs into the socket; libcurl
 * reads our end as the request body (dk_body_stream: paused while the
 * socket is empty, resumed when it is readable), so at most the socket's
 * buffer of the archive is ever in memory. At end-of-file the worker's
 * outcome decides: a failed walk aborts the body (Docker never sees a
 * complete archive) and its error is the request's.
 */
#include "out_ws.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inv_changesjob.h"
#include "ctl_record.h"
#include "try_result.h"
#include "ctl_testhooks.h"
#include "inv_wsjob.h"
#include "rc_desired.h"

static struct inv_ws *
ws_start(struct ctl_inv *inv, const struct rc_ws_job_opts *o, struct err *e)
{
    struct inv_ws *w;

    inv_ws_free(inv); /* a worker of an earlier try */
    w = calloc(1, sizeof(*w));
    if (w == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    w->inv = inv;
    w->job = rc_ws_job_start(o, e);
    if (w->job == NULL) {
        free(w);
        return NULL;
    }
    inv->ws = w;
    return w;
}

/* ---- the check ---------------------------------------------------- */

static void
ws_on_checked(struct ev_loop *loop, ev_io *io, int revents)
{
    struct inv_ws *w = container_of(io, struct inv_ws, io);
    struct ctl_inv *inv = w->inv;
    struct dk_response r = { .body = "" };
    ctl_answer_fn *answer = w->answer;
    struct err e = { 0 };
    char c[256];
    ssize_t n;

    (void)revents;
    n = read(rc_ws_job_fd(w->job), c, sizeof(c));
    if (n == -1 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n > 0)
        return; /* a check sends nothing; wait for end-of-file */
    ev_io_stop(loop, io);
    if (n == -1)
        err_sys(&e, "workspace check");
    else if (rc_ws_job_result(w->job, NULL, NULL, &e) == 0)
        e.code = ERR_OK;
    r.err = e.code == ERR_OK ? NULL : &e;
    inv_ws_free(inv);
    try_inv_settle(inv, answer(inv, &r));
}

enum ctl_step
out_ws_check(struct ctl_inv *inv, ctl_answer_fn *answer)
{
    const struct spec_invocation *s = inv->spec;
    struct rc_ws_job_opts o = {
        .root = inv->ctl->cfg->workspace_root,
        .source = s->workspace_source,
        .max_bytes = s->workspace_bytes,
        .max_inodes = s->workspace_inodes,
    };
    struct inv_ws *w;
    struct err e;

    w = ws_start(inv, &o, &e);
    if (w == NULL)
        return try_step_failed(inv, &e);
    w->answer = answer;
    ev_io_init(&w->io, ws_on_checked, rc_ws_job_fd(w->job), EV_READ);
    ev_io_start(inv->ctl->loop, &w->io);
    return CTL_STEP_STARTED;
}

/* ---- the upload ------------------------------------------------------ */

/* dk_body_end_fn: the archive ended; it is whole only if the walk
 * succeeded. */
static int
ws_upload_end(void *arg, struct err *e)
{
    struct inv_ws *w = arg;

    return rc_ws_job_result(w->job, NULL, NULL, e);
}

enum ctl_step
out_ws_upload(struct ctl_inv *inv, ctl_answer_fn *answer)
{
    const struct spec_invocation *s = inv->captured;
    const struct cfg *cfg = inv->ctl->cfg;
    bool git = rc_desired_object(inv->desired, RC_ROLE_GIT) != NULL;
    /* .git lands on the git volume mounted under the keeper's /work; with
     * no git volume (no .git at capture) one that appeared since is left
     * out, never put where the agent could write it. */
    struct rc_ws_job_opts o = {
        .root = cfg->workspace_root,
        .source = s->workspace_source,
        .max_bytes = s->workspace_bytes,
        .max_inodes = s->workspace_inodes,
        .tar = true,
        .uid = inv->desired->agent_uid, /* the attempt's own (status.agentUser) */
        .gid = inv->desired->agent_gid,
        .skip_top = git ? NULL : ".git",
        .digest_top = git ? ".git" : NULL,
        .slow_ms = ctl_test_slow_upload_ms(),
    };
    struct dk_call call = { .timeout_ms = CTL_WS_UPLOAD_TIMEOUT_MS };
    struct dk_body_stream src = { .end = ws_upload_end };
    struct dk_req *req;
    struct inv_ws *w;
    struct err e;
    char base[4096];

    /* a phase that writes /work: what goes in is listed, for the change
     * set that comes back (out_changes.c) */
    if (spec_phase_writable(s->phase)) {
        if (inv_changes_base_path(inv, base, sizeof(base), &e) == -1)
            return try_step_failed(inv, &e);
        o.base_manifest = base;
    }
    w = ws_start(inv, &o, &e);
    if (w == NULL)
        return try_step_failed(inv, &e);
    src.fd = rc_ws_job_fd(w->job);
    src.arg = w;
    req = dk_container_put_archive_stream(
        inv->ctl->dk, ctl_record_role_id(&inv->rec, RC_ROLE_KEEPER), "/work",
        &src, &call, try_step_answered, inv, &e);
    if (req == NULL)
        inv_ws_free(inv);
    return try_step_request(inv, answer, req, &e);
}

int
out_ws_upload_outcome(const struct ctl_inv *inv, char digest[65],
                      struct err *e)
{
    struct err je = { 0 };

    if (inv->ws == NULL || !rc_ws_job_done(inv->ws->job))
        return 0;
    if (rc_ws_job_result(inv->ws->job, NULL, digest, &je) == 0)
        return 1;
    if (e != NULL)
        *e = je;
    return -1;
}
