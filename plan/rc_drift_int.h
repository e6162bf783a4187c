/* rc_drift_int.h - what rc_drift.c shares with rc_drift_net.c (the
 * comparators for network topology and mounts) and rc_drift_neighbour.c:
 * the check context, one rule's finding, the JSON helpers and the
 * scrubbed copy into a report. Not for other modules. */
#ifndef RC_DRIFT_INT_H
#define RC_DRIFT_INT_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "rc_drift.h"

#define DR_SHORT_ID 12 /* container IDs in reports, as docker ps shows them */

/* One check of one object. */
struct rc_drift_ctx {
    const struct rc_desired *d;
    const struct rc_object *o;
    const cJSON *inspect;
    const struct rc_drift_expect *x;
    bool hide_env; /* the body holds the credential: Env keys only */
};

/* What one rule found. */
struct rc_drift_find {
    char field[RC_DRIFT_FIELD_MAX];
    char expected[RC_DRIFT_VALUE_MAX];
    char observed[RC_DRIFT_VALUE_MAX];
    char detail[RC_DRIFT_MSG_MAX]; /* "" = "<field> is <obs>, expected <exp>" */
};

/* The value at a dotted inspect path ("HostConfig.RestartPolicy"). */
const cJSON *rc_drift__get(const cJSON *root, const char *path);

/* null, absent, [] and {} are the same to Docker's inspect. */
bool rc_drift__empty(const cJSON *j);
bool rc_drift__equal(const cJSON *a, const cJSON *b);

/* The string of j, or NULL when j is no string. */
const char *rc_drift__str(const cJSON *j);

/* Copy src into dst (a report's field of n bytes) with every copy of d's
 * credential replaced, ending in "..." when it does not fit: the one way
 * text reaches a report. -1 out of memory. */
int rc_drift__put(const struct rc_desired *d, char *dst, size_t n,
                  const char *src);

/* Fill f: field, expected and observed as short scrubbed JSON text.
 * Returns 1 (drift) or -1 (out of memory). */
int rc_drift__found(const struct rc_drift_ctx *c, struct rc_drift_find *f,
                    const char *field, const cJSON *exp, const cJSON *obs);

/* The message after "<role> <name>: " when the default does not fit. */
void rc_drift__detail(struct rc_drift_find *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* obs (reported as `field`) is the string want: 0, 1 (drift) or -1. */
int rc_drift__cmp_str_at(const struct rc_drift_ctx *c, const char *field,
                         const cJSON *obs, const char *want,
                         struct rc_drift_find *f);

/* Comparators of rc_drift_net.c: 0 holds, 1 drift (f filled), -1. */
int rc_drift__cmp_ipam(const struct rc_drift_ctx *c,
                       const struct rc_drift_rule *r, struct rc_drift_find *f);
int rc_drift__cmp_endpoints(const struct rc_drift_ctx *c,
                            const struct rc_drift_rule *r,
                            struct rc_drift_find *f);
int rc_drift__cmp_networks(const struct rc_drift_ctx *c,
                           const struct rc_drift_rule *r,
                           struct rc_drift_find *f);
int rc_drift__cmp_ports_live(const struct rc_drift_ctx *c,
                             const struct rc_drift_rule *r,
                             struct rc_drift_find *f);
int rc_drift__cmp_internal_ip(const struct rc_drift_ctx *c,
                              const struct rc_drift_rule *r,
                              struct rc_drift_find *f);
int rc_drift__cmp_mounts(const struct rc_drift_ctx *c,
                         const struct rc_drift_rule *r,
                         struct rc_drift_find *f);
/* rc_drift_wait.c: container.waiting. */
int rc_drift__cmp_waiting(const struct rc_drift_ctx *c,
                          const struct rc_drift_rule *r,
                          struct rc_drift_find *f);
int rc_drift__cmp_live_mounts(const struct rc_drift_ctx *c,
                              const struct rc_drift_rule *r,
                              struct rc_drift_find *f);

#endif
