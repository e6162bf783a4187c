/* probe_facts.c - what the boundary probe reads from its own network
 * namespace (routing table, neighbour settings, resolv.conf) and the DNS
 * messages it sends and reads. These facts decide what silence means: a
 * connect that gets no answer is never read as "blocked" on its own. */
#include "probe.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_ROUTE_FILE  "/proc/net/route"
#define PROBE_NEIGH_DIR   "/proc/sys/net/ipv4/neigh/"
#define PROBE_RESOLV_CONF "/etc/resolv.conf"
#define PROBE_RTF_UP      0x1

/* A small non-negative integer from a /proc/sys file, or dflt. */
static long
probe_sysctl_long(const char *iface, const char *name, long dflt)
{
    char path[128];
    long v = dflt;
    FILE *f;

    snprintf(path, sizeof(path), PROBE_NEIGH_DIR "%s/%s", iface, name);
    f = fopen(path, "r");
    if (f == NULL)
        return dflt;
    if (fscanf(f, "%ld", &v) != 1 || v < 0)
        v = dflt;
    fclose(f);
    return v;
}

/* An unresolved neighbour is asked mcast_solicit + app_solicit times,
 * retrans_time_ms apart, before the kernel gives up and queued packets
 * fail with EHOSTUNREACH (kernel defaults: 3 + 0, 1000 ms). */
static long
probe_arp_give_up_ms(const char *iface)
{
    long mcast = probe_sysctl_long(iface, "mcast_solicit", 3);
    long app = probe_sysctl_long(iface, "app_solicit", 0);
    long retrans = probe_sysctl_long(iface, "retrans_time_ms", 1000);

    if (mcast + app == 0)
        mcast = 1;
    return (mcast + app) * retrans;
}

int
probe_route_read(struct probe_route *r)
{
    char line[256], iface[16];
    unsigned long dest, gw, flags, mask;
    FILE *f = fopen(PROBE_ROUTE_FILE, "r");

    memset(r, 0, sizeof(*r));
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "%15s %lx %lx %lx %*s %*s %*s %lx", iface, &dest, &gw,
                   &flags, &mask) != 5 ||
            !(flags & PROBE_RTF_UP) || dest != 0 || mask != 0)
            continue;
        /* The table prints the address as the raw network-order word. */
        r->has_default = true;
        r->gw.sin_family = AF_INET;
        r->gw.sin_addr.s_addr = (uint32_t)gw;
        snprintf(r->iface, sizeof(r->iface), "%s", iface);
        break;
    }
    fclose(f);
    r->arp_give_up_ms =
        probe_arp_give_up_ms(r->has_default ? r->iface : "default");
    return 0;
}

int
probe_nameserver(struct sockaddr_in *sa)
{
    char line[256], ip[INET_ADDRSTRLEN];
    FILE *f = fopen(PROBE_RESOLV_CONF, "r");
    int rc = -1;

    if (f == NULL)
        return -1;
    while (rc == -1 && fgets(line, sizeof(line), f) != NULL) {
        if (sscanf(line, "nameserver %15s", ip) != 1)
            continue;
        memset(sa, 0, sizeof(*sa));
        sa->sin_family = AF_INET;
        sa->sin_port = htons(53);
        if (inet_pton(AF_INET, ip, &sa->sin_addr) == 1)
            rc = 0;
    }
    fclose(f);
    return rc;
}

/* Header of a standard query with RD set and one question. */
static size_t
probe_dns_header(unsigned short id, unsigned char *q)
{
    memset(q, 0, 12);
    q[0] = (unsigned char)(id >> 8);
    q[1] = (unsigned char)id;
    q[2] = 0x01; /* RD */
    q[5] = 1;    /* QDCOUNT */
    return 12;
}

/* Append name (dotted, len bytes) as labels, then QTYPE and QCLASS IN;
 * the new length or -1 when it does not fit. */
static int
probe_dns_question(unsigned char *q, size_t n, size_t cap, const char *name,
                   size_t len, unsigned qtype)
{
    const char *p = name, *end = name + len;

    while (p < end) {
        const char *dot = memchr(p, '.', (size_t)(end - p));
        size_t l = (size_t)((dot ? dot : end) - p);

        if (l == 0 || l > 63 || n + 1 + l + 5 > cap)
            return -1;
        q[n++] = (unsigned char)l;
        memcpy(q + n, p, l);
        n += l;
        p += l + (dot ? 1 : 0);
    }
    if (n + 5 > cap)
        return -1;
    q[n++] = 0;
    q[n++] = 0, q[n++] = (unsigned char)qtype;
    q[n++] = 0, q[n++] = 1; /* QCLASS IN */
    return (int)n;
}

int
probe_dns_query_a(const char *target, unsigned short id, unsigned char *q,
                  size_t cap)
{
    const char *colon = strrchr(target, ':');

    if (colon == NULL || cap < 12)
        return -1;
    return probe_dns_question(q, probe_dns_header(id, q), cap, target,
                              (size_t)(colon - target), 1 /* A */);
}

int
probe_dns_query_ptr(const struct in_addr *ip, unsigned short id,
                    unsigned char *q, size_t cap)
{
    const unsigned char *b = (const unsigned char *)&ip->s_addr;
    char name[40];
    int len;

    if (cap < 12)
        return -1;
    len = snprintf(name, sizeof(name), "%u.%u.%u.%u.in-addr.arpa", b[3], b[2],
                   b[1], b[0]);
    return probe_dns_question(q, probe_dns_header(id, q), cap, name,
                              (size_t)len, 12 /* PTR */);
}

int
probe_dns_reply(const unsigned char *a, size_t len, int *rcode, int *answers)
{
    if (len < 12 || !(a[2] & 0x80))
        return -1;
    *rcode = a[3] & 0x0f;
    *answers = (a[6] << 8) | a[7];
    return 0;
}
