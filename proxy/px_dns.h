/* px_dns.h - non-blocking name resolution: c-ares driven by the libev loop.
 *
 * c-ares reads /etc/resolv.conf and /etc/hosts itself at px_dns_new() (in
 * Docker that names the embedded resolver 127.0.0.11), so the loop never
 * calls a blocking getaddrinfo(). Results are delivered from the loop,
 * never from inside px_dns_lookup(), even when /etc/hosts answers at once.
 */
#ifndef PX_DNS_H
#define PX_DNS_H

#include <ev.h>
#include <netinet/in.h>
#include <stddef.h>

#include "err.h"

/* Most addresses kept from one answer. */
#define PX_DNS_MAX_ADDRS 4

/* Room for either family. */
union px_sockaddr {
    struct sockaddr sa;
    struct sockaddr_in in4;
    struct sockaddr_in6 in6;
};

enum px_dns_status {
    PX_DNS_OK,       /* naddrs >= 1 */
    PX_DNS_NOTFOUND, /* the name does not exist or has no address */
    PX_DNS_TIMEOUT,  /* no server answered in time */
    PX_DNS_FAIL,     /* any other failure */
};

struct px_dns;
struct px_dns_query;

/* Called once per lookup unless cancelled. addrs (borrowed for the call)
 * carry the port given to px_dns_lookup(). */
typedef void px_dns_fn(void *arg, enum px_dns_status status,
                       const union px_sockaddr *addrs, size_t naddrs);

/* Make a resolver on loop. timeout_ms and tries bound each lookup. */
struct px_dns *px_dns_new(struct ev_loop *loop, int timeout_ms, int tries,
                          struct err *e);

/* Cancel what is pending (their callbacks do not run) and free. */
void px_dns_free(struct px_dns *d);

/* Start resolving name (A and AAAA, /etc/hosts first as configured).
 * Returns a handle valid until the callback has run or the query was
 * cancelled; NULL with e filled on error (the callback then never runs). */
struct px_dns_query *px_dns_lookup(struct px_dns *d, const char *name,
                                   unsigned port, px_dns_fn *fn, void *arg,
                                   struct err *e);

/* Make sure fn never runs for q; q is freed by the resolver. */
void px_dns_cancel(struct px_dns_query *q);

#endif
