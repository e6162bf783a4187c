/* rc_probe.h - the boundary probe of one attempt (docs/design.md "What one
 * invocation becomes", step 5), pure: the create body of the short-lived
 * probe container and the reading of what it printed. No Docker, no I/O.
 *
 * The probe (images/probe.c, image agentctl/probe) runs on the
 * invocation's internal network with exactly the agent's hardening, after
 * the proxy is up and before the agent starts. It CONNECTs to the vendor
 * and to a name off the allowlist through the proxy, tries direct TCP
 * connects that must fail, and asks the container's resolver for the
 * vendor's name, which must not answer. In gateway mode (the vendor
 * profile's credentialMode: gateway, docs/gateway.md) the proxy admits
 * nothing: the "allowed" check gives way to "gateway" (a request outside
 * the gateway's rules must get its 403 with Proxy-Status) and the
 * vendor's host is the one a CONNECT must be refused. It prints one JSON
 * line:
 *   {"verdict":"ok|breach|proxy-broken",
 *    "vendor":"reachable|unreachable" (gateway mode: "unknown"),
 *    "checks":[{"name":"allowed","target":"vendor.test:443","ok":true,
 *               "detail":"200"},...]}
 * and exits 0 (ok), 2 (breach), 3 (proxy-broken), 4 (bad usage) or 5
 * (inconclusive: a check got no definite answer and the network facts do
 * not explain the silence). A failed check may carry "fail":
 * "breach|broken|undecided"; "route" and "elapsed_ms" are informative.
 *
 * Object: agentctl-<name>-<uid8>-probe, role label "probe", address .4 of
 * the invocation's /24 (gateway .1, proxy .2, agent .3). While it runs it
 * is a third endpoint on the internal network; once it has exited it has
 * none, and the controller removes it (by ID) right after the agent's
 * start, off the path to it.
 */
#ifndef RC_PROBE_H
#define RC_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "cfg.h"
#include "err.h"
#include "rc_desired.h"

#define RC_PROBE_ROLE        "probe"       /* value of the role label */
#define RC_PROBE_SUFFIX      "-probe"      /* after the invocation's prefix */
#define RC_PROBE_CANARY_SUFFIX "-canary"   /* the probe while the agent runs */
#define RC_PROBE_HOST_OCTET  4             /* probe at .4 of the /24 */
#define RC_PROBE_MEMORY      (16ull << 20) /* Docker's floor is 6 MB */
#define RC_PROBE_PIDS        16
#define RC_PROBE_NANOCPUS    250000000 /* a quarter of a CPU */
#define RC_PROBE_MAX_DIRECT  16        /* --direct addresses the probe takes */
#define RC_PROBE_MAX_OUTPUT  8192      /* more than this is not a probe line */
#define RC_PROBE_FINDING_MAX 256
/* The probe's own neighbour retransmit interval (Docker applies namespaced
 * net.* sysctls after the interface is in place; the probe has one
 * endpoint, eth0): an address no one holds answers EHOSTUNREACH after
 * mcast_solicit (3) x 50 ms instead of 3 x 1 s. A holder on the bridge
 * answers ARP in well under a millisecond, so this only shortens the wait
 * for "no one", never turns an answer into silence. */
#define RC_PROBE_SYSCTL_ARP     "net.ipv4.neigh.eth0.retrans_time_ms"
#define RC_PROBE_ARP_RETRANS_MS "50"
/* A name no allowlist holds and no resolver answers (RFC 6761 .invalid). */
#define RC_PROBE_DENIED_DEFAULT "agentctl-probe-denied.invalid:443"

/* How the agent reaches its vendor, so what the probe checks. */
enum rc_probe_mode {
    RC_PROBE_MODE_CONNECT, /* CONNECT through the proxy, which admits it */
    RC_PROBE_MODE_GATEWAY, /* only through the credential gateway */
};

enum rc_probe_verdict {
    RC_PROBE_OK,           /* boundary verified: the agent may start */
    RC_PROBE_BREACH,       /* containment broken: fail the attempt closed */
    RC_PROBE_PROXY_BROKEN, /* the proxy (or the gateway) would not let the
                            * agent work; the name stays for the
                            * controller's reasons and the probe's line */
    RC_PROBE_INCONCLUSIVE, /* silence the probe could not explain */
};

struct rc_probe_result {
    enum rc_probe_verdict verdict;
    /* false only when the probe saw the vendor down (502/504 through the
     * proxy). Gateway mode never tries the vendor ("unknown"): true, so
     * the controller does not report a vendor outage nobody saw. */
    bool vendor_reachable;
    /* One line for a status condition message, printable ASCII, e.g.
     * "breach: direct connection to 10.213.0.1:443 succeeded past the
     * proxy" or "ok: boundary verified, vendor reachable". */
    char finding[RC_PROBE_FINDING_MAX];
    /* The failed check the finding names ("direct", "dns", "gateway",
     * ...), "" when the verdict is ok: the canary's drift rule is
     * "probe.<check>". */
    char check[16];
};

/* The POST /containers/create?name=<rc_probe_name()> body of the probe:
 * Image probe_image; Entrypoint ["/probe", "--proxy", <proxy ip:port>,
 * "--allowed", vendor_allowed, "--denied", denied, "--direct", x...], in
 * gateway mode ["/probe", "--proxy", <proxy ip:port>, "--gateway",
 * gateway, "--denied", denied, "--direct", x...];
 * Config fields (User, Tty, stdin, StopTimeout) and the whole HostConfig
 * copied from d's agent body, then with no mounts at all (Mounts []),
 * the RC_PROBE_* memory/pids/cpu limits, small logs and Sysctls
 * {RC_PROBE_SYSCTL_ARP: RC_PROBE_ARP_RETRANS_MS}; NetworkMode and the
 * only endpoint = the internal network at .4 (rc_probe_ip()); no Env; the
 * five labels with role "probe" (invocation taken from the agent body).
 *   vendor_allowed  CONNECT mode: the vendor's first host, "host:port";
 *                   NULL in gateway mode
 *   gateway         gateway mode: the credential gateway's "IPv4:PORT"
 *                   on the internal network; NULL in CONNECT mode
 *   denied          a host off the allowlist (RC_PROBE_DENIED_DEFAULT); in
 *                   gateway mode the vendor's first host, which the proxy
 *                   must then refuse (the probe's DNS check asks for it)
 *   direct          IPv4:PORT addresses a plain connect must not reach
 *                   (gateway .1 ports, the proxy's and the vendor's
 *                   egress-side addresses), at most RC_PROBE_MAX_DIRECT
 * Strings are copied. Caller deletes the result. NULL when d has no agent
 * body, an argument (but one of vendor_allowed and gateway) is NULL, empty
 * or holds a space or control character, both or neither of
 * vendor_allowed and gateway are given, gateway is not IPv4:PORT,
 * n_direct is too large, or out of memory. */
cJSON *rc_probe_body(const struct rc_desired *d, const struct cfg *cfg,
                     const char *probe_image, const char *vendor_allowed,
                     const char *gateway, const char *denied,
                     const char *const *direct, size_t n_direct,
                     const char *controller_id, const char *uid,
                     const char *attempt);

/* Turn a probe body into the canary's (docs/design.md "The boundary
 * canary"): the same probe with the same hardening, run while the agent
 * runs inside the agent's own network namespace, so it sees exactly the
 * interfaces, routes and resolver the agent has. NetworkMode becomes
 * "container:<agent_id>"; what Docker refuses beside a joined namespace
 * goes (NetworkingConfig, Dns*, ExtraHosts, PortBindings, PublishAllPorts,
 * Hostname, Domainname, MacAddress, ExposedPorts), and so do the Sysctls:
 * the namespace and its settings are the agent's, checked on the agent.
 * -1 when agent_id is not a container ID or out of memory. */
int rc_probe_join(cJSON *body, const char *agent_id);

/* "<prefix>-canary" into out. -1 when it does not fit. */
int rc_probe_canary_name(const char *prefix, char out[RC_NAME_MAX]);

/* The probe's address: .RC_PROBE_HOST_OCTET of d's subnet. -1 when the
 * subnet is unusable. */
int rc_probe_ip(const struct rc_desired *d, char ip[RC_IP_MAX]);

/* "<prefix>-probe" into out. -1 when it does not fit. */
int rc_probe_name(const char *prefix, char out[RC_NAME_MAX]);

/* Read the probe's stdout (output, len bytes; not NUL-terminated) and its
 * exit code, for a probe run in mode (the mode its body was built for).
 * On success fills out and returns 0: the verdict, the vendor status and
 * a one-line finding. Returns -1 with e set (ERR_SYNTAX, ERR_INVALID or
 * ERR_LIMIT, message ready for a condition) when the output is not
 * exactly one well-formed probe line, the exit code is not the one the
 * verdict implies, a check of the mode (allowed or gateway, denied, dns,
 * ipv6) is missing, the other mode's check or vendor status is there, or
 * an "ok" verdict carries a failed check: the caller fails closed, out is
 * untouched. */
int rc_probe_parse(const char *output, size_t len, long exit_code,
                   enum rc_probe_mode mode, struct rc_probe_result *out,
                   struct err *e);

/* "CONNECT", "gateway". */
const char *rc_probe_mode_name(enum rc_probe_mode m);

/* "ok", "breach", "proxy-broken", "inconclusive". */
const char *rc_probe_verdict_name(enum rc_probe_verdict v);

#endif
