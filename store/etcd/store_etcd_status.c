/* store_etcd_status.c - the controller's status writes on etcd: a status
 * and the events held for it in one txn, several names' in one txn per
 * chunk, and that without blocking (on the watch's connection pool,
 * store_etcd_async.c). Events are create-only keys, so two writers can
 * never overwrite each other's.
 *
 *   <prefix>/status/<name>        controller status (JSON)
 *   <prefix>/events/<name>/<seq>  one JSON event per key; seq is the
 *                                 time in ns (20 digits) and 8 random hex
 *                                 digits, so keys sort oldest first */
#include "store_etcd_int.h"
#include "store_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ETCD_OF(s) ((struct store_etcd *)(s))

/* A new event's key: its time in ns (the log's order), then 8 random
 * hex digits so two events of one nanosecond differ. */
static int
event_key(struct store_etcd *s, const char *name, uint64_t ns, char *key,
          size_t size, struct err *e)
{
    char uid[37];

    if (store_uuid4(uid, e) == -1)
        return -1;
    return store__etcd_key(s, key, size, e, "events/%s/%020" PRIu64 "-%.8s",
                           name, ns, uid);
}

static uint64_t
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
store__etcd_event_append(struct store *st, const char *name, const char *line,
                         struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    char key[512];
    cJSON *ans = NULL;
    int rc;

    if (event_key(s, name, now_ns(), key, sizeof(key), e) == -1)
        return -1;
    /* create-only: two appends can never overwrite each other */
    rc = store__etcd_call_take(
        s, "/v3/kv/txn",
        store__etcd_txn_put(key, line, strlen(line), "", NULL, NULL), &ans, e);
    if (rc == 0 &&
        !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "succeeded")))
        rc = err_set(e, ERR_CONFLICT, "event key %s taken", key);
    cJSON_Delete(ans);
    return rc;
}

/* Add the events (create-only, in order: one ns apart) and the status
 * (NULL: none) of one name to the txn t. */
static int
status_ops(struct store_etcd *s, cJSON *t, const char *name, const char *status,
           size_t len, char *const *events, size_t n, struct err *e)
{
    uint64_t ns = now_ns();
    char key[512];

    if (status != NULL && len > STORE_STATE_MAX)
        return err_set(e, ERR_LIMIT, "state of \"%s\" is too big", name);
    for (size_t i = 0; i < n; i++)
        if (event_key(s, name, ns + i, key, sizeof(key), e) == -1 ||
            store__etcd_txn_add(t,
                                store__etcd_txn_put(key, events[i],
                                                    strlen(events[i]), "", NULL,
                                                    e),
                                e) == -1)
            return -1;
    if (status == NULL)
        return 0;
    if (store__etcd_key(s, key, sizeof(key), e, "status/%s", name) == -1)
        return -1;
    return store__etcd_txn_add(
        t, store__etcd_txn_put(key, status, len, NULL, NULL, e), e);
}

/* The removal of a name's status and metadata (its spec deleted and its
 * objects gone) into the txn t. */
static int
remove_ops(struct store_etcd *s, cJSON *t, const char *name, struct err *e)
{
    static const char *const dirs[] = { "status", "meta" };
    char key[512];

    for (size_t i = 0; i < 2; i++)
        if (store__etcd_key(s, key, sizeof(key), e, "%s/%s", dirs[i], name) ==
                -1 ||
            store__etcd_txn_add(t, store__etcd_txn_del(key, NULL, e), e) == -1)
            return -1;
    return 0;
}

/* One item of a group into the txn t: its events, then its status or its
 * removal. */
static int
item_ops(struct store_etcd *s, cJSON *t, const struct store_status_item *it,
         struct err *e)
{
    if (status_ops(s, t, it->name, it->remove ? NULL : it->status, it->len,
                   it->events, it->n_events, e) == -1)
        return -1;
    return it->remove ? remove_ops(s, t, it->name, e) : 0;
}

/* Send the txn t (taken); 1 when it was written, 0 when etcd refused it
 * (a compare, a limit of its own), -1 when it could not be sent. */
static int
status_send(struct store_etcd *s, cJSON *t, cJSON **ans, struct err *e)
{
    if (store__etcd_call_take(s, "/v3/kv/txn", t, ans, e) == -1)
        return e->code == ERR_REMOTE ? 0 : -1;
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(*ans, "succeeded"))
               ? 1
               : 0;
}

/* A written status taken into the cache and its output shared. */
static void
status_written(struct store_etcd *s, const char *name, const char *status,
               size_t len, const cJSON *ans)
{
    if (status == NULL)
        return;
    store__etcd_write_through(s, STORE_ETCD_STATUS, name, status, len, 0, ans);
    store__etcd_output_sync(s, name, status, len, NULL);
    store__etcd_changes_sync(s, name, status, len, NULL);
}

/* An item of a written group taken into the cache (a removal too). */
static void
item_written(struct store_etcd *s, const struct store_status_item *it,
             const cJSON *ans)
{
    if (!it->remove) {
        status_written(s, it->name, it->status, it->len, ans);
        return;
    }
    store__etcd_write_through(s, STORE_ETCD_STATUS, it->name, NULL, 0, 0, ans);
    store__etcd_write_through(s, STORE_ETCD_META, it->name, NULL, 0, 0, ans);
}

/* A status and its events in one request. A refused txn (an event key
 * taken: 8 random digits in the same ns) is written the long way. */
int
store__etcd_status_write(struct store *st, const char *name, const char *status,
                         size_t len, char *const *events, size_t n,
                         struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    cJSON *t = store__etcd_txn_new(e), *ans = NULL;
    int rc;

    if (t == NULL)
        return -1;
    if (status_ops(s, t, name, status, len, events, n, e) == -1) {
        cJSON_Delete(t);
        return -1;
    }
    rc = status_send(s, t, &ans, e);
    if (rc == 1)
        status_written(s, name, status, len, ans);
    cJSON_Delete(ans);
    if (rc != 0)
        return rc == 1 ? 0 : -1;
    for (size_t i = 0; i < n; i++)
        if (store__etcd_event_append(st, name, events[i], e) == -1)
            return -1;
    return status == NULL ? 0
                          : store__etcd_doc_put(st, STORE_DOC_STATUS, name,
                                                status, len, e);
}

#define STATUS_TXN_OPS   128             /* etcd's default --max-txn-ops */
#define STATUS_TXN_BYTES (1024u * 1024u) /* under --max-request-bytes */

/* How many items from it[0] go in one txn (at least one). */
static size_t
status_chunk(const struct store_status_item *it, size_t n)
{
    size_t k = 0, ops = 0, bytes = 0;

    for (; k < n; k++) {
        size_t o = it[k].n_events + (it[k].remove ? 2 : 1), b = it[k].len + 256;

        for (size_t i = 0; i < it[k].n_events; i++)
            b += strlen(it[k].events[i]) + 160;
        b = b * 4 / 3;
        if (k > 0 && (ops + o > STATUS_TXN_OPS || bytes + b > STATUS_TXN_BYTES))
            break;
        ops += o;
        bytes += b;
    }
    return k;
}

/* Several names' writes in one txn per chunk; a chunk etcd refuses is
 * written name by name, so each item gets its own answer. */
void
store__etcd_status_write_many(struct store *st, struct store_status_item *it,
                              size_t n)
{
    struct store_etcd *s = ETCD_OF(st);

    for (size_t at = 0, k; at < n; at += k) {
        struct err e = { 0 };
        cJSON *t = store__etcd_txn_new(&e), *ans = NULL;
        int rc = t == NULL ? -1 : 0;

        k = status_chunk(it + at, n - at);
        for (size_t i = at; rc == 0 && i < at + k; i++)
            rc = item_ops(s, t, &it[i], &e);
        if (rc == 0)
            rc = status_send(s, t, &ans, &e);
        else
            cJSON_Delete(t);
        for (size_t i = at; i < at + k; i++) {
            if (rc == 1)
                item_written(s, &it[i], ans);
            else if (rc == 0 || e.code != ERR_UNAVAIL)
                it[i].rc = store__status_item_alone(st, &it[i]);
            else { /* etcd cannot be reached: none of them written */
                it[i].rc = -1;
                it[i].err = e;
            }
        }
        cJSON_Delete(ans);
    }
}

/* --- without blocking ---------------------------------------------------- */

/* One store__etcd_status_write_many_async(): the items are the caller's
 * until done, which runs when the last of its txns is answered. */
struct status_async {
    struct store_etcd *s;
    struct store_status_item *it;
    size_t pending; /* txns sent, not yet answered */
    store_done_fn *done;
    void *arg;
};

/* One txn of it: the items [at, at + k). */
struct status_txn {
    struct status_async *a;
    size_t at, k;
};

static void status_txn_answered(void *arg, int rc, const cJSON *ans,
                                const struct err *e);

static void
items_failed(struct store_status_item *it, size_t k, const struct err *e)
{
    for (size_t i = 0; i < k; i++) {
        it[i].rc = -1;
        it[i].err = *e;
    }
}

/* Send the items [at, at + k) as one txn; those that cannot go fail now. */
static void
status_txn_send(struct status_async *a, size_t at, size_t k)
{
    struct store_status_item *it = a->it + at;
    struct status_txn *t = malloc(sizeof(*t));
    struct err e = { 0 };
    cJSON *body = store__etcd_txn_new(&e);
    int rc =
        body == NULL || t == NULL ? err_set(&e, ERR_NOMEM, "out of memory") : 0;

    for (size_t i = 0; rc == 0 && i < k; i++)
        rc = item_ops(a->s, body, &it[i], &e);
    if (rc == 0) {
        *t = (struct status_txn){ .a = a, .at = at, .k = k };
        rc = store__etcd_call_async(a->s, "/v3/kv/txn", body,
                                    status_txn_answered, t, &e);
    }
    cJSON_Delete(body);
    if (rc == 0) {
        a->pending++;
        return;
    }
    free(t);
    items_failed(it, k, &e);
}

/* A txn answered. Refused (an event key taken: 8 random digits in the
 * same ns) or failed by etcd's own rules: each of its names alone, so
 * one name's trouble is not the others'. Unreachable: all of them fail. */
static void
status_txn_answered(void *arg, int rc, const cJSON *ans, const struct err *e)
{
    struct status_txn *t = arg;
    struct status_async *a = t->a;
    struct store_status_item *it = a->it + t->at;
    bool written =
        rc == 0 &&
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ans, "succeeded"));
    struct err refused;

    if (written)
        for (size_t i = 0; i < t->k; i++)
            item_written(a->s, &it[i], ans);
    else if (t->k > 1 && (rc == 0 || e->code == ERR_REMOTE))
        for (size_t i = 0; i < t->k; i++)
            status_txn_send(a, t->at + i, 1);
    else if (rc == 0) {
        err_set(&refused, ERR_CONFLICT, "etcd refused the status of \"%s\"",
                it[0].name);
        items_failed(it, t->k, &refused);
    } else
        items_failed(it, t->k, e);
    free(t);
    if (--a->pending == 0) {
        a->done(a->arg, 0, NULL);
        free(a);
    }
}

int
store__etcd_status_write_many_async(struct store *st,
                                    struct store_status_item *it, size_t n,
                                    store_done_fn *done, void *arg,
                                    struct err *e)
{
    struct status_async *a = malloc(sizeof(*a));

    if (a == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    *a = (struct status_async){
        .s = ETCD_OF(st), .it = it, .done = done, .arg = arg
    };
    a->pending = 1; /* until every txn is sent: none answers before */
    for (size_t at = 0, k; at < n; at += k) {
        k = status_chunk(it + at, n - at);
        status_txn_send(a, at, k);
    }
    if (--a->pending > 0)
        return 0;
    /* nothing could be sent: each item says why, nothing answers later */
    *e = it[0].err;
    free(a);
    return -1;
}
