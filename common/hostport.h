/* hostport.h - parse and normalise a CONNECT authority "host:port".
 *
 * Pure code, no I/O. Accepts only the authority form of RFC 9110 9.3.6:
 * a DNS name, a dotted-quad IPv4 literal or a bracketed IPv6 literal,
 * then ':' and a decimal port 1-65535. Rejects absolute-form URLs,
 * userinfo, unbracketed IPv6, zone ids, empty labels and names that look
 * numeric ("127.1") so a resolver can never read them as addresses.
 */
#ifndef HOSTPORT_H
#define HOSTPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* Longest host kept: a DNS name is at most 253 characters, an IPv6
 * literal in canonical text at most 45. */
#define HOSTPORT_HOST_MAX 253

enum hostport_kind {
    HOSTPORT_NAME, /* a DNS name, lower-cased, no trailing dot */
    HOSTPORT_IPV4, /* canonical dotted quad */
    HOSTPORT_IPV6, /* canonical inet_ntop text, without brackets */
};

struct hostport {
    enum hostport_kind kind;
    char host[HOSTPORT_HOST_MAX + 1]; /* normalised as described by kind */
    unsigned port;              /* 1-65535 */
};

/* Parse s (len bytes, no NUL needed) into out. On error returns -1 with
 * ERR_SYNTAX and a message naming the problem; out is then unspecified. */
int hostport_parse(const char *s, size_t len, struct hostport *out,
                       struct err *e);

/* Write "host:port" ("[v6]:port" for IPv6) into buf, always
 * NUL-terminated. Returns buf. */
const char *hostport_format(const struct hostport *a, char *buf,
                                size_t size);

/* True when both name the same host kind, host text and port. */
bool hostport_equal(const struct hostport *a,
                        const struct hostport *b);

#endif
