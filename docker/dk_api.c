/* dk_api.c - the thin layer over dk_request(): API version negotiation,
 * shorthands for the common request shapes, and query-string building.
 */
#include "dk_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "1.41" -> 1041; -1 when it is not "<major>.<minor>". */
static long
dk_version_num(const cJSON *v)
{
    const char *s = cJSON_GetStringValue(v);
    char *end;
    long major, minor;

    if (s == NULL)
        return -1;
    errno = 0;
    major = strtol(s, &end, 10);
    if (end == s || *end != '.' || errno != 0 || major < 0 || major > 999)
        return -1;
    s = end + 1;
    minor = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || minor < 0 || minor > 999)
        return -1;
    return major * 1000 + minor;
}

static int
dk_check_version(const cJSON *json, struct err *e)
{
    const cJSON *api = cJSON_GetObjectItemCaseSensitive(json, "ApiVersion");
    const cJSON *min = cJSON_GetObjectItemCaseSensitive(json, "MinAPIVersion");
    long want = 1041, have = dk_version_num(api), low = dk_version_num(min);

    if (have < 0)
        return err_set(e, ERR_SYNTAX,
                       "GET /version: reply has no valid ApiVersion");
    if (low < 0)
        low = have; /* very old daemons did not say; judge by ApiVersion */
    if (have < want || low > want)
        return err_set(e, ERR_INVALID,
                       "Docker daemon speaks API %s (minimum %s); agentctl "
                       "needs API " DK_API_VERSION " (Docker 20.10 or newer "
                       "that still accepts it)",
                       cJSON_GetStringValue(api),
                       low == have ? cJSON_GetStringValue(api)
                                   : cJSON_GetStringValue(min));
    return 0;
}

static void
dk_on_version(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct err e = { 0 };

    (void)arg;
    if (r->err == NULL) {
        if (dk_check_version(r->json, &e) == 0)
            req->dk->negotiated = 1;
        else
            r->err = &e;
    }
    req->inner_cb(req, r, req->inner_arg);
}

int
dk_negotiate(struct dk *dk, dk_done_fn *cb, void *arg, struct err *e)
{
    struct dk_request_opts o = { .path = "/version",
                                 .raw_path = 1,
                                 .fresh_connection = 1 };
    struct dk_req *req;

    if (cb == NULL)
        return err_set(e, ERR_INVALID, "dk_negotiate: no callback");
    req = dk_request(dk, &o, dk_on_version, NULL, e);
    if (req == NULL)
        return -1;
    /* Safe: the callback never runs before dk_request() returned. */
    req->inner_cb = cb;
    req->inner_arg = arg;
    return 0;
}

static struct dk_req *
dk_simple(struct dk *dk, const char *method, const char *path, dk_done_fn *cb,
          void *arg, struct err *e)
{
    struct dk_request_opts o = { .method = method, .path = path };

    return dk_request(dk, &o, cb, arg, e);
}

struct dk_req *
dk_get(struct dk *dk, const char *path, dk_done_fn *cb, void *arg,
       struct err *e)
{
    return dk_simple(dk, "GET", path, cb, arg, e);
}

struct dk_req *
dk_delete(struct dk *dk, const char *path, dk_done_fn *cb, void *arg,
          struct err *e)
{
    return dk_simple(dk, "DELETE", path, cb, arg, e);
}

struct dk_req *
dk_post_json(struct dk *dk, const char *path, const cJSON *body, dk_done_fn *cb,
             void *arg, struct err *e)
{
    struct dk_request_opts o = { .method = "POST", .path = path };
    struct dk_req *req;
    char *text = NULL;

    if (body != NULL) {
        text = cJSON_PrintUnformatted(body);
        if (text == NULL) {
            err_set(e, ERR_NOMEM, "POST %.64s: cannot print the JSON body",
                    path);
            return NULL;
        }
        o.body = text;
        o.body_len = strlen(text);
        o.content_type = "application/json";
    }
    req = dk_request(dk, &o, cb, arg, e);
    cJSON_free(text);
    return req;
}

struct dk_req *
dk_put_tar(struct dk *dk, const char *path, const void *tar, size_t len,
           dk_done_fn *cb, void *arg, struct err *e)
{
    struct dk_request_opts o = {
        .method = "PUT",
        .path = path,
        .body = tar != NULL ? tar : "",
        .body_len = len,
        .content_type = "application/x-tar",
    };

    return dk_request(dk, &o, cb, arg, e);
}

struct dk_req *
dk_stream(struct dk *dk, const char *path, enum dk_stream_mode mode,
          dk_data_fn *on_data, dk_done_fn *on_done, void *arg, struct err *e)
{
    struct dk_request_opts o = {
        .path = path,
        .stream = mode,
        .on_data = on_data,
        .timeout_ms = DK_NO_TIMEOUT,
    };

    if (mode == DK_STREAM_NONE) {
        err_set(e, ERR_INVALID, "GET %.64s: dk_stream needs a stream mode",
                path);
        return NULL;
    }
    return dk_request(dk, &o, on_done, arg, e);
}

char *
dk_url_escape(const char *s, struct err *e)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s), i, j = 0;
    char *out;

    if (n > (SIZE_MAX - 1) / 3) {
        err_set(e, ERR_LIMIT, "string too long to escape");
        return NULL;
    }
    out = malloc(3 * n + 1);
    if (out == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
            c == '~') {
            out[j++] = (char)c;
        } else {
            out[j++] = '%';
            out[j++] = hex[c >> 4];
            out[j++] = hex[c & 15];
        }
    }
    out[j] = '\0';
    return out;
}

int
dk_query_add(struct buf *b, const char *key, const char *value, struct err *e)
{
    char *k, *v;
    int rc = -1;
    const char *sep = "?";

    if (b->len > 0 && memchr(b->data, '?', b->len) != NULL)
        sep = "&";
    k = dk_url_escape(key, e);
    v = k != NULL ? dk_url_escape(value, e) : NULL;
    if (v != NULL)
        rc = buf_printf(b, e, "%s%s=%s", sep, k, v);
    free(k);
    free(v);
    return rc;
}

int
dk_query_add_json(struct buf *b, const char *key, const cJSON *value,
                  struct err *e)
{
    char *text = cJSON_PrintUnformatted(value);
    int rc;

    if (text == NULL)
        return err_set(e, ERR_NOMEM, "cannot print query JSON for %s", key);
    rc = dk_query_add(b, key, text, e);
    cJSON_free(text);
    return rc;
}
