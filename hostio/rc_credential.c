/* rc_credential.c - read a credential file safely: checked by its open
 * descriptor (no race between the check and the read), never echoed. */
#include "rc_credential.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
cred_name_ok(const char *name)
{
    size_t i, n = strlen(name);

    if (n == 0 || n > 255 || name[0] == '.')
        return 0;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c == '/' || c <= 0x20 || c >= 0x7f)
            return 0;
    }
    return 1;
}

/* Say which of the group/other bits are set, e.g. "group-readable". */
static const char *
cred_mode_problem(mode_t m)
{
    if (m & S_IWOTH)
        return "world-writable";
    if (m & S_IROTH)
        return "world-readable";
    if (m & S_IXOTH)
        return "world-executable";
    if (m & S_IWGRP)
        return "group-writable";
    if (m & S_IRGRP)
        return "group-readable";
    return "group-executable";
}

/* Check the open file: type, owner, mode, size. */
static int
cred_check_stat(int fd, const char *path, struct err *e)
{
    struct stat st;
    uid_t me = geteuid();

    if (fstat(fd, &st) == -1)
        return err_sys(e, "credential %s", path);
    if (!S_ISREG(st.st_mode))
        return err_set(e, ERR_INVALID, "credential %s is not a regular file",
                       path);
    if (st.st_uid != me && st.st_uid != 0)
        return err_set(e, ERR_INVALID,
                       "credential %s is owned by uid %u, not by the "
                       "controller (uid %u) or root: chown %u %s",
                       path, (unsigned)st.st_uid, (unsigned)me, (unsigned)me,
                       path);
    if ((st.st_mode & 077) != 0)
        return err_set(e, ERR_INVALID,
                       "credential %s is %s (mode %04o): chmod 600 %s", path,
                       cred_mode_problem(st.st_mode), st.st_mode & 07777, path);
    if (st.st_size > (off_t)RC_CREDENTIAL_MAX_BYTES)
        return err_set(e, ERR_LIMIT, "credential %s is larger than %u bytes",
                       path, RC_CREDENTIAL_MAX_BYTES);
    return 0;
}

/* Read at most RC_CREDENTIAL_MAX_BYTES + 1 bytes: the file may have grown
 * since fstat(), and the extra byte shows it. */
static int
cred_read_all(int fd, const char *path, char *p, size_t *len, struct err *e)
{
    size_t n = 0;
    ssize_t r;

    while (n < RC_CREDENTIAL_MAX_BYTES + 1) {
        r = read(fd, p + n, RC_CREDENTIAL_MAX_BYTES + 1 - n);
        if (r == -1 && errno == EINTR)
            continue;
        if (r == -1)
            return err_sys(e, "credential %s: read", path);
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (n > RC_CREDENTIAL_MAX_BYTES)
        return err_set(e, ERR_LIMIT, "credential %s is larger than %u bytes",
                       path, RC_CREDENTIAL_MAX_BYTES);
    *len = n;
    return 0;
}

/* Strip the trailing line ends an editor adds, then refuse what an
 * environment variable or HTTP header could not carry cleanly. */
static int
cred_check_value(char *p, size_t *len, const char *path, struct err *e)
{
    size_t n = *len;

    while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r'))
        n--;
    p[n] = '\0';
    if (n == 0)
        return err_set(e, ERR_INVALID,
                       "credential %s is empty: write the key into it", path);
    if (memchr(p, '\0', n) != NULL)
        return err_set(e, ERR_INVALID, "credential %s contains a NUL byte",
                       path);
    if (memchr(p, '\n', n) != NULL || memchr(p, '\r', n) != NULL)
        return err_set(e, ERR_INVALID,
                       "credential %s has a line break before its end: it "
                       "must hold one line",
                       path);
    *len = n;
    return 0;
}

int
rc_credential_read(const char *secrets_dir, const char *name, char **value,
                   struct err *e)
{
    char path[4096];
    char *buf = NULL, *copy;
    size_t len = 0;
    int dfd = -1, fd = -1, rc = -1;

    if (!cred_name_ok(name))
        return err_set(e, ERR_INVALID,
                       "credential name \"%.64s\" is not a plain file name "
                       "(no '/', not starting with '.')",
                       name);
    snprintf(path, sizeof(path), "%s/%s", secrets_dir, name);
    dfd = open(secrets_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd == -1) {
        err_sys(e, "secrets directory %s", secrets_dir);
        goto out;
    }
    fd = openat(dfd, name,
                O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd == -1) {
        if (errno == ELOOP)
            err_set(e, ERR_INVALID,
                    "credential %s is a symlink, which is refused: put the "
                    "file itself there (chmod 600)",
                    path);
        else if (errno == ENOENT)
            err_set(e, ERR_NOTFOUND, "credential %s does not exist", path);
        else
            err_sys(e, "credential %s", path);
        goto out;
    }
    if (cred_check_stat(fd, path, e) == -1)
        goto out;
    buf = malloc(RC_CREDENTIAL_MAX_BYTES + 2);
    if (buf == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        goto out;
    }
    if (cred_read_all(fd, path, buf, &len, e) == -1 ||
        cred_check_value(buf, &len, path, e) == -1)
        goto out;
    /* Hand out an exact-size copy so the free can zero all of it. */
    copy = malloc(len + 1);
    if (copy == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        goto out;
    }
    memcpy(copy, buf, len + 1);
    *value = copy;
    rc = 0;
out:
    if (buf != NULL) {
        explicit_bzero(buf, RC_CREDENTIAL_MAX_BYTES + 2);
        free(buf);
    }
    if (fd != -1)
        close(fd);
    if (dfd != -1)
        close(dfd);
    return rc;
}

void
rc_credential_free(char *value)
{
    if (value == NULL)
        return;
    explicit_bzero(value, strlen(value));
    free(value);
}
