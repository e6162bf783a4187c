/* px_flags.c - flag values both proxies take (see px_flags.h). */
#include "px_flags.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

int
px_flags_addr(const char *flag, const char *s, union px_sockaddr *out,
              struct err *e)
{
    char host[64];
    const char *value = s, *colon = strrchr(s, ':');
    char *end;
    long port;
    size_t hl;

    /* Every message names the flag and the value as given. */
    if (colon == NULL)
        return err_set(e, ERR_SYNTAX, "%s %s: want ADDR:PORT", flag, value);
    hl = (size_t)(colon - s);
    if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {
        s++;
        hl -= 2;
    }
    if (hl == 0 || hl >= sizeof(host))
        return err_set(e, ERR_SYNTAX, "%s %s: want ADDR:PORT", flag, value);
    memcpy(host, s, hl);
    host[hl] = '\0';
    errno = 0;
    port = strtol(colon + 1, &end, 10);
    if (errno != 0 || end == colon + 1 || *end != '\0' || port < 0 ||
        port > 65535)
        return err_set(e, ERR_SYNTAX, "%s %s: the port must be 0-65535", flag,
                       value);
    memset(out, 0, sizeof(*out));
    if (inet_pton(AF_INET, host, &out->in4.sin_addr) == 1) {
        out->in4.sin_family = AF_INET;
        out->in4.sin_port = htons((uint16_t)port);
    } else if (inet_pton(AF_INET6, host, &out->in6.sin6_addr) == 1) {
        out->in6.sin6_family = AF_INET6;
        out->in6.sin6_port = htons((uint16_t)port);
    } else {
        return err_set(e, ERR_SYNTAX,
                       "%s %s: the address \"%s\" is not a numeric IPv4 "
                       "or [IPv6] address",
                       flag, value, host);
    }
    return 0;
}

int
px_flags_num(const char *flag, const char *s, double lo, double hi, double *out,
             struct err *e)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !(v >= lo && v <= hi))
        return err_set(e, ERR_INVALID, "%s %s: must be a number from %.15g "
                       "to %.15g",
                       flag, s, lo, hi);
    *out = v;
    return 0;
}

int
px_flags_count(const char *flag, const char *s, double lo, double hi,
               double *out, struct err *e)
{
    if (px_flags_num(flag, s, lo, hi, out, e) == -1)
        return -1;
    /* counts are never negative (lo >= 0) and below 2^64 */
    if (*out != (double)(unsigned long long)*out)
        return err_set(e, ERR_INVALID,
                       "%s %s: must be a whole number from %.15g to %.15g",
                       flag, s, lo, hi);
    return 0;
}

int
px_flags_getopt_error(int ch, char **argv, const char *usage, struct err *e)
{
    const char *arg = argv[optind - 1];

    if (ch == ':')
        return err_set(e, ERR_SYNTAX, "%s: missing value\n%s", arg, usage);
    if (optopt != 0 && strncmp(arg, "--", 2) == 0)
        return err_set(e, ERR_SYNTAX, "%s: the flag takes no value\n%s", arg,
                       usage);
    if (optopt > ' ' && optopt < 127)
        return err_set(e, ERR_SYNTAX, "unknown flag -%c\n%s", optopt, usage);
    return err_set(e, ERR_SYNTAX, "unknown flag %s\n%s", arg, usage);
}
