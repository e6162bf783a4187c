/* cfg_defaults.c - the built-in configuration (images, networks, the
 * agent user, paths, limits, no warm pool, and the vendor table: claude
 * and codex with the hosts their APIs answer on, both in credentialMode
 * env), the sorted vendor list a file adds to, and freeing and lookup of
 * a loaded config. */
#include "cfg.h"

#include <stdlib.h>
#include <string.h>

#include "cfg_int.h"

static void
cfg_names_free(struct cfg_names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

void
cfg__vendor_cleanup(struct cfg_vendor *v)
{
    for (size_t i = 0; i < v->n_hosts; i++)
        free(v->hosts[i]);
    free(v->hosts);
    free(v->name);
    free(v->credential_env);
    free(v->gateway_auth_header);
    for (size_t i = 0; i < v->n_gateway_allow; i++)
        free(v->gateway_allow[i]);
    free(v->gateway_allow);
    free(v->gateway_base_url_env);
    free(v->gateway_body_policy);
    free(v->gateway_ca_pem);
    cfg_names_free(&v->gateway_allow_fields);
    cfg_names_free(&v->gateway_allow_tools);
    cfg_names_free(&v->gateway_allow_betas);
    memset(v, 0, sizeof(*v));
}

/* Put vd into cfg (replacing a vendor of the same name), keeping the
 * list sorted; takes vd's contents. */
int
cfg__vendor_put(struct cfg *cfg, struct cfg_vendor *vd)
{
    struct cfg_vendor *grown;
    size_t at = 0;

    while (at < cfg->n_vendors && strcmp(cfg->vendors[at].name, vd->name) < 0)
        at++;
    if (at < cfg->n_vendors && strcmp(cfg->vendors[at].name, vd->name) == 0) {
        cfg__vendor_cleanup(&cfg->vendors[at]);
        cfg->vendors[at] = *vd;
        return 0;
    }
    if (cfg->n_vendors == CFG_MAX_VENDORS)
        return -1;
    grown = realloc(cfg->vendors, (cfg->n_vendors + 1) * sizeof(*grown));
    if (grown == NULL)
        return -1;
    cfg->vendors = grown;
    memmove(&grown[at + 1], &grown[at], (cfg->n_vendors - at) * sizeof(*grown));
    grown[at] = *vd;
    cfg->n_vendors++;
    return 0;
}

static int
cfg_builtin_vendor(struct cfg *cfg, const char *name, const char *const *hosts,
                   size_t n, const char *env)
{
    struct cfg_vendor vd = { 0 };

    vd.name = strdup(name);
    vd.credential_env = strdup(env);
    vd.hosts = calloc(n, sizeof(*vd.hosts));
    if (vd.name == NULL || vd.credential_env == NULL || vd.hosts == NULL)
        goto fail;
    for (; vd.n_hosts < n; vd.n_hosts++)
        if ((vd.hosts[vd.n_hosts] = strdup(hosts[vd.n_hosts])) == NULL)
            goto fail;
    if (cfg__vendor_put(cfg, &vd) == 0)
        return 0;
fail:
    cfg__vendor_cleanup(&vd);
    return -1;
}

struct cfg *
cfg__defaults(void)
{
    /* The versioned egress profiles: exactly the hosts the pinned CLI
     * versions (hack/images/vendor-clis.txt) connect to with an API key
     * and their non-essential traffic off, as measured by
     * tests/integration/vendors/ (docs/vendor-clis.md). */
    static const char *const claude[] = { "api.anthropic.com:443" };
    static const char *const codex[] = { "api.openai.com:443" };
    struct cfg *cfg = calloc(1, sizeof(*cfg));

    if (cfg == NULL)
        return NULL;
    cfg->proxy_image = strdup(CFG_DEFAULT_PROXY_IMG);
    cfg->keeper_image = strdup(CFG_DEFAULT_KEEPER_IMG);
    cfg->probe_image = strdup(CFG_DEFAULT_PROBE_IMG);
    cfg->gateway_image = strdup(CFG_DEFAULT_GATEWAY_IMG);
    cfg->egress_network = strdup("agentctl-egress");
    cfg->subnet_pool = strdup("10.213.0.0/16");
    cfg->pool_addr = (10u << 24) | (213u << 16);
    cfg->pool_prefix = 16;
    cfg->proxy_port = 3128;
    cfg->agent_user = strdup("1000:1000");
    cfg->agent_uid = 1000;
    cfg->agent_gid = 1000;
    cfg->agent_uid_base = CFG_DEFAULT_AGENT_UID_BASE;
    cfg->secrets_dir = strdup("/etc/agentctl/secrets");
    cfg->workspace_root = strdup("/var/lib/agentctl/workspaces");
    cfg->probe_interval_s = CFG_DEFAULT_PROBE_INTERVAL_S;
    cfg->limits.max_deadline_seconds = 86400;
    cfg->limits.max_workspace_bytes = 8ull << 30;
    cfg->limits.max_output_bytes = 16ull << 20;
    cfg->limits.max_workspace_inodes = 1000000;
    cfg->limits.max_memory_bytes = 16ull << 30;
    cfg->limits.max_millicpus = 8000;
    cfg->limits.max_pids = 4096;
    /* Scratch is tmpfs: its bytes are the host's memory. */
    cfg->limits.max_scratch_bytes = 4ull << 30;
    cfg->limits.max_scratch_inodes = 1000000;
    /* No cap on a gateway vendor's requests or bytes unless configured:
     * the deadline bounds an attempt already. */
    cfg->limits.max_vendor_requests = 0;
    cfg->limits.max_vendor_bytes = 0;
    cfg->limits.max_vendor_tokens = 0;
    cfg->limits.max_runner_seconds = 600;
    cfg->limits.max_runner_output_bytes = 1ull << 20;
    if (cfg->proxy_image == NULL || cfg->keeper_image == NULL ||
        cfg->probe_image == NULL || cfg->gateway_image == NULL ||
        cfg->egress_network == NULL || cfg->subnet_pool == NULL ||
        cfg->agent_user == NULL || cfg->secrets_dir == NULL ||
        cfg->workspace_root == NULL ||
        cfg_builtin_vendor(cfg, "claude", claude,
                           sizeof(claude) / sizeof(claude[0]),
                           "ANTHROPIC_API_KEY") ||
        /* codex exec reads its API key from CODEX_API_KEY (0.171.0 sends
         * no key at all when only OPENAI_API_KEY is set: measured) */
        cfg_builtin_vendor(cfg, "codex", codex,
                           sizeof(codex) / sizeof(codex[0]), "CODEX_API_KEY")) {
        cfg_free(cfg);
        return NULL;
    }
    return cfg;
}

void
cfg_free(struct cfg *cfg)
{
    if (cfg == NULL)
        return;
    for (size_t i = 0; i < cfg->n_vendors; i++)
        cfg__vendor_cleanup(&cfg->vendors[i]);
    free(cfg->vendors);
    free(cfg->path);
    free(cfg->proxy_image);
    free(cfg->keeper_image);
    free(cfg->probe_image);
    free(cfg->gateway_image);
    free(cfg->egress_network);
    free(cfg->subnet_pool);
    free(cfg->agent_user);
    free(cfg->secrets_dir);
    free(cfg->workspace_root);
    for (size_t i = 0; i < cfg->n_warm_pool; i++)
        free(cfg->warm_pool[i].vendor);
    free(cfg->warm_pool);
    free(cfg);
}

const struct cfg_vendor *
cfg_find_vendor(const struct cfg *cfg, const char *name)
{
    if (cfg == NULL || name == NULL)
        return NULL;
    for (size_t i = 0; i < cfg->n_vendors; i++)
        if (strcmp(cfg->vendors[i].name, name) == 0)
            return &cfg->vendors[i];
    return NULL;
}
