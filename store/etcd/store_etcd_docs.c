/* store_etcd_docs.c - the etcd store's state and its lifetime: state
 * documents, the event log, where captured output goes, open and close.
 *
 *   <prefix>/status/<name>        controller status (JSON)
 *   <prefix>/meta/<name>          uid, generation, creationTimestamp
 *   <prefix>/applied/<name>       what agentctl apply wrote
 *   <prefix>/pool/<id>            a controller's warm pool (<id>: its
 *                                 controller ID; not cached)
 *   <prefix>/events/<name>/<seq>  one JSON event per key; seq is the
 *                                 time in ns (20 digits) and 8 random hex
 *                                 digits, so keys sort oldest first
 *   <prefix>/lock                 the store lock (store_etcd_kv.c)
 *   <prefix>/claims/              reserved for claims and leases
 *
 * Captured output is written to a local file under the state dir (default
 * /var/lib/agentctl/<prefix with '/' as '_'>) and, once the attempt is
 * final, uploaded to <prefix>/output/<name> (store_etcd_output.c). */
#include "store_etcd_int.h"
#include "store_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#define ETCD_OF(s)      ((struct store_etcd *)(s))
#define EVENTS_READ_MAX 4096 /* newest events read back */

static const char *const doc_dirs[] = {
    [STORE_DOC_STATUS] = "status",
    [STORE_DOC_META] = "meta",
    [STORE_DOC_APPLIED] = "applied",
    [STORE_DOC_POOL] = "pool",
};

/* The cache's part for a document kind (STORE_ETCD_PARTS: not cached;
 * what agentctl apply recorded is read by agentctl only). */
static enum store_etcd_part
doc_part(enum store_doc kind)
{
    return kind == STORE_DOC_STATUS ? STORE_ETCD_STATUS
           : kind == STORE_DOC_META ? STORE_ETCD_META
                                    : STORE_ETCD_PARTS;
}

static bool
doc_cached(struct store_etcd *s, enum store_doc kind)
{
    return doc_part(kind) != STORE_ETCD_PARTS &&
           store__etcd_cached(s, doc_part(kind));
}

/* A document from the cache; -1 ERR_NOTFOUND when absent. */
static int
cached_doc(struct store_etcd *s, enum store_doc kind, const char *name,
           char **data, size_t *len, struct err *e)
{
    const struct store_etcd_val *v =
        store__etcd_cache_get(s->cache, doc_part(kind), name);

    if (v == NULL)
        return err_set(e, ERR_NOTFOUND, "no %s for \"%s\"", doc_dirs[kind],
                       name);
    *data = malloc(v->len + 1);
    if (*data == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    memcpy(*data, v->data, v->len + 1);
    *len = v->len;
    return 0;
}

static int
etcd_doc_get(struct store *st, enum store_doc kind, const char *name,
             char **data, size_t *len, struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    char key[512];
    cJSON *ans = NULL;
    const cJSON *kv, *v;
    int rc;

    if (kind == STORE_DOC_META &&
        (rc = store__etcd_batch_meta(s, name, data, len, e)) != 0)
        return rc == 1 ? 0 : -1;
    store__etcd_batch_flush(s);
    if (doc_cached(s, kind) &&
        !store__etcd_cache_stale(s->cache, doc_part(kind), name))
        return cached_doc(s, kind, name, data, len, e);
    if (store__etcd_key(s, key, sizeof(key), e, "%s/%s", doc_dirs[kind],
                        name) == -1 ||
        store__etcd_call_take(s, "/v3/kv/range",
                              store__etcd_range(key, NULL, false), &ans,
                              e) == -1)
        return -1;
    kv = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ans, "kvs"), 0);
    v = cJSON_GetObjectItemCaseSensitive(kv, "value");
    if (kv == NULL)
        rc = err_set(e, ERR_NOTFOUND, "no %s for \"%s\"", doc_dirs[kind], name);
    else
        rc = store__etcd_b64_dec(cJSON_IsString(v) ? v->valuestring : "", data,
                                 len, e);
    /* a read of a stale (or uncached) value refreshes the cache */
    if (doc_part(kind) != STORE_ETCD_PARTS && kv == NULL)
        store__etcd_write_through(s, doc_part(kind), name, NULL, 0, 0, ans);
    else if (doc_part(kind) != STORE_ETCD_PARTS && rc == 0 &&
             s->cache != NULL)
        (void)store__etcd_cache_apply_kv(s->cache, kv, false, NULL, NULL, NULL,
                                         NULL);
    cJSON_Delete(ans);
    return rc;
}

static int
doc_write(struct store *st, enum store_doc kind, const char *name,
          const char *data, size_t len, const char *expect, struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    struct err mine = { 0 };
    char key[512];
    cJSON *body, *ans = NULL;
    int rc;

    if (len > STORE_STATE_MAX)
        return err_set(e, ERR_LIMIT, "state of \"%s\" is too big", name);
    if (store__etcd_key(s, key, sizeof(key), e, "%s/%s", doc_dirs[kind],
                        name) == -1)
        return -1;
    /* an apply's write: queued if batched (the status and the pool are
     * the controller's, which never batches) */
    if (kind == STORE_DOC_META || kind == STORE_DOC_APPLIED) {
        int q = store__etcd_batch_add(s, key, data, len, expect, e);

        if (q != 0)
            return q == 1 ? 0 : -1;
    }
    body = store__etcd_txn_put(key, data, len, expect, NULL, &mine);
    if (store__etcd_call_built(s, "/v3/kv/txn", body, &mine, &ans, e) == -1)
        return -1;
    rc = 0;
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "succeeded"))) {
        rc = err_set(e, ERR_CONFLICT, "%s of \"%s\" already exists",
                     doc_dirs[kind], name);
        store__etcd_take_readback(s, ans); /* the winner's document */
    } else if (doc_part(kind) != STORE_ETCD_PARTS)
        store__etcd_write_through(s, doc_part(kind), name, data, len, 0, ans);
    cJSON_Delete(ans);
    return rc;
}

int
store__etcd_doc_put(struct store *st, enum store_doc kind, const char *name,
                    const char *data, size_t len, struct err *e)
{
    if (doc_write(st, kind, name, data, len, NULL, e) == -1)
        return -1;
    /* the status is written; a failed upload is tried again with the
     * next status write and only costs `logs` away from this host */
    if (kind == STORE_DOC_STATUS) {
        store__etcd_output_sync(ETCD_OF(st), name, data, len, NULL);
        store__etcd_changes_sync(ETCD_OF(st), name, data, len, NULL);
    }
    return 0;
}

static int
etcd_doc_create(struct store *st, enum store_doc kind, const char *name,
                const char *data, size_t len, struct err *e)
{
    return doc_write(st, kind, name, data, len, "", e);
}

static int
etcd_doc_del(struct store *st, enum store_doc kind, const char *name,
             struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    char key[512];
    cJSON *ans = NULL;

    store__etcd_batch_flush(s);
    if (store__etcd_key(s, key, sizeof(key), e, "%s/%s", doc_dirs[kind],
                        name) == -1 ||
        store__etcd_call_take(s, "/v3/kv/deleterange",
                              store__etcd_range(key, NULL, false), &ans,
                              e) == -1)
        return -1;
    if (doc_part(kind) != STORE_ETCD_PARTS)
        store__etcd_write_through(s, doc_part(kind), name, NULL, 0, 0, ans);
    cJSON_Delete(ans);
    return 0;
}

/* The keys under dir (a prefix ending in '/') as strings after it, those
 * that can name a document of kind. */
static int
range_keys(struct store_etcd *s, enum store_doc kind, const char *dir,
           cJSON *req, char ***names, size_t *n, struct err *e)
{
    cJSON *ans = NULL;
    const cJSON *kv;
    char **v = NULL, **nv;
    size_t k = 0, skip = strlen(dir);

    store__etcd_batch_flush(s);
    if (store__etcd_call_take(s, "/v3/kv/range", req, &ans, e) == -1)
        return -1;
    cJSON_ArrayForEach(kv, cJSON_GetObjectItemCaseSensitive(ans, "kvs"))
    {
        const cJSON *key = cJSON_GetObjectItemCaseSensitive(kv, "key");
        char *text;
        size_t len;

        if (!cJSON_IsString(key) ||
            store__etcd_b64_dec(key->valuestring, &text, &len, e) == -1)
            goto fail;
        if (len <= skip || !store_doc_name_ok(kind, text + skip)) {
            free(text);
            continue;
        }
        nv = realloc(v, (k + 1) * sizeof(*v));
        if (nv == NULL) {
            free(text);
            err_set(e, ERR_NOMEM, "out of memory");
            goto fail;
        }
        v = nv;
        memmove(text, text + skip, len - skip + 1);
        v[k++] = text;
    }
    cJSON_Delete(ans);
    *names = v;
    *n = k;
    return 0;
fail:
    store_names_free(v, k);
    cJSON_Delete(ans);
    return -1;
}

static int
etcd_doc_names(struct store *st, enum store_doc kind, char ***names, size_t *n,
               struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    char dir[512], end[512];

    if (doc_cached(s, kind))
        return store__etcd_cache_names(s->cache, doc_part(kind), names, n, e);
    if (store__etcd_key(s, dir, sizeof(dir), e, "%s/", doc_dirs[kind]) == -1)
        return -1;
    store__etcd_prefix_end(dir, end, sizeof(end));
    /* etcd sorts by key: the names come sorted */
    return range_keys(s, kind, dir, store__etcd_range(dir, end, true), names, n,
                      e);
}

static cJSON *
events_req(const char *dir)
{
    char end[512];
    cJSON *req;

    store__etcd_prefix_end(dir, end, sizeof(end));
    req = store__etcd_range(dir, end, false);
    if (req != NULL &&
        (!cJSON_AddStringToObject(req, "sort_order", "DESCEND") ||
         !cJSON_AddStringToObject(req, "sort_target", "KEY") ||
         !cJSON_AddNumberToObject(req, "limit", EVENTS_READ_MAX))) {
        cJSON_Delete(req);
        return NULL;
    }
    return req;
}

static int
etcd_event_read(struct store *st, const char *name, char **data, size_t *len,
                struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    char dir[512];
    cJSON *ans = NULL;
    const cJSON *kvs, *v;
    struct buf b;
    size_t total = 0;
    int i, first;

    if (store__etcd_key(s, dir, sizeof(dir), e, "events/%s/", name) == -1 ||
        store__etcd_call_take(s, "/v3/kv/range", events_req(dir), &ans, e) ==
            -1)
        return -1;
    kvs = cJSON_GetObjectItemCaseSensitive(ans, "kvs");
    /* keep the newest STORE_EVENTS_MAX bytes: count from the newest */
    for (first = 0; first < cJSON_GetArraySize(kvs); first++) {
        v = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(kvs, first),
                                             "value");
        total += cJSON_IsString(v) ? strlen(v->valuestring) / 4 * 3 + 1 : 0;
        if (total > STORE_EVENTS_MAX)
            break;
    }
    buf_init(&b, STORE_EVENTS_MAX + 4);
    for (i = first - 1; i >= 0; i--) {
        char *line;
        size_t n;

        v = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(kvs, i),
                                             "value");
        if (store__etcd_b64_dec(cJSON_IsString(v) ? v->valuestring : "", &line,
                                &n, e) == -1)
            goto fail;
        if (buf_append(&b, line, n, e) == -1 || buf_puts(&b, "\n", e) == -1) {
            free(line);
            goto fail;
        }
        free(line);
    }
    cJSON_Delete(ans);
    *len = b.len;
    *data = buf_take(&b);
    return *data == NULL ? err_set(e, ERR_NOMEM, "out of memory") : 0;
fail:
    buf_cleanup(&b);
    cJSON_Delete(ans);
    return -1;
}

static int
etcd_output_path(struct store *st, const char *name, char *path, size_t size,
                 struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    char dir[4096], set[4200], *status = NULL;
    size_t len = 0;
    bool no_log, no_set;

    if (store__path(dir, sizeof(dir), e, "%s/output", s->state) == -1)
        return -1;
    /* created on demand (mkdir -p): agentctl may run where it cannot */
    for (char *p = strchr(dir + 1, '/'); p != NULL; p = strchr(p + 1, '/')) {
        *p = '\0';
        (void)mkdir(dir, 0755);
        *p = '/';
    }
    (void)mkdir(dir, 0755);
    if (store__path(path, size, e, "%s/%s.log", dir, name) == -1)
        return -1;
    /* not written on this host: the uploaded copies of a final attempt
     * (its output, its change set) */
    snprintf(set, sizeof(set), "%s/%s.changes.json", dir, name);
    no_log = access(path, F_OK) == -1;
    no_set = access(set, F_OK) == -1;
    if ((no_log || no_set) &&
        etcd_doc_get(st, STORE_DOC_STATUS, name, &status, &len, NULL) == 0) {
        if (no_log)
            store__etcd_output_fetch(s, name, status, len, NULL);
        if (no_set)
            store__etcd_changes_fetch(s, name, status, len, NULL);
    }
    free(status);
    return 0;
}

static void
etcd_close(struct store *st)
{
    struct store_etcd *s = ETCD_OF(st);

    store__etcd_batch_free(s);
    if (s->lock_depth > 0) {
        s->lock_depth = 1;
        store__etcd_unlock(st);
    }
    store__etcd_watch_free(s);
    if (s->cache != NULL)
        store__etcd_cache_cleanup(s->cache);
    free(s->cache);
    if (s->curl != NULL)
        curl_easy_cleanup(s->curl);
    store_names_free(s->eps, s->neps);
    store__etcd_security_free(s);
    free(s->prefix);
    free(s->state);
    free(s);
}

static const struct store_ops etcd_ops = {
    .list = store__etcd_list,
    .get = store__etcd_get,
    .put = store__etcd_put,
    .del = store__etcd_del,
    .watch_fd = store__etcd_watch_fd,
    .watch_read = store__etcd_watch_read,
    .lock = store__etcd_lock,
    .unlock = store__etcd_unlock,
    .doc_get = etcd_doc_get,
    .doc_put = store__etcd_doc_put,
    .doc_create = etcd_doc_create,
    .doc_del = etcd_doc_del,
    .doc_names = etcd_doc_names,
    .event_append = store__etcd_event_append,
    .event_read = etcd_event_read,
    .status_write = store__etcd_status_write,
    .status_write_many = store__etcd_status_write_many,
    .status_write_many_async = store__etcd_status_write_many_async,
    .async_wait = store__etcd_async_wait,
    .output_path = etcd_output_path,
    .close = etcd_close,
    .lease_grant = store__etcd_lease_grant,
    .lease_keepalive = store__etcd_lease_keepalive,
    .lease_keepalive_async = store__etcd_lease_keepalive_async,
    .lease_grant_async = store__etcd_lease_grant_async,
    .doc_put_async = store__etcd_doc_put_async,
    .watch_primed = store__etcd_watch_primed,
    .claim = store__etcd_claim,
    .claim_holder = store__etcd_claim_holder,
    .release = store__etcd_release,
    .claim_many = store__etcd_claim_many,
    .claim_many_async = store__etcd_claim_many_async,
    .batch_begin = store__etcd_batch_begin,
    .batch_end = store__etcd_batch_end,
    .batch_item_end = store__etcd_batch_item_end,
};

/* "http://a:2379,http://b:2379/" -> endpoints without trailing '/'. */
static int
split_endpoints(struct store_etcd *s, const char *urls, struct err *e)
{
    char *copy = strdup(urls), *tok, *save = NULL;

    if (copy == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    for (tok = strtok_r(copy, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        size_t n = strlen(tok);
        const char *host = strncmp(tok, "http://", 7) == 0    ? tok + 7
                           : strncmp(tok, "https://", 8) == 0 ? tok + 8
                                                               : NULL;
        char **v;

        /* The scheme and the host are checked before the trailing '/'
         * go ("http://" is not "http:"); each message is made before the
         * copy it quotes is freed. */
        if (host == NULL || host[strspn(host, "/")] == '\0') {
            err_set(e, ERR_INVALID,
                    host == NULL ? "etcd endpoint \"%s\" is not an http:// "
                                   "or https:// URL"
                                 : "etcd endpoint \"%s\" has no host",
                    tok);
            free(copy);
            return -1;
        }
        while (n > 0 && tok[n - 1] == '/')
            tok[--n] = '\0';
        v = realloc(s->eps, (s->neps + 1) * sizeof(*v));
        if (v == NULL || (v[s->neps] = strdup(tok)) == NULL) {
            if (v != NULL)
                s->eps = v;
            free(copy);
            return err_set(e, ERR_NOMEM, "out of memory");
        }
        s->eps = v;
        s->neps++;
    }
    free(copy);
    if (s->neps == 0)
        return err_set(e, ERR_INVALID, "no etcd endpoint in \"%s\"", urls);
    return 0;
}

/* The prefix without trailing '/', and the default state dir named
 * after it. */
static int
set_prefix(struct store_etcd *s, const char *prefix, const char *state,
           struct err *e)
{
    size_t n;

    if (prefix == NULL || prefix[0] == '\0')
        prefix = "/agentctl";
    s->prefix = strdup(prefix);
    if (s->prefix == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    n = strlen(s->prefix);
    while (n > 0 && s->prefix[n - 1] == '/')
        s->prefix[--n] = '\0';
    if (state != NULL)
        s->state = strdup(state);
    else if (asprintf(&s->state, "/var/lib/agentctl/%s",
                      s->prefix[0] == '/' ? s->prefix + 1 : s->prefix) == -1)
        s->state = NULL;
    if (s->state == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (state == NULL) {
        for (char *p = s->state + strlen("/var/lib/agentctl/"); *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                  (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' ||
                  *p == '_'))
                *p = '_';
        if (strcmp(s->state, "/var/lib/agentctl/") == 0 ||
            s->state[strlen("/var/lib/agentctl/")] == '.') {
            free(s->state);
            s->state = strdup("/var/lib/agentctl/_root");
            if (s->state == NULL)
                return err_set(e, ERR_NOMEM, "out of memory");
        }
    }
    return 0;
}

struct store *
store_etcd_open(const char *urls, const char *prefix, const char *state_dir,
                struct err *e)
{
    struct store_etcd *s = calloc(1, sizeof(*s));

    if (s == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->base.ops = &etcd_ops;
    s->base.backend = "etcd";
    if (split_endpoints(s, urls, e) == -1 ||
        set_prefix(s, prefix, state_dir, e) == -1)
        goto fail;
    s->curl = curl_easy_init();
    if (s->curl == NULL) {
        err_set(e, ERR_NOMEM, "cannot start libcurl");
        goto fail;
    }
    return &s->base;
fail:
    etcd_close(&s->base);
    return NULL;
}
