/* cfg_admit.c - does a spec fit this controller? The vendor must be
 * configured, the spec's credential and vendorBudget must suit the
 * vendor's credentialMode, every bound the spec sets (deadline, workspace,
 * output, memory, CPUs, pids, scratch, vendor budget) must be within the
 * config's limits, and the spec must not set what the controller sets in
 * the agent. Checked at apply time by the CLI and again by
 * rc_desired_build() before anything is created. */
#include "cfg.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define ADMIT_FIELD_MAX 300

/* Variables the controller sets in the agent (the list matches
 * spec_model.c, which refuses them at load; checked again here because
 * the desired state relies on it). */
static const char *const admit_reserved_env[] = {
    "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
    "NO_PROXY",    "no_proxy",    "ALL_PROXY",  "all_proxy",
    "AGENT_PHASE", "HOME",        NULL,
};

/* A variable name, so "K=V" can never set a second variable. */
static bool
admit_env_name_ok(const char *name)
{
    const char *k = name;

    if (!((*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') || *k == '_'))
        return false;
    for (k++; *k != '\0'; k++)
        if (!((*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') ||
              (*k >= '0' && *k <= '9') || *k == '_'))
            return false;
    for (size_t i = 0; admit_reserved_env[i] != NULL; i++)
        if (strcmp(name, admit_reserved_env[i]) == 0)
            return false;
    return true;
}

static int
admit_unknown_vendor(const struct cfg *cfg,
                     const struct spec_invocation *inv, struct err *e)
{
    char known[200] = "";
    size_t n = 0;

    for (size_t i = 0; i < cfg->n_vendors && n < sizeof(known); i++) {
        int w = snprintf(known + n, sizeof(known) - n, "%s%s", i ? ", " : "",
                         cfg->vendors[i].name);

        n = (w < 0 || (size_t)w >= sizeof(known) - n) ? sizeof(known)
                                                      : n + (size_t)w;
    }
    return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0, "spec.vendor",
                      "vendor \"%s\" is not configured (known: %s)",
                      inv->vendor ? inv->vendor : "", known);
}

/* The credential and the budget against the vendor's credentialMode: a
 * budget is kept by the gateway only, and in env mode a credential needs a
 * variable to go in. A gateway vendor's spec without a credential is
 * admitted: its gateway adds no key (--no-credential) and still applies
 * the rules and the request policy. */
static int
admit_mode(const struct cfg_vendor *vd, const struct spec_invocation *inv,
           struct err *e)
{
    bool gateway = vd->credential_mode == CFG_CREDENTIAL_GATEWAY;

    if (inv->has_vendor_budget && !gateway)
        return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0,
                          "spec.vendorBudget",
                          "vendor \"%s\" uses credentialMode env; a budget "
                          "needs credentialMode gateway",
                          vd->name);
    if (!gateway && inv->credential != NULL && vd->credential_env == NULL)
        return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0,
                          "spec.credential",
                          "vendor \"%s\" has no credentialEnv to pass a "
                          "credential in",
                          vd->name);
    return 0;
}

static int
admit_env(const struct cfg_vendor *vd, const struct spec_invocation *inv,
          struct err *e)
{
    char field[ADMIT_FIELD_MAX];

    for (size_t i = 0; i < inv->env.n; i++) {
        const char *k = inv->env.items[i].key;

        snprintf(field, sizeof(field), "spec.env.%s", k);
        if (vd->credential_env != NULL && strcmp(k, vd->credential_env) == 0)
            return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0, field,
                              "%s carries vendor \"%s\"'s credential: use "
                              "spec.credential, not env",
                              k, vd->name);
        /* Only a gateway vendor has one (cfg_vendor.c). */
        if (vd->gateway_base_url_env != NULL &&
            strcmp(k, vd->gateway_base_url_env) == 0)
            return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0, field,
                              "set by the controller (vendor \"%s\"'s "
                              "gateway URL goes in %s)",
                              vd->name, k);
        if (!admit_env_name_ok(k))
            return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0, field,
                              "%s cannot be set in a spec (set by the "
                              "controller, or not a variable name)",
                              k);
    }
    return 0;
}

/* How a bound is written in a refusal. */
enum admit_unit {
    ADMIT_BYTES, /* "68157440 bytes" */
    ADMIT_COUNT, /* "100000000" */
    ADMIT_CPUS,  /* thousandths: "16 CPUs", "1.5 CPUs" */
};

/* When a cap applies. */
enum admit_when {
    ADMIT_ALWAYS,
    ADMIT_WORKSPACE, /* only when the spec has a workspace */
    ADMIT_NONZERO,   /* only when the limit is not 0 (0 = no cap) */
};

/* One bound a spec sets and the config key that caps it. Every uint64_t
 * bound of the spec is here; deadlineSeconds (uint32_t) is checked apart. */
struct admit_cap {
    const char *field; /* spec field, named in the refusal */
    const char *limit; /* config key, named in the refusal */
    size_t spec_off;   /* uint64_t in struct spec_invocation */
    size_t limit_off;  /* uint64_t in struct cfg_limits */
    enum admit_unit unit;
    enum admit_when when;
};

#define SPEC_AT(f) offsetof(struct spec_invocation, f)
#define LIM_AT(f)  offsetof(struct cfg_limits, f)

static const struct admit_cap admit_caps[] = {
    { "spec.workspace.size", "limits.maxWorkspaceBytes",
      SPEC_AT(workspace_bytes), LIM_AT(max_workspace_bytes), ADMIT_BYTES,
      ADMIT_WORKSPACE },
    { "spec.workspace.inodes", "limits.maxWorkspaceInodes",
      SPEC_AT(workspace_inodes), LIM_AT(max_workspace_inodes), ADMIT_COUNT,
      ADMIT_WORKSPACE },
    { "spec.output.maxBytes", "limits.maxOutputBytes",
      SPEC_AT(output_max_bytes), LIM_AT(max_output_bytes), ADMIT_BYTES,
      ADMIT_ALWAYS },
    { "spec.resources.memory", "limits.maxMemoryBytes", SPEC_AT(memory_bytes),
      LIM_AT(max_memory_bytes), ADMIT_BYTES, ADMIT_ALWAYS },
    { "spec.resources.cpus", "limits.maxCpus", SPEC_AT(millicpus),
      LIM_AT(max_millicpus), ADMIT_CPUS, ADMIT_ALWAYS },
    { "spec.resources.pids", "limits.maxPids", SPEC_AT(pids), LIM_AT(max_pids),
      ADMIT_COUNT, ADMIT_ALWAYS },
    { "spec.scratch.size", "limits.maxScratchBytes", SPEC_AT(scratch_bytes),
      LIM_AT(max_scratch_bytes), ADMIT_BYTES, ADMIT_ALWAYS },
    { "spec.scratch.inodes", "limits.maxScratchInodes", SPEC_AT(scratch_inodes),
      LIM_AT(max_scratch_inodes), ADMIT_COUNT, ADMIT_ALWAYS },
    /* A part the spec leaves out is 0, under any limit. */
    { "spec.vendorBudget.requests", "limits.maxVendorRequests",
      SPEC_AT(vendor_requests), LIM_AT(max_vendor_requests), ADMIT_COUNT,
      ADMIT_NONZERO },
    { "spec.vendorBudget.bytes", "limits.maxVendorBytes", SPEC_AT(vendor_bytes),
      LIM_AT(max_vendor_bytes), ADMIT_BYTES, ADMIT_NONZERO },
    { "spec.vendorBudget.tokens", "limits.maxVendorTokens",
      SPEC_AT(vendor_tokens), LIM_AT(max_vendor_tokens), ADMIT_COUNT,
      ADMIT_NONZERO },
};

static void
admit_show(char *buf, size_t size, uint64_t v, enum admit_unit unit)
{
    unsigned long long whole = v / 1000, frac = v % 1000;

    switch (unit) {
    case ADMIT_BYTES:
        snprintf(buf, size, "%llu bytes", (unsigned long long)v);
        break;
    case ADMIT_COUNT:
        snprintf(buf, size, "%llu", (unsigned long long)v);
        break;
    case ADMIT_CPUS:
        if (frac == 0)
            snprintf(buf, size, "%llu CPUs", whole);
        else if (frac % 100 == 0)
            snprintf(buf, size, "%llu.%01llu CPUs", whole, frac / 100);
        else if (frac % 10 == 0)
            snprintf(buf, size, "%llu.%02llu CPUs", whole, frac / 10);
        else
            snprintf(buf, size, "%llu.%03llu CPUs", whole, frac);
        break;
    }
}

static int
admit_cap_check(const struct admit_cap *c, const struct cfg_limits *l,
                const struct spec_invocation *inv, struct err *e)
{
    uint64_t want = *(const uint64_t *)((const char *)inv + c->spec_off);
    uint64_t max = *(const uint64_t *)((const char *)l + c->limit_off);
    char a[48], b[48];

    if ((c->when == ADMIT_WORKSPACE && !inv->has_workspace) ||
        (c->when == ADMIT_NONZERO && max == 0) || want <= max)
        return 0;
    admit_show(a, sizeof(a), want, c->unit);
    admit_show(b, sizeof(b), max, c->unit);
    /* "bytes" once is enough: "N bytes is over ... of M" as before. */
    if (c->unit == ADMIT_BYTES)
        snprintf(b, sizeof(b), "%llu", (unsigned long long)max);
    return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0, c->field,
                      "%s is over the controller's limit of %s (%s)", a, b,
                      c->limit);
}

int
cfg_admit(const struct cfg *cfg,
                 const struct spec_invocation *inv, struct err *e)
{
    const struct cfg_limits *l = &cfg->limits;
    const struct cfg_vendor *vd = cfg_find_vendor(cfg, inv->vendor);

    if (vd == NULL)
        return admit_unknown_vendor(cfg, inv, e);
    if (admit_mode(vd, inv, e) == -1)
        return -1;
    if (inv->deadline_seconds > l->max_deadline_seconds)
        return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0,
                          "spec.deadlineSeconds",
                          "%u is over the controller's limit of %u "
                          "(limits.maxDeadlineSeconds)",
                          inv->deadline_seconds, l->max_deadline_seconds);
    for (size_t i = 0; i < sizeof(admit_caps) / sizeof(admit_caps[0]); i++)
        if (admit_cap_check(&admit_caps[i], l, inv, e) == -1)
            return -1;
    return admit_env(vd, inv, e);
}
