/* rc_changes_int.h - what the change-set files share (rc_changes.h): the
 * base manifest as read back, the path rules of the way back, and opening
 * a path below a directory without following a symlink. Not for other
 * modules. */
#ifndef RC_CHANGES_INT_H
#define RC_CHANGES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "rc_changes.h"
#include "rc_workspace.h"

/* One entry of the base manifest. */
struct rc__base_entry {
    char *path;
    char type;     /* 'f', 'd', 'l' */
    unsigned mode; /* permission bits */
    uint64_t size;
    char *payload; /* 'f': sha256 hex; 'l': target; 'd': NULL */
    bool seen;     /* met in the archive read back */
};

struct rc__base {
    struct rc__base_entry *v; /* sorted by path (strcmp) */
    size_t n;
};

int rc__base_load(const char *path, struct rc__base *b, struct err *e);
struct rc__base_entry *rc__base_find(const struct rc__base *b,
                                     const char *path);
void rc__base_free(struct rc__base *b);

/* Why rel (a path below the top) may not come back or be applied, or
 * NULL: empty, absolute, a "." or ".." component, an empty component, or
 * longer than RC_WS_PATH_MAX. */
const char *rc__changes_path_refusal(const char *rel);

/* Why a symlink at rel with this target would leave the tree (absolute,
 * or resolved lexically from rel's directory it climbs above the top),
 * or NULL. */
const char *rc__changes_link_refusal(const char *rel, const char *target);

/* Open rel below the directory dirfd, one component at a time, no
 * symlink followed (O_NOFOLLOW at every step); flags are the last
 * component's. -1 with errno (ELOOP for a symlink on the way). */
int rc__open_beneath(int dirfd, const char *rel, int flags, mode_t mode);

/* Lower-case hex of a SHA-256 context's digest. */
struct evp_md_ctx_st;
int rc__sha256_hex(struct evp_md_ctx_st *md, char out[65]);

/* "0644" for the JSON. */
void rc__mode_str(unsigned mode, char out[8]);

#endif
