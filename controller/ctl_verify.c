/* ctl_verify.c - re-prove the boundary: on every pass that is due (resync,
 * a Docker event, and right before the agent starts) each object the
 * attempt owns is inspected again by its recorded ID and checked against
 * the desired state with rc_drift_check(). There is no trusted cache of
 * daemon state; only image configs are cached, by image ID, because an
 * image ID names its content.
 *
 * Drift before the agent starts is repaired: everything of the attempt is
 * removed by ID and built again (DriftRepaired). Drift while the agent runs
 * fails closed: the agent is killed at once, stopReason boundary-drift,
 * condition Drifted=True naming object, field, expected and observed.
 */
#include "ctl.h"

#include <stdio.h>
#include <string.h>

#include "log.h"
#include "rc_drift.h"

static const char *const verify_roles[] = {
    "network", "proxy", "workspace", "git", "config", "scratch",
    "keeper",  "agent", NULL,
};

static enum rc_role
role_of(const char *name)
{
    int r = rc_role_by_name(name);

    return r < 0 ? RC_ROLE_AGENT : (enum rc_role)r;
}

static bool
is_volume(const char *role)
{
    int r = rc_role_by_name(role);

    return r >= 0 && rc_role_kind((enum rc_role)r) == RC_KIND_VOLUME;
}

void
ctl_inv_revalidate(struct ctl_inv *inv)
{
    inv->verify_due = true;
    ctl_inv_kick(inv, 0);
}

/* Fail closed while running; before the start, tear down and rebuild. */
static void
on_drift(struct ctl_inv *inv, const char *rule, const char *message)
{
    enum ctl_phase phase = ctl_status_phase(inv->status);

    inv->verify_due = false;
    inv->verified = 0;
    ctl_status_set_condition(inv, "Drifted", true, rule, message);
    if (phase == CTL_RUNNING) {
        ctl_run_stop(inv, CTL_FAILED, "boundary-drift", message);
        return;
    }
    if (ctl_phase_terminal(phase)) {
        /* A stop (deadline, output limit) came while this inspect was in
         * flight: its reason stands, cleanup removes everything, and
         * there is nothing to repair. The drift is still recorded. */
        log_kv(LOG_WARN, "drift seen after the attempt stopped", "invocation",
               inv->name, "rule", rule, NULL);
        ctl_inv_kick(inv, 0);
        return;
    }
    ctl_event(inv, true, "DriftRepaired",
              "%s: removing every object of the attempt and building it again",
              message);
    inv->repairing = true;
    inv->prestart_verified = false;
    inv->egress_checked = false;
    ctl_inv_kick(inv, 0);
}

static void
fill_endpoints(const struct ctl_inv *inv, struct rc_drift_expect *x,
               const char *allowed[3], const char *required[1])
{
    const char *proxy = ctl_status_resource_id(inv, "proxy");
    const char *agent = ctl_status_resource_id(inv, "agent");
    const char *probe = ctl_status_resource_id(inv, "probe");

    x->n_allowed = x->n_required = 0;
    if (proxy != NULL) {
        allowed[x->n_allowed++] = proxy;
        /* The proxy runs from its start to the end of the attempt; the
         * agent's endpoint comes and goes with its process, and its
         * container is checked on its own. */
        if (ctl_progress_done(inv, "proxyStarted"))
            required[x->n_required++] = proxy;
    }
    if (agent != NULL)
        allowed[x->n_allowed++] = agent;
    if (probe != NULL)
        allowed[x->n_allowed++] = probe;
    x->allowed = allowed;
    x->required = required;
}

static void
check_inspect(struct ctl_inv *inv, const char *role, const cJSON *inspect)
{
    struct rc_drift_expect x;
    struct rc_drift_report rep;
    const char *allowed[3], *required[1], *internal[1];
    enum rc_role r = role_of(role);
    const char *image = ctl_status_resource_str(inv, role, "image");
    int rc;

    memset(&x, 0, sizeof(x));
    x.id = ctl_status_resource_str(inv, role, "id");
    x.image_id = image;
    x.image_config =
        image ? cJSON_GetObjectItemCaseSensitive(inv->ctl->image_configs, image)
              : NULL;
    x.disabled_rules = inv->ctl->disabled_rules;
    if (rc_role_kind(r) == RC_KIND_VOLUME)
        x.id = NULL; /* volumes: CreatedAt moves once mounted, see rc_drift.h */
    if (r == RC_ROLE_NETWORK)
        fill_endpoints(inv, &x, allowed, required);
    if (r == RC_ROLE_PROXY && !ctl_progress_done(inv, "proxyConnected")) {
        /* created on the internal network, not yet joined to egress */
        internal[0] = inv->desired->objects[RC_ROLE_NETWORK].name;
        x.networks = internal;
        x.n_networks = 1;
    }
    rc = rc_drift_check(inv->desired, r, inspect, &x, &rep);
    if (rc == 1) {
        on_drift(inv, rep.rule, rep.message);
        return;
    }
    if (rc == -1)
        log_kv(LOG_WARN, "drift check could not run", "invocation", inv->name,
               "role", role, NULL);
    inv->verified |= 1u << r;
    ctl_inv_kick(inv, 0);
}

static void
on_image_config(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    const char *role = inv->verify_role;
    cJSON *cfg;

    (void)req;
    if (!ctl_inv_step_ok(inv, r)) {
        cJSON_Delete(inv->pending_inspect);
        inv->pending_inspect = NULL;
        ctl_inv_backoff(inv, r->err);
        return;
    }
    cfg = cJSON_DetachItemFromObjectCaseSensitive(r->json, "Config");
    if (cfg == NULL)
        cfg = cJSON_CreateObject();
    cJSON_AddItemToObject(inv->ctl->image_configs,
                          ctl_status_resource_str(inv, role, "image"), cfg);
    check_inspect(inv, role, inv->pending_inspect);
    cJSON_Delete(inv->pending_inspect);
    inv->pending_inspect = NULL;
}

/* First sight of a container: remember the image it runs (the agent's
 * must be the image pinned at capture). */
static bool
note_image(struct ctl_inv *inv, const char *role, const cJSON *inspect)
{
    const cJSON *img = cJSON_GetObjectItemCaseSensitive(inspect, "Image");
    cJSON *res = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(inv->status, "resources"), role);

    if (ctl_status_resource_str(inv, role, "image") != NULL ||
        !cJSON_IsString(img))
        return true;
    if (strcmp(role, "agent") == 0 && ctl_status_str(inv, "imageID") &&
        strcmp(img->valuestring, ctl_status_str(inv, "imageID")) != 0) {
        char msg[300];

        snprintf(msg, sizeof(msg), "agent: Image is %s, expected the pinned %s",
                 img->valuestring, ctl_status_str(inv, "imageID"));
        on_drift(inv, "container.image-id", msg);
        return false;
    }
    cJSON_AddStringToObject(res, "image", img->valuestring);
    inv->status_dirty = true;
    return true;
}

static void
on_inspected(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    const char *role = inv->verify_role;
    const char *image;
    char msg[300], path[300];
    struct err e;

    (void)req;
    if (!ctl_inv_step_ok(inv, r)) {
        if (r->err->code == ERR_NOTFOUND) {
            snprintf(msg, sizeof(msg),
                     "%s %s: removed behind the "
                     "controller's back (recorded ID %.12s is gone)",
                     role, ctl_status_resource_str(inv, role, "name"),
                     ctl_status_resource_str(inv, role, "id"));
            ctl_status_drop_resource(inv, role);
            on_drift(inv, "object.gone", msg);
            return;
        }
        ctl_inv_backoff(inv, r->err);
        return;
    }
    if (strcmp(role, "network") == 0 || is_volume(role)) {
        check_inspect(inv, role, r->json);
        return;
    }
    if (strcmp(role, "proxy") == 0) {
        const cJSON *eg = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(r->json,
                                                     "NetworkSettings"),
                    "Networks"),
                inv->ctl->cfg->egress_network),
            "IPAddress");

        if (cJSON_IsString(eg))
            snprintf(inv->proxy_egress_ip, sizeof(inv->proxy_egress_ip), "%s",
                     eg->valuestring);
    }
    if (!note_image(inv, role, r->json))
        return;
    image = ctl_status_resource_str(inv, role, "image");
    if (image == NULL ||
        cJSON_GetObjectItemCaseSensitive(inv->ctl->image_configs, image)) {
        check_inspect(inv, role, r->json);
        return;
    }
    /* Fetch the image's config once, then check this inspect. */
    inv->pending_inspect = r->json;
    r->json = NULL;
    snprintf(path, sizeof(path), "/images/%s/json", image);
    inv->call = dk_get(inv->ctl->dk, path, on_image_config, inv, &e);
    if (inv->call == NULL) {
        cJSON_Delete(inv->pending_inspect);
        inv->pending_inspect = NULL;
        ctl_inv_backoff(inv, &e);
    }
}

static bool
inspect(struct ctl_inv *inv, const char *role)
{
    const char *id = ctl_status_resource_str(inv, role, "id");
    const char *name = ctl_status_resource_str(inv, role, "name");
    char path[300];
    struct err e;

    if (strcmp(role, "network") == 0)
        snprintf(path, sizeof(path), "/networks/%s", id);
    else if (is_volume(role))
        snprintf(path, sizeof(path), "/volumes/%s", name);
    else
        snprintf(path, sizeof(path), "/containers/%s/json", id);
    snprintf(inv->verify_role, sizeof(inv->verify_role), "%s", role);
    inv->call = dk_get(inv->ctl->dk, path, on_inspected, inv, &e);
    if (inv->call == NULL)
        ctl_inv_backoff(inv, &e);
    return true;
}

bool
ctl_verify_step(struct ctl_inv *inv)
{
    if (!inv->verify_due || inv->desired == NULL)
        return false;
    for (size_t i = 0; verify_roles[i] != NULL; i++) {
        enum rc_role r = role_of(verify_roles[i]);

        if ((inv->verified & (1u << r)) == 0 &&
            ctl_status_resource_str(inv, verify_roles[i], "id") != NULL)
            return inspect(inv, verify_roles[i]);
    }
    inv->verify_due = false;
    inv->verified = 0;
    ctl_status_set_condition(inv, "Drifted", false, "Verified",
                             "every object matches the desired state");
    return false;
}
