/* fuzz_dns.h - a resolver for the loop fuzzers (fuzz_px_conn,
 * fuzz_gw_conn): px_dns.h's contract with no network, linked in place of
 * proxy/px_dns.c. A lookup waits until the fuzz input answers it, with
 * the status and addresses the input picks, so every outcome a real
 * resolver can have is reachable and none depends on the machine. */
#ifndef FUZZ_DNS_H
#define FUZZ_DNS_H

#include <stdbool.h>
#include <stddef.h>

#include "px_dns.h"

/* Lookups started and not yet answered or cancelled. */
size_t fuzz_dns_pending(const struct px_dns *d);

/* The name of the last lookup started ("" when none). */
const char *fuzz_dns_last_name(const struct px_dns *d);

/* Lookups started since px_dns_new(). */
unsigned fuzz_dns_started(const struct px_dns *d);

/* Make the next px_dns_lookup() fail at once (NULL with e set). */
void fuzz_dns_fail_next(struct px_dns *d);

/* Answer the oldest pending lookup: status, and for PX_DNS_OK the first
 * naddrs of addrs as given, ports included (a fuzz target points a name
 * at its own listener, whatever port was asked). OK with no address is
 * answered NOTFOUND. No lookup pending: nothing happens. */
void fuzz_dns_answer(struct px_dns *d, enum px_dns_status status,
                     const union px_sockaddr *addrs, size_t naddrs);

#endif
