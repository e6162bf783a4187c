/* ctl_verify.c - re-prove the boundary: on every pass that is due (resync,
 * a Docker event, and right before the agent starts) each object the
 * attempt owns is inspected again by its recorded ID and checked against
 * the desired state with rc_drift_check(). There is no trusted cache of
 * daemon state; only image configs are cached, by image ID, because an
 * image ID names its content.
 *
 * Identity: the contract is that the ID behind the object's name is the
 * recorded one. Inspecting by the recorded ID costs one request per
 * object and pass, as the attribute check needs anyway; only when it
 * answers 404 is the name inspected too (a second request, on that path
 * alone). Something there is a stand-in: rc_drift_check_missing() reports
 * network.id / container.id with both IDs, a Warning event says it was
 * left in place, and its ID is remembered (status.standIns) so that the
 * rebuild after a repair refuses it instead of adopting it by its copied
 * labels. Nothing there is object.gone. While the recorded ID answers,
 * container.name proves the name is still its own (container names are
 * unique; a network cannot be renamed). Inspecting by name first would
 * cost the same on the quiet path, but answers "ambiguous" for a network
 * name held twice and cannot tell a renamed object from a gone one without
 * a second request either. The recorded ID stays the only thing cleanup
 * removes: a stand-in is never deleted.
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
    "network", "proxy",  "workspace", "git", "config",
    "scratch", "keeper", "agent",     NULL,
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
    enum ctl_phase phase = inv->rec.phase;

    inv->verify_due = false;
    inv->verified = 0;
    ctl_observe_drift(inv->ctl, rule);
    ctl_status_set_condition(inv, "Drifted", true, rule, message);
    if (phase == CTL_RUNNING) {
        ctl_run_stop(inv, CTL_FAILED, CTL_STOP_BOUNDARY_DRIFT, message);
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
    const char *proxy = ctl_record_role_id(&inv->rec, RC_ROLE_PROXY);
    const char *agent = ctl_record_role_id(&inv->rec, RC_ROLE_AGENT);
    const char *probe = ctl_record_role_id(&inv->rec, CTL_REC_PROBE);

    x->n_allowed = x->n_required = 0;
    if (proxy != NULL) {
        allowed[x->n_allowed++] = proxy;
        /* The proxy runs from its start to the end of the attempt; the
         * agent's endpoint comes and goes with its process, and its
         * container is checked on its own. */
        if (ctl_record_done(&inv->rec, CTL_PROG_PROXY_STARTED))
            required[x->n_required++] = proxy;
    }
    if (agent != NULL)
        allowed[x->n_allowed++] = agent;
    if (probe != NULL)
        allowed[x->n_allowed++] = probe;
    x->allowed = allowed;
    x->required = required;
}

/* What every check of the role needs: the recorded identity and the
 * test-only switches. A volume has no ID; its recorded "id" is the
 * CreatedAt of its create answer. While a container holds a tmpfs volume
 * mounted, CreatedAt is the ctime of the tmpfs root (it moves at the mount
 * and on writes to /work's top), so volume.created-at is checked only
 * until the keeper - the first container that mounts the volumes, started
 * only after it is recorded - is recorded. From then on Docker refuses to
 * remove a volume a container references, and container.live-mounts
 * carries it. */
static void
expect_identity(const struct ctl_inv *inv, const char *role,
                struct rc_drift_expect *x)
{
    memset(x, 0, sizeof(*x));
    x->id = ctl_record_role_id(&inv->rec, ctl_record_role(role));
    x->disabled_rules = inv->ctl->disabled_rules;
    if (rc_role_kind(role_of(role)) == RC_KIND_VOLUME) {
        if (ctl_record_role_id(&inv->rec, RC_ROLE_KEEPER) == NULL)
            x->created_at = x->id;
        x->id = NULL;
    }
}

static void
check_inspect(struct ctl_inv *inv, const char *role, const cJSON *inspect)
{
    struct rc_drift_expect x;
    struct rc_drift_report rep;
    const char *allowed[3], *required[1], *internal[1];
    enum rc_role r = role_of(role);
    const char *image = ctl_record_role_image(&inv->rec, ctl_record_role(role));
    int rc;

    expect_identity(inv, role, &x);
    x.image_id = image;
    x.image_config =
        image ? cJSON_GetObjectItemCaseSensitive(inv->ctl->image_configs, image)
              : NULL;
    if (r == RC_ROLE_NETWORK)
        fill_endpoints(inv, &x, allowed, required);
    if (r == RC_ROLE_PROXY &&
        !ctl_record_done(&inv->rec, CTL_PROG_PROXY_CONNECTED)) {
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
    cJSON_AddItemToObject(
        inv->ctl->image_configs,
        ctl_record_role_image(&inv->rec, ctl_record_role(role)), cfg);
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

    if (ctl_record_role_image(&inv->rec, ctl_record_role(role)) != NULL ||
        !cJSON_IsString(img))
        return true;
    if (strcmp(role, "agent") == 0 && inv->rec.image_id &&
        strcmp(img->valuestring, inv->rec.image_id) != 0) {
        char msg[300];

        snprintf(msg, sizeof(msg), "agent: Image is %s, expected the pinned %s",
                 img->valuestring, inv->rec.image_id);
        on_drift(inv, "container.image-id", msg);
        return false;
    }
    ctl_record_set_role_image(&inv->rec, ctl_record_role(role),
                              img->valuestring);
    return true;
}

/* Check one inspect result of the role: what its recorded ID answered, or
 * what is under its name when only the ID rule (switched off) could tell
 * it from the recorded object. */
static void
inspected(struct ctl_inv *inv, const char *role, struct dk_response *r)
{
    const char *image;
    struct err e;

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
    image = ctl_record_role_image(&inv->rec, ctl_record_role(role));
    if (image == NULL ||
        cJSON_GetObjectItemCaseSensitive(inv->ctl->image_configs, image)) {
        check_inspect(inv, role, r->json);
        return;
    }
    /* Fetch the image's config once, then check this inspect. */
    inv->pending_inspect = r->json;
    r->json = NULL;
    inv->call =
        dk_inspect(inv->ctl->dk, DK_IMAGE, image, on_image_config, inv, &e);
    if (inv->call == NULL) {
        cJSON_Delete(inv->pending_inspect);
        inv->pending_inspect = NULL;
        ctl_inv_backoff(inv, &e);
    }
}

/* Remember a stand-in by ID, so that no later step takes it for ours
 * (ctl_verify_is_standin). */
void
ctl_verify_note_standin(struct ctl_inv *inv, const char *role, const char *id)
{
    ctl_record_add_standin(&inv->rec, id, role);
}

bool
ctl_verify_is_standin(const struct ctl_inv *inv, const char *id)
{
    return ctl_record_is_standin(&inv->rec, id);
}

/* The recorded ID answered 404; by_name is what is under the name now
 * (NULL: nothing). True when that settles the role for this pass; false
 * when by_name is to be checked as usual (the ID rule is switched off by
 * the test hooks, or it is the recorded object after all). */
static bool
judge_missing(struct ctl_inv *inv, const char *role, const cJSON *by_name)
{
    struct rc_drift_expect x;
    struct rc_drift_report rep;
    enum rc_role r = role_of(role);
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(by_name, "Id");
    int rc;

    expect_identity(inv, role, &x);
    rc = rc_drift_check_missing(inv->desired, r, by_name, &x, &rep);
    if (rc == 1 && by_name != NULL) {
        ctl_event(inv, true, "StandInFound",
                  "%s %s: the recorded object (ID %.12s) is gone and a "
                  "stand-in (ID %.12s) holds the name: it is not this "
                  "attempt's and is left in place, never removed",
                  role, rep.object, x.id,
                  cJSON_IsString(sid) ? sid->valuestring : "?");
        if (cJSON_IsString(sid))
            ctl_verify_note_standin(inv, role, sid->valuestring);
        /* The recorded ID stays: cleanup removes by it (404: done). */
        on_drift(inv, rep.rule, rep.message);
        return true;
    }
    if (rc == 1) {
        ctl_record_drop_role(&inv->rec, ctl_record_role(role));
        on_drift(inv, rep.rule, rep.message);
        return true;
    }
    if (rc == 0 && by_name != NULL)
        return false;
    if (rc == -1)
        log_kv(LOG_WARN, "drift check could not run", "invocation", inv->name,
               "role", role, NULL);
    /* object.gone switched off (test hooks), or no judgement: nothing to
     * report on this pass */
    inv->verified |= 1u << r;
    ctl_inv_kick(inv, 0);
    return true;
}

static void
on_named(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    const char *role = inv->verify_role;

    (void)req;
    if (!ctl_inv_step_ok(inv, r)) {
        if (r->err->code == ERR_NOTFOUND)
            judge_missing(inv, role, NULL);
        else
            ctl_inv_backoff(inv, r->err);
        return;
    }
    if (!judge_missing(inv, role, r->json))
        inspected(inv, role, r);
}

/* The recorded ID answered 404: ask what is under the name now (a volume
 * was inspected by name already). */
static void
missing(struct ctl_inv *inv, const char *role)
{
    const char *name =
        ctl_record_role_obj_name(&inv->rec, ctl_record_role(role));
    struct err e;

    if (is_volume(role) || name == NULL) {
        judge_missing(inv, role, NULL);
        return;
    }
    inv->call = dk_inspect(
        inv->ctl->dk, strcmp(role, "network") == 0 ? DK_NETWORK : DK_CONTAINER,
        name, on_named, inv, &e);
    if (inv->call == NULL)
        ctl_inv_backoff(inv, &e);
}

static void
on_inspected(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;

    (void)req;
    if (!ctl_inv_step_ok(inv, r)) {
        if (r->err->code == ERR_NOTFOUND)
            missing(inv, inv->verify_role);
        else
            ctl_inv_backoff(inv, r->err);
        return;
    }
    inspected(inv, inv->verify_role, r);
}

static bool
inspect(struct ctl_inv *inv, const char *role)
{
    const char *id = ctl_record_role_id(&inv->rec, ctl_record_role(role));
    const char *name =
        ctl_record_role_obj_name(&inv->rec, ctl_record_role(role));
    struct err e;

    snprintf(inv->verify_role, sizeof(inv->verify_role), "%s", role);
    if (strcmp(role, "network") == 0)
        inv->call =
            dk_inspect(inv->ctl->dk, DK_NETWORK, id, on_inspected, inv, &e);
    else if (is_volume(role))
        inv->call =
            dk_inspect(inv->ctl->dk, DK_VOLUME, name, on_inspected, inv, &e);
    else
        inv->call =
            dk_inspect(inv->ctl->dk, DK_CONTAINER, id, on_inspected, inv, &e);
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
            ctl_record_role_id(&inv->rec, ctl_record_role(verify_roles[i])) !=
                NULL)
            return inspect(inv, verify_roles[i]);
    }
    inv->verify_due = false;
    inv->verified = 0;
    ctl_status_set_condition(inv, "Drifted", false, "Verified",
                             "every object matches the desired state");
    return false;
}
