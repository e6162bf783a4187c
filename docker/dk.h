/* dk.h - asynchronous Docker Engine API client over the unix socket.
 *
 * libcurl's multi socket interface driven by a libev loop (curl
 * docs/examples/evhiperfifo.c), so the controller keeps running while a
 * Docker call is slow: any number of requests may be in flight, each with
 * its own completion callback. Only unix:// daemons are supported; tcp://,
 * ssh:// and the rest are out of scope and refused by dk_new().
 *
 * We speak Engine API 1.41 (Docker 20.10): every path is sent as
 * /v1.41<path>. dk_negotiate() checks that the daemon can serve it.
 *
 * Async rules: a start function that fails returns NULL / -1,
 * fills its struct err and never calls the callback; one that succeeds
 * calls it exactly once, never before it returns, unless the request is
 * cancelled first. Callbacks run from the loop given to dk_new(); on_data
 * and on_headers run while libcurl works, so a request started there is
 * handed to libcurl on the next loop iteration. One thread per client.
 *
 * Paths are sent as given: escape any name or value you put in them
 * (dk_url_escape(), dk_query_add()). IDs from Docker are safe as they are.
 *
 * Errors in a dk_response: transport failures (no socket, connection
 * refused or reset) are ERR_UNAVAIL, deadlines ERR_TIMEOUT, 404
 * ERR_NOTFOUND, 409 ERR_CONFLICT, other 4xx/5xx ERR_REMOTE with the
 * daemon's message ("POST /containers/create: 409 Conflict: Conflict. The
 * container name ..."), a body over its cap ERR_LIMIT, a reply that is not
 * HTTP or JSON ERR_SYNTAX.
 */
#ifndef DK_H
#define DK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <ev.h>

#include "buf.h"
#include "err.h"

#define DK_API_VERSION        "1.41"
#define DK_DEFAULT_URL        "unix:///var/run/docker.sock"
#define DK_DEFAULT_CONNECT_MS 5000L
#define DK_DEFAULT_TIMEOUT_MS 30000L
#define DK_DEFAULT_MAX_BODY   (8u * 1024 * 1024)
#define DK_DEFAULT_MAX_LINE   (1024u * 1024)
/* libcurl's upload buffer for a dk_body_stream. */
#define DK_UPLOAD_BUFFER (256L * 1024)
/* Idle connections to the daemon kept for reuse. */
#define DK_MAX_IDLE_CONNS 8
/* Quick requests (not a stream, an upload, a wait for a container's exit
 * or a request with an idle timeout) in flight at once; more wait their
 * turn, first in first out. A burst of thousands (a bulk apply's image inspects) otherwise opens as
 * many connections, the daemon answers none in time, and every one fails
 * on its timeout together. */
#define DK_MAX_QUICK 32
/* timeout_ms value: no total deadline (wait, streams). */
#define DK_NO_TIMEOUT (-1L)

struct dk;
struct dk_req;

/* What a finished request hands its callback. Everything is borrowed and
 * lives until the callback returns, except json: the callback may keep it
 * by setting r->json to NULL (it then owns and cJSON_Delete()s it). */
struct dk_response {
    long status;           /* HTTP status; 0 when no reply came */
    const char *body;      /* NUL-terminated, "" when empty; never NULL */
    size_t len;            /* body bytes (streams: only error bodies) */
    cJSON *json;           /* parsed body if the reply is JSON, else NULL */
    const struct err *err; /* NULL on success (status < 400) */
};

/* Completion: runs once per request unless it was cancelled. req stays
 * valid until the callback returns; dk_cancel(req) inside it does nothing.
 * The callback may start requests, cancel others and call dk_free(). */
typedef void dk_done_fn(struct dk_req *req, struct dk_response *r, void *arg);

/* Streaming data: len bytes (DK_STREAM_RAW) or one line without its "\n"
 * (DK_STREAM_LINES, data NUL-terminated) of a 2xx reply. May call
 * dk_cancel(req), dk_request() and dk_free(). */
typedef void dk_data_fn(struct dk_req *req, const char *data, size_t len,
                        void *arg);

/* The reply's header block is complete (e.g. POST /wait registered). */
typedef void dk_headers_fn(struct dk_req *req, long status, void *arg);

enum dk_stream_mode {
    DK_STREAM_NONE = 0, /* buffer the whole body (capped), no on_data */
    DK_STREAM_RAW,      /* pass bytes as they come (logs) */
    DK_STREAM_LINES,    /* pass whole lines (events: one JSON per line) */
};

/* A request body read from a descriptor as it becomes readable, for a
 * body made while it is sent (a workspace being packed): sent chunked,
 * never held whole. libcurl's read callback takes what is there; when
 * nothing is, the transfer pauses (CURL_READFUNC_PAUSE) and an ev_io on
 * fd resumes it once it is readable. End-of-file ends the body: end (if
 * set) runs first, in the loop, and returning -1 (e filled) aborts the
 * upload without its last chunk, so the daemon sees a broken body, and
 * fails the request with e. */
typedef int dk_body_end_fn(void *arg, struct err *e);

struct dk_body_stream {
    int fd;              /* non-blocking; stays the caller's (close it
                            after the done callback or dk_cancel()) */
    dk_body_end_fn *end; /* may be NULL */
    void *arg;
};

/* Zero-initialise, then fill what you need. */
struct dk_request_opts {
    const char *method;       /* "GET" when NULL; POST, PUT, DELETE, HEAD */
    const char *path;         /* "/containers/json?all=1": escaped by caller */
    const void *body;         /* copied; NULL = no body */
    const struct dk_body_stream *body_stream; /* PUT only, instead of body;
                                                 copied */
    size_t body_len;          /* bytes of body */
    bool wipe_body;           /* body holds a secret: our copy is zeroed
                                 when the request ends */
    const char *content_type; /* e.g. "application/json" */
    long connect_timeout_ms;  /* 0 = DK_DEFAULT_CONNECT_MS */
    long timeout_ms;          /* 0 = default (requests 30 s, streams none); or
                                 DK_NO_TIMEOUT */
    long idle_timeout_ms;     /* fail (ERR_TIMEOUT) after this long without
                                 a byte from the daemon; 0 = never */
    size_t max_body;          /* 0 = DK_DEFAULT_MAX_BODY */
    size_t max_line;          /* DK_STREAM_LINES: 0 = DK_DEFAULT_MAX_LINE */
    int raw_path;             /* 1: do not prefix /v1.41 (/_ping, /version) */
    int fresh_connection;     /* 1: a new connection, closed after: proves
                                 the daemon accepts connections now (a
                                 stopping dockerd closes its listener but
                                 still answers on open connections) */
    enum dk_stream_mode stream;
    dk_data_fn *on_data;       /* required when stream != NONE */
    dk_headers_fn *on_headers; /* optional */
    bool waits;                /* answered when a container exits (wait):
                                  not quick, takes no DK_MAX_QUICK slot */
};

/* Called once per finished request that is not a stream (events, log
 * follows: their duration is how long they were watched), with its
 * operation ("container_inspect", "network_create", ... "other"; never an
 * object name), how long it took and whether it succeeded. For a latency
 * histogram; runs inside the loop and must not block. */
typedef void dk_observe_fn(void *arg, const char *operation, double seconds,
                           bool ok);
void dk_set_observer(struct dk *dk, dk_observe_fn *fn, void *arg);

/* Counters for metrics, since dk_new(). */
struct dk_stats {
    uint64_t ok;        /* status < 400 (2xx, and 304 "already started") */
    uint64_t http_4xx;  /* 400..499 */
    uint64_t http_5xx;  /* 500..599 */
    uint64_t transport; /* daemon unreachable, reset, bad reply, cap */
    uint64_t timeout;   /* connect, total or idle deadline */
    uint64_t cancelled; /* dk_cancel() or dk_free() before completion */
    uint64_t in_flight; /* started and not yet finished or cancelled */
};

/* Make a client on loop. docker_url "unix:///path" wins; NULL uses
 * $DOCKER_HOST, then DK_DEFAULT_URL. Any other scheme fails with
 * ERR_INVALID. Nothing is connected yet. Free with dk_free(). */
struct dk *dk_new(struct ev_loop *loop, const char *docker_url, struct err *e);

/* Cancel every outstanding request WITHOUT calling its callbacks, stop
 * every watcher and free the client. Call before destroying the loop.
 * Inside a dk callback the memory is released when the callback returns;
 * no dk callback runs after dk_free() returns. NULL is a no-op. */
void dk_free(struct dk *dk);

/* The socket path the client talks to (borrowed). */
const char *dk_socket_path(const struct dk *dk);

/* GET /version and check the daemon serves 1.41 (ApiVersion >= 1.41 and
 * MinAPIVersion <= 1.41). cb gets r->err ERR_INVALID ("daemon speaks API
 * 1.40 ...") if not, and the /version JSON in r->json. */
int dk_negotiate(struct dk *dk, dk_done_fn *cb, void *arg, struct err *e);

/* "1.41" once dk_negotiate() succeeded, else NULL. */
const char *dk_api_version(const struct dk *dk);

/* Start a request. Returns a handle valid until cb returns or dk_cancel();
 * NULL with e filled (ERR_INVALID for bad options) when it cannot start. */
struct dk_req *dk_request(struct dk *dk, const struct dk_request_opts *o,
                          dk_done_fn *cb, void *arg, struct err *e);

/* Stop a request: neither its data nor its done callback runs after this
 * returns. Safe inside any dk callback. NULL is a no-op. */
void dk_cancel(struct dk_req *req);

/* Shorthands with default timeouts and body cap. body may be NULL. */
struct dk_req *dk_get(struct dk *dk, const char *path, dk_done_fn *cb,
                      void *arg, struct err *e);
struct dk_req *dk_delete(struct dk *dk, const char *path, dk_done_fn *cb,
                         void *arg, struct err *e);
struct dk_req *dk_post_json(struct dk *dk, const char *path, const cJSON *body,
                            dk_done_fn *cb, void *arg, struct err *e);
/* PUT a tar archive (e.g. /containers/{id}/archive?path=/work). */
struct dk_req *dk_put_tar(struct dk *dk, const char *path, const void *tar,
                          size_t len, dk_done_fn *cb, void *arg, struct err *e);
/* GET a stream (/events, /containers/{id}/logs?follow=1...) with no total
 * deadline. on_done runs at the end of the stream or on error. For POST
 * /containers/{id}/wait use dk_container_wait() (dk_engine.h), which sets
 * `waits`: a wait made with dk_request() without it would count as a
 * quick request and hold one of the DK_MAX_QUICK slots until the exit. */
struct dk_req *dk_stream(struct dk *dk, const char *path,
                         enum dk_stream_mode mode, dk_data_fn *on_data,
                         dk_done_fn *on_done, void *arg, struct err *e);

/* Hold: while on, every request made is kept unstarted, in order, under
 * the current mark; dk_hold_release() lets go of those made up to a mark
 * (then they queue as any other, first in first out). For a caller that
 * must record before it acts and whose record is written without
 * blocking: what a step asks for waits for the write of its record (the
 * controller's status group on etcd, try_write.c). A held request that
 * is cancelled never starts. Off: everything held is let go. */
void dk_hold(struct dk *dk, bool on);
/* The mark of what was made so far, and a new one for what follows. */
unsigned dk_hold_cut(struct dk *dk);
void dk_hold_release(struct dk *dk, unsigned mark);
/* Requests held now (for metrics and tests). */
size_t dk_held(const struct dk *dk);

/* Copy the counters. */
void dk_stats(const struct dk *dk, struct dk_stats *out);

/* --- query strings ------------------------------------------------- */

/* Percent-encode s for a query value (RFC 3986 unreserved kept). Caller
 * frees; NULL with ERR_NOMEM. */
char *dk_url_escape(const char *s, struct err *e);

/* Append "?key=value" or "&key=value" (value escaped) to a path in b. */
int dk_query_add(struct buf *b, const char *key, const char *value,
                 struct err *e);

/* Append key=<escaped compact JSON>, e.g. filters {"label":["k=v"]}. */
int dk_query_add_json(struct buf *b, const char *key, const cJSON *value,
                      struct err *e);

/* --- logs of Tty:false containers ----------------------------------- */

/* Incremental decoder of the multiplexed log format: frames of an 8-byte
 * header [stream, 0, 0, 0, len (u32 big-endian)] and len payload bytes.
 * Feed it chunks cut anywhere; a frame's payload may reach the callback in
 * several pieces. stream: 0 stdin, 1 stdout, 2 stderr. */
typedef void dk_logs_fn(int stream, const char *data, size_t len, void *arg);

struct dk_logs_demux {
    unsigned char hdr[8]; /* header bytes gathered so far */
    size_t hdr_len;       /* 0..8 */
    uint32_t left;        /* payload bytes still due for the frame */
    int stream;           /* stream of the current frame */
    int failed;           /* a bad header was seen: every feed fails */
};

void dk_logs_demux_init(struct dk_logs_demux *d);

/* ERR_SYNTAX on a header that is not a frame header (a Tty:true stream
 * fed by mistake); the decoder then refuses further input. */
int dk_logs_demux_feed(struct dk_logs_demux *d, const void *p, size_t n,
                       dk_logs_fn *cb, void *arg, struct err *e);

/* At end of stream: ERR_SYNTAX when it stopped inside a frame. */
int dk_logs_demux_end(const struct dk_logs_demux *d, struct err *e);

/* --- blocking helpers for tools and tests, never in the controller --- */

/* A finished request, owned by the caller: free with dk_sync_cleanup(). */
struct dk_sync_result {
    long status;
    char *body; /* NUL-terminated; "" when empty */
    size_t len;
    cJSON *json; /* parsed body if JSON, else NULL */
};

/* Run dk's loop until the request finishes. Only for a loop that nothing
 * else drives (ev_run on it here). Returns 0, or -1 with e filled (the
 * daemon's message for HTTP errors; out->status is set either way). */
int dk_sync_request(struct dk *dk, const struct dk_request_opts *o,
                    struct dk_sync_result *out, struct err *e);

/* dk_negotiate() and wait for it. */
int dk_sync_negotiate(struct dk *dk, struct err *e);

void dk_sync_cleanup(struct dk_sync_result *r);

#endif
