/* rc_workspace.h - the workspace before it becomes storage (docs/design.md "A
 * workspace with a symlink that is absolute or leaves the tree, or over
 * its byte or inode limit, fails before any storage is created"):
 * check it, pack it as the tar that PUT /containers/{id}/archive takes
 * (docs/docker-notes.md section 6), and digest a subtree (.git).
 *
 * Every function resolves <root>/<source> one component at a time with
 * openat(O_NOFOLLOW | O_DIRECTORY) and walks the tree by directory
 * descriptors, so no path is ever followed through a symlink, and each
 * applies the same rules while it walks:
 *   - a symlink must be relative and, resolved from its own directory
 *     through any other symlinks it meets inside the tree (at most
 *     RC_WS_MAX_LINK_HOPS of them), must stay inside the top;
 *   - no devices, fifos or sockets;
 *   - no regular file with more than one hard link (we refuse rather than
 *     count once: simplest and safe; a repository made by a local
 *     `git clone` hard-links its objects: clone with --no-hardlinks);
 *   - at most RC_WS_MAX_DEPTH directory levels, paths under
 *     RC_WS_PATH_MAX bytes.
 * Entries are visited in byte order of their names, so the tar and the
 * digest are deterministic.
 *
 * Errors: ERR_INVALID = unsafe (reason UnsafeWorkspace), ERR_LIMIT = too
 * large (WorkspaceTooLarge), ERR_CONFLICT = the tree changed while it was
 * read (retry), ERR_IO / ERR_NOMEM = the controller's trouble (retry).
 * Messages name the path relative to the workspace, e.g.
 * symlink "lib/evil" points outside the workspace ("../../etc").
 */
#ifndef RC_WORKSPACE_H
#define RC_WORKSPACE_H

#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "err.h"

#define RC_WS_ENTRY_BYTES   512u /* bytes counted per inode, see below */
#define RC_WS_MAX_DEPTH     256
#define RC_WS_MAX_LINK_HOPS 40
#define RC_WS_PATH_MAX      4096

struct rc_workspace_stats {
    /* Sum of regular file sizes plus RC_WS_ENTRY_BYTES per inode: the size
     * of a tar header, a rough stand-in for what a directory, symlink or
     * inode costs. tmpfs rounds each file up to a 4 KiB page, so a tree of
     * many small files can pass this check and still fill the volume; the
     * upload then fails with ENOSPC. */
    uint64_t bytes;
    uint64_t inodes; /* files + dirs + symlinks, the top dir included */
    uint64_t files, dirs, symlinks;
    uint64_t name_bytes; /* sum of path and link target lengths */
};

enum rc_ws_reason {
    RC_WS_OK = 0,
    RC_WS_UNSAFE,    /* UnsafeWorkspace: not retried */
    RC_WS_TOO_LARGE, /* WorkspaceTooLarge: not retried */
    RC_WS_ERROR,     /* anything else: retry with backoff */
};

/* Check <root>/<source>: source is relative, without "..", a directory
 * reached through directories only (no symlink anywhere in it). root is
 * the controller's configured workspaceRoot and trusted as given. Fails
 * when bytes > max_bytes or inodes > max_inodes (exactly at a limit
 * passes). *out is written only on success. */
int rc_workspace_check(const char *root, const char *source, uint64_t max_bytes,
                       uint64_t max_inodes, struct rc_workspace_stats *out,
                       struct err *e);

/* A cap for rc_workspace_tar()'s buffer that any tree with these stats
 * fits in: the stats' bytes plus, per entry, header padding and a pax
 * extended header, plus the names and the end-of-archive blocks. */
uint64_t rc_workspace_tar_max(const struct rc_workspace_stats *st);

/* Append to out a tar (pax restricted: plain ustar unless a name needs
 * more) of the contents of <root>/<source>, the top itself not included:
 * relative names, every entry owned by uid:gid with empty user and group
 * names, permission bits kept but setuid/setgid/sticky cleared, symlinks
 * as symlinks, mtime kept. A top-level entry named skip_top (e.g. ".git")
 * is left out with everything under it; NULL skips nothing. The rules of
 * the header are applied again while packing, and each file is opened
 * O_NOFOLLOW and must still be the inode, size and mtime just seen and
 * read to exactly that size, so nothing unchecked is packed. out's cap
 * bounds the archive (ERR_LIMIT past it; size it with
 * rc_workspace_tar_max()). On failure out holds garbage: reset it. */
int rc_workspace_tar(const char *root, const char *source, uid_t uid, gid_t gid,
                     const char *skip_top, struct buf *out, struct err *e);

/* SHA-256 (lower-case hex, NUL-terminated) of a canonical listing of the
 * tree <root>/<subdir>: for each entry in walk order its path, type,
 * permission bits, size and content hash (files) or target (symlinks).
 * Owners and times are left out, so two copies of a tree digest the same
 * and any change of content, name, mode or link differs. */
int rc_workspace_digest(const char *root, const char *subdir, char out[65],
                        struct err *e);

/* The same digest of the entries under top/ (e.g. ".git") in a tar
 * archive held in memory (leading "./" ignored; top itself left out), so
 * that the archive the controller uploads and the one Docker returns from
 * the keeper can be compared. A hard link counts as its own type (they
 * are never uploaded). ERR_SYNTAX for a broken archive. */
int rc_workspace_tar_digest(const void *tar, size_t len, const char *top,
                            char out[65], struct err *e);

/* What the controller reports for a failed check/tar: the reason class
 * of e->code. */
enum rc_ws_reason rc_workspace_reason(const struct err *e);

/* "UnsafeWorkspace", "WorkspaceTooLarge"; NULL for RC_WS_OK and
 * RC_WS_ERROR. */
const char *rc_workspace_reason_name(enum rc_ws_reason r);

#endif
