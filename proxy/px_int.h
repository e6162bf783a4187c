/* px_int.h - what the proxy's loop modules (px_main.c, px_conn.c,
 * px_pump.c) share.
 *
 * struct px is the one context main() makes (no global state); struct
 * px_conn is one client from accept to close.
 */
#ifndef PX_INT_H
#define PX_INT_H

#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "container_of.h"
#include "hostport.h"
#include "px_allow.h"
#include "px_daemon.h"
#include "px_dns.h"
#include "px_pump.h"
#include "px_request.h"

/* Bytes read from one side per recv() when copying (px_pump.c); also
 * the most a slow peer can leave buffered in one direction then. */
#define PX_PUMP_CHUNK (16 * 1024)
/* Connections answered 503 at once that may linger; beyond, the 503 goes
 * out in one send with no state kept (px_conn_reject_stateless). */
#define PX_REJECT_MAX 64
/* How long an answered error waits for the client to finish sending. */
#define PX_LINGER_SECS 2.0
/* Most bytes read and dropped from a client after an error answer. */
#define PX_LINGER_BYTES (64 * 1024)

struct px_config {
    union px_sockaddr listen;
    struct px_allow allow;
    bool allow_private;
    size_t header_limit;
    double header_timeout;
    double idle_timeout;
    double connect_timeout;
    double drain_timeout;
    unsigned max_conns;
};

struct px_conn;

struct px {
    struct ev_loop *loop;
    const struct px_config *cfg;
    struct px_dns *dns;
    struct px_daemon daemon; /* listen, accept, signals (px_daemon.c) */
    unsigned nconns;  /* counted against max_conns */
    unsigned nreject; /* 503 answers still lingering */
    struct px_conn *conns;
    bool splice; /* tunnels splice (px_pump.c); else they copy */
    unsigned test_faults;                 /* enum px_fault; tests only */
    struct px_kpipe spare[PX_PIPE_SPARE]; /* empty pipes for the next */
    unsigned nspare;
    ev_timer spare_trim;   /* closes the spare pipes once unused a while */
    ev_tstamp spare_given; /* when a pipe was last given back */
    double spare_linger;   /* that while (s); 0: PX_PIPE_LINGER */
    char scratch[PX_PUMP_CHUNK]; /* every recv() lands here first */
};

/* Take an accepted client socket (non-blocking). Never fails: on error
 * the socket is closed. */
void px__conn_accept(struct px *px, int fd, const union px_sockaddr *peer);

/* Draining: answer 503 to every connection that has no tunnel yet (still
 * reading its header, resolving or dialling), so only tunnels open before
 * SIGTERM get the drain time and none opens during it. */
void px__conn_refuse_unopened(struct px *px);

/* Tear a connection down (stops watchers, closes, logs, frees). */
void px__conn_close(struct px_conn *c, const char *why);

/* The connection's timer ran out: what the deadline of its state means
 * (408 for a header, 504 for a lookup or dial, the end of a linger; a
 * tunnel closes when idle that long and otherwise waits for the rest).
 * The timer's callback; may free c. */
void px__conn_timeout(struct px_conn *c);

/* Called by px__conn_close when the last connection is gone while
 * draining. */
void px__maybe_done(struct px *px);

#endif
