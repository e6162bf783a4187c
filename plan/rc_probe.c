/* rc_probe.c - the boundary probe's create body (a copy of the agent's
 * hardening with the probe's image, argv, address and limits) and the
 * reading of its one JSON line into a verdict and a condition message.
 * Pure: no Docker, no I/O. */
#include "rc_probe.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RC_PROBE_MAX_ARGV (9 + 2 * RC_PROBE_MAX_DIRECT)

enum rc_probe_exit {
    RC_PROBE_EXIT_OK = 0,
    RC_PROBE_EXIT_BREACH = 2,
    RC_PROBE_EXIT_BROKEN = 3,
    RC_PROBE_EXIT_USAGE = 4,
    RC_PROBE_EXIT_INCONCLUSIVE = 5,
};

/* ---- names and addresses ------------------------------------------------
 */

/* prefix + suffix into out; -1 when it does not fit. */
static int
rc_probe_named(const char *prefix, const char *suffix, char out[RC_NAME_MAX])
{
    int n = snprintf(out, RC_NAME_MAX, "%s%s", prefix, suffix);

    return n < 0 || n >= RC_NAME_MAX ? -1 : 0;
}

int
rc_probe_name(const char *prefix, char out[RC_NAME_MAX])
{
    return rc_probe_named(prefix, RC_PROBE_SUFFIX, out);
}

int
rc_probe_canary_name(const char *prefix, char out[RC_NAME_MAX])
{
    return rc_probe_named(prefix, RC_PROBE_CANARY_SUFFIX, out);
}

int
rc_probe_ip(const struct rc_desired *d, char ip[RC_IP_MAX])
{
    return rc_subnet_host(d, RC_PROBE_HOST_OCTET, ip);
}

const char *
rc_probe_verdict_name(enum rc_probe_verdict v)
{
    switch (v) {
    case RC_PROBE_OK:
        return "ok";
    case RC_PROBE_BREACH:
        return "breach";
    case RC_PROBE_PROXY_BROKEN:
        return "proxy-broken";
    case RC_PROBE_INCONCLUSIVE:
        return "inconclusive";
    }
    return "?";
}

const char *
rc_probe_mode_name(enum rc_probe_mode m)
{
    return m == RC_PROBE_MODE_GATEWAY ? "gateway" : "CONNECT";
}

/* ---- create body --------------------------------------------------------
 */

/* Goes into argv and labels as is: non-empty, no space or control
 * character (the probe would refuse it as bad usage anyway). */
static bool
rc_probe_word_ok(const char *s)
{
    if (s == NULL || *s == '\0' || strlen(s) > 255)
        return false;
    for (; *s != '\0'; s++)
        if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
            return false;
    return true;
}

/* Set key to item, replacing any value; item is given to o. */
static bool
rc_probe_set(cJSON *o, const char *key, cJSON *item)
{
    if (o == NULL || item == NULL) {
        cJSON_Delete(item);
        return false;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    return cJSON_AddItemToObject(o, key, item);
}

/* A copy of the agent's field key into c; false when absent or no memory. */
static bool
rc_probe_copy(cJSON *c, const cJSON *agent, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(agent, key);

    return v != NULL && rc_probe_set(c, key, cJSON_Duplicate(v, true));
}

/* "a.b.c.d:port", as the probe's --gateway takes it (no names: the probe
 * never resolves one itself). */
static bool
rc_probe_ipport_ok(const char *s)
{
    const char *colon = strrchr(s, ':');
    char ip[RC_IP_MAX], *end;
    struct in_addr a;
    long port;

    if (colon == NULL || (size_t)(colon - s) >= sizeof(ip) || colon[1] < '0' ||
        colon[1] > '9')
        return false;
    memcpy(ip, s, (size_t)(colon - s));
    ip[colon - s] = '\0';
    port = strtol(colon + 1, &end, 10);
    return inet_pton(AF_INET, ip, &a) == 1 && *end == '\0' && port >= 1 &&
           port <= 65535;
}

/* The agent runs a vendor CLI under agent-launch, which refuses to start
 * it without Landlock unless the config says landlock: optional: the probe
 * finds that out before the agent starts (docs/phase-policy.md). */
static bool
rc_probe_landlock_required(const struct rc_desired *d, const struct cfg *cfg)
{
    return rc_adapter_launched(d->adapter) && !cfg->landlock_optional;
}

/* allowed (CONNECT mode) or gateway (gateway mode) is NULL. */
static bool
rc_probe_entrypoint(cJSON *c, const struct rc_desired *d, const struct cfg *cfg,
                    const char *allowed, const char *gateway,
                    const char *denied, const char *const *direct, size_t n)
{
    const char *argv[RC_PROBE_MAX_ARGV];
    char proxy[RC_IP_MAX + 8];
    size_t k = 0;

    snprintf(proxy, sizeof(proxy), "%s:%u", d->proxy_ip,
             (unsigned)cfg->proxy_port);
    argv[k++] = "/probe";
    argv[k++] = "--proxy";
    argv[k++] = proxy;
    argv[k++] = allowed != NULL ? "--allowed" : "--gateway";
    argv[k++] = allowed != NULL ? allowed : gateway;
    argv[k++] = "--denied";
    argv[k++] = denied;
    for (size_t i = 0; i < n; i++) {
        argv[k++] = "--direct";
        argv[k++] = direct[i];
    }
    if (rc_probe_landlock_required(d, cfg)) {
        argv[k++] = "--landlock";
        argv[k++] = "required";
    }
    return rc_probe_set(c, "Entrypoint", cJSON_CreateStringArray(argv, (int)k));
}

static bool
rc_probe_labels(cJSON *c, const cJSON *agent, const char *controller_id,
                const char *uid, const char *attempt)
{
    const cJSON *inv = rc_json_at(agent, "/Labels/agentctl.dev~1invocation");
    cJSON *l = cJSON_CreateObject();

    if (!rc_probe_set(c, "Labels", l) || !cJSON_IsString(inv))
        return false;
    return cJSON_AddStringToObject(l, RC_LABEL_MANAGED_BY, controller_id) &&
           cJSON_AddStringToObject(l, RC_LABEL_INVOCATION, inv->valuestring) &&
           cJSON_AddStringToObject(l, RC_LABEL_UID, uid) &&
           cJSON_AddStringToObject(l, RC_LABEL_ATTEMPT, attempt) &&
           cJSON_AddStringToObject(l, RC_LABEL_ROLE, RC_PROBE_ROLE);
}

/* The agent's sysctls (IPv6 off, rc_harden.c) plus the probe's own
 * neighbour timing, so an address no one holds answers in ~150 ms. */
static bool
add_arp_sysctl(cJSON *hc)
{
    cJSON *s = cJSON_GetObjectItemCaseSensitive(hc, "Sysctls");

    if (s == NULL)
        s = cJSON_AddObjectToObject(hc, "Sysctls");
    return s != NULL && cJSON_AddStringToObject(s, RC_PROBE_SYSCTL_ARP,
                                                RC_PROBE_ARP_RETRANS_MS);
}

/* The agent's HostConfig with no mounts at all, the probe's limits and its
 * quick give-up on addresses no one holds. */
static bool
rc_probe_host_config(cJSON *c, const cJSON *agent)
{
    cJSON *hc, *lc;

    if (!rc_probe_copy(c, agent, "HostConfig"))
        return false;
    hc = cJSON_GetObjectItemCaseSensitive(c, "HostConfig");
    cJSON_DeleteItemFromObjectCaseSensitive(hc, "Binds");
    cJSON_DeleteItemFromObjectCaseSensitive(hc, "Tmpfs");
    cJSON_DeleteItemFromObjectCaseSensitive(hc, "VolumesFrom");
    if (!(rc_probe_set(hc, "Mounts", cJSON_CreateArray()) &&
          rc_probe_set(hc, "Memory", cJSON_CreateNumber(RC_PROBE_MEMORY)) &&
          rc_probe_set(hc, "MemorySwap", cJSON_CreateNumber(RC_PROBE_MEMORY)) &&
          rc_probe_set(hc, "PidsLimit", cJSON_CreateNumber(RC_PROBE_PIDS)) &&
          rc_probe_set(hc, "NanoCpus", cJSON_CreateNumber(RC_PROBE_NANOCPUS)) &&
          add_arp_sysctl(hc)))
        return false;
    /* Its one line is read at once: keep almost nothing on disk. */
    lc = cJSON_CreateObject();
    return rc_probe_set(hc, "LogConfig", lc) &&
           cJSON_AddStringToObject(lc, "Type", "local") &&
           (lc = cJSON_AddObjectToObject(lc, "Config")) != NULL &&
           cJSON_AddStringToObject(lc, "max-size", "1m") &&
           cJSON_AddStringToObject(lc, "max-file", "1") &&
           cJSON_AddStringToObject(lc, "compress", "false");
}

/* One endpoint: the internal network at the probe's address. */
static bool
rc_probe_endpoint(cJSON *c, const struct rc_desired *d)
{
    const struct rc_object *net = rc_desired_object(d, RC_ROLE_NETWORK);
    char ip[RC_IP_MAX];
    cJSON *nc = cJSON_CreateObject(), *ec, *ep, *ipam;

    if (!rc_probe_set(c, "NetworkingConfig", nc) || net == NULL ||
        rc_probe_ip(d, ip) == -1)
        return false;
    ec = cJSON_AddObjectToObject(nc, "EndpointsConfig");
    ep = ec ? cJSON_AddObjectToObject(ec, net->name) : NULL;
    ipam = ep ? cJSON_AddObjectToObject(ep, "IPAMConfig") : NULL;
    return ipam != NULL && cJSON_AddStringToObject(ipam, "IPv4Address", ip) &&
           rc_probe_set(cJSON_GetObjectItemCaseSensitive(c, "HostConfig"),
                        "NetworkMode", cJSON_CreateString(net->name));
}

/* Exactly one mode: a vendor host to admit, or a gateway address. */
static bool
rc_probe_mode_ok(const char *allowed, const char *gateway)
{
    if (gateway != NULL)
        return allowed == NULL && rc_probe_word_ok(gateway) &&
               rc_probe_ipport_ok(gateway);
    return rc_probe_word_ok(allowed);
}

static bool
rc_probe_inputs_ok(const char *probe_image, const char *allowed,
                   const char *gateway, const char *denied,
                   const char *const *direct, size_t n,
                   const char *controller_id, const char *uid,
                   const char *attempt)
{
    if (n > RC_PROBE_MAX_DIRECT || (n > 0 && direct == NULL) ||
        !rc_probe_word_ok(probe_image) || !rc_probe_mode_ok(allowed, gateway) ||
        !rc_probe_word_ok(denied) || !rc_probe_word_ok(controller_id) ||
        !rc_probe_word_ok(uid) || !rc_probe_word_ok(attempt))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!rc_probe_word_ok(direct[i]))
            return false;
    return true;
}

cJSON *
rc_probe_body(const struct rc_desired *d, const struct cfg *cfg,
              const char *probe_image, const char *vendor_allowed,
              const char *gateway, const char *denied,
              const char *const *direct, size_t n_direct,
              const char *controller_id, const char *uid, const char *attempt)
{
    static const char *const same[] = { "User",      "Tty",
                                        "OpenStdin", "AttachStdin",
                                        "StdinOnce", "StopTimeout" };
    const struct rc_object *agent = rc_desired_object(d, RC_ROLE_AGENT);
    cJSON *c;
    bool ok;

    if (agent == NULL || agent->body == NULL ||
        !rc_probe_inputs_ok(probe_image, vendor_allowed, gateway, denied,
                            direct, n_direct, controller_id, uid, attempt))
        return NULL;
    c = cJSON_CreateObject();
    ok = c != NULL && cJSON_AddStringToObject(c, "Image", probe_image) &&
         rc_probe_entrypoint(c, d, cfg, vendor_allowed, gateway, denied, direct,
                             n_direct) &&
         /* No Env: no proxy variable, and never the credential. */
         rc_probe_set(c, "Env", cJSON_CreateArray()) &&
         cJSON_AddStringToObject(c, "WorkingDir", "/") &&
         rc_probe_labels(c, agent->body, controller_id, uid, attempt);
    for (size_t i = 0; ok && i < sizeof(same) / sizeof(same[0]); i++)
        ok = rc_probe_copy(c, agent->body, same[i]);
    ok = ok && rc_probe_host_config(c, agent->body) && rc_probe_endpoint(c, d);
    if (!ok) {
        cJSON_Delete(c);
        return NULL;
    }
    return c;
}

int
rc_probe_join(cJSON *body, const char *agent_id)
{
    static const char *const config_drop[] = { "Hostname", "Domainname",
                                               "MacAddress", "ExposedPorts",
                                               "NetworkingConfig" };
    static const char *const host_drop[] = { "Dns",          "DnsOptions",
                                             "DnsSearch",    "ExtraHosts",
                                             "PortBindings", "PublishAllPorts",
                                             "Sysctls" };
    cJSON *hc = cJSON_GetObjectItemCaseSensitive(body, "HostConfig");
    char mode[80];

    if (hc == NULL || !rc_probe_word_ok(agent_id) || strlen(agent_id) > 64 ||
        strspn(agent_id, "0123456789abcdef") != strlen(agent_id))
        return -1;
    for (size_t i = 0; i < sizeof(config_drop) / sizeof(config_drop[0]); i++)
        cJSON_DeleteItemFromObjectCaseSensitive(body, config_drop[i]);
    for (size_t i = 0; i < sizeof(host_drop) / sizeof(host_drop[0]); i++)
        cJSON_DeleteItemFromObjectCaseSensitive(hc, host_drop[i]);
    snprintf(mode, sizeof(mode), "container:%s", agent_id);
    return rc_probe_set(hc, "NetworkMode", cJSON_CreateString(mode)) ? 0 : -1;
}

/* ---- reading the output -------------------------------------------------
 */

/* Copy s into out as printable ASCII (others become '?'), at most max
 * bytes of s: the probe's text goes into a condition message. */
static void
rc_probe_clean(char *out, size_t size, const char *s, size_t max)
{
    size_t n = 0;

    for (; *s != '\0' && n < max && n + 1 < size; s++)
        out[n++] = (*s >= ' ' && *s <= '~') ? *s : '?';
    out[n] = '\0';
}

/* The gateway check's sentence, by what its failure means (the probe
 * prints "fail" on every failed check; the gateway check is newer than
 * that). */
static void
rc_probe_gateway_text(const char *target, const char *detail, const char *fail,
                      char *out, size_t size)
{
    if (strcmp(fail, "breach") == 0)
        snprintf(out, size,
                 "%s does not enforce the gateway's rules: a request outside "
                 "them got %s",
                 target, detail);
    else if (strcmp(fail, "undecided") == 0)
        snprintf(out, size,
                 "the gateway at %s did not answer, so its rules cannot be "
                 "told enforced (%s)",
                 target, detail);
    else
        snprintf(out, size,
                 "the gateway at %s does not serve, the agent could not "
                 "reach the vendor (%s)",
                 target, detail);
}

/* The sentence for a failed check, into out (never NULL for names the
 * probe prints; unknown names get a generic one). An undecided check
 * (no answer the network facts explain) is worded as such. */
static void
rc_probe_check_text(const cJSON *chk, char *out, size_t size)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(chk, "name");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(chk, "target");
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(chk, "detail");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(chk, "fail");
    bool undecided =
        cJSON_IsString(f) && strcmp(f->valuestring, "undecided") == 0;
    char name[32], target[80], detail[80];

    rc_probe_clean(name, sizeof(name), n->valuestring, 24);
    rc_probe_clean(target, sizeof(target), t->valuestring, 72);
    rc_probe_clean(detail, sizeof(detail), dt->valuestring, 72);
    if (strcmp(name, "allowed") == 0)
        snprintf(out, size, "proxy refused the vendor %s (%s)", target, detail);
    else if (strcmp(name, "gateway") == 0)
        rc_probe_gateway_text(
            target, detail, cJSON_IsString(f) ? f->valuestring : "", out, size);
    else if (strcmp(name, "denied") == 0)
        snprintf(out, size,
                 "proxy did not refuse %s, a host off the allowlist (%s)",
                 target, detail);
    else if (strcmp(name, "direct") == 0 && undecided)
        snprintf(out, size,
                 "direct connection to %s got no answer, so it cannot be "
                 "told blocked (%s)",
                 target, detail);
    else if (strcmp(name, "direct") == 0)
        snprintf(out, size,
                 "direct connection to %s succeeded past the proxy (%s)",
                 target, detail);
    else if (strcmp(name, "dns") == 0 && undecided)
        snprintf(out, size,
                 "the resolver did not answer %s and nothing shows it "
                 "cannot reach outside (%s)",
                 target, detail);
    else if (strcmp(name, "dns") == 0)
        snprintf(out, size,
                 "outside name resolution works: the resolver answered %s "
                 "(%s)",
                 target, detail);
    else if (strcmp(name, "ipv6") == 0)
        snprintf(out, size,
                 "an IPv6 address is up in the box (%s): a path the proxy "
                 "does not see",
                 detail);
    else if (strcmp(name, "landlock") == 0)
        snprintf(out, size,
                 "the kernel offers no Landlock (%s), which the agent's "
                 "launcher needs (config landlock: optional runs without)",
                 detail);
    else
        snprintf(out, size, "check %s on %s failed (%s)", name, target, detail);
}

/* The "fail" a check of this verdict carries (the probe prints it on
 * every failed check; older probes do not). */
static const char *
rc_probe_fail_of(enum rc_probe_verdict v)
{
    switch (v) {
    case RC_PROBE_BREACH:
        return "breach";
    case RC_PROBE_INCONCLUSIVE:
        return "undecided";
    default:
        return "broken";
    }
}

/* Whether failed check c may be the one the finding names: with a
 * "fail" field, the one matching the verdict; without, for a breach or
 * an inconclusive run any check but "allowed" (containment first),
 * otherwise any. */
static bool
rc_probe_names(const cJSON *c, enum rc_probe_verdict v)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "fail");

    if (cJSON_IsString(f))
        return strcmp(f->valuestring, rc_probe_fail_of(v)) == 0;
    return (v != RC_PROBE_BREACH && v != RC_PROBE_INCONCLUSIVE) ||
           strcmp(n->valuestring, "allowed") != 0;
}

#define RC_PROBE_MUST 4 /* checks every line carries */

/* The checks a line of this mode must carry: [0] is the one that shows
 * the agent's way to the vendor (allowed or gateway). The other mode's
 * is refused: a probe run in the wrong mode checked another boundary. */
static const char *const *
rc_probe_must(enum rc_probe_mode mode, const char **foreign)
{
    /* (not landlock: a probe image an older version pinned has none, and
     * a line without it is only wrong where --landlock required asked,
     * which an older probe refuses as an unknown flag) */
    static const char *const connect[] = { "allowed", "denied", "dns", "ipv6" };
    static const char *const gateway[] = { "gateway", "denied", "dns", "ipv6" };

    *foreign = mode == RC_PROBE_MODE_GATEWAY ? connect[0] : gateway[0];
    return mode == RC_PROBE_MODE_GATEWAY ? gateway : connect;
}

/* Check the shape of every check; count the failed ones and find the one
 * the finding names (rc_probe_names). */
static int
rc_probe_checks(const cJSON *checks, enum rc_probe_mode mode,
                enum rc_probe_verdict v, const cJSON **named, int *n_failed,
                struct err *e)
{
    const char *foreign;
    const char *const *must = rc_probe_must(mode, &foreign);
    bool seen[RC_PROBE_MUST] = { false };
    const cJSON *c;

    *named = NULL;
    *n_failed = 0;
    cJSON_ArrayForEach(c, checks)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
        const cJSON *ok = cJSON_GetObjectItemCaseSensitive(c, "ok");
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "fail");

        if (!cJSON_IsString(n) || !cJSON_IsBool(ok) ||
            !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(c, "target")) ||
            !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(c, "detail")) ||
            (f != NULL && !cJSON_IsString(f)))
            return err_set(e, ERR_SYNTAX,
                           "probe output: a check lacks name, target, ok or "
                           "detail");
        if (strcmp(n->valuestring, foreign) == 0)
            return err_set(e, ERR_INVALID, "probe output: %s check in %s mode",
                           foreign, rc_probe_mode_name(mode));
        for (size_t i = 0; i < RC_PROBE_MUST; i++)
            seen[i] = seen[i] || strcmp(n->valuestring, must[i]) == 0;
        if (cJSON_IsTrue(ok))
            continue;
        (*n_failed)++;
        if (*named == NULL && rc_probe_names(c, v))
            *named = c;
    }
    for (size_t i = 0; i < RC_PROBE_MUST; i++)
        if (!seen[i])
            return err_set(e, ERR_INVALID, "probe output: no %s check",
                           must[i]);
    return 0;
}

/* The one line of output as parsed JSON, or NULL with e set. */
static cJSON *
rc_probe_line(const char *output, size_t len, long exit_code, struct err *e)
{
    const char *end = output + len, *parse_end = NULL;
    cJSON *root;

    if (len > RC_PROBE_MAX_OUTPUT) {
        err_set(e, ERR_LIMIT, "probe output is %zu bytes, more than %d", len,
                RC_PROBE_MAX_OUTPUT);
        return NULL;
    }
    while (output < end && strchr(" \t\r\n", *output) != NULL && *output)
        output++;
    while (end > output && strchr(" \t\r\n", end[-1]) != NULL && end[-1])
        end--;
    if (output == end) {
        err_set(e, ERR_SYNTAX, "probe printed nothing (exit code %ld)",
                exit_code);
        return NULL;
    }
    if (memchr(output, '\n', (size_t)(end - output)) != NULL ||
        memchr(output, '\0', (size_t)(end - output)) != NULL) {
        err_set(e, ERR_SYNTAX, "probe printed more than one line");
        return NULL;
    }
    root = cJSON_ParseWithLengthOpts(output, (size_t)(end - output), &parse_end,
                                     false);
    if (root == NULL || parse_end != end || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        err_set(e, ERR_SYNTAX,
                "probe output is not a JSON object line (exit code %ld)",
                exit_code);
        return NULL;
    }
    return root;
}

/* The vendor string: reachable or unreachable in CONNECT mode; in
 * gateway mode the probe never tries the vendor and says "unknown",
 * which is not "down" (vendor_reachable stays true). -1 when the string
 * does not belong to the mode. */
static int
rc_probe_vendor(const char *s, enum rc_probe_mode mode, bool *reachable)
{
    if (mode == RC_PROBE_MODE_GATEWAY) {
        *reachable = true;
        return strcmp(s, "unknown") == 0 ? 0 : -1;
    }
    *reachable = strcmp(s, "reachable") == 0;
    return *reachable || strcmp(s, "unreachable") == 0 ? 0 : -1;
}

/* Verdict and vendor strings, and the exit code they imply. */
static int
rc_probe_head(const cJSON *root, long exit_code, enum rc_probe_mode mode,
              enum rc_probe_verdict *v, bool *reachable, struct err *e)
{
    static const long codes[] = { [RC_PROBE_OK] = RC_PROBE_EXIT_OK,
                                  [RC_PROBE_BREACH] = RC_PROBE_EXIT_BREACH,
                                  [RC_PROBE_PROXY_BROKEN] =
                                      RC_PROBE_EXIT_BROKEN,
                                  [RC_PROBE_INCONCLUSIVE] =
                                      RC_PROBE_EXIT_INCONCLUSIVE };
    const cJSON *vs = cJSON_GetObjectItemCaseSensitive(root, "verdict");
    const cJSON *ven = cJSON_GetObjectItemCaseSensitive(root, "vendor");
    int i;

    if (!cJSON_IsString(vs) || !cJSON_IsString(ven))
        return err_set(e, ERR_SYNTAX, "probe output lacks verdict or vendor");
    for (i = RC_PROBE_OK; i <= RC_PROBE_INCONCLUSIVE; i++)
        if (strcmp(vs->valuestring,
                   rc_probe_verdict_name((enum rc_probe_verdict)i)) == 0)
            break;
    if (i > RC_PROBE_INCONCLUSIVE)
        return err_set(e, ERR_INVALID, "probe output: unknown verdict");
    if (rc_probe_vendor(ven->valuestring, mode, reachable) == -1)
        return err_set(e, ERR_INVALID,
                       "probe output: unknown vendor status for %s mode",
                       rc_probe_mode_name(mode));
    if (exit_code != codes[i])
        return err_set(e, ERR_INVALID,
                       "probe said %s but exited with code %ld (expected "
                       "%ld)",
                       rc_probe_verdict_name((enum rc_probe_verdict)i),
                       exit_code, codes[i]);
    *v = (enum rc_probe_verdict)i;
    return 0;
}

/* "; Landlock <its detail>" of the landlock check, cleaned for a message,
 * into out; "" for a line without one (an older probe image). */
static const char *
rc_probe_landlock_note(const cJSON *checks, char *out, size_t size)
{
    const cJSON *c;
    char detail[64];

    out[0] = '\0';
    cJSON_ArrayForEach(c, checks)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(c, "detail");

        if (strcmp(n->valuestring, "landlock") != 0)
            continue;
        rc_probe_clean(detail, sizeof(detail), d->valuestring,
                       sizeof(detail) - 1);
        snprintf(out, size, "; Landlock %s", detail);
    }
    return out;
}

static int
rc_probe_read(const cJSON *root, long exit_code, enum rc_probe_mode mode,
              struct rc_probe_result *r, struct err *e)
{
    const cJSON *checks = cJSON_GetObjectItemCaseSensitive(root, "checks");
    const cJSON *named;
    char text[RC_PROBE_FINDING_MAX - 16];
    int n_failed;

    if (rc_probe_head(root, exit_code, mode, &r->verdict, &r->vendor_reachable,
                      e) == -1)
        return -1;
    if (!cJSON_IsArray(checks))
        return err_set(e, ERR_SYNTAX, "probe output lacks checks");
    if (rc_probe_checks(checks, mode, r->verdict, &named, &n_failed, e) == -1)
        return -1;
    /* The verdict must agree with the checks: never trust an "ok" that
     * carries a failure, nor a failure with nothing to name. */
    if ((r->verdict == RC_PROBE_OK) != (n_failed == 0) ||
        (r->verdict != RC_PROBE_OK && named == NULL))
        return err_set(e, ERR_INVALID, "probe said %s with %d failed checks",
                       rc_probe_verdict_name(r->verdict), n_failed);
    if (named == NULL && mode == RC_PROBE_MODE_GATEWAY) {
        snprintf(r->finding, sizeof(r->finding),
                 "ok: boundary verified, the gateway refuses what its rules "
                 "do not hold (vendor not tried)%s",
                 rc_probe_landlock_note(checks, text, sizeof(text)));
        return 0;
    }
    if (named == NULL) {
        snprintf(r->finding, sizeof(r->finding),
                 "ok: boundary verified, vendor %s%s",
                 r->vendor_reachable ? "reachable" : "unreachable",
                 rc_probe_landlock_note(checks, text, sizeof(text)));
        return 0;
    }
    rc_probe_check_text(named, text, sizeof(text));
    rc_probe_clean(r->check, sizeof(r->check),
                   cJSON_GetObjectItemCaseSensitive(named, "name")->valuestring,
                   sizeof(r->check) - 1);
    snprintf(r->finding, sizeof(r->finding), "%s: %s",
             rc_probe_verdict_name(r->verdict), text);
    return 0;
}

int
rc_probe_parse(const char *output, size_t len, long exit_code,
               enum rc_probe_mode mode, struct rc_probe_result *out,
               struct err *e)
{
    struct rc_probe_result r = { 0 };
    cJSON *root;
    int rc;

    if (exit_code == RC_PROBE_EXIT_USAGE)
        return err_set(e, ERR_INVALID,
                       "probe refused its arguments (exit code 4)");
    root = rc_probe_line(output, len, exit_code, e);
    if (root == NULL)
        return -1;
    rc = rc_probe_read(root, exit_code, mode, &r, e);
    cJSON_Delete(root);
    if (rc == 0)
        *out = r;
    return rc;
}
