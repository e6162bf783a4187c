/* dk_int.h - what the dk_*.c files share: the client, a request, and the
 * glue between libcurl's multi socket interface and libev.
 *
 * Re-entrancy: user callbacks may cancel requests, start new ones or free
 * the client. Two counters say where we are: `in_curl` while libcurl runs
 * (curl_multi_* calls are refused there, so adds and removals are
 * deferred), `depth` while any dk watcher callback runs (dk_free() then
 * only marks the client and dk__leave() frees it).
 */
#ifndef DK_INT_H
#define DK_INT_H

#include "dk.h"

#include <curl/curl.h>

enum dk_req_state {
    DK_REQ_PENDING,   /* not yet added: made inside a curl callback, or
                         a quick one waiting for a slot (DK_MAX_QUICK) */
    DK_REQ_ACTIVE,    /* in the multi handle, transferring */
    DK_REQ_FINISHING, /* removed from multi, last data being delivered */
    DK_REQ_DONE,      /* done callback running: cancel is a no-op */
    DK_REQ_CANCELLED, /* no callback may run; freed when curl allows */
};

struct dk_sock {
    ev_io io; /* watches one of libcurl's sockets */
    struct dk *dk;
    struct dk_sock *prev, *next;
};

struct dk {
    struct ev_loop *loop;
    CURLM *multi;
    ev_timer timer; /* libcurl's own timeout (CURLMOPT_TIMERFUNCTION) */
    ev_timer kick;  /* adds requests started inside curl callbacks */
    char sock_path[108];
    int negotiated;
    int depth;           /* dk watcher callbacks on the stack */
    int in_curl;         /* inside curl_multi_socket_action() */
    int closing;         /* dk_free() ran while depth > 0 */
    int need_reap;       /* a request was cancelled inside curl */
    struct dk_req *reqs; /* every live request */
    /* PENDING requests, first in first out: [DK_WAIT_SLOT] quick ones
     * waiting for a slot, [DK_WAIT_CURL] the others, made inside curl,
     * [DK_WAIT_HOLD] those made while holding (dk_hold) */
    struct dk_req *wait_head[3], *wait_tail[3];
    bool holding;          /* dk_hold() on */
    unsigned hold_mark;    /* what requests made now are held under */
    size_t held;           /* in wait_head[DK_WAIT_HOLD] */
    unsigned quick_active; /* quick requests holding a slot */
    struct dk_sock *socks;
    struct dk_stats stats;
    dk_observe_fn *observe; /* dk_set_observer(); NULL: none */
    void *observe_arg;
};

enum { DK_WAIT_SLOT, DK_WAIT_CURL, DK_WAIT_HOLD };

struct dk_req {
    struct dk *dk;
    struct dk_req *prev, *next;
    struct dk_req *wnext; /* in dk->wait_head[quick ? SLOT : CURL] */
    enum dk_req_state state;
    bool quick;      /* takes a DK_MAX_QUICK slot while in the multi */
    bool queued;     /* in a wait queue */
    bool held;       /* that queue is DK_WAIT_HOLD, under hold_mark */
    unsigned hold_mark;
    bool holds_slot; /* counted in quick_active */
    CURL *easy;      /* made when it goes into the multi (dk__req_easy) */
    char *url;
    struct curl_slist *headers;
    char *send_body; /* our copy of the request body */
    size_t send_len;
    bool wipe_send;  /* zero send_body before it is freed */
    int up_fd;       /* dk_body_stream: the body's fd, else -1 */
    dk_body_end_fn *up_end;
    void *up_arg;
    ev_io up_io;     /* up_fd readable: resume the paused upload */
    int up_eof;      /* up_end ran */
    char method[8];
    char *what;      /* "GET /containers/x/json" for messages (no query) */
    double started;  /* CLOCK_MONOTONIC seconds when it went into the multi
                        (dk__now), for the latency observer; 0: not yet */
    long connect_ms;
    long timeout_ms; /* the whole request's; -1 none */
    bool fresh;      /* a new connection, closed after */
    ev_timer idle;   /* idle_timeout_ms: restarted by every byte */
    long idle_ms;    /* 0 none */
    enum dk_stream_mode mode;
    dk_data_fn *on_data;
    dk_headers_fn *on_headers;
    dk_done_fn *cb;
    void *arg;
    dk_done_fn *inner_cb; /* dk_negotiate(): the caller's callback */
    void *inner_arg;
    struct buf body; /* whole reply, or error reply of a stream */
    struct buf line; /* DK_STREAM_LINES: the line being gathered */
    long status;     /* from the status line; 0 until it came */
    char reason[48];
    int is_json; /* Content-Type: application/json */
    int failed;  /* our callbacks found an error: fail holds it (NULL
                    when there was no memory to keep it) */
    struct err *fail;
    char *curl_err; /* curl's CURLOPT_ERRORBUFFER, made with `easy` */
};

/* dk_op.c: "container_inspect" etc. for req->what; "other" when unknown */
const char *dk__operation(const char *what);

/* dk_client.c */
void dk__enter(struct dk *dk);
/* Resume req's paused upload (curl_easy_pause), then collect what
 * finished, as after a socket action. */
void dk__unpause(struct dk_req *req);
void dk__leave(struct dk *dk);
int dk__add(struct dk_req *req, struct err *e);
/* req is being freed: out of its wait queue, its slot given back (the
 * next quick request waiting goes from the loop). */
void dk__dequeue(struct dk_req *req);

/* dk_req.c */
size_t dk__on_write(char *p, size_t size, size_t nmemb, void *userp);
size_t dk__on_header(char *p, size_t size, size_t nmemb, void *userp);
size_t dk__on_read(char *p, size_t size, size_t nitems, void *userp);
void dk__req_free(struct dk_req *req);
/* End req with e, found by our own code, unless it failed already (the
 * first error is the one reported) */
void dk__req_failed(struct dk_req *req, const struct err *e);
/* CLOCK_MONOTONIC in seconds */
double dk__now(void);
/* dk_setup.c: req's curl easy handle, from what req keeps; -1 when out
 * of memory */
int dk__req_easy(struct dk_req *req);
void dk__reap(struct dk *dk);
void dk__idle_touch(struct dk_req *req);

/* dk_finish.c: deliver the outcome and free the request. */
void dk__finish(struct dk_req *req, CURLcode rc);

#endif
