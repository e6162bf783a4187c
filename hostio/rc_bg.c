/* rc_bg.c - one function on a worker thread (rc_bg.h). The end-of-file
 * of a socket pair tells the loop it is done, as with rc_ws_job.c, whose
 * worker streams through the pair as well. */
#include "rc_bg.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

struct rc_bg {
    pthread_t th;
    int rfd, wfd;
    int cancel; /* atomic */
    rc_bg_fn *fn;
    void *arg;
    rc_bg_free_fn *free_arg;
    pthread_mutex_t mu; /* the outcome, and who frees */
    bool done, orphan;
    int rc;
    struct err err;
};

static void
bg_destroy(struct rc_bg *j)
{
    if (j->rfd != -1)
        close(j->rfd);
    if (j->wfd != -1)
        close(j->wfd);
    if (j->free_arg != NULL)
        j->free_arg(j->arg);
    pthread_mutex_destroy(&j->mu);
    free(j);
}

static void *
bg_main(void *p)
{
    struct rc_bg *j = p;
    struct err e = { 0 };
    int rc = j->fn(j->arg, &j->cancel, &e), wfd;
    bool orphan;

    pthread_mutex_lock(&j->mu);
    j->rc = rc;
    j->err = e;
    j->done = true;
    wfd = j->wfd;
    j->wfd = -1;
    orphan = j->orphan;
    pthread_mutex_unlock(&j->mu);
    close(wfd); /* last touch of an owned job: the loop may free it now */
    if (orphan)
        bg_destroy(j);
    return NULL;
}

struct rc_bg *
rc_bg_start(rc_bg_fn *fn, void *arg, rc_bg_free_fn *free_arg, struct err *e)
{
    struct rc_bg *j = calloc(1, sizeof(*j));
    sigset_t all, old;
    int sv[2], rc;

    if (j == NULL) {
        if (free_arg != NULL)
            free_arg(arg);
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    j->fn = fn;
    j->arg = arg;
    j->free_arg = free_arg;
    j->rfd = j->wfd = -1;
    pthread_mutex_init(&j->mu, NULL);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
        err_sys(e, "worker: socketpair");
        bg_destroy(j);
        return NULL;
    }
    j->rfd = sv[0];
    j->wfd = sv[1];
    if (fcntl(j->rfd, F_SETFL, fcntl(j->rfd, F_GETFL) | O_NONBLOCK) == -1) {
        err_sys(e, "worker: socket setup");
        bg_destroy(j);
        return NULL;
    }
    /* the loop's signals stay the loop's */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&j->th, NULL, bg_main, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        errno = rc;
        err_sys(e, "worker: cannot start a thread");
        bg_destroy(j);
        return NULL;
    }
    return j;
}

int
rc_bg_fd(const struct rc_bg *j)
{
    return j->rfd;
}

void *
rc_bg_arg(const struct rc_bg *j)
{
    return j->arg;
}

int
rc_bg_result(struct rc_bg *j, struct err *e)
{
    int rc;

    pthread_mutex_lock(&j->mu);
    if (!j->done) {
        pthread_mutex_unlock(&j->mu);
        return err_set(e, ERR_IO, "worker: still running");
    }
    rc = j->rc;
    if (rc == -1 && e != NULL)
        *e = j->err;
    pthread_mutex_unlock(&j->mu);
    return rc;
}

void
rc_bg_free(struct rc_bg *j)
{
    bool done;

    if (j == NULL)
        return;
    __atomic_store_n(&j->cancel, 1, __ATOMIC_RELEASE);
    pthread_mutex_lock(&j->mu);
    done = j->done;
    j->orphan = !done;
    pthread_mutex_unlock(&j->mu);
    if (done) {
        pthread_join(j->th, NULL);
        bg_destroy(j);
    } else {
        pthread_detach(j->th);
    }
}
