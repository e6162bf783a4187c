/* cfg_vendor.c - the vendor profiles of a config file: each profile's
 * keys (hosts, credentialEnv, allowPrivate, credentialMode and the
 * gateway block) checked with file:line:col, the rules between them, and
 * the profile put into the sorted vendor list. Vendor hosts are checked
 * with the proxy's own authority parser (hostport_parse) and gateway rules
 * with the gateway's own rule syntax (http_rule_check), so neither helper
 * can refuse at start what the config accepted.
 */
#include "cfg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"
#include "hostport.h"
#include "http_rule.h"

/* Variables the controller sets in the agent; neither a spec's env nor a
 * vendor's credentialEnv may name them (the list matches spec_model.c). */
static const char *const cfg_reserved_env[] = {
    "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
    "NO_PROXY",    "no_proxy",    "ALL_PROXY",  "all_proxy",
    "AGENT_PHASE", "HOME",        NULL,
};

static bool
cfg_env_reserved(const char *k)
{
    for (size_t i = 0; cfg_reserved_env[i] != NULL; i++)
        if (strcmp(k, cfg_reserved_env[i]) == 0)
            return true;
    return false;
}

/* DNS-1123 label: vendor names end up in messages and flags. */
static bool
cfg_label_ok(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n > CFG_VENDOR_NAME_MAX || s[0] == '-' || s[n - 1] == '-')
        return false;
    for (; *s != '\0'; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '-'))
            return false;
    return true;
}

/* The longest item a list keeps: a normalised host:port (at most 253 +
 * 8) or a gateway rule (at most 16 + 1 + 256). */
#define CFG_ITEM_MAX (HTTP_RULE_METHOD_MAX + HTTP_RULE_PREFIX_MAX + 2)

/* Check one string item of a list and write the form to keep into out
 * (CFG_ITEM_MAX bytes); -1 after reporting the problem at it. */
typedef int cfg_item_fn(struct cfg_parse *p, const struct spec_node *it,
                        const char *field, char *out);

/* A list of 1 to max strings, each checked by fn, kept in *list (*n of
 * them: the ones that passed). */
static void
cfg_str_list(struct cfg_parse *p, const struct spec_node *v, const char *field,
             size_t max, const char *what, cfg_item_fn *fn, char ***list,
             size_t *n)
{
    char item[CFG_FIELD_MAX + 16], kept[CFG_ITEM_MAX];

    if (v->kind != SPEC_NODE_SEQ || v->n == 0 || v->n > max) {
        spec_errors_add(p->es, p->file, v, field,
                        "expected a list of 1 to %zu %s", max, what);
        return;
    }
    *list = calloc(v->n, sizeof(**list));
    if (*list == NULL) {
        cfg__nomem(p, v);
        return;
    }
    for (size_t i = 0; i < v->n; i++) {
        const struct spec_node *it = v->items[i];

        snprintf(item, sizeof(item), "%s[%zu]", field, i);
        if (!cfg__is_string(p, it, item) || fn(p, it, item, kept) == -1)
            continue;
        (*list)[*n] = strdup(kept);
        if ((*list)[*n] == NULL) {
            cfg__nomem(p, it);
            return;
        }
        (*n)++;
    }
}

static int
cfg_host_item(struct cfg_parse *p, const struct spec_node *h, const char *field,
              char *out)
{
    struct hostport a;
    struct err ae = { 0 };

    if (hostport_parse(h->value, h->len, &a, &ae) == -1)
        return spec_errors_add(p->es, p->file, h, field,
                               "expected host:port (a DNS name or IP "
                               "literal, port 1-65535): %s",
                               ae.msg);
    hostport_format(&a, out, CFG_ITEM_MAX);
    return 0;
}

static void
cfg_vendor_hosts(struct cfg_parse *p, void *ctx, const struct spec_node *v,
                 const char *field)
{
    struct cfg_vendor *vd = ctx;

    cfg_str_list(p, v, field, CFG_MAX_VENDOR_HOSTS, "host:port strings",
                 cfg_host_item, &vd->hosts, &vd->n_hosts);
}

/* A variable the controller puts something in for the vendor: the
 * credential (credentialEnv) or the gateway's URL (gateway.baseUrlEnv). */
static void
cfg_vendor_env_name(struct cfg_parse *p, void *dst, const struct spec_node *v,
                    const char *field)
{
    if (!cfg__is_string(p, v, field))
        return;
    if (!spec_env_name_ok(v->value) || v->len > 128) {
        spec_errors_add(p->es, p->file, v, field,
                        "not a valid variable name (letters, digits and "
                        "'_', not starting with a digit)");
        return;
    }
    if (cfg_env_reserved(v->value)) {
        spec_errors_add(p->es, p->file, v, field,
                        "%s is set by the controller for other purposes",
                        v->value);
        return;
    }
    cfg__set_str(p, v, dst);
}

/* The index of v's text in names (NULL-terminated), or -1 after reporting
 * the choices. */
static int
cfg_pick(struct cfg_parse *p, const struct spec_node *v, const char *field,
         const char *const *names)
{
    char list[200] = "";
    size_t len = 0;

    if (!cfg__is_string(p, v, field))
        return -1;
    for (int i = 0; names[i] != NULL; i++)
        if (strcmp(v->value, names[i]) == 0)
            return i;
    for (int i = 0; names[i] != NULL && len < sizeof(list); i++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                i ? ", " : "", names[i]);
    return spec_errors_add(p->es, p->file, v, field,
                           "must be one of %s; got \"%s\"", list, v->value);
}

static void
cfg_vendor_mode(struct cfg_parse *p, void *dst, const struct spec_node *v,
                const char *field)
{
    static const char *const modes[] = {
        [CFG_CREDENTIAL_ENV] = "env",
        [CFG_CREDENTIAL_GATEWAY] = "gateway",
        NULL,
    };
    int m = cfg_pick(p, v, field, modes);

    if (m != -1)
        *(enum cfg_credential_mode *)dst = (enum cfg_credential_mode)m;
}

/* The header agent-gateway puts the key in (its --auth-header). */
static void
cfg_gateway_auth_header(struct cfg_parse *p, void *dst,
                        const struct spec_node *v, const char *field)
{
    static const char *const headers[] = { "x-api-key", "bearer", NULL };

    if (cfg_pick(p, v, field, headers) != -1)
        cfg__set_str(p, v, dst);
}

/* A rule as agent-gateway --allow takes it, checked with the gateway's
 * own syntax (common/http_rule.c): the gateway cannot refuse it at start. */
static int
cfg_rule_item(struct cfg_parse *p, const struct spec_node *r, const char *field,
              char *out)
{
    size_t method_len;
    const char *why = http_rule_check(r->value, &method_len);

    if (why != NULL)
        return spec_errors_add(p->es, p->file, r, field, "\"%s\": %s", r->value,
                               why);
    memcpy(out, r->value, r->len + 1); /* the check bounds its length */
    return 0;
}

static void
cfg_gateway_allow(struct cfg_parse *p, void *ctx, const struct spec_node *v,
                  const char *field)
{
    struct cfg_vendor *vd = ctx;

    cfg_str_list(p, v, field, CFG_MAX_GATEWAY_RULES, "\"METHOD /prefix\" rules",
                 cfg_rule_item, &vd->gateway_allow, &vd->n_gateway_allow);
}

/* The request policy: which API's, and what widens it (docs/gateway.md
 * "Request policy"). */
static void
cfg_gateway_body_policy(struct cfg_parse *p, void *dst,
                        const struct spec_node *v, const char *field)
{
    static const char *const apis[] = { "anthropic", "openai", "off", NULL };

    if (cfg_pick(p, v, field, apis) != -1)
        cfg__set_str(p, v, dst);
}

/* gateway.caFile: a PEM bundle on the controller's host, read now (the
 * gateway gets it in its key volume, docs/gateway.md "Private vendors"):
 * a regular file of at most CFG_MAX_GATEWAY_CA bytes holding a
 * certificate. */
static void
cfg_gateway_ca_file(struct cfg_parse *p, void *dst, const struct spec_node *v,
                    const char *field)
{
    char **pem = dst, *text;
    struct err e;
    int fd = file_open_regular(v->value, 0, &e);
    ssize_t n;

    if (fd == -1) {
        spec_errors_add(p->es, p->file, v, field, "%s: %s", v->value, e.msg);
        return;
    }
    text = calloc(1, CFG_MAX_GATEWAY_CA + 2);
    n = text != NULL ? read(fd, text, CFG_MAX_GATEWAY_CA + 1) : -1;
    close(fd);
    if (n < 0 || n > (ssize_t)CFG_MAX_GATEWAY_CA ||
        strstr(text, "-----BEGIN CERTIFICATE-----") == NULL) {
        spec_errors_add(p->es, p->file, v, field,
                        n > (ssize_t)CFG_MAX_GATEWAY_CA
                            ? "%s: more than %u bytes (the key volume is "
                              "64 KiB)"
                            : "%s: not a PEM certificate bundle",
                        v->value, CFG_MAX_GATEWAY_CA);
        free(text);
        return;
    }
    free(*pem);
    *pem = text;
}

/* A name as agent-gateway's --allow-field, --allow-tool-type and
 * --allow-beta take it (common/http_rule.c). */
static int
cfg_policy_name(struct cfg_parse *p, const struct spec_node *r,
                const char *field, char *out)
{
    const char *why = http_policy_name_check(r->value);

    if (why != NULL)
        return spec_errors_add(p->es, p->file, r, field, "\"%s\": %s",
                               r->value, why);
    memcpy(out, r->value, r->len + 1); /* the check bounds its length */
    return 0;
}

/* allowFields, allowServerTools, allowBetas: ctx is the list. */
static void
cfg_gateway_widen(struct cfg_parse *p, void *ctx, const struct spec_node *v,
                  const char *field)
{
    struct cfg_names *l = ctx;

    cfg_str_list(p, v, field, CFG_MAX_GATEWAY_WIDEN, "names", cfg_policy_name,
                 &l->v, &l->n);
}

/* gateway.organization, gateway.project: an ID the gateway sends in a
 * header of its own, checked with the gateway's code (common/http_rule.c)
 * so the gateway never refuses at start what the config accepted. */
static void
cfg_gateway_header_id(struct cfg_parse *p, void *dst, const struct spec_node *v,
                      const char *field)
{
    const char *why;

    if (!cfg__is_string(p, v, field))
        return;
    why = http_header_id_check(v->value);
    if (why != NULL) {
        spec_errors_add(p->es, p->file, v, field, "\"%.140s\": %s", v->value,
                        why);
        return;
    }
    cfg__set_str(p, v, dst);
}

#define VD_AT(f) offsetof(struct cfg_vendor, f)

static const struct cfg_key cfg_gateway_keys[] = {
    { "authHeader", cfg_gateway_auth_header, VD_AT(gateway_auth_header), NULL },
    { "allow", cfg_gateway_allow, 0, NULL },
    { "baseUrlEnv", cfg_vendor_env_name, VD_AT(gateway_base_url_env), NULL },
    { "bodyPolicy", cfg_gateway_body_policy, VD_AT(gateway_body_policy),
      NULL },
    { "allowFields", cfg_gateway_widen, VD_AT(gateway_allow_fields), NULL },
    { "allowServerTools", cfg_gateway_widen, VD_AT(gateway_allow_tools),
      NULL },
    { "allowBetas", cfg_gateway_widen, VD_AT(gateway_allow_betas), NULL },
    { "caFile", cfg_gateway_ca_file, VD_AT(gateway_ca_pem), NULL },
    { "organization", cfg_gateway_header_id, VD_AT(gateway_organization),
      NULL },
    { "project", cfg_gateway_header_id, VD_AT(gateway_project), NULL },
    { NULL, NULL, 0, NULL },
};

static const struct cfg_key cfg_vendor_keys[] = {
    { "hosts", cfg_vendor_hosts, 0, NULL },
    { "credentialEnv", cfg_vendor_env_name, VD_AT(credential_env), NULL },
    { "allowPrivate", cfg__bool, VD_AT(allow_private), NULL },
    { "credentialMode", cfg_vendor_mode, VD_AT(credential_mode), NULL },
    { "gateway", NULL, 0, cfg_gateway_keys },
    { NULL, NULL, 0, NULL },
};

/* The rules of gateway mode, once every key of the profile at v is read:
 * one upstream, rules to forward, the variables apart, authHeader's
 * default; and no gateway block in env mode. */
static void
cfg_vendor_gateway_rules(struct cfg_parse *p, struct cfg_vendor *vd,
                         const struct spec_node *v, const char *field)
{
    const struct spec_pair *gw = spec_node_pair(v, "gateway");
    const struct spec_node *hosts = spec_node_get(v, "hosts");
    const struct spec_node *base =
        spec_node_get(gw ? gw->value : NULL, "baseUrlEnv");
    char f[CFG_FIELD_MAX + 32];

    snprintf(f, sizeof(f), "%s.gateway", field);
    if (vd->credential_mode != CFG_CREDENTIAL_GATEWAY) {
        if (gw != NULL)
            spec_errors_add(p->es, p->file, gw->key, f,
                            "only with credentialMode: gateway");
        return;
    }
    if (gw == NULL || (gw->value->kind == SPEC_NODE_MAP &&
                       spec_node_get(gw->value, "allow") == NULL))
        spec_errors_add(p->es, p->file, gw ? gw->value : v, f,
                        "allow is required with credentialMode: gateway "
                        "(the requests the gateway forwards, such as "
                        "\"POST /v1/messages\")%s",
                        spec_node_get(v, "credentialMode") != NULL
                            ? ""
                            : "; gateway is the default for a vendor with "
                              "credentialEnv: say credentialMode: env to "
                              "put the key into the agent's environment "
                              "instead");
    if (hosts != NULL && hosts->kind == SPEC_NODE_SEQ && hosts->n > 1) {
        snprintf(f, sizeof(f), "%s.hosts", field);
        spec_errors_add(p->es, p->file, hosts, f,
                        "credentialMode gateway takes exactly one host (the "
                        "gateway's upstream), got %u",
                        hosts->n);
    }
    if (vd->gateway_base_url_env != NULL && vd->credential_env != NULL &&
        strcmp(vd->gateway_base_url_env, vd->credential_env) == 0) {
        snprintf(f, sizeof(f), "%s.gateway.baseUrlEnv", field);
        spec_errors_add(p->es, p->file, base, f,
                        "%s is the vendor's credentialEnv too (the agent "
                        "gets a placeholder key there)",
                        base->value);
    }
    if (vd->gateway_auth_header == NULL &&
        (vd->gateway_auth_header = strdup("x-api-key")) == NULL)
        cfg__nomem(p, v);
    /* the API the key is for: x-api-key is Anthropic's, a bearer OpenAI's */
    if (vd->gateway_body_policy == NULL &&
        (vd->gateway_body_policy = strdup(
             strcmp(vd->gateway_auth_header, "bearer") == 0 ? "openai"
                                                            : "anthropic")) ==
            NULL)
        cfg__nomem(p, v);
}

static void
cfg_vendor_one(struct cfg_parse *p, const struct spec_node *k,
               const struct spec_node *v)
{
    struct cfg_vendor vd = { 0 };
    char field[CFG_FIELD_MAX];
    size_t before = p->es->n + p->es->dropped;

    snprintf(field, sizeof(field), "vendors.%s", k->value);
    if (!cfg_label_ok(k->value)) {
        spec_errors_add(p->es, p->file, k, "vendors",
                        "vendor name \"%s\" is not a DNS-1123 label "
                        "(a-z, 0-9, '-', at most 63)",
                        k->value);
        return;
    }
    cfg__walk(p, &vd, v, field, cfg_vendor_keys);
    /* A key the agent need not hold goes through the gateway unless the
     * profile says otherwise (issue 35): env is an explicit choice. */
    if (v->kind == SPEC_NODE_MAP &&
        spec_node_get(v, "credentialMode") == NULL &&
        (vd.credential_env != NULL || spec_node_get(v, "gateway") != NULL))
        vd.credential_mode = CFG_CREDENTIAL_GATEWAY;
    if (v->kind == SPEC_NODE_MAP && spec_node_get(v, "hosts") == NULL)
        spec_errors_add(p->es, p->file, v, field,
                        "hosts is required: the proxy of a vendor without "
                        "hosts could reach nothing");
    if (v->kind == SPEC_NODE_MAP)
        cfg_vendor_gateway_rules(p, &vd, v, field);
    vd.name = strdup(k->value);
    if (vd.name == NULL)
        cfg__nomem(p, k);
    if (p->es->n + p->es->dropped != before || p->nomem) {
        cfg__vendor_cleanup(&vd);
        return;
    }
    if (cfg__vendor_put(p->cfg, &vd) == -1) {
        spec_errors_add(p->es, p->file, k, "vendors",
                        "more than %d vendors (or out of memory)",
                        CFG_MAX_VENDORS);
        cfg__vendor_cleanup(&vd);
    }
}

void
cfg__vendors(struct cfg_parse *p, void *dst, const struct spec_node *v,
             const char *field)
{
    (void)dst;
    if (v->kind != SPEC_NODE_MAP) {
        spec_errors_add(p->es, p->file, v, field,
                        "expected a mapping of vendor name to profile, got %s",
                        spec_node_type_name(v));
        return;
    }
    for (size_t i = 0; i < v->n; i++)
        cfg_vendor_one(p, v->pairs[i].key, v->pairs[i].value);
}
