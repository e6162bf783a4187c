/* rc_workspace.c - walk a workspace by directory descriptors and refuse
 * what must not reach an agent's storage; the check, the tar and the
 * digest are three visitors of the one walk, so they share every rule. */
#include "rc_workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#define WS_QUOTE_MAX        80
#define WS_DIGEST_MAX_NAMES (1u << 22)
#define WS_IO_CHUNK         65536

/* One entry as a visitor sees it, checked by the walk. */
struct ws_entry {
    const char *rel;       /* path relative to the top */
    const char *name;      /* last component of rel */
    int dirfd;             /* the directory that holds it */
    const struct stat *st; /* lstat view */
    const char *link;      /* symlink target, else NULL */
};

typedef int ws_visit_fn(const struct ws_entry *en, void *arg, struct err *e);

struct ws_level {
    int fd;         /* the directory, opened O_NOFOLLOW */
    char **names;   /* sorted listing; NULL until read */
    size_t n, next; /* names, next to visit */
    size_t rel_len; /* length of this directory's path in walk.rel */
    int listed;     /* names has been read */
};

struct ws_walk {
    const char *skip_top; /* top-level name left out, or NULL */
    uint64_t max_names;   /* bound on inodes (top + listed names) */
    uint64_t names;       /* top + names listed so far */
    ws_visit_fn *visit;
    void *arg;
    unsigned depth;
    struct ws_level lv[RC_WS_MAX_DEPTH + 1];
    char rel[RC_WS_PATH_MAX];
};

/* Render s for a message: printable ASCII as is, '"' and '\\' and other
 * bytes escaped, cut with "..." so two quotes fit in one message. */
static const char *
ws_quote(char *dst, size_t size, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;

    for (; *s != '\0' && o + 5 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (o >= WS_QUOTE_MAX) {
            memcpy(dst + o, "...", 3);
            o += 3;
            break;
        }
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            dst[o++] = (char)c;
        } else {
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[c >> 4];
            dst[o++] = hex[c & 15];
        }
    }
    dst[o] = '\0';
    return dst;
}

/* --- symlink targets ----------------------------------------------- */

/* Take the first component of rest (in place) into comp. */
static void
ws_next_comp(char *rest, char *comp, size_t size)
{
    size_t n = strcspn(rest, "/");

    if (n >= size)
        n = size - 1;
    memcpy(comp, rest, n);
    comp[n] = '\0';
    n += rest[n] == '/';
    memmove(rest, rest + n, strlen(rest + n) + 1);
}

enum ws_link { WS_LINK_INSIDE, WS_LINK_ESCAPES, WS_LINK_LOOP };

/* A symlink target being resolved inside the top. cur only ever holds
 * real directories (every symlink met is expanded, never kept), so
 * fstatat() on it follows no symlink. */
struct ws_res {
    int top;
    char cur[RC_WS_PATH_MAX * 2]; /* resolved so far, relative to top */
    size_t cl;
    char rest[RC_WS_PATH_MAX * 2]; /* components still to resolve */
    unsigned hops;
    int missing; /* a component did not exist: go on lexically */
};

/* "..": pop the last component of cur; 1 when there is none (escape). */
static int
ws_res_up(struct ws_res *r)
{
    if (r->cl == 0)
        return 1;
    while (r->cl > 0 && r->cur[r->cl - 1] != '/')
        r->cl--;
    r->cl -= r->cl > 0;
    r->cur[r->cl] = '\0';
    return 0;
}

/* cur names a symlink: replace it by its target in front of rest. */
static int
ws_res_follow(struct ws_res *r, size_t comp_len, enum ws_link *res,
              struct err *e)
{
    char tgt[RC_WS_PATH_MAX];
    size_t rl = strlen(r->rest);
    ssize_t n;

    if (++r->hops > RC_WS_MAX_LINK_HOPS) {
        *res = WS_LINK_LOOP;
        return 1;
    }
    n = readlinkat(r->top, r->cur, tgt, sizeof(tgt) - 1);
    if (n == -1)
        return err_sys(e, "workspace: readlink while resolving a link");
    if (n > 0 && tgt[0] == '/') {
        *res = WS_LINK_ESCAPES;
        return 1;
    }
    if ((size_t)n + 1 + rl + 1 > sizeof(r->rest)) {
        *res = WS_LINK_LOOP; /* longer than any path can be */
        return 1;
    }
    r->cl -= comp_len;
    r->cl -= r->cl > 0;
    r->cur[r->cl] = '\0';
    memmove(r->rest + n + 1, r->rest, rl + 1);
    memcpy(r->rest, tgt, (size_t)n);
    r->rest[n] = '/';
    return 0;
}

/* Resolve target from directory dir (relative to top, "" = top) the way
 * the kernel would, but inside the top: ".." above it is an escape, a
 * symlink met on the way is expanded (absolute = escape), and after a
 * missing component the rest is resolved lexically. */
static int
ws_link_resolve(int top, const char *dir, const char *target, enum ws_link *res,
                struct err *e)
{
    struct ws_res *r = calloc(1, sizeof(*r));
    char comp[256];
    struct stat st;
    int rc = 0;

    if (r == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    r->top = top;
    r->cl = (size_t)snprintf(r->cur, sizeof(r->cur), "%s", dir);
    snprintf(r->rest, sizeof(r->rest), "%s", target);
    *res = WS_LINK_INSIDE;
    while (rc == 0 && r->rest[0] != '\0') {
        ws_next_comp(r->rest, comp, sizeof(comp));
        if (comp[0] == '\0' || strcmp(comp, ".") == 0)
            continue;
        if (strcmp(comp, "..") == 0) {
            if (ws_res_up(r)) {
                *res = WS_LINK_ESCAPES;
                rc = 1;
            }
            continue;
        }
        if (r->cl + 1 + strlen(comp) + 1 > RC_WS_PATH_MAX) {
            *res = WS_LINK_LOOP;
            rc = 1;
            continue;
        }
        r->cl += (size_t)snprintf(r->cur + r->cl, sizeof(r->cur) - r->cl,
                                  "%s%s", r->cl ? "/" : "", comp);
        if (r->missing)
            continue;
        if (fstatat(top, r->cur, &st, AT_SYMLINK_NOFOLLOW) == -1) {
            if (errno != ENOENT && errno != ENOTDIR)
                rc = err_sys(e, "workspace: stat while resolving a link");
            r->missing = 1;
        } else if (S_ISLNK(st.st_mode)) {
            rc = ws_res_follow(r, strlen(comp), res, e);
        } else {
            r->missing = !S_ISDIR(st.st_mode); /* a file ends lookups */
        }
    }
    free(r);
    return rc == -1 ? -1 : 0;
}

/* Read en's target into tgt and refuse an absolute or escaping one. */
static int
ws_check_link(struct ws_walk *w, const struct ws_entry *en, char *tgt,
              size_t size, struct err *e)
{
    char qp[WS_QUOTE_MAX + 8], qt[WS_QUOTE_MAX + 8], dir[RC_WS_PATH_MAX];
    struct ws_level *L = &w->lv[w->depth - 1];
    enum ws_link res = WS_LINK_INSIDE;
    ssize_t n;

    n = readlinkat(en->dirfd, en->name, tgt, size - 1);
    if (n == -1)
        return err_sys(e, "workspace: readlink \"%s\"",
                       ws_quote(qp, sizeof(qp), en->rel));
    tgt[n] = '\0';
    ws_quote(qp, sizeof(qp), en->rel);
    ws_quote(qt, sizeof(qt), tgt);
    if (tgt[0] == '/')
        return err_set(e, ERR_INVALID,
                       "symlink \"%s\" is absolute (\"%s\"): only relative "
                       "links inside the workspace are allowed",
                       qp, qt);
    memcpy(dir, w->rel, L->rel_len);
    dir[L->rel_len] = '\0';
    if (ws_link_resolve(w->lv[0].fd, dir, tgt, &res, e) == -1)
        return -1;
    if (res == WS_LINK_ESCAPES)
        return err_set(e, ERR_INVALID,
                       "symlink \"%s\" points outside the workspace (\"%s\")",
                       qp, qt);
    if (res == WS_LINK_LOOP)
        return err_set(e, ERR_INVALID,
                       "symlink \"%s\" does not resolve (\"%s\": more than "
                       "%d links or too long)",
                       qp, qt, RC_WS_MAX_LINK_HOPS);
    return 0;
}

/* --- the walk ------------------------------------------------------- */

static int
ws_cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
ws_level_free(struct ws_level *L)
{
    size_t i;

    for (i = 0; i < L->n; i++)
        free(L->names[i]);
    free(L->names);
    if (L->fd != -1)
        close(L->fd);
    memset(L, 0, sizeof(*L));
    L->fd = -1;
}

static int
ws_too_many(const struct ws_walk *w, struct err *e)
{
    return err_set(e, ERR_LIMIT,
                   "workspace has more than %" PRIu64 " inodes (files, "
                   "directories and symlinks, the top included)",
                   w->max_names);
}

/* Read and sort the names of L's directory; the walk's name count bounds
 * the memory a huge directory can take. */
static int
ws_list(struct ws_walk *w, struct ws_level *L, struct err *e)
{
    struct dirent *d;
    size_t cap = 0;
    char **p;
    DIR *dir;
    int fd, rc = -1;

    fd = openat(L->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd == -1)
        return err_sys(e, "workspace: open directory");
    dir = fdopendir(fd);
    if (dir == NULL) {
        err_sys(e, "workspace: open directory");
        close(fd);
        return -1;
    }
    L->names = NULL;
    for (errno = 0; (d = readdir(dir)) != NULL; errno = 0) {
        if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
            continue;
        if (++w->names > w->max_names) {
            ws_too_many(w, e);
            goto out;
        }
        if (L->n == cap) {
            cap = cap ? cap * 2 : 16;
            p = realloc(L->names, cap * sizeof(*p));
            if (p == NULL)
                goto nomem;
            L->names = p;
        }
        L->names[L->n] = strdup(d->d_name);
        if (L->names[L->n] == NULL)
            goto nomem;
        L->n++;
    }
    if (errno != 0) {
        err_sys(e, "workspace: read directory");
        goto out;
    }
    if (L->n > 0)
        qsort(L->names, L->n, sizeof(*L->names), ws_cmp_names);
    rc = 0;
    goto out;
nomem:
    err_set(e, ERR_NOMEM, "out of memory");
out:
    closedir(dir);
    return rc;
}

/* Open name in dirfd as a directory without following a symlink, and
 * make sure it is the directory that lstat just saw. */
static int
ws_open_dir(int dirfd, const char *name, const struct stat *seen,
            const char *rel, struct err *e)
{
    char q[WS_QUOTE_MAX + 8];
    struct stat st;
    int fd;

    fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd == -1 && (errno == ELOOP || errno == ENOTDIR || errno == ENOENT))
        return err_set(e, ERR_CONFLICT,
                       "directory \"%s\" changed while being read",
                       ws_quote(q, sizeof(q), rel));
    if (fd == -1)
        return err_sys(e, "workspace: open \"%s\"",
                       ws_quote(q, sizeof(q), rel));
    if (fstat(fd, &st) == -1 || st.st_dev != seen->st_dev ||
        st.st_ino != seen->st_ino) {
        close(fd);
        return err_set(e, ERR_CONFLICT,
                       "directory \"%s\" changed while being read",
                       ws_quote(q, sizeof(q), rel));
    }
    return fd;
}

/* Apply the per-type rules to one entry. */
static int
ws_check_entry(struct ws_walk *w, const struct ws_entry *en, char *tgt,
               size_t size, struct err *e)
{
    char q[WS_QUOTE_MAX + 8];
    mode_t m = en->st->st_mode;

    if (S_ISLNK(m))
        return ws_check_link(w, en, tgt, size, e);
    if (S_ISREG(m) && en->st->st_nlink > 1)
        return err_set(e, ERR_INVALID,
                       "file \"%s\" has %ju hard links; hard links are "
                       "refused (copy the file, or clone with "
                       "--no-hardlinks)",
                       ws_quote(q, sizeof(q), en->rel),
                       (uintmax_t)en->st->st_nlink);
    if (!S_ISREG(m) && !S_ISDIR(m))
        return err_set(e, ERR_INVALID,
                       "\"%s\" is a %s; only files, directories and "
                       "symlinks are allowed in a workspace",
                       ws_quote(q, sizeof(q), en->rel),
                       S_ISFIFO(m)   ? "fifo"
                       : S_ISSOCK(m) ? "socket"
                       : S_ISCHR(m)  ? "character device"
                       : S_ISBLK(m)  ? "block device"
                                     : "special file");
    return 0;
}

/* Visit the next name of the deepest level; descend into a directory. */
static int
ws_step(struct ws_walk *w, struct err *e)
{
    struct ws_level *L = &w->lv[w->depth - 1];
    char q[WS_QUOTE_MAX + 8], tgt[RC_WS_PATH_MAX];
    const char *name = L->names[L->next++];
    struct ws_entry en = { 0 };
    struct stat st;
    int n, fd;

    if (w->depth == 1 && w->skip_top != NULL && strcmp(name, w->skip_top) == 0)
        return 0;
    n = snprintf(w->rel + L->rel_len, sizeof(w->rel) - L->rel_len, "%s%s",
                 L->rel_len ? "/" : "", name);
    if (n < 0 || (size_t)n >= sizeof(w->rel) - L->rel_len)
        return err_set(e, ERR_INVALID, "path \"%s...\" is longer than %d bytes",
                       ws_quote(q, sizeof(q), w->rel), RC_WS_PATH_MAX - 1);
    en.rel = w->rel;
    en.name = name;
    en.dirfd = L->fd;
    en.st = &st;
    if (fstatat(L->fd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
        return errno == ENOENT ? err_set(e, ERR_CONFLICT,
                                         "\"%s\" vanished while being read",
                                         ws_quote(q, sizeof(q), w->rel))
                               : err_sys(e, "workspace: stat \"%s\"",
                                         ws_quote(q, sizeof(q), w->rel));
    if (ws_check_entry(w, &en, tgt, sizeof(tgt), e) == -1)
        return -1;
    en.link = S_ISLNK(st.st_mode) ? tgt : NULL;
    if (w->visit(&en, w->arg, e) == -1)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return 0;
    if (w->depth == RC_WS_MAX_DEPTH)
        return err_set(e, ERR_LIMIT,
                       "directory \"%s\" is deeper than %d levels",
                       ws_quote(q, sizeof(q), w->rel), RC_WS_MAX_DEPTH);
    fd = ws_open_dir(L->fd, name, &st, w->rel, e);
    if (fd == -1)
        return -1;
    w->lv[w->depth].fd = fd;
    w->lv[w->depth].rel_len = strlen(w->rel);
    w->depth++;
    return 0;
}

/* Walk the tree under top_fd (taken over: closed here) in pre-order. */
static int
ws_walk_run(struct ws_walk *w, int top_fd, struct err *e)
{
    struct ws_level *L;
    int rc = 0;
    unsigned i;

    for (i = 0; i <= RC_WS_MAX_DEPTH; i++)
        w->lv[i].fd = -1;
    w->lv[0].fd = top_fd;
    w->depth = 1;
    w->names = 1;
    if (w->names > w->max_names)
        rc = ws_too_many(w, e);
    while (rc == 0 && w->depth > 0) {
        L = &w->lv[w->depth - 1];
        if (!L->listed) {
            L->listed = 1;
            rc = ws_list(w, L, e);
            if (rc == -1)
                break;
        }
        if (L->next < L->n) {
            rc = ws_step(w, e);
            continue;
        }
        if (w->depth == 1)
            break; /* the top's fd is closed below with the rest */
        ws_level_free(L);
        w->depth--;
        w->rel[w->lv[w->depth - 1].rel_len] = '\0';
    }
    for (i = 0; i <= RC_WS_MAX_DEPTH; i++)
        if (w->lv[i].fd != -1 || w->lv[i].names != NULL)
            ws_level_free(&w->lv[i]);
    return rc;
}

/* --- the top --------------------------------------------------------- */

/* Open <root>/<source> through directories only. source is relative and
 * has no ".."; every component is lstat'ed (a symlink is refused) and
 * opened O_NOFOLLOW. Returns the fd or -1. */
static int
ws_open_top(const char *root, const char *source, struct err *e)
{
    char q[WS_QUOTE_MAX + 8], rest[RC_WS_PATH_MAX], comp[256];
    struct stat st;
    int fd, next;

    ws_quote(q, sizeof(q), source);
    if (source[0] == '\0' || source[0] == '/')
        return err_set(e, ERR_INVALID,
                       "workspace source \"%s\" must be a path relative to "
                       "the workspace root",
                       q);
    if (strlen(source) >= sizeof(rest))
        return err_set(e, ERR_INVALID, "workspace source \"%s\" is too long",
                       q);
    memcpy(rest, source, strlen(source) + 1);
    fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd == -1)
        return err_sys(e, "workspace root %s", root);
    while (rest[0] != '\0') {
        ws_next_comp(rest, comp, sizeof(comp));
        if (comp[0] == '\0' || strcmp(comp, ".") == 0)
            continue;
        if (strcmp(comp, "..") == 0) {
            close(fd);
            return err_set(e, ERR_INVALID,
                           "workspace source \"%s\" leaves the workspace "
                           "root (\"..\" is not allowed)",
                           q);
        }
        if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == -1) {
            close(fd);
            if (errno == ENOENT)
                return err_set(e, ERR_INVALID,
                               "workspace source \"%s\" does not exist "
                               "under the workspace root",
                               q);
            return err_sys(e, "workspace source \"%s\"", q);
        }
        if (!S_ISDIR(st.st_mode)) {
            close(fd);
            return err_set(e, ERR_INVALID,
                           "workspace source \"%s\" is %s, not a directory", q,
                           S_ISLNK(st.st_mode) ? "a symlink" : "a file");
        }
        next = ws_open_dir(fd, comp, &st, source, e);
        close(fd);
        if (next == -1)
            return -1;
        fd = next;
    }
    return fd;
}

static int
ws_walk_tree(const char *root, const char *source, struct ws_walk *w,
             struct err *e)
{
    int top = ws_open_top(root, source, e);

    if (top == -1)
        return -1;
    return ws_walk_run(w, top, e);
}

/* --- check ------------------------------------------------------------ */

struct ws_check {
    uint64_t max_bytes;
    struct rc_workspace_stats st;
};

static int
ws_check_visit(const struct ws_entry *en, void *arg, struct err *e)
{
    struct ws_check *c = arg;
    char q[WS_QUOTE_MAX + 8];
    mode_t m = en->st->st_mode;

    c->st.inodes++;
    c->st.files += S_ISREG(m);
    c->st.dirs += S_ISDIR(m);
    c->st.symlinks += S_ISLNK(m);
    c->st.bytes += RC_WS_ENTRY_BYTES;
    if (S_ISREG(m))
        c->st.bytes += (uint64_t)en->st->st_size;
    c->st.name_bytes += strlen(en->rel) + (en->link ? strlen(en->link) : 0);
    if (c->st.bytes > c->max_bytes)
        return err_set(e, ERR_LIMIT,
                       "workspace is larger than its limit of %" PRIu64
                       " bytes (counting %u bytes per entry), passed at "
                       "\"%s\"",
                       c->max_bytes, RC_WS_ENTRY_BYTES,
                       ws_quote(q, sizeof(q), en->rel));
    return 0;
}

int
rc_workspace_check(const char *root, const char *source, uint64_t max_bytes,
                   uint64_t max_inodes, struct rc_workspace_stats *out,
                   struct err *e)
{
    struct ws_check c = { 0 };
    struct ws_walk w = { 0 };

    c.max_bytes = max_bytes;
    c.st.inodes = 1; /* the top */
    c.st.dirs = 1;
    c.st.bytes = RC_WS_ENTRY_BYTES;
    if (c.st.bytes > max_bytes)
        return err_set(e, ERR_LIMIT,
                       "workspace is larger than its limit of %" PRIu64
                       " bytes (counting %u bytes per entry)",
                       max_bytes, RC_WS_ENTRY_BYTES);
    w.max_names = max_inodes;
    w.visit = ws_check_visit;
    w.arg = &c;
    if (ws_walk_tree(root, source, &w, e) == -1)
        return -1;
    *out = c.st;
    return 0;
}

uint64_t
rc_workspace_tar_max(const struct rc_workspace_stats *st)
{
    /* bytes already has one 512-byte header per entry. On top, per entry:
     * the data's padding (511), a pax 'x' header (512) whose records
     * (path, linkpath, times: the names plus < 512) pad to 512 more, and
     * some slack; twice the names for the records; the end-of-archive
     * blocks. */
    return st->bytes + st->inodes * 2560 + 2 * st->name_bytes + 16384;
}

/* --- file contents ----------------------------------------------------- */

typedef int ws_data_fn(const void *p, size_t n, void *arg, struct err *e);

static int
ws_changed(const struct ws_entry *en, struct err *e)
{
    char q[WS_QUOTE_MAX + 8];

    return err_set(e, ERR_CONFLICT, "file \"%s\" changed while being read",
                   ws_quote(q, sizeof(q), en->rel));
}

/* Hand fn exactly the st_size bytes of the regular file lstat saw: opened
 * O_NOFOLLOW | O_NONBLOCK (a fifo swapped in cannot block us), it must
 * still be the same single-link inode with the same size and mtime, and
 * it must end where that size says. */
static int
ws_read_file(const struct ws_entry *en, ws_data_fn *fn, void *arg,
             struct err *e)
{
    const struct stat *s = en->st;
    uint64_t left = (uint64_t)s->st_size;
    char q[WS_QUOTE_MAX + 8], *chunk;
    struct stat st;
    int fd, rc = -1;
    ssize_t r;

    fd = openat(en->dirfd, en->name,
                O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd == -1)
        return errno == ELOOP || errno == ENOENT
                   ? ws_changed(en, e)
                   : err_sys(e, "workspace: open \"%s\"",
                             ws_quote(q, sizeof(q), en->rel));
    chunk = malloc(WS_IO_CHUNK);
    if (chunk == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        goto out;
    }
    if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
        st.st_dev != s->st_dev || st.st_ino != s->st_ino || st.st_nlink != 1 ||
        st.st_size != s->st_size || st.st_mtim.tv_sec != s->st_mtim.tv_sec ||
        st.st_mtim.tv_nsec != s->st_mtim.tv_nsec) {
        ws_changed(en, e);
        goto out;
    }
    while (left > 0) {
        r = read(fd, chunk, left < WS_IO_CHUNK ? left : WS_IO_CHUNK);
        if (r == -1 && errno == EINTR)
            continue;
        if (r == -1) {
            err_sys(e, "workspace: read \"%s\"",
                    ws_quote(q, sizeof(q), en->rel));
            goto out;
        }
        if (r == 0) {
            ws_changed(en, e); /* shrank */
            goto out;
        }
        if (fn(chunk, (size_t)r, arg, e) == -1)
            goto out;
        left -= (uint64_t)r;
    }
    if (read(fd, chunk, 1) != 0) { /* grew (or failed) */
        ws_changed(en, e);
        goto out;
    }
    rc = 0;
out:
    free(chunk);
    close(fd);
    return rc;
}

/* --- tar ---------------------------------------------------------------- */

struct ws_tar {
    struct archive *a;
    struct archive_entry *ae;
    struct buf *out;
    uid_t uid;
    gid_t gid;
    struct err werr; /* why the output callback refused, if it did */
};

static la_ssize_t
ws_tar_out(struct archive *a, void *arg, const void *p, size_t n)
{
    struct ws_tar *t = arg;

    if (buf_append(t->out, p, n, &t->werr) == -1) {
        archive_set_error(a, EFBIG, "%s", t->werr.msg);
        return -1;
    }
    return (la_ssize_t)n;
}

/* A libarchive failure as our error: the output callback's own reason
 * (ERR_LIMIT at the cap) when it has one. */
static int
ws_tar_fail(struct ws_tar *t, const char *what, struct err *e)
{
    if (t->werr.code != ERR_OK) {
        if (e != NULL)
            *e = t->werr;
        err_prefix(e, "workspace tar: ");
        return -1;
    }
    return err_set(e, ERR_IO, "workspace tar: %s: %s", what,
                   archive_error_string(t->a) ? archive_error_string(t->a)
                                              : "unknown error");
}

static int
ws_tar_data(const void *p, size_t n, void *arg, struct err *e)
{
    struct ws_tar *t = arg;

    if (archive_write_data(t->a, p, n) != (la_ssize_t)n)
        return ws_tar_fail(t, "write data", e);
    return 0;
}

static int
ws_tar_visit(const struct ws_entry *en, void *arg, struct err *e)
{
    struct ws_tar *t = arg;
    const struct stat *s = en->st;

    archive_entry_clear(t->ae);
    archive_entry_copy_pathname(t->ae, en->rel);
    /* Keep the type and rwx bits; setuid, setgid and sticky never reach
     * the agent's storage. */
    archive_entry_set_mode(t->ae, s->st_mode & (S_IFMT | 0777));
    archive_entry_set_uid(t->ae, t->uid);
    archive_entry_set_gid(t->ae, t->gid);
    archive_entry_set_mtime(t->ae, s->st_mtim.tv_sec, s->st_mtim.tv_nsec);
    archive_entry_set_size(t->ae, S_ISREG(s->st_mode) ? s->st_size : 0);
    if (en->link != NULL)
        archive_entry_copy_symlink(t->ae, en->link);
    if (archive_write_header(t->a, t->ae) < ARCHIVE_WARN)
        return ws_tar_fail(t, "write header", e);
    if (S_ISREG(s->st_mode))
        return ws_read_file(en, ws_tar_data, t, e);
    return 0;
}

int
rc_workspace_tar(const char *root, const char *source, uid_t uid, gid_t gid,
                 const char *skip_top, struct buf *out, struct err *e)
{
    struct ws_tar t = { 0 };
    struct ws_walk w = { 0 };
    int rc = -1;

    t.out = out;
    t.uid = uid;
    t.gid = gid;
    t.a = archive_write_new();
    t.ae = archive_entry_new();
    if (t.a == NULL || t.ae == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        goto out;
    }
    if (archive_write_set_format_pax_restricted(t.a) != ARCHIVE_OK ||
        archive_write_set_bytes_in_last_block(t.a, 1) != ARCHIVE_OK ||
        archive_write_open(t.a, &t, NULL, ws_tar_out, NULL) != ARCHIVE_OK) {
        ws_tar_fail(&t, "open", e);
        goto out;
    }
    w.skip_top = skip_top;
    /* Every entry costs at least one 512-byte header, so the cap bounds
     * how many names are worth listing. */
    w.max_names = out->max / 512 + 1;
    w.visit = ws_tar_visit;
    w.arg = &t;
    if (ws_walk_tree(root, source, &w, e) == -1)
        goto out;
    if (archive_write_close(t.a) != ARCHIVE_OK) {
        ws_tar_fail(&t, "close", e);
        goto out;
    }
    rc = 0;
out:
    archive_entry_free(t.ae);
    if (t.a != NULL)
        archive_write_free(t.a);
    return rc;
}

/* --- digest ------------------------------------------------------------- */

static int
ws_md_data(const void *p, size_t n, void *arg, struct err *e)
{
    if (EVP_DigestUpdate(arg, p, n) != 1)
        return err_set(e, ERR_NOMEM, "workspace digest: sha256 failed");
    return 0;
}

static void
ws_hex(const unsigned char *md, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    int i;

    for (i = 0; i < 32; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = '\0';
}

/* Finish ctx into hex; 0 or -1. */
static int
ws_md_final(EVP_MD_CTX *ctx, char out[65], struct err *e)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;

    if (EVP_DigestFinal_ex(ctx, md, &len) != 1 || len != 32)
        return err_set(e, ERR_NOMEM, "workspace digest: sha256 failed");
    ws_hex(md, out);
    return 0;
}

/* One listing record: "<type> <mode> <size> <len>:<path> <payload>\n",
 * payload = content sha256 (file), <len>:<target> (symlink), "-" (dir).
 * Lengths make the record unambiguous whatever bytes a name holds. */
static int
ws_digest_visit(const struct ws_entry *en, void *arg, struct err *e)
{
    EVP_MD_CTX *all = arg, *file = NULL;
    const struct stat *s = en->st;
    char head[96], sum[65];
    int n, rc = -1;

    n = snprintf(head, sizeof(head), "%c %04o %jd %zu:",
                 S_ISREG(s->st_mode)   ? 'f'
                 : S_ISDIR(s->st_mode) ? 'd'
                                       : 'l',
                 (unsigned)(s->st_mode & 07777),
                 S_ISREG(s->st_mode) ? (intmax_t)s->st_size : 0,
                 strlen(en->rel));
    if (ws_md_data(head, (size_t)n, all, e) == -1 ||
        ws_md_data(en->rel, strlen(en->rel), all, e) == -1)
        return -1;
    if (en->link != NULL) {
        n = snprintf(head, sizeof(head), " %zu:", strlen(en->link));
        if (ws_md_data(head, (size_t)n, all, e) == -1 ||
            ws_md_data(en->link, strlen(en->link), all, e) == -1)
            return -1;
    } else if (S_ISREG(s->st_mode)) {
        file = EVP_MD_CTX_new();
        if (file == NULL || EVP_DigestInit_ex(file, EVP_sha256(), NULL) != 1) {
            err_set(e, ERR_NOMEM, "workspace digest: sha256 failed");
            goto out;
        }
        if (ws_read_file(en, ws_md_data, file, e) == -1 ||
            ws_md_final(file, sum, e) == -1 ||
            ws_md_data(" ", 1, all, e) == -1 ||
            ws_md_data(sum, 64, all, e) == -1)
            goto out;
    } else if (ws_md_data(" -", 2, all, e) == -1) {
        goto out;
    }
    rc = ws_md_data("\n", 1, all, e);
out:
    EVP_MD_CTX_free(file);
    return rc;
}

int
rc_workspace_digest(const char *root, const char *subdir, char out[65],
                    struct err *e)
{
    struct ws_walk w = { 0 };
    EVP_MD_CTX *all = EVP_MD_CTX_new();
    char sum[65];
    int rc = -1;

    if (all == NULL || EVP_DigestInit_ex(all, EVP_sha256(), NULL) != 1) {
        err_set(e, ERR_NOMEM, "workspace digest: sha256 failed");
        goto out;
    }
    w.max_names = WS_DIGEST_MAX_NAMES;
    w.visit = ws_digest_visit;
    w.arg = all;
    if (ws_walk_tree(root, subdir, &w, e) == -1 ||
        ws_md_final(all, sum, e) == -1)
        goto out;
    memcpy(out, sum, sizeof(sum));
    rc = 0;
out:
    EVP_MD_CTX_free(all);
    return rc;
}

/* --- reasons -------------------------------------------------------------- */

enum rc_ws_reason
rc_workspace_reason(const struct err *e)
{
    if (e == NULL || e->code == ERR_OK)
        return RC_WS_OK;
    if (e->code == ERR_INVALID)
        return RC_WS_UNSAFE;
    if (e->code == ERR_LIMIT)
        return RC_WS_TOO_LARGE;
    return RC_WS_ERROR;
}

const char *
rc_workspace_reason_name(enum rc_ws_reason r)
{
    switch (r) {
    case RC_WS_UNSAFE:
        return "UnsafeWorkspace";
    case RC_WS_TOO_LARGE:
        return "WorkspaceTooLarge";
    case RC_WS_OK:
    case RC_WS_ERROR:
        break;
    }
    return NULL;
}
