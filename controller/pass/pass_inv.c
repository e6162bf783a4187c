/* pass_inv.c - one pass of one invocation, level-triggered: read the spec
 * and the status, decide the next step, start at most one Docker request;
 * its callback records the result and queues the next pass.
 *
 * Attempt rules (docs/design.md "The resource"): an attempt is captured once -
 * the spec as it was then is kept in status.captured and later changes
 * other than cancel and labels only raise a SpecFrozen warning; a new
 * `attempt` value supersedes a live attempt; an attempt ID in
 * status.usedAttempts never runs again.
 */
#include "pass_inv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "try_attempt.h"
#include "try_build.h"
#include "box_canary.h"
#include "out_changes.h"
#include "try_claim.h"
#include "pass_cleanup.h"
#include "try_condition.h"
#include "drift.h"
#include "out_egress.h"
#include "box_git.h"
#include "obs_observe.h"
#include "drift_pins.h"
#include "inv_pinset.h"
#include "box_pool.h"
#include "pass_prepare.h"
#include "inv_queue.h"
#include "ctl_record.h"
#include "try_result.h"
#include "pass_run.h"
#include "out_secret.h"
#include "inv_status.h"
#include "inv_stop.h"
#include "ctl_testhooks.h"
#include "drift_verify.h"
#include "inv_verify_part.h"
#include "pass_waiting.h"
#include "try_write.h"
#include "out_ws.h"
#include "log.h"
#include "rc_credential.h"
#include "rc_desired.h"
#include "rc_workspace.h"

/* The attempt ID of the current spec is spent: it never runs again. */
static void
mark_attempt_used(struct ctl_inv *inv)
{
    ctl_record_mark_used(&inv->rec, inv->spec->attempt);
    ctl_record_set_str(&inv->rec, &inv->rec.attempt, inv->spec->attempt);
}

/* End an attempt that never got to capture: nothing exists, nothing is
 * retried (docs/design.md: preparation failures are not retried). */
static void
end_before_capture(struct ctl_inv *inv, enum ctl_phase phase,
                   enum ctl_stop_reason why, const char *reason,
                   const char *msg)
{
    drift_pins_forget(inv);
    pass_waiting(inv, CTL_WAIT_NONE, NULL); /* e.g. cancelled meanwhile */
    mark_attempt_used(inv);
    ctl_record_set_stop(&inv->rec, why);
    inv_status_set_condition(inv, "Ready", false, reason, msg);
    inv_status_set_phase(inv, phase);
    inv_event(inv, phase != CTL_CANCELLED, reason, "%s", msg);
}

static void
fail_preparation(struct ctl_inv *inv, const char *reason, const char *msg)
{
    end_before_capture(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, reason,
                       msg);
}

/* The workspace check's answer (out_ws.c ran it on the worker): an
 * unsafe or oversize tree fails for good; an I/O error or a tree that
 * changed while it was read (being written, a disk hiccup) is retried. */
static enum ctl_step
on_workspace_checked(struct ctl_inv *inv, struct dk_response *r)
{
    const char *reason;

    /* The spec changed (or went) while its tree was walked: this answer
     * is about another spec; the next pass checks the current one. */
    if (inv->spec == NULL || inv->deleted ||
        strcmp(inv->capture.ws_checking, inv->spec->spec_hash) != 0 ||
        ctl_record_attempt_used(&inv->rec, inv->spec->attempt))
        return CTL_STEP_DONE;
    if (r->err == NULL) {
        memcpy(inv->capture.ws_checked, inv->capture.ws_checking,
               sizeof(inv->capture.ws_checked));
        return CTL_STEP_DONE; /* the next pass captures */
    }
    reason = rc_workspace_reason_name(rc_workspace_reason(r->err));
    if (reason == NULL)
        return try_step_failed(inv, r->err);
    fail_preparation(inv, reason, r->err->msg);
    return CTL_STEP_DONE;
}

/* Checks that need no Docker: admission, credential, workspace. true
 * when the capture may go on; else *s says what the pass does next: a
 * spec the config refuses waits (Admitted=False) for a new spec or
 * config, a credential that cannot be used ends the attempt, and the
 * workspace check starts on the worker (its answer decides). */
static bool
capture_checks(struct ctl_inv *inv, enum ctl_step *s)
{
    const struct spec_invocation *spec = inv->spec;
    const struct cfg *cfg = inv->ctl->cfg;
    struct err e;

    *s = CTL_STEP_DONE;
    if (cfg_admit(cfg, spec, &e) == -1) {
        char msg[600];

        pass_waiting_admission(inv, err_format(&e, msg, sizeof(msg)));
        *s = CTL_STEP_NONE;
        return false;
    }
    pass_waiting_admission(inv, NULL);
    if (spec->credential != NULL && inv->credential == NULL &&
        rc_credential_read(cfg->secrets_dir, spec->credential, &inv->credential,
                           &e) == -1) {
        fail_preparation(inv, "CredentialUnavailable", e.msg);
        return false;
    }
    /* The walk runs off the loop; the spec it passed for is remembered,
     * so a spec changed meanwhile is checked again. */
    if (spec->has_workspace &&
        strcmp(inv->capture.ws_checked, spec->spec_hash) != 0) {
        snprintf(inv->capture.ws_checking, sizeof(inv->capture.ws_checking),
                 "%s", spec->spec_hash);
        *s = out_ws_check(inv, on_workspace_checked);
        return false;
    }
    return true;
}

/* The last attempt's egress audit goes: `agentctl logs --egress` shows
 * this attempt's once its box is removed, never an older one meanwhile. */
static void
forget_egress_audit(struct ctl_inv *inv)
{
    char path[4096];

    if (store_egress_path(inv->ctl->store, inv->name, path, sizeof(path),
                          NULL) == 0)
        (void)unlink(path);
}

/* Where the attempt's key goes, for describe: into the box (env) or to
 * its gateway only (docs/gateway.md). Nothing without a credential. */
static void
capture_credential_mode(struct ctl_inv *inv)
{
    const struct cfg_vendor *vd =
        cfg_find_vendor(inv->ctl->cfg, inv->spec->vendor);

    if (inv->spec->credential == NULL || vd == NULL)
        return;
    ctl_record_set_str(&inv->rec, &inv->rec.credential_mode,
                       vd->credential_mode == CFG_CREDENTIAL_GATEWAY ? "gateway"
                                                                     : "env");
}

/* Record the capture: from here on the attempt's spec is frozen. */
static void
capture_commit(struct ctl_inv *inv)
{
    const struct spec_invocation *s = inv->spec;
    struct ctl_record *r = &inv->rec;
    char now[32];
    long subnet = try_subnet_alloc(inv, 0);

    inv_now(now);
    mark_attempt_used(inv);
    forget_egress_audit(inv);
    inv_changes_forget(inv);
    /* the attempt is this controller's (a status another one wrote for
     * an earlier attempt names that one) */
    ctl_record_set_str(r, &r->controller, inv->ctl->opts.controller_id);
    ctl_record_set_str(r, &r->image_id, inv->capture.pins->image);
    for (int h = 0; h < RC_HELPER_COUNT; h++) /* "" : not run */
        ctl_record_set_helper_image(r, (enum rc_helper)h,
                                    inv->capture.pins->helpers[h][0]
                                        ? inv->capture.pins->helpers[h]
                                        : NULL);
    ctl_record_set_str(r, &r->spec_hash, s->spec_hash);
    ctl_record_set_str(r, &r->captured_at, now);
    capture_credential_mode(inv);
    try_attempt_set_subnet(inv, subnet);
    /* This version's bodies state Docker's defaults; an attempt an older
     * version captured keeps the bodies its boxes were made from. */
    r->defaults_stated = true;
    r->forwarding_stated = true; /* its proxy and gateway: ip_forward 0 */
    r->launcher_stated = r->result_channel = true; /* launcher; result */
    /* Whether .git gets a read-only storage of its own is fixed here. */
    if (box_git_present(inv))
        r->git_metadata = true;
    ctl_record_capture(r, inv->spec); /* typed too: never parsed back */
    r->has_generation = true;
    r->observed_generation = (double)inv->meta.generation;
    inv_status_set_phase(inv, CTL_PREPARING);
    inv_event(inv, false, "Captured", "attempt %s captured, image %s",
              s->attempt, inv->capture.pins->image);
    drift_pins_forget(inv);
    inv->capture.ws_checked[0] =
        '\0'; /* the next attempt's capture checks again */
    inv->net.egress_checked = false;
    inv->verify.start_checked = false;
    inv->cleanup.swept = false;
    /* a later attempt of this invocation, in this process, gets its own
     * volume check and its own last round before the start */
    inv->verify.prestart_verified = false;
    inv->verify.storage_verified = false;
    snprintf(inv->capture.frozen_hash, sizeof(inv->capture.frozen_hash), "%s",
             s->spec_hash);
}

static enum ctl_step
capture(struct ctl_inv *inv)
{
    char missing[700];
    enum ctl_step s;

    if (ctl_record_attempt_used(&inv->rec, inv->spec->attempt))
        return CTL_STEP_NONE; /* this attempt ran already: never again */
    if (inv->spec->cancel) {
        end_before_capture(inv, CTL_CANCELLED, CTL_STOP_CANCELLED, "Cancelled",
                           "spec.cancel was true before the attempt started");
        return CTL_STEP_DONE;
    }
    /* No box is built before GET /info said the daemon confines it with
     * seccomp (loop_docker.c); the next resync asks again. */
    if (pass_waiting_for_docker(inv))
        return CTL_STEP_NONE;
    if (!capture_checks(inv, &s))
        return s;
    if ((s = drift_pins_step(inv, missing, sizeof(missing))) == CTL_STEP_DONE)
        fail_preparation(inv, "ImageNotFound", missing);
    if (s != CTL_STEP_NONE)
        return s;
    capture_commit(inv);
    return CTL_STEP_DONE;
}

/* Every object the record holds has a desired body to be checked
 * against: a vendor switched out of gateway mode since the capture leaves
 * a recorded gateway with none, which no rule would look at again. The
 * attempt fails closed instead. */
static bool
desired_covers_record(struct ctl_inv *inv)
{
    for (int r = 0; r < RC_ROLE_COUNT; r++) {
        char msg[300];

        if (ctl_record_role_id(&inv->rec, r) == NULL ||
            rc_desired_object(inv->desired, (enum rc_role)r) != NULL)
            continue;
        snprintf(msg, sizeof(msg),
                 "%s %s is recorded but the config no longer makes one "
                 "(vendor \"%s\" changed since the capture): start a new "
                 "attempt",
                 rc_role_name((enum rc_role)r),
                 ctl_record_role_obj_name(&inv->rec, r)
                     ? ctl_record_role_obj_name(&inv->rec, r)
                     : "?",
                 inv->captured->vendor);
        inv_stop(inv, CTL_FAILED,
                 inv->rec.phase == CTL_RUNNING ? CTL_STOP_BOUNDARY_DRIFT
                                               : CTL_STOP_PREPARATION_FAILED,
                 msg);
        return false;
    }
    return true;
}

/* After a restart the captured spec is read back from the status. */
static bool
ensure_captured(struct ctl_inv *inv)
{
    struct rc_inputs in;
    struct rc_box box;
    struct err e;

    if (inv->desired != NULL)
        return true;
    if (!try_inv_load_captured(inv)) {
        inv_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED,
                 "the captured spec in the status is unreadable");
        return false;
    }
    if (inv->captured->credential != NULL && out_inv_secret(inv, &e) == NULL) {
        inv_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED, e.msg);
        return false;
    }
    memset(&in, 0, sizeof(in));
    in.controller_id = inv->ctl->opts.controller_id;
    in.uid = inv->meta.uid[0] ? inv->meta.uid : inv->rec.uid;
    in.image_id = inv->rec.image_id;
    /* An attempt captured before helpers were pinned keeps their tags
     * (and so does the negative control of the test hooks). */
    if (ctl_record_helpers_pinned(&inv->rec) &&
        !ctl_test_disabled("helper-pin"))
        for (int h = 0; h < RC_HELPER_COUNT; h++)
            in.helper_image_ids[h] =
                ctl_record_helper_image(&inv->rec, (enum rc_helper)h);
    in.subnet_index = inv->rec.has_subnet ? (unsigned)inv->rec.subnet_index : 0;
    in.credential = inv->credential;
    in.git_metadata = inv->rec.git_metadata;
    in.apparmor = inv->ctl->security.apparmor;
    in.legacy_bodies = !inv->rec.defaults_stated;
    in.forwarding_unstated = !inv->rec.forwarding_stated;
    in.agent_user = inv->rec.agent_user; /* NULL: captured before there was one */
    in.unlaunched = !inv->rec.launcher_stated || ctl_test_disabled("launcher");
    in.result_unread = !inv->rec.result_channel; /* read back, or not */
    /* a warm box taken (box_pool.c): its network and proxy are the box's */
    box.owner = ctl_record_box_str(&inv->rec, "owner");
    box.uid = ctl_record_box_str(&inv->rec, "uid");
    box.attempt = ctl_record_box_str(&inv->rec, "attempt");
    if (inv->rec.box != NULL)
        in.box = &box;
    inv->desired = rc_desired_build(inv->captured, inv->ctl->cfg, &in, &e);
    if (inv->desired == NULL) {
        char msg[600];

        inv_stop(inv, CTL_FAILED, CTL_STOP_PREPARATION_FAILED,
                 err_format(&e, msg, sizeof(msg)));
        return false;
    }
    if (!desired_covers_record(inv))
        return false;
    /* The phase's tool policy, for describe (prompt specs). */
    if (inv->desired->adapter != NULL && inv->rec.tool_policy == NULL)
        ctl_record_set_str(&inv->rec, &inv->rec.tool_policy,
                           inv->desired->adapter->summary);
    return true;
}

/* Cancel, a new attempt ID, or any other change of a captured spec. */
static void
watch_spec_changes(struct ctl_inv *inv)
{
    const struct spec_invocation *s = inv->spec;
    const char *attempt = inv->rec.attempt;
    const char *hash = inv->rec.spec_hash;

    if (s->cancel) {
        inv_stop(inv, CTL_CANCELLED, CTL_STOP_CANCELLED, "spec.cancel is true");
    } else if (attempt != NULL && strcmp(s->attempt, attempt) != 0) {
        inv_stop(inv, CTL_CANCELLED, CTL_STOP_SUPERSEDED,
                 "a new attempt ID was given");
    } else if (strcmp(s->spec_hash, inv->capture.frozen_hash) != 0 &&
               strcmp(s->spec_hash, hash ? hash : "") != 0) {
        snprintf(inv->capture.frozen_hash, sizeof(inv->capture.frozen_hash),
                 "%s", s->spec_hash);
        inv_event(inv, true, "SpecFrozen",
                  "attempt %s is captured: spec changes other than cancel "
                  "and labels are not applied; set a new spec.attempt to "
                  "run the new spec",
                  attempt ? attempt : "?");
    }
}

/* A valid spec arrived (store watch, resync). A cancel or a new attempt
 * ID stops the attempt now rather than at the next pass: a pass waits
 * for a step's request in flight (a create can take minutes on a busy
 * daemon), and a deadline firing meanwhile must not take the place of
 * the stop that came first. */
void
pass_inv_spec_changed(struct ctl_inv *inv)
{
    enum ctl_phase p;

    if (!inv->rec.present || inv->spec == NULL || inv->deleted)
        return;
    p = inv->rec.phase;
    if (p == CTL_PREPARING || p == CTL_RUNNING)
        watch_spec_changes(inv);
}

static void
on_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctl_inv *inv = container_of(w, struct ctl_inv, deadline);

    (void)loop;
    (void)revents;
    inv_stop(inv, CTL_FAILED, CTL_STOP_DEADLINE,
             "the attempt ran past spec.deadlineSeconds");
}

static void
arm_deadline(struct ctl_inv *inv)
{
    const char *at = inv->rec.captured_at;
    const struct spec_invocation *s = inv->captured;
    struct tm tm;
    double left;

    if (ev_is_active(&inv->deadline) || at == NULL || s == NULL)
        return;
    memset(&tm, 0, sizeof(tm));
    if (strptime(at, "%Y-%m-%dT%H:%M:%SZ", &tm) == NULL)
        return;
    left = difftime(timegm(&tm) + (time_t)s->deadline_seconds, time(NULL));
    if (left <= 0) {
        inv_stop(inv, CTL_FAILED, CTL_STOP_DEADLINE,
                 "the attempt ran past spec.deadlineSeconds");
        return;
    }
    ev_timer_set(&inv->deadline, left, 0.);
    ev_timer_start(inv->ctl->loop, &inv->deadline);
}

static void
note_validity(struct ctl_inv *inv)
{
    if (inv->invalid.spec)
        inv_status_set_condition(inv, "Valid", false, "Invalid",
                                 inv->invalid.msg ? inv->invalid.msg
                                                  : "the spec is invalid");
    else
        inv_status_set_condition(inv, "Valid", true, "Valid",
                                 "the spec passed validation");
}

/* A finished, cleaned attempt: start the next one if the spec names an
 * attempt ID that never ran. */
static enum ctl_step
maybe_next_attempt(struct ctl_inv *inv)
{
    const char *attempt = inv->rec.attempt;

    if (inv->spec == NULL || inv->spec->cancel ||
        (attempt != NULL && strcmp(inv->spec->attempt, attempt) == 0) ||
        ctl_record_attempt_used(&inv->rec, inv->spec->attempt))
        return CTL_STEP_NONE;
    try_inv_reset_attempt(inv, CTL_RESET_NEW_ATTEMPT);
    inv_status_set_phase(inv, CTL_PENDING);
    return CTL_STEP_DONE;
}

static enum ctl_step
pass_deleted(struct ctl_inv *inv, enum ctl_phase phase)
{
    enum ctl_step s;
    struct err e;

    if (!ctl_phase_terminal(phase) && phase != CTL_PENDING)
        inv_stop(inv, CTL_CANCELLED, CTL_STOP_DELETED, "the spec was deleted");
    if ((s = pass_cleanup_step(inv)) != CTL_STEP_NONE)
        return s;
    /* Everything is gone: forget the name, so a new spec of the same name
     * starts with a new uid. On etcd the removal goes in the group write
     * (try_write.c) and its answer runs this pass again. */
    if (store_groups_status(inv->ctl->store) &&
        inv->write.removal != CTL_STATUS_REMOVED) {
        inv->write.removal = CTL_STATUS_REMOVING;
        inv->write.pass_after = true;
        return CTL_STEP_NONE;
    }
    if (inv->write.removal != CTL_STATUS_REMOVED &&
        (store_doc_del(inv->ctl->store, STORE_DOC_STATUS, inv->name, &e) ==
             -1 ||
         store_doc_del(inv->ctl->store, STORE_DOC_META, inv->name, &e) == -1))
        return try_step_failed(inv, &e);
    inv_changes_forget(inv); /* the change set goes with the invocation */
    log_kv(LOG_INFO, "deleted", "invocation", inv->name, NULL);
    inv->rec.dirty = false;
    inv->freeing = true;
    return CTL_STEP_NONE;
}

/* The phase's step, after the checks every pass of a live attempt makes
 * (the capture is loaded, spec changes and the deadline are watched, a
 * lost daemon and a due revalidation come first). */
static enum ctl_step
pass_phase(struct ctl_inv *inv)
{
    enum ctl_step s;

    enum ctl_phase phase = inv->rec.phase;

    if (phase == CTL_PREPARING || phase == CTL_RUNNING) {
        if (!ensure_captured(inv))
            phase = inv->rec.phase;
        else {
            watch_spec_changes(inv);
            arm_deadline(inv);
            phase = inv->rec.phase;
        }
    }
    /* Lost before drift: after a daemon restart the revalidation would
     * find the box torn down by the daemon, but the cause is the loss. */
    if (phase == CTL_RUNNING && inv->run.daemon_lost &&
        !ctl_test_disabled("lost-first")) {
        inv_stop_lost(inv);
        phase = inv->rec.phase;
    }
    /* drift a round found counts once the daemon answers anew */
    if ((s = drift_step(inv)) != CTL_STEP_NONE)
        return s;
    if (phase == CTL_PREPARING && inv->verify.repairing) {
        if ((s = pass_cleanup_step(inv)) != CTL_STEP_NONE)
            return s;
        try_inv_reset_attempt(inv, CTL_RESET_REPAIR);
        if (inv->desired == NULL)
            return CTL_STEP_DONE; /* a warm box went: built anew next pass */
    }
    /* the audit follows each helper from its start on (out_egress.c) */
    if (phase == CTL_PREPARING || phase == CTL_RUNNING)
        out_egress_follow(inv);
    if ((phase == CTL_PREPARING || phase == CTL_RUNNING) &&
        (s = drift_verify_step(inv)) != CTL_STEP_NONE)
        return s;
    switch (inv->rec.phase) {
    case CTL_PENDING:
        return capture(inv);
    case CTL_PREPARING:
        return pass_prepare_step(inv);
    case CTL_RUNNING:
        if ((s = pass_run_step(inv)) != CTL_STEP_NONE)
            return s;
        return box_canary_step(inv);
    default:
        ev_timer_stop(inv->ctl->loop, &inv->deadline);
        if ((s = pass_cleanup_step(inv)) != CTL_STEP_NONE)
            return s;
        return maybe_next_attempt(inv);
    }
}

/* A status that exists and cannot be read (a truncated or corrupted file,
 * a document etcd holds garbage in) records an attempt whose objects and
 * progress are unknown: starting afresh could run the attempt twice and
 * leave its box unmanaged. The invocation is held instead - no step, no
 * status written over the evidence, its objects not garbage - until the
 * status can be read again (each resync tries) or is removed by hand. */
static void
hold_unreadable(struct ctl_inv *inv, const struct err *e)
{
    if (ctl_test_disabled("status-hold")) { /* the negative control */
        log_kv(LOG_WARN, "TEST HOOK: status unreadable, starting afresh",
               "invocation", inv->name, "error", e->msg, NULL);
        return;
    }
    if (!inv->status_unreadable)
        log_kv(LOG_ERROR,
               "status unreadable: the invocation is held until it can be "
               "read or is removed",
               "invocation", inv->name, "error", e->msg, NULL);
    inv->status_unreadable = true;
}

/* A held invocation's status read again: true when it still cannot be. */
static bool
still_unreadable(struct ctl_inv *inv)
{
    struct err e;

    if (!inv->status_unreadable)
        return false;
    if (inv_status_load(inv, &e) == -1)
        return true;
    inv->status_unreadable = false;
    log_kv(LOG_INFO, "status readable again: the invocation goes on",
           "invocation", inv->name, NULL);
    return false;
}

struct ctl_inv *
pass_inv_add(struct ctl *c, const char *name)
{
    struct ctl_inv *inv = calloc(1, sizeof(*inv));
    struct err e;

    if (inv == NULL)
        return NULL;
    inv->ctl = c;
    inv->lane = &inv->lanes[CTL_LANE_MAIN];
    snprintf(inv->name, sizeof(inv->name), "%s", name);
    ev_timer_init(&inv->deadline, on_deadline, 0., 0.);
    box_canary_init(inv);
    if (inv_status_load(inv, &e) == -1)
        hold_unreadable(inv, &e);
    inv->verify.resumed = inv->rec.present && inv->rec.phase == CTL_PREPARING;
    inv_link(c, inv);
    return inv;
}

void
pass_inv_forget(struct ctl_inv *inv)
{
    inv_stop_detach(inv);       /* its output sealed and closed */
    try_build_release(inv);     /* its build slot to the next in line */
    try_write_unqueue(inv); /* its status written now, not later */
    try_claim_forget(inv);  /* its claim request still goes */
    inv_events_release(inv);
    inv_remove(inv);
}

static void pass(struct ctl_inv *inv);

/* The box is being built and nothing else is going on: the storage lane
 * may run beside the main one (pass_prepare.c). Anything else - a stop,
 * a repair, a deletion, a revalidation - waits until both lanes are
 * idle, so nothing is removed or inspected while the storage lane
 * creates. */
static bool
building(const struct ctl_inv *inv)
{
    return inv->rec.present && inv->rec.phase == CTL_PREPARING &&
           !inv->verify.repairing && !inv_verify_drift_pending(inv) &&
           !inv->deleted && inv->spec != NULL && inv->desired != NULL &&
           !inv->verify.prestart_verified && !inv->verify.resumed;
}

/* The main lane is busy: only the storage's next step, after what the
 * last answers learnt is on disk (record, then act). */
static void
storage_pass(struct ctl_inv *inv)
{
    struct err e;

    if (inv->lanes[CTL_LANE_STORAGE].call != NULL || try_write_in_flight(inv) ||
        !try_claim_gate(inv))
        return;
    /* on etcd it joins the next group, which the step's requests wait for */
    if (try_write_end(inv, &e) == -1) {
        log_kv(LOG_WARN, "status write failed", "invocation", inv->name,
               "error", e.msg, NULL);
        return; /* the main lane's answer passes again */
    }
    try_inv_settle(inv, pass_prepare_storage_step(inv));
}

/* One pass, timed for agentctl_reconcile_duration_seconds: the work done
 * in the loop for one invocation until it waits for an answer or is done
 * (a step's Docker request is timed by the client's own histogram). */
void
pass_inv_pass(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    double started;

    if (inv->lanes[CTL_LANE_MAIN].call != NULL || inv_ws_in_flight(inv) ||
        inv_changes_in_flight(inv) || inv_pins_out(inv->capture.pins) ||
        (inv->lanes[CTL_LANE_STORAGE].call != NULL && !building(inv))) {
        /* the step's answer runs it (try_inv_settle: pass_asked; the
         * storage lane may take its next step meanwhile) */
        c->reconciles_requeue++;
        inv->queue.pass_asked = true;
        if (inv->lanes[CTL_LANE_MAIN].call != NULL && !inv_ws_in_flight(inv) &&
            building(inv))
            storage_pass(inv);
        return;
    }
    inv->queue.pass_asked = false; /* this is the pass it asked for */
    ev_now_update(c->loop);
    started = ev_now(c->loop);
    pass(inv);
    ev_now_update(c->loop);
    obs_observe_pass(c, ev_now(c->loop) - started);
}

/* One pass, level-triggered: whatever the last one did, this one reads
 * the record and the spec afresh; its result goes to try_inv_settle(). */
static void
pass(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    enum ctl_step s = CTL_STEP_NONE;
    struct err e;

    /* its last status is still on its way to etcd: the answer runs the
     * pass again (nothing the pass reads or writes races with it) */
    if (try_write_in_flight(inv))
        return;
    if (still_unreadable(inv)) {
        try_inv_settle(inv, CTL_STEP_NONE); /* the resync tries again */
        return;
    }
    /* scale-out: act only on what this controller claimed (try_claim.c) */
    if (!try_claim_gate(inv)) {
        try_build_release(inv); /* not this controller's to build now */
        goto out_unclaimed;
    }
    inv_events_hold(inv); /* written with the status, one request */
    /* What the last step learnt (an object's ID) is on disk before the
     * next step acts on it: a controller killed in between finds it. On
     * etcd the write joins the next group and its answer runs this pass
     * again; a failed one is this pass's outcome (try_write_first). */
    switch (try_write_first(inv, &e)) {
    case 1:
        inv_events_release(inv);
        return;
    case -1:
        inv_events_release(inv);
        try_inv_settle(inv, try_step_failed(inv, &e));
        return;
    }
    if (inv_status_flush(inv, &e) == -1) {
        inv_events_release(inv);
        try_inv_settle(inv, try_step_failed(inv, &e));
        return;
    }
    if (!inv->rec.present) {
        if (inv->deleted || inv->spec == NULL) {
            if (inv->deleted)
                inv->freeing = true;
            goto out;
        }
        inv_status_new(inv);
    }
    if (inv->deleted)
        s = pass_deleted(inv, inv->rec.phase);
    else {
        note_validity(inv);
        if (inv->spec != NULL)
            s = pass_phase(inv);
    }
out:
    if (try_write_end(inv, &e) == -1)
        s = try_step_failed(inv, &e);
    inv_events_release(inv);
    try_claim_after_pass(inv); /* done with it: let the claim go */
    try_inv_settle(inv, s);
    /* started or stopped (a deleted spec stops it): its build slot goes
     * to the next in line */
    if (inv->rec.phase != CTL_PREPARING) {
        bool held = inv->build.state == CTL_BUILD_SLOT;

        try_build_release(inv);
        /* the last box of a burst is built: the warm pool refills now,
         * not while it would slow the invocations down (box_pool.c) */
        if (held && c->building == 0)
            box_pool_fill(c);
    }
out_unclaimed:
    c->reconciles_ok++;
    /* gone once nothing of it is in flight: a request's answer or its
     * last status write's runs the pass again */
    if (inv->freeing && !inv_in_flight(inv) && !try_write_waits(inv))
        pass_inv_forget(inv);
    if (c->opts.once && inv_idle(c))
        ev_break(c->loop, EVBREAK_ALL);
}
