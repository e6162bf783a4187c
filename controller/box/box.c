/* box.c - one box of the warm pool (box_pool.c, docs/warm-pool.md):
 * its steps as requests on the loop, one at a time - pin the helper
 * images, the egress network, the internal network, the proxy (create,
 * join the egress network, start), the boundary probe (create, start,
 * wait, read, remove) - then, while it waits to be handed, the
 * revalidation of its network and proxy by ID against the drift rules;
 * and its removal by ID, containers first, when a step fails, a rule
 * finds drift, or the pool lets it go.
 *
 * Its bodies are the ones rc_desired builds for a reference spec of the
 * vendor (name pool.<vendor>, the box's uid and attempt): what an
 * invocation's desired state holds for those two roles once it records
 * the box (rc_inputs.box), so the invocation's drift rules judge it as
 * they judge a box of its own.
 */
#include "box.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "try_attempt.h"
#include "box_boxreq.h"
#include "drift_objects.h"
#include "obs_observe.h"
#include "box_probe.h"
#include "try_result.h"
#include "inv_status.h"
#include "ctl_testhooks.h"
#include "log.h"
#include "rc_drift.h"
#include "rc_probe.h"
#include "store.h"

#define POOL_PROBE_TIMEOUT_MS (120 * 1000L)
/* The pool's first wait after a failed box; each failure in a row doubles
 * it up to CTL_BACKOFF_MAX (try_retry_delay, the invocations' own). */
#define POOL_BACKOFF_MIN 1.0

/* The pool's picture changed (a box started, became ready, went). */
static void
changed(struct ctl *c)
{
    if (c->pool_changed != NULL)
        c->pool_changed(c);
}

/* ---- the boxes ---------------------------------------------------------- */

void
box_free(struct ctl_box *b)
{
    struct ctl_box **p = &b->ctl->boxes;

    while (*p != NULL && *p != b)
        p = &(*p)->next;
    if (*p == b)
        *p = b->next;
    dk_cancel(b->call);
    rc_desired_free(b->desired);
    spec_invocation_free(b->ref);
    cJSON_Delete(b->pending_inspect);
    free(b);
}

/* The pool backs off after a box failed, through the one retry delay
 * (try_result.h): a config or daemon that cannot make boxes does not make
 * one a second. */
static void
back_off(struct ctl *c)
{
    c->pool_not_before =
        ev_now(c->loop) + try_retry_delay(&c->pool_failures, POOL_BACKOFF_MIN);
}

/* The one place a box's stage changes (the proxy's gw__conn_set_state is
 * the model): every transition of the state machine goes through here. */
static void
set_stage(struct ctl_box *b, enum ctl_box_stage s)
{
    b->stage = s;
}

/* The stage after s in the order of enum ctl_box_stage. */
static enum ctl_box_stage
after(enum ctl_box_stage s)
{
    return s == CTL_BOX_GONE ? CTL_BOX_GONE : (enum ctl_box_stage)(s + 1);
}

/* Remove the box's objects by ID (whatever was made), then forget it. */
void
box_doom(struct ctl_box *b, const char *why, const char *detail)
{
    log_kv(LOG_INFO, "warm box removed", "box", b->name, "vendor", b->vendor,
           "reason", why, "detail", detail ? detail : "", NULL);
    b->doomed = true;
    b->ready = false;
    dk_cancel(b->call);
    b->call = NULL;
    set_stage(b, CTL_BOX_REMOVE_PROBE);
    changed(b->ctl);
}

/* The reference spec of the vendor: what the box's bodies are built
 * from. Only the network, the proxy and the probe (built from the
 * agent's hardening, which is the config's) are ever made from it. */
static int
box_reference(struct ctl_box *b, struct err *e)
{
    const struct cfg *cfg = b->ctl->cfg;
    char yaml[1024];
    struct spec_file f;
    int n;

    n = snprintf(yaml, sizeof(yaml),
                 "apiVersion: agentctl.dev/v1alpha1\n"
                 "kind: AgentInvocation\n"
                 "metadata: {name: warm-pool}\n"
                 "spec:\n"
                 "  vendor: \"%s\"\n"
                 "  phase: execute\n"
                 "  image: \"%s\"\n"
                 "  command: [/probe]\n"
                 "  deadlineSeconds: 60\n"
                 "  attempt: \"%s\"\n",
                 b->vendor, cfg->probe_image, b->attempt);
    if (n < 0 || (size_t)n >= sizeof(yaml))
        return err_set(e, ERR_LIMIT, "vendor or probe image name too long");
    if (spec_load_buffer("warm pool reference", yaml, (size_t)n, &f) == -1 ||
        f.n == 0) {
        char why[300] = "";

        if (f.errors.n > 0)
            err_format(&f.errors.items[0], why, sizeof(why));
        spec_file_cleanup(&f);
        return err_set(e, ERR_INVALID,
                       "the reference spec of vendor %s does not load: %s",
                       b->vendor, why);
    }
    b->ref = spec_file_take(&f, 0);
    spec_file_cleanup(&f);
    /* the owner label: no AgentInvocation has this name */
    free(b->ref->name);
    b->ref->name = strdup(b->owner);
    if (b->ref->name == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    return 0;
}

static int
box_desired(struct ctl_box *b, struct err *e)
{
    struct rc_inputs in;

    if (b->ref == NULL && box_reference(b, e) == -1)
        return -1;
    memset(&in, 0, sizeof(in));
    in.controller_id = b->ctl->opts.controller_id;
    in.uid = b->uid;
    in.image_id = b->helpers[RC_HELPER_PROBE]; /* never run: no agent */
    for (int h = 0; h < RC_HELPER_COUNT; h++)
        in.helper_image_ids[h] = b->helpers[h][0] ? b->helpers[h] : NULL;
    in.subnet_index = (unsigned)b->subnet;
    in.apparmor = b->ctl->security.apparmor;
    rc_desired_free(b->desired);
    b->desired = rc_desired_build(b->ref, b->ctl->cfg, &in, e);
    return b->desired ? 0 : -1;
}

struct ctl_box *
box_new(struct ctl *c, const char *vendor)
{
    struct ctl_box *b = calloc(1, sizeof(*b));
    char uuid[37];
    struct err e;
    size_t k = 0;

    if (b == NULL || store_uuid4(uuid, &e) == -1) {
        free(b);
        return NULL;
    }
    for (const char *p = uuid; *p != '\0'; p++)
        if (*p != '-')
            b->uid[k++] = *p;
    b->ctl = c;
    snprintf(b->vendor, sizeof(b->vendor), "%s", vendor);
    snprintf(b->owner, sizeof(b->owner), "pool.%s", vendor);
    snprintf(b->attempt, sizeof(b->attempt), "w1");
    snprintf(b->name, sizeof(b->name), "agentctl-%s-%.8s", b->owner, b->uid);
    b->subnet = try_subnet_alloc_for(c, NULL, 0);
    b->born = ev_now(c->loop);
    inv_now(b->created_at);
    set_stage(b, CTL_BOX_PIN);
    b->next = c->boxes;
    c->boxes = b;
    return b;
}

/* ---- one step of a box --------------------------------------------------- */

static void on_box_answer(struct dk_req *req, struct dk_response *r, void *arg);

/* The next helper image the vendor runs that is not pinned, or -1. */
static int
next_pin(const struct ctl_box *b)
{
    const struct cfg_vendor *v = cfg_find_vendor(b->ctl->cfg, b->vendor);

    for (int h = 0; h < RC_HELPER_COUNT; h++)
        if (rc_helper_needed(v, (enum rc_helper)h) && b->helpers[h][0] == '\0')
            return h;
    return -1;
}

/* The request of a probe stage of the box: the one probe runner's
 * (box_probe.h), in the order CREATE, START, WAIT, READ, REMOVE. */
static struct dk_req *
probe_request(struct ctl_box *b, enum box_probe_stage s, struct err *e)
{
    char name[RC_NAME_MAX];
    struct box_probe_call pc = { .id = b->probe_id,
                                 .name = name,
                                 .wait_ms = POOL_PROBE_TIMEOUT_MS,
                                 .done = on_box_answer,
                                 .arg = b };
    cJSON *body = NULL;
    struct dk_req *req;

    if (s == CTL_PROBE_CREATE) {
        body = box_probe_body_connect(b->ctl, b->desired, b->vendor,
                                      b->proxy_egress_ip, b->uid, b->attempt);
        if (body == NULL) {
            err_set(e, ERR_INVALID, "cannot build the boundary probe");
            return NULL;
        }
        rc_probe_name(b->desired->prefix, name);
        pc.body = body;
    }
    req = box_probe_request(b->ctl->dk, s, &pc, e);
    cJSON_Delete(body);
    return req;
}

/* A build request of the box (box_boxreq.h): what an invocation's
 * preparation sends for the same object. */
static struct dk_req *
build_request(struct ctl_box *b, enum box_boxreq_op op, enum rc_role role,
              const char *id, struct err *e)
{
    struct box_boxreq q = { .ctl = b->ctl,
                            .desired = b->desired,
                            .role = role,
                            .id = id,
                            .done = on_box_answer,
                            .arg = b };

    return box_boxreq_send(op, &q, e);
}

/* The request of the box's stage; NULL with e set when it cannot go. */
static struct dk_req *
box_request(struct ctl_box *b, struct err *e)
{
    struct dk *dk = b->ctl->dk;
    const char *egress = b->ctl->cfg->egress_network;
    int h;

    switch (b->stage) {
    case CTL_BOX_PIN:
        h = next_pin(b);
        return dk_inspect(dk, DK_IMAGE,
                          rc_helper_tag(b->ctl->cfg, (enum rc_helper)h),
                          on_box_answer, b, e);
    case CTL_BOX_EGRESS:
        return dk_inspect(dk, DK_NETWORK, egress, on_box_answer, b, e);
    case CTL_BOX_EGRESS_CREATE:
        return build_request(b, CTL_BOXREQ_EGRESS_CREATE, 0, NULL, e);
    case CTL_BOX_NETWORK:
        return build_request(b, CTL_BOXREQ_CREATE, RC_ROLE_NETWORK, NULL, e);
    case CTL_BOX_PROXY:
        return build_request(b, CTL_BOXREQ_CREATE, RC_ROLE_PROXY, NULL, e);
    case CTL_BOX_CONNECT:
        return build_request(b, CTL_BOXREQ_CONNECT, 0, b->proxy_id, e);
    case CTL_BOX_START:
        return build_request(b, CTL_BOXREQ_START, 0, b->proxy_id, e);
    case CTL_BOX_ADDRESS:
    case CTL_BOX_CHECK_PROXY:
        return dk_inspect(dk, DK_CONTAINER, b->proxy_id, on_box_answer, b, e);
    case CTL_BOX_PROBE:
        return probe_request(b, CTL_PROBE_CREATE, e);
    case CTL_BOX_PROBE_START:
        return probe_request(b, CTL_PROBE_START, e);
    case CTL_BOX_PROBE_WAIT:
        return probe_request(b, CTL_PROBE_WAIT, e);
    case CTL_BOX_PROBE_LOGS:
        return probe_request(b, CTL_PROBE_READ, e);
    case CTL_BOX_PROBE_DROP:
    case CTL_BOX_REMOVE_PROBE:
        return probe_request(b, CTL_PROBE_REMOVE, e);
    case CTL_BOX_CHECK_NETWORK:
        return dk_inspect(dk, DK_NETWORK, b->net_id, on_box_answer, b, e);
    case CTL_BOX_CHECK_IMAGE:
        return dk_inspect(dk, DK_IMAGE, b->helpers[RC_HELPER_PROXY],
                          on_box_answer, b, e);
    case CTL_BOX_REMOVE_PROXY:
        return dk_remove(dk, DK_CONTAINER, b->proxy_id, on_box_answer, b, e);
    case CTL_BOX_REMOVE_NETWORK:
        return dk_remove(dk, DK_NETWORK, b->net_id, on_box_answer, b, e);
    default:
        err_set(e, ERR_INVALID, "no request at this stage");
        return NULL;
    }
}

/* The removal stages skip what was never made. */
static bool
nothing_to_remove(const struct ctl_box *b)
{
    return (b->stage == CTL_BOX_REMOVE_PROBE && b->probe_id[0] == '\0') ||
           (b->stage == CTL_BOX_REMOVE_PROXY && b->proxy_id[0] == '\0') ||
           (b->stage == CTL_BOX_REMOVE_NETWORK && b->net_id[0] == '\0');
}

/* Run the box's stage: its request, or the next stage's when the stage
 * has nothing to do. A box waiting (ready, no check due) or gone stops. */
void
box_go(struct ctl_box *b)
{
    struct err e;

    while (b->call == NULL) {
        if (b->stage == CTL_BOX_GONE) {
            struct ctl *c = b->ctl;

            box_free(b);
            changed(c);
            return;
        }
        if (b->stage == CTL_BOX_READY) {
            if (!b->check_due)
                return;
            b->check_due = false;
            set_stage(b, CTL_BOX_CHECK_NETWORK);
        }
        if (b->stage >= CTL_BOX_REMOVE_PROBE && nothing_to_remove(b)) {
            set_stage(b, after(b->stage));
            continue;
        }
        if (!b->ctl->docker_up && b->stage < CTL_BOX_REMOVE_PROBE) {
            box_doom(b, "DockerDown", "the daemon does not answer");
            continue;
        }
        b->call = box_request(b, &e);
        if (b->call != NULL)
            return;
        if (b->stage >= CTL_BOX_REMOVE_PROBE) {
            set_stage(b, after(b->stage)); /* left to garbage collection */
            continue;
        }
        back_off(b->ctl);
        box_doom(b, "StepFailed", e.msg);
    }
}

/* ---- the answers --------------------------------------------------------- */

static void
copy_id(const struct dk_response *r, char *out, size_t size)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(r->json, "Id");

    snprintf(out, size, "%s", cJSON_IsString(id) ? id->valuestring : "");
}

/* A drift rule on the box's network or proxy: the box goes. */
static bool
drifted(struct ctl_box *b, enum rc_role role, const cJSON *inspect)
{
    const char *allowed[1] = { b->proxy_id };
    struct rc_drift_expect x;
    struct rc_drift_report rep;

    memset(&x, 0, sizeof(x));
    x.disabled_rules = b->ctl->disabled_rules;
    if (role == RC_ROLE_NETWORK) {
        x.id = b->net_id;
        x.allowed = x.required = allowed;
        x.n_allowed = x.n_required = 1;
    } else {
        x.id = b->proxy_id;
        x.image_id = x.pinned_image = b->helpers[RC_HELPER_PROXY];
        x.image_config = cJSON_GetObjectItemCaseSensitive(
            b->ctl->image_configs, b->helpers[RC_HELPER_PROXY]);
    }
    if (rc_drift_check(b->desired, role, inspect, &x, &rep) != 1)
        return false;
    obs_observe_drift(b->ctl, rep.rule);
    obs_observe_pool(b->ctl, b->vendor, "drifted");
    box_doom(b, "Drift", rep.message);
    return true;
}

static void
check_proxy(struct ctl_box *b, const cJSON *inspect)
{
    if (ctl_test_disabled("pool-revalidation") ||
        !drifted(b, RC_ROLE_PROXY, inspect))
        set_stage(b, CTL_BOX_READY);
}

bool
box_probed(const struct ctl_box *b)
{
    /* unknown is "not probed": the invocation then probes it itself */
    return b->desired != NULL && b->desired->gateway_url[0] == '\0';
}

/* The box waits to be handed; verified_at is when its probe passed, or,
 * for a box that has none, when it became ready (its age counts from
 * there, box_pool.c). */
static void
box_ready(struct ctl_box *b)
{
    if (!box_probed(b))
        inv_now(b->verified_at);
    b->ready = true;
    set_stage(b, CTL_BOX_READY);
    b->ctl->pool_failures = 0;
    log_kv(LOG_INFO, "warm box ready", "box", b->name, "vendor", b->vendor,
           NULL);
    changed(b->ctl);
}

/* The verdict of the box's probe: anything but a pass removes the box
 * (the invocations build their own meanwhile). */
static void
judge(struct ctl_box *b, const struct dk_response *r)
{
    struct rc_probe_result res;
    struct err e;

    if (box_probe_read(r, b->probe_exit, RC_PROBE_MODE_CONNECT, &res, &e) ==
        -1) {
        back_off(b->ctl);
        box_doom(b, "ProbeFailed", e.msg);
        return;
    }
    if (res.verdict != RC_PROBE_OK) {
        back_off(b->ctl);
        box_doom(b,
                     res.verdict == RC_PROBE_BREACH ? "Breach" : "ProbeFailed",
                     res.finding);
        return;
    }
    inv_now(b->verified_at);
    set_stage(b, CTL_BOX_PROBE_DROP);
}

/* A network create whose subnet another network holds moves on to the
 * next free /24, as an invocation's does (box_network.c). */
static bool
overlap_moved_on(struct ctl_box *b, const struct dk_response *r)
{
    struct err e;

    if (b->stage != CTL_BOX_NETWORK || r->status != 403 || r->err == NULL ||
        strstr(r->err->msg, "overlaps") == NULL)
        return false;
    b->subnet = try_subnet_alloc_for(b->ctl, NULL, b->subnet + 1);
    if (b->subnet < 0 || box_desired(b, &e) == -1)
        return false;
    return true;
}

/* What an answer of the stage means; the stage moves on, or the box is
 * doomed. */
static void
box_answered(struct ctl_box *b, struct dk_response *r)
{
    struct err e;
    int h;

    if (b->stage >= CTL_BOX_REMOVE_PROBE) {
        if (r->err != NULL && r->err->code != ERR_NOTFOUND)
            log_kv(LOG_WARN,
                   "warm box: removal failed (left to garbage "
                   "collection)",
                   "box", b->name, "error", r->err->msg, NULL);
        set_stage(b, after(b->stage));
        return;
    }
    if (b->stage == CTL_BOX_EGRESS && r->err != NULL &&
        r->err->code == ERR_NOTFOUND) {
        set_stage(b, CTL_BOX_EGRESS_CREATE);
        return;
    }
    if (overlap_moved_on(b, r))
        return;
    /* a waiting box whose object is gone (or unreadable) is not handed */
    if (r->err != NULL && b->stage >= CTL_BOX_CHECK_NETWORK) {
        obs_observe_pool(b->ctl, b->vendor, "drifted");
        box_doom(b, "Gone", r->err->msg);
        return;
    }
    /* a create of the egress network that lost a race to another
     * creator is as good as done */
    if (r->err != NULL &&
        !(b->stage == CTL_BOX_EGRESS_CREATE && r->err->code == ERR_CONFLICT)) {
        back_off(b->ctl);
        box_doom(b, "StepFailed", r->err->msg);
        return;
    }
    switch (b->stage) {
    case CTL_BOX_PIN:
        h = next_pin(b);
        copy_id(r, b->helpers[h], sizeof(b->helpers[h]));
        if (next_pin(b) >= 0)
            return; /* the next image */
        if (box_desired(b, &e) == -1) {
            back_off(b->ctl);
            box_doom(b, "StepFailed", e.msg);
            return;
        }
        set_stage(b, CTL_BOX_EGRESS);
        return;
    case CTL_BOX_EGRESS:
    case CTL_BOX_EGRESS_CREATE:
        set_stage(b, CTL_BOX_NETWORK); /* the egress network is there */
        return;
    case CTL_BOX_NETWORK:
        copy_id(r, b->net_id, sizeof(b->net_id));
        break;
    case CTL_BOX_PROXY:
        copy_id(r, b->proxy_id, sizeof(b->proxy_id));
        break;
    case CTL_BOX_ADDRESS:
        /* the probe must not reach it */
        drift_objects_egress_ip(b->ctl, r->json, b->proxy_egress_ip);
        /* A gateway vendor's boundary includes the invocation's gateway:
         * the invocation probes it once its gateway is up (box_pool.c) */
        if (!box_probed(b)) {
            box_ready(b);
            return;
        }
        break;
    case CTL_BOX_PROBE:
        copy_id(r, b->probe_id, sizeof(b->probe_id));
        break;
    case CTL_BOX_PROBE_WAIT:
        b->probe_exit = dk_wait_status(r);
        break;
    case CTL_BOX_PROBE_LOGS:
        judge(b, r);
        return;
    case CTL_BOX_PROBE_DROP:
        b->probe_id[0] = '\0';
        box_ready(b);
        return;
    case CTL_BOX_CHECK_NETWORK:
        if (ctl_test_disabled("pool-revalidation") ||
            !drifted(b, RC_ROLE_NETWORK, r->json))
            set_stage(b, CTL_BOX_CHECK_PROXY);
        return;
    case CTL_BOX_CHECK_PROXY:
        if (cJSON_GetObjectItemCaseSensitive(b->ctl->image_configs,
                                             b->helpers[RC_HELPER_PROXY])) {
            check_proxy(b, r->json);
            return;
        }
        b->pending_inspect = r->json; /* checked once the config is in */
        r->json = NULL;
        set_stage(b, CTL_BOX_CHECK_IMAGE);
        return;
    case CTL_BOX_CHECK_IMAGE:
        drift_objects_keep_image_config(b->ctl, b->helpers[RC_HELPER_PROXY],
                                      r->json);
        check_proxy(b, b->pending_inspect);
        cJSON_Delete(b->pending_inspect);
        b->pending_inspect = NULL;
        return;
    default:
        break;
    }
    set_stage(b, after(b->stage));
}

static void
on_box_answer(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_box *b = arg;

    (void)req;
    b->call = NULL;
    box_answered(b, r);
    box_go(b);
}
