/* rc_workspace_tar.c - pack a workspace as the tar that PUT
 * /containers/{id}/archive takes (libarchive, pax restricted): one header
 * per entry the walk visits, each file's bytes read back through
 * rc__ws_read_file() so nothing unchecked is packed. The archive goes to
 * an output function a block at a time (rc__ws_tar_run: a capped buffer
 * for rc_workspace_tar(), the upload stream for rc_ws_job.c), and the
 * entries under digest_top (.git) are digested as they are written, from
 * the very bytes handed to the archive. */
#include "rc_workspace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#include "rc_workspace_int.h"

struct ws_tar {
    struct archive *a;
    struct archive_entry *ae;
    const struct rc__ws_tar_opts *o;
    uint64_t written;     /* archive bytes handed to o->out */
    EVP_MD_CTX *file_md;  /* content sum of a digested file, else NULL */
    struct err werr; /* why the output callback refused, if it did */
};

static int
ws_tar_cancelled(const struct ws_tar *t, struct err *e)
{
    if (t->o->cancel != NULL && __atomic_load_n(t->o->cancel, __ATOMIC_ACQUIRE))
        return err_set(e, ERR_IO, "workspace tar: cancelled");
    return 0;
}

static la_ssize_t
ws_tar_out(struct archive *a, void *arg, const void *p, size_t n)
{
    struct ws_tar *t = arg;

    if (n > t->o->max_bytes - t->written) {
        err_set(&t->werr, ERR_LIMIT, "more than %" PRIu64 " bytes",
                t->o->max_bytes);
        archive_set_error(a, EFBIG, "%s", t->werr.msg);
        return -1;
    }
    if (t->o->out(p, n, t->o->out_arg, &t->werr) == -1) {
        archive_set_error(a, EIO, "%s", t->werr.msg);
        return -1;
    }
    t->written += n;
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

    if (ws_tar_cancelled(t, e) == -1)
        return -1;
    if (archive_write_data(t->a, p, n) != (la_ssize_t)n)
        return ws_tar_fail(t, "write data", e);
    if (t->file_md != NULL && EVP_DigestUpdate(t->file_md, p, n) != 1)
        return err_set(e, ERR_NOMEM, "workspace tar: sha256 failed");
    return 0;
}

/* en's path below digest_top, or NULL when it is not under it. */
static const char *
ws_tar_digested(const struct ws_tar *t, const char *rel)
{
    const char *top = t->o->digest_top;
    size_t n;

    if (top == NULL || t->o->digest == NULL)
        return NULL;
    n = strlen(top);
    if (strncmp(rel, top, n) != 0 || rel[n] != '/' || rel[n + 1] == '\0')
        return NULL;
    return rel + n + 1;
}

/* The entry goes into the change set's base manifest: every one but
 * the .git directory's, which has a volume and a digest of its own. */
static bool
ws_tar_based(const struct ws_tar *t, const char *rel)
{
    return t->o->base != NULL &&
           !(strncmp(rel, ".git", 4) == 0 && (rel[4] == '\0' || rel[4] == '/'));
}

/* Pack a file's bytes; under digest_top, or for the base manifest, sum
 * them as they go. */
static int
ws_tar_file(struct ws_tar *t, const struct rc__ws_entry *en, const char *below,
            struct err *e)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    char sum[65];
    unsigned len = 0;
    bool based = ws_tar_based(t, en->rel);
    int rc = -1;

    if (below == NULL && !based)
        return rc__ws_read_file(en, ws_tar_data, t, e);
    t->file_md = EVP_MD_CTX_new();
    if (t->file_md == NULL ||
        EVP_DigestInit_ex(t->file_md, EVP_sha256(), NULL) != 1) {
        err_set(e, ERR_NOMEM, "workspace tar: sha256 failed");
        goto out;
    }
    if (rc__ws_read_file(en, ws_tar_data, t, e) == -1)
        goto out;
    if (EVP_DigestFinal_ex(t->file_md, md, &len) != 1 || len != 32) {
        err_set(e, ERR_NOMEM, "workspace tar: sha256 failed");
        goto out;
    }
    for (unsigned i = 0; i < 32; i++) {
        sum[2 * i] = hex[md[i] >> 4];
        sum[2 * i + 1] = hex[md[i] & 15];
    }
    sum[64] = '\0';
    if (below != NULL)
        rc = rc__git_list_add(t->o->digest, below, 'f',
                              en->st->st_mode & 0777, (int64_t)en->st->st_size,
                              sum, e);
    else
        rc = rc_changes_base_add(t->o->base, en->rel, 'f',
                                 en->st->st_mode & 0777,
                                 (uint64_t)en->st->st_size, sum, e);
out:
    EVP_MD_CTX_free(t->file_md);
    t->file_md = NULL;
    return rc;
}

static int
ws_tar_visit(const struct rc__ws_entry *en, void *arg, struct err *e)
{
    struct ws_tar *t = arg;
    const struct stat *s = en->st;
    const char *below = ws_tar_digested(t, en->rel);

    if (ws_tar_cancelled(t, e) == -1)
        return -1;
    archive_entry_clear(t->ae);
    archive_entry_copy_pathname(t->ae, en->rel);
    /* Keep the type and rwx bits; setuid, setgid and sticky never reach
     * the agent's storage. */
    archive_entry_set_mode(t->ae, s->st_mode & (S_IFMT | 0777));
    archive_entry_set_uid(t->ae, t->o->uid);
    archive_entry_set_gid(t->ae, t->o->gid);
    archive_entry_set_mtime(t->ae, s->st_mtim.tv_sec, s->st_mtim.tv_nsec);
    archive_entry_set_size(t->ae, S_ISREG(s->st_mode) ? s->st_size : 0);
    if (en->link != NULL)
        archive_entry_copy_symlink(t->ae, en->link);
    if (archive_write_header(t->a, t->ae) < ARCHIVE_WARN)
        return ws_tar_fail(t, "write header", e);
    if (S_ISREG(s->st_mode))
        return ws_tar_file(t, en, below, e);
    if (below == NULL && ws_tar_based(t, en->rel))
        return rc_changes_base_add(t->o->base, en->rel,
                                   S_ISDIR(s->st_mode) ? 'd' : 'l',
                                   s->st_mode & 0777, 0, en->link, e);
    if (below == NULL)
        return 0;
    return rc__git_list_add(t->o->digest, below, S_ISDIR(s->st_mode) ? 'd' : 'l',
                            s->st_mode & 0777, 0, en->link, e);
}

int
rc__ws_tar_run(const char *root, const char *source,
               const struct rc__ws_tar_opts *o, struct err *e)
{
    struct ws_tar t = { 0 };
    int rc = -1;

    t.o = o;
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
    if (rc__ws_walk(root, source, o->skip_top, o->max_bytes / 512 + 1,
                    ws_tar_visit, &t, e) == -1)
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

static int
ws_buf_out(const void *p, size_t n, void *arg, struct err *e)
{
    return buf_append(arg, p, n, e);
}

int
rc_workspace_tar(const char *root, const char *source, uid_t uid, gid_t gid,
                 const char *skip_top, struct buf *out, struct err *e)
{
    struct rc__ws_tar_opts o = {
        .uid = uid,
        .gid = gid,
        .skip_top = skip_top,
        .max_bytes = out->max, /* the buffer's cap is the archive's */
        .out = ws_buf_out,
        .out_arg = out,
    };

    return rc__ws_tar_run(root, source, &o, e);
}
