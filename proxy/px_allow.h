/* px_allow.h - the allowlist of host:port pairs a tunnel may reach.
 *
 * Pure code. Entries come from --allow "HOST:PORT[,HOST:PORT...]" (the
 * flag may repeat) and are normalised by hostport_parse(), so names
 * compare case-insensitively with one trailing dot ignored, ports compare
 * exactly, and an IP literal matches only the same literal: a name entry
 * never admits its address, an address entry never admits a name.
 */
#ifndef PX_ALLOW_H
#define PX_ALLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "hostport.h"

/* Most entries one allowlist holds. */
#define PX_ALLOW_MAX 1024

struct px_allow {
    struct hostport *items; /* owned */
    size_t len;
};

/* Empty list; px_allow_cleanup() frees it. */
void px_allow_init(struct px_allow *a);
void px_allow_cleanup(struct px_allow *a);

/* Add every entry of a comma-separated list. On error (-1; ERR_SYNTAX
 * naming the bad entry, ERR_LIMIT, ERR_NOMEM) the list keeps the entries
 * added before the bad one. Duplicates are kept once. */
int px_allow_add(struct px_allow *a, const char *list, struct err *e);

/* True when target is on the list. */
bool px_allow_match(const struct px_allow *a,
                    const struct hostport *target);

#endif
