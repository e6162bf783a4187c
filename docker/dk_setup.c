/* dk_setup.c - dk_request(): check the caller's options, keep what the
 * request needs (URL with the /v1.41 prefix, body, headers, deadlines),
 * hand it to the client (dk_client.c), and build its curl easy handle
 * when it goes into the multi handle (dk__req_easy).
 */
#include "dk_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DK_USER_AGENT "agentctl/" AGENTCTL_VERSION

static int
dk_check_opts(const struct dk *dk, const struct dk_request_opts *o,
              dk_done_fn *cb, struct err *e)
{
    static const char *const methods[] = { "GET", "POST", "PUT", "DELETE",
                                           "HEAD" };
    const char *m = o->method != NULL ? o->method : "GET";
    const char *p;
    size_t i;

    if (dk->closing)
        return err_set(e, ERR_INVALID, "Docker client is being freed");
    for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
        if (strcmp(m, methods[i]) == 0)
            break;
    if (i == sizeof(methods) / sizeof(methods[0]))
        return err_set(e, ERR_INVALID, "unsupported HTTP method \"%.16s\"", m);
    if (cb == NULL)
        return err_set(e, ERR_INVALID, "%s: no completion callback", m);
    if (o->path == NULL || o->path[0] != '/')
        return err_set(e, ERR_INVALID, "%s: path must start with \"/\"", m);
    for (p = o->path; *p != '\0'; p++)
        if ((unsigned char)*p <= 0x20 || *p == 0x7f || *p == '#')
            return err_set(e, ERR_INVALID,
                           "%s %.64s: path has a byte that must be "
                           "percent-encoded",
                           m, o->path);
    if (o->body_stream != NULL &&
        (o->body != NULL || strcmp(m, "PUT") != 0 || o->body_stream->fd < 0))
        return err_set(e, ERR_INVALID,
                       "%s %.64s: a body stream needs PUT, a fd and no body",
                       m, o->path);
    if (o->body == NULL && o->body_len > 0)
        return err_set(e, ERR_INVALID, "%s %.64s: body_len without body", m,
                       o->path);
    if (o->stream != DK_STREAM_NONE && o->on_data == NULL)
        return err_set(e, ERR_INVALID, "%s %.64s: stream without on_data", m,
                       o->path);
    return 0;
}

/* "POST /containers/create" from "/containers/create?name=x". */
static char *
dk_describe(const char *method, const char *path)
{
    size_t n = strcspn(path, "?");
    size_t len = strlen(method) + 1 + n + 1;
    char *s = malloc(len);

    if (s != NULL)
        snprintf(s, len, "%s %.*s", method, (int)n, path);
    return s;
}

static int
dk_header_add(struct dk_req *req, const char *line)
{
    struct curl_slist *h = curl_slist_append(req->headers, line);

    if (h == NULL)
        return -1;
    req->headers = h;
    return 0;
}

static int
dk_set_headers(struct dk_req *req, const struct dk_request_opts *o)
{
    char ct[128];

    /* Expect: 100-continue would add a round trip to every big body. */
    if (dk_header_add(req, "Expect:") == -1)
        return -1;
    if ((o->body != NULL || o->body_stream != NULL) &&
        o->content_type != NULL) {
        snprintf(ct, sizeof(ct), "Content-Type: %.100s", o->content_type);
        return dk_header_add(req, ct);
    }
    /* curl would claim application/x-www-form-urlencoded for a POST. */
    return dk_header_add(req, "Content-Type:");
}

/* The request's body as the options give it: a copy, or the stream's fd
 * (read by the upload callback). */
static int
dk_keep_body(struct dk_req *req, const struct dk_request_opts *o)
{
    if (o->body_stream != NULL) {
        req->up_fd = o->body_stream->fd;
        req->up_end = o->body_stream->end;
        req->up_arg = o->body_stream->arg;
    } else if (o->body != NULL) {
        req->send_body = malloc(o->body_len > 0 ? o->body_len : 1);
        if (req->send_body == NULL)
            return -1;
        if (o->body_len > 0)
            memcpy(req->send_body, o->body, o->body_len);
        req->send_len = o->body_len;
        req->wipe_send = o->wipe_body;
    }
    return 0;
}

static void
dk_keep_limits(struct dk_req *req, const struct dk_request_opts *o)
{
    long total = o->timeout_ms;

    req->connect_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms
                                                : DK_DEFAULT_CONNECT_MS;
    if (total == 0)
        total =
            o->stream != DK_STREAM_NONE ? DK_NO_TIMEOUT : DK_DEFAULT_TIMEOUT_MS;
    req->timeout_ms = total > 0 ? total : -1;
    req->idle_ms = o->idle_timeout_ms > 0 ? o->idle_timeout_ms : 0;
    req->fresh = o->fresh_connection != 0;
}

static char *
dk_url(const struct dk_request_opts *o)
{
    const char *prefix = o->raw_path ? "" : "/v" DK_API_VERSION;
    size_t n =
        strlen("http://localhost") + strlen(prefix) + strlen(o->path) + 1;
    char *url = malloc(n);

    if (url != NULL)
        snprintf(url, n, "http://localhost%s%s", prefix, o->path);
    return url;
}

static int
dk_set_method(struct dk_req *req)
{
    CURL *c = req->easy;
    int rc = CURLE_OK;

    if (req->up_fd >= 0) {
        /* no size: curl sends it chunked, as the read callback gives it */
        rc |= curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
        rc |= curl_easy_setopt(c, CURLOPT_READFUNCTION, dk__on_read);
        rc |= curl_easy_setopt(c, CURLOPT_READDATA, req);
        /* bigger reads, fewer pauses; still a bounded buffer */
        rc |= curl_easy_setopt(c, CURLOPT_UPLOAD_BUFFERSIZE,
                               (long)DK_UPLOAD_BUFFER);
    } else if (req->send_body != NULL) {
        rc |= curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                               (curl_off_t)req->send_len);
        rc |= curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->send_body);
    } else if (strcmp(req->method, "POST") == 0) {
        rc |= curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
        rc |= curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
    }
    if (strcmp(req->method, "HEAD") == 0)
        rc |= curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    else if (strcmp(req->method, "GET") != 0 &&
             strcmp(req->method, "POST") != 0)
        rc |= curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
    return rc == CURLE_OK ? 0 : -1;
}

int
dk__req_easy(struct dk_req *req)
{
    CURL *c = req->easy = curl_easy_init();
    int rc = CURLE_OK;

    if (c == NULL || (req->curl_err = calloc(1, CURL_ERROR_SIZE)) == NULL)
        return -1;
    rc |= curl_easy_setopt(c, CURLOPT_URL, req->url); /* curl copies it */
    rc |= curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, req->dk->sock_path);
    rc |= curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
    rc |= curl_easy_setopt(c, CURLOPT_PROXY, ""); /* ignore http_proxy */
    rc |= curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    rc |= curl_easy_setopt(c, CURLOPT_USERAGENT, DK_USER_AGENT);
    rc |= curl_easy_setopt(c, CURLOPT_PRIVATE, req);
    if (req->fresh) {
        rc |= curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
        rc |= curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
    }
    rc |= curl_easy_setopt(c, CURLOPT_ERRORBUFFER, req->curl_err);
    rc |= curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, dk__on_write);
    rc |= curl_easy_setopt(c, CURLOPT_WRITEDATA, req);
    rc |= curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, dk__on_header);
    rc |= curl_easy_setopt(c, CURLOPT_HEADERDATA, req);
    rc |= curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, req->connect_ms);
    rc |= curl_easy_setopt(c, CURLOPT_TIMEOUT_MS,
                           req->timeout_ms > 0 ? req->timeout_ms : 0L);
    rc |= curl_easy_setopt(c, CURLOPT_HTTPHEADER, req->headers);
    return rc == CURLE_OK ? dk_set_method(req) : -1;
}

/* Everything the request needs, kept in req; its curl handle is made
 * when it goes into the multi (dk__req_easy): a request that waits for a
 * slot holds no curl handle, ~3 KiB each (docs/bench-store.md). */
static struct dk_req *
dk_req_new(struct dk *dk, const struct dk_request_opts *o, dk_done_fn *cb,
           void *arg)
{
    struct dk_req *req = calloc(1, sizeof(*req));

    if (req == NULL)
        return NULL;
    req->dk = dk;
    req->up_fd = -1;
    snprintf(req->method, sizeof(req->method), "%s",
             o->method != NULL ? o->method : "GET");
    req->mode = o->stream;
    /* an idle timeout would run while the request waits for its slot */
    req->quick = o->stream == DK_STREAM_NONE && o->body_stream == NULL &&
                 !o->waits && o->timeout_ms != DK_NO_TIMEOUT &&
                 o->idle_timeout_ms <= 0;
    req->on_data = o->on_data;
    req->on_headers = o->on_headers;
    req->cb = cb;
    req->arg = arg;
    buf_init(&req->body, o->max_body > 0 ? o->max_body : DK_DEFAULT_MAX_BODY);
    buf_init(&req->line, o->max_line > 0 ? o->max_line : DK_DEFAULT_MAX_LINE);
    req->what = dk_describe(req->method, o->path);
    req->url = dk_url(o);
    dk_keep_limits(req, o);
    if (req->what == NULL || req->url == NULL || dk_set_headers(req, o) == -1 ||
        dk_keep_body(req, o) == -1) {
        dk__req_free(req);
        return NULL;
    }
    req->next = dk->reqs;
    if (dk->reqs != NULL)
        dk->reqs->prev = req;
    dk->reqs = req;
    return req;
}

struct dk_req *
dk_request(struct dk *dk, const struct dk_request_opts *o, dk_done_fn *cb,
           void *arg, struct err *e)
{
    struct dk_req *req;

    if (dk_check_opts(dk, o, cb, e) == -1)
        return NULL;
    req = dk_req_new(dk, o, cb, arg);
    if (req == NULL) {
        err_set(e, ERR_NOMEM, "%s %.64s: out of memory setting up request",
                o->method != NULL ? o->method : "GET", o->path);
        return NULL;
    }
    if (dk__add(req, e) == -1) {
        dk__req_free(req);
        return NULL;
    }
    dk->stats.in_flight++;
    dk__idle_touch(req);
    return req;
}
