/* rc_workspace_walk.c - walk a workspace by directory descriptors and refuse
 * what must not reach an agent's storage (the rules of rc_workspace.h:
 * symlinks that are absolute or leave the tree, devices, fifos, sockets,
 * hard links, depth, path length), and read a file the walk saw without
 * trusting it to have stayed the same. The check, the tar and the digest
 * are visitors of this one walk, so they share every rule. */
#include "rc_workspace_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WS_IO_CHUNK 65536

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
    rc__ws_visit_fn *visit;
    void *arg;
    unsigned depth;
    struct ws_level lv[RC_WS_MAX_DEPTH + 1];
    char rel[RC_WS_PATH_MAX];
};

const char *
rc__ws_quote(char *dst, size_t size, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;

    for (; *s != '\0' && o + 5 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (o >= RC__WS_QUOTE_MAX) {
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
ws_check_link(struct ws_walk *w, const struct rc__ws_entry *en, char *tgt,
              size_t size, struct err *e)
{
    char qp[RC__WS_QUOTE_MAX + 8], qt[RC__WS_QUOTE_MAX + 8],
        dir[RC_WS_PATH_MAX];
    struct ws_level *L = &w->lv[w->depth - 1];
    enum ws_link res = WS_LINK_INSIDE;
    ssize_t n;

    n = readlinkat(en->dirfd, en->name, tgt, size - 1);
    if (n == -1)
        return err_sys(e, "workspace: readlink \"%s\"",
                       rc__ws_quote(qp, sizeof(qp), en->rel));
    tgt[n] = '\0';
    rc__ws_quote(qp, sizeof(qp), en->rel);
    rc__ws_quote(qt, sizeof(qt), tgt);
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
    char q[RC__WS_QUOTE_MAX + 8];
    struct stat st;
    int fd;

    fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd == -1 && (errno == ELOOP || errno == ENOTDIR || errno == ENOENT))
        return err_set(e, ERR_CONFLICT,
                       "directory \"%s\" changed while being read",
                       rc__ws_quote(q, sizeof(q), rel));
    if (fd == -1)
        return err_sys(e, "workspace: open \"%s\"",
                       rc__ws_quote(q, sizeof(q), rel));
    if (fstat(fd, &st) == -1 || st.st_dev != seen->st_dev ||
        st.st_ino != seen->st_ino) {
        close(fd);
        return err_set(e, ERR_CONFLICT,
                       "directory \"%s\" changed while being read",
                       rc__ws_quote(q, sizeof(q), rel));
    }
    return fd;
}

/* Apply the per-type rules to one entry. */
static int
ws_check_entry(struct ws_walk *w, const struct rc__ws_entry *en, char *tgt,
               size_t size, struct err *e)
{
    char q[RC__WS_QUOTE_MAX + 8];
    mode_t m = en->st->st_mode;

    if (S_ISLNK(m))
        return ws_check_link(w, en, tgt, size, e);
    if (S_ISREG(m) && en->st->st_nlink > 1)
        return err_set(e, ERR_INVALID,
                       "file \"%s\" has %ju hard links; hard links are "
                       "refused (copy the file, or clone with "
                       "--no-hardlinks)",
                       rc__ws_quote(q, sizeof(q), en->rel),
                       (uintmax_t)en->st->st_nlink);
    if (!S_ISREG(m) && !S_ISDIR(m))
        return err_set(e, ERR_INVALID,
                       "\"%s\" is a %s; only files, directories and "
                       "symlinks are allowed in a workspace",
                       rc__ws_quote(q, sizeof(q), en->rel),
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
    char q[RC__WS_QUOTE_MAX + 8], tgt[RC_WS_PATH_MAX];
    const char *name = L->names[L->next++];
    struct rc__ws_entry en = { 0 };
    struct stat st;
    int n, fd;

    if (w->depth == 1 && w->skip_top != NULL && strcmp(name, w->skip_top) == 0)
        return 0;
    n = snprintf(w->rel + L->rel_len, sizeof(w->rel) - L->rel_len, "%s%s",
                 L->rel_len ? "/" : "", name);
    if (n < 0 || (size_t)n >= sizeof(w->rel) - L->rel_len)
        return err_set(e, ERR_INVALID, "path \"%s...\" is longer than %d bytes",
                       rc__ws_quote(q, sizeof(q), w->rel), RC_WS_PATH_MAX - 1);
    en.rel = w->rel;
    en.name = name;
    en.dirfd = L->fd;
    en.st = &st;
    if (fstatat(L->fd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
        return errno == ENOENT ? err_set(e, ERR_CONFLICT,
                                         "\"%s\" vanished while being read",
                                         rc__ws_quote(q, sizeof(q), w->rel))
                               : err_sys(e, "workspace: stat \"%s\"",
                                         rc__ws_quote(q, sizeof(q), w->rel));
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
                       rc__ws_quote(q, sizeof(q), w->rel), RC_WS_MAX_DEPTH);
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
    char q[RC__WS_QUOTE_MAX + 8], rest[RC_WS_PATH_MAX], comp[256];
    struct stat st;
    int fd, next;

    rc__ws_quote(q, sizeof(q), source);
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

int
rc__ws_walk(const char *root, const char *source, const char *skip_top,
            uint64_t max_names, rc__ws_visit_fn *visit, void *arg,
            struct err *e)
{
    struct ws_walk w = { 0 };
    int top = ws_open_top(root, source, e);

    if (top == -1)
        return -1;
    w.skip_top = skip_top;
    w.max_names = max_names;
    w.visit = visit;
    w.arg = arg;
    return ws_walk_run(&w, top, e);
}

/* --- file contents ----------------------------------------------------- */

static int
ws_changed(const struct rc__ws_entry *en, struct err *e)
{
    char q[RC__WS_QUOTE_MAX + 8];

    return err_set(e, ERR_CONFLICT, "file \"%s\" changed while being read",
                   rc__ws_quote(q, sizeof(q), en->rel));
}

/* Hand fn exactly the st_size bytes of the regular file lstat saw: opened
 * O_NOFOLLOW | O_NONBLOCK (a fifo swapped in cannot block us), it must
 * still be the same single-link inode with the same size and mtime, and
 * it must end where that size says. */
int
rc__ws_read_file(const struct rc__ws_entry *en, rc__ws_data_fn *fn, void *arg,
                 struct err *e)
{
    const struct stat *s = en->st;
    uint64_t left = (uint64_t)s->st_size;
    char q[RC__WS_QUOTE_MAX + 8], *chunk;
    struct stat st;
    int fd, rc = -1;
    ssize_t r;

    fd = openat(en->dirfd, en->name,
                O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd == -1)
        return errno == ELOOP || errno == ENOENT
                   ? ws_changed(en, e)
                   : err_sys(e, "workspace: open \"%s\"",
                             rc__ws_quote(q, sizeof(q), en->rel));
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
                    rc__ws_quote(q, sizeof(q), en->rel));
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
