/* rc_changes_diff.c - the change set's unified diff (rc_changes_diff.h).
 *
 * Why libgit2: the diff is what a reviewer and `git apply` read, so it
 * must be git's format exactly (headers, hunks, "\ No newline at end of
 * file", "Binary files ... differ") and its algorithm the one git users
 * know; libgit2 (Debian's libgit2-dev) carries git's xdiff and turns two
 * buffers into a patch without a repository. It knows no modes for
 * buffers, so the mode lines are ours: git's 100644 or 100755. */
#include "rc_changes_diff.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <openssl/evp.h>

/* ---- a side ---------------------------------------------------------- */

void
rc__side_init(struct rc__side *s)
{
    memset(s, 0, sizeof(*s));
}

void
rc__side_take(struct rc__side *s, const char *p, size_t n)
{
    char *grown;

    if (s->over)
        return;
    if (s->len + n > RC_CHANGES_DIFF_FILE_MAX) {
        s->over = true;
        free(s->data);
        s->data = NULL;
        s->len = 0;
        return;
    }
    grown = realloc(s->data, s->len + n + 1);
    if (grown == NULL) { /* out of memory: the file is just not diffed */
        s->over = true;
        free(s->data);
        s->data = NULL;
        s->len = 0;
        return;
    }
    s->data = grown;
    memcpy(s->data + s->len, p, n);
    s->nul = s->nul || memchr(p, '\0', n) != NULL;
    s->len += n;
}

void
rc__side_free(struct rc__side *s)
{
    free(s->data);
    rc__side_init(s);
}

/* ---- the file -------------------------------------------------------- */

int
rc__diff_open(struct rc__diff *d, const char *path, const char *root,
              const char *source, cJSON *not_diffed, struct err *e)
{
    int rootfd;

    memset(d, 0, sizeof(*d));
    d->src = -1;
    d->not_diffed = not_diffed;
    git_libgit2_init();
    rootfd = root != NULL ? open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (rootfd != -1 && source != NULL) {
        d->src = rc__open_beneath(rootfd, source, O_RDONLY | O_DIRECTORY, 0);
        close(rootfd);
    }
    d->md = EVP_MD_CTX_new();
    if (d->md == NULL || EVP_DigestInit_ex(d->md, EVP_sha256(), NULL) != 1)
        return err_set(e, ERR_NOMEM, "sha256 failed");
    d->f = fopen(path, "we");
    if (d->f == NULL)
        return err_sys(e, "change set: %s", path);
    return 0;
}

static void
not_diffed(struct rc__diff *d, const char *rel, const char *why)
{
    cJSON *it;

    d->skipped++;
    if (cJSON_GetArraySize(d->not_diffed) >= RC_CHANGES_LIST_MAX) {
        d->truncated = true;
        return;
    }
    it = cJSON_CreateObject();
    cJSON_AddStringToObject(it, "path", rel);
    cJSON_AddStringToObject(it, "reason", why);
    cJSON_AddItemToArray(d->not_diffed, it);
}

/* Append text to the diff while it fits RC_CHANGES_DIFF_MAX; past it
 * the diff stops there (truncated), whole patches only. */
static int
put(struct rc__diff *d, const char *text, size_t n, struct err *e)
{
    if (d->truncated || d->len + n > RC_CHANGES_DIFF_MAX) {
        d->truncated = true;
        return 0;
    }
    if (fwrite(text, 1, n, d->f) != n)
        return err_sys(e, "change set: diff");
    EVP_DigestUpdate(d->md, text, n);
    d->len += n;
    return 0;
}

static unsigned
git_mode(unsigned mode)
{
    return (mode & 0111) ? 0100755 : 0100644;
}

/* The base's bytes from the host's workspace, if they are still the ones
 * uploaded; else NULL and why. */
static const char *
read_base(struct rc__diff *d, const struct rc__base_entry *be,
          struct rc__side *s)
{
    EVP_MD_CTX *md;
    char buf[65536], sum[65];
    struct stat st;
    ssize_t n;
    int fd;

    if (be->size > RC_CHANGES_DIFF_FILE_MAX)
        return "over the diff's per-file limit";
    fd = d->src != -1
             ? rc__open_beneath(d->src, be->path, O_RDONLY | O_NONBLOCK, 0)
             : -1;
    if (fd == -1 || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
        if (fd != -1)
            close(fd);
        return "the base is no longer in the host's workspace";
    }
    md = EVP_MD_CTX_new();
    EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    while ((n = read(fd, buf, sizeof(buf))) > 0) {
        rc__side_take(s, buf, (size_t)n);
        EVP_DigestUpdate(md, buf, (size_t)n);
    }
    close(fd);
    if (n < 0 || s->over || rc__sha256_hex(md, sum) == -1 ||
        strcmp(sum, be->payload) != 0) {
        EVP_MD_CTX_free(md);
        return "the base changed in the host's workspace since the upload";
    }
    EVP_MD_CTX_free(md);
    return NULL;
}

/* libgit2's patch with git's header lines for the real modes: libgit2
 * knows none for buffers and wrote 100644. Its "diff --git" line, our
 * mode lines, its "index A..B" (with the mode when it is kept), then its
 * body from "--- " or "Binary files" on (none for an empty file). */
static int
put_patch(struct rc__diff *d, const char *p, size_t n, unsigned from,
          unsigned to, bool added, bool deleted, struct err *e)
{
    const char *first = memchr(p, '\n', n);
    const char *index = memmem(p, n, "\nindex ", 7);
    const char *body = memmem(p, n, "\n--- ", 5);
    char head[160];
    size_t index_len;
    int hn;

    /* whole patches only: one that would cross the bound is left out */
    if (d->truncated || d->len + n + sizeof(head) > RC_CHANGES_DIFF_MAX) {
        d->truncated = true;
        return 0;
    }
    if (body == NULL)
        body = memmem(p, n, "\nBinary files ", 14);
    body = body != NULL ? body + 1 : p + n;
    if (first == NULL || index == NULL)
        return put(d, p, n, e);
    index++;
    index_len = strcspn(index, " \n");
    if (added)
        hn = snprintf(head, sizeof(head), "new file mode %06o\n", to);
    else if (deleted)
        hn = snprintf(head, sizeof(head), "deleted file mode %06o\n", from);
    else if (from != to)
        hn = snprintf(head, sizeof(head), "old mode %06o\nnew mode %06o\n",
                      from, to);
    else
        hn = 0;
    if (put(d, p, (size_t)(first + 1 - p), e) == -1 ||
        put(d, head, (size_t)hn, e) == -1 || put(d, index, index_len, e) == -1)
        return -1;
    hn = !added && !deleted && from == to
             ? snprintf(head, sizeof(head), " %06o\n", to)
             : snprintf(head, sizeof(head), "\n");
    if (put(d, head, (size_t)hn, e) == -1)
        return -1;
    return put(d, body, n - (size_t)(body - p), e);
}

int
rc__diff_file(struct rc__diff *d, const char *rel,
              const struct rc__base_entry *base, const struct rc__side *after,
              unsigned mode, struct err *e)
{
    struct rc__side before;
    const char *why = NULL;
    git_patch *patch = NULL;
    git_buf out = { 0 };
    int rc = 0;
    char path[RC_WS_PATH_MAX + 2];

    rc__side_init(&before);
    if (base != NULL)
        why = read_base(d, base, &before);
    if (why == NULL && after != NULL && after->over)
        why = "over the diff's per-file limit";
    if (why == NULL && (before.nul || (after != NULL && after->nul)))
        why = "binary";
    if (why != NULL)
        not_diffed(d, rel, why);
    if (why != NULL && strcmp(why, "binary") != 0)
        goto out;
    snprintf(path, sizeof(path), "%s", rel);
    if (git_patch_from_buffers(&patch, base ? before.data : NULL,
                               base ? before.len : 0, path,
                               after ? after->data : NULL,
                               after ? after->len : 0, path, NULL) != 0 ||
        git_patch_to_buf(&out, patch) != 0) {
        const git_error *ge = git_error_last();

        rc = err_set(e, ERR_IO, "change set: diff of %s: %s", rel,
                     ge ? ge->message : "libgit2 failed");
        goto out;
    }
    if (out.size > 0)
        rc = put_patch(d, out.ptr, out.size, git_mode(base ? base->mode : 0),
                       git_mode(mode), base == NULL, after == NULL, e);
out:
    git_buf_dispose(&out);
    git_patch_free(patch);
    rc__side_free(&before);
    return rc;
}

int
rc__diff_mode(struct rc__diff *d, const char *rel,
              const struct rc__base_entry *base, unsigned mode, struct err *e)
{
    char head[RC_WS_PATH_MAX * 2 + 80];
    int n;

    if (base == NULL || base->type != 'f' ||
        git_mode(base->mode) == git_mode(mode))
        return 0; /* git knows no directory, nor modes but 644 and 755 */
    n = snprintf(head, sizeof(head),
                 "diff --git a/%s b/%s\nold mode %06o\nnew mode %06o\n", rel,
                 rel, git_mode(base->mode), git_mode(mode));
    if (n < 0 || (size_t)n >= sizeof(head))
        return 0;
    return put(d, head, (size_t)n, e);
}

int
rc__diff_close(struct rc__diff *d, struct rc_changes_summary *s,
               struct err *e)
{
    int rc = 0;

    if (fflush(d->f) != 0 || fsync(fileno(d->f)) == -1)
        rc = err_sys(e, "change set: diff");
    if (fclose(d->f) != 0 && rc == 0)
        rc = err_sys(e, "change set: diff");
    d->f = NULL;
    if (rc == 0 && rc__sha256_hex(d->md, s->diff_sha256) == -1)
        rc = err_set(e, ERR_NOMEM, "sha256 failed");
    s->not_diffed = d->skipped;
    s->truncated = s->truncated || d->truncated;
    return rc;
}

void
rc__diff_abort(struct rc__diff *d)
{
    if (d->f != NULL)
        fclose(d->f);
    d->f = NULL;
    EVP_MD_CTX_free(d->md);
    d->md = NULL;
    if (d->src != -1)
        close(d->src);
    d->src = -1;
}
