/* rc_changes_diff.h - the change set's unified diff (rc_changes.c): one
 * file at a time through libgit2's diff of two buffers, with git's mode
 * lines, the old side read from the host's workspace and checked against
 * the base manifest's sha256, bounded by RC_CHANGES_DIFF_MAX. Not for
 * other modules. */
#ifndef RC_CHANGES_DIFF_H
#define RC_CHANGES_DIFF_H

#include <stdbool.h>
#include <stdio.h>

#include "rc_changes_int.h"

/* One side of a file's diff: its first RC_CHANGES_DIFF_FILE_MAX bytes. */
struct rc__side {
    char *data;
    size_t len;
    bool over; /* there were more: not diffed */
    bool nul;  /* a NUL byte: binary */
};

void rc__side_init(struct rc__side *s);
void rc__side_take(struct rc__side *s, const char *p, size_t n);
void rc__side_free(struct rc__side *s);

struct rc__diff {
    FILE *f;
    struct evp_md_ctx_st *md;
    uint64_t len;
    int src;           /* <root>/<source>, or -1 */
    cJSON *not_diffed; /* the JSON's list (borrowed) */
    uint64_t skipped;  /* entries not diffed */
    bool truncated;
};

int rc__diff_open(struct rc__diff *d, const char *path, const char *root,
                  const char *source, cJSON *not_diffed, struct err *e);
/* A file's patch: base (the old side's entry; NULL for an added file),
 * after (NULL for a deleted file) with its new mode. */
int rc__diff_file(struct rc__diff *d, const char *rel,
                  const struct rc__base_entry *base,
                  const struct rc__side *after, unsigned mode, struct err *e);
/* A mode change alone (a file's; a directory's is in the JSON only). */
int rc__diff_mode(struct rc__diff *d, const char *rel,
                  const struct rc__base_entry *base, unsigned mode,
                  struct err *e);
/* Flush and fill s's diff_sha256, not_diffed and truncated. */
int rc__diff_close(struct rc__diff *d, struct rc_changes_summary *s,
                   struct err *e);
void rc__diff_abort(struct rc__diff *d);

#endif
