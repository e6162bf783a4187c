/* px_addr.c - classify IPv4/IPv6 addresses against the IANA IPv4 and IPv6
 * special-purpose address registries (docs/proxy-addresses.md is the
 * table, with the decision for each block). One table per family, first
 * match wins, so the more specific blocks come first. */
#include "px_addr.h"

#include <stdint.h>
#include <string.h>

struct px_v4_block {
    uint32_t net; /* host byte order */
    unsigned len; /* prefix length */
    enum px_addr_class cls;
};

/* The registry's blocks that are not globally reachable, plus multicast
 * and 240/4. AS112 (192.31.196/24, 192.175.48/24) and AMT (192.52.193/24)
 * are globally reachable and stay public. */
static const struct px_v4_block px_v4_blocks[] = {
    { 0x00000000u, 8, PX_ADDR_UNSPECIFIED },    /* 0/8 "this network" */
    { 0x0a000000u, 8, PX_ADDR_PRIVATE },        /* 10/8 */
    { 0x64400000u, 10, PX_ADDR_CGNAT },         /* 100.64/10 shared */
    { 0x7f000000u, 8, PX_ADDR_LOOPBACK },       /* 127/8 */
    { 0xa9fe0000u, 16, PX_ADDR_LINK_LOCAL },    /* 169.254/16 */
    { 0xac100000u, 12, PX_ADDR_PRIVATE },       /* 172.16/12 */
    { 0xc0000000u, 24, PX_ADDR_PROTOCOL },      /* 192.0.0/24, whole */
    { 0xc0000200u, 24, PX_ADDR_DOCUMENTATION }, /* 192.0.2/24 */
    { 0xc0586300u, 24, PX_ADDR_RESERVED },      /* 192.88.99/24 6to4 relay */
    { 0xc0a80000u, 16, PX_ADDR_PRIVATE },       /* 192.168/16 */
    { 0xc6120000u, 15, PX_ADDR_BENCHMARK },     /* 198.18/15 */
    { 0xc6336400u, 24, PX_ADDR_DOCUMENTATION }, /* 198.51.100/24 */
    { 0xcb007100u, 24, PX_ADDR_DOCUMENTATION }, /* 203.0.113/24 */
    { 0xe0000000u, 4, PX_ADDR_MULTICAST },      /* 224/4 */
    { 0xf0000000u, 4, PX_ADDR_RESERVED },       /* 240/4, broadcast */
};

enum px_addr_class
px_addr_class_v4(const struct in_addr *a)
{
    uint32_t v = ntohl(a->s_addr);

    for (size_t i = 0; i < sizeof(px_v4_blocks) / sizeof(px_v4_blocks[0]);
         i++) {
        const struct px_v4_block *b = &px_v4_blocks[i];

        if ((v >> (32 - b->len)) == (b->net >> (32 - b->len)))
            return b->cls;
    }
    return PX_ADDR_PUBLIC;
}

#define PX_NO_V4 (-1)

struct px_v6_block {
    uint8_t prefix[16];
    unsigned len; /* prefix length in bits */
    enum px_addr_class cls; /* of the form itself */
    int v4_at;              /* offset of an embedded IPv4, or PX_NO_V4 */
};

/* A form that embeds an IPv4 address takes the IPv4's class when that is
 * not public, so 64:ff9b::10.0.0.1 is private, not "translation". */
static const struct px_v6_block px_v6_blocks[] = {
    { { 0 }, 128, PX_ADDR_UNSPECIFIED, PX_NO_V4 },             /* :: */
    { { [15] = 1 }, 128, PX_ADDR_LOOPBACK, PX_NO_V4 },         /* ::1 */
    { { [10] = 0xff, [11] = 0xff }, 96, PX_ADDR_PUBLIC, 12 },  /* mapped */
    { { [8] = 0xff, [9] = 0xff }, 96, PX_ADDR_TRANSLATION, 12 }, /* SIIT */
    { { 0 }, 96, PX_ADDR_RESERVED, 12 },           /* IPv4-compatible */
    { { 0, 0x64, 0xff, 0x9b }, 96, PX_ADDR_PUBLIC, 12 }, /* NAT64 */
    { { 0, 0x64, 0xff, 0x9b, 0, 1 }, 48, PX_ADDR_TRANSLATION, PX_NO_V4 },
    { { 0x01 }, 64, PX_ADDR_RESERVED, PX_NO_V4 },           /* 100::/64 */
    { { 0x01, 0, 0, 0, 0, 0, 0, 1 }, 64, PX_ADDR_RESERVED, PX_NO_V4 },
    { { 0x20, 0x01 }, 32, PX_ADDR_TEREDO, PX_NO_V4 },       /* 2001::/32 */
    { { 0x20, 0x01, 0, 0x02 }, 48, PX_ADDR_BENCHMARK, PX_NO_V4 },
    { { 0x20, 0x01 }, 23, PX_ADDR_PROTOCOL, PX_NO_V4 },     /* 2001::/23 */
    { { 0x20, 0x01, 0x0d, 0xb8 }, 32, PX_ADDR_DOCUMENTATION, PX_NO_V4 },
    { { 0x20, 0x02 }, 16, PX_ADDR_PUBLIC, 2 },              /* 6to4 */
    { { 0x3f, 0xff }, 20, PX_ADDR_DOCUMENTATION, PX_NO_V4 }, /* 3fff::/20 */
    { { 0xfc }, 7, PX_ADDR_PRIVATE, PX_NO_V4 },             /* ULA */
    { { 0xfe, 0x80 }, 10, PX_ADDR_LINK_LOCAL, PX_NO_V4 },
    { { 0xfe, 0xc0 }, 10, PX_ADDR_LINK_LOCAL, PX_NO_V4 }, /* site-local */
    { { 0xff }, 8, PX_ADDR_MULTICAST, PX_NO_V4 },
    /* Outside 2000::/3 nothing is global unicast ("Reserved by IETF" in
     * the IPv6 address space registry, 5f00::/16 SRv6 included). */
    { { 0x00 }, 3, PX_ADDR_RESERVED, PX_NO_V4 }, /* 0000::/3 */
    { { 0x40 }, 2, PX_ADDR_RESERVED, PX_NO_V4 }, /* 4000::/2 */
    { { 0x80 }, 1, PX_ADDR_RESERVED, PX_NO_V4 }, /* 8000::/1 */
};

static bool
px_v6_in(const uint8_t *b, const struct px_v6_block *blk)
{
    unsigned full = blk->len / 8, rest = blk->len % 8;

    if (memcmp(b, blk->prefix, full) != 0)
        return false;
    if (rest == 0)
        return true;
    return ((b[full] ^ blk->prefix[full]) & (0xffu << (8 - rest)) & 0xff) ==
           0;
}

/* Copy the 4 bytes at b + off into an in_addr and classify them. */
static enum px_addr_class
px_addr_embedded_v4(const uint8_t *b, size_t off)
{
    struct in_addr a4;

    memcpy(&a4.s_addr, b + off, 4);
    return px_addr_class_v4(&a4);
}

/* ISATAP interface identifiers (RFC 5214: 0000:5efe or 0200:5efe, then
 * the IPv4) sit under any global prefix; the IPv4 is where a site's ISATAP
 * router would tunnel to, so an inward one is refused. */
static bool
px_v6_is_isatap(const uint8_t *b)
{
    return (b[8] & ~0x02) == 0 && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe;
}

enum px_addr_class
px_addr_class_v6(const struct in6_addr *a)
{
    const uint8_t *b = a->s6_addr;

    for (size_t i = 0; i < sizeof(px_v6_blocks) / sizeof(px_v6_blocks[0]);
         i++) {
        const struct px_v6_block *blk = &px_v6_blocks[i];
        enum px_addr_class inner;

        if (!px_v6_in(b, blk))
            continue;
        if (blk->v4_at == PX_NO_V4)
            return blk->cls;
        inner = px_addr_embedded_v4(b, (size_t)blk->v4_at);
        return inner != PX_ADDR_PUBLIC ? inner : blk->cls;
    }
    if (px_v6_is_isatap(b))
        return px_addr_embedded_v4(b, 12);
    return PX_ADDR_PUBLIC;
}

enum px_addr_class
px_addr_class(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return px_addr_class_v4(&((const struct sockaddr_in *)sa)->sin_addr);
    if (sa->sa_family == AF_INET6)
        return px_addr_class_v6(&((const struct sockaddr_in6 *)sa)->sin6_addr);
    return PX_ADDR_UNSUPPORTED;
}

const char *
px_addr_class_name(enum px_addr_class c)
{
    static const char *const names[] = {
        [PX_ADDR_PUBLIC] = "public",
        [PX_ADDR_UNSPECIFIED] = "unspecified",
        [PX_ADDR_LOOPBACK] = "loopback",
        [PX_ADDR_PRIVATE] = "private",
        [PX_ADDR_CGNAT] = "cgnat",
        [PX_ADDR_LINK_LOCAL] = "link-local",
        [PX_ADDR_MULTICAST] = "multicast",
        [PX_ADDR_RESERVED] = "reserved",
        [PX_ADDR_PROTOCOL] = "ietf-protocol",
        [PX_ADDR_DOCUMENTATION] = "documentation",
        [PX_ADDR_BENCHMARK] = "benchmarking",
        [PX_ADDR_TRANSLATION] = "translation",
        [PX_ADDR_TEREDO] = "teredo",
        [PX_ADDR_UNSUPPORTED] = "unsupported",
    };

    if ((unsigned)c >= sizeof(names) / sizeof(names[0]) || names[c] == NULL)
        return "unknown";
    return names[c];
}
