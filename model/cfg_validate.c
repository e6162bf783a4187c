/* cfg_validate.c - the keys a config file may hold and the check of each
 * value: a table per mapping (top level, images, limits; a vendor profile
 * is cfg_vendor.c's, warmPool cfg_warm.c's), a walk that reports unknown keys
 * with a suggestion, the typed readers the handlers share, and one handler per
 * key that checks its node and stores it, every error with file:line:col.
 */
#include "cfg_int.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "spec_quantity.h"

#define CFG_PATH_MAX 4096
#define CFG_NAME_MAX 255 /* image references, network names */

/* ---- small checks ---------------------------------------------------- */

/* Docker's rule for network names: [a-zA-Z0-9][a-zA-Z0-9_.-]*. */
static bool
cfg_docker_name_ok(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9')))
        return false;
    for (; *s != '\0'; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' || *s == '-'))
            return false;
    return true;
}

/* Unsigned decimal without sign or leading zeros, at most max (and 19
 * digits, so the sum cannot overflow). */
static int
cfg_parse_u64(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;

    if (len == 0 || len > 19 || (len > 1 && s[0] == '0'))
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

static int
cfg_parse_u32(const char *s, size_t len, uint32_t max, uint32_t *out)
{
    uint64_t v;

    if (cfg_parse_u64(s, len, max, &v) == -1)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* "a.b.c.d/p", canonical dotted quad, host bits zero, prefix 8..24 (a
 * pool must hold at least one /24). */
static const char *
cfg_parse_pool(const char *s, uint32_t *addr, unsigned *prefix)
{
    const char *slash = strchr(s, '/');
    char ip[INET_ADDRSTRLEN];
    struct in_addr a;
    uint32_t p, host;

    if (slash == NULL || (size_t)(slash - s) >= sizeof(ip))
        return "expected an IPv4 CIDR such as 10.213.0.0/16";
    memcpy(ip, s, (size_t)(slash - s));
    ip[slash - s] = '\0';
    if (inet_pton(AF_INET, ip, &a) != 1 ||
        cfg_parse_u32(slash + 1, strlen(slash + 1), 32, &p) == -1)
        return "expected an IPv4 CIDR such as 10.213.0.0/16";
    if (p < 8 || p > 24)
        return "prefix must be /8../24 (each invocation takes a /24)";
    host = ntohl(a.s_addr);
    if ((host & ((1u << (32 - p)) - 1)) != 0)
        return "address has host bits set (give the network address)";
    *addr = host;
    *prefix = p;
    return NULL;
}

/* ---- typed value readers ---------------------------------------------- */

void
cfg__nomem(struct cfg_parse *p, const struct spec_node *at)
{
    if (!p->nomem)
        spec_errors_add(p->es, p->file, at, NULL, "out of memory");
    p->nomem = 1;
}

bool
cfg__is_string(struct cfg_parse *p, const struct spec_node *v,
               const char *field)
{
    if (v->kind == SPEC_NODE_SCALAR && v->type == SPEC_SCALAR_STRING &&
        v->len > 0)
        return true;
    if (v->kind == SPEC_NODE_SCALAR && v->type == SPEC_SCALAR_STRING)
        spec_errors_add(p->es, p->file, v, field, "must not be empty");
    else
        spec_errors_add(p->es, p->file, v, field, "expected a string, got %s",
                        spec_node_type_name(v));
    return false;
}

/* Replace *dst with a copy of v's text. */
void
cfg__set_str(struct cfg_parse *p, const struct spec_node *v, char **dst)
{
    char *s = strdup(v->value);

    if (s == NULL) {
        cfg__nomem(p, v);
        return;
    }
    free(*dst);
    *dst = s;
}

static int
cfg_get_u64(struct cfg_parse *p, const struct spec_node *v, const char *field,
            uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t x;

    /* -1 said here, not taken from spec_errors_add: the callers read *out
     * after a 0, and only a -1 this file shows lets the optimiser (gcc
     * -O3, -Wmaybe-uninitialized) see that a failure never leads there. */
    if (v->kind != SPEC_NODE_SCALAR || v->type != SPEC_SCALAR_INT) {
        spec_errors_add(p->es, p->file, v, field, "expected an integer, got %s",
                        spec_node_type_name(v));
        return -1;
    }
    if (cfg_parse_u64(v->value, v->len, hi, &x) == -1 || x < lo) {
        spec_errors_add(p->es, p->file, v, field,
                        "must be an integer from %llu to %llu, got %s",
                        (unsigned long long)lo, (unsigned long long)hi,
                        v->value);
        return -1;
    }
    *out = x;
    return 0;
}

static int
cfg_get_int(struct cfg_parse *p, const struct spec_node *v, const char *field,
            uint32_t lo, uint32_t hi, uint32_t *out)
{
    uint64_t x;

    if (cfg_get_u64(p, v, field, lo, hi, &x) == -1)
        return -1;
    *out = (uint32_t)x;
    return 0;
}

/* A quantity (8Gi, 1048576) of at least lo, as uint64_t at out. */
static void
cfg_quantity_min(struct cfg_parse *p, void *out, const struct spec_node *v,
                 const char *field, uint64_t lo)
{
    struct err qe = { 0 };
    uint64_t x;

    if (v->kind != SPEC_NODE_SCALAR ||
        (v->type != SPEC_SCALAR_INT && v->type != SPEC_SCALAR_STRING)) {
        spec_errors_add(p->es, p->file, v, field,
                        "expected a quantity such as 8Gi, got %s",
                        spec_node_type_name(v));
        return;
    }
    if (spec_quantity_parse(v->value, &x, &qe) == -1) {
        spec_errors_add(p->es, p->file, v, field, "%s", qe.msg);
        return;
    }
    if (x < lo) {
        spec_errors_add(p->es, p->file, v, field, "must be at least %llu",
                        (unsigned long long)lo);
        return;
    }
    *(uint64_t *)out = x;
}

static void
cfg_get_quantity(struct cfg_parse *p, void *out, const struct spec_node *v,
                 const char *field)
{
    cfg_quantity_min(p, out, v, field, 1);
}

/* CPUs as a spec writes them ("8", "1.5", "500m"), kept in thousandths;
 * an unquoted 1.5 is a YAML float and means the same. At least 10m: Docker
 * refuses a NanoCpus under 0.01, so a lower limit would admit nothing. */
static void
cfg_get_cpus(struct cfg_parse *p, void *out, const struct spec_node *v,
             const char *field)
{
    struct err qe = { 0 };
    uint64_t milli;

    if (v->kind != SPEC_NODE_SCALAR ||
        (v->type != SPEC_SCALAR_INT && v->type != SPEC_SCALAR_STRING &&
         v->type != SPEC_SCALAR_FLOAT)) {
        spec_errors_add(p->es, p->file, v, field,
                        "expected CPUs such as 8, \"1.5\" or 500m, got %s",
                        spec_node_type_name(v));
        return;
    }
    if (spec_quantity_parse_milli(v->value, &milli, &qe) == -1) {
        spec_errors_add(p->es, p->file, v, field, "%s", qe.msg);
        return;
    }
    if (milli < 10) {
        spec_errors_add(p->es, p->file, v, field,
                        "must be at least 10m (0.01 CPU), got %s", v->value);
        return;
    }
    *(uint64_t *)out = milli;
}

/* The CRD's own range for spec.resources.pids. */
static void
cfg_max_pids(struct cfg_parse *p, void *dst, const struct spec_node *v,
             const char *field)
{
    uint32_t x;

    if (cfg_get_int(p, v, field, 8, 65536, &x) == 0)
        *(uint64_t *)dst = x;
}

void
cfg__bool(struct cfg_parse *p, void *dst, const struct spec_node *v,
          const char *field)
{
    if (spec_node_bool(v, dst) == -1)
        spec_errors_add(p->es, p->file, v, field,
                        "expected a boolean (true or false), got %s",
                        spec_node_type_name(v));
}

/* Walk a mapping, calling each known key's handler; unknown keys are
 * errors at the key with a suggestion. */
void
cfg__walk(struct cfg_parse *p, void *ctx, const struct spec_node *m,
          const char *path, const struct cfg_key *keys)
{
    char field[CFG_FIELD_MAX];

    if (m->kind != SPEC_NODE_MAP) {
        spec_errors_add(p->es, p->file, m, path, "expected a mapping, got %s",
                        spec_node_type_name(m));
        return;
    }
    for (size_t i = 0; i < m->n; i++) {
        const struct spec_node *k = m->pairs[i].key;
        const struct cfg_key *hit = NULL, *best = NULL;
        size_t best_d = 3;

        for (const struct cfg_key *c = keys; c->name != NULL; c++) {
            size_t d = spec_edit_distance(k->value, c->name);

            if (d == 0)
                hit = c;
            else if (d < best_d) {
                best_d = d;
                best = c;
            }
        }
        if (hit == NULL && best != NULL)
            spec_errors_add(p->es, p->file, k, path,
                            "unknown field \"%s\" (did you mean \"%s\"?)",
                            k->value, best->name);
        else if (hit == NULL)
            spec_errors_add(p->es, p->file, k, path, "unknown field \"%s\"",
                            k->value);
        if (hit == NULL)
            continue;
        snprintf(field, sizeof(field), "%s%s%s", path, path[0] ? "." : "",
                 k->value);
        if (hit->sub != NULL)
            cfg__walk(p, (char *)ctx + hit->off, m->pairs[i].value, field,
                      hit->sub);
        else
            hit->fn(p, (char *)ctx + hit->off, m->pairs[i].value, field);
    }
}

/* ---- top-level keys ---------------------------------------------------- */

static void
cfg_image(struct cfg_parse *p, void *dst, const struct spec_node *v,
          const char *field)
{
    if (!cfg__is_string(p, v, field))
        return;
    for (const char *s = v->value; *s != '\0'; s++)
        if ((unsigned char)*s <= ' ' || *s == 0x7f) {
            spec_errors_add(p->es, p->file, v, field,
                            "an image reference has no spaces or control "
                            "characters");
            return;
        }
    if (v->len > CFG_NAME_MAX) {
        spec_errors_add(p->es, p->file, v, field, "longer than %d characters",
                        CFG_NAME_MAX);
        return;
    }
    cfg__set_str(p, v, dst);
}

static void
cfg_egress_network(struct cfg_parse *p, void *dst, const struct spec_node *v,
                   const char *field)
{
    if (!cfg__is_string(p, v, field))
        return;
    if (!cfg_docker_name_ok(v->value) || v->len > 64) {
        spec_errors_add(
            p->es, p->file, v, field,
            "not a Docker network name ([a-zA-Z0-9][a-zA-Z0-9_.-]*, "
            "at most 64)");
        return;
    }
    /* host would put the proxy in the host's network namespace; none can
     * never be connected (docs/docker-notes.md section 2). */
    if (strcmp(v->value, "host") == 0 || strcmp(v->value, "none") == 0) {
        spec_errors_add(p->es, p->file, v, field,
                        "\"%s\" cannot be the egress network: use a bridge "
                        "network of its own",
                        v->value);
        return;
    }
    cfg__set_str(p, v, dst);
}

static void
cfg_subnet_pool(struct cfg_parse *p, void *ctx, const struct spec_node *v,
                const char *field)
{
    struct cfg *cfg = ctx;
    const char *why;
    uint32_t addr;
    unsigned prefix;

    if (!cfg__is_string(p, v, field))
        return;
    why = cfg_parse_pool(v->value, &addr, &prefix);
    if (why != NULL) {
        spec_errors_add(p->es, p->file, v, field, "%s, got \"%s\"", why,
                        v->value);
        return;
    }
    cfg->pool_addr = addr;
    cfg->pool_prefix = prefix;
    cfg__set_str(p, v, &cfg->subnet_pool);
}

static void
cfg_proxy_port(struct cfg_parse *p, void *dst, const struct spec_node *v,
               const char *field)
{
    uint32_t port = 0;

    if (cfg_get_int(p, v, field, 1, 65535, &port) == 0)
        *(uint16_t *)dst = (uint16_t)port;
}

static void
cfg_agent_user(struct cfg_parse *p, void *ctx, const struct spec_node *v,
               const char *field)
{
    struct cfg *cfg = ctx;
    const char *colon;
    uint32_t uid, gid;

    if (!cfg__is_string(p, v, field))
        return;
    colon = strchr(v->value, ':');
    /* Numeric only: the images are FROM scratch with no /etc/passwd, and a
     * name could resolve to root inside some other image. */
    if (colon == NULL ||
        cfg_parse_u32(v->value, (size_t)(colon - v->value), 4294967294u,
                      &uid) == -1 ||
        cfg_parse_u32(colon + 1, strlen(colon + 1), 4294967294u, &gid) == -1) {
        spec_errors_add(p->es, p->file, v, field,
                        "expected numeric \"uid:gid\" such as \"1000:1000\", "
                        "got \"%s\"",
                        v->value);
        return;
    }
    /* Root, or the root group, in the agent would own what root owns. */
    if (uid == 0 || gid == 0) {
        spec_errors_add(p->es, p->file, v, field,
                        "the agent must not run as root (uid and gid must "
                        "not be 0), got \"%s\"",
                        v->value);
        return;
    }
    cfg->agent_uid = uid;
    cfg->agent_gid = gid;
    cfg->agent_user_fixed = true;
    cfg__set_str(p, v, &cfg->agent_user);
}

/* The first uid of the per-attempt range (agentUser unset): high enough to
 * own nothing on the host (0 and the system range are refused below
 * 65536), low enough for the whole range to stay below 2^31. */
static void
cfg_agent_uid_base(struct cfg_parse *p, void *dst, const struct spec_node *v,
                   const char *field)
{
    cfg_get_int(p, v, field, 65536, CFG_MAX_AGENT_UID_BASE, dst);
}

static void
cfg_abs_path(struct cfg_parse *p, void *dst, const struct spec_node *v,
             const char *field)
{
    if (!cfg__is_string(p, v, field))
        return;
    if (v->value[0] != '/' || v->len >= CFG_PATH_MAX ||
        strstr(v->value, "/../") != NULL ||
        (v->len >= 3 && strcmp(v->value + v->len - 3, "/..") == 0)) {
        spec_errors_add(p->es, p->file, v, field,
                        "expected an absolute path without \"..\", got \"%s\"",
                        v->value);
        return;
    }
    cfg__set_str(p, v, dst);
}

/* A Go-style duration ("3m", "90s", "1h"), 0 to switch the timer off; at
 * least a second (each run is a container) and at most a day. */
static void
cfg_probe_interval(struct cfg_parse *p, void *dst, const struct spec_node *v,
                   const char *field)
{
    double s;

    if (v->kind != SPEC_NODE_SCALAR ||
        (v->type != SPEC_SCALAR_STRING && v->type != SPEC_SCALAR_INT)) {
        spec_errors_add(p->es, p->file, v, field,
                        "expected a duration such as 3m, got %s",
                        spec_node_type_name(v));
        return;
    }
    if (duration_parse(v->value, &s) == -1 ||
        (s != 0 && (s < 1 || s > CFG_MAX_PROBE_INTERVAL_S))) {
        spec_errors_add(p->es, p->file, v, field,
                        "expected 0 (off) or a duration from 1s to 24h such "
                        "as 3m, got \"%s\"",
                        v->value);
        return;
    }
    *(double *)dst = s;
}

/* The caps of a gateway vendor's budget: 0 (none) up to agent-gateway's
 * own range for --max-requests and --max-tokens (proxy/gw_main.c: 1e15),
 * so the gateway never refuses a budget the config allowed. Its
 * --max-bytes goes to 1e18, past any quantity spec_quantity_parse() reads
 * (about 1.8e16). */
#define CFG_GW_MAX_COUNT 1000000000000000ull

static void
cfg_max_vendor_count(struct cfg_parse *p, void *dst, const struct spec_node *v,
                     const char *field)
{
    cfg_get_u64(p, v, field, 0, CFG_GW_MAX_COUNT, dst);
}

static void
cfg_max_vendor_bytes(struct cfg_parse *p, void *dst, const struct spec_node *v,
                     const char *field)
{
    cfg_quantity_min(p, dst, v, field, 0);
}

static void
cfg_max_deadline(struct cfg_parse *p, void *dst, const struct spec_node *v,
                 const char *field)
{
    /* 86400 is also the CRD's maximum: a higher limit would mean nothing. */
    cfg_get_int(p, v, field, 1, 86400, dst);
}

static void
cfg_max_runner_seconds(struct cfg_parse *p, void *dst,
                       const struct spec_node *v, const char *field)
{
    cfg_get_int(p, v, field, 1, 86400, dst);
}

/* What the runner tool hands back to the model: at least a screenful,
 * at most what one MCP message should carry. */
static void
cfg_max_runner_output(struct cfg_parse *p, void *dst,
                      const struct spec_node *v, const char *field)
{
    uint64_t x = 0;

    cfg_quantity_min(p, &x, v, field, 1024);
    if (x > (16ull << 20))
        spec_errors_add(p->es, p->file, v, field,
                        "at most 16Mi (the output goes back to the model in "
                        "one message)");
    else if (x != 0)
        *(uint64_t *)dst = x;
}

static void
cfg_landlock(struct cfg_parse *p, void *dst, const struct spec_node *v,
             const char *field)
{
    if (!cfg__is_string(p, v, field))
        return;
    if (strcmp(v->value, "required") != 0 &&
        strcmp(v->value, "optional") != 0) {
        spec_errors_add(p->es, p->file, v, field,
                        "expected \"required\" or \"optional\", got \"%s\"",
                        v->value);
        return;
    }
    *(bool *)dst = strcmp(v->value, "optional") == 0;
}

#define CFG_AT(f)  offsetof(struct cfg, f)
#define CFG_LIM(f) offsetof(struct cfg_limits, f)

static const struct cfg_key cfg_image_keys[] = {
    { "proxy", cfg_image, CFG_AT(proxy_image), NULL },
    { "keeper", cfg_image, CFG_AT(keeper_image), NULL },
    { "probe", cfg_image, CFG_AT(probe_image), NULL },
    { "gateway", cfg_image, CFG_AT(gateway_image), NULL },
    { NULL, NULL, 0, NULL },
};

static const struct cfg_key cfg_limit_keys[] = {
    { "maxDeadlineSeconds", cfg_max_deadline, CFG_LIM(max_deadline_seconds),
      NULL },
    { "maxWorkspaceBytes", cfg_get_quantity, CFG_LIM(max_workspace_bytes),
      NULL },
    { "maxWorkspaceInodes", cfg_get_quantity, CFG_LIM(max_workspace_inodes),
      NULL },
    { "maxOutputBytes", cfg_get_quantity, CFG_LIM(max_output_bytes), NULL },
    { "maxMemoryBytes", cfg_get_quantity, CFG_LIM(max_memory_bytes), NULL },
    { "maxCpus", cfg_get_cpus, CFG_LIM(max_millicpus), NULL },
    { "maxPids", cfg_max_pids, CFG_LIM(max_pids), NULL },
    { "maxScratchBytes", cfg_get_quantity, CFG_LIM(max_scratch_bytes), NULL },
    { "maxScratchInodes", cfg_get_quantity, CFG_LIM(max_scratch_inodes), NULL },
    { "maxVendorRequests", cfg_max_vendor_count,
      CFG_LIM(max_vendor_requests), NULL },
    { "maxVendorBytes", cfg_max_vendor_bytes, CFG_LIM(max_vendor_bytes), NULL },
    { "maxVendorTokens", cfg_max_vendor_count, CFG_LIM(max_vendor_tokens),
      NULL },
    { "maxRunnerSeconds", cfg_max_runner_seconds,
      CFG_LIM(max_runner_seconds), NULL },
    { "maxRunnerOutputBytes", cfg_max_runner_output,
      CFG_LIM(max_runner_output_bytes), NULL },
    { NULL, NULL, 0, NULL },
};

static const struct cfg_key cfg_top_keys[] = {
    { "vendors", cfg__vendors, 0, NULL },
    { "images", NULL, 0, cfg_image_keys },
    { "egressNetwork", cfg_egress_network, CFG_AT(egress_network), NULL },
    { "subnetPool", cfg_subnet_pool, 0, NULL },
    { "proxyPort", cfg_proxy_port, CFG_AT(proxy_port), NULL },
    { "agentUser", cfg_agent_user, 0, NULL },
    { "agentUidBase", cfg_agent_uid_base, CFG_AT(agent_uid_base), NULL },
    { "secretsDir", cfg_abs_path, CFG_AT(secrets_dir), NULL },
    { "workspaceRoot", cfg_abs_path, CFG_AT(workspace_root), NULL },
    { "probeInterval", cfg_probe_interval, CFG_AT(probe_interval_s), NULL },
    { "landlock", cfg_landlock, CFG_AT(landlock_optional), NULL },
    { "warmPool", cfg__warm_pool, 0, NULL },
    { "limits", NULL, CFG_AT(limits), cfg_limit_keys },
    { NULL, NULL, 0, NULL },
};

void
cfg__apply(struct cfg_parse *p, const struct spec_node *root)
{
    cfg__walk(p, p->cfg, root, "", cfg_top_keys);
    /* Checks between keys, once the file's vendors are all in. */
    cfg__warm_check(p, root);
}
