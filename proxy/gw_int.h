/* gw_int.h - what the gateway's loop modules (gw_main.c, gw_conn.c,
 * gw_tls.c) share.
 *
 * struct gw is the one context main() makes (no global state); struct
 * gw_conn is one client connection from accept to close, with at most one
 * TLS connection to the vendor that lives as long as the client keeps
 * its connection alive.
 */
#ifndef GW_INT_H
#define GW_INT_H

#include <ev.h>
#include <openssl/ssl.h>
#include <stdbool.h>
#include <stddef.h>

#include "container_of.h"
#include "gw_body.h"
#include "gw_head.h"
#include "gw_key.h"
#include "gw_policy.h"
#include "gw_usage.h"
#include "hostport.h"
#include "px_daemon.h"
#include "px_dns.h"

/* Bytes buffered per connection and direction; the request head must fit
 * in the client buffer (--header-limit is capped by it). */
#define GW_BUF (64 * 1024)
/* The vendor-bound buffer: a rebuilt head (header limit, Host and the
 * credential) or body bytes. Allocated once, never moved, so the key it
 * carries is wiped where it was. */
#define GW_UOUT_CAP (2 * GW_BUF + GW_KEY_MAX + 1024)

struct gw_config {
    union px_sockaddr listen;
    struct hostport upstream;       /* the vendor's host:port (SNI, Host) */
    bool connect_to;                /* dial connect_addr, not a lookup */
    union px_sockaddr connect_addr; /* --connect-to HOST:PORT=IP:PORT */
    const char *ca_file;
    const char *key_file; /* NULL with --no-credential */
    enum gw_auth auth;
    const char *org, *project; /* --organization, --project, or NULL */
    bool allow_private;
    struct gw_policy policy;
    struct gw_body_policy body; /* --body-policy: the model endpoints' */
    size_t header_limit;
    double header_timeout, idle_timeout, connect_timeout, drain_timeout;
    unsigned max_conns;
};

enum gw_conn_state {
    GW_CS_HEAD,    /* reading a request head (header timeout) */
    GW_CS_RESOLVE, /* looking the vendor up (connect timeout) */
    GW_CS_DIAL,    /* TCP connect in progress (connect timeout) */
    GW_CS_TLS,     /* TLS handshake (connect timeout) */
    GW_CS_RELAY,   /* body up, response down (idle timeout) */
    GW_CS_LINGER,  /* refusal sent: drain the client, then close */
    GW_CS_JUDGE,   /* a model endpoint's body read whole, then judged
                      (gw_judge.c; idle timeout) */
};

/* One client connection. The request in progress is its "exchange":
 * from the first byte of a head to the last byte of the response. */
struct gw_conn {
    struct gw *gw;
    struct gw_conn *prev, *next;
    enum gw_conn_state state;
    int cfd, ufd;
    ev_io cio, uio;
    ev_timer timer;
    ev_tstamp last_active;
    SSL *ssl;       /* the vendor connection, NULL when there is none */
    bool tls_up;    /* handshake done: ssl may carry requests */
    int ssl_rd_ev;  /* what the last SSL_read waited for (EV_READ...) */
    int ssl_wr_ev;  /* what the last SSL_write waited for */
    int ssl_wr_len; /* length of a write to retry, 0 when none */
    struct px_dns_query *dnsq;
    union px_sockaddr addrs[PX_DNS_MAX_ADDRS];
    unsigned naddrs, addr_i;
    char *cin; /* from the client (GW_BUF) */
    size_t cin_len;
    /* to the vendor; holds the key while a head is out. Whatever shortens
     * it wipes the bytes it drops, so nothing past uout.len is a secret
     * (gw__conn_close wipes only up to it). */
    struct buf uout;
    size_t uout_off;
    char *cout; /* to the client (GW_BUF) */
    size_t cout_off, cout_len;
    bool client_eof;
    unsigned served; /* exchanges completed on this connection */
    /* the exchange */
    bool in_exchange;
    ev_tstamp started;
    char method[GW_METHOD_MAX + 1];
    char path[512];
    bool keep_alive;
    struct gw_body reqb;
    bool req_done;
    /* a judged body (gw_judge.c): read whole, then relayed from here */
    bool judging;
    uint64_t judge_len;
    struct buf judged;
    size_t judged_off;
    struct gw_resp resp;
    bool resp_done;
    /* a model endpoint's answer, read for its usage (gw_usage.h) */
    enum gw_api usage_api; /* GW_API_NONE: not read */
    bool usage_started;    /* the first body byte came: usage set up */
    bool model_slot;       /* holds gw->model_in_flight (--max-tokens) */
    struct gw_usage usage;
    uint64_t bytes_up, bytes_down;
    int status; /* our answer's, when we answered */
    char client[56];
};

struct gw {
    struct ev_loop *loop;
    const struct gw_config *cfg;
    SSL_CTX *tls;
    SSL_SESSION *session; /* the vendor's last session, for resumption */
    struct px_dns *dns;
    struct gw_key key;
    struct gw_cred cred; /* points into key */
    struct gw_budget budget;
    char host_header[HOSTPORT_HOST_MAX + 16];
    struct px_daemon daemon; /* listen, accept, signals (px_daemon.c) */
    ev_timer trim; /* gives freed memory back after connections close */
    unsigned nconns;
    unsigned model_in_flight; /* model exchanges under a token budget */
    struct gw_conn *conns;
};

/* gw_conn.c */
/* Take an accepted client socket (non-blocking); closes it on error. */
void gw__conn_accept(struct gw *gw, int fd, const union px_sockaddr *peer);

/* Draining: close every connection that is between requests. */
void gw__conn_close_idle(struct gw *gw);

/* Tear a connection down (stops watchers, closes, frees). */
void gw__conn_close(struct gw_conn *c, const char *why);

/* The connection's timer ran out: what the deadline of its state means
 * (408 for a head or a judged body, 504 for the vendor's connection or
 * answer, the end of a linger or of an idle kept-alive connection; an
 * exchange still moving waits for the rest). The timer's callback; may
 * free c. */
void gw__conn_timeout(struct gw_conn *c);

/* The exchange is over (response sent or connection lost): one audit
 * line, with why when the response did not end well. */
void gw__conn_audit(struct gw_conn *c, const char *why);

/* Count the request and its head's bytes against the budget, with the
 * body it declares: NULL, or why not with *status (413, 429), nothing
 * counted. */
const char *gw__conn_admit_budget(struct gw_conn *c, uint64_t body_len,
                                  int *status);

/* Refuse the exchange: the answer with Proxy-Status, then linger. */
void gw__conn_deny(struct gw_conn *c, int status, const char *error,
                   const char *details);

/* Derive both watchers from the state and the buffers. */
void gw__conn_watch(struct gw_conn *c);

/* Enter a state: its timer and watchers. */
void gw__conn_set_state(struct gw_conn *c, enum gw_conn_state s);

/* The response is sent and the body read: next request or close. */
void gw__conn_exchange_done(struct gw_conn *c);

/* gw_judge.c */
/* The head is admitted: when its path is a model endpoint, check what
 * the head says of the body (its length, no coding, the beta flags) and
 * mark the exchange judged. -1 when it was refused (answered). */
int gw__judge_head(struct gw_conn *c, const struct gw_req_head *h);

/* Read the judged body (GW_CS_JUDGE); once whole, judge it: refused, or
 * handed to the vendor side. */
void gw__judge_step(struct gw_conn *c);

/* gw_upstream.c */
/* The head is in uout: use the vendor connection or open one. */
void gw__up_start(struct gw_conn *c);

/* Move what can move (RELAY); called on any event of either side. */
void gw__up_pump(struct gw_conn *c);

/* The vendor connection is readable while no request is out. */
void gw__up_idle_event(struct gw_conn *c);

/* The vendor socket has an event in RESOLVE, DIAL or TLS. */
void gw__up_connect_event(struct gw_conn *c);

/* Close the vendor connection (the client's stays). */
void gw__up_drop(struct gw_conn *c);

/* Break the loop when draining and no connection is left. */
void gw__maybe_done(struct gw *gw);

/* A connection closed: give the heap's free pages back to the system a
 * second later (at most once a second; not while draining). */
void gw__trim_soon(struct gw *gw);

/* The client TLS context of gw: verify against ca_file, TLS 1.2 or
 * later, the vendor's last session kept in gw->session. */
SSL_CTX *gw__tls_ctx_new(struct gw *gw, const char *ca_file, struct err *e);

/* A TLS connection on fd for host: SNI and host name check set, resuming
 * gw->session when there is one. */
SSL *gw__tls_new(struct gw *gw, int fd, const char *host, struct err *e);

/* Why a handshake failed: *error gets the RFC 9209 error type. */
const char *gw__tls_failure(SSL *ssl, int ret, const char **error);

#endif
