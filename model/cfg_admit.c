/* cfg_admit.c - does a spec fit this controller? The vendor must be
 * configured, the spec's bounds must be within the config's limits, and
 * the spec must not set what the controller sets in the agent. Checked at
 * apply time by the CLI and again by rc_desired_build() before anything is
 * created. */
#include "cfg.h"

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
        if (!admit_env_name_ok(k))
            return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0, field,
                              "%s cannot be set in a spec (set by the "
                              "controller, or not a variable name)",
                              k);
    }
    return 0;
}

int
cfg_admit(const struct cfg *cfg,
                 const struct spec_invocation *inv, struct err *e)
{
    const struct cfg_limits *l = &cfg->limits;
    const struct cfg_vendor *vd = cfg_find_vendor(cfg, inv->vendor);

    if (vd == NULL)
        return admit_unknown_vendor(cfg, inv, e);
    if (inv->deadline_seconds > l->max_deadline_seconds)
        return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0,
                          "spec.deadlineSeconds",
                          "%u is over the controller's limit of %u "
                          "(limits.maxDeadlineSeconds)",
                          inv->deadline_seconds, l->max_deadline_seconds);
    if (inv->has_workspace && inv->workspace_bytes > l->max_workspace_bytes)
        return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0,
                          "spec.workspace.size",
                          "%llu bytes is over the controller's limit of %llu "
                          "(limits.maxWorkspaceBytes)",
                          (unsigned long long)inv->workspace_bytes,
                          (unsigned long long)l->max_workspace_bytes);
    if (inv->output_max_bytes > l->max_output_bytes)
        return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0,
                          "spec.output.maxBytes",
                          "%llu bytes is over the controller's limit of %llu "
                          "(limits.maxOutputBytes)",
                          (unsigned long long)inv->output_max_bytes,
                          (unsigned long long)l->max_output_bytes);
    if (inv->credential != NULL && vd->credential_env == NULL)
        return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0,
                          "spec.credential",
                          "vendor \"%s\" has no credentialEnv to pass a "
                          "credential in",
                          vd->name);
    return admit_env(vd, inv, e);
}
