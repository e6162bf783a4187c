/* fake_confine.c - what a process in the agent's place can do, tried one
 * by one (tests/integration/controller/test_phase_policy.sh reads the
 * answers). Each attempt reports "ok" or the errno's name; none of them
 * is fatal, so one report shows every layer at once:
 *
 *   execSh        fork and exec /bin/sh (the image has a busybox shell)
 *   writeTmp      create a file in /tmp (the scratch volume, allowed)
 *   writeShm      create a file in /dev/shm (writable by mount, not by
 *                 the Landlock domain)
 *   writeWork     create a file in /work
 *   writeGit      create a file in /work/.git
 *   connectProxy  TCP connect to the proxy (HTTPS_PROXY)
 *   connectOther  TCP connect to another port of the same address
 *   environInit   open /proc/1/environ (docker-init, outside the domain)
 *   signalInit    kill(1, 0)
 *   ioUring       io_uring_setup(2)
 *   userfaultfd   userfaultfd(2)
 */
#include "fake_confine.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUNNER_SOCKET "/dev/shm/agentctl-runner.sock"

static const char *
errno_name(int e)
{
    static char other[32];

    switch (e) {
    case 0: return "ok";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EROFS: return "EROFS";
    case ENOENT: return "ENOENT";
    case ENOSYS: return "ENOSYS";
    case ECONNREFUSED: return "ECONNREFUSED";
    case ETIMEDOUT: return "ETIMEDOUT";
    case ENETUNREACH: return "ENETUNREACH";
    case EHOSTUNREACH: return "EHOSTUNREACH";
    case EINVAL: return "EINVAL";
    default:
        snprintf(other, sizeof(other), "errno %d", e);
        return other;
    }
}

static int
try_exec_sh(void)
{
    int st, p[2];
    pid_t pid;
    int err = 0;

    if (pipe2(p, O_CLOEXEC) == -1)
        return errno;
    pid = fork();
    if (pid == 0) {
        char *argv[] = { "/bin/sh", "-c", "exit 0", NULL };
        int e;

        execv(argv[0], argv);
        e = errno;
        (void)!write(p[1], &e, sizeof(e));
        _exit(127);
    }
    close(p[1]);
    if (pid == -1 || read(p[0], &err, sizeof(err)) != sizeof(err))
        err = pid == -1 ? errno : 0;
    close(p[0]);
    if (pid > 0)
        waitpid(pid, &st, 0);
    return err;
}

static int
try_create(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    if (fd == -1)
        return errno;
    close(fd);
    unlink(path);
    return 0;
}

/* "http://IP:PORT" of HTTPS_PROXY into sa (port replaced by port when
 * not 0). */
static int
proxy_addr(struct sockaddr_in *sa, unsigned port)
{
    const char *url = getenv("HTTPS_PROXY");
    char ip[64];
    unsigned p;

    if (url == NULL || sscanf(url, "http://%63[0-9.]:%u", ip, &p) != 2)
        return -1;
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_port = htons((unsigned short)(port ? port : p));
    return inet_pton(AF_INET, ip, &sa->sin_addr) == 1 ? 0 : -1;
}

static int
try_connect(unsigned port)
{
    struct sockaddr_in sa;
    struct pollfd pfd;
    socklen_t len = sizeof(int);
    int fd, err = 0;

    if (proxy_addr(&sa, port) == -1)
        return EINVAL;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd == -1)
        return errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
        err = errno;
        if (err == EINPROGRESS) {
            pfd.fd = fd;
            pfd.events = POLLOUT;
            err = poll(&pfd, 1, 3000) == 1 &&
                          getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0
                      ? err
                      : ETIMEDOUT;
        }
    }
    close(fd);
    return err;
}

static int
try_open_read(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd == -1)
        return errno;
    close(fd);
    return 0;
}

static int
try_syscall(long nr)
{
    long rc;
    char params[256] = { 0 };

    rc = nr == SYS_io_uring_setup ? syscall(nr, 1, params) : syscall(nr, 0);
    if (rc == -1)
        return errno;
    close((int)rc);
    return 0;
}

static void
put(const char *key, int err, int *first)
{
    printf("%s\"%s\":\"%s\"", *first ? "" : ",", key, errno_name(err));
    *first = 0;
}

/* One run through the runner tool's socket: the header line and the
 * output, as one JSON string (printable ASCII kept, the rest '?'). */
static void
report_runner(void)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    char buf[4096];
    size_t n = 0;
    ssize_t r;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", RUNNER_SOCKET);
    if (fd == -1 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
        write(fd, "RUN\n", 4) != 4) {
        printf(",\"runner\":\"connect: %s\"", errno_name(errno));
        if (fd != -1)
            close(fd);
        return;
    }
    while (n < sizeof(buf) - 1 &&
           (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    fputs(",\"runner\":\"", stdout);
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\n')
            fputs("\\n", stdout);
        else
            putchar(buf[i] >= 0x20 && buf[i] < 0x7f && buf[i] != '"' &&
                            buf[i] != '\\'
                        ? buf[i]
                        : '?');
    putchar('"');
}

void
fake_confine_report(void)
{
    int first = 1;

    fputs(",\"confine\":{", stdout);
    put("execSh", try_exec_sh(), &first);
    put("writeTmp", try_create("/tmp/fake-confine"), &first);
    put("writeShm", try_create("/dev/shm/fake-confine"), &first);
    put("writeWork", try_create("/work/fake-confine"), &first);
    put("writeGit", try_create("/work/.git/fake-confine"), &first);
    put("connectProxy", try_connect(0), &first);
    put("connectOther", try_connect(1), &first);
    put("environInit", try_open_read("/proc/1/environ"), &first);
    put("signalInit", kill(1, 0) == 0 ? 0 : errno, &first);
    put("ioUring", try_syscall(SYS_io_uring_setup), &first);
    put("userfaultfd", try_syscall(SYS_userfaultfd), &first);
    putchar('}');
    if (access(RUNNER_SOCKET, F_OK) == 0)
        report_runner();
}
