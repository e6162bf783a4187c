/* dk_req.c - one Engine API request: the curl easy handle and its options,
 * the header and body callbacks (capped body, streamed lines or bytes),
 * cancellation, and turning the outcome into a struct dk_response with the
 * error kinds of dk.h.
 */
#include "dk_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
#include <unistd.h>

void
dk__req_failed(struct dk_req *req, const struct err *e)
{
    if (req->failed)
        return;
    req->failed = 1;
    /* on the heap: most requests never fail, and a queued one is small */
    if ((req->fail = malloc(sizeof(*req->fail))) != NULL)
        *req->fail = *e;
}

static int
dk_req_fail(struct dk_req *req, enum err_code c, const char *what)
{
    struct err e;

    err_set(&e, c, "%s: %s", req->what, what);
    dk__req_failed(req, &e);
    return 0; /* the byte count that makes curl abort */
}

/* The transfer may go on: not cancelled, client not being freed. */
static int
dk_req_live(const struct dk_req *req)
{
    return (req->state == DK_REQ_ACTIVE || req->state == DK_REQ_FINISHING) &&
           !req->dk->closing;
}

static int
dk_deliver_lines(struct dk_req *req, const char *p, size_t n)
{
    while (n > 0 && dk_req_live(req)) {
        const char *nl = memchr(p, '\n', n);
        size_t take = nl != NULL ? (size_t)(nl - p) : n;

        if (buf_append(&req->line, p, take, NULL) == -1)
            return dk_req_fail(req, ERR_LIMIT, "stream line too long");
        p += take;
        n -= take;
        if (nl == NULL)
            break;
        p++;
        n--;
        if (req->line.len > 0 && req->line.data[req->line.len - 1] == '\r')
            req->line.data[--req->line.len] = '\0';
        if (req->line.len > 0)
            req->on_data(req, req->line.data, req->line.len, req->arg);
        if (dk_req_live(req))
            buf_reset(&req->line);
    }
    return dk_req_live(req);
}

/* No byte for idle_ms: end the transfer here, from the loop (not inside
 * curl, so the handle may be removed at once). */
static void
dk_on_idle(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct dk_req *req =
        (struct dk_req *)((char *)w - offsetof(struct dk_req, idle));
    struct dk *dk = req->dk;
    struct err e;

    (void)revents;
    ev_timer_stop(loop, w);
    if (req->state != DK_REQ_ACTIVE && req->state != DK_REQ_PENDING)
        return;
    dk__enter(dk);
    curl_multi_remove_handle(dk->multi, req->easy);
    err_set(&e, ERR_TIMEOUT, "%s: no data from Docker for %ld ms",
            req->what, req->idle_ms);
    dk__req_failed(req, &e);
    dk__finish(req, CURLE_OK);
    dk__leave(dk);
}

void
dk__idle_touch(struct dk_req *req)
{
    if (req->idle_ms <= 0)
        return;
    if (ev_cb(&req->idle) == NULL)
        ev_init(&req->idle, dk_on_idle);
    req->idle.repeat = (double)req->idle_ms / 1000.0;
    ev_timer_again(req->dk->loop, &req->idle);
}

/* CURLOPT_WRITEFUNCTION. Returning less than given makes curl stop the
 * transfer, which is how a cancel or a full buffer ends it. */
size_t
dk__on_write(char *p, size_t size, size_t nmemb, void *userp)
{
    struct dk_req *req = userp;
    size_t n = size * nmemb;

    if (!dk_req_live(req))
        return 0;
    dk__idle_touch(req);
    if (req->mode == DK_STREAM_NONE || req->status >= 400) {
        if (buf_append(&req->body, p, n, NULL) == -1)
            return dk_req_fail(req, ERR_LIMIT, "reply body too large");
        return n;
    }
    if (req->mode == DK_STREAM_LINES)
        return dk_deliver_lines(req, p, n) ? n : 0;
    req->on_data(req, p, n, req->arg);
    return dk_req_live(req) ? n : 0;
}

/* The body's fd is readable again: resume the upload, from the loop. */
static void
dk_on_up_ready(struct ev_loop *loop, ev_io *w, int revents)
{
    struct dk_req *req =
        (struct dk_req *)((char *)w - offsetof(struct dk_req, up_io));
    struct dk *dk = req->dk;

    (void)revents;
    ev_io_stop(loop, w);
    if (req->state != DK_REQ_ACTIVE)
        return;
    dk__enter(dk);
    dk__unpause(req);
    dk__leave(dk);
}

/* CURLOPT_READFUNCTION of a dk_body_stream: what the fd has now; pause
 * when it has nothing yet (dk_on_up_ready resumes). */
size_t
dk__on_read(char *p, size_t size, size_t nitems, void *userp)
{
    struct dk_req *req = userp;
    struct err e = { 0 };
    ssize_t r;

    if (!dk_req_live(req) || req->up_eof)
        return CURL_READFUNC_ABORT;
    do
        r = read(req->up_fd, p, size * nitems);
    while (r == -1 && errno == EINTR);
    if (r > 0)
        return (size_t)r;
    if (r == 0) {
        req->up_eof = 1;
        if (req->up_end != NULL && req->up_end(req->up_arg, &e) == -1) {
            dk__req_failed(req, &e);
            return CURL_READFUNC_ABORT;
        }
        return 0;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        if (ev_cb(&req->up_io) == NULL)
            ev_init(&req->up_io, dk_on_up_ready);
        ev_io_set(&req->up_io, req->up_fd, EV_READ);
        ev_io_start(req->dk->loop, &req->up_io);
        return CURL_READFUNC_PAUSE;
    }
    dk_req_fail(req, ERR_IO, "cannot read the request body");
    return CURL_READFUNC_ABORT;
}

static void
dk_parse_status_line(struct dk_req *req, const char *p, size_t n)
{
    char line[64], *end;
    size_t len = n < sizeof(line) - 1 ? n : sizeof(line) - 1;
    const char *sp;
    long status;

    memcpy(line, p, len);
    line[len] = '\0';
    sp = strchr(line, ' ');
    if (sp == NULL)
        return;
    status = strtol(sp + 1, &end, 10);
    if (end == sp + 1 || status < 100 || status > 999)
        return;
    req->status = status;
    req->is_json = 0; /* a new header block (after 100 Continue) */
    while (*end == ' ')
        end++;
    len = strcspn(end, "\r\n");
    if (len >= sizeof(req->reason))
        len = sizeof(req->reason) - 1;
    memcpy(req->reason, end, len);
    req->reason[len] = '\0';
}

/* CURLOPT_HEADERFUNCTION: one header line at a time, "\r\n" at the end. */
size_t
dk__on_header(char *p, size_t size, size_t nmemb, void *userp)
{
    struct dk_req *req = userp;
    size_t n = size * nmemb;
    static const char ct[] = "content-type:";

    if (!dk_req_live(req))
        return 0;
    dk__idle_touch(req);
    if (n > 5 && strncmp(p, "HTTP/", 5) == 0) {
        dk_parse_status_line(req, p, n);
    } else if (n > sizeof(ct) && strncasecmp(p, ct, sizeof(ct) - 1) == 0) {
        char v[128];
        size_t len = n - (sizeof(ct) - 1);

        if (len >= sizeof(v))
            len = sizeof(v) - 1;
        memcpy(v, p + sizeof(ct) - 1, len);
        v[len] = '\0';
        req->is_json = strstr(v, "application/json") != NULL;
    } else if ((n == 2 && p[0] == '\r') || (n == 1 && p[0] == '\n')) {
        if (req->status >= 200 && req->on_headers != NULL) {
            req->on_headers(req, req->status, req->arg);
            if (!dk_req_live(req))
                return 0;
        }
    }
    return n;
}

static void
dk_req_unlink(struct dk_req *req)
{
    struct dk *dk = req->dk;

    if (req->prev != NULL)
        req->prev->next = req->next;
    else if (dk->reqs == req)
        dk->reqs = req->next;
    if (req->next != NULL)
        req->next->prev = req->prev;
    req->prev = req->next = NULL;
}

double
dk__now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
dk__req_free(struct dk_req *req)
{
    if (req == NULL)
        return;
    ev_timer_stop(req->dk->loop, &req->idle);
    ev_io_stop(req->dk->loop, &req->up_io);
    if (req->easy != NULL) {
        curl_multi_remove_handle(req->dk->multi, req->easy);
        curl_easy_cleanup(req->easy);
    }
    curl_slist_free_all(req->headers);
    free(req->url);
    dk__dequeue(req);
    dk_req_unlink(req);
    buf_cleanup(&req->body);
    buf_cleanup(&req->line);
    if (req->wipe_send && req->send_body != NULL)
        explicit_bzero(req->send_body, req->send_len);
    free(req->send_body);
    free(req->what);
    free(req->fail);
    free(req->curl_err);
    free(req);
}

/* Free requests cancelled while curl was running. */
void
dk__reap(struct dk *dk)
{
    struct dk_req *req = dk->reqs, *next;

    dk->need_reap = 0;
    for (; req != NULL; req = next) {
        next = req->next;
        if (req->state == DK_REQ_CANCELLED)
            dk__req_free(req);
    }
}

void
dk_cancel(struct dk_req *req)
{
    struct dk *dk;

    if (req == NULL)
        return;
    dk = req->dk;
    switch (req->state) {
    case DK_REQ_DONE:
    case DK_REQ_CANCELLED:
        return;
    case DK_REQ_FINISHING: /* dk__finish() frees it */
        req->state = DK_REQ_CANCELLED;
        break;
    case DK_REQ_PENDING:
    case DK_REQ_ACTIVE:
        req->state = DK_REQ_CANCELLED;
        /* the caller may close the body's fd as soon as we return */
        ev_io_stop(dk->loop, &req->up_io);
        if (dk->in_curl > 0)
            dk->need_reap = 1;
        else
            dk__req_free(req);
        break;
    }
    dk->stats.cancelled++;
    dk->stats.in_flight--;
}
