/* dk_engine.c - the typed Engine API calls (dk_engine.h): build the path
 * and the options of each request, then hand it to dk_request(). */
#include "dk_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

/* Longest path we build: a list filter of a few labels fits easily. */
#define DK_PATH_MAX 4096

const char *
dk_kind_name(enum dk_kind kind)
{
    static const char *const names[] = {
        [DK_CONTAINER] = "container",
        [DK_NETWORK] = "network",
        [DK_VOLUME] = "volume",
        [DK_IMAGE] = "image",
    };

    return names[kind];
}

/* The path of an object: prefix + escaped ref + suffix. */
static int
object_path(struct buf *p, const char *prefix, const char *ref,
            const char *suffix, struct err *e)
{
    char *esc;
    int rc;

    if (ref == NULL || ref[0] == '\0')
        return err_set(e, ERR_INVALID, "%s: no object reference", prefix);
    esc = dk_url_escape(ref, e);
    if (esc == NULL)
        return -1;
    rc = buf_printf(p, e, "%s%s%s", prefix, esc, suffix);
    free(esc);
    return rc;
}

static struct dk_req *
send_on_path(struct dk *dk, struct dk_request_opts *o, struct buf *p,
             dk_done_fn *cb, void *arg, struct err *e)
{
    struct dk_req *req;

    o->path = p->data;
    req = dk_request(dk, o, cb, arg, e);
    buf_cleanup(p);
    return req;
}

/* One request on the object's path; NULL when the path cannot be built. */
static struct dk_req *
object_call(struct dk *dk, struct dk_request_opts *o, const char *prefix,
            const char *ref, const char *suffix, dk_done_fn *cb, void *arg,
            struct err *e)
{
    struct buf p;

    buf_init(&p, DK_PATH_MAX);
    if (object_path(&p, prefix, ref, suffix, e) == -1) {
        buf_cleanup(&p);
        return NULL;
    }
    return send_on_path(dk, o, &p, cb, arg, e);
}

struct dk_req *
dk_inspect(struct dk *dk, enum dk_kind kind, const char *ref, dk_done_fn *cb,
           void *arg, struct err *e)
{
    static const char *const prefix[] = {
        [DK_CONTAINER] = "/containers/",
        [DK_NETWORK] = "/networks/",
        [DK_VOLUME] = "/volumes/",
        [DK_IMAGE] = "/images/",
    };
    static const char *const suffix[] = {
        [DK_CONTAINER] = "/json",
        [DK_NETWORK] = "",
        [DK_VOLUME] = "",
        [DK_IMAGE] = "/json",
    };
    struct dk_request_opts o = { .method = "GET" };

    return object_call(dk, &o, prefix[kind], ref, suffix[kind], cb, arg, e);
}

struct dk_req *
dk_remove(struct dk *dk, enum dk_kind kind, const char *ref, dk_done_fn *cb,
          void *arg, struct err *e)
{
    struct dk_request_opts o = { .method = "DELETE" };

    switch (kind) {
    case DK_CONTAINER:
        return object_call(dk, &o, "/containers/", ref, "?force=1", cb, arg, e);
    case DK_NETWORK:
        return object_call(dk, &o, "/networks/", ref, "", cb, arg, e);
    case DK_VOLUME:
        return object_call(dk, &o, "/volumes/", ref, "", cb, arg, e);
    case DK_IMAGE:
        break;
    }
    err_set(e, ERR_INVALID, "images are never removed");
    return NULL;
}

static void
apply_call(struct dk_request_opts *o, const struct dk_call *call)
{
    if (call == NULL)
        return;
    o->timeout_ms = call->timeout_ms;
    o->max_body = call->max_body;
}

struct dk_req *
dk_create(struct dk *dk, enum dk_kind kind, const char *name, const cJSON *body,
          const struct dk_call *call, dk_done_fn *cb, void *arg, struct err *e)
{
    static const char *const path[] = {
        [DK_CONTAINER] = "/containers/create",
        [DK_NETWORK] = "/networks/create",
        [DK_VOLUME] = "/volumes/create",
        [DK_IMAGE] = NULL,
    };
    struct dk_request_opts o = { .method = "POST",
                                 .content_type = "application/json" };
    struct dk_req *req = NULL;
    struct buf p;
    char *text;

    if (path[kind] == NULL || (name != NULL) != (kind == DK_CONTAINER)) {
        err_set(e, ERR_INVALID,
                "create: a name goes in the query for containers only");
        return NULL;
    }
    text = cJSON_PrintUnformatted(body);
    if (text == NULL) {
        err_set(e, ERR_NOMEM, "%s: cannot print the body", path[kind]);
        return NULL;
    }
    o.body = text;
    o.body_len = strlen(text);
    o.wipe_body = call != NULL && call->wipe_body;
    apply_call(&o, call);
    buf_init(&p, DK_PATH_MAX);
    if (buf_puts(&p, path[kind], e) == 0 &&
        (name == NULL || dk_query_add(&p, "name", name, e) == 0))
        req = send_on_path(dk, &o, &p, cb, arg, e);
    else
        buf_cleanup(&p);
    if (call != NULL && call->wipe_body)
        explicit_bzero(text, o.body_len);
    cJSON_free(text);
    return req;
}

struct dk_req *
dk_list(struct dk *dk, enum dk_kind kind, const char *key,
        const char *const *values, size_t n, dk_done_fn *cb, void *arg,
        struct err *e)
{
    static const char *const path[] = {
        [DK_CONTAINER] = "/containers/json?all=1",
        [DK_NETWORK] = "/networks",
        [DK_VOLUME] = "/volumes",
        [DK_IMAGE] = "/images/json",
    };
    struct dk_request_opts o = { .method = "GET" };
    struct buf p;
    cJSON *f = NULL;
    int rc;

    buf_init(&p, DK_PATH_MAX);
    rc = buf_puts(&p, path[kind], e);
    if (rc == 0 && key != NULL) {
        f = cJSON_CreateObject();
        if (f == NULL ||
            cJSON_AddItemToObject(f, key,
                                  cJSON_CreateStringArray(values, (int)n)) == 0)
            rc = err_set(e, ERR_NOMEM, "out of memory");
        else
            rc = dk_query_add_json(&p, "filters", f, e);
        cJSON_Delete(f);
    }
    if (rc == -1) {
        buf_cleanup(&p);
        return NULL;
    }
    return send_on_path(dk, &o, &p, cb, arg, e);
}

struct dk_req *
dk_container_start(struct dk *dk, const char *id, dk_done_fn *cb, void *arg,
                   struct err *e)
{
    struct dk_request_opts o = { .method = "POST" };

    return object_call(dk, &o, "/containers/", id, "/start", cb, arg, e);
}

struct dk_req *
dk_container_wait(struct dk *dk, const char *id, long timeout_ms,
                  dk_done_fn *cb, void *arg, struct err *e)
{
    struct dk_request_opts o = { .method = "POST",
                                 .timeout_ms = timeout_ms,
                                 .waits = true };

    return object_call(dk, &o, "/containers/", id, "/wait", cb, arg, e);
}

long
dk_wait_status(const struct dk_response *r)
{
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(r->json, "StatusCode");

    return cJSON_IsNumber(code) ? (long)code->valuedouble : -1;
}

struct dk_req *
dk_container_logs(struct dk *dk, const char *id, dk_done_fn *cb, void *arg,
                  struct err *e)
{
    struct dk_request_opts o = { .method = "GET" };

    return object_call(dk, &o, "/containers/", id, "/logs?stdout=1&stderr=1",
                       cb, arg, e);
}

struct dk_req *
dk_container_logs_tail(struct dk *dk, const char *id, unsigned lines,
                       size_t max_body, dk_done_fn *cb, void *arg,
                       struct err *e)
{
    struct dk_request_opts o = { .method = "GET", .max_body = max_body };
    char query[64];

    snprintf(query, sizeof(query), "/logs?stdout=1&stderr=1&tail=%u", lines);
    return object_call(dk, &o, "/containers/", id, query, cb, arg, e);
}

struct dk_req *
dk_container_follow_logs(struct dk *dk, const char *id, dk_data_fn *on_data,
                         dk_done_fn *on_done, void *arg, struct err *e)
{
    struct dk_request_opts o = { .method = "GET",
                                 .stream = DK_STREAM_RAW,
                                 .on_data = on_data,
                                 .timeout_ms = DK_NO_TIMEOUT };

    return object_call(dk, &o, "/containers/", id,
                       "/logs?stdout=1&stderr=1&follow=1", on_done, arg, e);
}

struct dk_req *
dk_container_read_logs(struct dk *dk, const char *id,
                       const struct dk_logs_query *q, dk_data_fn *on_data,
                       dk_done_fn *on_done, void *arg, struct err *e)
{
    struct dk_request_opts o = {
        .method = "GET",
        .stream = DK_STREAM_RAW,
        .on_data = on_data,
        .timeout_ms = q->timeout_ms > 0 ? q->timeout_ms : DK_NO_TIMEOUT,
    };
    char query[160];
    int n;

    n = snprintf(query, sizeof(query), "/logs?%s=1%s%s",
                 q->stream == 2 ? "stderr" : "stdout",
                 q->follow ? "&follow=1" : "",
                 q->timestamps ? "&timestamps=1" : "");
    /* digits and a dot only: nothing to escape, nothing else smuggled */
    if (q->since != NULL && q->since[0] != '\0' &&
        strspn(q->since, "0123456789.") == strlen(q->since))
        n += snprintf(query + n, sizeof(query) - (size_t)n, "&since=%.40s",
                      q->since);
    if (q->tail > 0)
        snprintf(query + n, sizeof(query) - (size_t)n, "&tail=%u", q->tail);
    return object_call(dk, &o, "/containers/", id, query, on_done, arg, e);
}

/* A request on /containers/{id}/archive?path=<dir>. */
static struct dk_req *
archive_call(struct dk *dk, struct dk_request_opts *o, const char *id,
             const char *dir, dk_done_fn *cb, void *arg, struct err *e)
{
    struct buf p;

    buf_init(&p, DK_PATH_MAX);
    if (object_path(&p, "/containers/", id, "/archive", e) == -1 ||
        dk_query_add(&p, "path", dir, e) == -1) {
        buf_cleanup(&p);
        return NULL;
    }
    return send_on_path(dk, o, &p, cb, arg, e);
}

/* PUT a tar built in memory; wipe: the client's copy of it is zeroed
 * when the request ends (it holds a secret). */
static struct dk_req *
put_tar(struct dk *dk, const char *id, const char *dir, const void *tar,
        size_t len, bool wipe, dk_done_fn *cb, void *arg, struct err *e)
{
    struct dk_request_opts o = {
        .method = "PUT",
        .body = tar != NULL ? tar : "",
        .body_len = len,
        .wipe_body = wipe,
        .content_type = "application/x-tar",
    };

    return archive_call(dk, &o, id, dir, cb, arg, e);
}

struct dk_req *
dk_container_put_archive(struct dk *dk, const char *id, const char *dir,
                         const void *tar, size_t len, dk_done_fn *cb, void *arg,
                         struct err *e)
{
    return put_tar(dk, id, dir, tar, len, false, cb, arg, e);
}

struct dk_req *
dk_container_put_secret(struct dk *dk, const char *id, const char *dir,
                        const void *tar, size_t len, dk_done_fn *cb, void *arg,
                        struct err *e)
{
    return put_tar(dk, id, dir, tar, len, true, cb, arg, e);
}

struct dk_req *
dk_container_put_archive_stream(struct dk *dk, const char *id, const char *dir,
                                const struct dk_body_stream *src,
                                const struct dk_call *call, dk_done_fn *cb,
                                void *arg, struct err *e)
{
    struct dk_request_opts o = {
        .method = "PUT",
        .body_stream = src,
        .content_type = "application/x-tar",
        .timeout_ms = call != NULL ? call->timeout_ms : 0,
    };

    return archive_call(dk, &o, id, dir, cb, arg, e);
}

struct dk_req *
dk_container_get_archive(struct dk *dk, const char *id, const char *dir,
                         size_t max_body, dk_done_fn *cb, void *arg,
                         struct err *e)
{
    struct dk_request_opts o = { .method = "GET", .max_body = max_body };

    return archive_call(dk, &o, id, dir, cb, arg, e);
}

struct dk_req *
dk_container_stream_archive(struct dk *dk, const char *id, const char *dir,
                            long idle_ms, dk_data_fn *on_data, dk_done_fn *cb,
                            void *arg, struct err *e)
{
    struct dk_request_opts o = {
        .method = "GET",
        .stream = DK_STREAM_RAW,
        .on_data = on_data,
        .timeout_ms = DK_NO_TIMEOUT,
        .idle_timeout_ms = idle_ms,
    };

    return archive_call(dk, &o, id, dir, cb, arg, e);
}

struct dk_req *
dk_network_connect(struct dk *dk, const char *ref, const cJSON *body,
                   dk_done_fn *cb, void *arg, struct err *e)
{
    struct buf p;
    struct dk_req *req = NULL;

    buf_init(&p, DK_PATH_MAX);
    if (object_path(&p, "/networks/", ref, "/connect", e) == 0)
        req = dk_post_json(dk, p.data, body, cb, arg, e);
    buf_cleanup(&p);
    return req;
}

struct dk_req *
dk_events(struct dk *dk, long since, const cJSON *filters, dk_data_fn *on_line,
          dk_done_fn *on_done, void *arg, struct err *e)
{
    struct dk_request_opts o = { .method = "GET",
                                 .stream = DK_STREAM_LINES,
                                 .on_data = on_line,
                                 .timeout_ms = DK_NO_TIMEOUT };
    char when[32];
    struct buf p;

    snprintf(when, sizeof(when), "%ld", since);
    buf_init(&p, DK_PATH_MAX);
    if (buf_puts(&p, "/events", e) == -1 ||
        dk_query_add(&p, "since", when, e) == -1 ||
        dk_query_add_json(&p, "filters", filters, e) == -1) {
        buf_cleanup(&p);
        return NULL;
    }
    return send_on_path(dk, &o, &p, on_done, arg, e);
}

struct dk_req *
dk_ping(struct dk *dk, bool fresh, dk_done_fn *cb, void *arg, struct err *e)
{
    struct dk_request_opts o = { .method = "GET",
                                 .path = "/_ping",
                                 .raw_path = 1,
                                 .fresh_connection = fresh ? 1 : 0 };

    return dk_request(dk, &o, cb, arg, e);
}

struct dk_req *
dk_info(struct dk *dk, dk_done_fn *cb, void *arg, struct err *e)
{
    struct dk_request_opts o = { .method = "GET", .path = "/info" };

    return dk_request(dk, &o, cb, arg, e);
}
