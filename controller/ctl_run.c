/* ctl_run.c - a running agent: its output is followed into the bounded,
 * strict-UTF-8 capture (rc_output), its exit is awaited, and any stop
 * cause - deadline, cancel, supersede, output-limit, capture-failure,
 * deletion - ends it. The first stop reason recorded is the one kept. */
#include "ctl.h"

#include <stdio.h>
#include <string.h>

#include "log.h"

static void
record_output(struct ctl_inv *inv, const struct rc_output_result *r)
{
    ctl_record_set_output(&inv->rec, (double)r->bytes, r->truncated, r->sha256);
}

/* Stop following the agent and seal what was captured. */
void
ctl_run_detach(struct ctl_inv *inv)
{
    struct rc_output_result r;
    struct err e;

    dk_cancel(inv->logs);
    dk_cancel(inv->wait);
    inv->logs = inv->wait = NULL;
    if (!inv->output_open)
        return;
    inv->output_open = false;
    if (rc_output_close(&inv->out, &r, &e) == -1)
        log_kv(LOG_WARN, "closing the output failed", "invocation", inv->name,
               "error", e.msg, NULL);
    if (inv->rec.present)
        record_output(inv, &r);
}

void
ctl_run_stop(struct ctl_inv *inv, enum ctl_phase phase,
             enum ctl_stop_reason why, const char *message)
{
    const char *stop_reason = ctl_stop_reason_name(why);

    if (ctl_phase_terminal(inv->rec.phase) || inv->rec.stop != CTL_STOP_NONE)
        return; /* the first stop cause is the one kept */
    ctl_record_set_stop(&inv->rec, why);
    ctl_status_set_condition(inv, "Ready", false, stop_reason, message);
    ctl_event(inv, phase != CTL_CANCELLED, "Stopped", "%s: %s", stop_reason,
              message);
    ctl_run_detach(inv);
    ctl_status_set_phase(inv, phase);
    ev_timer_stop(inv->ctl->loop, &inv->deadline);
    ctl_inv_kick(inv, 0);
}

static void
stop_for_output(struct ctl_inv *inv, enum rc_output_status st)
{
    if (st == RC_OUTPUT_LIMIT)
        ctl_run_stop(inv, CTL_FAILED, CTL_STOP_OUTPUT_LIMIT,
                     "output passed spec.output.maxBytes");
    else if (st == RC_OUTPUT_CAPTURE_FAILURE)
        ctl_run_stop(inv, CTL_FAILED, CTL_STOP_CAPTURE_FAILURE,
                     inv->out.err.msg[0] ? inv->out.err.msg
                                         : "output is not strict UTF-8");
    else if (st == RC_OUTPUT_IO_ERROR)
        ctl_run_stop(inv, CTL_FAILED, CTL_STOP_CAPTURE_FAILURE,
                     inv->out.err.msg);
}

static void
on_logs_data(struct dk_req *req, const char *data, size_t len, void *arg)
{
    struct ctl_inv *inv = arg;
    enum rc_output_status st;

    (void)req;
    st = rc_output_feed_logs(&inv->out, data, len);
    if (st != RC_OUTPUT_OK)
        stop_for_output(inv, st);
}

static void
on_logs_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    struct rc_output_result res;
    struct err e;

    (void)req;
    inv->logs = NULL;
    if (r->err != NULL) {
        /* Start the capture over from the first byte on the next pass:
         * Docker keeps the whole log, and a half capture is worthless. */
        if (inv->output_open) {
            rc_output_close(&inv->out, &res, &e);
            inv->output_open = false;
        }
        ctl_inv_backoff(inv, r->err);
        return;
    }
    inv->logs_done = true;
    ctl_inv_kick(inv, 0);
}

static void
on_wait_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    const cJSON *code;

    (void)req;
    inv->wait = NULL;
    if (r->err != NULL) {
        ctl_inv_backoff(inv, r->err);
        return;
    }
    code = cJSON_GetObjectItemCaseSensitive(r->json, "StatusCode");
    inv->exit_code = cJSON_IsNumber(code) ? (long)code->valuedouble : -1;
    ctl_test_point("exited", "agent");
    inv->exited = true;
    ctl_inv_kick(inv, 0);
}

static int
open_output(struct ctl_inv *inv, struct err *e)
{
    char path[512];
    const struct spec_invocation *s = inv->captured;

    if (store_output_path(inv->ctl->store, inv->name, path, sizeof(path), e) ==
            -1 ||
        rc_output_open(path, s->output_max_bytes, &inv->out, e) == -1)
        return -1;
    if (inv->credential != NULL &&
        rc_output_redact(&inv->out, inv->credential, strlen(inv->credential),
                         e) == -1) {
        struct rc_output_result r;

        rc_output_close(&inv->out, &r, NULL);
        return -1;
    }
    inv->output_open = true;
    inv->logs_done = false;
    return 0;
}

static int
attach(struct ctl_inv *inv, const char *agent, struct err *e)
{
    if (inv->logs == NULL && !inv->logs_done) {
        inv->logs = dk_container_follow_logs(inv->ctl->dk, agent, on_logs_data,
                                             on_logs_done, inv, e);
        if (inv->logs == NULL)
            return -1;
    }
    if (inv->wait == NULL && !inv->exited) {
        inv->wait = dk_container_wait(inv->ctl->dk, agent, DK_NO_TIMEOUT,
                                      on_wait_done, inv, e);
        if (inv->wait == NULL)
            return -1;
    }
    return 0;
}

/* The daemon went away while the agent ran: whatever exit code it
 * reports is not the agent's own (docs/docker-notes.md: no live-restore), the
 * boundary went unwatched meanwhile, and the attempt is never rerun. */
void
ctl_run_stop_lost(struct ctl_inv *inv)
{
    ctl_run_stop(inv, CTL_FAILED, CTL_STOP_AGENT_LOST,
                 "AgentLost: the Docker daemon became unreachable while the "
                 "agent ran");
}

static void
on_exit_confirmed(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;

    (void)req;
    if (!ctl_inv_step_ok(inv, r)) {
        /* ERR_UNAVAIL marks the daemon lost (ctl_inv_backoff) */
        ctl_inv_backoff(inv, r->err);
        return;
    }
    inv->exit_confirmed = true;
    ctl_inv_kick(inv, 0);
}

/* A dockerd stopped with SIGTERM closes its listener, then stops every
 * container and answers their /wait on the connections still open: the
 * agent "exits 143" while the daemon goes away. So an exit counts only
 * when a new connection to the daemon is accepted after it. */
static bool
confirm_exit(struct ctl_inv *inv)
{
    struct err e;

    return ctl_inv_started(
        inv, dk_ping(inv->ctl->dk, true, on_exit_confirmed, inv, &e), &e);
}

static void
finish(struct ctl_inv *inv)
{
    ctl_run_detach(inv);
    if (ctl_phase_terminal(inv->rec.phase))
        return; /* a stop cause came first */
    ctl_record_set_exit_code(&inv->rec, inv->exit_code);
    if (inv->exit_code == 0) {
        ctl_status_set_condition(inv, "Ready", false, "Completed",
                                 "the agent exited 0");
        ctl_status_set_phase(inv, CTL_SUCCEEDED);
        ctl_event(inv, false, "Completed", "the agent exited 0");
    } else {
        char msg[80];

        snprintf(msg, sizeof(msg), "the agent exited %ld", inv->exit_code);
        ctl_status_set_condition(inv, "Ready", false, "Error", msg);
        ctl_status_set_phase(inv, CTL_FAILED);
        ctl_event(inv, true, "Error", "%s", msg);
    }
    ctl_inv_kick(inv, 0);
}

bool
ctl_run_step(struct ctl_inv *inv)
{
    const char *agent = ctl_record_role_id(&inv->rec, RC_ROLE_AGENT);
    struct err e;

    if (agent == NULL) {
        ctl_run_stop(inv, CTL_FAILED, CTL_STOP_AGENT_LOST,
                     "the agent container is not recorded");
        return false;
    }
    if (!inv->output_open && !inv->logs_done && inv->logs == NULL) {
        if (open_output(inv, &e) == -1) {
            ctl_run_stop(inv, CTL_FAILED, CTL_STOP_CAPTURE_FAILURE, e.msg);
            return false;
        }
    }
    if (inv->exited && inv->logs_done) {
        if (!inv->exit_confirmed && !ctl_test_disabled("exit-confirmation"))
            return confirm_exit(inv);
        finish(inv);
        return false;
    }
    if (attach(inv, agent, &e) == -1)
        ctl_inv_backoff(inv, &e);
    return false;
}
