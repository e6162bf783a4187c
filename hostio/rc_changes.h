/* rc_changes.h - the agent's work, brought back (docs/changes.md).
 *
 * At upload, the tar writer lists what it packed: the base manifest, one
 * JSON line per entry of the workspace (path, type, mode, size, content
 * sha256 or link target; .git left out, it has a volume and a digest of
 * its own). After the agent, the keeper's /work comes back as Docker's
 * archive, spooled to a file; rc_changes_build() compares the two and
 * writes the change set beside the output:
 *
 *   <out>.tar   the added and modified files, symlinks and directories
 *   <out>.diff  a unified diff of the text files (libgit2's), bounded
 *   <out>.json  the summary: added, modified, deleted, mode changes,
 *               binary files, refused entries, the diff's sha256
 *
 * The rules of the upload hold on the way back: an entry whose path
 * leaves the tree, a hard link, a symlink that is absolute or leaves the
 * tree, a device, FIFO or socket, a file over the workspace's size is
 * refused, named with its reason, and never written; the other changes
 * are kept. rc_changes_apply() puts a change set onto a checkout of the
 * same base: every target checked first (nothing outside the directory,
 * no symlink followed, each file still the base's bytes), then every new
 * file written beside its target, then renamed into place; a conflict
 * stops it before anything is touched.
 *
 * Both run on any thread; neither holds more than one file's diff (at
 * most RC_CHANGES_DIFF_FILE_MAX per side) and the base manifest in
 * memory.
 */
#ifndef RC_CHANGES_H
#define RC_CHANGES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "err.h"

#define RC_CHANGES_DIFF_FILE_MAX (1u << 20) /* a side diffed whole */
#define RC_CHANGES_DIFF_MAX      (8u << 20) /* the diff file kept */
#define RC_CHANGES_LIST_MAX      1000 /* entries of each list in the JSON */

/* The base manifest, written as the workspace is packed. */
struct rc_changes_base_writer;
struct rc_changes_base_writer *rc_changes_base_open(const char *path,
                                                    struct err *e);
/* One entry: type 'f' (sha256 hex), 'l' (target) or 'd' (payload NULL);
 * rel below the workspace's top. */
int rc_changes_base_add(struct rc_changes_base_writer *w, const char *rel,
                        char type, unsigned mode, uint64_t size,
                        const char *payload, struct err *e);
/* Commit the manifest (rename into place): 0, or -1 with e. */
int rc_changes_base_close(struct rc_changes_base_writer *w, struct err *e);
/* Drop it: the packing failed. NULL is a no-op. */
void rc_changes_base_abort(struct rc_changes_base_writer *w);

struct rc_changes_opts {
    const char *base;   /* the base manifest */
    const char *after;  /* Docker's archive of /work (entries "work/...") */
    const char *root;   /* <root>/<source>: the base's bytes for the diff */
    const char *source;
    const char *out;    /* the change set: <out>.tar, .diff, .json */
    uint64_t max_file_bytes;  /* a file over it is refused */
    uint64_t max_total_bytes; /* the archive's content, then refused */
    bool partial;       /* the attempt did not end with the agent's success */
    const int *cancel;  /* non-zero (read atomically): stop, ERR_IO */
};

struct rc_changes_summary {
    uint64_t added, modified, deleted, mode_changed; /* entries */
    uint64_t not_diffed; /* changed files with no text diff (binary, over
                            RC_CHANGES_DIFF_FILE_MAX, base unreadable) */
    uint64_t refused; /* entries refused (listed by name in the JSON) */
    uint64_t bytes;   /* content bytes of the added and modified files */
    char diff_sha256[65];
    bool truncated; /* the diff, or a list, was cut at its bound */
};

/* Build the change set. ERR_SYNTAX: the archive or the manifest is
 * broken; ERR_IO: a file could not be read or written. */
int rc_changes_build(const struct rc_changes_opts *o,
                     struct rc_changes_summary *s, struct err *e);

/* Apply the change set at <changes>.tar/.json to dir (see above). On a
 * conflict: ERR_CONFLICT naming the path, and nothing changed. report
 * (may be NULL) gets one line per applied entry. */
int rc_changes_apply(const char *changes, const char *dir, FILE *report,
                     struct err *e);

#endif
