/* rc_tar_digest.c - the digest of a workspace's git metadata, read from the tar
 * archives that carry it: the one the controller uploads (before the run)
 * and the one Docker hands back from the keeper's /work/.git (after it).
 * Both go through this one function, so "before equals after" compares
 * like with like (the tar writer hands the same list the entries it
 * writes, rc__git_list_*, so an upload streamed in chunks is digested
 * without being read back); the listing is the one rc_workspace_digest() makes of a
 * directory, so the digest of the upload equals the digest of the source
 * tree too (the unit tests hold all three equal).
 */
#include "rc_workspace.h"
#include "rc_workspace_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#define GIT_MAX_ENTRIES 200000 /* far above any inode limit we allow */

struct git_entry {
    char *rel;  /* path below the top, no trailing slash */
    char type;  /* 'f', 'd', 'l', 'h' (hard link: never uploaded) */
    unsigned mode;
    int64_t size;
    char *payload; /* content sha256 hex, or link target; NULL for dirs */
};

struct git_list {
    struct git_entry *v;
    size_t n, cap;
};

/* rc_workspace_int.h's list: the entries the tar writer hands over. */
struct rc__git_list {
    struct git_list l;
};

static void
git_list_free(struct git_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].rel);
        free(l->v[i].payload);
    }
    free(l->v);
}

/* Walk order of rc_workspace_digest(): depth first, names sorted per
 * directory, i.e. paths compared component by component. */
static int
git_cmp(const void *a, const void *b)
{
    const char *x = ((const struct git_entry *)a)->rel;
    const char *y = ((const struct git_entry *)b)->rel;

    for (;;) {
        size_t lx = strcspn(x, "/"), ly = strcspn(y, "/");
        int c = memcmp(x, y, lx < ly ? lx : ly);

        if (c == 0 && lx != ly)
            c = lx < ly ? -1 : 1;
        if (c != 0)
            return c;
        if (x[lx] == '\0' || y[ly] == '\0')
            return (x[lx] != '\0') - (y[ly] != '\0');
        x += lx + 1;
        y += ly + 1;
    }
}

static void
git_hex(const unsigned char *md, char out[65])
{
    static const char hex[] = "0123456789abcdef";

    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = '\0';
}

/* The entry's content sha256 into hex (out has 65 bytes). */
static int
git_content_sum(struct archive *a, char *out, struct err *e)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char md[EVP_MAX_MD_SIZE], buf[16384];
    unsigned len = 0;
    la_ssize_t n;
    int rc = -1;

    if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        err_set(e, ERR_NOMEM, "git digest: sha256 failed");
        goto out;
    }
    while ((n = archive_read_data(a, buf, sizeof(buf))) > 0)
        EVP_DigestUpdate(ctx, buf, (size_t)n);
    if (n < 0) {
        err_set(e, ERR_SYNTAX, "git digest: %s", archive_error_string(a));
        goto out;
    }
    if (EVP_DigestFinal_ex(ctx, md, &len) != 1 || len != 32) {
        err_set(e, ERR_NOMEM, "git digest: sha256 failed");
        goto out;
    }
    git_hex(md, out);
    rc = 0;
out:
    EVP_MD_CTX_free(ctx);
    return rc;
}

/* The path below top ("./.git/x" -> "x"); NULL when outside it or the
 * top itself. */
static const char *
git_below(const char *path, const char *top)
{
    size_t n = strlen(top);

    while (path[0] == '.' && path[1] == '/')
        path += 2;
    if (strncmp(path, top, n) != 0 || path[n] != '/' || path[n + 1] == '\0')
        return NULL;
    return path + n + 1;
}

/* Room for one more entry; -1 past GIT_MAX_ENTRIES. */
static struct git_entry *
git_slot(struct git_list *l, const char *rel, struct err *e)
{
    struct git_entry *g;

    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        struct git_entry *v;

        if (l->n >= GIT_MAX_ENTRIES) {
            err_set(e, ERR_LIMIT, "git digest: over %d entries",
                    GIT_MAX_ENTRIES);
            return NULL;
        }
        if ((v = realloc(l->v, cap * sizeof(*v))) == NULL) {
            err_set(e, ERR_NOMEM, "out of memory");
            return NULL;
        }
        l->v = v;
        l->cap = cap;
    }
    g = &l->v[l->n];
    memset(g, 0, sizeof(*g));
    if ((g->rel = strdup(rel)) == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    l->n++;
    if (g->rel[0] != '\0' && g->rel[strlen(g->rel) - 1] == '/')
        g->rel[strlen(g->rel) - 1] = '\0';
    return g;
}

int
rc__git_list_add(struct rc__git_list *gl, const char *rel, char type,
                 unsigned mode, int64_t size, const char *payload,
                 struct err *e)
{
    struct git_entry *g = git_slot(&gl->l, rel, e);

    if (g == NULL)
        return -1;
    g->type = type;
    g->mode = mode & 07777;
    g->size = type == 'f' ? size : 0;
    if (payload != NULL && (g->payload = strdup(payload)) == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    return 0;
}

static int
git_add(struct git_list *l, struct archive *a, struct archive_entry *en,
        const char *rel, struct err *e)
{
    struct git_entry *g = git_slot(l, rel, e);
    mode_t ft = archive_entry_filetype(en);
    const char *link = archive_entry_hardlink(en);

    if (g == NULL)
        return -1;
    g->mode = (unsigned)(archive_entry_perm(en) & 07777);
    if (link != NULL) {
        g->type = 'h';
        g->payload = strdup(link);
    } else if (ft == AE_IFLNK) {
        g->type = 'l';
        g->payload = strdup(archive_entry_symlink(en) ? archive_entry_symlink(en)
                                                      : "");
    } else if (ft == AE_IFDIR) {
        g->type = 'd';
        return 0;
    } else {
        g->type = 'f';
        g->size = archive_entry_size(en);
        if ((g->payload = malloc(65)) == NULL)
            return err_set(e, ERR_NOMEM, "out of memory");
        return git_content_sum(a, g->payload, e);
    }
    return g->payload ? 0 : err_set(e, ERR_NOMEM, "out of memory");
}

static int
git_read(const void *tar, size_t len, const char *top, struct git_list *l,
         struct err *e)
{
    struct archive *a = archive_read_new();
    struct archive_entry *en;
    int r, rc = -1;

    if (a == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    archive_read_support_format_tar(a);
    if (archive_read_open_memory(a, tar, len) != ARCHIVE_OK) {
        err_set(e, ERR_SYNTAX, "git digest: %s", archive_error_string(a));
        goto out;
    }
    while ((r = archive_read_next_header(a, &en)) == ARCHIVE_OK) {
        const char *rel = git_below(archive_entry_pathname(en), top);

        if (rel != NULL && git_add(l, a, en, rel, e) == -1)
            goto out;
    }
    if (r != ARCHIVE_EOF) {
        err_set(e, ERR_SYNTAX, "git digest: %s", archive_error_string(a));
        goto out;
    }
    rc = 0;
out:
    archive_read_free(a);
    return rc;
}

/* One record per entry, exactly as rc_workspace_digest.c writes it. */
static void
git_record(EVP_MD_CTX *all, const struct git_entry *g)
{
    char head[96];
    int n;

    n = snprintf(head, sizeof(head), "%c %04o %jd %zu:",
                 g->type, g->mode,
                 g->type == 'f' ? (intmax_t)g->size : 0, strlen(g->rel));
    EVP_DigestUpdate(all, head, (size_t)n);
    EVP_DigestUpdate(all, g->rel, strlen(g->rel));
    if (g->type == 'l' || g->type == 'h') {
        n = snprintf(head, sizeof(head), " %zu:", strlen(g->payload));
        EVP_DigestUpdate(all, head, (size_t)n);
        EVP_DigestUpdate(all, g->payload, strlen(g->payload));
    } else if (g->type == 'f') {
        EVP_DigestUpdate(all, " ", 1);
        EVP_DigestUpdate(all, g->payload, 64);
    } else {
        EVP_DigestUpdate(all, " -", 2);
    }
    EVP_DigestUpdate(all, "\n", 1);
}

/* Sort l into walk order and hash its records into out. */
static int
git_list_digest(struct git_list *l, char out[65], struct err *e)
{
    EVP_MD_CTX *all = NULL;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0;
    int rc = -1;

    if (l->n > 1)
        qsort(l->v, l->n, sizeof(*l->v), git_cmp);
    all = EVP_MD_CTX_new();
    if (all == NULL || EVP_DigestInit_ex(all, EVP_sha256(), NULL) != 1) {
        err_set(e, ERR_NOMEM, "git digest: sha256 failed");
        goto out;
    }
    for (size_t i = 0; i < l->n; i++)
        git_record(all, &l->v[i]);
    if (EVP_DigestFinal_ex(all, md, &mdlen) != 1 || mdlen != 32) {
        err_set(e, ERR_NOMEM, "git digest: sha256 failed");
        goto out;
    }
    git_hex(md, out);
    rc = 0;
out:
    EVP_MD_CTX_free(all);
    return rc;
}

int
rc_workspace_tar_digest(const void *tar, size_t len, const char *top,
                        char out[65], struct err *e)
{
    struct git_list l = { 0 };
    int rc = -1;

    if (git_read(tar, len, top, &l, e) == 0)
        rc = git_list_digest(&l, out, e);
    git_list_free(&l);
    return rc;
}

struct rc__git_list *
rc__git_list_new(void)
{
    return calloc(1, sizeof(struct rc__git_list));
}

int
rc__git_list_digest(struct rc__git_list *gl, char out[65], struct err *e)
{
    return git_list_digest(&gl->l, out, e);
}

void
rc__git_list_free(struct rc__git_list *gl)
{
    if (gl == NULL)
        return;
    git_list_free(&gl->l);
    free(gl);
}
