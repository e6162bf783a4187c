/* store_etcd_loop.c - the requests the controller's loop used to wait
 * for, sent without blocking instead (docs/store-etcd.md "Claims and
 * leases", "Watch"): a new lease, the pool document, and the list of a
 * key directory that (re)starts its watch, at start-up and after a
 * broken stream. Each goes on the watch's curl multi handle
 * (store_etcd_async.c) and is answered from a later store_watch_read();
 * an etcd that is stopped or slow then costs the loop nothing, where a
 * blocking request held every other watcher for up to the timeout per
 * endpoint. */
#include "store_etcd_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ETCD_OF(s) ((struct store_etcd *)(s))

static int
nomem(struct err *e)
{
    return err_set(e, ERR_NOMEM, "out of memory");
}

void
store_etcd_set_loop_blocking(struct store *st, bool on)
{
    if (strcmp(st->backend, "etcd") == 0)
        ETCD_OF(st)->loop_blocking = on;
}

/* The negative control asks for the blocking way: store.c's fallback. */
static bool
blocking_asked(struct store_etcd *s, struct err *e)
{
    if (!s->loop_blocking)
        return false;
    (void)err_set(e, ERR_INVALID, "blocking way asked for (test hook)");
    return true;
}

/* --- a directory's list ----------------------------------------------- */

struct relist_req {
    struct store_etcd *s;
    enum store_etcd_part part;
    store__etcd_relist_fn *done;
    void *arg;
};

static void
relist_answered(void *arg, int rc, const cJSON *ans, const struct err *e)
{
    struct relist_req *r = arg;
    struct err mine = { 0 };
    int64_t rev = 0;

    if (rc == -1 && e != NULL)
        mine = *e;
    else if (rc == 0)
        rc = store__etcd_relist_take(r->s, r->part, ans, &rev, &mine);
    r->done(r->arg, rc, rev, &mine);
    free(r);
}

int
store__etcd_relist_async(struct store_etcd *s, enum store_etcd_part part,
                         store__etcd_relist_fn *done, void *arg, struct err *e)
{
    struct relist_req *r = calloc(1, sizeof(*r));
    cJSON *body;
    int rc;

    if (r == NULL)
        return nomem(e);
    body = store__etcd_relist_body(s, part, e);
    if (body == NULL) {
        free(r);
        return -1;
    }
    *r = (struct relist_req){ .s = s, .part = part, .done = done, .arg = arg };
    rc = store__etcd_call_async(s, "/v3/kv/range", body, relist_answered, r,
                                e);
    cJSON_Delete(body);
    if (rc == -1)
        free(r);
    return rc;
}

/* --- a lease ---------------------------------------------------------- */

struct grant_req {
    store_lease_fn *done;
    void *arg;
};

static void
grant_answered(void *arg, int rc, const cJSON *ans, const struct err *e)
{
    struct grant_req *g = arg;
    struct err mine = { 0 };
    int64_t lease = 0;

    if (rc == -1 && e != NULL)
        mine = *e;
    else if (rc == 0 && (lease = store__etcd_int(ans, "ID")) == 0)
        rc = err_set(&mine, ERR_REMOTE, "etcd granted no lease ID");
    g->done(g->arg, rc, lease, &mine);
    free(g);
}

int
store__etcd_lease_grant_async(struct store *st, int ttl_s,
                              store_lease_fn *done, void *arg, struct err *e)
{
    struct grant_req *g;
    cJSON *req;
    int rc;

    if (blocking_asked(ETCD_OF(st), e))
        return -1;
    g = calloc(1, sizeof(*g));
    req = cJSON_CreateObject();
    if (g == NULL || req == NULL ||
        !cJSON_AddNumberToObject(req, "TTL", ttl_s)) {
        free(g);
        cJSON_Delete(req);
        return nomem(e);
    }
    *g = (struct grant_req){ .done = done, .arg = arg };
    rc = store__etcd_call_async(ETCD_OF(st), "/v3/lease/grant", req,
                                grant_answered, g, e);
    cJSON_Delete(req);
    if (rc == -1)
        free(g);
    return rc;
}

/* --- a document nobody caches ------------------------------------------ */

struct put_req {
    store_done_fn *done;
    void *arg;
};

static void
put_answered(void *arg, int rc, const cJSON *ans, const struct err *e)
{
    struct put_req *p = arg;

    (void)ans; /* an unconditional put: nothing to compare */
    p->done(p->arg, rc, rc == -1 ? e : NULL);
    free(p);
}

int
store__etcd_doc_put_async(struct store *st, enum store_doc kind,
                          const char *name, const char *data, size_t len,
                          store_done_fn *done, void *arg, struct err *e)
{
    struct store_etcd *s = ETCD_OF(st);
    struct put_req *p;
    char key[512];
    cJSON *body;
    int rc;

    if (blocking_asked(s, e))
        return -1;
    /* the cached kinds keep their write-through (the blocking put) */
    if (kind != STORE_DOC_POOL)
        return err_set(e, ERR_INVALID, "only the pool document goes async");
    if (len > STORE_STATE_MAX)
        return err_set(e, ERR_LIMIT, "pool of \"%s\" is too big", name);
    if (store__etcd_key(s, key, sizeof(key), e, "pool/%s", name) == -1)
        return -1;
    p = calloc(1, sizeof(*p));
    body = store__etcd_txn_put(key, data, len, NULL, NULL, e);
    if (p == NULL || body == NULL) {
        free(p);
        cJSON_Delete(body);
        return nomem(e);
    }
    *p = (struct put_req){ .done = done, .arg = arg };
    rc = store__etcd_call_async(s, "/v3/kv/txn", body, put_answered, p, e);
    cJSON_Delete(body);
    if (rc == -1)
        free(p);
    return rc;
}
