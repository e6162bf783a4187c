/* launch_runner.c - the runner service: in the launcher's parent, outside
 * the CLI's Landlock domain, it waits for the CLI to exit and, meanwhile,
 * runs the policy's runner argv (exactly, never through a shell) each time
 * the MCP server inside the domain asks over the unix socket
 * (launch_wire.h), and forwards SIGTERM/SIGINT to the CLI.
 *
 * One thread, one poll() loop over the listening socket and a signalfd.
 * Requests are served one at a time, in order; while a run goes on the
 * loop still watches the signalfd, so a signal is forwarded at once and a
 * CLI that exits ends the run (its process group is killed). The service
 * is a child subreaper: whatever a run leaves behind, in its group or
 * out of it (setsid, a double fork), reparents to us and is killed when
 * the run ends (serve_kill_orphans), so no process of a run outlives it
 * outside the CLI's domain. Every child that ends is reaped, not only
 * ours.
 */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch_wire.h"

#define RUNNER_BACKLOG   16
#define RUNNER_CHUNK     65536
#define RUNNER_PAUSE_MS  1000 /* after EMFILE and the like on accept */
#define RUNNER_REQ_MAX   16   /* longer than "RUN\n": a bad request */
#define RUNNER_DRAIN_MS  500  /* output read after the run itself ended */

/* The service's state, on launch_runner_serve's stack. */
struct serve {
    const struct launch_policy *p;
    int lfd;          /* listening socket; -1 once we stopped accepting */
    int sfd;          /* signalfd: SIGCHLD, SIGTERM, SIGINT */
    sigset_t old_mask; /* the mask before ours: what a run starts with */
    pid_t cli;
    bool cli_done;
    int cli_status;
    pid_t run_pid;    /* the run going on, 0 when none */
    bool run_reaped;
    int run_status;
};

/* What one run gave. */
struct run_result {
    int exit_code, sig;
    bool timeout, truncated;
    char *out; /* kept output, malloc'd */
    size_t len, cap;
};

static int64_t
now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
status_code(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 1;
}

int
launch_runner_listen(const struct launch_policy *p)
{
    const char *path = p->runner_socket ? p->runner_socket : "";
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct stat st;
    mode_t old;
    int fd = -1, rc;

    if (path[0] == '\0' || strlen(path) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "agent-launch: runner socket \"%s\": empty or longer "
                "than %zu bytes (set a shorter runner-socket)\n",
                path, sizeof(sa.sun_path) - 1);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    /* the runner's home, made before the CLI exists (outside its writable
     * paths: the controller puts it in /dev/shm beside the socket) */
    if (p->runner_home != NULL && mkdir(p->runner_home, 0700) == -1 &&
        errno != EEXIST) {
        fprintf(stderr, "agent-launch: runner-home %s: %s\n", p->runner_home,
                strerror(errno));
        return -1;
    }
    /* A stale socket of an earlier start is replaced; anything else at the
     * path is not ours to delete. */
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            fprintf(stderr, "agent-launch: runner socket %s: exists and is "
                    "not a socket (remove it or set another runner-socket)\n",
                    path);
            return -1;
        }
        if (unlink(path) == -1)
            goto fail;
    } else if (errno != ENOENT) {
        goto fail;
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd == -1)
        goto fail;
    /* Only our uid may connect, from the moment the path exists. */
    old = umask(0177);
    rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    umask(old);
    if (rc == -1 || chmod(path, 0600) == -1 || listen(fd, RUNNER_BACKLOG) == -1)
        goto fail;
    return fd;
fail:
    fprintf(stderr, "agent-launch: runner socket %s: %s\n", path,
            strerror(errno));
    if (fd != -1)
        close(fd);
    return -1;
}

/* Reap every child that ended: the CLI, the run, or an orphan. */
static void
serve_reap(struct serve *s)
{
    pid_t pid;
    int st;

    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        if (pid == s->cli) {
            s->cli_done = true;
            s->cli_status = st;
        } else if (s->run_pid != 0 && pid == s->run_pid) {
            s->run_reaped = true;
            s->run_status = st;
        }
    }
}

static void
serve_signals(struct serve *s)
{
    struct signalfd_siginfo si[8];
    ssize_t n = read(s->sfd, si, sizeof(si));

    for (ssize_t i = 0; n > 0 && i < n / (ssize_t)sizeof(si[0]); i++)
        if ((si[i].ssi_signo == SIGTERM || si[i].ssi_signo == SIGINT) &&
            !s->cli_done)
            kill(s->cli, (int)si[i].ssi_signo);
    serve_reap(s);
}

/* Our children but the CLI: after a run, only what it left (orphans of
 * the CLI's tree reparent here as well, and go too). Killed and reaped,
 * again until none is left, since each one's children come next. */
static void
serve_kill_orphans(struct serve *s)
{
    for (int round = 0; round < 16; round++) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        int killed = 0;

        if (d == NULL)
            return;
        while ((de = readdir(d)) != NULL) {
            char path[64], line[256];
            long pid = strtol(de->d_name, NULL, 10), ppid = -1;
            FILE *f;

            if (pid <= 0 || pid == s->cli)
                continue;
            snprintf(path, sizeof(path), "/proc/%ld/status", pid);
            if ((f = fopen(path, "re")) == NULL)
                continue;
            while (fgets(line, sizeof(line), f) != NULL)
                if (sscanf(line, "PPid: %ld", &ppid) == 1)
                    break;
            fclose(f);
            if (ppid == (long)getpid() && kill((pid_t)pid, SIGKILL) == 0)
                killed++;
        }
        closedir(d);
        if (killed == 0)
            return;
        /* they are SIGKILLed: reaping waits only for the kernel */
        for (int i = 0; i < killed; i++) {
            int st;
            pid_t pid = waitpid(-1, &st, 0);

            if (pid == s->cli) { /* it ended meanwhile: keep its status */
                s->cli_done = true;
                s->cli_status = st;
            }
        }
    }
}

/* Wait until fd (-1: none) has events, the deadline (-1: none) passes or
 * a signal came (handled here). 1 when fd is ready, 0 otherwise (callers
 * look at the clock and s->cli_done), -1 with errno on a poll error. */
static int
serve_poll(struct serve *s, int fd, short events, int64_t deadline)
{
    struct pollfd pf[2] = {
        { .fd = s->sfd, .events = POLLIN },
        { .fd = fd, .events = events },
    };
    int timeout = -1, n;

    if (deadline >= 0) {
        int64_t left = deadline - now_ms();

        timeout = left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
    }
    n = poll(pf, 2, timeout);
    if (n == -1)
        return errno == EINTR ? 0 : -1;
    if (pf[0].revents)
        serve_signals(s);
    return fd >= 0 && pf[1].revents ? 1 : 0;
}

/* The runner, found as the CLI is (launch_path_find), never through a
 * shell. Returns only on failure, with errno. */
static void
exec_search(char *const argv[])
{
    char path[PATH_MAX];

    if (launch_path_find(argv[0], path, sizeof(path)) == -1) {
        errno = ENOENT;
        return;
    }
    execv(path, argv);
}

/* The run's environment: the launcher's, without the variables the
 * policy names (the vendor's key), and with HOME and the XDG directories
 * in the runner's own home, which the CLI's domain cannot write: a
 * toolchain's config there (a .pth, a .gitconfig, a cargo or npm config)
 * would otherwise let the CLI run code outside its domain. */
static void
runner_env(const struct launch_policy *p)
{
    static const char *const home_vars[] = {
        "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
        "XDG_STATE_HOME",
    };

    for (size_t i = 0; i < p->n_runner_unset; i++)
        unsetenv(p->runner_unset[i]);
    for (size_t i = 0; p->runner_home != NULL &&
                       i < sizeof(home_vars) / sizeof(home_vars[0]);
         i++)
        setenv(home_vars[i], p->runner_home, 1);
}

/* In the forked child: become the run. Never returns. */
static void __attribute__((noreturn))
run_child(const struct serve *s, int out)
{
    const struct launch_policy *p = s->p;
    int null;

    setpgid(0, 0);
    sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
    if (out < 3) /* our stdio was closed: keep out clear of 0..2 */
        out = fcntl(out, F_DUPFD_CLOEXEC, 3);
    null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (out == -1 || null == -1 || dup2(null, 0) == -1 ||
        dup2(out, 1) == -1 || dup2(out, 2) == -1)
        _exit(LAUNCH_EXIT_CONFINE);
    /* Nothing of the launcher's (the listening socket, the client, the
     * signalfd, the CLI's fds) reaches the run. */
    if (close_range(3, ~0U, 0) == -1)
        for (int fd = 3; fd < 65536; fd++)
            close(fd);
    runner_env(p);
    if (p->runner_dir && chdir(p->runner_dir) == -1) {
        fprintf(stderr, "agent-launch: runner-dir %s: %s (check the "
                "policy's runner-dir)\n", p->runner_dir, strerror(errno));
        _exit(LAUNCH_EXIT_CONFINE);
    }
    exec_search(p->runner);
    if (errno == ENOEXEC)
        fprintf(stderr, "agent-launch: runner %s: not an executable format "
                "(no shell is used: a script needs a #! line)\n",
                p->runner[0]);
    else
        fprintf(stderr, "agent-launch: runner %s: %s (check runner-arg in "
                "the policy and PATH)\n", p->runner[0], strerror(errno));
    _exit(errno == ENOENT ? LAUNCH_EXIT_NOTFOUND : LAUNCH_EXIT_CONFINE);
}

/* Keep what fits under the policy's cap; count the rest as dropped. */
static void
run_keep(struct run_result *r, size_t max, const char *b, size_t n)
{
    size_t take = n < max - r->len ? n : max - r->len;

    if (take < n)
        r->truncated = true;
    if (take == 0)
        return;
    if (r->len + take > r->cap) {
        size_t cap = r->cap ? r->cap : RUNNER_CHUNK < max ? RUNNER_CHUNK : max;
        char *q;

        while (cap < r->len + take)
            cap = cap > max / 2 ? max : cap * 2;
        q = realloc(r->out, cap);
        if (!q) {
            r->truncated = true; /* out of memory: drop, as past the cap */
            return;
        }
        r->out = q;
        r->cap = cap;
    }
    memcpy(r->out + r->len, b, take);
    r->len += take;
}

/* Run the runner once. 0 with *r filled, -1 after a message when it could
 * not start. */
static int
run_once(struct serve *s, struct run_result *r)
{
    const struct launch_policy *p = s->p;
    int64_t deadline = now_ms() + (int64_t)p->runner_timeout * 1000;
    char chunk[RUNNER_CHUNK];
    int pfd[2], rc;
    bool drained = false;
    pid_t pid;

    memset(r, 0, sizeof(*r));
    if (pipe2(pfd, O_CLOEXEC) == -1) {
        fprintf(stderr, "agent-launch: runner: pipe: %s\n", strerror(errno));
        return -1;
    }
    pid = fork();
    if (pid == -1) {
        fprintf(stderr, "agent-launch: runner: fork: %s\n", strerror(errno));
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0)
        run_child(s, pfd[1]);
    /* both sides set the group, so a kill never misses it */
    setpgid(pid, pid);
    s->run_pid = pid;
    s->run_reaped = false;
    close(pfd[1]);
    fcntl(pfd[0], F_SETFL, O_NONBLOCK);
    while (pfd[0] != -1 || !s->run_reaped) {
        if (s->cli_done)
            break; /* nobody is left to read the answer */
        if (s->run_reaped && !drained) {
            /* the run ended: what it left in its group goes now, so the
             * pipe closes; what holds it outside the group gets a moment */
            kill(-pid, SIGKILL);
            drained = true;
            deadline = now_ms() + RUNNER_DRAIN_MS;
        }
        if (now_ms() >= deadline) {
            r->timeout = !s->run_reaped;
            break;
        }
        rc = serve_poll(s, pfd[0], POLLIN, deadline);
        if (rc == -1) {
            fprintf(stderr, "agent-launch: runner: poll: %s (run ended)\n",
                    strerror(errno));
            break;
        }
        if (rc == 1) {
            ssize_t n = read(pfd[0], chunk, sizeof(chunk));

            if (n > 0) {
                run_keep(r, p->runner_max_bytes, chunk, (size_t)n);
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                close(pfd[0]);
                pfd[0] = -1;
            }
        }
    }
    /* The group goes with the run: what it left in the background, or
     * the whole run at the deadline. */
    kill(-pid, SIGKILL);
    if (pfd[0] != -1)
        close(pfd[0]);
    if (!s->run_reaped) {
        while (waitpid(pid, &s->run_status, 0) == -1 && errno == EINTR)
            ;
        s->run_reaped = true;
    }
    s->run_pid = 0;
    serve_kill_orphans(s);
    if (WIFSIGNALED(s->run_status))
        r->sig = WTERMSIG(s->run_status);
    r->exit_code = status_code(s->run_status);
    return 0;
}

/* Send all of b with the reply deadline. -1 when the client is gone or
 * too slow. */
static int
send_all(struct serve *s, int fd, const char *b, size_t n, int64_t deadline)
{
    while (n > 0) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);

        if (w > 0) {
            b += w;
            n -= (size_t)w;
            continue;
        }
        if (w == -1 && errno != EAGAIN && errno != EINTR)
            return -1;
        if (s->cli_done || now_ms() >= deadline ||
            serve_poll(s, fd, POLLOUT, deadline) == -1)
            return -1;
    }
    return 0;
}

/* One connection: read "RUN\n" (with a deadline), run, reply. */
static void
serve_client(struct serve *s, int fd)
{
    static const char bad[] = "error the only request is RUN\n";
    int64_t deadline = now_ms() + LAUNCH_WIRE_REQUEST_MS;
    char req[RUNNER_REQ_MAX], head[LAUNCH_WIRE_HEADER_MAX];
    struct run_result r;
    struct ucred cred;
    socklen_t clen = sizeof(cred);
    size_t have = 0;
    int n;

    /* The socket is 0600, but root passes file modes: ask the kernel. */
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == -1 ||
        cred.uid != geteuid()) {
        send(fd, "error not our uid\n", 18, MSG_NOSIGNAL | MSG_DONTWAIT);
        return;
    }
    while (have == 0 || req[have - 1] != '\n') {
        ssize_t got;

        if (have == sizeof(req))
            goto bad_request;
        if (s->cli_done || now_ms() >= deadline)
            return; /* silent client: drop it */
        got = read(fd, req + have, sizeof(req) - have);
        if (got == 0)
            return;
        if (got > 0) {
            have += (size_t)got;
            continue;
        }
        if (errno != EAGAIN && errno != EINTR)
            return;
        if (serve_poll(s, fd, POLLIN, deadline) == -1)
            return;
    }
    if (have != strlen(LAUNCH_WIRE_REQUEST) ||
        memcmp(req, LAUNCH_WIRE_REQUEST, have) != 0)
        goto bad_request;
    if (run_once(s, &r) == -1) {
        static const char nostart[] = "error the runner could not be "
                                      "started (see the launcher's log)\n";

        send_all(s, fd, nostart, sizeof(nostart) - 1,
                 now_ms() + LAUNCH_WIRE_REPLY_MS);
        return;
    }
    n = snprintf(head, sizeof(head),
                 "exit=%d signal=%d timeout=%d truncated=%d bytes=%zu\n",
                 r.exit_code, r.sig, r.timeout, r.truncated, r.len);
    deadline = now_ms() + LAUNCH_WIRE_REPLY_MS;
    if (send_all(s, fd, head, (size_t)n, deadline) == 0)
        send_all(s, fd, r.out, r.len, deadline);
    free(r.out);
    return;
bad_request:
    send_all(s, fd, bad, sizeof(bad) - 1, now_ms() + LAUNCH_WIRE_REPLY_MS);
}

static void
serve_accept(struct serve *s)
{
    int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

    if (fd != -1) {
        serve_client(s, fd);
        close(fd);
        return;
    }
    switch (errno) {
    case EAGAIN:
    case EINTR:
    case ECONNABORTED:
        return;
    case EMFILE:
    case ENFILE:
    case ENOBUFS:
    case ENOMEM:
        fprintf(stderr, "agent-launch: runner service: accept: %s (retrying "
                "in 1 s)\n", strerror(errno));
        serve_poll(s, -1, 0, now_ms() + RUNNER_PAUSE_MS);
        return;
    default:
        fprintf(stderr, "agent-launch: runner service: accept: %s (no more "
                "runs for this task; the CLI goes on)\n", strerror(errno));
        close(s->lfd);
        s->lfd = -1;
    }
}

int
launch_runner_serve(const struct launch_policy *p, int listen_fd, pid_t cli)
{
    struct serve s = { .p = p, .lfd = listen_fd, .sfd = -1, .cli = cli };
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    /* what a run leaves behind reparents to us, not to docker-init */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1)
        fprintf(stderr, "agent-launch: runner service: subreaper: %s (a run's "
                "background processes may outlive it)\n", strerror(errno));
    if (sigprocmask(SIG_BLOCK, &set, &s.old_mask) == -1 ||
        (s.sfd = signalfd(-1, &set, SFD_CLOEXEC)) == -1) {
        /* Without the loop, at least wait for the CLI. */
        fprintf(stderr, "agent-launch: runner service: signalfd: %s (no "
                "runs for this task; the CLI goes on)\n", strerror(errno));
        close(listen_fd);
        while (waitpid(cli, &s.cli_status, 0) == -1)
            if (errno != EINTR)
                return LAUNCH_EXIT_CONFINE;
        return status_code(s.cli_status);
    }
    serve_reap(&s); /* the CLI may have ended before the mask was set */
    while (!s.cli_done) {
        int rc = serve_poll(&s, s.lfd, POLLIN, -1);

        if (rc == 1) {
            serve_accept(&s);
        } else if (rc == -1) {
            fprintf(stderr, "agent-launch: runner service: poll: %s (no "
                    "more runs for this task)\n", strerror(errno));
            if (s.lfd == -1)
                break;
            close(s.lfd);
            s.lfd = -1;
        }
    }
    if (!s.cli_done) /* poll keeps failing: wait without forwarding */
        while (waitpid(cli, &s.cli_status, 0) == -1 && errno == EINTR)
            ;
    if (s.lfd != -1)
        close(s.lfd);
    close(s.sfd);
    unlink(p->runner_socket);
    /* The mask stays: a SIGTERM pending now would kill us before the
     * launcher exits with the CLI's code. */
    return status_code(s.cli_status);
}
