/* hostport.c - parse and normalise a CONNECT authority "host:port".
 *
 * The same parser reads the --allow list and the CONNECT target, so both
 * sides are normalised the same way before they are compared.
 */
#include "hostport.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Parse the decimal port in s[0..len): 1-65535, digits only, no leading
 * zero (so "0443" cannot sneak past an exact comparison). */
static int
px_port_parse(const char *s, size_t len, unsigned *port, struct err *e)
{
    unsigned v = 0;

    if (len == 0)
        return err_set(e, ERR_SYNTAX, "missing port");
    if (len > 5 || s[0] == '0')
        return err_set(e, ERR_SYNTAX, "port must be 1-65535");
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return err_set(e, ERR_SYNTAX, "port must be decimal digits");
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v > 65535)
        return err_set(e, ERR_SYNTAX, "port must be 1-65535");
    *port = v;
    return 0;
}

static int
px_host_ipv6(const char *s, size_t len, struct hostport *out, struct err *e)
{
    char tmp[64];
    struct in6_addr a6;

    if (len == 0 || len >= sizeof(tmp))
        return err_set(e, ERR_SYNTAX, "bad IPv6 literal");
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    if (inet_pton(AF_INET6, tmp, &a6) != 1)
        return err_set(e, ERR_SYNTAX, "bad IPv6 literal");
    if (inet_ntop(AF_INET6, &a6, out->host, sizeof(out->host)) == NULL)
        return err_set(e, ERR_SYNTAX, "bad IPv6 literal");
    out->kind = HOSTPORT_IPV6;
    return 0;
}

/* True when every byte is a digit or a dot: such a host must be a valid
 * dotted quad, never a name. */
static bool
px_all_digits_dots(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!isdigit((unsigned char)s[i]) && s[i] != '.')
            return false;
    return true;
}

static int
px_host_ipv4(const char *s, size_t len, struct hostport *out, struct err *e)
{
    char tmp[16];
    struct in_addr a4;

    if (len >= sizeof(tmp))
        return err_set(e, ERR_SYNTAX, "bad IPv4 literal");
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    /* inet_pton takes exactly four decimal parts, no octal or hex. */
    if (inet_pton(AF_INET, tmp, &a4) != 1)
        return err_set(e, ERR_SYNTAX, "bad IPv4 literal");
    inet_ntop(AF_INET, &a4, out->host, sizeof(out->host));
    out->kind = HOSTPORT_IPV4;
    return 0;
}

/* Check one label [from, to): 1-63 of letters, digits, '-', '_', not
 * starting or ending with '-'. */
static int
px_label_check(const char *s, size_t from, size_t to, struct err *e)
{
    if (to == from)
        return err_set(e, ERR_SYNTAX, "empty label in host name");
    if (to - from > 63)
        return err_set(e, ERR_SYNTAX, "host name label over 63 bytes");
    if (s[from] == '-' || s[to - 1] == '-')
        return err_set(e, ERR_SYNTAX,
                       "host name label starts or ends "
                       "with '-'");
    for (size_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!isalnum(c) && c != '-' && c != '_')
            return err_set(e, ERR_SYNTAX, "bad character in host name");
    }
    return 0;
}

static int
px_host_name(const char *s, size_t len, struct hostport *out, struct err *e)
{
    size_t from = 0, last = 0;

    if (len > 0 && s[len - 1] == '.')
        len--; /* one trailing dot names the same (absolute) host */
    if (len == 0)
        return err_set(e, ERR_SYNTAX, "empty host");
    if (len > HOSTPORT_HOST_MAX)
        return err_set(e, ERR_SYNTAX, "host name over 253 bytes");
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '.')
            continue;
        if (px_label_check(s, from, i, e) == -1)
            return -1;
        last = from;
        from = i + 1;
    }
    /* A last label of digits only is no DNS name ("1.2.3", "127.1");
     * some resolvers would read it as an address. */
    if (px_all_digits_dots(s + last, len - last))
        return err_set(e, ERR_SYNTAX, "host name ends in a numeric label");
    for (size_t i = 0; i < len; i++)
        out->host[i] = (char)tolower((unsigned char)s[i]);
    out->host[len] = '\0';
    out->kind = HOSTPORT_NAME;
    return 0;
}

int
hostport_parse(const char *s, size_t len, struct hostport *out,
                   struct err *e)
{
    const char *colon;
    size_t hlen;

    if (memchr(s, '/', len) != NULL || memchr(s, '@', len) != NULL)
        return err_set(e, ERR_SYNTAX,
                       "target must be host:port "
                       "(no URL, no userinfo)");
    if (len > 0 && s[0] == '[') {
        const char *rb = memchr(s, ']', len);
        if (rb == NULL || (size_t)(rb - s) + 1 >= len || rb[1] != ':')
            return err_set(e, ERR_SYNTAX, "bad bracketed IPv6 target");
        if (px_host_ipv6(s + 1, (size_t)(rb - s) - 1, out, e) == -1)
            return -1;
        colon = rb + 1;
    } else {
        colon = memrchr(s, ':', len);
        if (colon == NULL)
            return err_set(e, ERR_SYNTAX, "target must be host:port");
        hlen = (size_t)(colon - s);
        if (memchr(s, ':', hlen) != NULL)
            return err_set(e, ERR_SYNTAX,
                           "IPv6 literal must be in "
                           "brackets");
        if (hlen > 0 && px_all_digits_dots(s, hlen)) {
            if (px_host_ipv4(s, hlen, out, e) == -1)
                return -1;
        } else if (px_host_name(s, hlen, out, e) == -1) {
            return -1;
        }
    }
    return px_port_parse(colon + 1, len - (size_t)(colon + 1 - s), &out->port,
                         e);
}

const char *
hostport_format(const struct hostport *a, char *buf, size_t size)
{
    if (a->kind == HOSTPORT_IPV6)
        snprintf(buf, size, "[%s]:%u", a->host, a->port);
    else
        snprintf(buf, size, "%s:%u", a->host, a->port);
    return buf;
}

bool
hostport_equal(const struct hostport *a, const struct hostport *b)
{
    return a->kind == b->kind && a->port == b->port &&
           strcmp(a->host, b->host) == 0;
}
