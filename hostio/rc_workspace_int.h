/* rc_workspace_int.h - what the files of the workspace module share: the
 * one walk (rc_workspace_walk.c) that applies every rule of rc_workspace.h,
 * and the entry it hands each visitor: the check (rc_workspace.c), the tar
 * (rc_workspace_tar.c) and the digest (rc_workspace_digest.c). Not for
 * other modules. */
#ifndef RC_WORKSPACE_INT_H
#define RC_WORKSPACE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"
#include "rc_changes.h"
#include "rc_workspace.h"

/* Longest quote of a name in a message; a buffer for rc__ws_quote() is
 * RC__WS_QUOTE_MAX + 8 bytes. */
#define RC__WS_QUOTE_MAX 80

/* One entry as a visitor sees it, checked by the walk. */
struct rc__ws_entry {
    const char *rel;       /* path relative to the top */
    const char *name;      /* last component of rel */
    int dirfd;             /* the directory that holds it */
    const struct stat *st; /* lstat view */
    const char *link;      /* symlink target, else NULL */
};

/* Called once per entry, in walk order; -1 (with e set) stops the walk. */
typedef int rc__ws_visit_fn(const struct rc__ws_entry *en, void *arg,
                            struct err *e);

/* Called with the bytes of a file, a chunk at a time. */
typedef int rc__ws_data_fn(const void *p, size_t n, void *arg, struct err *e);

/* Render s for a message: printable ASCII as is, '"' and '\\' and other
 * bytes escaped, cut with "..." so two quotes fit in one message. Returns
 * dst. */
const char *rc__ws_quote(char *dst, size_t size, const char *s);

/* Walk <root>/<source> (opened through directories only, see
 * rc_workspace_check()) in pre-order, names in byte order, calling visit
 * for every entry once the walk's rules passed for it; the top itself is
 * not visited. A top-level entry named skip_top is left out with
 * everything under it (NULL skips nothing). More than max_names inodes
 * (the top included) fail with ERR_LIMIT. visit returning -1 stops the
 * walk; its error is returned. */
int rc__ws_walk(const char *root, const char *source, const char *skip_top,
                uint64_t max_names, rc__ws_visit_fn *visit, void *arg,
                struct err *e);

/* Hand fn exactly the st_size bytes of the regular file en (opened
 * O_NOFOLLOW | O_NONBLOCK): it must still be the same single-link inode
 * with the same size and mtime, and end where that size says; otherwise
 * ERR_CONFLICT (it changed while being read). */
int rc__ws_read_file(const struct rc__ws_entry *en, rc__ws_data_fn *fn,
                     void *arg, struct err *e);

/* The canonical listing of rc_workspace_tar_digest() built from entries
 * handed over one at a time (the tar writer's, as it writes them): rel
 * below the top, type 'f' 'd' 'l', permission bits, size (files) and
 * payload (content sha256 hex for files, target for links, NULL for
 * dirs). The digest sorts into walk order, so it equals the one read
 * back from the archive. */
struct rc__git_list;
struct rc__git_list *rc__git_list_new(void);
int rc__git_list_add(struct rc__git_list *gl, const char *rel, char type,
                     unsigned mode, int64_t size, const char *payload,
                     struct err *e);
int rc__git_list_digest(struct rc__git_list *gl, char out[65], struct err *e);
void rc__git_list_free(struct rc__git_list *gl);

/* Where the tar writer puts its bytes: -1 (with e) stops it. */
typedef int rc__ws_out_fn(const void *p, size_t n, void *arg, struct err *e);

/* What rc__ws_tar_run() is asked for beyond rc_workspace_tar(). */
struct rc__ws_tar_opts {
    uid_t uid;
    gid_t gid;
    const char *skip_top;   /* top-level name left out, or NULL */
    uint64_t max_bytes;     /* archive cap (ERR_LIMIT past it) */
    rc__ws_out_fn *out;     /* gets the archive in blocks of <= 10 KiB */
    void *out_arg;
    const char *digest_top; /* ".git": its entries go into digest */
    struct rc__git_list *digest;
    /* the base manifest of the change set: every entry but .git's
     * (rc_changes.h); NULL: none */
    struct rc_changes_base_writer *base;
    const int *cancel;      /* non-zero (read atomically): stop, ERR_IO */
};

/* rc_workspace_tar() with the archive handed to o->out as it is made
 * (rc_workspace_tar.c). */
int rc__ws_tar_run(const char *root, const char *source,
                   const struct rc__ws_tar_opts *o, struct err *e);

#endif
