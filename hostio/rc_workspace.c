/* rc_workspace.c - check a workspace before any storage is made for it:
 * count what the walk (rc_workspace_walk.c) visits against the byte and
 * inode limits, size the tar buffer from those counts, and map a failure
 * to the reason the controller reports. The tar builder is
 * rc_workspace_tar.c, the digest rc_workspace_digest.c. */
#include "rc_workspace.h"

#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "rc_workspace_int.h"

/* --- check ------------------------------------------------------------ */

struct ws_check {
    uint64_t max_bytes;
    struct rc_workspace_stats st;
};

static int
ws_check_visit(const struct rc__ws_entry *en, void *arg, struct err *e)
{
    struct ws_check *c = arg;
    char q[RC__WS_QUOTE_MAX + 8];
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
                       rc__ws_quote(q, sizeof(q), en->rel));
    return 0;
}

int
rc_workspace_check(const char *root, const char *source, uint64_t max_bytes,
                   uint64_t max_inodes, struct rc_workspace_stats *out,
                   struct err *e)
{
    struct ws_check c = { 0 };

    c.max_bytes = max_bytes;
    c.st.inodes = 1; /* the top */
    c.st.dirs = 1;
    c.st.bytes = RC_WS_ENTRY_BYTES;
    if (c.st.bytes > max_bytes)
        return err_set(e, ERR_LIMIT,
                       "workspace is larger than its limit of %" PRIu64
                       " bytes (counting %u bytes per entry)",
                       max_bytes, RC_WS_ENTRY_BYTES);
    if (rc__ws_walk(root, source, NULL, max_inodes, ws_check_visit, &c, e) ==
        -1)
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
