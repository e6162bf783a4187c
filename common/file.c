/* file.c - open a file that a flag or a config names (file.h). */
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *
file_kind(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    return "not a file";
}

/* The bare strerror() text: the caller puts the path in front. */
static int
sys_failed(struct err *e)
{
    int saved = errno;

    err_set(e, ERR_IO, "%s", strerror(saved));
    e->sys_errno = saved;
    return -1;
}

int
file_open_regular(const char *path, int extra_flags, struct err *e)
{
    /* O_NONBLOCK: opening a FIFO for reading waits for a writer without it */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | extra_flags);
    struct stat st;

    if (fd == -1) {
        /* O_NOFOLLOW refuses a link with ELOOP, whose text ("Too many
         * levels of symbolic links") misleads for one plain link */
        if (errno == ELOOP && (extra_flags & O_NOFOLLOW) != 0 &&
            lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
            return err_set(e, ERR_INVALID,
                           "a symbolic link, not a regular file");
        return sys_failed(e);
    }
    if (fstat(fd, &st) == -1 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1) {
        sys_failed(e);
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        err_set(e, ERR_INVALID, "%s, not a regular file",
                file_kind(st.st_mode));
        close(fd);
        return -1;
    }
    return fd;
}
