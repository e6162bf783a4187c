/* rc_workspace_tar.c - pack a workspace as the tar that PUT
 * /containers/{id}/archive takes (libarchive, pax restricted, into a
 * capped buffer): one header per entry the walk visits, each file's bytes
 * read back through rc__ws_read_file() so nothing unchecked is packed. */
#include "rc_workspace.h"

#include <errno.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>

#include "rc_workspace_int.h"

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
ws_tar_visit(const struct rc__ws_entry *en, void *arg, struct err *e)
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
        return rc__ws_read_file(en, ws_tar_data, t, e);
    return 0;
}

int
rc_workspace_tar(const char *root, const char *source, uid_t uid, gid_t gid,
                 const char *skip_top, struct buf *out, struct err *e)
{
    struct ws_tar t = { 0 };
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
    /* Every entry costs at least one 512-byte header, so the cap bounds
     * how many names are worth listing. */
    if (rc__ws_walk(root, source, skip_top, out->max / 512 + 1, ws_tar_visit,
                    &t, e) == -1)
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
