/* px_flags.h - flag values both proxies (egress-proxy, agent-gateway)
 * take: a listening address and a bounded number. Pure code. */
#ifndef PX_FLAGS_H
#define PX_FLAGS_H

#include "err.h"
#include "px_dns.h"

/* Parse "ADDR:PORT" with a numeric IPv4 or bracketed IPv6 address; port
 * 0 is kept (the kernel picks one). flag names the flag in errors. */
int px_flags_addr(const char *flag, const char *s, union px_sockaddr *out,
                  struct err *e);

/* Parse a number from lo to hi for flag. */
int px_flags_num(const char *flag, const char *s, double lo, double hi,
                 double *out, struct err *e);

/* The same for a count (connections, bytes, requests): a whole number
 * ("1e6" is one; "1.5" is refused, not cut to 1). */
int px_flags_count(const char *flag, const char *s, double lo, double hi,
                   double *out, struct err *e);

/* getopt_long's answer for a flag it did not take (called with opterr 0
 * and an optstring that starts with ':'): ch ':' is a missing value, '?'
 * an unknown flag or a value given to one that takes none. The message
 * names the flag as written, then the usage text. Returns -1. */
int px_flags_getopt_error(int ch, char **argv, const char *usage,
                          struct err *e);

#endif
