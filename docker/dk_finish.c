/* dk_finish.c - a finished transfer becomes a dk_response: map curl
 * results and HTTP statuses to error kinds (with the daemon's own message),
 * parse JSON replies, count the outcome, call the callback once, free.
 */
#include "dk_int.h"

#include <stdio.h>
#include <string.h>

/* The daemon's words: {"message":"..."} or the first line of a text body. */
static void
dk_daemon_message(const struct dk_req *req, const cJSON *json, char *out,
                  size_t size)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(json, "message");
    const char *s = req->body.data != NULL ? req->body.data : "";
    size_t n;

    if (cJSON_IsString(m) && m->valuestring != NULL)
        s = m->valuestring;
    n = strcspn(s, "\r\n");
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n >= size)
        n = size - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

static void
dk_http_err(const struct dk_req *req, const cJSON *json, struct err *e)
{
    char msg[sizeof(e->msg)];
    enum err_code c = ERR_REMOTE;

    if (req->status == 404)
        c = ERR_NOTFOUND;
    else if (req->status == 409)
        c = ERR_CONFLICT;
    dk_daemon_message(req, json, msg, sizeof(msg));
    err_set(e, c, "%s: %ld%s%s%s%s", req->what, req->status,
            req->reason[0] != '\0' ? " " : "", req->reason,
            msg[0] != '\0' ? ": " : "", msg);
}

static void
dk_transport_err(const struct dk_req *req, CURLcode rc, struct err *e)
{
    const char *detail =
        req->curl_err != NULL && req->curl_err[0] != '\0'
            ? req->curl_err
            : curl_easy_strerror(rc);
    long oserr = 0;

    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        err_set(e, ERR_TIMEOUT, "%s: Docker did not answer in time: %s",
                req->what, detail);
        break;
    case CURLE_COULDNT_CONNECT:
        curl_easy_getinfo(req->easy, CURLINFO_OS_ERRNO, &oserr);
        err_set(e, ERR_UNAVAIL, "%s: cannot reach Docker at %s: %s", req->what,
                req->dk->sock_path, oserr != 0 ? strerror((int)oserr) : detail);
        e->sys_errno = (int)oserr;
        break;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
        err_set(e, ERR_UNAVAIL, "%s: connection to Docker lost: %s", req->what,
                detail);
        break;
    case CURLE_WEIRD_SERVER_REPLY:
        err_set(e, ERR_SYNTAX, "%s: not an HTTP reply: %s", req->what, detail);
        break;
    case CURLE_OUT_OF_MEMORY:
        err_set(e, ERR_NOMEM, "%s: out of memory", req->what);
        break;
    default:
        err_set(e, ERR_IO, "%s: %s", req->what, detail);
        break;
    }
    e->peer = ERR_PEER_DOCKER; /* not the store's (try_result.c) */
}

/* NULL on success, else e filled. *json gets the parsed body if any. */
static const struct err *
dk_outcome(const struct dk_req *req, CURLcode rc, struct err *e, cJSON **json)
{
    *json = NULL;
    if (req->failed) {
        if (req->fail != NULL)
            *e = *req->fail;
        else
            err_set(e, ERR_NOMEM, "%s: failed (out of memory keeping why)",
                    req->what);
        return e;
    }
    if (rc != CURLE_OK) {
        dk_transport_err(req, rc, e);
        return e;
    }
    if (req->status == 0) {
        err_set(e, ERR_SYNTAX, "%s: reply without an HTTP status", req->what);
        return e;
    }
    if (req->is_json && req->body.len > 0) {
        *json = cJSON_ParseWithLength(req->body.data, req->body.len);
        if (*json == NULL && req->status < 400) {
            err_set(e, ERR_SYNTAX, "%s: reply is not valid JSON", req->what);
            return e;
        }
    }
    if (req->status >= 400) {
        dk_http_err(req, *json, e);
        return e;
    }
    return NULL;
}

static void
dk_observe(const struct dk_req *req, const struct err *e)
{
    struct dk *dk = req->dk;

    /* a request that never went (cancelled while it waited for a slot)
     * has no Docker latency */
    if (dk->observe == NULL || req->mode != DK_STREAM_NONE || req->started == 0)
        return;
    dk->observe(dk->observe_arg, dk__operation(req->what),
                dk__now() - req->started, e == NULL);
}

static void
dk_count(struct dk *dk, const struct err *e, long status)
{
    if (e == NULL)
        dk->stats.ok++;
    else if (e->code == ERR_TIMEOUT)
        dk->stats.timeout++;
    else if (status >= 500)
        dk->stats.http_5xx++;
    else if (status >= 400)
        dk->stats.http_4xx++;
    else
        dk->stats.transport++;
    dk->stats.in_flight--;
}

/* A line stream that ended without "\n" still delivers its last line.
 * Returns 0 when the request was cancelled (or the client freed) there. */
static int
dk_flush_line(struct dk_req *req, CURLcode rc)
{
    if (rc != CURLE_OK || req->failed || req->mode != DK_STREAM_LINES ||
        req->status >= 400 || req->line.len == 0)
        return 1;
    req->on_data(req, req->line.data, req->line.len, req->arg);
    return req->state == DK_REQ_FINISHING && !req->dk->closing;
}

/* The transfer is out of the multi handle (or never got in). */
void
dk__finish(struct dk_req *req, CURLcode rc)
{
    struct dk_response r;
    struct err e = { 0 };
    const struct err *ep;

    /* the done callback may close a body stream's fd: stop watching it */
    ev_io_stop(req->dk->loop, &req->up_io);
    if (req->state == DK_REQ_CANCELLED) {
        dk__req_free(req);
        return;
    }
    req->state = DK_REQ_FINISHING;
    if (!dk_flush_line(req, rc)) {
        dk__req_free(req);
        return;
    }
    ep = dk_outcome(req, rc, &e, &r.json);
    dk_count(req->dk, ep, req->status);
    dk_observe(req, ep);
    r.status = req->status;
    r.body = req->body.data != NULL ? req->body.data : "";
    r.len = req->body.len;
    r.err = ep;
    req->state = DK_REQ_DONE;
    req->cb(req, &r, req->arg);
    cJSON_Delete(r.json);
    dk__req_free(req);
}
