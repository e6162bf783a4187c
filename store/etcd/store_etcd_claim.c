/* store_etcd_claim.c - claims (docs/store-etcd.md "Claims and leases"):
 * a controller holds a lease it keeps alive; it works on an
 * invocation only after a create-only txn put <prefix>/claims/<name> =
 * its controller ID, bound to that lease. When the lease expires etcd
 * deletes every claim key bound to it, which is how the other
 * controllers learn that the holder is gone.
 *
 * The lease itself is store_etcd_lease.c's.
 *
 * Gateway shapes (etcd 3.4, checked against a live etcd):
 *   /v3/kv/txn compare {"target":"LEASE","lease":"..."} for the release
 *   a txn whose success ops are {"request_txn": <txn>} runs each inner
 *   txn on its own compares and answers each as {"response_txn":
 *   {"header": {}, "succeeded": bool, "responses": [...]}}: the claims of
 *   many names in one request, each won or lost on its own
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

/* The status read by a claim txn that succeeded (with_status), at the
 * revision rev of the request's answer (a nested txn's has none). */
static void
take_status(struct store_etcd *s, const cJSON *ans, const char *name,
            int64_t rev)
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
        store__etcd_write_through_at(s, STORE_ETCD_STATUS, name, NULL, 0, 0,
                                     rev);
}

/* Run body (owned; NULL: out of memory): etcd's answer in *ans, which
 * the caller deletes, and its revision in *rev. */
static int
run(struct store_etcd *s, cJSON *body, cJSON **ans, int64_t *rev, struct err *e)
{
    int rc;

    if (body == NULL)
        return nomem(e);
    rc = store__etcd_call(s, "/v3/kv/txn", body, ans, e);
    cJSON_Delete(body);
    if (rc == 0)
        *rev = store__etcd_int(cJSON_GetObjectItemCaseSensitive(*ans, "header"),
                               "revision");
    return rc;
}

static bool
succeeded(const cJSON *ans)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "succeeded"));
}

/* The claim key as a failed txn's failure branch read it (NULL: absent). */
static const cJSON *
read_back(const cJSON *ans)
{
    const cJSON *r = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(ans, "responses"), 0);
    const cJSON *rr = cJSON_GetObjectItemCaseSensitive(r, "response_range");

    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rr, "kvs"), 0);
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
    cJSON *ans = NULL;
    int64_t rev = 0;
    bool ok;

    if (!cJSON_IsString(mod))
        return err_set(e, ERR_CONFLICT, "claim %s changed meanwhile", key);
    if (run(s,
            with_status(
                s,
                txn(key, compare(key, "MOD", "mod_revision", mod->valuestring),
                    put_op(key, holder, lease)),
                name),
            &ans, &rev, e) == -1)
        return -1;
    ok = succeeded(ans);
    if (ok) {
        take_status(s, ans, name, rev);
        claim_through(s, name, holder, lease, rev);
    }
    cJSON_Delete(ans);
    if (!ok)
        return err_set(e, ERR_CONFLICT, "claim %s changed meanwhile", key);
    return 0;
}

/* The create-only claim txn of name, the status read with it. */
static cJSON *
claim_txn(struct store_etcd *s, const char *key, const char *name,
          const char *holder, int64_t lease)
{
    return with_status(s,
                       txn(key, compare(key, "CREATE", "create_revision", "0"),
                           put_op(key, holder, lease)),
                       name);
}

/* What the answer ans (at revision rev) of claim_txn() means: 0 when
 * holder holds name now - *was_free when nobody held it before - or -1
 * ERR_CONFLICT naming who does. */
static int
claim_answer(struct store_etcd *s, const char *key, const char *name,
             const char *holder, int64_t lease, const cJSON *ans, int64_t rev,
             bool *was_free, struct err *e)
{
    const cJSON *kv;
    char *who;
    int rc;

    *was_free = succeeded(ans);
    if (*was_free) {
        take_status(s, ans, name, rev);
        claim_through(s, name, holder, lease, rev);
        return 0;
    }
    store__etcd_take_readback(s, ans);
    kv = read_back(ans);
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
    return rc;
}

int
store__etcd_claim(struct store *st, const char *name, const char *holder,
                  int64_t lease, struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    char key[512];
    cJSON *ans = NULL;
    int64_t rev = 0;
    bool was_free;
    int rc;

    if (store__etcd_key(s, key, sizeof(key), e, "claims/%s", name) == -1 ||
        run(s, claim_txn(s, key, name, holder, lease), &ans, &rev, e) == -1)
        return -1;
    rc = claim_answer(s, key, name, holder, lease, ans, rev, &was_free, e);
    cJSON_Delete(ans);
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

/* The release txn: only our own claim goes - one taken over (a restarted
 * controller of the same ID) or re-made by another controller stays. */
static cJSON *
release_txn(const char *key, int64_t lease)
{
    cJSON *op = cJSON_CreateObject(), *del = cJSON_CreateObject();
    char id[24], *k = store__etcd_b64_enc(key, strlen(key));

    if (op == NULL || del == NULL || k == NULL ||
        !cJSON_AddStringToObject(del, "key", k) ||
        !cJSON_AddItemToObject(op, "request_delete_range", del)) {
        cJSON_Delete(op);
        cJSON_Delete(del);
        free(k);
        return NULL;
    }
    free(k);
    snprintf(id, sizeof(id), "%" PRId64, lease);
    return txn(key, compare(key, "LEASE", "lease", id), op);
}

static void
release_answer(struct store_etcd *s, const char *name, const cJSON *ans,
               int64_t rev)
{
    if (succeeded(ans))
        claim_through(s, name, NULL, 0, rev);
}

int
store__etcd_release(struct store *st, const char *name, int64_t lease,
                    struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    char key[512];
    cJSON *ans = NULL;
    int64_t rev = 0;

    if (store__etcd_key(s, key, sizeof(key), e, "claims/%s", name) == -1 ||
        run(s, release_txn(key, lease), &ans, &rev, e) == -1)
        return -1;
    release_answer(s, name, ans, rev);
    cJSON_Delete(ans);
    return 0;
}

/* --- many at once ------------------------------------------------------ */

/* Inner txns per request: etcd's --max-txn-ops (128 by default) bounds
 * the outer txn's ops and, for each inner one, what the outer left over
 * (an inner claim has 2 ops), so 64 leaves room on both sides. */
#define CLAIMS_PER_TXN 64
_Static_assert(STORE_CLAIMS_ASYNC_MAX <= CLAIMS_PER_TXN,
               "an async claim request is one txn");

/* The inner txn of one item, as a success op of the outer txn. */
static cJSON *
item_op(struct store_etcd *s, const struct store_claim_item *it,
        const char *holder, int64_t lease, struct err *e)
{
    char key[512];
    cJSON *t, *op;

    if (store__etcd_key(s, key, sizeof(key), e, "claims/%s", it->name) == -1)
        return NULL;
    t = it->release ? release_txn(key, lease)
                    : claim_txn(s, key, it->name, holder, lease);
    op = cJSON_CreateObject();
    if (t == NULL || op == NULL ||
        !cJSON_AddItemToObject(op, "request_txn", t)) {
        cJSON_Delete(t);
        cJSON_Delete(op);
        nomem(e);
        return NULL;
    }
    return op;
}

/* The outer txn of it[0..n): no compare, one inner txn per item. */
static cJSON *
many_txn(struct store_etcd *s, const struct store_claim_item *it, size_t n,
         const char *holder, int64_t lease, struct err *e)
{
    cJSON *body = store__etcd_txn_new(e), *succ, *op;

    if (body == NULL)
        return NULL;
    succ = cJSON_GetObjectItemCaseSensitive(body, "success");
    for (size_t i = 0; i < n; i++) {
        op = item_op(s, &it[i], holder, lease, e);
        if (op == NULL || !cJSON_AddItemToArray(succ, op)) {
            cJSON_Delete(op);
            cJSON_Delete(body);
            if (op != NULL)
                nomem(e);
            return NULL;
        }
    }
    return body;
}

/* Each item's answer from the outer answer's responses. */
static void
many_answered(struct store_etcd *s, struct store_claim_item *it, size_t n,
              const char *holder, int64_t lease, const cJSON *ans, int64_t rev)
{
    const cJSON *resps = cJSON_GetObjectItemCaseSensitive(ans, "responses");
    char key[512];

    for (size_t i = 0; i < n; i++) {
        const cJSON *inner = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(resps, (int)i), "response_txn");

        if (inner == NULL)
            it[i].rc =
                err_set(&it[i].err, ERR_REMOTE,
                        "etcd answered no result for claim %s", it[i].name);
        else if (it[i].release)
            release_answer(s, it[i].name, inner, rev);
        else if (store__etcd_key(s, key, sizeof(key), &it[i].err, "claims/%s",
                                 it[i].name) == -1)
            it[i].rc = -1;
        else
            it[i].rc = claim_answer(s, key, it[i].name, holder, lease, inner,
                                    rev, &it[i].was_free, &it[i].err);
    }
}

static void
many_failed(struct store_claim_item *it, size_t n, const struct err *e)
{
    for (size_t i = 0; i < n; i++) {
        it[i].rc = -1;
        it[i].err = *e;
    }
}

void
store__etcd_claim_many(struct store *st, const char *holder, int64_t lease,
                       struct store_claim_item *it, size_t n)
{
    struct store_etcd *s = ETCD_OF(st);

    for (size_t at = 0; at < n; at += CLAIMS_PER_TXN) {
        size_t k = n - at < CLAIMS_PER_TXN ? n - at : CLAIMS_PER_TXN;
        cJSON *ans = NULL;
        int64_t rev = 0;
        struct err e = { 0 };

        if (run(s, many_txn(s, it + at, k, holder, lease, &e), &ans, &rev,
                &e) == -1) {
            many_failed(it + at, k, &e);
            continue;
        }
        many_answered(s, it + at, k, holder, lease, ans, rev);
        cJSON_Delete(ans);
    }
}

/* An async claim txn's caller and items, until its answer. */
struct claims_async {
    struct store_etcd *s;
    struct store_claim_item *it;
    size_t n;
    int64_t lease;
    store_done_fn *done;
    void *arg;
    char holder[]; /* NUL-terminated */
};

static void
claims_answered(void *arg, int rc, const cJSON *ans, const struct err *e)
{
    struct claims_async *a = arg;

    if (rc == -1)
        many_failed(a->it, a->n, e);
    else
        many_answered(
            a->s, a->it, a->n, a->holder, a->lease, ans,
            store__etcd_int(cJSON_GetObjectItemCaseSensitive(ans, "header"),
                            "revision"));
    a->done(a->arg, 0, NULL);
    free(a);
}

int
store__etcd_claim_many_async(struct store *st, const char *holder,
                             int64_t lease, struct store_claim_item *it,
                             size_t n, store_done_fn *done, void *arg,
                             struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    size_t hl = strlen(holder);
    struct claims_async *a;
    cJSON *body;
    int rc;

    if ((a = malloc(sizeof(*a) + hl + 1)) == NULL)
        return nomem(e);
    *a = (struct claims_async){
        .s = s, .it = it, .n = n, .lease = lease, .done = done, .arg = arg
    };
    memcpy(a->holder, holder, hl + 1);
    if ((body = many_txn(s, it, n, holder, lease, e)) == NULL) {
        free(a);
        return -1;
    }
    rc = store__etcd_call_async(s, "/v3/kv/txn", body, claims_answered, a, e);
    cJSON_Delete(body);
    if (rc == -1)
        free(a);
    return rc;
}
