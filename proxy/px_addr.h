/* px_addr.h - which resolved addresses a tunnel may not reach.
 *
 * Pure code, against the IANA IPv4 and IPv6 special-purpose address
 * registries (docs/proxy-addresses.md). Without --allow-private the proxy
 * refuses an address in any of these classes, so a name on the allowlist
 * that resolves (or is made to resolve) inward cannot open a path into the
 * host or its networks.
 */
#ifndef PX_ADDR_H
#define PX_ADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>

enum px_addr_class {
    PX_ADDR_PUBLIC = 0,    /* none of the below: may be dialled */
    PX_ADDR_UNSPECIFIED,   /* 0.0.0.0/8, :: */
    PX_ADDR_LOOPBACK,      /* 127/8, ::1 */
    PX_ADDR_PRIVATE,       /* RFC 1918, IPv6 ULA fc00::/7 */
    PX_ADDR_CGNAT,         /* 100.64/10 (RFC 6598) */
    PX_ADDR_LINK_LOCAL,    /* 169.254/16, fe80::/10, fec0::/10 */
    PX_ADDR_MULTICAST,     /* 224/4, ff00::/8 */
    PX_ADDR_RESERVED,      /* 240/4, broadcast, 192.88.99/24, 100::/64,
                              ::/96, all of IPv6 outside 2000::/3 */
    PX_ADDR_PROTOCOL,      /* IETF protocol assignments: 192.0.0/24,
                              2001::/23 */
    PX_ADDR_DOCUMENTATION, /* 192.0.2/24, 198.51.100/24, 203.0.113/24,
                              2001:db8::/32, 3fff::/20 */
    PX_ADDR_BENCHMARK,     /* 198.18/15, 2001:2::/48 */
    PX_ADDR_TRANSLATION,   /* local-use NAT64 64:ff9b:1::/48, SIIT
                              ::ffff:0:0:0/96 */
    PX_ADDR_TEREDO,        /* 2001::/32, refused whole */
    PX_ADDR_UNSUPPORTED,   /* not AF_INET / AF_INET6 */
};

/* Class of an IPv4 address in network byte order. */
enum px_addr_class px_addr_class_v4(const struct in_addr *a);

/* Class of an IPv6 address. The forms that carry an IPv4 address take
 * its class when that is not public: IPv4-mapped (::ffff:0:0/96), SIIT
 * (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96), 6to4
 * (2002::/16) and ISATAP interface identifiers (::0:5efe:a.b.c.d,
 * ::200:5efe:a.b.c.d under any prefix). Teredo (2001::/32) and local-use
 * NAT64 (64:ff9b:1::/48) are refused whole. */
enum px_addr_class px_addr_class_v6(const struct in6_addr *a);

/* Class of a socket address (AF_INET or AF_INET6). */
enum px_addr_class px_addr_class(const struct sockaddr *sa);

/* Short name of a class for logs ("loopback"). */
const char *px_addr_class_name(enum px_addr_class c);

#endif
