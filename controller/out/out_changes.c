/* out_changes.c - the agent's work brought back (docs/changes.md): once
 * the agent is gone and before the keeper and the workspace volume go,
 * the keeper's /work is read as Docker's archive and spooled to the state
 * disk (streamed: a few buffers in memory whatever its size), then a
 * worker thread compares it with the base manifest the upload wrote and
 * writes the change set beside the output (hostio/rc_changes.h). The
 * summary goes into status.result.changes.
 *
 * Crash safety: progress changesRead is recorded only once the set is
 * whole on disk, and the keeper is removed only after it, so a
 * controller killed anywhere in between reads the archive again on its
 * next start. */
#include "out_changes.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl_record.h"
#include "try_result.h"
#include "inv_status.h"
#include "log.h"
#include "rc_bg.h"
#include "rc_changes.h"

#define CHANGES_IDLE_MS  60000 /* the archive stalls this long: failed */
#define REFUSED_IN_STATUS 10   /* refused entries named in the status */

/* What the worker is given, and fills. */
struct build_arg {
    struct rc_changes_opts o;
    char *base, *after, *root, *source, *out;
    struct rc_changes_summary s;
};

/* ---- the outcome ------------------------------------------------------ */

static cJSON *
result_changes(struct ctl_inv *inv)
{
    cJSON *changes;

    if (inv->rec.result == NULL)
        inv->rec.result = cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(inv->rec.result, "changes");
    changes = cJSON_AddObjectToObject(inv->rec.result, "changes");
    inv->rec.dirty = true;
    return changes;
}

static enum ctl_step
done(struct ctl_inv *inv)
{
    char spool[4096];

    if (inv_changes_path(inv, ".changes.spool", spool, sizeof(spool), NULL) == 0)
        (void)unlink(spool);
    inv_changes_free(inv);
    ctl_record_set_done(&inv->rec, CTL_PROG_CHANGES_READ);
    return CTL_STEP_DONE;
}

/* The set cannot be had: the status and a Warning say why; cleanup goes
 * on (the workspace is not kept for it). */
static enum ctl_step
unavailable(struct ctl_inv *inv, const char *why)
{
    cJSON_AddStringToObject(result_changes(inv), "unavailable", why);
    inv_event(inv, true, "ChangesUnavailable",
              "the agent's changes to /work could not be kept: %s", why);
    return done(inv);
}

/* The first refused entries, from the set's JSON, into the status. */
static void
copy_refused(struct ctl_inv *inv, cJSON *changes, char *first, size_t size)
{
    char path[4096];
    FILE *f;
    char *text = NULL;
    size_t cap = 0;
    cJSON *j, *it, *list;
    int n = 0;

    first[0] = '\0';
    if (inv_changes_path(inv, ".changes.json", path, sizeof(path), NULL) == -1 ||
        (f = fopen(path, "re")) == NULL)
        return;
    j = getdelim(&text, &cap, '\0', f) > 0 ? cJSON_Parse(text) : NULL;
    fclose(f);
    free(text);
    list = cJSON_AddArrayToObject(changes, "refusedEntries");
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(j, "refused"))
    {
        if (n++ == 0)
            snprintf(first, size, "%s (%s)",
                     cJSON_GetStringValue(cJSON_GetObjectItem(it, "path")),
                     cJSON_GetStringValue(cJSON_GetObjectItem(it, "reason")));
        if (n <= REFUSED_IN_STATUS)
            cJSON_AddItemToArray(list, cJSON_Duplicate(it, 1));
    }
    cJSON_Delete(j);
}

static void
record(struct ctl_inv *inv, const struct rc_changes_summary *s, bool partial)
{
    cJSON *c = result_changes(inv);
    char first[600], sha[80];

    cJSON_AddNumberToObject(c, "added", (double)s->added);
    cJSON_AddNumberToObject(c, "modified", (double)s->modified);
    cJSON_AddNumberToObject(c, "deleted", (double)s->deleted);
    cJSON_AddNumberToObject(c, "modeChanged", (double)s->mode_changed);
    cJSON_AddNumberToObject(c, "notDiffed", (double)s->not_diffed);
    cJSON_AddNumberToObject(c, "refused", (double)s->refused);
    cJSON_AddNumberToObject(c, "bytes", (double)s->bytes);
    snprintf(sha, sizeof(sha), "sha256:%s", s->diff_sha256);
    cJSON_AddStringToObject(c, "diffSha256", sha);
    cJSON_AddBoolToObject(c, "partial", partial);
    cJSON_AddBoolToObject(c, "truncated", s->truncated);
    copy_refused(inv, c, first, sizeof(first));
    inv_event(inv, false, "ChangesKept",
              "%" PRIu64 " added, %" PRIu64 " modified, %" PRIu64
              " deleted, %" PRIu64 " mode changes (%" PRIu64 " bytes)%s; "
              "agentctl changes %s",
              s->added, s->modified, s->deleted, s->mode_changed, s->bytes,
              partial ? ", partial" : "", inv->name);
    if (s->refused > 0)
        inv_event(inv, true, "ChangesRefused",
                  "%" PRIu64 " entries of /work were refused and not kept, "
                  "the first: %s",
                  s->refused, first);
}

/* ---- the worker -------------------------------------------------------- */

static void
build_arg_free(void *p)
{
    struct build_arg *b = p;

    free(b->base);
    free(b->after);
    free(b->root);
    free(b->source);
    free(b->out);
    free(b);
}

static int
build(void *p, const int *cancel, struct err *e)
{
    struct build_arg *b = p;

    b->o.cancel = cancel;
    return rc_changes_build(&b->o, &b->s, e);
}

static void
on_built(struct ev_loop *loop, ev_io *io, int revents)
{
    struct inv_changes *c = container_of(io, struct inv_changes, io);
    struct ctl_inv *inv = c->inv;
    struct build_arg *b = rc_bg_arg(c->job);
    struct err e = { 0 };
    char buf[64];
    ssize_t n;

    (void)revents;
    n = read(rc_bg_fd(c->job), buf, sizeof(buf));
    if (n > 0 || (n == -1 && (errno == EAGAIN || errno == EINTR)))
        return;
    ev_io_stop(loop, io);
    if (rc_bg_result(c->job, &e) == 0) {
        record(inv, &b->s, b->o.partial);
        try_inv_settle(inv, done(inv));
        return;
    }
    try_inv_settle(inv, unavailable(inv, e.msg));
}

static int
build_start(struct ctl_inv *inv, struct err *e)
{
    const struct spec_invocation *s = inv->captured;
    struct inv_changes *c = inv->cleanup.changes;
    struct build_arg *b = calloc(1, sizeof(*b));
    char base[4096], after[4096], out[4096];

    if (b == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (inv_changes_base_path(inv, base, sizeof(base), e) == -1 ||
        inv_changes_path(inv, ".changes.spool", after, sizeof(after), e) == -1 ||
        inv_changes_path(inv, ".changes", out, sizeof(out), e) == -1) {
        free(b);
        return -1;
    }
    b->base = strdup(base);
    b->after = strdup(after);
    b->out = strdup(out);
    b->root = strdup(inv->ctl->cfg->workspace_root);
    b->source = strdup(s->workspace_source);
    if (b->base == NULL || b->after == NULL || b->out == NULL ||
        b->root == NULL || b->source == NULL) {
        build_arg_free(b);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    b->o = (struct rc_changes_opts){
        .base = b->base,
        .after = b->after,
        .root = b->root,
        .source = b->source,
        .out = b->out,
        .max_file_bytes = s->workspace_bytes,
        .max_total_bytes = s->workspace_bytes,
        .partial = inv->rec.phase != CTL_SUCCEEDED,
    };
    c->job = rc_bg_start(build, b, build_arg_free, e);
    if (c->job == NULL)
        return -1;
    ev_io_init(&c->io, on_built, rc_bg_fd(c->job), EV_READ);
    ev_io_start(inv->ctl->loop, &c->io);
    return 0;
}

/* ---- the archive ------------------------------------------------------- */

static void
on_data(struct dk_req *req, const char *data, size_t len, void *arg)
{
    struct ctl_inv *inv = arg;
    struct inv_changes *c = inv->cleanup.changes;

    (void)req;
    if (c == NULL || c->write_errno != 0)
        return;
    c->got += len;
    if (c->got > c->max)
        return; /* over: said when it ends */
    while (len > 0) {
        ssize_t w = write(c->fd, data, len);

        if (w == -1 && errno == EINTR)
            continue;
        if (w == -1) {
            c->write_errno = errno;
            return;
        }
        data += w;
        len -= (size_t)w;
    }
}

static enum ctl_step
on_archive(struct ctl_inv *inv, struct dk_response *r)
{
    struct inv_changes *c = inv->cleanup.changes;
    char why[400];
    struct err e;

    if (r->err != NULL && r->err->code == ERR_UNAVAIL) {
        inv_changes_free(inv);
        return try_step_failed(inv, r->err); /* the daemon: retried */
    }
    if (r->err != NULL) {
        snprintf(why, sizeof(why), "the keeper's /work could not be read: %s",
                 r->err->msg);
        return unavailable(inv, why);
    }
    if (c->write_errno != 0) {
        snprintf(why, sizeof(why), "the archive could not be spooled to the "
                 "state disk: %s", strerror(c->write_errno));
        return unavailable(inv, why);
    }
    if (c->got > c->max) {
        snprintf(why, sizeof(why), "the archive of /work passed %" PRIu64
                 " bytes, more than the workspace holds", c->max);
        return unavailable(inv, why);
    }
    if (fsync(c->fd) == -1 || close(c->fd) == -1) {
        c->fd = -1;
        snprintf(why, sizeof(why), "the archive could not be spooled to the "
                 "state disk: %s", strerror(errno));
        return unavailable(inv, why);
    }
    c->fd = -1;
    if (build_start(inv, &e) == -1)
        return unavailable(inv, e.msg);
    return CTL_STEP_STARTED;
}

enum ctl_step
out_changes_step(struct ctl_inv *inv)
{
    const struct spec_invocation *s = inv->captured;
    const char *keeper = ctl_record_role_id(&inv->rec, RC_ROLE_KEEPER);
    char spool[4096], base[4096];
    struct inv_changes *c;
    struct err e;

    if (inv_changes_base_path(inv, base, sizeof(base), &e) == -1 ||
        inv_changes_path(inv, ".changes.spool", spool, sizeof(spool), &e) == -1)
        return unavailable(inv, e.msg);
    if (access(base, R_OK) == -1)
        return unavailable(inv, "no base manifest: the workspace was "
                                "uploaded without one (an older version)");
    inv_changes_free(inv); /* a read an earlier try left */
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        err_set(&e, ERR_NOMEM, "out of memory");
        return try_step_failed(inv, &e);
    }
    c->inv = inv;
    c->max = s->workspace_bytes + s->workspace_inodes * 1536 + (1u << 20);
    c->fd = open(spool, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                 0600);
    inv->cleanup.changes = c;
    if (c->fd == -1) {
        err_sys(&e, "the spool %s", spool);
        return unavailable(inv, e.msg);
    }
    return try_step_request(
        inv, on_archive,
        dk_container_stream_archive(inv->ctl->dk, keeper, "/work",
                                    CHANGES_IDLE_MS, on_data,
                                    try_step_answered, inv, &e),
        &e);
}
