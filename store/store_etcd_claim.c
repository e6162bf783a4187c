/* store_etcd_claim.c - leases and claims (docs/store-etcd.md "Claims and
 * leases"): a controller holds a lease it keeps alive; it works on an
 * invocation only after a create-only txn put <prefix>/claims/<name> =
 * its controller ID, bound to that lease. When the lease expires etcd
 * deletes every claim key bound to it, which is how the other
 * controllers learn that the holder is gone.
 *
 * Gateway shapes (etcd 3.4, checked against a live etcd):
 *   /v3/lease/grant {"TTL":5} -> {"ID":"...","TTL":"5"}
 *   /v3/lease/keepalive {"ID":"..."} -> {"result":{"ID":"...","TTL":"5"}};
 *     an expired lease answers a result without TTL (0)
 *   /v3/kv/txn compare {"target":"LEASE","lease":"..."} for the release
 */
#include "store_etcd_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ETCD_OF(s) ((struct store_etcd *)(s))

static int
nomem(struct err *e)
{
    return err_set(e, ERR_NOMEM, "out of memory");
}

int
store__etcd_lease_grant(struct store *st, int ttl_s, int64_t *lease,
                        struct err *e)
{
    cJSON *req = cJSON_CreateObject(), *ans = NULL;
    int rc;

    if (req == NULL || !cJSON_AddNumberToObject(req, "TTL", ttl_s)) {
        cJSON_Delete(req);
        return nomem(e);
    }
    rc = store__etcd_call(ETCD_OF(st), "/v3/lease/grant", req, &ans, e);
    cJSON_Delete(req);
    if (rc == 0) {
        *lease = store__etcd_int(ans, "ID");
        if (*lease == 0)
            rc = err_set(e, ERR_REMOTE, "etcd granted no lease ID");
    }
    cJSON_Delete(ans);
    return rc;
}

int
store__etcd_lease_keepalive(struct store *st, int64_t lease, struct err *e)
{
    cJSON *req = cJSON_CreateObject(), *ans = NULL;
    char id[24];
    int rc;

    snprintf(id, sizeof(id), "%" PRId64, lease);
    if (req == NULL || !cJSON_AddStringToObject(req, "ID", id)) {
        cJSON_Delete(req);
        return nomem(e);
    }
    rc = store__etcd_call(ETCD_OF(st), "/v3/lease/keepalive", req, &ans, e);
    cJSON_Delete(req);
    if (rc == 0 &&
        store__etcd_int(cJSON_GetObjectItemCaseSensitive(ans, "result"),
                        "TTL") <= 0)
        rc = err_set(e, ERR_NOTFOUND, "etcd lease %s has expired", id);
    cJSON_Delete(ans);
    return rc;
}

/* The caller of an async keep-alive, until its answer. */
struct keepalive {
    store_done_fn *done;
    void *arg;
    char id[24];
};

static void
keepalive_done(void *arg, int rc, const cJSON *ans, const struct err *e)
{
    struct keepalive *k = arg;
    struct err mine = { 0 };

    if (rc == -1 && e != NULL)
        mine = *e;
    else if (store__etcd_int(cJSON_GetObjectItemCaseSensitive(ans, "result"),
                             "TTL") <= 0)
        rc = err_set(&mine, ERR_NOTFOUND, "etcd lease %s has expired", k->id);
    k->done(k->arg, rc, &mine);
    free(k);
}

int
store__etcd_lease_keepalive_async(struct store *st, int64_t lease,
                                  store_done_fn *done, void *arg,
                                  struct err *e)
{
    struct keepalive *k = calloc(1, sizeof(*k));
    cJSON *req = cJSON_CreateObject();
    int rc;

    if (k == NULL || req == NULL) {
        free(k);
        cJSON_Delete(req);
        return nomem(e);
    }
    k->done = done;
    k->arg = arg;
    snprintf(k->id, sizeof(k->id), "%" PRId64, lease);
    if (!cJSON_AddStringToObject(req, "ID", k->id))
        rc = nomem(e);
    else
        rc = store__etcd_call_async(ETCD_OF(st), "/v3/lease/keepalive", req,
                                    keepalive_done, k, e);
    cJSON_Delete(req);
    if (rc == -1)
        free(k);
    return rc;
}

/* {"key": b64(key), "value": b64(value), "lease": "id"} as a request_put. */
static cJSON *
put_op(const char *key, const char *value, int64_t lease)
{
    cJSON *op = cJSON_CreateObject(), *put = cJSON_CreateObject();
    char *k = store__etcd_b64_enc(key, strlen(key));
    char *v = store__etcd_b64_enc(value, strlen(value));
    char id[24];

    snprintf(id, sizeof(id), "%" PRId64, lease);
    if (op != NULL && put != NULL &&
        !cJSON_AddItemToObject(op, "request_put", put))
        cJSON_Delete(put); /* not attached: op does not own it */
    else if (op == NULL)
        cJSON_Delete(put);
    if (op == NULL || put == NULL || k == NULL || v == NULL ||
        cJSON_GetObjectItem(op, "request_put") != put ||
        !cJSON_AddStringToObject(put, "key", k) ||
        !cJSON_AddStringToObject(put, "value", v) ||
        !cJSON_AddStringToObject(put, "lease", id)) {
        cJSON_Delete(op);
        op = NULL;
    }
    free(k);
    free(v);
    return op;
}

/* A txn: compare (one, owned), success op (owned), failure reads key. */
static cJSON *
txn(const char *key, cJSON *cmp, cJSON *ok_op)
{
    cJSON *body = cJSON_CreateObject();
    cJSON *cmps = cJSON_CreateArray(), *succ = cJSON_CreateArray();
    cJSON *fail = cJSON_CreateArray();
    cJSON *rd = store__etcd_range(key, NULL, false),
          *rop = cJSON_CreateObject();

    if (body == NULL || cmps == NULL || succ == NULL || fail == NULL ||
        rd == NULL || rop == NULL || cmp == NULL || ok_op == NULL) {
        cJSON_Delete(body);
        cJSON_Delete(cmps);
        cJSON_Delete(succ);
        cJSON_Delete(fail);
        cJSON_Delete(rd);
        cJSON_Delete(rop);
        cJSON_Delete(cmp);
        cJSON_Delete(ok_op);
        return NULL;
    }
    cJSON_AddItemToArray(cmps, cmp);
    cJSON_AddItemToArray(succ, ok_op);
    cJSON_AddItemToObject(rop, "request_range", rd);
    cJSON_AddItemToArray(fail, rop);
    cJSON_AddItemToObject(body, "compare", cmps);
    cJSON_AddItemToObject(body, "success", succ);
    cJSON_AddItemToObject(body, "failure", fail);
    return body;
}

/* {"key", "target": target, "result": "EQUAL", field: value} */
static cJSON *
compare(const char *key, const char *target, const char *field,
        const char *value)
{
    cJSON *c = cJSON_CreateObject();
    char *k = store__etcd_b64_enc(key, strlen(key));

    if (c == NULL || k == NULL || !cJSON_AddStringToObject(c, "key", k) ||
        !cJSON_AddStringToObject(c, "target", target) ||
        !cJSON_AddStringToObject(c, "result", "EQUAL") ||
        !cJSON_AddStringToObject(c, field, value)) {
        cJSON_Delete(c);
        c = NULL;
    }
    free(k);
    return c;
}

/* Our claim write reached etcd at rev: the cache holds it at once (data
 * NULL: released). */
static void
claim_through(struct store_etcd *s, const char *name, const char *holder,
              int64_t lease, int64_t rev)
{
    if (s->cache != NULL &&
        store__etcd_cache_set(s->cache, STORE_ETCD_CLAIMS, name, holder,
                              holder ? strlen(holder) : 0, rev, lease, NULL,
                              NULL) == -1)
        s->cache->listed[STORE_ETCD_CLAIMS] = false;
}

/* A claim txn reads the status of name in its success branch too: the
 * status another controller wrote before it released may not have come
 * through the status watch yet (another stream, no order between the
 * two), and the new holder acts on that status. Read at the claim's own
 * revision, it is exact; without it the next status read goes to etcd. */
static cJSON *
with_status(struct store_etcd *s, cJSON *body, const char *name)
{
    char key[512];
    cJSON *rop = cJSON_CreateObject(), *rd;

    if (body == NULL || rop == NULL ||
        store__etcd_key(s, key, sizeof(key), NULL, "status/%s", name) == -1 ||
        (rd = store__etcd_range(key, NULL, false)) == NULL) {
        cJSON_Delete(rop);
        return body; /* the claim alone; the status is marked stale */
    }
    cJSON_AddItemToObject(rop, "request_range", rd);
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(body, "success"),
                         rop);
    return body;
}

/* The status read by a claim txn that succeeded (with_status). */
static void
take_status(struct store_etcd *s, const cJSON *ans, const char *name)
{
    const cJSON *r = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(ans, "responses"), 1);
    const cJSON *rr = cJSON_GetObjectItemCaseSensitive(r, "response_range");
    const cJSON *kv =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rr, "kvs"), 0);

    if (s->cache == NULL)
        return;
    store__etcd_cache_mark_stale(s->cache, STORE_ETCD_STATUS, name);
    if (kv != NULL)
        (void)store__etcd_cache_apply_kv(s->cache, kv, false, NULL, NULL, NULL,
                                         NULL);
    else if (rr != NULL) /* none at the claim's revision */
        store__etcd_write_through(s, STORE_ETCD_STATUS, name, NULL, 0, 0, ans);
}

/* Run body; *ok = succeeded; *kv = the key as the failure branch read it
 * (NULL when absent), a detached copy the caller deletes; the answer's
 * revision in *hrev (may be NULL); status_of: a claim of that name
 * (with_status). */
static int
run(struct store_etcd *s, cJSON *body, bool *ok, cJSON **kv, int64_t *hrev,
    const char *status_of, struct err *e)
{
    cJSON *ans = NULL, *resp, *kvs;
    int rc;

    if (body == NULL)
        return nomem(e);
    rc = store__etcd_call(s, "/v3/kv/txn", body, &ans, e);
    cJSON_Delete(body);
    if (rc == -1)
        return -1;
    *ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "succeeded"));
    if (hrev != NULL)
        *hrev = store__etcd_int(
            cJSON_GetObjectItemCaseSensitive(ans, "header"), "revision");
    if (!*ok)
        store__etcd_take_readback(s, ans);
    else if (status_of != NULL)
        take_status(s, ans, status_of);
    resp = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(ans, "responses"), 0);
    kvs = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(resp, "response_range"), "kvs");
    if (kv != NULL)
        *kv = cJSON_IsArray(kvs) && cJSON_GetArraySize(kvs) > 0
                  ? cJSON_Duplicate(cJSON_GetArrayItem(kvs, 0), 1)
                  : NULL;
    cJSON_Delete(ans);
    return 0;
}

/* The holder written in a claim key's kv (decoded value); caller frees. */
static char *
kv_holder(const cJSON *kv)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(kv, "value");
    char *out = NULL;
    size_t n;

    if (!cJSON_IsString(v) ||
        store__etcd_b64_dec(v->valuestring, &out, &n, NULL) == -1)
        return NULL;
    return out;
}

/* holder's own claim under an older lease (a restarted controller): move
 * it to lease, unless it changed since it was read. */
static int
take_over(struct store_etcd *s, const char *key, const char *name,
          const cJSON *kv, const char *holder, int64_t lease, struct err *e)
{
    const cJSON *mod = cJSON_GetObjectItemCaseSensitive(kv, "mod_revision");
    bool ok = false;
    int64_t rev = 0;

    if (!cJSON_IsString(mod))
        return err_set(e, ERR_CONFLICT, "claim %s changed meanwhile", key);
    if (run(s,
            with_status(s,
                        txn(key,
                            compare(key, "MOD", "mod_revision",
                                    mod->valuestring),
                            put_op(key, holder, lease)),
                        name),
            &ok, NULL, &rev, name, e) == -1)
        return -1;
    if (!ok)
        return err_set(e, ERR_CONFLICT, "claim %s changed meanwhile", key);
    claim_through(s, name, holder, lease, rev);
    return 0;
}

int
store__etcd_claim(struct store *st, const char *name, const char *holder,
                  int64_t lease, struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    char key[512], *who;
    cJSON *kv = NULL;
    bool ok = false;
    int64_t rev = 0;
    int rc;

    if (store__etcd_key(s, key, sizeof(key), e, "claims/%s", name) == -1)
        return -1;
    if (run(s,
            with_status(s,
                        txn(key, compare(key, "CREATE", "create_revision", "0"),
                            put_op(key, holder, lease)),
                        name),
            &ok, &kv, &rev, name, e) == -1)
        return -1;
    if (ok) {
        cJSON_Delete(kv);
        claim_through(s, name, holder, lease, rev);
        return 0;
    }
    who = kv_holder(kv);
    if (who != NULL && strcmp(who, holder) == 0)
        rc = store__etcd_int(kv, "lease") == lease
                 ? 0
                 : take_over(s, key, name, kv, holder, lease, e);
    else if (kv == NULL)
        rc = err_set(e, ERR_CONFLICT, "claim %s changed meanwhile", key);
    else
        rc = err_set(e, ERR_CONFLICT, "%s is claimed by controller %s", name,
                     who ? who : "?");
    free(who);
    cJSON_Delete(kv);
    return rc;
}

int
store__etcd_claim_holder(struct store *st, const char *name, char *holder,
                         size_t size, struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    cJSON *req, *ans = NULL, *kvs;
    char key[512], *who;
    int rc;

    /* the claim gate of every pass: the claims are watched */
    if (store__etcd_cached(s, STORE_ETCD_CLAIMS)) {
        const struct store_etcd_val *v =
            store__etcd_cache_get(s->cache, STORE_ETCD_CLAIMS, name);

        if (v == NULL)
            return err_set(e, ERR_NOTFOUND, "%s is not claimed", name);
        snprintf(holder, size, "%s", v->data);
        return 0;
    }
    if (store__etcd_key(s, key, sizeof(key), e, "claims/%s", name) == -1)
        return -1;
    req = store__etcd_range(key, NULL, false);
    if (req == NULL)
        return nomem(e);
    rc = store__etcd_call(s, "/v3/kv/range", req, &ans, e);
    cJSON_Delete(req);
    if (rc == -1)
        return -1;
    kvs = cJSON_GetObjectItemCaseSensitive(ans, "kvs");
    who = kv_holder(cJSON_GetArrayItem(kvs, 0));
    if (who == NULL)
        rc = err_set(e, ERR_NOTFOUND, "%s is not claimed", name);
    else
        snprintf(holder, size, "%s", who);
    free(who);
    cJSON_Delete(ans);
    return rc;
}

int
store__etcd_release(struct store *st, const char *name, int64_t lease,
                    struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    cJSON *op = cJSON_CreateObject(), *del = cJSON_CreateObject();
    char key[512], id[24], *k;
    bool ok = false;
    int64_t rev = 0;

    if (store__etcd_key(s, key, sizeof(key), e, "claims/%s", name) == -1) {
        cJSON_Delete(op);
        cJSON_Delete(del);
        return -1;
    }
    k = store__etcd_b64_enc(key, strlen(key));
    if (op == NULL || del == NULL || k == NULL ||
        !cJSON_AddStringToObject(del, "key", k)) {
        cJSON_Delete(op);
        cJSON_Delete(del);
        free(k);
        return nomem(e);
    }
    free(k);
    cJSON_AddItemToObject(op, "request_delete_range", del);
    snprintf(id, sizeof(id), "%" PRId64, lease);
    /* Only our own claim goes: one taken over (a restarted controller of
     * the same ID) or re-made by another controller stays. */
    if (run(s, txn(key, compare(key, "LEASE", "lease", id), op), &ok, NULL,
            &rev, NULL, e) == -1)
        return -1;
    if (ok)
        claim_through(s, name, NULL, 0, rev);
    return 0;
}
