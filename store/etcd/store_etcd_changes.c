/* store_etcd_changes.c - an attempt's change set in etcd (docs/changes.md),
 * so that `agentctl changes` works away from the controller's host, as
 * store_etcd_output.c does for the output.
 *
 * The controller keeps the set beside the output (<name>.changes.json,
 * .diff, .tar). When it writes a status whose result.changes names a
 * diff sha256 that the local .diff has, the three files are uploaded:
 *
 *   <prefix>/changes/<name>/<ext>/<NNNNNN>  chunks of at most 768 KiB
 *   <prefix>/changes/<name>                  {"sha256": the diff's,
 *                                             "files": {ext: sha256}},
 *                                            last
 *
 * A set over STORE_ETCD_CHANGES_MAX in all is not uploaded (the marker
 * says "tooLarge"). A reader without the local files fetches the chunks
 * when the marker's sha256 is the status's and every file hashes to the
 * marker's, and keeps them as the local files, the JSON last. */
#include "store_etcd_int.h"
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const exts[] = { "diff", "tar", "json" }; /* json last */
#define N_EXTS (sizeof(exts) / sizeof(exts[0]))

/* status.result.changes.diffSha256 without "sha256:", or false. */
static bool
status_diff_sha(const char *status, size_t len, char sha[65])
{
    cJSON *j = cJSON_ParseWithLength(status, len);
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(j, "result"), "changes");
    const char *d = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(ch, "diffSha256"));
    bool ok = d != NULL && strncmp(d, "sha256:", 7) == 0 &&
              strlen(d + 7) == 64;

    if (ok)
        memcpy(sha, d + 7, 65);
    cJSON_Delete(j);
    return ok;
}

static int
local_path(struct store_etcd *s, const char *name, const char *ext,
           char *path, size_t size, struct err *e)
{
    return store__path(path, size, e, "%s/output/%s.changes.%s", s->state,
                       name, ext);
}

static int
put_marker(struct store_etcd *s, const char *name, const char *text,
           struct err *e)
{
    char key[512];
    cJSON *ans = NULL;
    int rc;

    if (store__etcd_key(s, key, sizeof(key), e, "changes/%s", name) == -1)
        return -1;
    rc = store__etcd_call_take(
        s, "/v3/kv/txn",
        store__etcd_txn_put(key, text, strlen(text), NULL, NULL, NULL), &ans,
        e);
    cJSON_Delete(ans);
    return rc;
}

/* The three local files, or -1 (not here, or over the bound). */
static int
read_local(struct store_etcd *s, const char *name, char *data[N_EXTS],
           size_t n[N_EXTS], size_t *total)
{
    char path[4096];

    *total = 0;
    for (size_t i = 0; i < N_EXTS; i++) {
        if (local_path(s, name, exts[i], path, sizeof(path), NULL) == -1 ||
            store__read_file(path, STORE_ETCD_CHANGES_MAX, &data[i], &n[i],
                             NULL) == -1)
            return -1;
        *total += n[i];
    }
    return 0;
}

int
store__etcd_changes_sync(struct store_etcd *s, const char *name,
                         const char *status, size_t len, struct err *e)
{
    char sha[65], have[65], now[65], key[512], dir[512];
    char *data[N_EXTS] = { 0 };
    size_t n[N_EXTS] = { 0 }, total, chunks;
    cJSON *marker = NULL, *files;
    char *text = NULL;
    int rc = -1;

    if (!status_diff_sha(status, len, sha))
        return 0;
    if (store__etcd_key(s, key, sizeof(key), e, "changes/%s", name) == -1 ||
        store__etcd_marker_sha(s, key, have, e) == -1)
        return -1;
    if (strcmp(have, sha) == 0)
        return 0; /* uploaded already */
    if (read_local(s, name, data, n, &total) == -1) {
        rc = 0; /* not on this host, or over the bound of one file */
        goto out;
    }
    spec_sha256_hex(data[0], n[0], now);
    if (strcmp(now, sha) != 0) {
        rc = 0; /* the local set is not the status's */
        goto out;
    }
    marker = cJSON_CreateObject();
    cJSON_AddStringToObject(marker, "sha256", sha);
    if (total > STORE_ETCD_CHANGES_MAX) {
        cJSON_AddBoolToObject(marker, "tooLarge", 1);
    } else {
        files = cJSON_AddObjectToObject(marker, "files");
        for (size_t i = 0; i < N_EXTS; i++) {
            if (store__etcd_key(s, dir, sizeof(dir), e, "changes/%s/%s/", name,
                                exts[i]) == -1 ||
                store__etcd_chunks_put(s, dir, data[i], n[i], &chunks, e) ==
                    -1)
                goto out;
            spec_sha256_hex(data[i], n[i], now);
            cJSON_AddStringToObject(files, exts[i], now);
        }
    }
    text = cJSON_PrintUnformatted(marker);
    rc = text != NULL ? put_marker(s, name, text, e)
                      : err_set(e, ERR_NOMEM, "out of memory");
out:
    for (size_t i = 0; i < N_EXTS; i++)
        free(data[i]);
    cJSON_Delete(marker);
    free(text);
    return rc;
}

/* The marker at changes/<name> (caller deletes), or NULL. */
static cJSON *
get_marker(struct store_etcd *s, const char *name, struct err *e)
{
    char key[512];
    cJSON *m = NULL;

    if (store__etcd_key(s, key, sizeof(key), e, "changes/%s", name) == 0)
        (void)store__etcd_marker_get(s, key, &m, e);
    return m;
}

int
store__etcd_changes_fetch(struct store_etcd *s, const char *name,
                          const char *status, size_t len, struct err *e)
{
    char sha[65], now[65], dir[512], out[4096], base[128];
    struct buf b[N_EXTS];
    cJSON *marker;
    const cJSON *files;
    const char *got;
    int rc = 0;

    if (!status_diff_sha(status, len, sha) ||
        (marker = get_marker(s, name, e)) == NULL)
        return 0;
    files = cJSON_GetObjectItemCaseSensitive(marker, "files");
    got = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(marker, "sha256"));
    if (got == NULL || strcmp(got, sha) != 0 || !cJSON_IsObject(files)) {
        cJSON_Delete(marker);
        return 0; /* not uploaded (yet), or too large to be */
    }
    for (size_t i = 0; i < N_EXTS; i++)
        buf_init(&b[i], STORE_ETCD_CHANGES_MAX);
    /* every file fetched and checked before any is kept */
    for (size_t i = 0; i < N_EXTS && rc == 0; i++) {
        const char *want = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(files, exts[i]));

        if (store__etcd_key(s, dir, sizeof(dir), e, "changes/%s/%s/", name,
                            exts[i]) == -1 ||
            store__etcd_chunks_get(s, dir, &b[i], e) == -1) {
            rc = -1;
            break;
        }
        spec_sha256_hex(b[i].data ? b[i].data : "", b[i].len, now);
        if (want == NULL || strcmp(now, want) != 0)
            rc = 1; /* a half-done upload: not kept */
    }
    if (rc == 0 &&
        store__path(out, sizeof(out), e, "%s/output", s->state) == 0)
        for (size_t i = 0; i < N_EXTS && rc == 0; i++) {
            snprintf(base, sizeof(base), "%s.changes.%s", name, exts[i]);
            rc = store__write_atomic(NULL, out, base,
                                     b[i].data ? b[i].data : "", b[i].len, e);
        }
    for (size_t i = 0; i < N_EXTS; i++)
        buf_cleanup(&b[i]);
    cJSON_Delete(marker);
    return rc == 1 ? 0 : rc;
}
