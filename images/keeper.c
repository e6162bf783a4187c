/* keeper.c - the storage keeper: a process that does nothing but stay alive.
 *
 * A local tmpfs volume lives only while at least one running container uses
 * it (docs/docker-notes.md section 6), so the controller runs one keeper per
 * invocation, with the invocation's volumes mounted, for the whole attempt.
 * The keeper must therefore never exit on its own, and must exit 0 at once
 * when it is stopped, so `docker stop` never has to fall back to SIGKILL.
 *
 * It runs with no network, no capabilities, a read-only root and a
 * non-root user, and it never forks, opens files or logs anything. It
 * takes no argument: one given is a mistake (an image's CMD, a hand-run
 * test), said on stderr with exit 2, never a keeper that waits forever
 * for a stop nobody will send.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>

/* The first argument, printable ASCII as is, other bytes as \xNN, at
 * most 64 bytes of it. */
static int
keeper_usage(const char *arg)
{
    fputs("keeper: takes no arguments (got \"", stderr);
    for (size_t i = 0; arg[i] != '\0'; i++) {
        unsigned char ch = (unsigned char)arg[i];

        if (i == 64) {
            fputs("...", stderr);
            break;
        }
        if (ch >= ' ' && ch <= '~' && ch != '"' && ch != '\\')
            fputc(ch, stderr);
        else
            fprintf(stderr, "\\x%02x", ch);
    }
    fputs("\")\nusage: keeper (runs until SIGTERM or SIGINT, then exits "
          "0)\n",
          stderr);
    return 2;
}

int
main(int argc, char **argv)
{
    sigset_t stop;
    int sig;

    if (argc > 1)
        return keeper_usage(argv[1]);

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
