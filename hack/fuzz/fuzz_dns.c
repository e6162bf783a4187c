/* fuzz_dns.c - see fuzz_dns.h. Answers come only from fuzz_dns_answer(),
 * which the fuzz target calls between loop iterations: never from inside
 * px_dns_lookup(), as px_dns.h promises. */
#include "fuzz_dns.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct px_dns_query {
    struct px_dns *d;
    struct px_dns_query *next;
    px_dns_fn *fn;
    void *arg;
    unsigned port;
};

struct px_dns {
    struct px_dns_query *head; /* oldest first */
    size_t pending;
    unsigned started;
    bool fail_next;
    char last[256];
};

struct px_dns *
px_dns_new(struct ev_loop *loop, int timeout_ms, int tries, struct err *e)
{
    struct px_dns *d = calloc(1, sizeof(*d));

    (void)loop;
    (void)timeout_ms;
    (void)tries;
    if (d == NULL)
        err_set(e, ERR_NOMEM, "out of memory");
    return d;
}

void
px_dns_free(struct px_dns *d)
{
    if (d == NULL)
        return;
    while (d->head != NULL)
        px_dns_cancel(d->head);
    free(d);
}

struct px_dns_query *
px_dns_lookup(struct px_dns *d, const char *name, unsigned port, px_dns_fn *fn,
              void *arg, struct err *e)
{
    struct px_dns_query *q, **tail;

    snprintf(d->last, sizeof(d->last), "%s", name);
    d->started++;
    if (d->fail_next) {
        d->fail_next = false;
        err_set(e, ERR_IO, "lookup refused by the fuzz input");
        return NULL;
    }
    q = calloc(1, sizeof(*q));
    if (q == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    q->d = d;
    q->fn = fn;
    q->arg = arg;
    q->port = port;
    for (tail = &d->head; *tail != NULL; tail = &(*tail)->next)
        ;
    *tail = q;
    d->pending++;
    return q;
}

void
px_dns_cancel(struct px_dns_query *q)
{
    struct px_dns_query **pp;

    if (q == NULL)
        return;
    for (pp = &q->d->head; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == q) {
            *pp = q->next;
            q->d->pending--;
            free(q);
            return;
        }
    }
    abort(); /* cancelling a query that is not pending: a double cancel */
}

size_t
fuzz_dns_pending(const struct px_dns *d)
{
    return d->pending;
}

const char *
fuzz_dns_last_name(const struct px_dns *d)
{
    return d->last;
}

unsigned
fuzz_dns_started(const struct px_dns *d)
{
    return d->started;
}

void
fuzz_dns_fail_next(struct px_dns *d)
{
    d->fail_next = true;
}

void
fuzz_dns_answer(struct px_dns *d, enum px_dns_status status,
                const union px_sockaddr *addrs, size_t naddrs)
{
    union px_sockaddr out[PX_DNS_MAX_ADDRS];
    struct px_dns_query *q = d->head;

    if (q == NULL)
        return;
    d->head = q->next;
    d->pending--;
    if (naddrs > PX_DNS_MAX_ADDRS)
        naddrs = PX_DNS_MAX_ADDRS;
    if (naddrs > 0)
        memcpy(out, addrs, naddrs * sizeof(*addrs));
    if (status == PX_DNS_OK && naddrs == 0)
        status = PX_DNS_NOTFOUND; /* OK promises naddrs >= 1 */
    /* as after a real answer: the query is the resolver's to free, and
     * fn may start another lookup */
    q->fn(q->arg, status, status == PX_DNS_OK ? out : NULL,
          status == PX_DNS_OK ? naddrs : 0);
    free(q);
}
