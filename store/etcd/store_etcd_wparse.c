/* store_etcd_wparse.c - the etcd watch stream as the gateway sends it:
 * one JSON object per line, {"result": {"header": {...}, "created": true}
 * | {"events": [{"type": "DELETE"?, "kv": {"key": b64, ...}}]} |
 * {"canceled": true, "compact_revision": "N"}}. A message may arrive in
 * any number of pieces and several may come in one read, so bytes are
 * kept until a newline ends a message. Pure: fed bytes, no I/O. */
#include "store_etcd_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
store__etcd_wparse_init(struct store_etcd_wparse *p, const char *specs)
{
    buf_init(&p->pending, STORE_ETCD_WATCH_MAX);
    p->specs = specs;
    p->cache = NULL;
}

void
store__etcd_wparse_cleanup(struct store_etcd_wparse *p)
{
    buf_cleanup(&p->pending);
}

int
store__etcd_wparse_feed(struct store_etcd_wparse *p, const char *data,
                        size_t len, struct err *e)
{
    if (buf_append(&p->pending, data, len, NULL) == -1)
        return err_set(e, ERR_LIMIT, "etcd watch message over %u MiB",
                       STORE_ETCD_WATCH_MAX >> 20);
    return 0;
}

static void
emit(struct store_change *out, size_t max, size_t *n, bool *over,
     enum store_change_kind kind, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(out[i].name, name) == 0) {
            out[i].kind = kind; /* the later change of a name wins */
            return;
        }
    if (*n >= max) {
        *over = true;
        return;
    }
    out[*n].kind = kind;
    snprintf(out[*n].name, sizeof(out[*n].name), "%s", name);
    (*n)++;
}

/* One event: a change of a key under specs with a valid name. */
static int
take_event(struct store_etcd_wparse *p, const cJSON *ev,
           struct store_change *out, size_t max, size_t *n, bool *over,
           struct err *e)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(ev, "type");
    const cJSON *kv = cJSON_GetObjectItemCaseSensitive(ev, "kv");
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(kv, "key");
    size_t skip = strlen(p->specs), klen;
    char *k;

    bool del = cJSON_IsString(type) && strcmp(type->valuestring, "DELETE") == 0;

    if (!cJSON_IsString(key) ||
        store__etcd_b64_dec(key->valuestring, &k, &klen, e) == -1)
        return err_set(e, ERR_SYNTAX, "etcd watch event without a key");
    if (p->cache != NULL && store__etcd_cache_apply_kv(p->cache, kv, del, NULL,
                                                       NULL, NULL, e) == -1) {
        free(k);
        return -1;
    }
    /* PUT is enum value 0, which the gateway leaves out */
    if (klen > skip && strncmp(k, p->specs, skip) == 0 &&
        store_name_ok(k + skip))
        emit(out, max, n, over, del ? STORE_CHANGE_DELETE : STORE_CHANGE_PUT,
             k + skip);
    free(k);
    return 0;
}

static int
take_message(struct store_etcd_wparse *p, const cJSON *msg,
             enum store_etcd_wmsg *kind, int64_t *rev, struct store_change *out,
             size_t max, size_t *n, bool *over, struct err *e)
{
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(msg, "result");
    const cJSON *ev;

    if (!cJSON_IsObject(res))
        return err_set(e, ERR_SYNTAX, "etcd watch answered without a result");
    *rev = store__etcd_int(cJSON_GetObjectItemCaseSensitive(res, "header"),
                           "revision");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "canceled")) ||
        store__etcd_int(res, "compact_revision") != 0) {
        *kind = STORE_ETCD_WMSG_COMPACTED;
        return 0;
    }
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(res, "created"))) {
        *kind = STORE_ETCD_WMSG_CREATED;
        return 0;
    }
    *kind = STORE_ETCD_WMSG_EVENTS;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(res, "events"))
    {
        if (take_event(p, ev, out, max, n, over, e) == -1)
            return -1;
    }
    return 0;
}

int
store__etcd_wparse_next(struct store_etcd_wparse *p, enum store_etcd_wmsg *kind,
                        int64_t *rev, struct store_change *out, size_t max,
                        size_t *n, bool *over, struct err *e)
{
    struct buf *b = &p->pending;
    char *nl;
    size_t used;
    cJSON *msg;
    int rc;

    *kind = STORE_ETCD_WMSG_NONE;
    *rev = 0;
    for (;;) {
        nl = b->len ? memchr(b->data, '\n', b->len) : NULL;
        if (nl == NULL)
            return 0;
        used = (size_t)(nl - b->data) + 1;
        /* blank lines (keep-alive) carry nothing */
        if (strspn(b->data, " \r\t") < used - 1)
            break;
        memmove(b->data, b->data + used, b->len - used + 1);
        b->len -= used;
    }
    msg = cJSON_ParseWithLength(b->data, used);
    memmove(b->data, b->data + used, b->len - used + 1);
    b->len -= used;
    if (msg == NULL)
        return err_set(e, ERR_SYNTAX,
                       "etcd watch sent a line that is not "
                       "JSON");
    rc = take_message(p, msg, kind, rev, out, max, n, over, e);
    cJSON_Delete(msg);
    return rc;
}
