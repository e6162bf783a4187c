/* probe_args.c - the boundary probe's command line: every value checked
 * before any socket is opened (IPv4 literals only, so the probe never
 * resolves a name itself). */
#include "probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char probe_usage[] =
    "usage: probe --proxy IP:PORT (--allowed HOST:PORT | --gateway IP:PORT)\n"
    "             --denied HOST:PORT [--direct IP:PORT]... [--timeout-ms N]\n"
    "             [--proxy-timeout-ms N] [--landlock required|optional]\n"
    "  --proxy       the egress proxy, by IPv4 address\n"
    "  --allowed     a vendor host the proxy must admit (CONNECT: 200,\n"
    "                or 502/504 when the vendor itself is down)\n"
    "  --gateway     instead of --allowed: the credential gateway, by IPv4\n"
    "                address; a request outside its rules must get 403\n"
    "                with its Proxy-Status (the proxy admits nothing then)\n"
    "  --denied      a host off the allowlist (CONNECT must get 403); in\n"
    "                gateway mode the vendor's host\n"
    "  --direct      an IPv4 address a plain connect must not reach\n"
    "                (up to 16)\n"
    "  --timeout-ms  how long to wait for an answer that may never come\n"
    "                (a silent drop; default 3000): past it such a check\n"
    "                is inconclusive, never passed\n"
    "  --proxy-timeout-ms  bound of each CONNECT through the proxy\n"
    "  --landlock    required: a kernel without Landlock fails the landlock\n"
    "                check (the agent's launcher would refuse to start)\n"
    "                (default 12000: longer than the proxy's own dial)\n"
    "Prints one JSON line; exit 0 ok, 2 breach, 3 proxy-broken, 4 usage,\n"
    "5 inconclusive.\n";

static int
probe_parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int
probe_parse_ipport(const char *s, struct sockaddr_in *sa)
{
    char ip[INET_ADDRSTRLEN];
    const char *colon = strrchr(s, ':');
    long port;

    if (colon == NULL || (size_t)(colon - s) >= sizeof(ip))
        return -1;
    memcpy(ip, s, (size_t)(colon - s));
    ip[colon - s] = '\0';
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    if (inet_pton(AF_INET, ip, &sa->sin_addr) != 1 ||
        probe_parse_long(colon + 1, 1, 65535, &port) == -1)
        return -1;
    sa->sin_port = htons((unsigned short)port);
    return 0;
}

/* host:port that fits one CONNECT line: printable, no spaces. */
static int
probe_check_target(const char *s)
{
    const char *colon = strrchr(s, ':');
    long port;

    if (colon == NULL || colon == s || strlen(s) > PROBE_MAX_TARGET ||
        probe_parse_long(colon + 1, 1, 65535, &port) == -1)
        return -1;
    for (const char *p = s; *p != '\0'; p++)
        if (*p <= ' ' || *p > '~' || *p == '"' || *p == '\\')
            return -1;
    return 0;
}

/* arg as it goes into a message: printable ASCII as is, any other byte
 * as \xNN, and at most 64 bytes of it (then "..."), so a bad value never
 * puts raw bytes or an endless line on the terminal. */
static void
probe_quote(const char *arg, char *out, size_t n)
{
    size_t k = 0;

    for (size_t i = 0; arg[i] != '\0' && k + 8 < n; i++) {
        unsigned char ch = (unsigned char)arg[i];

        if (i == 64) {
            k += (size_t)snprintf(out + k, n - k, "...");
            break;
        }
        if (ch >= ' ' && ch <= '~')
            out[k++] = (char)ch;
        else
            k += (size_t)snprintf(out + k, n - k, "\\x%02x", ch);
    }
    out[k] = '\0';
}

static int
probe_usage_error(const char *what, const char *arg)
{
    char shown[300] = "";

    if (arg != NULL)
        probe_quote(arg, shown, sizeof(shown));
    fprintf(stderr, "probe: %s%s%s\n%s", what, arg ? ": " : "", shown,
            probe_usage);
    return -1;
}

/* One flag and its value; -1 after saying why. */
static int
probe_parse_flag(struct probe_opts *o, const char *flag, const char *v)
{
    if (strcmp(flag, "--proxy") == 0) {
        if (probe_parse_ipport(v, &o->proxy) == -1)
            return probe_usage_error("--proxy needs IPv4:PORT", v);
        o->proxy_arg = v;
    } else if (strcmp(flag, "--allowed") == 0) {
        if (probe_check_target(v) == -1)
            return probe_usage_error("--allowed needs HOST:PORT", v);
        o->allowed = v;
    } else if (strcmp(flag, "--gateway") == 0) {
        if (probe_parse_ipport(v, &o->gateway) == -1)
            return probe_usage_error("--gateway needs IPv4:PORT", v);
        o->gateway_arg = v;
    } else if (strcmp(flag, "--denied") == 0) {
        if (probe_check_target(v) == -1)
            return probe_usage_error("--denied needs HOST:PORT", v);
        o->denied = v;
    } else if (strcmp(flag, "--direct") == 0) {
        if (o->n_direct == PROBE_MAX_DIRECT)
            return probe_usage_error("too many --direct", v);
        if (probe_parse_ipport(v, &o->direct_sa[o->n_direct]) == -1)
            return probe_usage_error("--direct needs IPv4:PORT", v);
        o->direct[o->n_direct++] = v;
    } else if (strcmp(flag, "--timeout-ms") == 0) {
        if (probe_parse_long(v, 1, 60000, &o->timeout_ms) == -1)
            return probe_usage_error("--timeout-ms needs 1..60000", v);
    } else if (strcmp(flag, "--landlock") == 0) {
        if (strcmp(v, "required") != 0 && strcmp(v, "optional") != 0)
            return probe_usage_error("--landlock is required or optional", v);
        o->landlock_required = strcmp(v, "required") == 0;
    } else if (strcmp(flag, "--proxy-timeout-ms") == 0) {
        if (probe_parse_long(v, 1, 60000, &o->proxy_timeout_ms) == -1)
            return probe_usage_error("--proxy-timeout-ms needs 1..60000", v);
    } else {
        return probe_usage_error("unknown argument", flag);
    }
    return 0;
}

int
probe_parse_args(int argc, char **argv, struct probe_opts *o)
{
    o->timeout_ms = PROBE_DEFAULT_TIMEOUT_MS;
    o->proxy_timeout_ms = PROBE_DEFAULT_PROXY_MS;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            return probe_usage_error("missing value for", argv[i]);
        if (probe_parse_flag(o, argv[i], argv[i + 1]) == -1)
            return -1;
    }
    if (o->allowed != NULL && o->gateway_arg != NULL)
        return probe_usage_error("--allowed and --gateway exclude each other "
                                 "(the gateway mode's proxy admits nothing)",
                                 NULL);
    if (o->proxy.sin_family != AF_INET || o->denied == NULL ||
        (o->allowed == NULL && o->gateway_arg == NULL))
        return probe_usage_error("--proxy, --denied and one of --allowed or "
                                 "--gateway are needed",
                                 NULL);
    return 0;
}
