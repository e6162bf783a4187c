/* store_fs.c - the few file operations the stores are built on: atomic
 * replace (temp + fsync + rename), exclusive create (temp + link) and
 * capped whole-file reads. */
#include "store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
store__path(char *buf, size_t size, struct err *e, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size)
        return err_set(e, ERR_LIMIT, "path is too long");
    return 0;
}

static int
write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);

        if (w == -1 && errno == EINTR)
            continue;
        if (w == -1)
            return -1;
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

int
store__fsync_dir(const char *dir, struct err *e)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd == -1)
        return err_sys(e, "open %s", dir);
    if (fsync(fd) == -1 && errno != EINVAL) {
        close(fd);
        return err_sys(e, "fsync %s", dir);
    }
    close(fd);
    return 0;
}

int
store__mkdir(const char *path, struct err *e)
{
    if (mkdir(path, 0755) == -1 && errno != EEXIST)
        return err_sys(e, "mkdir %s", path);
    return 0;
}

/* Write data to a new temp dot-file in dir; its path goes to tmp. The
 * leading dot keeps watchers and listings from ever seeing it. Without
 * sync the data is made durable by the batch's syncfs() instead. */
static int
write_temp(const char *dir, const char *base, const char *data, size_t len,
           bool sync, char *tmp, size_t tmpsize, struct err *e)
{
    int fd;

    if (store__path(tmp, tmpsize, e, "%s/.%s.tmp.XXXXXX", dir, base) == -1)
        return -1;
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd == -1)
        return err_sys(e, "create temp file in %s", dir);
    if (fchmod(fd, 0644) == -1 || write_all(fd, data, len) == -1 ||
        (sync && fsync(fd) == -1)) {
        err_sys(e, "write %s", tmp);
        close(fd);
        unlink(tmp);
        return -1;
    }
    if (close(fd) == -1) {
        err_sys(e, "close %s", tmp);
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* One write of a batch: the temp file holds the bytes, the rename (or,
 * for a create, the link) waits for the commit. */
struct store_fs_op {
    char *tmp, *path, *dir;
    bool create;
};

struct store_fs_batch {
    struct store_fs_op *ops;
    size_t n;
};

struct store_fs_batch *
store__fs_batch_new(void)
{
    return calloc(1, sizeof(struct store_fs_batch));
}

static int
batch_add(struct store_fs_batch *b, const char *tmp, const char *path,
          const char *dir, bool create, struct err *e)
{
    struct store_fs_op *v = realloc(b->ops, (b->n + 1) * sizeof(*v));

    if (v == NULL) {
        unlink(tmp);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    b->ops = v;
    v = &b->ops[b->n];
    v->tmp = strdup(tmp);
    v->path = strdup(path);
    v->dir = strdup(dir);
    v->create = create;
    if (v->tmp == NULL || v->path == NULL || v->dir == NULL) {
        unlink(tmp);
        free(v->tmp);
        free(v->path);
        free(v->dir);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    b->n++;
    return 0;
}

bool
store__fs_batch_has(const struct store_fs_batch *b, const char *path)
{
    for (size_t i = 0; b != NULL && i < b->n; i++)
        if (strcmp(b->ops[i].path, path) == 0)
            return true;
    return false;
}

/* Make every temp file's bytes durable at once: syncfs() of each file
 * system the batch wrote to (one per distinct directory is enough). */
static int
batch_sync_data(const struct store_fs_batch *b, struct err *e)
{
    for (size_t i = 0; i < b->n; i++) {
        bool done = false;
        int fd;

        for (size_t j = 0; j < i && !done; j++)
            done = strcmp(b->ops[j].dir, b->ops[i].dir) == 0;
        if (done)
            continue;
        fd = open(b->ops[i].dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd == -1)
            return err_sys(e, "open %s", b->ops[i].dir);
        if (syncfs(fd) == -1) {
            err_sys(e, "sync %s", b->ops[i].dir);
            close(fd);
            return -1;
        }
        close(fd);
    }
    return 0;
}

/* Put one op's file in place. A create that finds the name taken lost a
 * race as store__create_exclusive() would have: the other file stays. */
static int
batch_apply(const struct store_fs_op *op, struct err *e)
{
    if (!op->create) {
        if (rename(op->tmp, op->path) == -1)
            return err_sys(e, "rename %s to %s", op->tmp, op->path);
        return 0;
    }
    if (link(op->tmp, op->path) == -1 && errno != EEXIST)
        return err_sys(e, "link %s", op->path);
    unlink(op->tmp);
    return 0;
}

int
store__fs_batch_commit(struct store_fs_batch *b, struct err *e)
{
    int rc = 0;

    if (b->n == 0)
        return 0;
    /* data first, then the renames: a crash leaves each file old or new */
    if (batch_sync_data(b, e) == -1)
        rc = -1;
    for (size_t i = 0; i < b->n && rc == 0; i++)
        rc = batch_apply(&b->ops[i], e);
    for (size_t i = 0; i < b->n && rc == 0; i++) {
        bool done = false;

        for (size_t j = 0; j < i && !done; j++)
            done = strcmp(b->ops[j].dir, b->ops[i].dir) == 0;
        if (!done)
            rc = store__fsync_dir(b->ops[i].dir, e);
    }
    store__fs_batch_clear(b);
    return rc;
}

void
store__fs_batch_clear(struct store_fs_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        unlink(b->ops[i].tmp); /* a no-op for every op applied */
        free(b->ops[i].tmp);
        free(b->ops[i].path);
        free(b->ops[i].dir);
    }
    free(b->ops);
    b->ops = NULL;
    b->n = 0;
}

int
store__write_atomic(struct store_fs_batch *b, const char *dir,
                    const char *base, const char *data, size_t len,
                    struct err *e)
{
    char tmp[4096], path[4096];

    if (store__path(path, sizeof(path), e, "%s/%s", dir, base) == -1 ||
        write_temp(dir, base, data, len, b == NULL, tmp, sizeof(tmp), e) == -1)
        return -1;
    if (b != NULL)
        return batch_add(b, tmp, path, dir, false, e);
    if (rename(tmp, path) == -1) {
        err_sys(e, "rename %s to %s", tmp, path);
        unlink(tmp);
        return -1;
    }
    return store__fsync_dir(dir, e);
}

int
store__create_exclusive(struct store_fs_batch *b, const char *dir,
                        const char *base, const char *data, size_t len,
                        struct err *e)
{
    char tmp[4096], path[4096];
    int rc;

    if (store__path(path, sizeof(path), e, "%s/%s", dir, base) == -1)
        return -1;
    if (b != NULL && access(path, F_OK) == 0)
        return err_set(e, ERR_CONFLICT, "%s already exists", path);
    if (write_temp(dir, base, data, len, b == NULL, tmp, sizeof(tmp), e) == -1)
        return -1;
    if (b != NULL)
        return batch_add(b, tmp, path, dir, true, e);
    rc = link(tmp, path);
    if (rc == -1 && errno == EEXIST)
        err_set(e, ERR_CONFLICT, "%s already exists", path);
    else if (rc == -1)
        err_sys(e, "link %s", path);
    unlink(tmp);
    if (rc == -1)
        return -1;
    return store__fsync_dir(dir, e);
}

int
store__read_file(const char *path, size_t max, char **data, size_t *len,
                 struct err *e)
{
    struct stat st;
    char *p = NULL;
    size_t got = 0;
    int fd;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd == -1 && errno == ENOENT)
        return err_set(e, ERR_NOTFOUND, "%s does not exist", path);
    if (fd == -1 && errno == ELOOP)
        return err_set(e, ERR_INVALID,
                       "%s is a symbolic link; links are not followed", path);
    if (fd == -1)
        return err_sys(e, "open %s", path);
    if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
        close(fd);
        return err_set(e, ERR_INVALID, "%s is not a regular file", path);
    }
    /* Read one byte past the cap so "exactly max" and "more" differ. */
    p = malloc(max + 2);
    if (p == NULL) {
        close(fd);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    for (;;) {
        ssize_t r = read(fd, p + got, max + 1 - got);

        if (r == -1 && errno == EINTR)
            continue;
        if (r == -1) {
            err_sys(e, "read %s", path);
            goto fail;
        }
        if (r == 0)
            break;
        got += (size_t)r;
        if (got > max) {
            err_set(e, ERR_LIMIT, "%s is over the %zu byte limit", path, max);
            goto fail;
        }
    }
    close(fd);
    p[got] = '\0';
    *data = p;
    *len = got;
    return 0;
fail:
    close(fd);
    free(p);
    return -1;
}
