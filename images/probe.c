/* probe.c - the boundary probe (docs/design.md "What one invocation
 * becomes", step 5): run once on an invocation's internal network, from
 * the agent's side of the box, before the agent starts, and prove the
 * boundary holds.
 *
 * Two modes, after how the agent reaches its vendor. CONNECT mode
 * (--allowed): through the egress proxy, which admits the vendor's host.
 * Gateway mode (--gateway): only through the invocation's credential
 * gateway (proxy/gw_*.c, docs/gateway.md), and the proxy admits nothing,
 * so --denied is the vendor's host itself.
 *
 * Every check runs at once (probe_io.c) and ends on the first definite
 * answer the network gives:
 *   allowed  (CONNECT mode) CONNECT to the vendor through the proxy: 200
 *            ok; 502/504 ok but the vendor itself is unreachable; anything
 *            else means the proxy would not let the agent work
 *            (proxy-broken).
 *   gateway  (gateway mode) GET PROBE_GATEWAY_PATH, a path no rule holds,
 *            straight to the gateway: 403 with a Proxy-Status naming
 *            agentctl-gateway is ok (probe_http.c). Any other answer (200,
 *            404, a bare 403) is a breach: what answers on the gateway's
 *            address does not enforce the rules. Refused (until
 *            --timeout-ms), reset, closed without an answer or not HTTP:
 *            nothing serves there, the agent could not work (broken, the
 *            verdict keeps its name proxy-broken). No answer by
 *            --timeout-ms is undecided, as for a direct connect.
 *   denied   CONNECT to a name off the allowlist must get 403 (gateway
 *            mode: the vendor's host, so a request without the gateway
 *            fails). A 2xx, 502 or 504 means the proxy tried it: breach.
 *   direct   a plain TCP connect to each --direct address must fail with
 *            an answer: refused, no route, host unreachable. Connected is
 *            a breach; no answer at all (a silent drop) is inconclusive.
 *   dns      the container's resolver must not answer the vendor's name
 *            (--allowed's, in gateway mode --denied's):
 *            an answer record is a breach; NXDOMAIN, REFUSED, an empty
 *            answer, nothing listening or no resolver are fine. Silence
 *            is fine only when the network facts explain it (below).
 *
 *   ipv6     the namespace has no inet6 address at all (/proc/net/if_inet6
 *            empty, ::1 included): an IPv6 path is one the proxy does not
 *            see, and only sysctls the controller sets keep it off.
 *
 *   landlock the kernel's Landlock ABI as a process with the agent's
 *            seccomp profile sees it (detail "ABI N"); with --landlock
 *            required an ABI of 0 fails (broken): the agent's launcher
 *            would refuse to start the CLI, so the attempt fails here,
 *            with the reason, before anything runs.
 *
 * Only a real answer from outside is a breach, and "no answer yet" is
 * never read as safe by itself. Two facts from the probe's namespace
 * decide what silence means:
 *   route    the routing table's default gateway, and a connect to it:
 *            EHOSTUNREACH means no one holds the gateway address (Docker's
 *            inhibit_ipv4), so no packet can leave the link; no default
 *            route at all means the same.
 *   resolver a PTR query for the proxy's address, which Docker's embedded
 *            resolver answers itself: it is alive and serving.
 * With both, a resolver that stays silent on the vendor's name has
 * forwarded it nowhere it could reach (it forwards from this namespace;
 * dockerd 20.10 sends no reply when every upstream fails), so the DNS
 * check passes as soon as the facts are in instead of waiting out
 * --timeout-ms. Without them it waits --timeout-ms and is inconclusive.
 * The direct connects wait at least the kernel's ARP give-up time (from
 * the interface's neighbour settings) so "no one holds the address" is
 * never cut short into "no answer".
 *
 * It never resolves a name itself (names only travel in CONNECT lines and
 * in the queries it sends to its own namespace's resolver) and it
 * contacts only the proxy, the credential gateway (gateway mode), the
 * --direct addresses, its default gateway (port 9) and that resolver.
 *
 * Output: one JSON line on stdout, e.g.
 *   {"verdict":"ok","vendor":"reachable","route":"...","elapsed_ms":41,
 *    "checks":[{"name":"allowed","target":"vendor.test:443","ok":true,
 *    "detail":"200"},...]}
 * a failed check also carries "fail":"breach|broken|undecided". In
 * gateway mode the first check is "gateway" and "vendor" is "unknown":
 * the gateway refuses the probe's request without dialling the vendor,
 * so nothing says whether the vendor is up, and "unreachable" would read
 * as the vendor being down (a Warning in the controller).
 * Exit: 0 ok, 2 breach, 3 proxy-broken, 4 bad usage, 5 inconclusive.
 */
#include "probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PROBE_ARP_MARGIN_MS 250 /* past the kernel's own ARP give-up */
#define PROBE_ROUTE_GW_PORT 9   /* discard: a port nothing should serve */

/* Indexes into the run's exchanges. A mode leaves the check of the other
 * out (IO_ALLOWED or IO_GATEWAY): its deadline is 0, so it is not made. */
enum {
    IO_ALLOWED, /* CONNECT mode */
    IO_GATEWAY, /* gateway mode: the credential gateway */
    IO_DENIED,
    IO_ROUTE_GW, /* the default route's gateway (a network fact) */
    IO_DNS_A,
    IO_DNS_PTR,
    IO_DIRECT0, /* then one per --direct */
};

struct probe_run {
    const struct probe_opts *o;
    struct probe_route route;
    bool have_ns;     /* a nameserver to ask */
    bool dns_skipped; /* the vendor is an address literal or unqueryable */
    char dns_skip_why[PROBE_DETAIL_MAX];
    struct probe_io io[PROBE_MAX_IOS];
    size_t n_io;
    unsigned char req_allowed[2 * PROBE_MAX_TARGET + 64];
    unsigned char req_denied[2 * PROBE_MAX_TARGET + 64];
    unsigned char req_gateway[sizeof(PROBE_GATEWAY_PATH) + 128];
    unsigned char q_a[300], q_ptr[64];
    long started;
};

/* ---- setting the exchanges up ------------------------------------------ */

static void
probe_io_tcp(struct probe_io *io, const struct sockaddr_in *to, long deadline)
{
    memset(io, 0, sizeof(*io));
    io->kind = PROBE_IO_TCP;
    io->to = *to;
    io->deadline = deadline;
}

static void
probe_io_connect_via_proxy(struct probe_run *run, size_t i, const char *target,
                           unsigned char *req, size_t cap)
{
    int n = snprintf((char *)req, cap,
                     "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target);

    probe_io_tcp(&run->io[i], &run->o->proxy,
                 run->started + run->o->proxy_timeout_ms);
    run->io[i].req = req;
    run->io[i].req_len = (size_t)n;
    /* It may have started a moment ago and not be listening yet. */
    run->io[i].retry_refused = true;
}

/* The gateway check: a request outside every rule, straight to the
 * gateway (plain HTTP on the internal network). It may have started a
 * moment ago, as the proxy may; unlike a CONNECT it dials nothing before
 * it refuses, so silence is bounded by --timeout-ms. */
static void
probe_setup_gateway(struct probe_run *run)
{
    struct probe_io *io = &run->io[IO_GATEWAY];
    int n = probe_gateway_request(run->o->gateway_arg, run->req_gateway,
                                  sizeof(run->req_gateway));

    probe_io_tcp(io, &run->o->gateway,
                 n > 0 ? run->started + run->o->timeout_ms : 0);
    io->req = run->req_gateway;
    io->req_len = n > 0 ? (size_t)n : 0;
    io->retry_refused = true;
}

/* The vendor's host:port: --allowed, or in gateway mode --denied (the
 * controller passes the vendor's host there, since a CONNECT to it must
 * then be refused). The DNS check asks for its name. */
static const char *
probe_vendor(const struct probe_opts *o)
{
    return o->allowed != NULL ? o->allowed : o->denied;
}

/* Both queries go to the same resolver; a query that cannot be built is
 * left with deadline 0, so it ends at once as timed out and unused. */
static void
probe_io_dns(struct probe_run *run, const struct sockaddr_in *ns, size_t i,
             const unsigned char *q, int qlen, unsigned short id)
{
    struct probe_io *io = &run->io[i];

    memset(io, 0, sizeof(*io));
    io->kind = PROBE_IO_UDP;
    io->to = *ns;
    io->req = q;
    io->req_len = qlen > 0 ? (size_t)qlen : 0;
    io->dns_id = id;
    io->deadline = qlen > 0 ? run->started + run->o->timeout_ms : 0;
}

static void
probe_setup_dns(struct probe_run *run)
{
    const struct probe_opts *o = run->o;
    unsigned short id = (unsigned short)(getpid() ^ 0x5a5a);
    const char *vendor = probe_vendor(o);
    struct sockaddr_in ns, lit;
    int qa, qp;

    run->have_ns = probe_nameserver(&ns) == 0;
    if (vendor[0] == '[' || probe_parse_ipport(vendor, &lit) == 0)
        snprintf(run->dns_skip_why, sizeof(run->dns_skip_why),
                 "address literal");
    qa = probe_dns_query_a(vendor, id, run->q_a, sizeof(run->q_a));
    if (qa == -1 && run->dns_skip_why[0] == '\0')
        snprintf(run->dns_skip_why, sizeof(run->dns_skip_why),
                 "name not queryable");
    run->dns_skipped = run->dns_skip_why[0] != '\0';
    if (!run->have_ns) {
        memset(&ns, 0, sizeof(ns));
        ns.sin_family = AF_INET;
    }
    qp = probe_dns_query_ptr(&o->proxy.sin_addr, (unsigned short)(id + 1),
                             run->q_ptr, sizeof(run->q_ptr));
    probe_io_dns(run, &ns, IO_DNS_A, run->q_a,
                 run->have_ns && !run->dns_skipped ? qa : -1, id);
    probe_io_dns(run, &ns, IO_DNS_PTR, run->q_ptr,
                 run->have_ns && !run->dns_skipped ? qp : -1,
                 (unsigned short)(id + 1));
}

static void
probe_setup(struct probe_run *run, const struct probe_opts *o)
{
    long arp_bound, direct_deadline;
    struct sockaddr_in gw;

    run->o = o;
    run->started = probe_now_ms();
    if (probe_route_read(&run->route) == -1)
        run->route.arp_give_up_ms = 3000; /* unknown: assume the default */
    arp_bound = run->route.arp_give_up_ms + PROBE_ARP_MARGIN_MS;
    direct_deadline =
        run->started + (o->timeout_ms > arp_bound ? o->timeout_ms : arp_bound);
    /* One of the two is made; the other keeps deadline 0. */
    probe_io_tcp(&run->io[IO_ALLOWED], &o->proxy, 0);
    probe_io_tcp(&run->io[IO_GATEWAY], &o->proxy, 0);
    if (o->gateway_arg != NULL)
        probe_setup_gateway(run);
    else
        probe_io_connect_via_proxy(run, IO_ALLOWED, o->allowed,
                                   run->req_allowed, sizeof(run->req_allowed));
    probe_io_connect_via_proxy(run, IO_DENIED, o->denied, run->req_denied,
                               sizeof(run->req_denied));
    gw = run->route.gw;
    gw.sin_port = htons(PROBE_ROUTE_GW_PORT);
    probe_io_tcp(&run->io[IO_ROUTE_GW], &gw,
                 run->route.has_default ? direct_deadline : 0);
    probe_setup_dns(run);
    for (size_t i = 0; i < o->n_direct; i++)
        probe_io_tcp(&run->io[IO_DIRECT0 + i], &o->direct_sa[i],
                     direct_deadline);
    run->n_io = IO_DIRECT0 + o->n_direct;
}

/* ---- what silence means ------------------------------------------------ */

/* No packet can leave the link: no default route, or no one holds the
 * gateway's address (the kernel's neighbour resolution failed). */
static bool
probe_link_closed(const struct probe_run *run)
{
    const struct probe_io *g = &run->io[IO_ROUTE_GW];

    return !run->route.has_default ||
           (g->done && (g->err == EHOSTUNREACH || g->err == ENETUNREACH));
}

/* Docker's resolver answered the PTR query for the proxy's address. */
static bool
probe_resolver_alive(const struct probe_run *run)
{
    const struct probe_io *p = &run->io[IO_DNS_PTR];
    int rcode, answers;

    return p->done && p->err == 0 &&
           probe_dns_reply(p->reply, p->reply_len, &rcode, &answers) == 0;
}

static bool
probe_silence_explained(const struct probe_run *run)
{
    return probe_link_closed(run) && probe_resolver_alive(run);
}

/* The run may end while only the vendor's DNS query is unanswered, once
 * the facts explain its silence; everything else must have answered. */
static bool
probe_settled(const struct probe_io *ios, size_t n, void *arg)
{
    const struct probe_run *run = arg;

    for (size_t i = 0; i < n; i++)
        if (!ios[i].done && i != IO_DNS_A)
            return false;
    return probe_silence_explained(run);
}

static void
probe_route_text(const struct probe_run *run, char *out, size_t size)
{
    const struct probe_io *g = &run->io[IO_ROUTE_GW];
    char ip[INET_ADDRSTRLEN];

    if (!run->route.has_default) {
        snprintf(out, size, "no default route");
        return;
    }
    inet_ntop(AF_INET, &run->route.gw.sin_addr, ip, sizeof(ip));
    if (probe_link_closed(run))
        snprintf(out, size, "gateway %s unheld (arp gives up in %ld ms)", ip,
                 run->route.arp_give_up_ms);
    else if (g->done && g->err == 0)
        snprintf(out, size, "gateway %s held (connected)", ip);
    else if (g->done && g->err == ECONNREFUSED)
        snprintf(out, size, "gateway %s held (refused)", ip);
    else
        snprintf(out, size, "gateway %s: %s", ip,
                 g->done ? strerror(g->err) : "no answer");
}

/* ---- judging ----------------------------------------------------------- */

static struct probe_check *
probe_add(struct probe_report *r, const char *name, const char *target)
{
    struct probe_check *c = &r->checks[r->n++];

    c->name = name;
    c->target = target;
    c->ok = true;
    return c;
}

/* The proxy's status code, or -1 with the reason in c->detail. */
static int
probe_proxy_code(const struct probe_io *io, struct probe_check *c)
{
    int code;

    if (!io->done || io->err != 0) {
        snprintf(c->detail, sizeof(c->detail), "%s: %s",
                 io->sent == 0 ? "proxy" : "no answer",
                 strerror(io->done ? io->err : ETIMEDOUT));
        return -1;
    }
    if (io->reply_len == 0) {
        snprintf(c->detail, sizeof(c->detail),
                 "proxy closed without an answer");
        return -1;
    }
    code = probe_status_code((const char *)io->reply);
    if (code == -1)
        snprintf(c->detail, sizeof(c->detail), "not an HTTP answer");
    else
        snprintf(c->detail, sizeof(c->detail), "%d", code);
    return code;
}

static void
probe_judge_allowed(const struct probe_run *run, struct probe_report *r)
{
    struct probe_check *c = probe_add(r, "allowed", run->o->allowed);
    int code = probe_proxy_code(&run->io[IO_ALLOWED], c);

    /* 502/504: the proxy admitted the name but the vendor is down or this
     * host is offline. The boundary is fine; the agent may fail later. */
    c->ok = code == 200 || code == 502 || code == 504;
    c->fail = PROBE_FAIL_BROKEN;
    r->vendor_tried = true;
    r->vendor_reachable = code == 200;
}

/* Gateway mode: the gateway must refuse a request outside its rules
 * itself (probe_gateway_judge); it never dials the vendor for it, so
 * the vendor's state stays unknown. */
static void
probe_judge_gateway(const struct probe_run *run, struct probe_report *r)
{
    const struct probe_io *io = &run->io[IO_GATEWAY];

    probe_gateway_judge(io, io->deadline - run->started,
                        probe_add(r, "gateway", run->o->gateway_arg));
}

static void
probe_judge_denied(const struct probe_run *run, struct probe_report *r)
{
    struct probe_check *c = probe_add(r, "denied", run->o->denied);
    int code = probe_proxy_code(&run->io[IO_DENIED], c);

    c->ok = code == 403;
    /* A 2xx is a tunnel; 502/504 mean the proxy tried to reach the host.
     * Anything else (no answer, 400, ...) is a proxy that does not work. */
    c->fail = (code >= 200 && code < 300) || code == 502 || code == 504
                  ? PROBE_FAIL_BREACH
                  : PROBE_FAIL_BROKEN;
}

/* A direct connect: connected is a breach; refused, no route or host
 * unreachable (or any other error the kernel gave) is an answer that the
 * path is closed; no answer at all is undecided. */
static void
probe_judge_direct(const struct probe_run *run, size_t i,
                   struct probe_report *r)
{
    const struct probe_io *io = &run->io[IO_DIRECT0 + i];
    struct probe_check *c = probe_add(r, "direct", run->o->direct[i]);
    int err = io->done ? io->err : ETIMEDOUT;

    c->ok = err != 0 && err != ETIMEDOUT;
    c->fail = err == 0 ? PROBE_FAIL_BREACH : PROBE_FAIL_UNDECIDED;
    if (err == 0)
        snprintf(c->detail, sizeof(c->detail), "connected");
    else if (err == ETIMEDOUT)
        snprintf(c->detail, sizeof(c->detail),
                 "no answer in %ld ms (a silent drop)",
                 io->deadline - run->started);
    else if (err == ECONNREFUSED)
        snprintf(c->detail, sizeof(c->detail), "refused");
    else if (err == EHOSTUNREACH || err == ENETUNREACH)
        snprintf(c->detail, sizeof(c->detail), "unreachable");
    else
        snprintf(c->detail, sizeof(c->detail), "%s", strerror(err));
}

/* The vendor's query got a reply: any answer record is a name outside
 * the box that resolves, a channel past the proxy. */
static void
probe_judge_dns_reply(const struct probe_io *a, struct probe_check *c)
{
    int rcode, answers;

    if (probe_dns_reply(a->reply, a->reply_len, &rcode, &answers) == -1) {
        snprintf(c->detail, sizeof(c->detail), "not a DNS reply");
        return;
    }
    if (rcode != 0) {
        snprintf(c->detail, sizeof(c->detail), "rcode %d", rcode);
        return;
    }
    snprintf(c->detail, sizeof(c->detail), "%d answers", answers);
    c->ok = answers == 0;
}

static void
probe_judge_dns(const struct probe_run *run, struct probe_report *r)
{
    const struct probe_io *a = &run->io[IO_DNS_A];
    struct probe_check *c = probe_add(r, "dns", probe_vendor(run->o));
    int err = a->done ? a->err : ETIMEDOUT;

    c->fail = PROBE_FAIL_BREACH;
    if (run->dns_skipped)
        snprintf(c->detail, sizeof(c->detail), "%s", run->dns_skip_why);
    else if (!run->have_ns)
        snprintf(c->detail, sizeof(c->detail), "no nameserver");
    else if (err == 0)
        probe_judge_dns_reply(a, c);
    else if (err == ECONNREFUSED)
        snprintf(c->detail, sizeof(c->detail), "no resolver listening");
    else if (err != ETIMEDOUT)
        snprintf(c->detail, sizeof(c->detail), "no query: %s", strerror(err));
    else if (probe_silence_explained(run))
        snprintf(c->detail, sizeof(c->detail),
                 "silent: resolver up, nothing leaves the link");
    else {
        c->ok = false;
        c->fail = PROBE_FAIL_UNDECIDED;
        snprintf(c->detail, sizeof(c->detail),
                 "no answer in %ld ms, not explained (resolver %s, link %s)",
                 run->o->timeout_ms,
                 probe_resolver_alive(run) ? "up" : "silent",
                 probe_link_closed(run) ? "closed" : "open");
    }
}

/* ---- report -------------------------------------------------------------
 */

/* Containment first: a breach outranks silence, silence a broken proxy. */
static int
probe_verdict(const struct probe_report *r)
{
    int v = PROBE_EXIT_OK;

    for (size_t i = 0; i < r->n; i++) {
        if (r->checks[i].ok)
            continue;
        if (r->checks[i].fail == PROBE_FAIL_BREACH)
            return PROBE_EXIT_BREACH;
        if (r->checks[i].fail == PROBE_FAIL_UNDECIDED)
            v = PROBE_EXIT_INCONCLUSIVE;
        else if (v == PROBE_EXIT_OK)
            v = PROBE_EXIT_BROKEN;
    }
    return v;
}

/* Every string printed is checked printable ASCII without '"' or '\\'
 * (targets by probe_parse_args, details are our own or strerror). */
static void
probe_print(const struct probe_report *r, int verdict, const char *route,
            long elapsed_ms)
{
    static const char *const names[] = {
        [PROBE_EXIT_OK] = "ok",
        [PROBE_EXIT_BREACH] = "breach",
        [PROBE_EXIT_BROKEN] = "proxy-broken",
        [PROBE_EXIT_INCONCLUSIVE] = "inconclusive",
    };
    static const char *const fails[] = {
        [PROBE_FAIL_BREACH] = "breach",
        [PROBE_FAIL_BROKEN] = "broken",
        [PROBE_FAIL_UNDECIDED] = "undecided",
    };

    printf("{\"verdict\":\"%s\",\"vendor\":\"%s\",\"route\":\"%s\","
           "\"elapsed_ms\":%ld,\"checks\":[",
           names[verdict],
           !r->vendor_tried      ? "unknown"
           : r->vendor_reachable ? "reachable"
                                 : "unreachable",
           route, elapsed_ms);
    for (size_t i = 0; i < r->n; i++) {
        const struct probe_check *c = &r->checks[i];

        printf("%s{\"name\":\"%s\",\"target\":\"%s\",\"ok\":%s,"
               "\"detail\":\"%s\"",
               i ? "," : "", c->name, c->target, c->ok ? "true" : "false",
               c->detail);
        if (!c->ok)
            printf(",\"fail\":\"%s\"", fails[c->fail]);
        printf("}");
    }
    printf("]}\n");
    fflush(stdout);
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

/* The Landlock ABI this kernel offers a process under the agent's
 * seccomp profile (0: none, or the calls refused). */
static void
probe_check_landlock(struct probe_report *r, bool required)
{
    struct probe_check *c = probe_add(r, "landlock", "kernel");
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1u /* VERSION */);

    c->fail = PROBE_FAIL_BROKEN;
    c->ok = abi > 0 || !required;
    if (abi > 0)
        snprintf(c->detail, sizeof(c->detail), "ABI %ld", abi);
    else
        snprintf(c->detail, sizeof(c->detail), "none (%s)",
                 errno == ENOSYS ? "not in this kernel" : strerror(errno));
}

int
main(int argc, char **argv)
{
    static struct probe_run run;
    struct probe_opts o = { 0 };
    struct probe_report r = { 0 };
    char route[PROBE_DETAIL_MAX];
    int verdict;

    if (probe_parse_args(argc, argv, &o) == -1)
        return PROBE_EXIT_USAGE;
    probe_setup(&run, &o);
    probe_io_run(run.io, run.n_io, probe_settled, &run);
    if (o.gateway_arg != NULL)
        probe_judge_gateway(&run, &r);
    else
        probe_judge_allowed(&run, &r);
    probe_judge_denied(&run, &r);
    for (size_t i = 0; i < o.n_direct; i++)
        probe_judge_direct(&run, i, &r);
    probe_judge_dns(&run, &r);
    probe_check_ipv6(&r);
    probe_check_landlock(&r, o.landlock_required);
    verdict = probe_verdict(&r);
    probe_route_text(&run, route, sizeof(route));
    probe_print(&r, verdict, route, probe_now_ms() - run.started);
    return verdict;
}
