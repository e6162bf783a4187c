/* store_etcd_output.c - captured output in etcd, so `agentctl logs` works
 * away from the controller's host once an attempt has finished.
 *
 * The controller writes output to a local file (store_output_path). When
 * it then writes a status whose phase is final and whose output.sha256
 * matches that file, the file is uploaded:
 *
 *   <prefix>/output/<name>/<NNNNNN>  chunks of at most 768 KiB (under
 *                                    etcd's 1.5 MiB request limit)
 *   <prefix>/output/<name>           {"sha256","bytes","chunks"}, last
 *
 * A reader without the local file fetches the chunks when the marker's
 * sha256 equals the status's and the bytes hash to it, and keeps them as
 * the local file. Nothing is trusted that does not hash right, so a
 * half-done upload is never shown. */
#include "store_etcd_int.h"
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUTPUT_CHUNK (768 * 1024)
#define OUTPUT_MAX   (256u * 1024 * 1024)

/* status JSON -> the sha256 of a final attempt's output, or false. */
static bool
final_sha(const char *status, size_t len, char sha[65])
{
    cJSON *j = cJSON_ParseWithLength(status, len);
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(j, "phase");
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(j, "output");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(out, "sha256");
    bool ok = cJSON_IsString(ph) && cJSON_IsString(h) &&
              strlen(h->valuestring) == 64 &&
              (strcmp(ph->valuestring, "Succeeded") == 0 ||
               strcmp(ph->valuestring, "Failed") == 0 ||
               strcmp(ph->valuestring, "Cancelled") == 0);

    if (ok)
        memcpy(sha, h->valuestring, 65);
    cJSON_Delete(j);
    return ok;
}

static int
put_raw(struct store_etcd *s, const char *key, const char *data, size_t len,
        struct err *e)
{
    cJSON *ans = NULL;
    int rc = store__etcd_call_take(
        s, "/v3/kv/txn", store__etcd_txn_put(key, data, len, NULL, NULL, NULL),
        &ans, e);

    cJSON_Delete(ans);
    return rc;
}

int
store__etcd_marker_get(struct store_etcd *s, const char *key, cJSON **marker,
                       struct err *e)
{
    cJSON *ans = NULL;
    const cJSON *v;
    char *text;
    size_t n;

    *marker = NULL;
    if (store__etcd_call_take(s, "/v3/kv/range",
                              store__etcd_range(key, NULL, false), &ans,
                              e) == -1)
        return -1;
    v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ans, "kvs"), 0),
        "value");
    if (cJSON_IsString(v) &&
        store__etcd_b64_dec(v->valuestring, &text, &n, NULL) == 0) {
        *marker = cJSON_ParseWithLength(text, n);
        free(text);
    }
    cJSON_Delete(ans);
    return 0;
}

/* The marker's sha256 ("" when there is none). */
int
store__etcd_marker_sha(struct store_etcd *s, const char *key, char sha[65],
                       struct err *e)
{
    cJSON *m;
    const cJSON *h;

    sha[0] = '\0';
    if (store__etcd_marker_get(s, key, &m, e) == -1)
        return -1;
    h = cJSON_GetObjectItemCaseSensitive(m, "sha256");
    if (cJSON_IsString(h) && strlen(h->valuestring) == 64)
        memcpy(sha, h->valuestring, 65);
    cJSON_Delete(m);
    return 0;
}

int
store__etcd_chunks_put(struct store_etcd *s, const char *dir,
                       const char *data, size_t len, size_t *chunks,
                       struct err *e)
{
    char key[600], end[512];
    cJSON *ans = NULL;

    *chunks = 0;
    store__etcd_prefix_end(dir, end, sizeof(end));
    if (store__etcd_call_take(s, "/v3/kv/deleterange",
                              store__etcd_range(dir, end, false), &ans,
                              e) == -1)
        return -1;
    cJSON_Delete(ans);
    for (size_t at = 0; at < len || *chunks == 0; at += OUTPUT_CHUNK) {
        size_t n = len - at < OUTPUT_CHUNK ? len - at : OUTPUT_CHUNK;

        snprintf(key, sizeof(key), "%s%06zu", dir, (*chunks)++);
        if (put_raw(s, key, data + at, n, e) == -1)
            return -1;
        if (len == 0)
            break;
    }
    return 0;
}

static int
upload(struct store_etcd *s, const char *name, const char *data, size_t len,
       const char *sha, struct err *e)
{
    char key[512], dir[512], marker[256];
    size_t chunks = 0;

    if (store__etcd_key(s, dir, sizeof(dir), e, "output/%s/", name) == -1 ||
        store__etcd_chunks_put(s, dir, data, len, &chunks, e) == -1)
        return -1;
    snprintf(marker, sizeof(marker),
             "{\"sha256\":\"%s\",\"bytes\":%zu,\"chunks\":%zu}", sha, len,
             chunks);
    if (store__etcd_key(s, key, sizeof(key), e, "output/%s", name) == -1)
        return -1;
    return put_raw(s, key, marker, strlen(marker), e);
}

int
store__etcd_output_sync(struct store_etcd *s, const char *name,
                        const char *status, size_t len, struct err *e)
{
    char sha[65], have[65], now[65], key[512], path[4096];
    char *data = NULL;
    size_t n = 0;
    int rc;

    if (!final_sha(status, len, sha))
        return 0;
    if (store__etcd_key(s, key, sizeof(key), e, "output/%s", name) == -1 ||
        store__etcd_marker_sha(s, key, have, e) == -1)
        return -1;
    if (strcmp(have, sha) == 0)
        return 0; /* uploaded already */
    if (store__path(path, sizeof(path), e, "%s/output/%s.log", s->state,
                    name) == -1)
        return -1;
    if (store__read_file(path, OUTPUT_MAX, &data, &n, NULL) == -1)
        return 0; /* not on this host */
    spec_sha256_hex(data, n, now);
    rc = strcmp(now, sha) == 0 ? upload(s, name, data, n, sha, e) : 0;
    free(data);
    return rc;
}

int
store__etcd_chunks_get(struct store_etcd *s, const char *dir, struct buf *b,
                       struct err *e)
{
    char end[512];
    cJSON *ans = NULL;
    const cJSON *kv;
    int rc = 0;

    store__etcd_prefix_end(dir, end, sizeof(end));
    if (store__etcd_call_take(s, "/v3/kv/range",
                              store__etcd_range(dir, end, false), &ans,
                              e) == -1)
        return -1;
    cJSON_ArrayForEach(kv, cJSON_GetObjectItemCaseSensitive(ans, "kvs"))
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(kv, "value");
        char *chunk;
        size_t n;

        if (store__etcd_b64_dec(cJSON_IsString(v) ? v->valuestring : "", &chunk,
                                &n, e) == -1) {
            rc = -1;
            break;
        }
        rc = buf_append(b, chunk, n, e);
        free(chunk);
        if (rc == -1)
            break;
    }
    cJSON_Delete(ans);
    return rc;
}

int
store__etcd_output_fetch(struct store_etcd *s, const char *name,
                         const char *status, size_t len, struct err *e)
{
    char sha[65], have[65], now[65], key[512], dir[4096], base[80];
    struct buf b;
    int rc = 0;

    if (!final_sha(status, len, sha))
        return 0;
    if (store__etcd_key(s, key, sizeof(key), e, "output/%s", name) == -1 ||
        store__etcd_marker_sha(s, key, have, e) == -1)
        return -1;
    if (strcmp(have, sha) != 0)
        return 0; /* not uploaded (yet) */
    buf_init(&b, OUTPUT_MAX);
    if (store__etcd_key(s, dir, sizeof(dir), e, "output/%s/", name) == -1 ||
        store__etcd_chunks_get(s, dir, &b, e) == -1) {
        buf_cleanup(&b);
        return -1;
    }
    spec_sha256_hex(b.data ? b.data : "", b.len, now);
    snprintf(base, sizeof(base), "%s.log", name);
    if (strcmp(now, sha) == 0 &&
        store__path(dir, sizeof(dir), e, "%s/output", s->state) == 0)
        rc = store__write_atomic(NULL, dir, base, b.data ? b.data : "", b.len, e);
    buf_cleanup(&b);
    return rc;
}
