/* store_etcd_kv.c - specs in etcd: one key <prefix>/specs/<name> per
 * resource holding the YAML bytes as applied. The revision token is the
 * key's mod_revision; put and delete with an expected revision are one
 * txn comparing it, so two writers racing on one name cannot both win.
 *
 * The store lock (read-compare-write across processes: apply, cancel,
 * the generation counter) is a key <prefix>/lock created by a txn only
 * when absent, bound to a lease: a holder that dies frees it when the
 * lease expires (STORE_ETCD_LOCK_TTL). */
#include "store_etcd_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ETCD_OF(s) ((struct store_etcd *)(s))

/* Parse sp->data: sp->inv when it is one valid document naming the key's
 * name, else sp->errors saying why. -1 only when out of memory. */
static int
check_spec(struct store_spec *sp)
{
    struct spec_file f;

    spec_load_buffer(sp->key, sp->data, sp->len, &f);
    if (f.errors.n == 0 && f.n == 1 &&
        strcmp(f.items[0]->name, sp->name) == 0) {
        sp->inv = spec_file_take(&f, 0);
        spec_file_cleanup(&f);
        return 0;
    }
    sp->errors = calloc(1, sizeof(*sp->errors));
    if (sp->errors != NULL && f.errors.n > 0)
        *sp->errors = f.errors;
    else if (sp->errors != NULL && f.n == 1)
        spec_errors_add_at(sp->errors, sp->key, 1, 1, "metadata.name",
                           "the key is named \"%s\" but the spec \"%s\"",
                           sp->name, f.items[0]->name);
    else if (sp->errors != NULL)
        spec_errors_add_at(sp->errors, sp->key, 1, 1, NULL,
                           "a spec key holds one document, not %zu", f.n);
    spec_file_cleanup(&f);
    return sp->errors == NULL ? -1 : 0;
}

/* Add the spec name (at key, of rev) to l, parsed. */
static int
add_spec(struct store_list *l, const char *key, const char *name,
         const char *data, size_t len, int64_t rev, struct err *e)
{
    struct store_spec sp = { .docs = 1, .len = len };
    struct store_spec *items;

    sp.key = strdup(key);
    sp.name = strdup(name);
    sp.data = malloc(len + 1);
    if (sp.key == NULL || sp.name == NULL || sp.data == NULL) {
        store_spec_cleanup(&sp);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    memcpy(sp.data, data, len);
    sp.data[len] = '\0';
    snprintf(sp.rev, sizeof(sp.rev), "%" PRId64, rev);
    if (check_spec(&sp) == -1) {
        store_spec_cleanup(&sp);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    items = realloc(l->items, (l->n + 1) * sizeof(*items));
    if (items == NULL) {
        store_spec_cleanup(&sp);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    l->items = items;
    l->items[l->n++] = sp;
    return 0;
}

/* Add one entry for the key/value kv to l. A key that is not a valid
 * name is skipped: nothing could act on it. */
static int
add_kv(const cJSON *kv, size_t skip, struct store_list *l, struct err *e)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(kv, "key");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(kv, "value");
    char *key = NULL, *data = NULL;
    size_t klen, len;
    int rc = 0;

    if (!cJSON_IsString(k) ||
        store__etcd_b64_dec(k->valuestring, &key, &klen, e) == -1)
        return -1;
    if (klen > skip && store_name_ok(key + skip)) {
        rc = store__etcd_b64_dec(cJSON_IsString(v) ? v->valuestring : "",
                                 &data, &len, e);
        if (rc == 0)
            rc = add_spec(l, key, key + skip, data, len,
                          store__etcd_int(kv, "mod_revision"), e);
    }
    free(key);
    free(data);
    return rc;
}

/* The spec of name the cache holds into l (none: l stays empty). */
static int
cached_spec(struct store_etcd *s, const char *name, struct store_list *l,
            struct err *e)
{
    const struct store_etcd_val *v =
        store__etcd_cache_get(s->cache, STORE_ETCD_SPECS, name);
    char key[600];

    if (v == NULL)
        return 0;
    if (store__etcd_key(s, key, sizeof(key), e, "specs/%s", name) == -1)
        return -1;
    return add_spec(l, key, name, v->data, v->len, v->rev, e);
}

int
store__etcd_list(struct store *st, struct store_list *out, struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    char key[512], end[512];
    struct store_list l = { 0 };
    cJSON *req, *ans = NULL;
    const cJSON *kv;

    store__etcd_batch_flush(s);
    /* the controller's relist after a RESYNC: the watch relisted already */
    if (store__etcd_cached(s, STORE_ETCD_SPECS)) {
        for (size_t i = 0; i < s->cache->n; i++)
            if (cached_spec(s, s->cache->items[i]->name, &l, e) == -1) {
                store_list_cleanup(&l);
                return -1;
            }
        *out = l;
        return 0;
    }
    if (store__etcd_key(s, key, sizeof(key), e, "specs/") == -1)
        return -1;
    store__etcd_prefix_end(key, end, sizeof(end));
    req = store__etcd_range(key, end, false);
    if (req == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (store__etcd_call(s, "/v3/kv/range", req, &ans, e) == -1) {
        cJSON_Delete(req);
        return -1;
    }
    cJSON_Delete(req);
    /* etcd answers sorted by key, which is sorted by name */
    cJSON_ArrayForEach(kv, cJSON_GetObjectItemCaseSensitive(ans, "kvs"))
    {
        if (add_kv(kv, strlen(key), &l, e) == -1) {
            store_list_cleanup(&l);
            cJSON_Delete(ans);
            return -1;
        }
    }
    s->list_rev = store__etcd_int(
        cJSON_GetObjectItemCaseSensitive(ans, "header"), "revision");
    cJSON_Delete(ans);
    *out = l;
    return 0;
}

int
store__etcd_get(struct store *st, const char *name, struct store_spec *out,
                struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    char prefix[512], key[600];
    struct store_list l = { 0 };
    cJSON *ans = NULL;
    const cJSON *kv;
    int rc = 0;

    store__etcd_batch_flush(s);
    if (store__etcd_key(s, prefix, sizeof(prefix), e, "specs/") == -1 ||
        store__etcd_key(s, key, sizeof(key), e, "specs/%s", name) == -1)
        return -1;
    /* a watch change: its event brought the value into the cache */
    if (store__etcd_cached(s, STORE_ETCD_SPECS))
        rc = cached_spec(s, name, &l, e);
    /* one key, not the list: a watch change costs one small range */
    else if (store__etcd_call_take(s, "/v3/kv/range",
                               store__etcd_range(key, NULL, false), &ans,
                               e) == -1)
        return -1;
    cJSON_ArrayForEach(kv, cJSON_GetObjectItemCaseSensitive(ans, "kvs"))
    {
        if (rc == 0)
            rc = add_kv(kv, strlen(prefix), &l, e);
    }
    cJSON_Delete(ans);
    if (rc == 0 && l.n == 0)
        rc = err_set(e, ERR_NOTFOUND, "agentinvocation \"%s\" not found",
                     name);
    if (rc == 0) {
        *out = l.items[0];
        memset(&l.items[0], 0, sizeof(l.items[0]));
    }
    store_list_cleanup(&l);
    return rc;
}

int
store__etcd_revision(struct store_etcd *s, int64_t *rev, struct err *e)
{
    char key[512];
    cJSON *req, *ans = NULL;
    int rc;

    if (store__etcd_key(s, key, sizeof(key), e, "specs/") == -1)
        return -1;
    req = store__etcd_range(key, NULL, true);
    if (req == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    rc = store__etcd_call(s, "/v3/kv/range", req, &ans, e);
    cJSON_Delete(req);
    if (rc == 0)
        *rev = store__etcd_int(cJSON_GetObjectItemCaseSensitive(ans, "header"),
                               "revision");
    cJSON_Delete(ans);
    return rc;
}

/* A txn whose compare failed: say why, from the key read back in the
 * failure branch. */
static int
refused(const cJSON *ans, const char *name, const char *expect_rev,
        struct err *e)
{
    const cJSON *r = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(ans, "responses"), 0);
    const cJSON *rr = cJSON_GetObjectItemCaseSensitive(r, "response_range");
    bool exists =
        cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rr, "kvs")) > 0;

    if (!exists && expect_rev != NULL && expect_rev[0] != '\0')
        return err_set(e, ERR_CONFLICT, "\"%s\" was deleted meanwhile", name);
    if (expect_rev != NULL && expect_rev[0] == '\0')
        return err_set(e, ERR_CONFLICT, "\"%s\" already exists", name);
    return err_set(e, ERR_CONFLICT, "\"%s\" was changed meanwhile", name);
}

/* Run the txn body; *ok says whether its compare held, *rev is the
 * revision it wrote at. */
static int
run_txn(struct store_etcd *s, cJSON *body, const char *name,
        const char *expect_rev, int64_t *rev, struct err *e)
{
    cJSON *ans = NULL;
    int rc;

    rc = store__etcd_call(s, "/v3/kv/txn", body, &ans, e);
    cJSON_Delete(body);
    if (rc == -1)
        return -1;
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "succeeded")))
        rc = refused(ans, name, expect_rev, e);
    else if (rev != NULL)
        *rev = store__etcd_int(cJSON_GetObjectItemCaseSensitive(ans, "header"),
                               "revision");
    cJSON_Delete(ans);
    return rc;
}

int
store__etcd_put(struct store *st, const char *name, const char *data,
                size_t len, const char *expect_rev, char new_rev[STORE_REV_MAX],
                struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    struct err mine = { 0 };
    char key[512];
    int64_t rev = 0;
    cJSON *body;

    if (len > SPEC_MAX_FILE_BYTES)
        return err_set(e, ERR_LIMIT, "\"%s\" is over the 1 MiB limit", name);
    if (store__etcd_key(s, key, sizeof(key), e, "specs/%s", name) == -1)
        return -1;
    if (new_rev == NULL) { /* an apply's write: queued when batched */
        int q = store__etcd_batch_add(s, key, data, len, expect_rev, e);

        if (q != 0)
            return q == 1 ? 0 : -1;
    }
    body = store__etcd_txn_put(key, data, len, expect_rev, NULL, &mine);
    if (body == NULL)
        return store__etcd_no_body(&mine, e);
    if (run_txn(s, body, name, expect_rev, &rev, e) == -1)
        return -1;
    if (new_rev != NULL)
        snprintf(new_rev, STORE_REV_MAX, "%" PRId64, rev);
    return 0;
}

int
store__etcd_del(struct store *st, const char *name, const char *expect_rev,
                struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    struct err mine = { 0 };
    char key[512];
    cJSON *body, *ans = NULL;
    int rc;

    store__etcd_batch_flush(s);
    if (store__etcd_key(s, key, sizeof(key), e, "specs/%s", name) == -1)
        return -1;
    if (expect_rev != NULL && expect_rev[0] == '\0') {
        /* "only if absent": nothing to delete either way */
        struct store_spec sp;

        if (store_get(st, name, &sp, e) == -1)
            return -1;
        store_spec_cleanup(&sp);
        return err_set(e, ERR_CONFLICT, "\"%s\" already exists", name);
    }
    if (expect_rev == NULL) {
        body = store__etcd_range(key, NULL, false);
        if (body == NULL)
            return err_set(e, ERR_NOMEM, "out of memory");
        rc = store__etcd_call(s, "/v3/kv/deleterange", body, &ans, e);
        cJSON_Delete(body);
        if (rc == 0 && store__etcd_int(ans, "deleted") == 0)
            rc = err_set(e, ERR_NOTFOUND, "agentinvocation \"%s\" not found",
                         name);
        cJSON_Delete(ans);
        return rc;
    }
    body = store__etcd_txn_del(key, expect_rev, &mine);
    if (body == NULL)
        return store__etcd_no_body(&mine, e);
    if (run_txn(s, body, name, expect_rev, NULL, &mine) == -1) {
        if (strstr(mine.msg, "deleted meanwhile") != NULL)
            return err_set(e, ERR_NOTFOUND, "agentinvocation \"%s\" not found",
                           name);
        if (e != NULL)
            *e = mine;
        return -1;
    }
    return 0;
}

static void
sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

static int
grant_lease(struct store_etcd *s, struct err *e)
{
    cJSON *req = cJSON_CreateObject(), *ans = NULL;
    int rc;

    if (req == NULL ||
        !cJSON_AddNumberToObject(req, "TTL", STORE_ETCD_LOCK_TTL)) {
        cJSON_Delete(req);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    rc = store__etcd_call(s, "/v3/lease/grant", req, &ans, e);
    cJSON_Delete(req);
    if (rc == 0)
        snprintf(s->lock_lease, sizeof(s->lock_lease), "%" PRId64,
                 store__etcd_int(ans, "ID"));
    cJSON_Delete(ans);
    return rc;
}

static void
revoke_lease(struct store_etcd *s)
{
    cJSON *req = cJSON_CreateObject(), *ans = NULL;

    if (req != NULL && cJSON_AddStringToObject(req, "ID", s->lock_lease))
        store__etcd_call(s, "/v3/lease/revoke", req, &ans, NULL);
    cJSON_Delete(req);
    cJSON_Delete(ans);
    s->lock_lease[0] = '\0';
}

int
store__etcd_lock(struct store *st, struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    struct err mine = { 0 };
    char key[512];

    if (s->lock_depth > 0) {
        s->lock_depth++;
        return 0;
    }
    if (store__etcd_key(s, key, sizeof(key), e, "lock") == -1 ||
        grant_lease(s, e) == -1)
        return -1;
    for (long waited = 0; waited < STORE_ETCD_LOCK_WAIT_S * 1000L;
         waited += 25) {
        cJSON *body =
            store__etcd_txn_put(key, s->lock_lease, strlen(s->lock_lease), "",
                                s->lock_lease, &mine);

        if (body == NULL) {
            revoke_lease(s);
            return store__etcd_no_body(&mine, e);
        }
        if (run_txn(s, body, "lock", "", NULL, &mine) == 0) {
            s->lock_depth = 1;
            return 0;
        }
        if (mine.code != ERR_CONFLICT) {
            revoke_lease(s);
            if (e != NULL)
                *e = mine;
            return -1;
        }
        sleep_ms(25);
    }
    revoke_lease(s);
    return err_set(e, ERR_TIMEOUT,
                   "etcd lock %s still held by another writer after %ds", key,
                   STORE_ETCD_LOCK_WAIT_S);
}

void
store__etcd_unlock(struct store *st)
{
    struct store_etcd *s = ETCD_OF(st);

    if (s->lock_depth == 0 || --s->lock_depth > 0)
        return;
    /* revoking the lease deletes the lock key with it */
    revoke_lease(s);
}
