/* rc_adapter_tar.c - the adapter's config files as the tar archive the
 * controller uploads into the keeper's config volume: names relative to
 * the volume's mount point, the directories on the way made explicitly,
 * everything owned by root (the agent reads, never owns, its policy). */
#include "rc_adapter.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>

#include "buf.h"

static int
tar_fail(struct archive *a, const char *what, struct err *e)
{
    return err_set(e, ERR_LIMIT, "config tar: %s: %s", what,
                   archive_error_string(a) ? archive_error_string(a) : "?");
}

static int
tar_entry(struct archive *a, struct archive_entry *en, const char *name,
          mode_t mode, const void *content, size_t len, struct err *e)
{
    archive_entry_clear(en);
    archive_entry_copy_pathname(en, name);
    archive_entry_set_mode(en, mode);
    archive_entry_set_uid(en, 0);
    archive_entry_set_gid(en, 0);
    archive_entry_set_size(en, (la_int64_t)len);
    if (archive_write_header(a, en) != ARCHIVE_OK)
        return tar_fail(a, name, e);
    if (len > 0 && archive_write_data(a, content, len) != (la_ssize_t)len)
        return tar_fail(a, name, e);
    return 0;
}

/* Every directory between dir and the file (e.g. "claude/"), once. */
static int
tar_dirs(struct archive *a, struct archive_entry *en, const char *rel,
         char *done, size_t done_size, struct err *e)
{
    char d[256];

    for (const char *s = strchr(rel, '/'); s != NULL; s = strchr(s + 1, '/')) {
        size_t n = (size_t)(s - rel);

        if (n + 2 >= sizeof(d))
            return err_set(e, ERR_LIMIT, "config tar: path too long");
        memcpy(d, rel, n);
        d[n] = '/';
        d[n + 1] = '\0';
        if (strstr(done, d) != NULL)
            continue;
        if (tar_entry(a, en, d, AE_IFDIR | 0555, NULL, 0, e) == -1)
            return -1;
        if (strlen(done) + n + 3 < done_size) {
            strcat(done, d);
            strcat(done, "\n");
        }
    }
    return 0;
}

/* One file at path (absolute, under dir) and the directories above it. */
static int
tar_file(struct archive *a, struct archive_entry *en, const char *dir,
         const char *path, mode_t mode, const void *content, size_t len,
         char *done, size_t done_size, struct err *e)
{
    size_t dl = strlen(dir);

    if (strncmp(path, dir, dl) != 0 || path[dl] != '/' || path[dl + 1] == '\0')
        return err_set(e, ERR_INVALID, "config file %s is not under %s", path,
                       dir);
    if (tar_dirs(a, en, path + dl + 1, done, done_size, e) == -1)
        return -1;
    return tar_entry(a, en, path + dl + 1, AE_IFREG | (mode & 0777), content,
                     len, e);
}

int
rc_adapter_files_tar(const struct rc_adapter_out *o, const char *dir,
                     const void *launcher, size_t launcher_len,
                     struct buf *out, struct err *e)
{
    size_t cap = out->max, used = 0;
    char *mem = malloc(cap), done[1024] = "";
    struct archive *a = archive_write_new();
    struct archive_entry *en = archive_entry_new();
    int rc = -1;

    if (mem == NULL || a == NULL || en == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        goto out;
    }
    if (archive_write_set_format_ustar(a) != ARCHIVE_OK ||
        archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
        archive_write_open_memory(a, mem, cap, &used) != ARCHIVE_OK) {
        tar_fail(a, "open", e);
        goto out;
    }
    for (size_t i = 0; o != NULL && i < o->n_files; i++) {
        const struct rc_adapter_file *f = &o->files[i];

        if (tar_file(a, en, dir, f->path, f->mode, f->content,
                     f->content ? strlen(f->content) : 0, done, sizeof(done),
                     e) == -1)
            goto out;
    }
    if (launcher != NULL &&
        tar_file(a, en, dir, RC_LAUNCH_BIN, 0555, launcher, launcher_len,
                 done, sizeof(done), e) == -1)
        goto out;
    if (archive_write_close(a) != ARCHIVE_OK) {
        tar_fail(a, "close", e);
        goto out;
    }
    rc = buf_append(out, mem, used, e);
out:
    archive_entry_free(en);
    archive_write_free(a);
    free(mem);
    return rc;
}
