/* rc_workspace_digest.c - the SHA-256 of a directory tree's canonical
 * listing (path, type, mode, size, content hash or link target per entry,
 * in walk order). rc_tar_digest.c writes the same listing from a tar, so
 * a tree and its upload digest the same. */
#include "rc_workspace.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "rc_workspace_int.h"

#define WS_DIGEST_MAX_NAMES (1u << 22)

static int
ws_md_data(const void *p, size_t n, void *arg, struct err *e)
{
    if (EVP_DigestUpdate(arg, p, n) != 1)
        return err_set(e, ERR_NOMEM, "workspace digest: sha256 failed");
    return 0;
}

static void
ws_hex(const unsigned char *md, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    int i;

    for (i = 0; i < 32; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = '\0';
}

/* Finish ctx into hex; 0 or -1. */
static int
ws_md_final(EVP_MD_CTX *ctx, char out[65], struct err *e)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;

    if (EVP_DigestFinal_ex(ctx, md, &len) != 1 || len != 32)
        return err_set(e, ERR_NOMEM, "workspace digest: sha256 failed");
    ws_hex(md, out);
    return 0;
}

/* One listing record: "<type> <mode> <size> <len>:<path> <payload>\n",
 * payload = content sha256 (file), <len>:<target> (symlink), "-" (dir).
 * Lengths make the record unambiguous whatever bytes a name holds. */
static int
ws_digest_visit(const struct rc__ws_entry *en, void *arg, struct err *e)
{
    EVP_MD_CTX *all = arg, *file = NULL;
    const struct stat *s = en->st;
    char head[96], sum[65];
    int n, rc = -1;

    n = snprintf(head, sizeof(head), "%c %04o %jd %zu:",
                 S_ISREG(s->st_mode)   ? 'f'
                 : S_ISDIR(s->st_mode) ? 'd'
                                       : 'l',
                 (unsigned)(s->st_mode & 07777),
                 S_ISREG(s->st_mode) ? (intmax_t)s->st_size : 0,
                 strlen(en->rel));
    if (ws_md_data(head, (size_t)n, all, e) == -1 ||
        ws_md_data(en->rel, strlen(en->rel), all, e) == -1)
        return -1;
    if (en->link != NULL) {
        n = snprintf(head, sizeof(head), " %zu:", strlen(en->link));
        if (ws_md_data(head, (size_t)n, all, e) == -1 ||
            ws_md_data(en->link, strlen(en->link), all, e) == -1)
            return -1;
    } else if (S_ISREG(s->st_mode)) {
        file = EVP_MD_CTX_new();
        if (file == NULL || EVP_DigestInit_ex(file, EVP_sha256(), NULL) != 1) {
            err_set(e, ERR_NOMEM, "workspace digest: sha256 failed");
            goto out;
        }
        if (rc__ws_read_file(en, ws_md_data, file, e) == -1 ||
            ws_md_final(file, sum, e) == -1 ||
            ws_md_data(" ", 1, all, e) == -1 ||
            ws_md_data(sum, 64, all, e) == -1)
            goto out;
    } else if (ws_md_data(" -", 2, all, e) == -1) {
        goto out;
    }
    rc = ws_md_data("\n", 1, all, e);
out:
    EVP_MD_CTX_free(file);
    return rc;
}

int
rc_workspace_digest(const char *root, const char *subdir, char out[65],
                    struct err *e)
{
    EVP_MD_CTX *all = EVP_MD_CTX_new();
    char sum[65];
    int rc = -1;

    if (all == NULL || EVP_DigestInit_ex(all, EVP_sha256(), NULL) != 1) {
        err_set(e, ERR_NOMEM, "workspace digest: sha256 failed");
        goto out;
    }
    if (rc__ws_walk(root, subdir, NULL, WS_DIGEST_MAX_NAMES, ws_digest_visit,
                    all, e) == -1 ||
        ws_md_final(all, sum, e) == -1)
        goto out;
    memcpy(out, sum, sizeof(sum));
    rc = 0;
out:
    EVP_MD_CTX_free(all);
    return rc;
}
