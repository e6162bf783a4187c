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
    size_t n, cap;
    /* path -> ops index + 1 (0: empty), open addressing, at most half
     * full: store__fs_batch_has() is asked per write, and a walk made an
     * apply of 10,000 specs 10^8 strcmp */
    size_t *slots;
    size_t nslots; /* a power of two, or 0 */
};

size_t
store__str_hash(const char *s)
{
    size_t h = 1469598103934665603ULL; /* FNV-1a */

    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

void
store__slot_put(size_t *slots, size_t nslots, const char *key, size_t i)
{
    size_t mask = nslots - 1, at = store__str_hash(key) & mask;

    while (slots[at] != 0)
        at = (at + 1) & mask;
    slots[at] = i + 1;
}

static void
slot_put(struct store_fs_batch *b, size_t i)
{
    store__slot_put(b->slots, b->nslots, b->ops[i].path, i);
}

/* Op n-1 into the index, grown first when it would be over half full.
 * false: no memory (the index is dropped: lookups walk the ops). */
static bool
slots_add(struct store_fs_batch *b)
{
    if (2 * b->n > b->nslots) {
        size_t n = b->nslots ? 2 * b->nslots : 64, *v;

        while (n < 2 * b->n)
            n *= 2;
        v = realloc(b->slots, n * sizeof(*v));

        if (v == NULL) {
            free(b->slots);
            b->slots = NULL;
            b->nslots = 0;
            return false;
        }
        memset(v, 0, n * sizeof(*v));
        b->slots = v;
        b->nslots = n;
        for (size_t i = 0; i + 1 < b->n; i++)
            slot_put(b, i);
    }
    slot_put(b, b->n - 1);
    return true;
}

struct store_fs_batch *
store__fs_batch_new(void)
{
    return calloc(1, sizeof(struct store_fs_batch));
}

static int
batch_add(struct store_fs_batch *b, const char *tmp, const char *path,
          const char *dir, bool create, struct err *e)
{
    struct store_fs_op *v;

    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;

        v = realloc(b->ops, cap * sizeof(*v));
        if (v == NULL) {
            unlink(tmp);
            return err_set(e, ERR_NOMEM, "out of memory");
        }
        b->ops = v;
        b->cap = cap;
    }
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
    (void)slots_add(b); /* no memory: lookups walk the ops until it grows */
    return 0;
}

bool
store__fs_batch_has(const struct store_fs_batch *b, const char *path)
{
    size_t mask, at;

    if (b == NULL || b->n == 0)
        return false;
    if (b->nslots == 0) { /* no memory for the index */
        for (size_t i = 0; i < b->n; i++)
            if (strcmp(b->ops[i].path, path) == 0)
                return true;
        return false;
    }
    mask = b->nslots - 1;
    for (at = store__str_hash(path) & mask; b->slots[at] != 0;
         at = (at + 1) & mask)
        if (strcmp(b->ops[b->slots[at] - 1].path, path) == 0)
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
    b->n = b->cap = 0;
    free(b->slots);
    b->slots = NULL;
    b->nslots = 0;
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
