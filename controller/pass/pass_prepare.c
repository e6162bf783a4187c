/* pass_prepare.c - bring an attempt's Docker objects up, one request per
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
#include "pass_prepare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "box_boxreq.h"
#include "try_build.h"
#include "box_create.h"
#include "box_egressnet.h"
#include "box_git.h"
#include "box_network.h"
#include "pass_plan.h"
#include "box_pool.h"
#include "box_probe.h"
#include "ctl_record.h"
#include "try_result.h"
#include "drift_start.h"
#include "inv_status.h"
#include "inv_stop.h"
#include "ctl_testhooks.h"
#include "drift_verify.h"
#include "pass_waiting.h"
#include "out_ws.h"
#include "launch_blob.h"
#include "log.h"
#include "rc_desired.h"
#include "rc_workspace.h"

/* ---- the egress network, shared by every proxy of this controller ---- */

static enum ctl_step
on_egress_created(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err != NULL && r->err->code != ERR_CONFLICT)
        return try_step_failed(inv, r->err);
    inv->net.egress_checked = true;
    box_egressnet_seen(inv->ctl, true);
    return CTL_STEP_DONE;
}

static enum ctl_step
on_egress_inspected(struct ctl_inv *inv, struct dk_response *r)
{
    const char *name = inv->ctl->cfg->egress_network;
    struct box_boxreq q = { .ctl = inv->ctl,
                            .done = try_step_answered,
                            .arg = inv };
    struct err e;

    if (r->err == NULL) {
        inv->net.egress_checked = true;
        box_egressnet_seen(inv->ctl, true);
        return CTL_STEP_DONE;
    }
    if (r->err->code != ERR_NOTFOUND)
        return try_step_failed(inv, r->err);
    log_kv(LOG_INFO, "creating the egress network", "network", name, NULL);
    return try_step_request(
        inv, on_egress_created,
        box_boxreq_send(CTL_BOXREQ_EGRESS_CREATE, &q, &e), &e);
}

static enum ctl_step
step_egress(struct ctl_inv *inv)
{
    struct err e;

    return try_step_request(inv, on_egress_inspected,
                            dk_inspect(inv->ctl->dk, DK_NETWORK,
                                       inv->ctl->cfg->egress_network,
                                       try_step_answered, inv, &e),
                            &e);
}

/* ---- one-off actions: connect, start, upload ------------------------ */

static void agent_running(struct ctl_inv *inv, const char *started_at);
static enum ctl_step step_upload_buffered(struct ctl_inv *inv);

/* The proxy's and the gateway's connect and start need the egress
 * network: Docker 20.10 takes a connect of a container never started to
 * a network that is gone, and its start then answers 404 "network ... not
 * found". */
static bool
needs_egress(const struct ctl_inv *inv)
{
    enum ctl_progress a = inv->lane->action;

    return a == CTL_PROG_PROXY_CONNECTED || a == CTL_PROG_GATEWAY_CONNECTED ||
           a == CTL_PROG_PROXY_STARTED || a == CTL_PROG_GATEWAY_STARTED;
}

static enum ctl_step
on_action_done(struct ctl_inv *inv, struct dk_response *r)
{
    /* 304: already started; connect of an already connected endpoint is
     * 403 "already exists" on 20.10 and counts as done too. */
    if (r->err != NULL &&
        !(r->status == 403 && strstr(r->err->msg, "already exists"))) {
        if (r->err->code == ERR_NOTFOUND && needs_egress(inv) &&
            !ctl_test_disabled("egress-forget")) {
            /* the egress network may be gone: the retry looks again */
            box_egressnet_seen(inv->ctl, false);
            inv->net.egress_checked = false;
        }
        return try_step_failed(inv, r->err);
    }
    ctl_test_point("done", ctl_progress_name(inv->lane->action));
    ctl_record_set_done(&inv->rec, inv->lane->action);
    if (inv->lane->action == CTL_PROG_AGENT_STARTED)
        agent_running(inv, NULL);
    return CTL_STEP_DONE;
}

/* Start the request of a one-off action; on_action_done records it. */
static enum ctl_step
action_request(struct ctl_inv *inv, struct dk_req *req, const struct err *e)
{
    return try_step_request(inv, on_action_done, req, e);
}

/* The agent is started: the attempt is Running from here on. */
static void
agent_running(struct ctl_inv *inv, const char *started_at)
{
    char now[32];

    inv_now(now);
    ctl_record_set_done(&inv->rec, CTL_PROG_AGENT_STARTED);
    ctl_record_set_str(&inv->rec, &inv->rec.started_at,
                       started_at ? started_at : now);
    /* A stop (deadline, cancel, drift) decided while the start was in
     * flight stands: the phase stays terminal and cleanup removes the
     * agent by ID (force), so it never runs on as Running. */
    if (ctl_phase_terminal(inv->rec.phase)) {
        inv_event(inv, true, "StartedAfterStop",
                  "the agent's start answered after the attempt was "
                  "stopped: it is removed, not run");
        return;
    }
    inv_status_set_phase(inv, CTL_RUNNING);
    inv_status_set_condition(inv, "Ready", true, "Running",
                             "the agent is running");
    inv_event(inv, false, "Started", "agent started");
}

/* Run-once containers (the agent, the boundary probe) are started only
 * when Docker says they never ran, asked right before every start: a
 * start that timed out may still have happened, and a controller killed
 * after the start and before recording it must not run them twice - an
 * exited agent is read, not rerun; a probe's one line is read, not
 * doubled. Keeper and proxy are long-running: starting them again is a
 * no-op (304). The inspect is left out where this process knows the
 * answer already (drift_start.c). */
static bool
runs_once(enum ctl_progress action)
{
    return action == CTL_PROG_AGENT_STARTED || action == CTL_PROG_PROBE_STARTED;
}

static enum ctl_step
on_start_checked(struct ctl_inv *inv, struct dk_response *r)
{
    const cJSON *at;

    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    at = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r->json, "State"), "StartedAt");
    if (drift_start_never_ran(r->json)) {
        inv->verify.start_checked = true;
    } else if (inv->lane->action == CTL_PROG_AGENT_STARTED) {
        inv_event(inv, false, "Adopted",
                  "the agent was started before (at %s): following it, "
                  "not starting it again",
                  at->valuestring);
        agent_running(inv, at->valuestring);
    } else {
        ctl_record_set_done(&inv->rec, inv->lane->action);
    }
    return CTL_STEP_DONE;
}

static enum ctl_step
step_start(struct ctl_inv *inv, int role, enum ctl_progress action)
{
    const char *id = ctl_record_role_id(&inv->rec, role);
    struct box_boxreq q = {
        .ctl = inv->ctl, .id = id, .done = try_step_answered, .arg = inv
    };
    struct err e;

    inv->lane->action = action;
    if (runs_once(action) && !inv->verify.start_checked &&
        !drift_start_known_unstarted(inv, id))
        return try_step_request(inv, on_start_checked,
                                dk_inspect(inv->ctl->dk, DK_CONTAINER, id,
                                           try_step_answered, inv, &e),
                                &e);
    inv->verify.start_checked = false; /* the next start asks again */
    drift_start_sent(inv, id);
    return action_request(inv, box_boxreq_send(CTL_BOXREQ_START, &q, &e), &e);
}

/* The proxy, or the credential gateway: each dials out on the egress
 * network and serves the agent on the internal one. */
static enum ctl_step
step_connect_egress(struct ctl_inv *inv, enum rc_role role)
{
    struct box_boxreq q = { .ctl = inv->ctl,
                            .desired = inv->desired,
                            .id = ctl_record_role_id(&inv->rec, role),
                            .done = try_step_answered,
                            .arg = inv };
    struct err e;

    inv->lane->action = role == RC_ROLE_GATEWAY ? CTL_PROG_GATEWAY_CONNECTED
                                                : CTL_PROG_PROXY_CONNECTED;
    return action_request(inv, box_boxreq_send(CTL_BOXREQ_CONNECT, &q, &e),
                          &e);
}

/* The streamed upload answered (out_ws.c): an unsafe or oversize tree
 * ends the attempt; a tree that changed while it was packed, an I/O
 * error or Docker's failure is retried (the next upload sends the whole
 * tree again over what a broken one left). */
static enum ctl_step
on_workspace_uploaded(struct ctl_inv *inv, struct dk_response *r)
{
    char digest[65];
    struct err e;
    int walk = out_ws_upload_outcome(inv, digest, &e);

    try_build_uploading(inv, false); /* its next step takes a slot again */
    inv_ws_free(inv);
    if (walk == -1 && rc_workspace_reason(&e) != RC_WS_ERROR) {
        inv_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, e.msg);
        return CTL_STEP_DONE;
    }
    if (walk == -1)
        return try_step_failed(inv, &e);
    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    if (walk == 0) { /* Docker said yes before the archive ended */
        err_set(&e, ERR_IO, "workspace upload answered before its end");
        return try_step_failed(inv, &e);
    }
    if (box_git_record_digest(inv, digest, &e) == -1)
        return try_step_failed(inv, &e);
    return on_action_done(inv, r);
}

/* The workspace goes into the keeper's /work as a tar archive whose
 * entries belong to the agent's uid (docs/docker-notes.md section 6),
 * packed on a worker thread and streamed (out_ws.c): the loop neither
 * walks the tree nor holds the archive. */
static enum ctl_step
step_upload(struct ctl_inv *inv)
{
    enum ctl_step s;

    inv->lane->action = CTL_PROG_WORKSPACE_UPLOADED;
    if (ctl_test_disabled("workspace-stream"))
        return step_upload_buffered(inv);
    s = out_ws_upload(inv, on_workspace_uploaded);
    if (s == CTL_STEP_STARTED)
        try_build_uploading(inv, true); /* no slot held while it streams */
    return s;
}

/* The upload as it was before it streamed: walk and pack on the loop
 * into one buffer the size of the archive. Kept only as the negative
 * control of tests/integration (AGENTCTL_TEST_DISABLE=workspace-stream,
 * test-hooks build): the loop stalls and the memory grows with the
 * workspace. */
static enum ctl_step
step_upload_buffered(struct ctl_inv *inv)
{
    const struct spec_invocation *s = inv->captured;
    const struct cfg *cfg = inv->ctl->cfg;
    struct rc_workspace_stats st;
    struct buf tar;
    struct err e;
    enum ctl_step ok;

    if (rc_workspace_check(cfg->workspace_root, s->workspace_source,
                           s->workspace_bytes, s->workspace_inodes, &st,
                           &e) == -1) {
        inv_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, e.msg);
        return CTL_STEP_DONE;
    }
    buf_init(&tar, rc_workspace_tar_max(&st));
    /* .git lands on the git volume mounted under the keeper's /work; with
     * no git volume (no .git at capture) one that appeared since is left
     * out, never put where the agent could write it. */
    if (rc_workspace_tar(cfg->workspace_root, s->workspace_source,
                         inv->desired->agent_uid, inv->desired->agent_gid,
                         rc_desired_object(inv->desired, RC_ROLE_GIT) ? NULL
                                                                      : ".git",
                         &tar, &e) == -1 ||
        box_git_record_before(inv, &tar, &e) == -1) {
        buf_cleanup(&tar);
        inv_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, e.msg);
        return CTL_STEP_DONE;
    }
    ok = action_request(
        inv,
        dk_container_put_archive(
            inv->ctl->dk, ctl_record_role_id(&inv->rec, RC_ROLE_KEEPER),
            "/work", tar.data, tar.len, try_step_answered, inv, &e),
        &e);
    buf_cleanup(&tar);
    return ok;
}

/* A small archive built in memory goes into dir of the running keeper;
 * the action the caller set is recorded when Docker answers. A tar that
 * could not be built ends the attempt (e). A secret archive (the key) is
 * sent with the client's copy wiped at the end and wiped here, whatever
 * the answer. */
static enum ctl_step
send_to_keeper(struct ctl_inv *inv, const char *dir, struct buf *tar,
               int built, bool secret, struct err *e)
{
    const char *keeper = ctl_record_role_id(&inv->rec, RC_ROLE_KEEPER);
    struct dk_req *(*put)(struct dk *, const char *, const char *,
                          const void *, size_t, dk_done_fn *, void *,
                          struct err *) =
        secret ? dk_container_put_secret : dk_container_put_archive;
    enum ctl_step ok = CTL_STEP_DONE;

    if (built == -1)
        inv_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, e->msg);
    else
        ok = action_request(inv,
                            put(inv->ctl->dk, keeper, dir, tar->data,
                                tar->len, try_step_answered, inv, e),
                            e);
    if (secret && tar->data != NULL)
        explicit_bzero(tar->data, tar->len);
    buf_cleanup(tar);
    return ok;
}

/* The adapter's config files and the launcher go into the keeper's config
 * volume, owned by root and read-only to everyone (the agent mounts it
 * read-only too). */
static enum ctl_step
step_upload_config(struct ctl_inv *inv)
{
    struct buf tar;
    struct err e;

    inv->lane->action = CTL_PROG_CONFIG_UPLOADED;
    buf_init(&tar, RC_CONFIG_BYTES);
    bool launched = rc_adapter_launched(inv->desired->adapter);

    return send_to_keeper(inv, RC_ADAPTER_CONFIG_DIR, &tar,
                          rc_adapter_files_tar(inv->desired->adapter,
                                               RC_ADAPTER_CONFIG_DIR,
                                               launched ? launch_blob : NULL,
                                               launched ? launch_blob_size()
                                                        : 0,
                                               &tar, &e),
                          false, &e);
}

/* The gateway's key file goes into the key volume through the keeper
 * (0400, the gateway's user; plan/rc_gateway_key.c), wiped after the
 * request as the Docker client's copy of it is. */
static enum ctl_step
step_upload_key(struct ctl_inv *inv)
{
    struct buf tar;
    struct err e;

    inv->lane->action = CTL_PROG_KEY_UPLOADED;
    buf_init(&tar, RC_GATEWAY_KEY_BYTES + 4096);
    return send_to_keeper(inv, RC_GATEWAY_KEY_DIR, &tar,
                          rc_desired_key_tar(inv->desired, &tar, &e), true,
                          &e);
}

/* The progress a start of role records. */
static enum ctl_progress
started_bit(enum rc_role role)
{
    switch (role) {
    case RC_ROLE_PROXY:
        return CTL_PROG_PROXY_STARTED;
    case RC_ROLE_GATEWAY:
        return CTL_PROG_GATEWAY_STARTED;
    default:
        return CTL_PROG_KEEPER_STARTED;
    }
}

/* One rung of the planner's ladder as its Engine API request, on the lane
 * the caller set (inv->lane). */
static enum ctl_step
rung(struct ctl_inv *inv, struct plan_step s)
{
    switch (s.action) {
    case PLAN_CHECK_EGRESS:
        return step_egress(inv);
    case PLAN_FIND_NETWORK:
        return box_network_step(inv);
    case PLAN_CREATE:
        return box_create(inv, s.role);
    case PLAN_CONNECT_EGRESS:
        return step_connect_egress(inv, s.role);
    case PLAN_START:
        return step_start(inv, s.role, started_bit(s.role));
    case PLAN_UPLOAD_WORKSPACE:
        return step_upload(inv);
    case PLAN_UPLOAD_CONFIG:
        return step_upload_config(inv);
    case PLAN_UPLOAD_KEY:
        return step_upload_key(inv);
    case PLAN_VERIFY_STORAGE:
        return drift_verify_storage_step(inv);
    case PLAN_PROBE_START:
        return step_start(inv, CTL_REC_PROBE, CTL_PROG_PROBE_STARTED);
    case PLAN_PROBE_CREATE:
    case PLAN_PROBE_WAIT:
    case PLAN_PROBE_READ:
    case PLAN_PROBE_DISCARD:
        return box_probe_step(inv, s.action);
    case PLAN_REVALIDATE:
        /* The whole box, the agent container included, is inspected once
         * more right before the start (docs/design.md, "What one
         * invocation becomes", step 4). */
        inv->verify.prestart_verified = true;
        inv->verify.due = true;
        return CTL_STEP_DONE;
    case PLAN_START_AGENT:
        return step_start(inv, RC_ROLE_AGENT, CTL_PROG_AGENT_STARTED);
    default:
        return CTL_STEP_NONE; /* not a preparation step */
    }
}

/* The storage's rung on its own lane, when that lane is free; its result
 * is settled on its own (a failure there backs off that lane's step). */
static void
storage_lane(struct ctl_inv *inv, struct plan_step s)
{
    struct ctl_lane *main = inv->lane;

    if (s.action == PLAN_NONE || inv->lanes[CTL_LANE_STORAGE].call != NULL)
        return;
    inv->lane = &inv->lanes[CTL_LANE_STORAGE];
    try_inv_settle(inv, rung(inv, s));
    inv->lane = main;
}

/* The planner (plan/plan_step.c) picks the next rungs from the record:
 * while the network, the proxy and the probe are made on the main lane,
 * the storage and the agent's create are made beside them on a lane of
 * their own (docs/design.md "The step graph"). The switch storage-lane
 * (test-hooks build) takes the ladder in order on one lane, as a
 * benchmark's before. */
enum ctl_step
pass_prepare_step(struct ctl_inv *inv)
{
    struct plan_view v;
    bool waited;

    pass_plan_view(inv, &v);
    waited = inv->build.state == CTL_BUILD_WAITING;
    /* a box begun (its objects recorded) is finished; a new one waits
     * for a build slot, and its pass runs again when it gets one */
    if (!try_build_admit(inv, plan_box_begun(&v))) {
        char slots[96];

        /* the figures of when it lined up: the event and the condition
         * say the same, and a pass of the same wait changes neither */
        if (!waited) {
            snprintf(slots, sizeof(slots),
                     "%u boxes are being built (--max-building %u)",
                     inv->ctl->building, inv->ctl->opts.max_building);
            pass_waiting(inv, CTL_WAIT_BUILD_SLOT, slots);
        }
        return CTL_STEP_NONE;
    }
    pass_waiting(inv, CTL_WAIT_NONE, NULL);
    /* A ready warm box of the vendor takes the place of the network, the
     * proxy and the probe (box_pool.c): recorded now, revalidated by the
     * next pass's round. Taken with the slot, not before: fifty warm
     * invocations built at once crowd the daemon as fifty cold ones do. */
    if (!plan_box_begun(&v) && box_pool_hand_over(inv))
        return CTL_STEP_DONE;
    if (ctl_test_disabled("storage-lane"))
        return rung(inv, plan_prepare_next(&v));
    storage_lane(inv, plan_prepare_storage(&v));
    if (inv->rec.phase != CTL_PREPARING)
        return CTL_STEP_DONE; /* the storage step stopped the attempt */
    return rung(inv, plan_prepare_main(&v));
}

enum ctl_step
pass_prepare_storage_step(struct ctl_inv *inv)
{
    struct plan_view v;

    if (ctl_test_disabled("storage-lane"))
        return CTL_STEP_NONE;
    pass_plan_view(inv, &v);
    storage_lane(inv, plan_prepare_storage(&v));
    return CTL_STEP_NONE;
}
