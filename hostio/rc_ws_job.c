/* rc_ws_job.c - the workspace check and tar on a worker thread, the
 * archive handed to the loop through a socket pair (rc_ws_job.h).
 *
 * Why a thread and a socket pair, not a tar writer the loop drives in
 * steps: the walk (openat, fstatat, readdir, read) blocks in the kernel
 * however it is cut into steps, and libarchive writes through a callback
 * that cannot return "later"; an incremental writer would need the walk
 * and libarchive turned inside out. A thread runs the same walk code as
 * before, unchanged, so every rule of rc_workspace.h holds as it did;
 * the socket's buffer bounds memory and blocks the worker (never the
 * loop) when the upload is slower than the disk; a socket (not a pipe)
 * so that a write after the loop went away fails with EPIPE instead of
 * raising SIGPIPE (send(MSG_NOSIGNAL)). */
#include "rc_ws_job.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rc_workspace_int.h"

struct rc_ws_job {
    pthread_t th;
    int rfd;    /* the loop's end */
    int wfd;    /* the worker's end; closed by the worker when done */
    int cancel; /* set by rc_ws_job_free() (atomic) */
    /* the worker's copy of the options */
    char *root, *source, *skip_top, *digest_top, *base_manifest;
    uint64_t max_bytes, max_inodes;
    bool tar;
    unsigned slow_ms;
    uid_t uid;
    gid_t gid;
    /* under mu: the outcome, and who frees */
    pthread_mutex_t mu;
    bool done;   /* the worker wrote its outcome */
    bool orphan; /* freed while running: the worker frees the job */
    int rc;
    struct err err;
    struct rc_workspace_stats st;
    char digest[65];
};

static void
job_destroy(struct rc_ws_job *j)
{
    if (j->wfd != -1)
        close(j->wfd);
    if (j->rfd != -1)
        close(j->rfd);
    pthread_mutex_destroy(&j->mu);
    free(j->root);
    free(j->source);
    free(j->skip_top);
    free(j->digest_top);
    free(j->base_manifest);
    free(j);
}

/* rc__ws_out_fn: the archive into the socket, blocking until the loop
 * has read enough (the bound on memory). */
static int
job_send(const void *p, size_t n, void *arg, struct err *e)
{
    struct rc_ws_job *j = arg;
    const char *c = p;
    ssize_t w;

    while (n > 0) {
        w = send(j->wfd, c, n, MSG_NOSIGNAL);
        if (w == -1 && errno == EINTR)
            continue;
        if (w == -1)
            return err_sys(e, "workspace upload stream");
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int
job_tar(struct rc_ws_job *j, struct err *e)
{
    struct rc__ws_tar_opts o = {
        .uid = j->uid,
        .gid = j->gid,
        .skip_top = j->skip_top,
        .max_bytes = rc_workspace_tar_max(&j->st),
        .out = job_send,
        .out_arg = j,
        .digest_top = j->digest_top,
        .cancel = &j->cancel,
    };
    int rc = -1;

    if (j->digest_top != NULL && (o.digest = rc__git_list_new()) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (j->base_manifest != NULL &&
        (o.base = rc_changes_base_open(j->base_manifest, e)) == NULL) {
        rc__git_list_free(o.digest);
        return -1;
    }
    if (rc__ws_tar_run(j->root, j->source, &o, e) == 0 &&
        (o.digest == NULL || rc__git_list_digest(o.digest, j->digest, e) == 0))
        rc = 0;
    if (o.base != NULL && rc == 0)
        rc = rc_changes_base_close(o.base, e);
    else
        rc_changes_base_abort(o.base);
    rc__git_list_free(o.digest);
    return rc;
}

/* The test-hooks build's slow disk: 50 ms naps until slow_ms have passed
 * or the job is freed. */
static void
job_slow(struct rc_ws_job *j)
{
    const struct timespec nap = { 0, 50 * 1000 * 1000 };

    for (unsigned t = 0;
         t < j->slow_ms && !__atomic_load_n(&j->cancel, __ATOMIC_SEQ_CST);
         t += 50)
        nanosleep(&nap, NULL);
}

static void *
job_main(void *arg)
{
    struct rc_ws_job *j = arg;
    struct err e = { 0 };
    int rc, wfd = j->wfd;
    bool orphan;

    if (j->tar && j->slow_ms > 0)
        job_slow(j);
    rc = rc_workspace_check(j->root, j->source, j->max_bytes, j->max_inodes,
                            &j->st, &e);
    if (rc == 0 && j->tar)
        rc = job_tar(j, &e);
    pthread_mutex_lock(&j->mu);
    j->rc = rc;
    j->err = e;
    j->done = true;
    j->wfd = -1;
    orphan = j->orphan;
    pthread_mutex_unlock(&j->mu);
    /* Last: end-of-file tells the loop the outcome is there. A job still
     * owned is not touched after the unlock (the owner may free it once
     * it joined us); an orphan is ours to free. */
    close(wfd);
    if (orphan)
        job_destroy(j);
    return NULL;
}

static int
job_copy(char **dst, const char *src)
{
    if (src == NULL)
        return 0;
    *dst = strdup(src);
    return *dst == NULL ? -1 : 0;
}

/* The socket pair: the loop's end non-blocking, the worker's blocking,
 * both with a bounded buffer. */
static int
job_socket(struct rc_ws_job *j, struct err *e)
{
    int sv[2], size = (int)RC_WS_JOB_SOCKBUF;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
        return err_sys(e, "workspace job: socketpair");
    j->rfd = sv[0];
    j->wfd = sv[1];
    /* best effort: the kernel's defaults bound it too */
    (void)setsockopt(j->wfd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
    (void)setsockopt(j->rfd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    if (shutdown(j->rfd, SHUT_WR) == -1 || shutdown(j->wfd, SHUT_RD) == -1 ||
        fcntl(j->rfd, F_SETFL, fcntl(j->rfd, F_GETFL) | O_NONBLOCK) == -1)
        return err_sys(e, "workspace job: socket setup");
    return 0;
}

struct rc_ws_job *
rc_ws_job_start(const struct rc_ws_job_opts *o, struct err *e)
{
    struct rc_ws_job *j = calloc(1, sizeof(*j));
    sigset_t all, old;
    int rc;

    if (j == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    j->rfd = j->wfd = -1;
    pthread_mutex_init(&j->mu, NULL);
    if (job_copy(&j->root, o->root) == -1 ||
        job_copy(&j->source, o->source) == -1 ||
        job_copy(&j->skip_top, o->skip_top) == -1 ||
        job_copy(&j->digest_top, o->tar ? o->digest_top : NULL) == -1 ||
        job_copy(&j->base_manifest, o->tar ? o->base_manifest : NULL) == -1) {
        err_set(e, ERR_NOMEM, "out of memory");
        job_destroy(j);
        return NULL;
    }
    j->max_bytes = o->max_bytes;
    j->max_inodes = o->max_inodes;
    j->tar = o->tar;
    j->slow_ms = o->slow_ms;
    j->uid = o->uid;
    j->gid = o->gid;
    if (job_socket(j, e) == -1) {
        job_destroy(j);
        return NULL;
    }
    /* Signals are the loop's (libev's ev_signal, SIGTERM): the worker
     * blocks them all, inheriting the mask it is created with. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&j->th, NULL, job_main, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        errno = rc;
        err_sys(e, "workspace job: cannot start a thread");
        job_destroy(j);
        return NULL;
    }
    return j;
}

int
rc_ws_job_fd(const struct rc_ws_job *j)
{
    return j->rfd;
}

int
rc_ws_job_result(struct rc_ws_job *j, struct rc_workspace_stats *st,
                 char digest[65], struct err *e)
{
    int rc;

    pthread_mutex_lock(&j->mu);
    if (!j->done) {
        pthread_mutex_unlock(&j->mu);
        return err_set(e, ERR_IO, "workspace job: still running");
    }
    rc = j->rc;
    if (rc == -1 && e != NULL)
        *e = j->err;
    if (rc == 0 && st != NULL)
        *st = j->st;
    if (rc == 0 && digest != NULL)
        memcpy(digest, j->digest, sizeof(j->digest));
    pthread_mutex_unlock(&j->mu);
    return rc;
}

bool
rc_ws_job_done(struct rc_ws_job *j)
{
    bool done;

    pthread_mutex_lock(&j->mu);
    done = j->done;
    pthread_mutex_unlock(&j->mu);
    return done;
}

void
rc_ws_job_free(struct rc_ws_job *j)
{
    pthread_t th;
    bool done;

    if (j == NULL)
        return;
    __atomic_store_n(&j->cancel, 1, __ATOMIC_RELEASE);
    /* the worker's next send() fails with EPIPE */
    close(j->rfd);
    j->rfd = -1;
    th = j->th;
    pthread_mutex_lock(&j->mu);
    done = j->done;
    j->orphan = !done;
    pthread_mutex_unlock(&j->mu);
    /* An orphan may be freed by its worker from here on: j is not
     * touched again unless the worker is done with it. */
    if (done) {
        /* past its last touch of j: the join returns at once */
        pthread_join(th, NULL);
        job_destroy(j);
    } else {
        pthread_detach(th);
    }
}
