/* cfg_defaults.c - the built-in configuration (images, networks, the
 * agent user, paths, limits, no warm pool, and the vendor table: claude
 * and codex with the hosts their APIs answer on, both in credentialMode
 * gateway), the sorted vendor list a file adds to, and freeing and lookup
 * of a loaded config. */
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
    free(v->gateway_organization);
    free(v->gateway_project);
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

/* The versioned vendor profiles, read by the same code as a file's
 * vendors (cfg_vendor.c), so a built-in profile obeys every rule an
 * operator's does. The hosts are exactly those the pinned CLI versions
 * (hack/images/vendor-clis.txt) connect to with an API key and their
 * non-essential traffic off, as measured by tests/integration/vendors/
 * (docs/vendor-clis.md). Both hold the key in a gateway of the attempt's
 * own (credentialMode gateway is the default with a credentialEnv; issue
 * 35), with the request rules the CLIs need: Claude Code posts to
 * /v1/messages (and count_tokens below it), Codex to /v1/responses.
 * Codex exec reads its key from CODEX_API_KEY (0.171.0 sends no key at
 * all when only OPENAI_API_KEY is set: measured); it ignores
 * OPENAI_BASE_URL, so its adapter passes the gateway's URL itself. */
static const char cfg_builtin_vendors_yaml[] =
    "claude:\n"
    "  hosts: [\"api.anthropic.com:443\"]\n"
    "  credentialEnv: ANTHROPIC_API_KEY\n"
    "  gateway:\n"
    "    authHeader: x-api-key\n"
    "    allow: [\"POST /v1/messages\"]\n"
    "    baseUrlEnv: ANTHROPIC_BASE_URL\n"
    "codex:\n"
    "  hosts: [\"api.openai.com:443\"]\n"
    "  credentialEnv: CODEX_API_KEY\n"
    "  gateway:\n"
    "    authHeader: bearer\n"
    "    allow: [\"POST /v1/responses\"]\n";

int
cfg__builtin_vendors_read(struct cfg *cfg, const char *yaml, size_t len,
                          struct spec_errors *es)
{
    struct cfg_parse p = { .file = "built-in vendors", .es = es, .cfg = cfg };
    struct spec_stream st;
    size_t before = es->n + es->dropped;

    if (spec_yaml_parse(p.file, yaml, len, &st, es) == 0) {
        if (st.n == 1)
            cfg__vendors(&p, NULL, st.docs[0], "vendors");
        else
            spec_errors_add_at(es, p.file, 1, 1, "vendors",
                               "want one YAML document, got %zu", st.n);
    }
    spec_stream_cleanup(&st);
    if (p.nomem && es->n + es->dropped == before)
        spec_errors_add_at(es, p.file, 0, 0, NULL, "out of memory");
    return es->n + es->dropped == before ? 0 : -1;
}

struct cfg *
cfg__defaults(struct spec_errors *es)
{
    struct cfg *cfg = calloc(1, sizeof(*cfg));

    if (cfg == NULL) {
        spec_errors_add_at(es, NULL, 0, 0, NULL, "out of memory");
        return NULL;
    }
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
        cfg->workspace_root == NULL) {
        spec_errors_add_at(es, NULL, 0, 0, NULL, "out of memory");
        cfg_free(cfg);
        return NULL;
    }
    /* The table is ours, so a profile the rules refuse is a bug the unit
     * tests catch; it is still said as what it is, not as out of memory. */
    if (cfg__builtin_vendors_read(cfg, cfg_builtin_vendors_yaml,
                                  sizeof(cfg_builtin_vendors_yaml) - 1,
                                  es) == -1) {
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
