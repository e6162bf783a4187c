/* store_etcd_batch.c - the writes of one agentctl apply sent as a few
 * etcd txns instead of four requests per spec.
 *
 * Between store_batch_begin() and store_batch_end() a spec put or a
 * metadata/applied-record write is queued, not sent; the queue goes out
 * as one txn whenever it reaches etcd's own limits (128 operations per
 * txn, --max-txn-ops; about 1 MiB of request, --max-request-bytes is
 * 1.5 MiB) and at the end. The metadata of every name is read once at
 * the start (one range), so store_meta_observe() needs no request per
 * spec either. Anything else (a list, a delete, a read of a spec) sends
 * the queue first, so a batch never reads around its own writes.
 *
 * A txn ends only between items (store_batch_item_end(): a spec, its
 * applied record and its metadata go together), unless one item alone
 * is over the limits.
 *
 * A txn holds every compare of its writes: one stale revision (a writer
 * that does not take the store lock) fails all of them and nothing of it
 * is written. Then each write is sent again on its own, so only the
 * writes whose compare really fails are refused, each named. A write
 * whose key already holds exactly its bytes counts as written: that is
 * our own txn, answered late and resent to the next endpoint (a create
 * of metadata carries a fresh uid, so equal bytes can only be ours). */
#include "store_etcd_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_OPS_MAX   128              /* etcd's default --max-txn-ops */
#define BATCH_BYTES_MAX (1024u * 1024u) /* of the request, base64 and all */

struct batch_op {
    char *key;    /* the whole etcd key */
    char *data;   /* the bytes to write */
    size_t len;
    char *expect; /* NULL, "" (create only) or a mod_revision */
};

struct store_etcd_batch {
    struct batch_op *ops;
    size_t n, cap;
    size_t bytes;    /* the request size of the queued writes, roughly */
    size_t items_n;  /* ops[0..items_n) are whole items (item_end) */
    size_t items_bytes; /* and their request size */
    /* name -> metadata text, read at the start, then what the batch
     * writes (a cache: sorted, found by bisection; a cJSON object was a
     * walk per name, 10,000 x 10,000 strcmp in an apply of 10,000) */
    struct store_etcd_cache meta;
    int64_t meta_rev; /* a newer revision for each text written */
    unsigned failed; /* writes refused or lost */
    struct err first;
};

static void
op_free(struct batch_op *op)
{
    free(op->key);
    free(op->data);
    free(op->expect);
}

static void
batch_free(struct store_etcd_batch *b)
{
    if (b == NULL)
        return;
    for (size_t i = 0; i < b->n; i++)
        op_free(&b->ops[i]);
    free(b->ops);
    store__etcd_cache_cleanup(&b->meta);
    free(b);
}

static size_t
op_bytes(const char *key, size_t len)
{
    return (strlen(key) + len) * 4 / 3 + 160; /* base64 plus the JSON */
}

static void
note_failure(struct store_etcd_batch *b, const struct err *e)
{
    if (b->failed++ == 0)
        b->first = *e;
}

/* The key's name below "<prefix>/", for messages. */
static const char *
rel(const struct store_etcd *s, const char *key)
{
    size_t n = strlen(s->prefix);

    return strncmp(key, s->prefix, n) == 0 && key[n] == '/' ? key + n + 1
                                                             : key;
}

/* The failure branch read the key back: does it hold exactly data? */
static bool
holds_bytes(const cJSON *ans, const char *data, size_t len)
{
    const cJSON *r = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(ans, "responses"), 0);
    const cJSON *kv = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(r, "response_range"), "kvs"),
        0);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(kv, "value");
    char *have = NULL;
    size_t n = 0;
    bool same;

    if (!cJSON_IsString(v) ||
        store__etcd_b64_dec(v->valuestring, &have, &n, NULL) == -1)
        return false;
    same = n == len && memcmp(have, data, len) == 0;
    free(have);
    return same;
}

/* The metadata create of a name someone else created first: resolve it
 * as store_meta_observe() does (the winner's uid is the one). */
static int
meta_lost_race(struct store_etcd *s, const struct batch_op *op, struct err *e)
{
    cJSON *j = cJSON_ParseWithLength(op->data, op->len);
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(j, "specHash");
    const char *name = rel(s, op->key) + strlen("meta/");
    struct store_meta m;
    int rc;

    rc = store_meta_observe(&s->base, name,
                            cJSON_IsString(hash) ? hash->valuestring : NULL,
                            &m, e);
    cJSON_Delete(j);
    return rc;
}

/* One write on its own, after the txn it was in was refused. */
static int
send_one(struct store_etcd *s, const struct batch_op *op, struct err *e)
{
    struct err built = { 0 };
    cJSON *ans = NULL;
    bool ok;

    if (store__etcd_call_built(s, "/v3/kv/txn",
                               store__etcd_txn_put(op->key, op->data, op->len,
                                                   op->expect, NULL, &built),
                               &built, &ans, e) == -1)
        return -1;
    ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "succeeded")) ||
         holds_bytes(ans, op->data, op->len);
    cJSON_Delete(ans);
    if (ok)
        return 0;
    if (op->expect != NULL && op->expect[0] == '\0' &&
        strncmp(rel(s, op->key), "meta/", 5) == 0)
        return meta_lost_race(s, op, e);
    return err_set(e, ERR_CONFLICT, "%s %s", rel(s, op->key),
                   op->expect != NULL && op->expect[0] == '\0'
                       ? "already exists"
                       : "was changed or deleted meanwhile");
}

static cJSON *
combined_txn(const struct store_etcd_batch *b, size_t n, struct err *e)
{
    cJSON *t = store__etcd_txn_new(e);

    for (size_t i = 0; t != NULL && i < n; i++) {
        const struct batch_op *op = &b->ops[i];

        if (store__etcd_txn_add(t, store__etcd_txn_put(op->key, op->data,
                                                       op->len, op->expect,
                                                       NULL, e),
                                e) == -1) {
            cJSON_Delete(t);
            t = NULL;
        }
    }
    return t;
}

/* Send ops[0..n) of the queue: one txn; if a compare failed or etcd
 * refused the txn itself (a smaller --max-txn-ops), each write again
 * alone. The rest of the queue moves to its front. Failures are counted
 * for store_batch_end(), not returned. */
static void
send_queue(struct store_etcd *s, struct store_etcd_batch *b, size_t n,
           size_t bytes)
{
    struct err e = { 0 }, built = { 0 };
    cJSON *t, *ans = NULL;
    int rc = 0;
    bool ok = false;

    if (n == 0)
        return;
    /* a write the builder refuses (a malformed revision) is named by its
     * own send below; the others go too */
    if ((t = combined_txn(b, n, &built)) != NULL || built.code == ERR_OK) {
        rc = store__etcd_call_take(s, "/v3/kv/txn", t, &ans, &e);
        ok = rc == 0 &&
             cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "succeeded"));
    }
    cJSON_Delete(ans);
    for (size_t i = 0; i < n; i++) {
        struct err one = { 0 };

        if (rc == -1 && e.code != ERR_REMOTE) /* unreachable: not sent */
            note_failure(b, &e);
        else if (!ok && send_one(s, &b->ops[i], &one) == -1)
            note_failure(b, &one);
        op_free(&b->ops[i]);
    }
    memmove(b->ops, b->ops + n, (b->n - n) * sizeof(*b->ops));
    b->n -= n;
    b->bytes -= bytes;
    b->items_n = 0;
    b->items_bytes = 0;
}

/* Send the whole items queued, or everything when whole is false. */
static void
flush(struct store_etcd *s, bool whole)
{
    struct store_etcd_batch *b = s->batch;

    /* detached while it is sent: what send_one() calls is not queued */
    s->batch = NULL;
    if (b != NULL)
        send_queue(s, b, whole ? b->items_n : b->n,
                   whole ? b->items_bytes : b->bytes);
    s->batch = b;
}

void
store__etcd_batch_flush(struct store_etcd *s)
{
    flush(s, false);
}

void
store__etcd_batch_item_end(struct store *st)
{
    struct store_etcd_batch *b = ((struct store_etcd *)st)->batch;

    if (b != NULL) {
        b->items_n = b->n;
        b->items_bytes = b->bytes;
    }
}

/* Read every name's metadata once: name -> text. */
static int
read_meta(struct store_etcd *s, struct store_etcd_batch *b, struct err *e)
{
    char key[512], end[512];
    cJSON *ans = NULL;
    const cJSON *kv;
    int rc = 0;

    if (store__etcd_key(s, key, sizeof(key), e, "meta/") == -1)
        return -1;
    store__etcd_prefix_end(key, end, sizeof(end));
    if (store__etcd_call_take(s, "/v3/kv/range",
                              store__etcd_range(key, end, false), &ans,
                              e) == -1)
        return -1;
    cJSON_ArrayForEach(kv, cJSON_GetObjectItemCaseSensitive(ans, "kvs"))
    {
        int64_t rev = store__etcd_int(kv, "mod_revision");

        if (rev > b->meta_rev)
            b->meta_rev = rev;
        if (store__etcd_cache_apply_kv(&b->meta, kv, false, NULL, NULL, NULL,
                                       e) == -1) {
            rc = -1;
            break;
        }
    }
    cJSON_Delete(ans);
    return rc;
}

int
store__etcd_batch_begin(struct store *st, struct err *e)
{
    struct store_etcd *s = (struct store_etcd *)st;
    struct store_etcd_batch *b;
    char root[512];

    if (s->batch != NULL)
        return err_set(e, ERR_INVALID, "a batch is open already");
    b = calloc(1, sizeof(*b));
    if (b == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    store__etcd_key(s, root, sizeof(root), NULL, "%s", "");
    store__etcd_cache_init(&b->meta, root);
    if (read_meta(s, b, e) == -1) {
        batch_free(b);
        return -1;
    }
    s->batch = b;
    return 0;
}

int
store__etcd_batch_end(struct store *st, struct err *e)
{
    struct store_etcd *s = (struct store_etcd *)st;
    struct store_etcd_batch *b = s->batch;
    int rc = 0;

    if (b == NULL)
        return 0;
    store__etcd_batch_flush(s);
    s->batch = NULL;
    if (b->failed > 0)
        rc = err_set(e, b->first.code, "%u write%s not made, the first: %s",
                     b->failed, b->failed == 1 ? "" : "s", b->first.msg);
    batch_free(b);
    return rc;
}

void
store__etcd_batch_free(struct store_etcd *s)
{
    batch_free(s->batch); /* never ended: its writes are dropped */
    s->batch = NULL;
}

static int
remember_meta(struct store_etcd_batch *b, const char *key_rel,
              const char *data, size_t len)
{
    if (strncmp(key_rel, "meta/", 5) != 0)
        return 0;
    return store__etcd_cache_set(&b->meta, STORE_ETCD_META, key_rel + 5, data,
                                 len, ++b->meta_rev, 0, NULL, NULL);
}

int
store__etcd_batch_add(struct store_etcd *s, const char *key, const char *data,
                      size_t len, const char *expect, struct err *e)
{
    struct store_etcd_batch *b = s->batch;
    struct batch_op op = { 0 };
    size_t bytes = op_bytes(key, len);

    if (b == NULL)
        return 0;
    if (b->n + 1 > BATCH_OPS_MAX || b->bytes + bytes > BATCH_BYTES_MAX)
        flush(s, true);
    if (b->n + 1 > BATCH_OPS_MAX || b->bytes + bytes > BATCH_BYTES_MAX)
        flush(s, false); /* the item alone is over the limits */
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        struct batch_op *ops = realloc(b->ops, cap * sizeof(*ops));

        if (ops == NULL)
            return err_set(e, ERR_NOMEM, "out of memory");
        b->ops = ops;
        b->cap = cap;
    }
    op.key = strdup(key);
    op.data = malloc(len + 1);
    op.expect = expect != NULL ? strdup(expect) : NULL;
    op.len = len;
    if (op.key == NULL || op.data == NULL || (expect != NULL && !op.expect) ||
        remember_meta(b, rel(s, key), data, len) == -1) {
        op_free(&op);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    memcpy(op.data, data, len);
    op.data[len] = '\0';
    b->ops[b->n++] = op;
    b->bytes += bytes;
    return 1;
}

int
store__etcd_batch_meta(struct store_etcd *s, const char *name, char **data,
                       size_t *len, struct err *e)
{
    const struct store_etcd_val *v;

    if (s->batch == NULL)
        return 0;
    v = store__etcd_cache_get(&s->batch->meta, STORE_ETCD_META, name);
    if (v == NULL || v->data == NULL)
        return err_set(e, ERR_NOTFOUND, "no meta for \"%s\"", name);
    *data = strndup(v->data, v->len);
    if (*data == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    *len = v->len;
    return 1;
}
