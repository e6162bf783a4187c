/* test_cfg.c - the controller config: built-in defaults, the
 * example files, every error with its line:col and field, and the
 * admission of specs against the config. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cfg.h"
#include "gw_policy.h"
#include "spec.h"

/* Parse text; return the config (NULL on errors, which land in es). */
static struct cfg *
parse(const char *text, struct spec_errors *es)
{
    return cfg_parse("c.yaml", text, strlen(text), es);
}

/* True when es holds an error at line:col with that field whose message
 * contains needle; prints what it has otherwise. */
static int
has_error(const struct spec_errors *es, unsigned line, unsigned col,
          const char *field, const char *needle)
{
    char buf[600];

    for (size_t i = 0; i < es->n; i++) {
        const struct err *e = &es->items[i];

        if (e->line == line && e->col == col && strcmp(e->field, field) == 0 &&
            strstr(e->msg, needle) != NULL && strcmp(e->file, "c.yaml") == 0)
            return 1;
    }
    for (size_t i = 0; i < es->n; i++)
        fprintf(stderr, "  have: %s\n",
                err_format(&es->items[i], buf, sizeof(buf)));
    return 0;
}

static void
test_cfg_defaults(void **state)
{
    struct err e = { 0 };
    struct cfg *cfg = cfg_load(NULL, &e);
    const struct cfg_vendor *v;

    (void)state;
    assert_non_null(cfg);
    assert_null(cfg->path);
    assert_int_equal(cfg->n_vendors, 2);
    v = cfg_find_vendor(cfg, "claude");
    assert_non_null(v);
    assert_int_equal(v->n_hosts, 1);
    assert_string_equal(v->hosts[0], "api.anthropic.com:443");
    assert_string_equal(v->credential_env, "ANTHROPIC_API_KEY");
    assert_false(v->allow_private);
    /* Both built-in vendors keep the key in the attempt's gateway, with
     * their API's rules and request policy (issue 35). */
    assert_int_equal(v->credential_mode, CFG_CREDENTIAL_GATEWAY);
    assert_string_equal(v->gateway_auth_header, "x-api-key");
    assert_int_equal(v->n_gateway_allow, 1);
    assert_string_equal(v->gateway_allow[0], "POST /v1/messages");
    assert_string_equal(v->gateway_base_url_env, "ANTHROPIC_BASE_URL");
    assert_string_equal(v->gateway_body_policy, "anthropic");
    v = cfg_find_vendor(cfg, "codex");
    assert_non_null(v);
    assert_int_equal(v->n_hosts, 1);
    assert_string_equal(v->hosts[0], "api.openai.com:443");
    assert_string_equal(v->credential_env, "CODEX_API_KEY");
    assert_int_equal(v->credential_mode, CFG_CREDENTIAL_GATEWAY);
    assert_string_equal(v->gateway_auth_header, "bearer");
    assert_int_equal(v->n_gateway_allow, 1);
    assert_string_equal(v->gateway_allow[0], "POST /v1/responses");
    assert_null(v->gateway_base_url_env);
    assert_string_equal(v->gateway_body_policy, "openai");
    assert_null(cfg_find_vendor(cfg, "fake"));
    assert_string_equal(cfg->proxy_image,
                        "agentctl/egress-proxy:" AGENTCTL_VERSION);
    assert_string_equal(cfg->keeper_image, "agentctl/keeper:" AGENTCTL_VERSION);
    assert_string_equal(cfg->probe_image, "agentctl/probe:" AGENTCTL_VERSION);
    assert_string_equal(cfg->gateway_image, CFG_DEFAULT_GATEWAY_IMG);
    assert_string_equal(cfg->egress_network, "agentctl-egress");
    assert_string_equal(cfg->subnet_pool, "10.213.0.0/16");
    assert_int_equal(cfg->pool_addr, 0x0ad50000u);
    assert_int_equal(cfg->pool_prefix, 16);
    assert_int_equal(cfg->proxy_port, 3128);
    assert_string_equal(cfg->agent_user, "1000:1000");
    assert_int_equal(cfg->agent_uid, 1000);
    /* unset: a uid of its own per attempt, from 100000 on */
    assert_false(cfg->agent_user_fixed);
    assert_int_equal(cfg->agent_uid_base, 100000);
    assert_false(cfg->landlock_optional);
    assert_int_equal(cfg->limits.max_runner_seconds, 600);
    assert_int_equal(cfg->limits.max_runner_output_bytes, 1u << 20);
    assert_int_equal(cfg->agent_gid, 1000);
    assert_string_equal(cfg->secrets_dir, "/etc/agentctl/secrets");
    assert_string_equal(cfg->workspace_root, "/var/lib/agentctl/workspaces");
    assert_true(cfg->probe_interval_s == 180.0); /* the canary every 3m */
    assert_int_equal(cfg->limits.max_deadline_seconds, 86400);
    assert_int_equal(cfg->limits.max_workspace_bytes, 8ull << 30);
    assert_int_equal(cfg->limits.max_output_bytes, 16ull << 20);
    assert_int_equal(cfg->limits.max_workspace_inodes, 1000000);
    assert_int_equal(cfg->limits.max_memory_bytes, 16ull << 30);
    assert_int_equal(cfg->limits.max_millicpus, 8000);
    assert_int_equal(cfg->limits.max_pids, 4096);
    assert_int_equal(cfg->limits.max_scratch_bytes, 4ull << 30);
    assert_int_equal(cfg->limits.max_scratch_inodes, 1000000);
    assert_int_equal(cfg->limits.max_vendor_requests, 0); /* no cap */
    assert_int_equal(cfg->limits.max_vendor_tokens, 0);   /* no cap */
    assert_int_equal(cfg->limits.max_vendor_bytes, 0);
    /* No warm pool unless configured. */
    assert_null(cfg->warm_pool);
    assert_int_equal(cfg->n_warm_pool, 0);
    assert_int_equal(cfg_warm_count(cfg, "claude"), 0);
    cfg_free(cfg);
}

static void
test_cfg_empty_file_is_defaults(void **state)
{
    struct spec_errors es;
    struct cfg *cfg = parse("# nothing set\n", &es);

    (void)state;
    assert_non_null(cfg);
    assert_int_equal(es.n, 0);
    assert_int_equal(cfg->n_vendors, 2);
    assert_string_equal(cfg->path, "c.yaml");
    assert_int_equal(cfg->n_warm_pool, 0);
    cfg_free(cfg);
}

/* The repository root: ctest sets AGENTCTL_SOURCE_DIR; a bare run (as
 * under valgrind) falls back to the path known at build time. */
static void
source_path(const char *rel, char *out, size_t size)
{
    const char *root = getenv("AGENTCTL_SOURCE_DIR");

    snprintf(out, size, "%s/%s", root ? root : TEST_SOURCE_DIR, rel);
}

static void
test_cfg_example_loads(void **state)
{
    char path[4096];
    struct err e = { 0 };
    struct cfg *cfg;
    const struct cfg_vendor *v;
    char buf[600];

    (void)state;
    source_path("manifests/config/controller.yaml", path, sizeof(path));
    cfg = cfg_load(path, &e);
    if (cfg == NULL)
        fail_msg("%s", err_format(&e, buf, sizeof(buf)));
    v = cfg_find_vendor(cfg, "fake");
    assert_non_null(v);
    assert_true(v->allow_private);
    assert_int_equal(v->n_hosts, 1);
    assert_string_equal(v->hosts[0], "vendor.test:443");
    assert_string_equal(v->credential_env, "FAKE_API_KEY");
    assert_int_equal(cfg->n_vendors, 3);
    assert_string_equal(cfg->path, path);
    assert_int_equal(cfg->limits.max_workspace_bytes, 8ull << 30);
    cfg_free(cfg);

    source_path("manifests/config/minimal.yaml", path, sizeof(path));
    cfg = cfg_load(path, &e);
    if (cfg == NULL)
        fail_msg("%s", err_format(&e, buf, sizeof(buf)));
    v = cfg_find_vendor(cfg, "fake");
    assert_non_null(v);
    assert_null(v->credential_env);
    assert_true(v->allow_private);
    cfg_free(cfg);
}

/* The store is chosen by flags only; the per-store examples (etcd host,
 * Kubernetes ConfigMap) are configs like any other and must load. */
static void
test_cfg_store_examples_load(void **state)
{
    static const char *const files[] = {
        "manifests/config/etcd.yaml",
        "manifests/kubernetes/controller.yaml",
    };
    char path[4096], buf[600];
    struct err e = { 0 };
    struct cfg *cfg;
    const struct cfg_vendor *v;

    (void)state;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        source_path(files[i], path, sizeof(path));
        cfg = cfg_load(path, &e);
        if (cfg == NULL)
            fail_msg("%s", err_format(&e, buf, sizeof(buf)));
        v = cfg_find_vendor(cfg, "claude");
        assert_non_null(v);
        assert_string_equal(v->credential_env, "ANTHROPIC_API_KEY");
        assert_string_equal(cfg->secrets_dir, "/etc/agentctl/secrets");
        assert_string_equal(cfg->workspace_root,
                            "/var/lib/agentctl/workspaces");
        cfg_free(cfg);
    }
}

static void
test_cfg_full_values_applied(void **state)
{
    static const char text[] =
        "vendors:\n"
        "  claude: {hosts: [\"API.Example.com:8443\", \"[::1]:443\"]}\n"
        "  local: {hosts: [\"10.0.0.5:443\"], credentialEnv: LOCAL_KEY,\n"
        "         credentialMode: env}\n"
        "images: {proxy: \"reg.test/px@sha256:0011\", keeper: k:2,\n"
        "         probe: p:3}\n"
        "egressNetwork: my-egress\n"
        "subnetPool: 172.30.0.0/20\n"
        "proxyPort: 8080\n"
        "agentUser: \"2000:3000\"\n"
        "secretsDir: /run/secrets\n"
        "workspaceRoot: /srv/ws\n"
        "probeInterval: 1m30s\n"
        "limits: {maxDeadlineSeconds: 600, maxWorkspaceBytes: 1Gi,\n"
        "         maxOutputBytes: 1048576, maxCpus: 1.5, maxPids: 100,\n"
        "         maxMemoryBytes: 3Gi, maxScratchBytes: 1Gi,\n"
        "         maxScratchInodes: 50k, maxWorkspaceInodes: 2k}\n";
    struct spec_errors es;
    struct cfg *cfg = parse(text, &es);
    const struct cfg_vendor *v;

    (void)state;
    assert_non_null(cfg);
    /* claude replaced wholesale: no credentialEnv any more. */
    v = cfg_find_vendor(cfg, "claude");
    assert_int_equal(v->n_hosts, 2);
    assert_string_equal(v->hosts[0], "api.example.com:8443");
    assert_string_equal(v->hosts[1], "[::1]:443");
    assert_null(v->credential_env);
    assert_string_equal(cfg_find_vendor(cfg, "local")->credential_env,
                        "LOCAL_KEY");
    /* Sorted by name. */
    assert_string_equal(cfg->vendors[0].name, "claude");
    assert_string_equal(cfg->vendors[1].name, "codex");
    assert_string_equal(cfg->vendors[2].name, "local");
    assert_string_equal(cfg->proxy_image, "reg.test/px@sha256:0011");
    assert_string_equal(cfg->keeper_image, "k:2");
    assert_string_equal(cfg->probe_image, "p:3");
    assert_string_equal(cfg->egress_network, "my-egress");
    assert_int_equal(cfg->pool_addr, 0xac1e0000u);
    assert_int_equal(cfg->pool_prefix, 20);
    assert_int_equal(cfg->proxy_port, 8080);
    assert_int_equal(cfg->agent_uid, 2000);
    assert_int_equal(cfg->agent_gid, 3000);
    assert_true(cfg->agent_user_fixed); /* set: every box runs as it */
    assert_string_equal(cfg->secrets_dir, "/run/secrets");
    assert_string_equal(cfg->workspace_root, "/srv/ws");
    assert_true(cfg->probe_interval_s == 90.0);
    assert_int_equal(cfg->limits.max_deadline_seconds, 600);
    assert_int_equal(cfg->limits.max_workspace_bytes, 1ull << 30);
    assert_int_equal(cfg->limits.max_output_bytes, 1048576);
    assert_int_equal(cfg->limits.max_millicpus, 1500); /* a YAML float */
    assert_int_equal(cfg->limits.max_pids, 100);
    assert_int_equal(cfg->limits.max_memory_bytes, 3ull << 30);
    assert_int_equal(cfg->limits.max_scratch_bytes, 1ull << 30);
    assert_int_equal(cfg->limits.max_scratch_inodes, 50000);
    assert_int_equal(cfg->limits.max_workspace_inodes, 2000);
    cfg_free(cfg);
}

/* The config's booleans go through the same conversion as a spec's. */
static void
test_cfg_bool_reads_every_spelling(void **state)
{
    static const char *const spellings[] = { "true",  "True",  "TRUE",
                                             "false", "False", "FALSE" };
    char text[200];

    (void)state;
    for (size_t i = 0; i < 6; i++) {
        struct spec_errors es;
        struct cfg *cfg;

        snprintf(text, sizeof(text),
                 "vendors: {f: {hosts: [\"v.test:443\"], allowPrivate: %s}}\n",
                 spellings[i]);
        cfg = parse(text, &es);
        assert_non_null(cfg);
        assert_int_equal(cfg_find_vendor(cfg, "f")->allow_private, i < 3);
        cfg_free(cfg);
    }
}

/* The gateway mode of docs/config.md: claude and codex switched over, a
 * test vendor with the default header, and an explicit env vendor. */
static void
test_cfg_gateway_mode_parses(void **state)
{
    static const char text[] =
        "vendors:\n"
        "  claude:\n"
        "    hosts: [\"api.anthropic.com:443\"]\n"
        "    credentialEnv: ANTHROPIC_API_KEY\n"
        "    credentialMode: gateway\n"
        "    gateway:\n"
        "      authHeader: x-api-key\n"
        "      allow: [\"POST /v1/messages\"]\n"
        "      baseUrlEnv: ANTHROPIC_BASE_URL\n"
        "  codex:\n"
        "    hosts: [\"api.openai.com:443\"]\n"
        "    credentialEnv: CODEX_API_KEY\n"
        "    credentialMode: gateway\n"
        "    gateway: {authHeader: bearer, allow: [\"POST /v1/responses\"]}\n"
        "  local:\n"
        "    hosts: [\"vendor.test:443\"]\n"
        "    allowPrivate: true\n"
        "    credentialMode: gateway\n"
        "    gateway: {allow: [\"POST /v1/messages\", \"GET /v1/models/\"]}\n"
        "  plain: {hosts: [\"a.test:443\"], credentialMode: env}\n"
        "images: {gateway: \"reg.test/gw:2\"}\n"
        "limits: {maxVendorRequests: 1000, maxVendorBytes: 1Gi,\n"
        "         maxVendorTokens: 2000000}\n";
    struct spec_errors es;
    struct cfg *cfg = parse(text, &es);
    const struct cfg_vendor *v;

    (void)state;
    assert_non_null(cfg);
    v = cfg_find_vendor(cfg, "claude");
    assert_int_equal(v->credential_mode, CFG_CREDENTIAL_GATEWAY);
    assert_string_equal(v->credential_env, "ANTHROPIC_API_KEY");
    assert_string_equal(v->gateway_auth_header, "x-api-key");
    assert_int_equal(v->n_gateway_allow, 1);
    assert_string_equal(v->gateway_allow[0], "POST /v1/messages");
    assert_string_equal(v->gateway_base_url_env, "ANTHROPIC_BASE_URL");
    v = cfg_find_vendor(cfg, "codex");
    assert_int_equal(v->credential_mode, CFG_CREDENTIAL_GATEWAY);
    assert_string_equal(v->gateway_auth_header, "bearer");
    assert_int_equal(v->n_gateway_allow, 1);
    assert_string_equal(v->gateway_allow[0], "POST /v1/responses");
    assert_null(v->gateway_base_url_env);
    /* the request policy: the authHeader's API unless said */
    assert_string_equal(v->gateway_body_policy, "openai");
    /* authHeader defaults to x-api-key; credentialEnv is optional. */
    v = cfg_find_vendor(cfg, "local");
    assert_string_equal(v->gateway_auth_header, "x-api-key");
    assert_null(v->credential_env);
    assert_true(v->allow_private);
    assert_int_equal(v->n_gateway_allow, 2);
    assert_string_equal(v->gateway_allow[1], "GET /v1/models/");
    assert_string_equal(v->gateway_body_policy, "anthropic");
    v = cfg_find_vendor(cfg, "plain");
    assert_null(v->gateway_body_policy);
    assert_int_equal(v->credential_mode, CFG_CREDENTIAL_ENV);
    assert_null(v->gateway_auth_header);
    assert_null(v->gateway_allow);
    assert_string_equal(cfg->gateway_image, "reg.test/gw:2");
    assert_int_equal(cfg->limits.max_vendor_requests, 1000);
    assert_int_equal(cfg->limits.max_vendor_bytes, 1ull << 30);
    assert_int_equal(cfg->limits.max_vendor_tokens, 2000000);
    cfg_free(cfg);
}

/* The request policy's keys: the API, and the names that widen it, with
 * agent-gateway's own rules (common/http_rule.c). */
static void
test_cfg_gateway_body_policy(void **state)
{
    const char *text =
        "vendors:\n"
        "  claude:\n"
        "    hosts: [\"llm.vendor.test:443\"]\n"
        "    credentialMode: gateway\n"
        "    gateway:\n"
        "      allow: [\"POST /v1/messages\"]\n"
        "      bodyPolicy: off\n"
        "      allowServerTools: [web_fetch_20250910]\n"
        "      allowBetas: [a-beta]\n"
        "      allowFields: [container]\n";
    const char *bad =
        "vendors:\n"
        "  claude:\n"
        "    hosts: [\"llm.vendor.test:443\"]\n"
        "    credentialMode: gateway\n"
        "    gateway:\n"
        "      allow: [\"POST /v1/messages\"]\n"
        "      bodyPolicy: gemini\n"
        "      allowBetas: [\"a b\"]\n";
    struct spec_errors es;
    struct cfg *cfg = parse(text, &es);
    const struct cfg_vendor *v;

    (void)state;
    assert_non_null(cfg);
    v = cfg_find_vendor(cfg, "claude");
    assert_string_equal(v->gateway_body_policy, "off");
    assert_int_equal(v->gateway_allow_tools.n, 1);
    assert_string_equal(v->gateway_allow_tools.v[0], "web_fetch_20250910");
    assert_string_equal(v->gateway_allow_betas.v[0], "a-beta");
    assert_string_equal(v->gateway_allow_fields.v[0], "container");
    cfg_free(cfg);
    assert_null(parse(bad, &es));
    assert_true(has_error(&es, 7, 19, "vendors.claude.gateway.bodyPolicy",
                          "must be one of anthropic, openai, off"));
    assert_true(has_error(&es, 8, 20, "vendors.claude.gateway.allowBetas[0]",
                          "printable ASCII without spaces"));
}

/* gateway.caFile is read at load: a PEM bundle, named in the error
 * otherwise. */
static void
test_cfg_gateway_ca_file(void **state)
{
    static const char head[] = "vendors:\n"
                               "  v:\n"
                               "    hosts: [\"v.test:443\"]\n"
                               "    credentialMode: gateway\n"
                               "    gateway:\n"
                               "      allow: [\"POST /v1/messages\"]\n"
                               "      caFile: ";
    char text[400];
    struct spec_errors es;
    struct cfg *cfg;
    FILE *f = fopen("/tmp/test_cfg_ca.pem", "w");

    (void)state;
    assert_non_null(f);
    fputs("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", f);
    fclose(f);
    snprintf(text, sizeof(text), "%s/tmp/test_cfg_ca.pem\n", head);
    cfg = parse(text, &es);
    assert_non_null(cfg);
    assert_non_null(strstr(cfg_find_vendor(cfg, "v")->gateway_ca_pem,
                           "BEGIN CERTIFICATE"));
    cfg_free(cfg);
    snprintf(text, sizeof(text), "%s/nonexistent/ca.pem\n", head);
    assert_null(parse(text, &es));
    assert_true(has_error(&es, 7, 15, "vendors.v.gateway.caFile",
                          "/nonexistent/ca.pem: No such file"));
    snprintf(text, sizeof(text), "%s/etc/hostname\n", head);
    assert_null(parse(text, &es));
    assert_true(has_error(&es, 7, 15, "vendors.v.gateway.caFile",
                          "not a PEM certificate bundle"));
    unlink("/tmp/test_cfg_ca.pem");
}

/* 0 says "no cap"; the highest request cap is agent-gateway's own range
 * for --max-requests, the highest byte cap the quantity parser's (under
 * the gateway's 1e18 for --max-bytes). */
static void
test_cfg_vendor_limits_zero_and_gateway_maximum(void **state)
{
    static const char *const ok[] = {
        "limits: {maxVendorRequests: 0, maxVendorBytes: 0}\n",
        ("limits: {maxVendorRequests: 1000000000000000,\n"
         "         maxVendorBytes: 16Pi, maxVendorTokens: 1000000000000000}\n"),
        "limits: {maxVendorTokens: 0}\n",
        "limits: {maxVendorBytes: \"0\"}\n",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        struct spec_errors es;
        struct cfg *cfg = parse(ok[i], &es);

        if (cfg == NULL)
            fail_msg("\"%s\" refused: %s", ok[i], es.items[0].msg);
        cfg_free(cfg);
    }
}

/* Write rule as a YAML double-quoted scalar (controls as \xNN). */
static void
yaml_quote(const char *rule, char *out, size_t size)
{
    size_t n = 0;

    out[n++] = '"';
    for (const unsigned char *c = (const unsigned char *)rule; *c != '\0';
         c++) {
        if (*c < 0x20 || *c == 0x7f)
            n += (size_t)snprintf(out + n, size - n, "\\x%02x", *c);
        else if (*c == '"' || *c == '\\')
            n += (size_t)snprintf(out + n, size - n, "\\%c", *c);
        else
            out[n++] = (char)*c;
    }
    out[n++] = '"';
    out[n] = '\0';
}

/* The config and agent-gateway --allow agree on every rule: the config
 * must never accept a rule the gateway refuses at start (nor the other
 * way round, which would make a working flag unconfigurable). */
static void
test_cfg_gateway_allow_agrees_with_agent_gateway(void **state)
{
    static const char *const rules[] = {
        "POST /v1/messages",
        "GET /",
        "GET /v1/models/",
        "POST /%41",
        "ABCDEFGHIJKLMNOP /v1",
        "POST /",
        "ABCDEFGHIJKLMNOPQ /v1",
        "post /v1",
        "Post /v1",
        "PO-ST /v1",
        "POST",
        " /v1",
        "POST  /v1",
        "POST /v1 x",
        "POST v1",
        "POST /v1?x=1",
        "POST /v1#f",
        "POST /v1/../x",
        "POST /v1/./x",
        "POST /v1//x",
        "POST /v1/%2e%2e",
        "POST /v1/%2F",
        "POST /v1;x",
        "POST /v1\\x",
        "POST /v1\t",
        "POST /v1\x7f",
        "POST /v1/\xc3\xa9",
    };
    const size_t n = sizeof(rules) / sizeof(rules[0]);
    char rule[300], quoted[1400], text[1600];
    size_t accepted = 0;

    (void)state;
    /* The table, then a prefix of 256 characters and one of 257. */
    for (size_t i = 0; i < n + 2; i++) {
        struct gw_policy pol = { 0 };
        struct spec_errors es;
        struct cfg *cfg;
        bool gw_ok;

        if (i < n) {
            snprintf(rule, sizeof(rule), "%s", rules[i]);
        } else {
            memset(rule, 'a', sizeof(rule));
            memcpy(rule, "GET /", 5);
            rule[4 + HTTP_RULE_PREFIX_MAX + (i - n)] = '\0';
        }
        yaml_quote(rule, quoted, sizeof(quoted));
        snprintf(text, sizeof(text),
                 "vendors: {g: {hosts: [\"a.test:443\"], "
                 "credentialMode: gateway, gateway: {allow: [%s]}}}\n",
                 quoted);
        gw_ok = gw_policy_add(&pol, rule, NULL) == 0;
        cfg = parse(text, &es);
        if (gw_ok != (cfg != NULL))
            fail_msg("rule \"%s\": agent-gateway %s it, the config %s (%s)",
                     rule, gw_ok ? "accepts" : "refuses",
                     cfg ? "accepts" : "refuses",
                     es.n > 0 ? es.items[0].msg : "");
        if (cfg != NULL)
            assert_string_equal(cfg_find_vendor(cfg, "g")->gateway_allow[0],
                                rule);
        accepted += cfg != NULL;
        cfg_free(cfg);
    }
    assert_int_equal(accepted, 7); /* the first six and the 256 prefix */
}

/* warmPool: sorted by vendor name, a 0 entry dropped, the built-in
 * vendors and the file's alike; warmPool written before vendors still
 * sees the file's vendors. */
static void
test_cfg_warm_pool_parses(void **state)
{
    static const char text[] =
        "warmPool: {fake: 1, claude: 2, codex: 0, local: 64}\n"
        "vendors:\n"
        "  fake: {hosts: [\"vendor.test:443\"], allowPrivate: true}\n"
        "  local: {hosts: [\"a.test:443\"]}\n";
    struct spec_errors es;
    struct cfg *cfg = parse(text, &es);

    (void)state;
    assert_non_null(cfg);
    assert_int_equal(cfg->n_warm_pool, 3);
    assert_string_equal(cfg->warm_pool[0].vendor, "claude");
    assert_int_equal(cfg->warm_pool[0].count, 2);
    assert_string_equal(cfg->warm_pool[1].vendor, "fake");
    assert_int_equal(cfg->warm_pool[1].count, 1);
    assert_string_equal(cfg->warm_pool[2].vendor, "local");
    assert_int_equal(cfg->warm_pool[2].count, 64);
    assert_int_equal(cfg_warm_count(cfg, "claude"), 2);
    assert_int_equal(cfg_warm_count(cfg, "fake"), 1);
    assert_int_equal(cfg_warm_count(cfg, "local"), 64);
    assert_int_equal(cfg_warm_count(cfg, "codex"), 0); /* 0: none */
    assert_int_equal(cfg_warm_count(cfg, "nope"), 0);
    assert_int_equal(cfg_warm_count(cfg, NULL), 0);
    assert_int_equal(cfg_warm_count(NULL, "claude"), 0);
    cfg_free(cfg);

    /* An empty mapping and all-zero counts are no pool. */
    cfg = parse("warmPool: {}\n", &es);
    assert_non_null(cfg);
    assert_int_equal(cfg->n_warm_pool, 0);
    cfg_free(cfg);
    cfg = parse("warmPool: {claude: 0, codex: 0}\n", &es);
    assert_non_null(cfg);
    assert_int_equal(cfg->n_warm_pool, 0);
    assert_int_equal(cfg_warm_count(cfg, "claude"), 0);
    cfg_free(cfg);
}

/* The vendor checks run once the whole file is read: a vendor defined
 * after warmPool is found, and one in gateway mode has a pool too (its
 * gateway is made at the hand-over). */
static void
test_cfg_warm_pool_before_vendors(void **state)
{
    static const char ok[] = "warmPool:\n"
                             "  late: 3\n"
                             "vendors:\n"
                             "  late: {hosts: [\"a.test:443\"]}\n";
    static const char gw[] = "warmPool:\n"
                             "  claude: 1\n"
                             "vendors:\n"
                             "  claude:\n"
                             "    hosts: [\"api.anthropic.com:443\"]\n"
                             "    credentialMode: gateway\n"
                             "    gateway: {allow: [\"POST /v1/messages\"]}\n";
    struct spec_errors es;
    struct cfg *cfg = parse(ok, &es);

    (void)state;
    assert_non_null(cfg);
    assert_int_equal(cfg_warm_count(cfg, "late"), 3);
    cfg_free(cfg);

    cfg = parse(gw, &es);
    assert_non_null(cfg);
    assert_int_equal(cfg_warm_count(cfg, "claude"), 1);
    assert_int_equal(cfg_find_vendor(cfg, "claude")->credential_mode,
                     CFG_CREDENTIAL_GATEWAY);
    cfg_free(cfg);
}

/* credentialMode: gateway is the default for a profile with credentialEnv
 * or a gateway block; env is said explicitly, and a profile with neither
 * has no key to hold. */
static void
test_cfg_credential_mode_default(void **state)
{
    static const char text[] =
        "vendors:\n"
        "  a: {hosts: [\"a.test:443\"], credentialEnv: A_KEY,\n"
        "      gateway: {allow: [\"POST /v1\"]}}\n"
        "  b: {hosts: [\"b.test:443\"], gateway: {allow: [\"POST /v1\"]}}\n"
        "  c: {hosts: [\"c.test:443\"], credentialEnv: C_KEY,\n"
        "      credentialMode: env}\n"
        "  d: {hosts: [\"d.test:443\"]}\n";
    struct spec_errors es;
    struct cfg *cfg = parse(text, &es);

    (void)state;
    assert_non_null(cfg);
    assert_int_equal(cfg_find_vendor(cfg, "a")->credential_mode,
                     CFG_CREDENTIAL_GATEWAY);
    assert_int_equal(cfg_find_vendor(cfg, "b")->credential_mode,
                     CFG_CREDENTIAL_GATEWAY);
    assert_int_equal(cfg_find_vendor(cfg, "c")->credential_mode,
                     CFG_CREDENTIAL_ENV);
    assert_int_equal(cfg_find_vendor(cfg, "d")->credential_mode,
                     CFG_CREDENTIAL_ENV);
    cfg_free(cfg);
}

/* A vendor whose profile has errors is reported there once, not again as
 * an unknown vendor in warmPool. */
static void
test_cfg_warm_pool_bad_vendor_reported_once(void **state)
{
    static const char text[] = "warmPool: {fake: 1}\n"
                               "vendors:\n"
                               "  fake: {allowPrivate: true}\n";
    struct spec_errors es;

    (void)state;
    assert_null(parse(text, &es));
    assert_int_equal(es.n, 1);
    assert_true(has_error(&es, 3, 9, "vendors.fake", "hosts is required"));
}

/* The whole message, formatted as the daemon and the CLI print it. */
static void
test_cfg_warm_pool_error_format(void **state)
{
    struct spec_errors es;
    char buf[600];

    (void)state;
    assert_null(parse("proxyPort: 3128\nwarmPool: {claude: 1, foo: 2}\n", &es));
    assert_int_equal(es.n, 1);
    assert_string_equal(err_format(&es.items[0], buf, sizeof(buf)),
                        "c.yaml:2:23: warmPool.foo: vendor \"foo\" is not "
                        "defined in vendors");
    assert_null(parse("warmPool: {fake: 65}\n", &es));
    assert_int_equal(es.n, 2); /* the count, and fake is not a vendor */
    assert_string_equal(err_format(&es.items[0], buf, sizeof(buf)),
                        "c.yaml:1:18: warmPool.fake: must be an integer "
                        "0..64, got 65");
}

/* More names than a config can have vendors: refused as a whole at the
 * mapping, before any entry is kept or looked up. */
static void
test_cfg_warm_pool_more_entries_than_vendors(void **state)
{
    char text[2048];
    size_t len = 0;
    struct spec_errors es;

    (void)state;
    len += (size_t)snprintf(text, sizeof(text), "warmPool:\n");
    for (int i = 0; i <= CFG_MAX_VENDORS; i++)
        len +=
            (size_t)snprintf(text + len, sizeof(text) - len, "  v%d: 1\n", i);
    assert_true(len < sizeof(text));
    assert_null(parse(text, &es));
    assert_int_equal(es.n, 1);
    assert_true(has_error(&es, 2, 3, "warmPool",
                          "more than 64 entries (a config has at most 64 "
                          "vendors)"));
}

struct ecase {
    const char *name;
    const char *text;
    unsigned line, col;
    const char *field;
    const char *needle;
};

static const struct ecase error_cases[] = {
    { "unknown top-level key", "proxyPort: 1\nproxyPrt: 2\n", 2, 1, "",
      "unknown field \"proxyPrt\" (did you mean \"proxyPort\"?)" },
    { "unknown key in a vendor",
      "vendors:\n  fake:\n    hosts: [\"vendor.test:443\"]\n"
      "    allowPrivat: true\n",
      4, 5, "vendors.fake",
      "unknown field \"allowPrivat\" (did you mean \"allowPrivate\"?)" },
    { "unknown key in limits", "limits:\n  maxDeadlineSeconds: 5\n  cpu: 1\n",
      3, 3, "limits", "unknown field \"cpu\"" },
    { "unknown key in images", "images: {proxy: a, sidecar: b}\n", 1, 20,
      "images", "unknown field \"sidecar\"" },
    { "vendor without hosts", "vendors:\n  fake: {allowPrivate: true}\n", 2, 9,
      "vendors.fake", "hosts is required" },
    { "vendor name not a label", "vendors:\n  Fake_1: {hosts: [\"a.b:1\"]}\n",
      2, 3, "vendors", "not a DNS-1123 label" },
    { "vendor not a mapping", "vendors:\n  fake: [a]\n", 2, 9, "vendors.fake",
      "expected a mapping, got array" },
    { "host without port", "vendors:\n  f: {hosts: [vendor.test]}\n", 2, 15,
      "vendors.f.hosts[0]", "expected host:port" },
    { "port zero", "vendors:\n  f: {hosts: [\"vendor.test:0\"]}\n", 2, 15,
      "vendors.f.hosts[0]", "expected host:port" },
    { "port too big",
      "vendors:\n  f: {hosts: [\"a.test:443\", \"b.test:65536\"]}\n", 2, 29,
      "vendors.f.hosts[1]", "expected host:port" },
    { "url instead of host",
      "vendors:\n  f: {hosts: [\"https://a.test:443\"]}\n", 2, 15,
      "vendors.f.hosts[0]", "expected host:port" },
    { "numeric-looking name", "vendors:\n  f: {hosts: [\"127.1:443\"]}\n", 2,
      15, "vendors.f.hosts[0]", "expected host:port" },
    { "unbracketed IPv6", "vendors:\n  f: {hosts: [\"::1:443\"]}\n", 2, 15,
      "vendors.f.hosts[0]", "expected host:port" },
    { "empty hosts", "vendors:\n  f: {hosts: []}\n", 2, 14, "vendors.f.hosts",
      "expected a list of 1 to" },
    { "credentialEnv not a name",
      "vendors:\n  f: {hosts: [\"a.b:1\"], "
      "credentialEnv: \"A-B\"}\n",
      2, 40, "vendors.f.credentialEnv", "not a valid variable name" },
    { "credentialEnv reserved",
      "vendors:\n  f: {hosts: [\"a.b:1\"], "
      "credentialEnv: HTTPS_PROXY}\n",
      2, 40, "vendors.f.credentialEnv", "set by the controller" },
    { "allowPrivate not bool",
      "vendors:\n  f: {hosts: [\"a.b:1\"], "
      "allowPrivate: yes}\n",
      2, 39, "vendors.f.allowPrivate", "expected a boolean" },
    { "subnet prefix too long", "subnetPool: 10.213.0.0/25\n", 1, 13,
      "subnetPool", "prefix must be /8../24" },
    { "subnet prefix too short", "subnetPool: 10.0.0.0/7\n", 1, 13,
      "subnetPool", "prefix must be /8../24" },
    { "subnet host bits", "subnetPool: 10.213.0.1/16\n", 1, 13, "subnetPool",
      "host bits set" },
    { "subnet without prefix", "subnetPool: 10.213.0.0\n", 1, 13, "subnetPool",
      "expected an IPv4 CIDR" },
    { "subnet short quad", "subnetPool: 10.213.0/16\n", 1, 13, "subnetPool",
      "expected an IPv4 CIDR" },
    { "subnet octet range", "subnetPool: 300.1.0.0/16\n", 1, 13, "subnetPool",
      "expected an IPv4 CIDR" },
    { "subnet leading zero", "subnetPool: 010.213.0.0/16\n", 1, 13,
      "subnetPool", "expected an IPv4 CIDR" },
    { "subnet IPv6", "subnetPool: \"fd00::/64\"\n", 1, 13, "subnetPool",
      "expected an IPv4 CIDR" },
    { "agentUser root", "agentUser: \"0:0\"\n", 1, 12, "agentUser",
      "must not run as root" },
    { "agentUser uid 0", "agentUser: \"0:1000\"\n", 1, 12, "agentUser",
      "must not run as root" },
    { "agentUser gid 0", "agentUser: \"1000:0\"\n", 1, 12, "agentUser",
      "must not run as root" },
    { "agentUser by name", "agentUser: nobody\n", 1, 12, "agentUser",
      "expected numeric \"uid:gid\"" },
    { "agentUser uid only", "agentUser: \"1000\"\n", 1, 12, "agentUser",
      "expected numeric \"uid:gid\"" },
    { "agentUser negative", "agentUser: \"-1:1000\"\n", 1, 12, "agentUser",
      "expected numeric \"uid:gid\"" },
    { "agentUser three parts", "agentUser: \"1:2:3\"\n", 1, 12, "agentUser",
      "expected numeric \"uid:gid\"" },
    { "agentUidBase in the system range", "agentUidBase: 1000\n", 1, 15,
      "agentUidBase", "from 65536" },
    { "agentUidBase past 2^31", "agentUidBase: 2130706433\n", 1, 15,
      "agentUidBase", "to 2130706432" },
    { "agentUidBase as string", "agentUidBase: \"100000\"\n", 1, 15,
      "agentUidBase", "expected an integer" },
    { "landlock unknown", "landlock: maybe\n", 1, 11, "landlock",
      "expected \"required\" or \"optional\"" },
    { "maxRunnerSeconds 0", "limits: {maxRunnerSeconds: 0}\n", 1, 28,
      "limits.maxRunnerSeconds", "from 1 to 86400" },
    { "maxRunnerOutputBytes too big", "limits: {maxRunnerOutputBytes: 17Mi}\n",
      1, 32, "limits.maxRunnerOutputBytes", "at most 16Mi" },
    { "proxyPort as string", "proxyPort: \"3128\"\n", 1, 12, "proxyPort",
      "expected an integer, got string" },
    { "proxyPort zero", "proxyPort: 0\n", 1, 12, "proxyPort",
      "from 1 to 65535" },
    { "proxyPort too big", "proxyPort: 70000\n", 1, 12, "proxyPort",
      "from 1 to 65535" },
    { "deadline over CRD max", "limits: {maxDeadlineSeconds: 86401}\n", 1, 30,
      "limits.maxDeadlineSeconds", "from 1 to 86400" },
    { "workspace quantity", "limits: {maxWorkspaceBytes: lots}\n", 1, 29,
      "limits.maxWorkspaceBytes", "" },
    { "output zero", "limits: {maxOutputBytes: 0}\n", 1, 26,
      "limits.maxOutputBytes", "at least 1" },
    { "cpus under Docker's minimum", "limits: {maxCpus: 5m}\n", 1, 19,
      "limits.maxCpus", "must be at least 10m (0.01 CPU), got 5m" },
    { "cpus not a quantity", "limits: {maxCpus: [1]}\n", 1, 19,
      "limits.maxCpus", "expected CPUs such as 8" },
    { "pids under the CRD's minimum", "limits: {maxPids: 7}\n", 1, 19,
      "limits.maxPids", "from 8 to 65536" },
    { "scratch bytes zero", "limits: {maxScratchBytes: 0}\n", 1, 27,
      "limits.maxScratchBytes", "at least 1" },
    { "memory quantity", "limits: {maxMemoryBytes: lots}\n", 1, 26,
      "limits.maxMemoryBytes", "" },
    { "relative secretsDir", "secretsDir: secrets\n", 1, 13, "secretsDir",
      "absolute path" },
    { "dotdot workspaceRoot", "workspaceRoot: /srv/../etc\n", 1, 16,
      "workspaceRoot", "without \"..\"" },
    { "probeInterval not a duration", "probeInterval: soon\n", 1, 16,
      "probeInterval", "from 1s to 24h" },
    { "probeInterval under a second", "probeInterval: 500ms\n", 1, 16,
      "probeInterval", "from 1s to 24h" },
    { "probeInterval over a day", "probeInterval: 25h\n", 1, 16,
      "probeInterval", "got \"25h\"" },
    { "probeInterval a list", "probeInterval: [1]\n", 1, 16, "probeInterval",
      "expected a duration" },
    { "egress host network", "egressNetwork: host\n", 1, 16, "egressNetwork",
      "cannot be the egress network" },
    { "egress bad name", "egressNetwork: \"-x\"\n", 1, 16, "egressNetwork",
      "not a Docker network name" },
    { "image with space", "images: {proxy: \"a b\"}\n", 1, 17, "images.proxy",
      "no spaces" },
    { "null value", "egressNetwork:\n", 1, 15, "egressNetwork",
      "expected a string, got null" },
    { "credentialMode unknown",
      "vendors:\n  f: {hosts: [\"a.b:1\"], credentialMode: proxy}\n", 2, 41,
      "vendors.f.credentialMode",
      "must be one of env, gateway; got \"proxy\"" },
    { "gateway block in env mode",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: env\n"
      "    gateway: {allow: [\"POST /v1\"]}\n",
      5, 5, "vendors.f.gateway", "only with credentialMode: gateway" },
    { "gateway block in env mode",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: env\n"
      "    gateway: {allow: [\"POST /v1\"]}\n",
      5, 5, "vendors.f.gateway", "only with credentialMode: gateway" },
    { "gateway mode with two hosts",
      "vendors:\n  f:\n    hosts: [\"a.b:1\", \"c.d:2\"]\n"
      "    credentialMode: gateway\n    gateway: {allow: [\"POST /v1\"]}\n",
      3, 12, "vendors.f.hosts",
      "credentialMode gateway takes exactly one host (the gateway's "
      "upstream), got 2" },
    { "gateway mode without a gateway block",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n",
      3, 5, "vendors.f.gateway",
      "allow is required with credentialMode: gateway" },
    { "gateway block without allow",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway: {authHeader: bearer}\n",
      5, 14, "vendors.f.gateway",
      "allow is required with credentialMode: gateway" },
    { "unknown key in gateway",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway:\n      alow: [\"POST /v1\"]\n",
      6, 7, "vendors.f.gateway",
      "unknown field \"alow\" (did you mean \"allow\"?)" },
    { "gateway not a mapping",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway: [\"POST /v1\"]\n",
      5, 14, "vendors.f.gateway", "expected a mapping, got array" },
    { "allow empty",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway: {allow: []}\n",
      5, 22, "vendors.f.gateway.allow",
      "expected a list of 1 to 64 \"METHOD /prefix\" rules" },
    { "allow a string",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway: {allow: \"POST /v1\"}\n",
      5, 22, "vendors.f.gateway.allow", "expected a list of 1 to 64" },
    { "allow rule lower-case method",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway:\n      allow: [\"POST /v1\", \"post /v2\"]\n",
      6, 27, "vendors.f.gateway.allow[1]",
      "\"post /v2\": method must be upper case" },
    { "allow rule without a path",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway:\n      allow: [POST]\n",
      6, 15, "vendors.f.gateway.allow[0]", "\"POST\": want \"METHOD /path\"" },
    { "allow rule with a query",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway:\n      allow: [\"POST /v1?beta=1\"]\n",
      6, 15, "vendors.f.gateway.allow[0]",
      "the path must be a normal absolute path without a query" },
    { "allow rule with a dot segment",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway:\n      allow: [\"POST /v1/../admin\"]\n",
      6, 15, "vendors.f.gateway.allow[0]",
      "the path must be a normal absolute path without a query" },
    { "allow rule not a string",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway:\n      allow: [[POST, /v1]]\n",
      6, 15, "vendors.f.gateway.allow[0]", "expected a string, got array" },
    { "authHeader unknown",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway: {allow: [\"POST /v1\"], authHeader: Authorization}\n",
      5, 48, "vendors.f.gateway.authHeader",
      "must be one of x-api-key, bearer; got \"Authorization\"" },
    { "baseUrlEnv not a name",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway: {allow: [\"POST /v1\"], baseUrlEnv: \"A-B\"}\n",
      5, 48, "vendors.f.gateway.baseUrlEnv", "not a valid variable name" },
    { "baseUrlEnv reserved",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    gateway: {allow: [\"POST /v1\"], baseUrlEnv: NO_PROXY}\n",
      5, 48, "vendors.f.gateway.baseUrlEnv",
      "NO_PROXY is set by the controller for other purposes" },
    { "baseUrlEnv is the credentialEnv",
      "vendors:\n  f:\n    hosts: [\"a.b:1\"]\n    credentialMode: gateway\n"
      "    credentialEnv: K\n"
      "    gateway: {allow: [\"POST /v1\"], baseUrlEnv: K}\n",
      6, 48, "vendors.f.gateway.baseUrlEnv",
      "K is the vendor's credentialEnv too" },
    { "maxVendorRequests negative", "limits: {maxVendorRequests: -1}\n", 1, 29,
      "limits.maxVendorRequests",
      "must be an integer from 0 to 1000000000000000, got -1" },
    { "maxVendorRequests over the gateway's range",
      "limits: {maxVendorRequests: 1000000000000001}\n", 1, 29,
      "limits.maxVendorRequests", "from 0 to 1000000000000000" },
    { "maxVendorRequests a quantity", "limits: {maxVendorRequests: 1k}\n", 1,
      29, "limits.maxVendorRequests", "expected an integer, got string" },
    { "maxVendorTokens negative", "limits: {maxVendorTokens: -1}\n", 1, 27,
      "limits.maxVendorTokens",
      "must be an integer from 0 to 1000000000000000, got -1" },
    { "maxVendorTokens over the gateway's range",
      "limits: {maxVendorTokens: 1000000000000001}\n", 1, 27,
      "limits.maxVendorTokens", "from 0 to 1000000000000000" },
    { "maxVendorTokens a quantity", "limits: {maxVendorTokens: 1M}\n", 1, 27,
      "limits.maxVendorTokens", "expected an integer, got string" },
    { "maxVendorBytes over the quantity range",
      "limits: {maxVendorBytes: 1Ei}\n", 1, 26, "limits.maxVendorBytes",
      "quantity is too large" },
    { "maxVendorBytes not a quantity", "limits: {maxVendorBytes: lots}\n", 1,
      26, "limits.maxVendorBytes", "" },
    { "gateway image with space", "images: {gateway: \"a b\"}\n", 1, 19,
      "images.gateway", "no spaces" },
    { "warmPool unknown vendor", "warmPool: {claude: 1, foo: 2}\n", 1, 23,
      "warmPool.foo", "vendor \"foo\" is not defined in vendors" },
    { "warmPool unknown vendor with count 0", "warmPool:\n  foo: 0\n", 2, 3,
      "warmPool.foo", "vendor \"foo\" is not defined in vendors" },
    { "warmPool count 65", "warmPool: {claude: 65}\n", 1, 20, "warmPool.claude",
      "must be an integer 0..64, got 65" },
    { "warmPool count -1", "warmPool: {claude: -1}\n", 1, 20, "warmPool.claude",
      "must be an integer 0..64, got -1" },
    { "warmPool count a word", "warmPool: {claude: two}\n", 1, 20,
      "warmPool.claude", "must be an integer 0..64, got \"two\"" },
    { "warmPool count quoted", "warmPool: {claude: \"2\"}\n", 1, 20,
      "warmPool.claude", "must be an integer 0..64, got \"2\"" },
    { "warmPool count a float", "warmPool: {claude: 1.5}\n", 1, 20,
      "warmPool.claude", "must be an integer 0..64, got 1.5" },
    { "warmPool count null", "warmPool:\n  claude:\n", 2, 10, "warmPool.claude",
      "must be an integer 0..64, got null" },
    { "warmPool count a list", "warmPool: {claude: [1]}\n", 1, 20,
      "warmPool.claude", "must be an integer 0..64, got array" },
    { "warmPool a list", "warmPool: [claude]\n", 1, 11, "warmPool",
      "expected a mapping of vendor name to count, got array" },
    { "warmPool duplicate vendor", "warmPool: {claude: 1, claude: 2}\n", 1, 23,
      "", "duplicate key \"claude\" (first at line 1)" },
    { "gateway by default needs allow",
      "vendors:\n  g: {hosts: [\"a.b:1\"], credentialEnv: K}\n", 2, 6,
      "vendors.g.gateway",
      "allow is required with credentialMode: gateway (the requests the "
      "gateway forwards, such as \"POST /v1/messages\"); gateway is the "
      "default for a vendor with credentialEnv: say credentialMode: env to "
      "put the key into the agent's environment instead" },
    { "gateway by default takes one host",
      "vendors:\n  g:\n    hosts: [\"a.b:1\", \"c.d:2\"]\n"
      "    credentialEnv: K\n    gateway: {allow: [\"POST /v1\"]}\n",
      3, 12, "vendors.g.hosts",
      "credentialMode gateway takes exactly one host" },
    { "root not a mapping", "- a\n", 1, 1, "", "expected a mapping" },
    { "two documents", "proxyPort: 1\n---\nproxyPort: 2\n", 2, 1, "",
      "one YAML document" },
};

static void
test_cfg_errors_report_line_col(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
        const struct ecase *c = &error_cases[i];
        struct spec_errors es;
        struct cfg *cfg = parse(c->text, &es);

        if (cfg != NULL ||
            !has_error(&es, c->line, c->col, c->field, c->needle))
            fail_msg("case \"%s\": expected %u:%u %s: %s", c->name, c->line,
                     c->col, c->field, c->needle);
        cfg_free(cfg);
    }
}

static void
test_cfg_reports_every_error(void **state)
{
    static const char text[] = "proxyPort: 0\n"
                               "limits:\n"
                               "  maxOutputBytes: 0\n"
                               "  extra: 1\n"
                               "agentUser: \"0:0\"\n";
    struct spec_errors es;
    struct err e = { 0 };
    char path[] = "/tmp/test_cfg.XXXXXX";
    char buf[600];
    FILE *f;
    int fd;

    (void)state;
    assert_null(parse(text, &es));
    assert_int_equal(es.n, 4);
    assert_true(has_error(&es, 1, 12, "proxyPort", "from 1 to 65535"));
    assert_true(has_error(&es, 3, 19, "limits.maxOutputBytes", "at least"));
    assert_true(has_error(&es, 4, 3, "limits", "unknown field \"extra\""));
    assert_true(has_error(&es, 5, 12, "agentUser", "root"));

    /* cfg_load gives the first one, formatted file:line:col. */
    fd = mkstemp(path);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_null(cfg_load(path, &e));
    assert_int_equal(e.code, ERR_INVALID);
    assert_int_equal(e.line, 1);
    assert_int_equal(e.col, 12);
    assert_string_equal(e.field, "proxyPort");
    err_format(&e, buf, sizeof(buf));
    assert_non_null(strstr(buf, ":1:12: proxyPort: must be an integer"));
    unlink(path);

    /* A missing file is an error naming it, not the defaults. */
    assert_null(cfg_load("/nonexistent/agentctl.yaml", &e));
    assert_non_null(strstr(e.msg, "cannot read"));
    assert_string_equal(e.file, "/nonexistent/agentctl.yaml");
}

/* ---- admission ----------------------------------------------------------- */

#define SPEC_HEAD                                                              \
    "apiVersion: agentctl.dev/v1alpha1\n"                                      \
    "kind: AgentInvocation\n"                                                  \
    "metadata: {name: t}\n"                                                    \
    "spec:\n"                                                                  \
    "  phase: execute\n"                                                       \
    "  image: a:1\n"                                                           \
    "  command: [x]\n"

static struct spec_invocation *
load_spec(const char *text)
{
    struct spec_file f;
    struct spec_invocation *inv;

    if (spec_load_buffer("s.yaml", text, strlen(text), &f) != 0) {
        spec_file_print_errors(&f, stderr);
        fail_msg("test spec does not load");
    }
    assert_int_equal(f.n, 1);
    inv = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    return inv;
}

struct acase {
    const char *name;
    const char *spec; /* appended to SPEC_HEAD */
    const char *field;
    const char *msg; /* exact message; NULL = admitted */
};

static const struct acase admit_cases[] = {
    { "admitted", "  vendor: claude\n  deadlineSeconds: 60\n", NULL, NULL },
    { "unknown vendor", "  vendor: x\n  deadlineSeconds: 60\n", "spec.vendor",
      "vendor \"x\" is not configured (known: claude, codex, fake)" },
    { "deadline over limit", "  vendor: claude\n  deadlineSeconds: 601\n",
      "spec.deadlineSeconds",
      "601 is over the controller's limit of 600 (limits.maxDeadlineSeconds)" },
    { "deadline at limit", "  vendor: claude\n  deadlineSeconds: 600\n", NULL,
      NULL },
    { "workspace over limit",
      "  vendor: claude\n  deadlineSeconds: 60\n"
      "  workspace: {source: w, size: 65Mi}\n",
      "spec.workspace.size",
      "68157440 bytes is over the controller's limit of 67108864 "
      "(limits.maxWorkspaceBytes)" },
    { "workspace at limit",
      "  vendor: claude\n  deadlineSeconds: 60\n"
      "  workspace: {source: w, size: 64Mi}\n",
      NULL, NULL },
    { "output over limit",
      "  vendor: claude\n  deadlineSeconds: 60\n  output: {maxBytes: 2Mi}\n",
      "spec.output.maxBytes",
      "2097152 bytes is over the controller's limit of 1048576 "
      "(limits.maxOutputBytes)" },
    { "env sets credentialEnv",
      "  vendor: claude\n  deadlineSeconds: 60\n"
      "  env: {ANTHROPIC_API_KEY: sk-x}\n",
      "spec.env.ANTHROPIC_API_KEY",
      "ANTHROPIC_API_KEY carries vendor \"claude\"'s credential: use "
      "spec.credential, not env" },
    { "another vendor's credentialEnv is fine",
      "  vendor: codex\n  deadlineSeconds: 60\n"
      "  env: {ANTHROPIC_API_KEY: x}\n",
      NULL, NULL },
    { "memory over limit",
      "  vendor: claude\n  deadlineSeconds: 60\n  resources: {memory: 3Gi}\n",
      "spec.resources.memory",
      "3221225472 bytes is over the controller's limit of 2147483648 "
      "(limits.maxMemoryBytes)" },
    { "memory at limit",
      "  vendor: claude\n  deadlineSeconds: 60\n  resources: {memory: 2Gi}\n",
      NULL, NULL },
    { "cpus over limit",
      "  vendor: claude\n  deadlineSeconds: 60\n"
      "  resources: {cpus: \"2.001\"}\n",
      "spec.resources.cpus",
      "2.001 CPUs is over the controller's limit of 2 CPUs (limits.maxCpus)" },
    { "cpus at limit",
      "  vendor: claude\n  deadlineSeconds: 60\n  resources: {cpus: 2000m}\n",
      NULL, NULL },
    { "pids over limit",
      "  vendor: claude\n  deadlineSeconds: 60\n  resources: {pids: 513}\n",
      "spec.resources.pids",
      "513 is over the controller's limit of 512 (limits.maxPids)" },
    { "scratch size over limit",
      "  vendor: claude\n  deadlineSeconds: 60\n  scratch: {size: 129Mi}\n",
      "spec.scratch.size",
      "135266304 bytes is over the controller's limit of 134217728 "
      "(limits.maxScratchBytes)" },
    { "scratch inodes over limit",
      "  vendor: claude\n  deadlineSeconds: 60\n"
      "  scratch: {size: 64Mi, inodes: 20001}\n",
      "spec.scratch.inodes",
      "20001 is over the controller's limit of 20000 "
      "(limits.maxScratchInodes)" },
    { "scratch at limits",
      "  vendor: claude\n  deadlineSeconds: 60\n"
      "  scratch: {size: 128Mi, inodes: 20000}\n",
      NULL, NULL },
    { "workspace inodes over limit",
      "  vendor: claude\n  deadlineSeconds: 60\n"
      "  workspace: {source: w, size: 1Mi, inodes: 100001}\n",
      "spec.workspace.inodes",
      "100001 is over the controller's limit of 100000 "
      "(limits.maxWorkspaceInodes)" },
    { "credential without credentialEnv",
      "  vendor: fake\n  deadlineSeconds: 60\n  credential: fk\n",
      "spec.credential",
      "vendor \"fake\" has no credentialEnv to pass a credential in" },
};

/* Admit SPEC_HEAD + each case's spec against the config in cfg_text:
 * the exact field and message of a refusal, or no refusal. */
static void
run_admit_cases(const char *cfg_text, const struct acase *cases, size_t n)
{
    struct spec_errors es;
    struct cfg *cfg = parse(cfg_text, &es);
    char text[2048];

    assert_non_null(cfg);
    for (size_t i = 0; i < n; i++) {
        const struct acase *c = &cases[i];
        struct spec_invocation *inv;
        struct err e = { 0 };
        int rc;

        snprintf(text, sizeof(text), "%s%s", SPEC_HEAD, c->spec);
        inv = load_spec(text);
        rc = cfg_admit(cfg, inv, &e);
        if (c->msg == NULL && rc != 0)
            fail_msg("case \"%s\": refused: %s: %s", c->name, e.field, e.msg);
        if (c->msg != NULL &&
            (rc != -1 || e.code != ERR_INVALID ||
             strcmp(e.field, c->field) != 0 || strcmp(e.msg, c->msg) != 0))
            fail_msg("case \"%s\": got rc %d %s: %s", c->name, rc, e.field,
                     e.msg);
        if (c->msg != NULL)
            assert_string_equal(e.file, "s.yaml");
        spec_invocation_free(inv);
    }
    cfg_free(cfg);
}

static void
test_cfg_admit_rules(void **state)
{
    static const char cfg_text[] =
        "vendors: {fake: {hosts: [\"vendor.test:443\"], allowPrivate: true}}\n"
        "limits: {maxDeadlineSeconds: 600, maxWorkspaceBytes: 64Mi,\n"
        "         maxOutputBytes: 1Mi, maxMemoryBytes: 2Gi, maxCpus: 2,\n"
        "         maxPids: 512, maxScratchBytes: 128Mi,\n"
        "         maxScratchInodes: 20000, maxWorkspaceInodes: 100000}\n";

    (void)state;
    run_admit_cases(cfg_text, admit_cases,
                    sizeof(admit_cases) / sizeof(admit_cases[0]));
}

/* A config with claude in gateway mode (docs/config.md), codex in env
 * mode, a gateway vendor without credentialEnv, and vendor budget caps. */
#define GATEWAY_CFG                                                            \
    "vendors:\n"                                                               \
    "  codex: {hosts: [\"api.openai.com:443\"], credentialEnv: CODEX_API_KEY,\n" \
    "          credentialMode: env}\n"                                         \
    "  claude:\n"                                                              \
    "    hosts: [\"api.anthropic.com:443\"]\n"                                 \
    "    credentialEnv: ANTHROPIC_API_KEY\n"                                   \
    "    credentialMode: gateway\n"                                            \
    "    gateway:\n"                                                           \
    "      allow: [\"POST /v1/messages\"]\n"                                   \
    "      baseUrlEnv: ANTHROPIC_BASE_URL\n"                                   \
    "  bare:\n"                                                                \
    "    hosts: [\"vendor.test:443\"]\n"                                       \
    "    credentialMode: gateway\n"                                            \
    "    gateway: {allow: [\"POST /v1\"]}\n"

#define GW_SPEC(extra) "  vendor: claude\n  deadlineSeconds: 60\n" extra

static const struct acase gateway_admit_cases[] = {
    { "gateway vendor with a credential", GW_SPEC("  credential: k\n"), NULL,
      NULL },
    /* its gateway runs with --no-credential (test_rc_desired_gateway) */
    { "gateway vendor without a credential", GW_SPEC(""), NULL, NULL },
    { "gateway vendor without credentialEnv takes a credential",
      "  vendor: bare\n  deadlineSeconds: 60\n  credential: k\n", NULL, NULL },
    { "env sets the baseUrlEnv",
      GW_SPEC("  credential: k\n  env: {ANTHROPIC_BASE_URL: http://x}\n"),
      "spec.env.ANTHROPIC_BASE_URL",
      "set by the controller (vendor \"claude\"'s gateway URL goes in "
      "ANTHROPIC_BASE_URL)" },
    { "env sets the credentialEnv of a gateway vendor",
      GW_SPEC("  credential: k\n  env: {ANTHROPIC_API_KEY: sk-x}\n"),
      "spec.env.ANTHROPIC_API_KEY",
      "ANTHROPIC_API_KEY carries vendor \"claude\"'s credential: use "
      "spec.credential, not env" },
    { "another vendor's baseUrlEnv is fine",
      "  vendor: codex\n  deadlineSeconds: 60\n"
      "  env: {ANTHROPIC_BASE_URL: http://x}\n",
      NULL, NULL },
    { "budget at the limits",
      GW_SPEC("  credential: k\n"
              "  vendorBudget: {requests: 100, bytes: 1Mi, tokens: 100}\n"),
      NULL, NULL },
    { "tokens over the limit",
      GW_SPEC("  credential: k\n  vendorBudget: {tokens: 101}\n"),
      "spec.vendorBudget.tokens",
      "101 is over the controller's limit of 100 (limits.maxVendorTokens)" },
    { "requests over the limit",
      GW_SPEC("  credential: k\n  vendorBudget: {requests: 101}\n"),
      "spec.vendorBudget.requests",
      "101 is over the controller's limit of 100 (limits.maxVendorRequests)" },
    { "bytes over the limit",
      GW_SPEC("  credential: k\n  vendorBudget: {bytes: 1049000}\n"),
      "spec.vendorBudget.bytes",
      "1049000 bytes is over the controller's limit of 1048576 "
      "(limits.maxVendorBytes)" },
    { "budget on an env vendor",
      "  vendor: codex\n  deadlineSeconds: 60\n  credential: k\n"
      "  vendorBudget: {requests: 5}\n",
      "spec.vendorBudget",
      "vendor \"codex\" uses credentialMode env; a budget needs "
      "credentialMode gateway" },
};

static void
test_cfg_admit_gateway_rules(void **state)
{
    static const char cfg_text[] =
        GATEWAY_CFG "limits: {maxVendorRequests: 100, maxVendorBytes: 1Mi,\n"
                    "         maxVendorTokens: 100}\n";

    (void)state;
    run_admit_cases(cfg_text, gateway_admit_cases,
                    sizeof(gateway_admit_cases) /
                        sizeof(gateway_admit_cases[0]));
}

/* A vendor limit of 0 is no cap: any budget the CRD allows is admitted. */
static void
test_cfg_admit_budget_without_limits(void **state)
{
    static const struct acase cases[] = {
        { "the CRD's largest budget",
          GW_SPEC("  credential: k\n  vendorBudget:\n"
                  "    requests: 1000000000000000\n"
                  "    tokens: 1000000000000000\n"
                  "    bytes: 1000000000000000000\n"),
          NULL, NULL },
    };

    (void)state;
    run_admit_cases(GATEWAY_CFG, cases, sizeof(cases) / sizeof(cases[0]));
}

/* The built-in limits refuse the box the review asked for: 8Ti of memory
 * with a 4Ti, 100M-inode scratch tmpfs; the CRD defaults fit them. */
static void
test_cfg_admit_default_limits_cap_every_resource(void **state)
{
    static const struct {
        const char *spec;
        const char *field;
    } cases[] = {
        { "  resources: {memory: 8Ti}\n", "spec.resources.memory" },
        { "  resources: {cpus: 64}\n", "spec.resources.cpus" },
        { "  resources: {pids: 65536}\n", "spec.resources.pids" },
        { "  scratch: {size: 4Ti}\n", "spec.scratch.size" },
        { "  scratch: {inodes: 100000000}\n", "spec.scratch.inodes" },
        { "  workspace: {source: w, size: 1Gi, inodes: 100M}\n",
          "spec.workspace.inodes" },
        { "", NULL },
    };
    struct cfg *cfg = cfg_load(NULL, NULL);
    char text[1024];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct spec_invocation *inv;
        struct err e = { 0 };

        snprintf(text, sizeof(text), "%s  vendor: claude\n"
                 "  deadlineSeconds: 60\n%s", SPEC_HEAD, cases[i].spec);
        inv = load_spec(text);
        if (cases[i].field == NULL) {
            assert_int_equal(cfg_admit(cfg, inv, &e), 0);
        } else {
            assert_int_equal(cfg_admit(cfg, inv, &e), -1);
            assert_string_equal(e.field, cases[i].field);
            assert_non_null(strstr(e.msg, "over the controller's limit"));
        }
        spec_invocation_free(inv);
    }
    cfg_free(cfg);
}

/* The spec loader refuses these names already; admission checks again
 * because the desired state relies on it, so forge the spec in memory. */
static void
test_cfg_admit_rechecks_reserved_env(void **state)
{
    static const char *const names[] = { "HOME",        "HTTPS_PROXY",
                                         "AGENT_PHASE", "NO_PROXY",
                                         "no_proxy",    "A=B",
                                         "1X",          NULL };
    struct cfg *cfg = cfg_load(NULL, NULL);
    struct spec_invocation *inv =
        load_spec(SPEC_HEAD "  vendor: claude\n  deadlineSeconds: 60\n"
                            "  env: {X: y}\n");
    char *orig = inv->env.items[0].key;
    struct err e = { 0 };
    char field[64];

    (void)state;
    assert_int_equal(cfg_admit(cfg, inv, &e), 0);
    for (size_t i = 0; names[i] != NULL; i++) {
        inv->env.items[0].key = (char *)names[i];
        assert_int_equal(cfg_admit(cfg, inv, &e), -1);
        snprintf(field, sizeof(field), "spec.env.%s", names[i]);
        assert_string_equal(e.field, field);
        assert_non_null(strstr(e.msg, "cannot be set in a spec"));
    }
    inv->env.items[0].key = orig;
    spec_invocation_free(inv);
    cfg_free(cfg);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cfg_defaults),
        cmocka_unit_test(test_cfg_empty_file_is_defaults),
        cmocka_unit_test(test_cfg_example_loads),
        cmocka_unit_test(test_cfg_store_examples_load),
        cmocka_unit_test(test_cfg_full_values_applied),
        cmocka_unit_test(test_cfg_bool_reads_every_spelling),
        cmocka_unit_test(test_cfg_gateway_mode_parses),
        cmocka_unit_test(test_cfg_vendor_limits_zero_and_gateway_maximum),
        cmocka_unit_test(test_cfg_gateway_body_policy),
        cmocka_unit_test(test_cfg_gateway_ca_file),
        cmocka_unit_test(test_cfg_gateway_allow_agrees_with_agent_gateway),
        cmocka_unit_test(test_cfg_warm_pool_parses),
        cmocka_unit_test(test_cfg_warm_pool_before_vendors),
        cmocka_unit_test(test_cfg_credential_mode_default),
        cmocka_unit_test(test_cfg_warm_pool_bad_vendor_reported_once),
        cmocka_unit_test(test_cfg_warm_pool_error_format),
        cmocka_unit_test(test_cfg_warm_pool_more_entries_than_vendors),
        cmocka_unit_test(test_cfg_errors_report_line_col),
        cmocka_unit_test(test_cfg_reports_every_error),
        cmocka_unit_test(test_cfg_admit_rules),
        cmocka_unit_test(test_cfg_admit_gateway_rules),
        cmocka_unit_test(test_cfg_admit_budget_without_limits),
        cmocka_unit_test(test_cfg_admit_default_limits_cap_every_resource),
        cmocka_unit_test(test_cfg_admit_rechecks_reserved_env),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
