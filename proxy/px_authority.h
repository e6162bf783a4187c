/* px_authority.h - parse and normalise a CONNECT authority "host:port".
 *
 * Pure code, no I/O. Accepts only the authority form of RFC 9110 9.3.6:
 * a DNS name, a dotted-quad IPv4 literal or a bracketed IPv6 literal,
 * then ':' and a decimal port 1-65535. Rejects absolute-form URLs,
 * userinfo, unbracketed IPv6, zone ids, empty labels and names that look
 * numeric ("127.1") so a resolver can never read them as addresses.
 */
#ifndef PX_AUTHORITY_H
#define PX_AUTHORITY_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* Longest host kept: a DNS name is at most 253 characters, an IPv6
 * literal in canonical text at most 45. */
#define PX_HOST_MAX 253

enum px_host_kind {
    PX_HOST_NAME, /* a DNS name, lower-cased, no trailing dot */
    PX_HOST_IPV4, /* canonical dotted quad */
    PX_HOST_IPV6, /* canonical inet_ntop text, without brackets */
};

struct px_authority {
    enum px_host_kind kind;
    char host[PX_HOST_MAX + 1]; /* normalised as described by kind */
    unsigned port;              /* 1-65535 */
};

/* Parse s (len bytes, no NUL needed) into out. On error returns -1 with
 * ERR_SYNTAX and a message naming the problem; out is then unspecified. */
int px_authority_parse(const char *s, size_t len, struct px_authority *out,
                       struct err *e);

/* Write "host:port" ("[v6]:port" for IPv6) into buf, always
 * NUL-terminated. Returns buf. */
const char *px_authority_format(const struct px_authority *a, char *buf,
                                size_t size);

/* True when both name the same host kind, host text and port. */
bool px_authority_equal(const struct px_authority *a,
                        const struct px_authority *b);

#endif
