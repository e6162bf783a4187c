/* keeper.c - the storage keeper: a process that does nothing but stay alive.
 *
 * A local tmpfs volume lives only while at least one running container uses
 * it (docs/docker-notes.md section 6), so the controller runs one keeper per
 * invocation, with the invocation's volumes mounted, for the whole attempt.
 * The keeper must therefore never exit on its own, and must exit 0 at once
 * when it is stopped, so `docker stop` never has to fall back to SIGKILL.
 *
 * It runs with no network, no capabilities, a read-only root and a
 * non-root user, and it never forks, opens files or logs anything.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>

int
main(void)
{
    sigset_t stop;
    int sig;

    /* Block the stop signals and wait for them synchronously instead of
     * installing handlers: no global state, and blocked signals are queued
     * even when the keeper is PID 1 of its namespace (without Init:true),
     * where signals with the default action would be dropped. */
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    if (sigprocmask(SIG_BLOCK, &stop, NULL) == -1)
        return 1;
    for (;;) {
        sig = sigwaitinfo(&stop, NULL);
        if (sig == SIGTERM || sig == SIGINT)
            return 0;
        if (sig == -1 && errno != EINTR)
            return 1;
    }
}
