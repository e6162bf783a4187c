/* probe.c - the boundary probe (docs/design.md "What one invocation becomes",
 * step 5): run once on an invocation's internal network, from the agent's
 * side of the box, before the agent starts, and prove the boundary holds.
 *
 * Checks, in order, each bounded by --timeout-ms (the two CONNECTs by
 * --proxy-timeout-ms, which must outlast the proxy's own resolve and dial
 * bound, 10 s by default, so an offline vendor shows as 502/504):
 *   allowed  CONNECT to the vendor through the proxy: 200 ok; 502/504 ok
 *            but the vendor itself is unreachable; anything else means the
 *            proxy would not let the agent work (proxy-broken).
 *   denied   CONNECT to a name off the allowlist must get 403. A 2xx, 502
 *            or 504 means the proxy tried it: breach.
 *   direct   a plain TCP connect to each --direct address must fail (all
 *            at once, under one --timeout-ms).
 *   dns      the container's resolver must not answer the vendor's name.
 *   ipv6     the namespace has no inet6 address at all (/proc/net/if_inet6
 *            empty, ::1 included): an IPv6 path is one the proxy does not
 *            see, and only sysctls the controller sets keep it off.
 *
 * It never resolves a name itself (names only travel in CONNECT lines and
 * in the one DNS query it sends to its own namespace's resolver) and it
 * contacts only the proxy, the --direct addresses and that resolver.
 *
 * Output: one JSON line on stdout, e.g.
 *   {"verdict":"ok","vendor":"reachable","checks":[{"name":"allowed",
 *    "target":"vendor.test:443","ok":true,"detail":"200"},...]}
 * Exit: 0 ok, 2 breach, 3 proxy-broken, 4 bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROBE_DEFAULT_TIMEOUT_MS 3000
#define PROBE_DEFAULT_PROXY_MS   12000 /* > egress-proxy --connect-timeout */
#define PROBE_MAX_DIRECT         16
#define PROBE_MAX_TARGET         255 /* host:port in a CONNECT line */
#define PROBE_MAX_HEAD           4096
#define PROBE_MAX_CHECKS         (4 + PROBE_MAX_DIRECT)
#define PROBE_IF_INET6           "/proc/net/if_inet6"
#define PROBE_RESOLV_CONF        "/etc/resolv.conf"

enum probe_exit {
    PROBE_EXIT_OK = 0,
    PROBE_EXIT_BREACH = 2, /* the boundary leaks */
    PROBE_EXIT_BROKEN = 3, /* the proxy would not let the agent work */
    PROBE_EXIT_USAGE = 4,
};

/* What a failed check means. */
enum probe_fail {
    PROBE_FAIL_BREACH, /* containment is broken */
    PROBE_FAIL_BROKEN, /* the boundary does not work as it must */
};

struct probe_check {
    const char *name;   /* allowed, denied, direct, dns, ipv6 */
    const char *target; /* host:port or ip:port; borrowed from argv */
    bool ok;
    enum probe_fail fail; /* meaning when !ok */
    char detail[96];
};

struct probe_opts {
    struct sockaddr_in proxy;
    const char *allowed;
    const char *denied;
    const char *direct[PROBE_MAX_DIRECT];
    struct sockaddr_in direct_sa[PROBE_MAX_DIRECT];
    size_t n_direct;
    long timeout_ms;       /* direct connects, DNS */
    long proxy_timeout_ms; /* each CONNECT through the proxy */
};

struct probe_report {
    struct probe_check checks[PROBE_MAX_CHECKS];
    size_t n;
    bool vendor_reachable;
};

static const char probe_usage[] =
    "usage: probe --proxy IP:PORT --allowed HOST:PORT --denied HOST:PORT\n"
    "             [--direct IP:PORT]... [--timeout-ms N]\n"
    "             [--proxy-timeout-ms N]\n"
    "  --proxy       the egress proxy, by IPv4 address\n"
    "  --allowed     a vendor host the proxy must admit (CONNECT: 200,\n"
    "                or 502/504 when the vendor itself is down)\n"
    "  --denied      a host off the allowlist (CONNECT must get 403)\n"
    "  --direct      an IPv4 address a plain connect must not reach\n"
    "                (up to 16)\n"
    "  --timeout-ms  bound of each direct connect and of the DNS check\n"
    "                (default 3000)\n"
    "  --proxy-timeout-ms  bound of each CONNECT through the proxy\n"
    "                (default 12000: longer than the proxy's own dial)\n"
    "Prints one JSON line; exit 0 ok, 2 breach, 3 proxy-broken, 4 usage.\n";

/* ---- arguments ----------------------------------------------------------
 */

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

/* "a.b.c.d:port" into sa; -1 on anything else (no names: no DNS here). */
static int
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

static int
probe_usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "probe: %s%s%s\n%s", what, arg ? ": " : "", arg ? arg : "",
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
    } else if (strcmp(flag, "--allowed") == 0) {
        if (probe_check_target(v) == -1)
            return probe_usage_error("--allowed needs HOST:PORT", v);
        o->allowed = v;
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
    } else if (strcmp(flag, "--proxy-timeout-ms") == 0) {
        if (probe_parse_long(v, 1, 60000, &o->proxy_timeout_ms) == -1)
            return probe_usage_error("--proxy-timeout-ms needs 1..60000", v);
    } else {
        return probe_usage_error("unknown argument", flag);
    }
    return 0;
}

static int
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
    if (o->proxy.sin_family != AF_INET || o->allowed == NULL ||
        o->denied == NULL)
        return probe_usage_error("--proxy, --allowed and --denied are needed",
                                 NULL);
    return 0;
}

/* ---- sockets ------------------------------------------------------------
 */

static long
probe_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for events on fd until deadline; -1 with errno (ETIMEDOUT). */
static int
probe_wait(int fd, short events, long deadline)
{
    struct pollfd p = { .fd = fd, .events = events };
    long left;
    int rc;

    for (;;) {
        left = deadline - probe_now_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        rc = poll(&p, 1, (int)left);
        if (rc > 0)
            return 0;
        if (rc == -1 && errno != EINTR)
            return -1;
    }
}

/* Non-blocking TCP connect bounded by deadline; the fd or -1 with errno. */
static int
probe_connect(const struct sockaddr_in *sa, long deadline)
{
    int fd, soerr = 0;
    socklen_t len = sizeof(soerr);

    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd == -1)
        return -1;
    if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == -1 &&
        errno != EINPROGRESS)
        goto fail;
    if (probe_wait(fd, POLLOUT, deadline) == -1)
        goto fail;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1)
        goto fail;
    if (soerr != 0) {
        errno = soerr;
        goto fail;
    }
    return fd;
fail:
    soerr = errno;
    close(fd);
    errno = soerr;
    return -1;
}

static int
probe_send_all(int fd, const char *buf, size_t len, long deadline)
{
    ssize_t n;

    while (len > 0) {
        n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        } else if (n == -1 && errno == EAGAIN) {
            if (probe_wait(fd, POLLOUT, deadline) == -1)
                return -1;
        } else if (n == -1 && errno != EINTR) {
            return -1;
        }
    }
    return 0;
}

/* Read a reply header block (until the blank line, EOF or the cap) into
 * buf, NUL-terminated. Returns the length, or -1 with errno. */
static long
probe_read_head(int fd, char *buf, size_t cap, long deadline)
{
    size_t len = 0;
    ssize_t n;

    while (len + 1 < cap) {
        n = recv(fd, buf + len, cap - 1 - len, 0);
        if (n == 0)
            break;
        if (n == -1 && errno == EAGAIN) {
            if (probe_wait(fd, POLLIN, deadline) == -1)
                return -1;
            continue;
        }
        if (n == -1 && errno == EINTR)
            continue;
        if (n == -1)
            return -1;
        len += (size_t)n;
        buf[len] = '\0';
        if (strstr(buf, "\r\n\r\n") != NULL)
            break;
    }
    buf[len] = '\0';
    return (long)len;
}

/* Status code of an "HTTP/1.x NNN ..." line, or -1. */
static int
probe_status_code(const char *head)
{
    if (strncmp(head, "HTTP/1.", 7) != 0 || head[7] == '\0' || head[8] != ' ' ||
        head[9] < '1' || head[9] > '5' || head[10] < '0' || head[10] > '9' ||
        head[11] < '0' || head[11] > '9')
        return -1;
    return (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
}

/* Connect to the proxy; while it refuses (it may have started a moment
 * ago and not be listening yet) try again every 100 ms until deadline. */
static int
probe_proxy_connect(const struct sockaddr_in *proxy, long deadline)
{
    struct timespec pause = { .tv_nsec = 100 * 1000000L };
    int fd;

    for (;;) {
        fd = probe_connect(proxy, deadline);
        if (fd != -1 || errno != ECONNREFUSED ||
            probe_now_ms() + 100 >= deadline)
            return fd;
        nanosleep(&pause, NULL);
    }
}

/* CONNECT target through the proxy: the status code, or -1 with a reason
 * in why (no connection, no answer, not HTTP). */
static int
probe_connect_via_proxy(const struct probe_opts *o, const char *target,
                        char *why, size_t why_size)
{
    long deadline = probe_now_ms() + o->proxy_timeout_ms;
    char req[2 * PROBE_MAX_TARGET + 64], head[PROBE_MAX_HEAD];
    int fd, n, code = -1;
    long len;

    n = snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n",
                 target, target);
    fd = probe_proxy_connect(&o->proxy, deadline);
    if (fd == -1) {
        snprintf(why, why_size, "proxy: %s", strerror(errno));
        return -1;
    }
    len = -1;
    if (probe_send_all(fd, req, (size_t)n, deadline) == 0)
        len = probe_read_head(fd, head, sizeof(head), deadline);
    if (len == -1)
        snprintf(why, why_size, "no answer: %s", strerror(errno));
    else if (len == 0)
        snprintf(why, why_size, "proxy closed without an answer");
    else if ((code = probe_status_code(head)) == -1)
        snprintf(why, why_size, "not an HTTP answer");
    close(fd);
    return code;
}

/* ---- checks -------------------------------------------------------------
 */

static struct probe_check *
probe_add(struct probe_report *r, const char *name, const char *target)
{
    struct probe_check *c = &r->checks[r->n++];

    c->name = name;
    c->target = target;
    return c;
}

static void
probe_check_allowed(const struct probe_opts *o, struct probe_report *r)
{
    struct probe_check *c = probe_add(r, "allowed", o->allowed);
    int code;

    code = probe_connect_via_proxy(o, o->allowed, c->detail, sizeof(c->detail));
    if (code != -1)
        snprintf(c->detail, sizeof(c->detail), "%d", code);
    /* 502/504: the proxy admitted the name but the vendor is down or this
     * host is offline. The boundary is fine; the agent may fail later. */
    c->ok = code == 200 || code == 502 || code == 504;
    c->fail = PROBE_FAIL_BROKEN;
    r->vendor_reachable = code == 200;
}

static void
probe_check_denied(const struct probe_opts *o, struct probe_report *r)
{
    struct probe_check *c = probe_add(r, "denied", o->denied);
    int code;

    code = probe_connect_via_proxy(o, o->denied, c->detail, sizeof(c->detail));
    if (code != -1)
        snprintf(c->detail, sizeof(c->detail), "%d", code);
    c->ok = code == 403;
    /* A 2xx is a tunnel; 502/504 mean the proxy tried to reach the host.
     * Anything else (no answer, 400, ...) is a proxy that does not work. */
    c->fail = (code >= 200 && code < 300) || code == 502 || code == 504
                  ? PROBE_FAIL_BREACH
                  : PROBE_FAIL_BROKEN;
}

/* Record the outcome of one direct connect: err 0 = it connected. */
static void
probe_direct_result(struct probe_check *c, int err)
{
    c->fail = PROBE_FAIL_BREACH;
    c->ok = err != 0;
    if (err == 0)
        snprintf(c->detail, sizeof(c->detail), "connected");
    else if (err == ETIMEDOUT)
        snprintf(c->detail, sizeof(c->detail), "timeout");
    else if (err == ECONNREFUSED)
        snprintf(c->detail, sizeof(c->detail), "refused");
    else if (err == EHOSTUNREACH || err == ENETUNREACH)
        snprintf(c->detail, sizeof(c->detail), "unreachable");
    else
        snprintf(c->detail, sizeof(c->detail), "%s", strerror(err));
}

/* Start a non-blocking connect: the fd while it is in progress, else -1
 * with *err = 0 (connected at once) or the error. */
static int
probe_direct_start(const struct sockaddr_in *sa, int *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd == -1) {
        *err = errno;
        return -1;
    }
    if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0) {
        *err = 0;
    } else if (errno == EINPROGRESS) {
        return fd;
    } else {
        *err = errno;
    }
    close(fd);
    return -1;
}

/* All direct connects at once, under one --timeout-ms: a blackholed
 * address costs the timeout once, not once per address. */
static void
probe_check_directs(const struct probe_opts *o, struct probe_report *r)
{
    long deadline = probe_now_ms() + o->timeout_ms;
    struct pollfd p[PROBE_MAX_DIRECT];
    struct probe_check *c[PROBE_MAX_DIRECT];
    size_t pending = 0;
    int err;

    for (size_t i = 0; i < o->n_direct; i++) {
        c[i] = probe_add(r, "direct", o->direct[i]);
        p[i].fd = probe_direct_start(&o->direct_sa[i], &err);
        p[i].events = POLLOUT;
        if (p[i].fd == -1)
            probe_direct_result(c[i], err);
        else
            pending++;
    }
    while (pending > 0 && probe_now_ms() < deadline) {
        if (poll(p, o->n_direct, (int)(deadline - probe_now_ms())) == -1 &&
            errno != EINTR)
            break;
        for (size_t i = 0; i < o->n_direct; i++) {
            socklen_t len = sizeof(err);

            if (p[i].fd == -1 || p[i].revents == 0)
                continue;
            if (getsockopt(p[i].fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
                err = errno;
            probe_direct_result(c[i], err);
            close(p[i].fd);
            p[i].fd = -1; /* poll() skips negative fds */
            pending--;
        }
    }
    for (size_t i = 0; i < o->n_direct; i++) {
        if (p[i].fd != -1) {
            probe_direct_result(c[i], ETIMEDOUT);
            close(p[i].fd);
        }
    }
}

/* ---- DNS ----------------------------------------------------------------
 */

/* The first IPv4 "nameserver" of resolv.conf; -1 when there is none. */
static int
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

/* A standard query (RD set) for the A record of the host part of
 * host:port; its length, or -1 when the name does not fit. */
static int
probe_dns_query(const char *target, unsigned short id, unsigned char *q,
                size_t cap)
{
    size_t host_len = (size_t)(strrchr(target, ':') - target), n = 12;
    const char *p = target, *end = target + host_len;

    memset(q, 0, 12);
    q[0] = (unsigned char)(id >> 8);
    q[1] = (unsigned char)id;
    q[2] = 0x01; /* RD */
    q[5] = 1;    /* QDCOUNT */
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
    q[n++] = 0;
    q[n++] = 0, q[n++] = 1; /* QTYPE A */
    q[n++] = 0, q[n++] = 1; /* QCLASS IN */
    return (int)n;
}

/* Send q to the resolver and wait for a matching answer. Returns the
 * number of answer records (>= 0; 0 also for NXDOMAIN, REFUSED, ...), or
 * -1 with detail set when nothing usable came back in time. */
static int
probe_dns_ask(const struct sockaddr_in *ns, const unsigned char *q, int qlen,
              long timeout_ms, char *detail, size_t detail_size)
{
    long deadline = probe_now_ms() + timeout_ms;
    unsigned char a[512];
    ssize_t n;
    int fd, rc = -1;

    fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd == -1 || connect(fd, (const struct sockaddr *)ns, sizeof(*ns)) ||
        send(fd, q, (size_t)qlen, 0) != qlen) {
        snprintf(detail, detail_size, "no query: %s", strerror(errno));
        goto out;
    }
    for (;;) {
        if (probe_wait(fd, POLLIN, deadline) == -1) {
            snprintf(detail, detail_size, "no answer: %s", strerror(errno));
            goto out;
        }
        n = recv(fd, a, sizeof(a), 0);
        if (n >= 12 && a[0] == q[0] && a[1] == q[1] && (a[2] & 0x80))
            break; /* a response to this query; others are ignored */
    }
    if ((a[3] & 0x0f) != 0) {
        snprintf(detail, detail_size, "rcode %d", a[3] & 0x0f);
        rc = 0;
    } else {
        rc = (a[6] << 8) | a[7];
        snprintf(detail, detail_size, "%d answers", rc);
    }
out:
    if (fd != -1)
        close(fd);
    return rc;
}

static void
probe_check_dns(const struct probe_opts *o, struct probe_report *r)
{
    struct probe_check *c = probe_add(r, "dns", o->allowed);
    unsigned char q[300];
    struct sockaddr_in ns, lit;
    int qlen;

    c->ok = true;
    c->fail = PROBE_FAIL_BREACH;
    if (o->allowed[0] == '[' || probe_parse_ipport(o->allowed, &lit) == 0) {
        snprintf(c->detail, sizeof(c->detail), "address literal");
        return;
    }
    if (probe_nameserver(&ns) == -1) {
        snprintf(c->detail, sizeof(c->detail), "no nameserver");
        return;
    }
    qlen = probe_dns_query(o->allowed, (unsigned short)(getpid() ^ 0x5a5a), q,
                           sizeof(q));
    if (qlen == -1) {
        snprintf(c->detail, sizeof(c->detail), "name not queryable");
        return;
    }
    /* Any answer record for the vendor's name means names outside the
     * box resolve: a channel past the proxy. */
    if (probe_dns_ask(&ns, q, qlen, o->timeout_ms, c->detail,
                      sizeof(c->detail)) > 0)
        c->ok = false;
}

/* Every line of /proc/net/if_inet6 is one address of this namespace. No
 * file means the kernel has no IPv6 at all; a file it cannot read is a
 * failure (it cannot tell). */
static void
probe_check_ipv6(struct probe_report *r)
{
    struct probe_check *c = probe_add(r, "ipv6", "inet6");
    FILE *f = fopen(PROBE_IF_INET6, "r");
    char line[160], dev[32] = "";
    int n = 0;

    c->ok = true;
    c->fail = PROBE_FAIL_BREACH;
    if (f == NULL) {
        c->ok = errno == ENOENT;
        snprintf(c->detail, sizeof(c->detail), "%s",
                 c->ok ? "no IPv6 in the kernel" : "cannot read if_inet6");
        return;
    }
    while (fgets(line, sizeof(line), f) != NULL)
        if (n++ == 0 && sscanf(line, "%*s %*s %*s %*s %*s %31s", dev) != 1)
            dev[0] = '\0';
    fclose(f);
    for (char *p = dev; *p != '\0'; p++)
        if (*p < 0x21 || *p > 0x7e || *p == '"' || *p == '\\')
            *p = '?'; /* printed in the JSON line as is */
    if (n == 0) {
        snprintf(c->detail, sizeof(c->detail), "no address");
        return;
    }
    c->ok = false;
    snprintf(c->detail, sizeof(c->detail), "%d addresses, first on %s", n,
             dev[0] ? dev : "?");
}

/* ---- report -------------------------------------------------------------
 */

static int
probe_verdict(const struct probe_report *r)
{
    int v = PROBE_EXIT_OK;

    for (size_t i = 0; i < r->n; i++) {
        if (r->checks[i].ok)
            continue;
        if (r->checks[i].fail == PROBE_FAIL_BREACH)
            return PROBE_EXIT_BREACH; /* containment first */
        v = PROBE_EXIT_BROKEN;
    }
    return v;
}

/* Every string printed is checked printable ASCII without '"' or '\\'
 * (targets by probe_check_target, details are our own or strerror). */
static void
probe_print(const struct probe_report *r, int verdict)
{
    static const char *const names[] = {
        [PROBE_EXIT_OK] = "ok",
        [PROBE_EXIT_BREACH] = "breach",
        [PROBE_EXIT_BROKEN] = "proxy-broken",
    };

    printf("{\"verdict\":\"%s\",\"vendor\":\"%s\",\"checks\":[", names[verdict],
           r->vendor_reachable ? "reachable" : "unreachable");
    for (size_t i = 0; i < r->n; i++) {
        const struct probe_check *c = &r->checks[i];

        printf("%s{\"name\":\"%s\",\"target\":\"%s\",\"ok\":%s,"
               "\"detail\":\"%s\"}",
               i ? "," : "", c->name, c->target, c->ok ? "true" : "false",
               c->detail);
    }
    printf("]}\n");
    fflush(stdout);
}

int
main(int argc, char **argv)
{
    struct probe_opts o = { 0 };
    struct probe_report r = { 0 };
    int verdict;

    if (probe_parse_args(argc, argv, &o) == -1)
        return PROBE_EXIT_USAGE;
    probe_check_allowed(&o, &r);
    probe_check_denied(&o, &r);
    probe_check_directs(&o, &r);
    probe_check_dns(&o, &r);
    probe_check_ipv6(&r);
    verdict = probe_verdict(&r);
    probe_print(&r, verdict);
    return verdict;
}
