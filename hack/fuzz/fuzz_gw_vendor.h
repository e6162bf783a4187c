/* fuzz_gw_vendor.h - the vendor end of fuzz_gw_conn: a TLS server on a
 * loopback listener with a certificate for "vendor.test" made at start
 * (its PEM is the CA file the gateway verifies against), driven step by
 * step from the fuzz target's loop: no thread, no blocking call. */
#ifndef FUZZ_GW_VENDOR_H
#define FUZZ_GW_VENDOR_H

#include <stdbool.h>
#include <stddef.h>

#include <openssl/ssl.h>

#include "buf.h"
#include "px_dns.h"

struct fuzz_vendor {
    int fd;            /* the accepted connection; -1 none */
    SSL *ssl;          /* on fd */
    bool eof;          /* the gateway closed (close_notify or the socket) */
    struct buf got;    /* plaintext from the gateway on this connection */
    struct buf out;    /* plaintext queued for the gateway */
    unsigned accepted; /* connections accepted */
};

/* Once per process: the key, the certificate and its PEM file, the
 * server context and the listener. *ca_file names the PEM; *addr is the
 * listener's address (127.0.0.1:port). */
void fuzz_vendor_setup(const char **ca_file, union px_sockaddr *addr);

/* Start a run with no connection. */
void fuzz_vendor_init(struct fuzz_vendor *v);

/* Move what can move: accept a connection (a second one ends the first:
 * on_end is called with its bytes first), the handshake, read what the
 * gateway sent, write what is queued. True when anything moved. */
bool fuzz_vendor_step(struct fuzz_vendor *v,
                      void (*on_end)(void *arg, const struct buf *got),
                      void *arg);

/* Queue n bytes to send. */
void fuzz_vendor_send(struct fuzz_vendor *v, const char *p, size_t n);

/* End the connection: with close_notify (tidy) or the socket alone. */
void fuzz_vendor_close(struct fuzz_vendor *v, bool tidy,
                       void (*on_end)(void *arg, const struct buf *got),
                       void *arg);

/* The run is over: end the connection, drain the listener's backlog
 * (each connection is counted and ended), free the buffers. */
void fuzz_vendor_cleanup(struct fuzz_vendor *v,
                         void (*on_end)(void *arg, const struct buf *got),
                         void *arg);

#endif
