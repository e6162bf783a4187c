/* ctl_prepare.c - bring an attempt's Docker objects up, one request per
 * step, in docs/design.md's order: the shared egress network (created when
 * missing), the internal network, the proxy (created on the internal
 * network, then connected to the egress network, then started), the
 * volumes, the keeper (started, so the tmpfs volumes stay mounted), the
 * workspace upload into the running keeper, the agent, and its start.
 *
 * Each object's ID goes into status.resources as soon as Docker returns
 * it; one-off actions (connect, start, upload) are recorded in
 * status.progress. A step that finds its object recorded moves on, so a
 * restarted controller resumes where the last one stopped.
 */
#include "ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "rc_desired.h"
#include "rc_workspace.h"

/* ---- the egress network, shared by every proxy of this controller ---- */

static void
on_egress_created(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;

    (void)req;
    if (!ctl_inv_step_ok(inv, r) && r->err->code != ERR_CONFLICT) {
        ctl_inv_backoff(inv, r->err);
        return;
    }
    inv->egress_checked = true;
    ctl_inv_kick(inv, 0);
}

static void
on_egress_inspected(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    const char *name = inv->ctl->cfg->egress_network;
    cJSON *body, *labels;
    struct err e;

    (void)req;
    if (ctl_inv_step_ok(inv, r)) {
        inv->egress_checked = true;
        ctl_inv_kick(inv, 0);
        return;
    }
    if (r->err->code != ERR_NOTFOUND) {
        ctl_inv_backoff(inv, r->err);
        return;
    }
    body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "Name", name);
    cJSON_AddStringToObject(body, "Driver", "bridge");
    cJSON_AddBoolToObject(body, "CheckDuplicate", 1);
    labels = cJSON_AddObjectToObject(body, "Labels");
    cJSON_AddStringToObject(labels, "agentctl.dev/role", "egress");
    log_kv(LOG_INFO, "creating the egress network", "network", name, NULL);
    ctl_inv_started(inv,
                    dk_create(inv->ctl->dk, DK_NETWORK, NULL, body, NULL,
                              on_egress_created, inv, &e),
                    &e);
    cJSON_Delete(body);
}

static bool
step_egress(struct ctl_inv *inv)
{
    struct err e;

    return ctl_inv_started(inv,
                           dk_inspect(inv->ctl->dk, DK_NETWORK,
                                      inv->ctl->cfg->egress_network,
                                      on_egress_inspected, inv, &e),
                           &e);
}

/* ---- creating one object of the attempt ----------------------------- */

enum dk_kind
ctl_role_dk_kind(enum rc_role role)
{
    switch (rc_role_kind(role)) {
    case RC_KIND_NETWORK:
        return DK_NETWORK;
    case RC_KIND_VOLUME:
        return DK_VOLUME;
    case RC_KIND_CONTAINER:
        break;
    }
    return DK_CONTAINER;
}

/* The object's identity from a create or inspect answer. */
static const char *
identity(const cJSON *json, bool volume)
{
    const cJSON *v =
        cJSON_GetObjectItemCaseSensitive(json, volume ? "CreatedAt" : "Id");

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

bool
ctl_prepare_labels_ours(const struct ctl_inv *inv, const cJSON *json,
                        const char *role)
{
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(json, "Config");
    const cJSON *labels =
        cJSON_GetObjectItemCaseSensitive(cfg ? cfg : json, "Labels");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(json, "Id");
    const char *want[][2] = {
        { "agentctl.dev/uid", inv->rec.uid },
        { "agentctl.dev/attempt", inv->rec.attempt },
        { "agentctl.dev/role", role },
        { "agentctl.dev/managed-by", inv->ctl->opts.controller_id },
    };

    if (ctl_verify_is_standin(inv, cJSON_GetStringValue(id)))
        return false; /* labels copied by a stand-in (ctl_verify.c) */
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(labels, want[i][0]);

        if (!cJSON_IsString(v) || want[i][1] == NULL ||
            strcmp(v->valuestring, want[i][1]) != 0)
            return false;
    }
    return true;
}

bool
ctl_prepare_list(struct ctl_inv *inv, enum dk_kind kind, const char *key,
                 const char *const *values, size_t n, dk_done_fn *cb)
{
    struct err e;

    return ctl_inv_started(
        inv, dk_list(inv->ctl->dk, kind, key, values, n, cb, inv, &e), &e);
}

bool
ctl_prepare_list_ours(struct ctl_inv *inv, enum dk_kind kind, const char *role,
                      dk_done_fn *cb)
{
    char uid[128], rl[64];
    const char *labels[2] = { uid, rl };

    snprintf(uid, sizeof(uid), "agentctl.dev/uid=%s", inv->rec.uid);
    snprintf(rl, sizeof(rl), "agentctl.dev/role=%s", role ? role : "");
    return ctl_prepare_list(inv, kind, "label", labels, role ? 2 : 1, cb);
}

/* The name is held by an object that is not this attempt's: fail closed,
 * leave it in place. */
static void
refuse_name(struct ctl_inv *inv, const char *rname, const char *name)
{
    char msg[300];

    snprintf(msg, sizeof(msg),
             "%s %s already exists and is not this attempt's: refusing it",
             rname, name);
    ctl_event(inv, true, "NameConflict", "%s", msg);
    ctl_run_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, msg);
}

/* A create answered 409: the name exists. It is ours only when a killed
 * controller created it for this very attempt (labels match); anything
 * else is a stand-in and the attempt fails closed. */
static void
on_conflict_inspected(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    enum rc_role role = inv->creating;
    const char *rname = rc_role_name(role);
    const char *name = rc_desired_object(inv->desired, role)->name;
    const char *id;

    (void)req;
    if (!ctl_inv_step_ok(inv, r)) {
        ctl_inv_backoff(inv, r->err);
        return;
    }
    id = identity(r->json, ctl_role_dk_kind(role) == DK_VOLUME);
    if (id != NULL && ctl_prepare_labels_ours(inv, r->json, rname)) {
        ctl_record_set_role(&inv->rec, ctl_record_role(rname), id, name);
        ctl_event(inv, false, "Adopted",
                  "%s %s was created for this attempt "
                  "before a restart: adopted",
                  rname, name);
        ctl_inv_kick(inv, 0);
        return;
    }
    refuse_name(inv, rname, name);
}

static void
on_created(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    enum rc_role role = inv->creating;
    enum dk_kind k = ctl_role_dk_kind(role);
    const char *name = rc_desired_object(inv->desired, role)->name;
    const char *id;
    struct err e;

    (void)req;
    if (!ctl_inv_step_ok(inv, r)) {
        if (role == RC_ROLE_NETWORK) {
            ctl_network_create_failed(inv, r);
            return;
        }
        if (strstr(r->err->msg, "is ambiguous") != NULL) {
            ctl_network_sweep(inv, r->err);
            return;
        }
        if (r->err->code == ERR_CONFLICT) {
            ctl_inv_started(inv,
                            dk_inspect(inv->ctl->dk, k, name,
                                       on_conflict_inspected, inv, &e),
                            &e);
            return;
        }
        ctl_inv_backoff(inv, r->err);
        return;
    }
    id = identity(r->json, k == DK_VOLUME);
    if (id == NULL) {
        err_set(&e, ERR_SYNTAX, "create answer has no %s",
                k == DK_VOLUME ? "CreatedAt" : "Id");
        ctl_inv_backoff(inv, &e);
        return;
    }
    /* A volume create answers 201 with a same-named volume that exists:
     * one the revalidation reported as a stand-in is not ours. */
    if (k == DK_VOLUME && ctl_verify_is_standin(inv, id)) {
        refuse_name(inv, rc_role_name(role), name);
        return;
    }
    ctl_test_point("created", rc_role_name(role));
    ctl_record_set_role(&inv->rec, role, id, name);
    ctl_inv_kick(inv, 0);
}

/* Docker creates networks one at a time, so with many invocations a
 * network create can wait far longer than other calls. A create that
 * timed out is survived (ctl_network.c lists before retrying), but each
 * one costs a removal: give creates a deadline well past that queue
 * instead of the default 30 s. */
#define CTL_CREATE_TIMEOUT_MS (10L * 60 * 1000)

bool
ctl_prepare_create(struct ctl_inv *inv, enum rc_role role)
{
    enum dk_kind k = ctl_role_dk_kind(role);
    const struct rc_object *o = rc_desired_object(inv->desired, role);
    /* the agent's env holds a secret: wipe the printed body */
    struct dk_call call = { .timeout_ms = CTL_CREATE_TIMEOUT_MS,
                            .wipe_body = o->sensitive };
    struct err e;

    inv->creating = role;
    return ctl_inv_started(inv,
                           dk_create(inv->ctl->dk, k,
                                     k == DK_CONTAINER ? o->name : NULL,
                                     o->body, &call, on_created, inv, &e),
                           &e);
}

/* Docker says the subnet overlaps a network that is not this attempt's
 * (ctl_network.c listed ours first): take the next free index of the pool
 * (nothing exists yet, the network comes first). */
void
ctl_prepare_next_subnet(struct ctl_inv *inv)
{
    const struct ctl_record *rec = &inv->rec;
    long next =
        ctl_subnet_alloc(inv, rec->has_subnet ? rec->subnet_index + 1 : 0);

    if (next < 0) {
        ctl_run_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED,
                     "no free /24 left in subnetPool");
        return;
    }
    ctl_record_set_subnet(&inv->rec, next);
    ctl_inv_reset_attempt(inv, CTL_RESET_SUBNET);
    ctl_inv_kick(inv, 0);
}

/* ---- one-off actions: connect, start, upload ------------------------ */

static void agent_running(struct ctl_inv *inv, const char *started_at);

static void
on_action_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;

    (void)req;
    /* 304: already started; connect of an already connected endpoint is
     * 403 "already exists" on 20.10 and counts as done too. */
    if (!ctl_inv_step_ok(inv, r) &&
        !(r->status == 403 && strstr(r->err->msg, "already exists"))) {
        ctl_inv_backoff(inv, r->err);
        return;
    }
    ctl_test_point("done", ctl_progress_name(inv->action));
    ctl_record_set_done(&inv->rec, inv->action);
    if (inv->action == CTL_PROG_AGENT_STARTED)
        agent_running(inv, NULL);
    ctl_inv_kick(inv, 0);
}

/* The agent is started: the attempt is Running from here on. */
static void
agent_running(struct ctl_inv *inv, const char *started_at)
{
    char now[32];

    ctl_now(now);
    ctl_record_set_done(&inv->rec, CTL_PROG_AGENT_STARTED);
    ctl_record_set_str(&inv->rec, &inv->rec.started_at,
                       started_at ? started_at : now);
    /* A stop (deadline, cancel, drift) decided while the start was in
     * flight stands: the phase stays terminal and cleanup removes the
     * agent by ID (force), so it never runs on as Running. */
    if (ctl_phase_terminal(inv->rec.phase)) {
        ctl_event(inv, true, "StartedAfterStop",
                  "the agent's start answered after the attempt was "
                  "stopped: it is removed, not run");
        return;
    }
    ctl_status_set_phase(inv, CTL_RUNNING);
    ctl_status_set_condition(inv, "Ready", true, "Running",
                             "the agent is running");
    ctl_event(inv, false, "Started", "agent started");
}

/* Docker's "never started" time. */
#define NEVER_STARTED "0001-01-01T00:00:00Z"

/* Run-once containers (the agent, the boundary probe) are started only
 * when Docker says they never ran, asked right before every start: a
 * start that timed out may still have happened, and a controller killed
 * after the start and before recording it must not run them twice - an
 * exited agent is read, not rerun; a probe's one line is read, not
 * doubled. Keeper and proxy are long-running: starting them again is a
 * no-op (304). */
static bool
runs_once(enum ctl_progress action)
{
    return action == CTL_PROG_AGENT_STARTED || action == CTL_PROG_PROBE_STARTED;
}

static void
on_start_checked(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    const cJSON *at;

    (void)req;
    if (!ctl_inv_step_ok(inv, r)) {
        ctl_inv_backoff(inv, r->err);
        return;
    }
    at = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r->json, "State"), "StartedAt");
    if (!cJSON_IsString(at) || strcmp(at->valuestring, NEVER_STARTED) == 0) {
        inv->start_checked = true;
    } else if (inv->action == CTL_PROG_AGENT_STARTED) {
        ctl_event(inv, false, "Adopted",
                  "the agent was started before (at %s): following it, "
                  "not starting it again",
                  at->valuestring);
        agent_running(inv, at->valuestring);
    } else {
        ctl_record_set_done(&inv->rec, inv->action);
    }
    ctl_inv_kick(inv, 0);
}

static bool
step_start(struct ctl_inv *inv, int role, enum ctl_progress action)
{
    const char *id = ctl_record_role_id(&inv->rec, role);
    struct err e;

    inv->action = action;
    if (runs_once(action) && !inv->start_checked)
        return ctl_inv_started(inv,
                               dk_inspect(inv->ctl->dk, DK_CONTAINER, id,
                                          on_start_checked, inv, &e),
                               &e);
    inv->start_checked = false; /* the next start asks again */
    return ctl_inv_started(
        inv, dk_container_start(inv->ctl->dk, id, on_action_done, inv, &e), &e);
}

/* The boundary probe's start (ctl_probe.c): once, like the agent's. */
bool
ctl_prepare_start_probe(struct ctl_inv *inv)
{
    return step_start(inv, CTL_REC_PROBE, CTL_PROG_PROBE_STARTED);
}

static bool
step_connect_egress(struct ctl_inv *inv)
{
    cJSON *body;
    struct err e;
    bool ok;

    inv->action = CTL_PROG_PROXY_CONNECTED;
    body = rc_desired_proxy_connect(
        inv->desired, ctl_record_role_id(&inv->rec, RC_ROLE_PROXY));
    ok = ctl_inv_started(inv,
                         dk_network_connect(inv->ctl->dk,
                                            inv->ctl->cfg->egress_network, body,
                                            on_action_done, inv, &e),
                         &e);
    cJSON_Delete(body);
    return ok;
}

/* The workspace goes into the keeper's /work as a tar archive whose
 * entries belong to the agent's uid (docs/docker-notes.md section 6). */
static bool
step_upload(struct ctl_inv *inv)
{
    const struct spec_invocation *s = inv->captured;
    const struct cfg *cfg = inv->ctl->cfg;
    struct rc_workspace_stats st;
    struct buf tar;
    struct err e;
    bool ok;

    inv->action = CTL_PROG_WORKSPACE_UPLOADED;
    if (rc_workspace_check(cfg->workspace_root, s->workspace_source,
                           s->workspace_bytes, s->workspace_inodes, &st,
                           &e) == -1) {
        ctl_run_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, e.msg);
        return false;
    }
    buf_init(&tar, rc_workspace_tar_max(&st));
    /* .git lands on the git volume mounted under the keeper's /work; with
     * no git volume (no .git at capture) one that appeared since is left
     * out, never put where the agent could write it. */
    if (rc_workspace_tar(cfg->workspace_root, s->workspace_source,
                         cfg->agent_uid, cfg->agent_gid,
                         rc_desired_object(inv->desired, RC_ROLE_GIT) ? NULL
                                                                      : ".git",
                         &tar, &e) == -1 ||
        ctl_git_record_before(inv, &tar, &e) == -1) {
        buf_cleanup(&tar);
        ctl_run_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, e.msg);
        return false;
    }
    ok = ctl_inv_started(
        inv,
        dk_container_put_archive(
            inv->ctl->dk, ctl_record_role_id(&inv->rec, RC_ROLE_KEEPER),
            "/work", tar.data, tar.len, on_action_done, inv, &e),
        &e);
    buf_cleanup(&tar);
    return ok;
}

/* The adapter's config files go into the keeper's config volume, owned
 * by root and read-only to everyone (the agent mounts it read-only too). */
static bool
step_upload_config(struct ctl_inv *inv)
{
    struct buf tar;
    struct err e;
    bool ok;

    inv->action = CTL_PROG_CONFIG_UPLOADED;
    buf_init(&tar, RC_CONFIG_BYTES);
    if (rc_adapter_files_tar(inv->desired->adapter, RC_ADAPTER_CONFIG_DIR, &tar,
                             &e) == -1) {
        buf_cleanup(&tar);
        ctl_run_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, e.msg);
        return false;
    }
    ok = ctl_inv_started(
        inv,
        dk_container_put_archive(
            inv->ctl->dk, ctl_record_role_id(&inv->rec, RC_ROLE_KEEPER),
            RC_ADAPTER_CONFIG_DIR, tar.data, tar.len, on_action_done, inv, &e),
        &e);
    buf_cleanup(&tar);
    return ok;
}

/* The planner (plan/plan_step.c) picks the next rung of the ladder from
 * the record; here each rung becomes its Engine API request. */
bool
ctl_prepare_step(struct ctl_inv *inv)
{
    struct plan_view v;
    struct plan_step s;

    ctl_plan_view(inv, &v);
    s = plan_prepare_next(&v);
    switch (s.action) {
    case PLAN_CHECK_EGRESS:
        return step_egress(inv);
    case PLAN_FIND_NETWORK:
        return ctl_network_step(inv);
    case PLAN_CREATE:
        return ctl_prepare_create(inv, s.role);
    case PLAN_CONNECT_EGRESS:
        return step_connect_egress(inv);
    case PLAN_START:
        return step_start(inv, s.role,
                          s.role == RC_ROLE_PROXY ? CTL_PROG_PROXY_STARTED
                                                  : CTL_PROG_KEEPER_STARTED);
    case PLAN_UPLOAD_WORKSPACE:
        return step_upload(inv);
    case PLAN_UPLOAD_CONFIG:
        return step_upload_config(inv);
    case PLAN_PROBE_CREATE:
    case PLAN_PROBE_START:
    case PLAN_PROBE_WAIT:
    case PLAN_PROBE_READ:
    case PLAN_PROBE_DISCARD:
        return ctl_probe_step(inv, s.action);
    case PLAN_REVALIDATE:
        /* The whole box, the agent container included, is inspected once
         * more right before the start (docs/design.md, "What one
         * invocation becomes", step 4). */
        inv->prestart_verified = true;
        ctl_inv_revalidate(inv);
        return true;
    case PLAN_START_AGENT:
        return step_start(inv, RC_ROLE_AGENT, CTL_PROG_AGENT_STARTED);
    default:
        return false; /* not a preparation step */
    }
}
