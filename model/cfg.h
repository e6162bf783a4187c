/* cfg.h - the controller configuration (docs/design.md "Controller
 * configuration"): which vendors exist and where they may connect, the
 * images, networks and users the controller runs boxes with, and the
 * limits a spec must stay within.
 *
 * Loading is all-or-nothing: every key is optional and starts from the
 * built-in default, an unknown key at any depth or a bad value is an error
 * with file:line:col, and a file with any error yields no config at all
 * (the daemon refuses to start, SIGHUP keeps the old config).
 */
#ifndef CFG_H
#define CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "spec.h"
#include "spec_node.h"

#define CFG_MAX_VENDORS        64 /* vendor profiles in one config */
#define CFG_MAX_VENDOR_HOSTS   64 /* host:port pairs per vendor */
#define CFG_VENDOR_NAME_MAX    63 /* DNS-1123 label */
#define CFG_DEFAULT_PROXY_IMG  "agentctl/egress-proxy:" AGENTCTL_VERSION
#define CFG_DEFAULT_KEEPER_IMG "agentctl/keeper:" AGENTCTL_VERSION
#define CFG_DEFAULT_PROBE_IMG  "agentctl/probe:" AGENTCTL_VERSION
#define CFG_DEFAULT_PROBE_INTERVAL_S 180.0 /* probeInterval: 3m */
#define CFG_MAX_PROBE_INTERVAL_S     86400.0
#define CFG_MAX_WARM_PER_VENDOR      64 /* warmPool: boxes per vendor */
#define CFG_DEFAULT_AGENT_UID_BASE   100000
/* base + 2^24 - 1 (the largest /24 number) stays below 2^31 */
#define CFG_MAX_AGENT_UID_BASE       2130706432u

enum cfg_credential_mode {
    CFG_CREDENTIAL_ENV,     /* the credential goes into credentialEnv (today) */
    CFG_CREDENTIAL_GATEWAY, /* the agent-gateway holds it (issue 16) */
};
#define CFG_MAX_GATEWAY_RULES   64
#define CFG_MAX_GATEWAY_WIDEN   32 /* agent-gateway's GW_BODY_EXTRA_MAX */
#define CFG_MAX_GATEWAY_CA      (32u << 10) /* gateway.caFile: it shares the
                                               64 KiB key volume */
#define CFG_DEFAULT_GATEWAY_IMG "agentctl/agent-gateway:" AGENTCTL_VERSION

/* A list of names a profile sets (0..CFG_MAX_GATEWAY_WIDEN of them). */
struct cfg_names {
    char **v;
    size_t n;
};

/* One vendor profile: the only hosts its proxy lets the agent reach. */
struct cfg_vendor {
    char *name;
    char **hosts;         /* normalised "host:port" ("[v6]:port") */
    size_t n_hosts;       /* >= 1 */
    char *credential_env; /* env var the credential goes in; NULL = none */
    bool allow_private;   /* proxy gets --allow-private */
    enum cfg_credential_mode credential_mode; /* default env */
    /* gateway mode only (NULL / 0 otherwise): */
    char *gateway_auth_header; /* "x-api-key" or "bearer" */
    char **
        gateway_allow; /* "METHOD /prefix", as agent-gateway --allow takes it */
    size_t n_gateway_allow;     /* 1..CFG_MAX_GATEWAY_RULES */
    char *gateway_base_url_env; /* env var the agent gets the gateway's URL in,
                                   or NULL */
    /* gateway.caFile: the PEM bundle the vendor's certificate must chain
     * to instead of the image's (a private vendor), read at load; NULL:
     * the image's bundle */
    char *gateway_ca_pem;
    /* the request policy (agent-gateway --body-policy): "anthropic",
     * "openai" or "off"; by default the authHeader's API */
    char *gateway_body_policy;
    /* allowFields, allowServerTools, allowBetas: the policy widened */
    struct cfg_names gateway_allow_fields, gateway_allow_tools,
        gateway_allow_betas;
    /* gateway.organization, gateway.project: the OpenAI-Organization and
     * OpenAI-Project the gateway sends for the operator (agent-gateway
     * --organization, --project); NULL: none (the agent's are dropped
     * either way) */
    char *gateway_organization, *gateway_project;
};

/* What one spec may ask for (docs/config.md "limits"); every bound a spec
 * sets has one, so no size of any resource is left to the spec alone. */
struct cfg_limits {
    uint32_t max_deadline_seconds; /* 1..86400 */
    uint64_t max_workspace_bytes;
    uint64_t max_workspace_inodes;
    uint64_t max_output_bytes;
    uint64_t max_memory_bytes;
    uint64_t max_millicpus; /* "8" -> 8000 */
    uint64_t max_pids;
    uint64_t max_scratch_bytes;
    uint64_t max_scratch_inodes;
    uint64_t max_vendor_requests; /* 0 = no limit */
    uint64_t max_vendor_bytes;    /* 0 = no limit */
    uint64_t max_vendor_tokens;   /* 0 = no limit */
    /* The runner tool (docs/phase-policy.md): the time one run may take
     * and the output it returns to the model. */
    uint32_t max_runner_seconds;      /* 1..86400 */
    uint64_t max_runner_output_bytes; /* 1 KiB..16 MiB */
};

/* One warmPool entry: the pool keeps count boxes of vendor ready. */
struct cfg_warm {
    char *vendor;   /* a vendor of the config, not in credentialMode gateway */
    unsigned count; /* 1..CFG_MAX_WARM_PER_VENDOR */
};

struct cfg {
    char *path;                 /* file it came from; NULL = built-in */
    struct cfg_vendor *vendors; /* sorted by name */
    size_t n_vendors;
    char *proxy_image;
    char *keeper_image;
    char *probe_image; /* the boundary probe (box_probe.c) */
    char *gateway_image; /* images.gateway */
    char *egress_network;
    char *subnet_pool;    /* as written, e.g. "10.213.0.0/16" */
    uint32_t pool_addr;   /* network address, host byte order */
    unsigned pool_prefix; /* 8..24 */
    uint16_t proxy_port;  /* 1..65535 */
    char *agent_user;     /* "uid:gid" */
    uint32_t agent_uid;   /* never 0 */
    uint32_t agent_gid;   /* never 0 */
    /* agentUser set: every box runs as it (shared, as before issue 36);
     * unset: each attempt's agent and keeper get a uid (and gid) of their
     * own, agentUidBase + the number of its /24 (its network address >> 8,
     * rc_agent_user_for): unique among the live boxes of every controller
     * on the daemon that shares the base, since live networks never
     * overlap. */
    bool agent_user_fixed;
    uint32_t agent_uid_base; /* 1..CFG_MAX_AGENT_UID_BASE */
    char *secrets_dir;    /* absolute path */
    char *workspace_root; /* absolute path */
    /* The boundary canary: the probe run again inside a running agent's
     * network namespace this often (jittered), and on Docker events about
     * the attempt's network or proxy. 0 = never on a timer. */
    double probe_interval_s;
    /* landlock: optional runs agents without the launcher's Landlock
     * domain on a kernel that has none (required, the default, fails such
     * an attempt closed). */
    bool landlock_optional;
    struct cfg_limits limits;
    /* warmPool: boxes kept ready per vendor (docs/warm-pool.md); sorted by
     * vendor name, counts 1..64 only (0 entries are dropped) */
    struct cfg_warm *warm_pool;
    size_t n_warm_pool;
};

/* Load the config at path, or the built-in defaults when path is NULL.
 * Returns a config the caller frees with cfg_free(), or NULL with
 * the first error in e (file:line:col and field set). */
struct cfg *cfg_load(const char *path, struct err *e);

/* Like cfg_load() but reports every error of the file in es (the
 * CLI and the daemon print them all). NULL when es->n > 0. */
struct cfg *cfg_load_all(const char *path,
                                       struct spec_errors *es);

/* The same for bytes in memory; `name` is used in messages. */
struct cfg *cfg_parse(const char *name, const char *data,
                                    size_t len, struct spec_errors *es);

/* NULL is a no-op. */
void cfg_free(struct cfg *cfg);

/* The vendor called name, or NULL. Borrowed while cfg lives. */
const struct cfg_vendor *cfg_find_vendor(const struct cfg *cfg,
                                           const char *name);

/* The warmPool count of vendor: how many boxes the pool keeps ready for
 * it, 0 when none (no entry, an entry of 0, an unknown vendor, or cfg or
 * vendor NULL). */
unsigned cfg_warm_count(const struct cfg *cfg, const char *vendor);

/* Check that a spec fits this controller: its vendor is configured; for
 * a vendor in credentialMode env a credential has a credentialEnv to go in
 * and there is no vendorBudget, for one in credentialMode gateway there is
 * a credential; the deadline, workspace size and inodes, output bound,
 * memory, CPUs, pids, scratch size and inodes and the vendorBudget parts
 * are within limits (a vendor limit of 0 is none); and env sets none of
 * the variables the controller sets (the vendor's credentialEnv and
 * gateway.baseUrlEnv, HTTPS_PROXY, https_proxy, HTTP_PROXY, http_proxy,
 * NO_PROXY, no_proxy, ALL_PROXY, all_proxy, AGENT_PHASE, HOME). Returns 0,
 * or -1 with ERR_INVALID and the spec field named in e->field, e.g.
 * spec.vendor: vendor "x" is not configured (known: claude, codex). */
int cfg_admit(const struct cfg *cfg,
                     const struct spec_invocation *inv, struct err *e);

#endif
