/* probe.h - the boundary probe's parts (images/probe*.c): its options, its
 * checks and report, the one-thread socket loop that runs every check at
 * once, and the network facts it reads from its own namespace. The probe
 * is a standalone static program: C library only. */
#ifndef PROBE_H
#define PROBE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#define PROBE_DEFAULT_TIMEOUT_MS 3000
#define PROBE_DEFAULT_PROXY_MS   12000 /* > egress-proxy --connect-timeout */
#define PROBE_MAX_DIRECT         16
#define PROBE_MAX_TARGET         255 /* host:port in a CONNECT line */
#define PROBE_MAX_HEAD           4096
#define PROBE_MAX_CHECKS         (5 + PROBE_MAX_DIRECT) /* + ipv6, landlock */
#define PROBE_IF_INET6           "/proc/net/if_inet6"
#define PROBE_DETAIL_MAX         96
/* + PTR, the default route's gateway, and the allowed or gateway check
 * that a mode does not make */
#define PROBE_MAX_IOS (PROBE_MAX_CHECKS + 3)
/* The gateway check's request: a path no vendor rule holds. */
#define PROBE_GATEWAY_PATH "/agentctl-probe/outside-the-rules"

enum probe_exit {
    PROBE_EXIT_OK = 0,
    PROBE_EXIT_BREACH = 2, /* the boundary leaks */
    PROBE_EXIT_BROKEN = 3, /* the proxy or the gateway would not let
                            * the agent work */
    PROBE_EXIT_USAGE = 4,
    PROBE_EXIT_INCONCLUSIVE = 5, /* a check got no definite answer */
};

/* What a failed check means. */
enum probe_fail {
    PROBE_FAIL_BREACH,   /* a real answer from outside: containment broken */
    PROBE_FAIL_BROKEN,   /* the boundary does not work as it must */
    PROBE_FAIL_UNDECIDED, /* silence the network facts do not explain */
};

struct probe_check {
    const char *name;   /* allowed|gateway, denied, direct, dns, ipv6 */
    const char *target; /* host:port or ip:port; borrowed from argv */
    bool ok;
    enum probe_fail fail; /* meaning when !ok */
    char detail[PROBE_DETAIL_MAX];
};

struct probe_opts {
    struct sockaddr_in proxy;
    const char *proxy_arg;
    const char *allowed; /* NULL in gateway mode */
    const char *denied;  /* in gateway mode: the vendor's host */
    /* Gateway mode (--gateway): the agent reaches the vendor only through
     * the invocation's credential gateway, and the proxy admits nothing. */
    struct sockaddr_in gateway;
    const char *gateway_arg; /* NULL: CONNECT mode */
    const char *direct[PROBE_MAX_DIRECT];
    struct sockaddr_in direct_sa[PROBE_MAX_DIRECT];
    size_t n_direct;
    long timeout_ms;       /* bound of an answer that never comes */
    long proxy_timeout_ms; /* each CONNECT through the proxy */
    bool landlock_required; /* --landlock required: the agent's launcher
                               needs the kernel's Landlock */
};

struct probe_report {
    struct probe_check checks[PROBE_MAX_CHECKS];
    size_t n;
    bool vendor_tried;     /* CONNECT mode: the allowed check ran */
    bool vendor_reachable; /* it got 200 */
};

/* ---- arguments (probe_args.c) ------------------------------------------ */

/* Fill o from argv; -1 after printing why and the usage to stderr. */
int probe_parse_args(int argc, char **argv, struct probe_opts *o);

/* "a.b.c.d:port" into sa; -1 on anything else (no names: no DNS here). */
int probe_parse_ipport(const char *s, struct sockaddr_in *sa);

/* ---- the socket loop (probe_io.c) -------------------------------------- */

enum probe_io_kind {
    PROBE_IO_TCP, /* connect; then send req and read a reply head, if any */
    PROBE_IO_UDP, /* send req as one datagram, read the reply matching id */
};

/* One exchange. Set kind, to, deadline and (optionally) req/req_len,
 * retry_refused, dns_id; probe_io_run() fills the rest. */
struct probe_io {
    enum probe_io_kind kind;
    struct sockaddr_in to;
    const unsigned char *req; /* NULL for a TCP connect only */
    size_t req_len;
    long deadline; /* monotonic ms; past it the answer is ETIMEDOUT (one
                    * already past: the exchange is not made at all) */
    bool retry_refused; /* TCP: a refusal means "not listening yet" */
    unsigned short dns_id; /* UDP: only a reply with this id counts */
    /* results */
    bool done;
    int err; /* 0: the exchange completed; else the errno that ended it */
    unsigned char reply[PROBE_MAX_HEAD];
    size_t reply_len; /* TCP: NUL-terminated head; UDP: the datagram */
    /* internal */
    int fd;
    size_t sent;
    long next_try;
};

/* Called after every round of events: true when the pending exchanges no
 * longer matter (the run ends; they stay !done). */
typedef bool probe_io_settled_fn(const struct probe_io *ios, size_t n,
                                 void *arg);

/* Monotonic milliseconds. */
long probe_now_ms(void);

/* Run every exchange at once in one poll loop until each is done or past
 * its deadline, or settled() says the rest does not matter. */
void probe_io_run(struct probe_io *ios, size_t n, probe_io_settled_fn *settled,
                  void *arg);

/* ---- HTTP answers (probe_http.c) --------------------------------------- */

/* Status code of an "HTTP/1.x NNN ..." line, or -1. */
int probe_status_code(const char *head);

/* The gateway check's request (GET PROBE_GATEWAY_PATH, Host gateway_arg,
 * Connection: close) into req; its length, or -1 when it does not fit. */
int probe_gateway_request(const char *gateway_arg, unsigned char *req,
                          size_t cap);

/* Judge the gateway check's exchange into c (ok, fail, detail): 403 with
 * a Proxy-Status naming agentctl-gateway is ok; any other answer is a
 * breach; refused, reset, closed or not HTTP is broken; no answer by the
 * deadline (waited_ms after the start) is undecided. */
void probe_gateway_judge(const struct probe_io *io, long waited_ms,
                         struct probe_check *c);

/* ---- network facts (probe_facts.c) ------------------------------------- */

/* What the container's routing table says about leaving the link. */
struct probe_route {
    bool has_default;     /* a default route exists */
    struct sockaddr_in gw; /* its gateway (port 0) when has_default */
    char iface[16];       /* the interface of the default route */
    long arp_give_up_ms;  /* how long the kernel tries to resolve a
                           * neighbour on iface before EHOSTUNREACH */
};

/* Read /proc/net/route and the neighbour settings of its interface. -1
 * when the routing table cannot be read. */
int probe_route_read(struct probe_route *r);

/* The first IPv4 "nameserver" of /etc/resolv.conf (port 53); -1 when
 * there is none. */
int probe_nameserver(struct sockaddr_in *sa);

/* A standard query (RD set) for the A record of the host part of
 * host:port; its length, or -1 when the name does not fit. */
int probe_dns_query_a(const char *target, unsigned short id, unsigned char *q,
                      size_t cap);

/* A PTR query for ip's in-addr.arpa name; its length or -1. */
int probe_dns_query_ptr(const struct in_addr *ip, unsigned short id,
                        unsigned char *q, size_t cap);

/* A DNS reply: -1 when it is no reply, else its rcode into *rcode and its
 * answer count into *answers. */
int probe_dns_reply(const unsigned char *a, size_t len, int *rcode,
                    int *answers);

#endif
