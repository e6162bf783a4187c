/* cfg_vendor.c - the vendor profiles of a config file: each profile's
 * keys (hosts, credentialEnv, allowPrivate) checked with file:line:col
 * and the profile put into the sorted vendor list. Vendor hosts are
 * checked with the proxy's own authority parser (hostport_parse) so the
 * proxy can never refuse an allowlist that the config accepted.
 */
#include "cfg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostport.h"

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

static void
cfg_vendor_hosts(struct cfg_parse *p, void *ctx, const struct spec_node *v,
                 const char *field)
{
    struct cfg_vendor *vd = ctx;
    char item[CFG_FIELD_MAX + 16], norm[HOSTPORT_HOST_MAX + 16];

    if (v->kind != SPEC_NODE_SEQ || v->n == 0 || v->n > CFG_MAX_VENDOR_HOSTS) {
        spec_errors_add(p->es, p->file, v, field,
                        "expected a list of 1 to %d host:port strings",
                        CFG_MAX_VENDOR_HOSTS);
        return;
    }
    vd->hosts = calloc(v->n, sizeof(*vd->hosts));
    if (vd->hosts == NULL) {
        cfg__nomem(p, v);
        return;
    }
    for (size_t i = 0; i < v->n; i++) {
        const struct spec_node *h = v->items[i];
        struct hostport a;
        struct err ae = { 0 };

        snprintf(item, sizeof(item), "%s[%zu]", field, i);
        if (!cfg__is_string(p, h, item))
            continue;
        if (hostport_parse(h->value, h->len, &a, &ae) == -1) {
            spec_errors_add(p->es, p->file, h, item,
                            "expected host:port (a DNS name or IP literal, "
                            "port 1-65535): %s",
                            ae.msg);
            continue;
        }
        hostport_format(&a, norm, sizeof(norm));
        vd->hosts[vd->n_hosts] = strdup(norm);
        if (vd->hosts[vd->n_hosts] == NULL) {
            cfg__nomem(p, h);
            return;
        }
        vd->n_hosts++;
    }
}

static void
cfg_vendor_credential_env(struct cfg_parse *p, void *dst,
                          const struct spec_node *v, const char *field)
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

static const struct cfg_key cfg_vendor_keys[] = {
    { "hosts", cfg_vendor_hosts, 0, NULL },
    { "credentialEnv", cfg_vendor_credential_env,
      offsetof(struct cfg_vendor, credential_env), NULL },
    { "allowPrivate", cfg__bool, offsetof(struct cfg_vendor, allow_private),
      NULL },
    { NULL, NULL, 0, NULL },
};

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
    if (v->kind == SPEC_NODE_MAP && spec_node_get(v, "hosts") == NULL)
        spec_errors_add(p->es, p->file, v, field,
                        "hosts is required: the proxy of a vendor without "
                        "hosts could reach nothing");
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
