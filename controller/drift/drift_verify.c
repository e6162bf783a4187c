/* drift_verify.c - re-prove the boundary: on every pass that is due (resync,
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
#include "drift_verify.h"

#include <stdio.h>
#include <string.h>

#include "drift.h"
#include "drift_neighbours.h"
#include "drift_objects.h"
#include "ctl_record.h"
#include "try_result.h"
#include "drift_start.h"
#include "inv_status.h"
#include "ctl_testhooks.h"
#include "inv_verify_part.h"
#include "log.h"
#include "rc_drift.h"

static const char *const verify_roles[] = {
    "network",     "proxy",   "gateway", "workspace", "git", "config",
    "gateway-key", "scratch", "keeper",  "agent",     NULL,
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

static void
fill_endpoints(const struct ctl_inv *inv, struct rc_drift_expect *x,
               const char *allowed[4], const char *required[2])
{
    const char *proxy = ctl_record_role_id(&inv->rec, RC_ROLE_PROXY);
    const char *gateway = ctl_record_role_id(&inv->rec, RC_ROLE_GATEWAY);
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
    /* The credential gateway, like the proxy, from its start on. */
    if (gateway != NULL) {
        allowed[x->n_allowed++] = gateway;
        if (ctl_record_done(&inv->rec, CTL_PROG_GATEWAY_STARTED))
            required[x->n_required++] = gateway;
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

/* The ID the role's image was pinned to at capture, or NULL (a helper of
 * an attempt captured before helper images were pinned, or no container). */
static const char *
pinned_image(const struct ctl_inv *inv, enum rc_role r)
{
    int h = rc_helper_of_role(r);

    if (r == RC_ROLE_AGENT)
        return inv->rec.image_id;
    if (h < 0 || !inv->desired->helpers_pinned)
        return NULL;
    return inv->desired->helper_images[h];
}

static enum ctl_step
check_inspect(struct ctl_inv *inv, const char *role, const cJSON *inspect)
{
    struct rc_drift_expect x;
    struct rc_drift_report rep;
    const char *allowed[4], *required[2], *internal[1];
    enum rc_role r = role_of(role);
    const char *image = ctl_record_role_image(&inv->rec, ctl_record_role(role));
    int rc;

    expect_identity(inv, role, &x);
    x.image_id = image;
    x.pinned_image = pinned_image(inv, r);
    x.image_config =
        image ? cJSON_GetObjectItemCaseSensitive(inv->ctl->image_configs, image)
              : NULL;
    if (r == RC_ROLE_NETWORK)
        fill_endpoints(inv, &x, allowed, required);
    if ((r == RC_ROLE_PROXY &&
         !ctl_record_done(&inv->rec, CTL_PROG_PROXY_CONNECTED)) ||
        (r == RC_ROLE_GATEWAY &&
         !ctl_record_done(&inv->rec, CTL_PROG_GATEWAY_CONNECTED))) {
        /* created on the internal network, not yet joined to egress */
        internal[0] = inv->desired->objects[RC_ROLE_NETWORK].name;
        x.networks = internal;
        x.n_networks = 1;
    }
    rc = rc_drift_check(inv->desired, r, inspect, &x, &rep);
    if (rc == 1)
        return drift_found(inv, rep.rule, rep.message);
    if (rc == -1)
        log_kv(LOG_WARN, "drift check could not run", "invocation", inv->name,
               "role", role, NULL);
    inv->verify.verified |= 1u << r;
    return CTL_STEP_DONE;
}

static enum ctl_step
on_image_config(struct ctl_inv *inv, struct dk_response *r)
{
    const char *role = inv->verify.role;
    enum ctl_step s;

    if (r->err != NULL) {
        cJSON_Delete(inv->verify.pending_inspect);
        inv->verify.pending_inspect = NULL;
        return try_step_failed(inv, r->err);
    }
    drift_objects_keep_image_config(
        inv->ctl, ctl_record_role_image(&inv->rec, ctl_record_role(role)),
        r->json);
    s = check_inspect(inv, role, inv->verify.pending_inspect);
    cJSON_Delete(inv->verify.pending_inspect);
    inv->verify.pending_inspect = NULL;
    return s;
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
        drift_found(inv, "container.image-id", msg);
        return false;
    }
    ctl_record_set_role_image(&inv->rec, ctl_record_role(role),
                              img->valuestring);
    return true;
}

/* The round's inspect of the agent by its recorded ID shows whether it
 * ever ran: the start right after the round needs no inspect of its own
 * (pass_prepare.c). */
static void
saw_agent(struct ctl_inv *inv, const cJSON *inspect)
{
    const char *id = ctl_record_role_id(&inv->rec, RC_ROLE_AGENT);
    const cJSON *got = cJSON_GetObjectItemCaseSensitive(inspect, "Id");

    if (id != NULL && cJSON_IsString(got) && strcmp(got->valuestring, id) == 0)
        drift_start_saw(inv, id, inspect);
}

/* Check one inspect result of the role: what its recorded ID answered, or
 * what is under its name when only the ID rule (switched off) could tell
 * it from the recorded object. */
static enum ctl_step
inspected(struct ctl_inv *inv, const char *role, struct dk_response *r)
{
    const char *image;
    struct err e;

    if (strcmp(role, "network") == 0 || is_volume(role))
        return check_inspect(inv, role, r->json);
    /* the egress-side addresses the boundary probe must not reach */
    if (strcmp(role, "proxy") == 0)
        drift_objects_egress_ip(inv->ctl, r->json, inv->net.proxy_egress_ip);
    else if (strcmp(role, "gateway") == 0)
        drift_objects_egress_ip(inv->ctl, r->json, inv->net.gateway_egress_ip);
    if (!note_image(inv, role, r->json))
        return CTL_STEP_DONE; /* the drift is recorded */
    if (strcmp(role, "agent") == 0)
        saw_agent(inv, r->json);
    image = ctl_record_role_image(&inv->rec, ctl_record_role(role));
    if (image == NULL ||
        cJSON_GetObjectItemCaseSensitive(inv->ctl->image_configs, image))
        return check_inspect(inv, role, r->json);
    /* Fetch the image's config once, then check this inspect. */
    inv->verify.pending_inspect = r->json;
    r->json = NULL;
    if (try_step_request(inv, on_image_config,
                         dk_inspect(inv->ctl->dk, DK_IMAGE, image,
                                    try_step_answered, inv, &e),
                         &e) == CTL_STEP_STARTED)
        return CTL_STEP_STARTED;
    cJSON_Delete(inv->verify.pending_inspect);
    inv->verify.pending_inspect = NULL;
    return CTL_STEP_FAILED;
}

/* The recorded ID answered 404; by_name is what is under the name now
 * (NULL: nothing). CTL_STEP_NONE when by_name is to be checked as usual
 * (the ID rule is switched off by the test hooks, or it is the recorded
 * object after all); else what settles the role for this pass. */
static enum ctl_step
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
        inv_event(inv, true, "StandInFound",
                  "%s %s: the recorded object (ID %.12s) is gone and a "
                  "stand-in (ID %.12s) holds the name: it is not this "
                  "attempt's and is left in place, never removed",
                  role, rep.object, x.id,
                  cJSON_IsString(sid) ? sid->valuestring : "?");
        if (cJSON_IsString(sid))
            ctl_record_add_standin(&inv->rec, sid->valuestring, role);
        /* The recorded ID stays: cleanup removes by it (404: done). */
        return drift_found(inv, rep.rule, rep.message);
    }
    if (rc == 1) {
        ctl_record_drop_role(&inv->rec, ctl_record_role(role));
        return drift_found(inv, rep.rule, rep.message);
    }
    if (rc == 0 && by_name != NULL)
        return CTL_STEP_NONE;
    if (rc == -1)
        log_kv(LOG_WARN, "drift check could not run", "invocation", inv->name,
               "role", role, NULL);
    /* object.gone switched off (test hooks), or no judgement: nothing to
     * report on this pass */
    inv->verify.verified |= 1u << r;
    return CTL_STEP_DONE;
}

static enum ctl_step
on_named(struct ctl_inv *inv, struct dk_response *r)
{
    const char *role = inv->verify.role;
    enum ctl_step s;

    if (r->err != NULL) {
        if (r->err->code != ERR_NOTFOUND)
            return try_step_failed(inv, r->err);
        return judge_missing(inv, role, NULL);
    }
    s = judge_missing(inv, role, r->json);
    return s != CTL_STEP_NONE ? s : inspected(inv, role, r);
}

/* The recorded ID answered 404: ask what is under the name now (a volume
 * was inspected by name already). */
static enum ctl_step
missing(struct ctl_inv *inv, const char *role)
{
    const char *name =
        ctl_record_role_obj_name(&inv->rec, ctl_record_role(role));
    struct err e;

    if (is_volume(role) || name == NULL)
        return judge_missing(inv, role, NULL);
    return try_step_request(
        inv, on_named,
        dk_inspect(inv->ctl->dk,
                   strcmp(role, "network") == 0 ? DK_NETWORK : DK_CONTAINER,
                   name, try_step_answered, inv, &e),
        &e);
}

static enum ctl_step
on_inspected(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err != NULL) {
        if (r->err->code != ERR_NOTFOUND)
            return try_step_failed(inv, r->err);
        return missing(inv, inv->verify.role);
    }
    return inspected(inv, inv->verify.role, r);
}

/* By the recorded ID; a volume, which has none, by its recorded name. */
static enum ctl_step
inspect(struct ctl_inv *inv, const char *role)
{
    int rr = ctl_record_role(role);
    bool volume = is_volume(role);
    struct err e;

    snprintf(inv->verify.role, sizeof(inv->verify.role), "%s", role);
    return try_step_request(
        inv, on_inspected,
        dk_inspect(inv->ctl->dk,
                   strcmp(role, "network") == 0 ? DK_NETWORK
                   : volume                     ? DK_VOLUME
                                                : DK_CONTAINER,
                   volume ? ctl_record_role_obj_name(&inv->rec, rr)
                          : ctl_record_role_id(&inv->rec, rr),
                   try_step_answered, inv, &e),
        &e);
}

enum ctl_step
drift_verify_storage_step(struct ctl_inv *inv)
{
    unsigned bits = 0;

    if (ctl_test_disabled("storage-verify")) {
        inv->verify.storage_verified = true;
        return CTL_STEP_DONE;
    }
    for (int r = 0; r < RC_ROLE_COUNT; r++) {
        if (rc_role_kind((enum rc_role)r) != RC_KIND_VOLUME)
            continue;
        bits |= 1u << r;
        if ((inv->verify.verified & (1u << r)) == 0 &&
            ctl_record_role_id(&inv->rec, r) != NULL)
            return inspect(inv, rc_role_name((enum rc_role)r));
    }
    /* the round before the start inspects them again */
    inv->verify.verified &= ~bits;
    inv->verify.storage_verified = true;
    return CTL_STEP_DONE;
}

/* The role is recorded and not yet checked in this round. */
static bool
due(const struct ctl_inv *inv, const char *role)
{
    return (inv->verify.verified & (1u << role_of(role))) == 0 &&
           ctl_record_role_id(&inv->rec, ctl_record_role(role)) != NULL;
}

/* The docker exec or cp an event reported (drift_neighbours.c) is drift:
 * with Docker's event as the message, or a fixed one when there was no
 * memory to keep it. */
static enum ctl_step
foreign_found(struct ctl_inv *inv)
{
    char msg[sizeof(inv->verify.found->foreign_seen)];
    const char *rule = inv->verify.foreign_lost;

    if (rule != NULL) {
        inv->verify.foreign_lost = NULL;
        snprintf(msg, sizeof(msg),
                 "Docker reported a docker exec or cp on one of the "
                 "attempt's containers (its details were lost: out of "
                 "memory)");
    } else {
        struct ctl_drift_finding *f = inv->verify.found;

        rule = f->foreign_rule;
        snprintf(msg, sizeof(msg), "%s", f->foreign_seen);
        f->foreign_seen[0] = '\0';
    }
    inv_verify_finding_done(inv, false);
    return drift_found(inv, rule, msg);
}

enum ctl_step
drift_verify_step(struct ctl_inv *inv)
{
    enum ctl_step s;

    if (!inv->verify.due || inv->desired == NULL)
        return CTL_STEP_NONE;
    /* While the box is being built nothing runs in it, and the whole box
     * is inspected right before the agent starts (PLAN_REVALIDATE), where
     * drift is repaired like anywhere before the start. A round asked for
     * meanwhile (every step of ours makes a Docker event, the resync
     * ticks) waits for that one instead of inspecting a half-built box
     * between every two steps: verify_due stays set. A box this process
     * resumes (a restart) is inspected first: what happened to it while
     * no controller watched is not known. */
    if (inv->rec.phase == CTL_PREPARING && !inv->verify.prestart_verified &&
        !inv->verify.repairing && !inv->verify.resumed &&
        !ctl_test_disabled("prestart-only-rounds"))
        return CTL_STEP_NONE;
    if (inv_verify_foreign_pending(inv))
        return foreign_found(inv);
    inv->verify.round_open = true; /* inv_revalidate() */
    for (size_t i = 0; verify_roles[i] != NULL; i++)
        if (due(inv, verify_roles[i]))
            return inspect(inv, verify_roles[i]);
    if ((s = drift_neighbours_step(inv)) != CTL_STEP_NONE)
        return s;
    inv->verify.round_open = false;
    inv->verify.verified = 0;
    if (inv->verify.again) {
        /* What an event during the round reports may be newer than an
         * answer the round had already checked: check again. */
        inv->verify.again = false;
        return CTL_STEP_DONE;
    }
    inv->verify.due = false;
    inv->verify.resumed = false;
    inv_status_set_condition(inv, "Drifted", false, "Verified",
                             "every object matches the desired state");
    return CTL_STEP_NONE;
}
