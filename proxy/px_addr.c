/* px_addr.c - classify IPv4/IPv6 addresses for the private-range check. */
#include "px_addr.h"

#include <stdint.h>
#include <string.h>

enum px_addr_class
px_addr_class_v4(const struct in_addr *a)
{
    uint32_t v = ntohl(a->s_addr);

    if ((v >> 24) == 0)
        return PX_ADDR_UNSPECIFIED;
    if ((v >> 24) == 127)
        return PX_ADDR_LOOPBACK;
    if ((v >> 24) == 10 || (v >> 20) == 0xac1 || (v >> 16) == 0xc0a8)
        return PX_ADDR_PRIVATE; /* 10/8, 172.16/12, 192.168/16 */
    if ((v >> 22) == (0x6440u >> 6))
        return PX_ADDR_CGNAT; /* 100.64/10 */
    if ((v >> 16) == 0xa9fe)
        return PX_ADDR_LINK_LOCAL;
    if ((v >> 28) == 0xe)
        return PX_ADDR_MULTICAST;
    if ((v >> 28) == 0xf)
        return PX_ADDR_RESERVED; /* 240/4 including 255.255.255.255 */
    return PX_ADDR_PUBLIC;
}

/* Copy the 4 bytes at b + off into an in_addr and classify them. */
static enum px_addr_class
px_addr_embedded_v4(const uint8_t *b, size_t off)
{
    struct in_addr a4;

    memcpy(&a4.s_addr, b + off, 4);
    return px_addr_class_v4(&a4);
}

enum px_addr_class
px_addr_class_v6(const struct in6_addr *a)
{
    static const uint8_t zero[12] = { 0 };
    static const uint8_t mapped[12] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
    };
    static const uint8_t nat64[12] = { 0, 0x64, 0xff, 0x9b };
    const uint8_t *b = a->s6_addr;

    if (memcmp(b, mapped, 12) == 0 || memcmp(b, nat64, 12) == 0)
        return px_addr_embedded_v4(b, 12);
    if (memcmp(b, zero, 12) == 0) {
        if (IN6_IS_ADDR_UNSPECIFIED(a))
            return PX_ADDR_UNSPECIFIED;
        if (IN6_IS_ADDR_LOOPBACK(a))
            return PX_ADDR_LOOPBACK;
        return px_addr_embedded_v4(b, 12); /* IPv4-compatible, ::a.b.c.d */
    }
    if (b[0] == 0x20 && b[1] == 0x02)
        return px_addr_embedded_v4(b, 2); /* 6to4 carries a v4 address */
    if ((b[0] & 0xfe) == 0xfc)
        return PX_ADDR_PRIVATE;
    if (b[0] == 0xfe && (b[1] & 0x80) == 0x80)
        return PX_ADDR_LINK_LOCAL; /* fe80::/10 and deprecated fec0::/10 */
    if (b[0] == 0xff)
        return PX_ADDR_MULTICAST;
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
        "public",     "unspecified", "loopback", "private",     "cgnat",
        "link-local", "multicast",   "reserved", "unsupported",
    };

    if ((unsigned)c >= sizeof(names) / sizeof(names[0]))
        return "unknown";
    return names[c];
}
