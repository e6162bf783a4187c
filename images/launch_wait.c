/* launch_wait.c - wait mode's wait: inotify on the order's directory, no
 * polling, with a deadline; then one read of the file (launch_order.h).
 * The controller's upload (a tar extracted by the keeper's daemon) writes
 * the file and closes it: IN_CLOSE_WRITE is the moment it is whole.
 * IN_MOVED_TO covers a writer that renames a finished file into place.
 * dockerd extracts as root and gives the file its owner and mode only
 * after the close (moby's createTarFile: write, close, Lchown, chmod):
 * a launcher that is not root cannot open the 0400 order until then, so
 * EACCES (and ENOENT) means "not yet", and IN_ATTRIB (the chown) is the
 * moment to try again. */
#include "launch_order.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int
wait_fail(char *why, size_t size, const char *what, const char *path)
{
    snprintf(why, size, "%s %s: %s", what, path, strerror(errno));
    return -1;
}

static int64_t
wait_now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* One read of the file: not a link, not a FIFO (O_NONBLOCK: one put in
 * its place must not hang the launcher), not over the bound. 1 (why says
 * so) when it cannot be opened yet: absent, or not yet ours. */
static int
wait_read(const char *path, char **text, size_t *len, char *why, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;
    ssize_t n;
    char *buf;

    if (fd == -1 && (errno == EACCES || errno == ENOENT)) {
        wait_fail(why, size, "order", path);
        return 1;
    }
    if (fd == -1 || fstat(fd, &st) == -1) {
        int saved = errno;

        if (fd != -1)
            close(fd);
        errno = saved;
        return wait_fail(why, size, "order", path);
    }
    if (!S_ISREG(st.st_mode) || st.st_size > LAUNCH_ORDER_MAX) {
        close(fd);
        snprintf(why, size, "order %s: %s", path,
                 S_ISREG(st.st_mode) ? "larger than 64 KiB"
                                     : "not a regular file");
        return -1;
    }
    if ((buf = malloc(LAUNCH_ORDER_MAX + 1)) == NULL) {
        close(fd);
        return wait_fail(why, size, "order", path);
    }
    n = read(fd, buf, LAUNCH_ORDER_MAX + 1);
    close(fd);
    if (n < 0 || n > LAUNCH_ORDER_MAX) {
        free(buf);
        if (n < 0)
            return wait_fail(why, size, "order", path);
        snprintf(why, size, "order %s: larger than 64 KiB", path);
        return -1;
    }
    *text = buf;
    *len = (size_t)n;
    return 0;
}

#define WAIT_EVENTS (IN_CLOSE_WRITE | IN_MOVED_TO | IN_ATTRIB)

/* The events in buf name base: closed after writing, moved in, or its
 * owner or mode changed. */
static bool
wait_names(const char *buf, ssize_t n, const char *base)
{
    for (const char *p = buf; p < buf + n;) {
        const struct inotify_event *ev = (const void *)p;

        if (ev->len > 0 && strcmp(ev->name, base) == 0 &&
            (ev->mask & WAIT_EVENTS))
            return true;
        p += sizeof(*ev) + ev->len;
    }
    return false;
}

int
launch_wait_order(const char *path, unsigned seconds, char **text,
                  size_t *len, char *why, size_t size)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    int64_t deadline = wait_now_ms() + (int64_t)seconds * 1000;
    _Alignas(struct inotify_event) char buf[4096];
    int fd, rc = 1;

    if (path[0] != '/' || slash[1] == '\0' ||
        (size_t)(slash - path) >= sizeof(dir)) {
        snprintf(why, size, "order %s: expected an absolute file path", path);
        return -1;
    }
    snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path),
             path);
    if ((fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) == -1)
        return wait_fail(why, size, "inotify for", path);
    if (inotify_add_watch(fd, dir, WAIT_EVENTS) == -1) {
        wait_fail(why, size, "watch", dir);
        close(fd);
        return -1;
    }
    /* Watched first, then looked for: an order written in between is seen
     * by one or the other. */
    rc = wait_read(path, text, len, why, size);
    while (rc == 1) {
        int64_t left = deadline - wait_now_ms();
        struct pollfd p = { .fd = fd, .events = POLLIN };
        bool seen = false;
        ssize_t n;

        if (left <= 0)
            break;
        if (poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left) == -1) {
            if (errno == EINTR)
                continue;
            rc = wait_fail(why, size, "poll for", path);
            break;
        }
        while ((n = read(fd, buf, sizeof(buf))) > 0)
            seen = wait_names(buf, n, slash + 1) || seen;
        if (seen)
            rc = wait_read(path, text, len, why, size);
    }
    close(fd);
    /* there, but never ours within the wait: refused, why says why */
    if (rc == 1 && access(path, F_OK) == 0)
        rc = -1;
    return rc;
}
