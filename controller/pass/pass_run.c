/* pass_run.c - a running agent: its output is followed into the bounded,
 * strict-UTF-8 capture (rc_output), its exit is awaited, and any stop
 * cause - deadline, cancel, supersede, output-limit, capture-failure,
 * deletion - ends it. The first stop reason recorded is the one kept. */
#include "pass_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_record.h"
#include "try_result.h"
#include "out_resultread.h"
#include "inv_status.h"
#include "inv_stop.h"
#include "ctl_testhooks.h"
#include "log.h"

static void
stop_for_output(struct ctl_inv *inv, enum rc_output_status st)
{
    if (st == RC_OUTPUT_LIMIT)
        inv_stop(inv, CTL_FAILED, CTL_STOP_OUTPUT_LIMIT,
                 "output passed spec.output.maxBytes");
    else if (st == RC_OUTPUT_CAPTURE_FAILURE)
        inv_stop(inv, CTL_FAILED, CTL_STOP_CAPTURE_FAILURE,
                 inv->run.out->err.msg[0] ? inv->run.out->err.msg
                                          : "output is not strict UTF-8");
    else if (st == RC_OUTPUT_IO_ERROR)
        inv_stop(inv, CTL_FAILED, CTL_STOP_CAPTURE_FAILURE,
                 inv->run.out->err.msg);
}

static void
on_logs_data(struct dk_req *req, const char *data, size_t len, void *arg)
{
    struct ctl_inv *inv = arg;
    enum rc_output_status st;

    (void)req;
    st = rc_output_feed_logs(inv->run.out, data, len);
    if (st != RC_OUTPUT_OK)
        stop_for_output(inv, st);
    else
        out_resultread_feed_logs(inv, data, len);
}

static void
on_logs_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;

    (void)req;
    inv->run.logs = NULL;
    if (r->err != NULL) {
        /* Start the capture over from the first byte on the next pass:
         * Docker keeps the whole log, and a half capture is worthless. */
        inv_output_close(inv, NULL, NULL);
        try_inv_settle(inv, try_step_failed(inv, r->err));
        return;
    }
    inv->run.logs_done = true;
    try_inv_settle(inv, CTL_STEP_DONE);
}

static void
on_wait_done(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;
    (void)req;
    inv->run.wait = NULL;
    if (r->err != NULL) {
        try_inv_settle(inv, try_step_failed(inv, r->err));
        return;
    }
    inv->run.exit_code = dk_wait_status(r);
    ctl_test_point("exited", "agent");
    inv->run.exited = true;
    try_inv_settle(inv, CTL_STEP_DONE);
}

static int
open_output(struct ctl_inv *inv, struct err *e)
{
    char path[512];
    const struct spec_invocation *s = inv->captured;
    struct rc_output *out;

    if (store_output_path(inv->ctl->store, inv->name, path, sizeof(path), e) ==
        -1)
        return -1;
    out = malloc(sizeof(*out));
    if (out == NULL)
        return err_set(e, ERR_NOMEM, "out of memory for the output capture");
    if (rc_output_open(path, s->output_max_bytes, out, e) == -1) {
        free(out);
        return -1;
    }
    inv->run.out = out;
    if (inv->credential != NULL &&
        rc_output_redact(out, inv->credential, strlen(inv->credential), e) ==
            -1) {
        inv_output_close(inv, NULL, NULL);
        return -1;
    }
    inv->run.logs_done = false;
    out_resultread_restart(inv); /* the envelope is read from byte 0 too */
    return 0;
}

static int
attach(struct ctl_inv *inv, const char *agent, struct err *e)
{
    if (inv->run.logs == NULL && !inv->run.logs_done) {
        inv->run.logs = dk_container_follow_logs(
            inv->ctl->dk, agent, on_logs_data, on_logs_done, inv, e);
        if (inv->run.logs == NULL)
            return -1;
    }
    if (inv->run.wait == NULL && !inv->run.exited) {
        inv->run.wait = dk_container_wait(inv->ctl->dk, agent, DK_NO_TIMEOUT,
                                          on_wait_done, inv, e);
        if (inv->run.wait == NULL)
            return -1;
    }
    return 0;
}

static enum ctl_step
on_exit_confirmed(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err != NULL) /* ERR_UNAVAIL marks the daemon lost (try_result.c) */
        return try_step_failed(inv, r->err);
    inv->run.exit_confirmed = true;
    return CTL_STEP_DONE;
}

/* A dockerd stopped with SIGTERM closes its listener, then stops every
 * container and answers their /wait on the connections still open: the
 * agent "exits 143" while the daemon goes away. So an exit counts only
 * when a new connection to the daemon is accepted after it. */
static enum ctl_step
confirm_exit(struct ctl_inv *inv)
{
    struct err e;

    return try_step_request(
        inv, on_exit_confirmed,
        dk_ping(inv->ctl->dk, true, try_step_answered, inv, &e), &e);
}

/* An exit 0 whose result is unusable fails as capture-failure; one whose
 * CLI reported an error (is_error) fails as ResultError. A non-zero exit
 * is the failure whatever the result claims (docs/status.md "result"). */
static bool
finish_by_result(struct ctl_inv *inv)
{
    char msg[400];

    switch (out_resultread_verdict(inv, msg, sizeof(msg))) {
    case CTL_RESULT_UNUSABLE:
        inv_stop(inv, CTL_FAILED, CTL_STOP_CAPTURE_FAILURE, msg);
        return true;
    case CTL_RESULT_CLI_ERROR:
        inv_status_set_condition(inv, "Ready", false, "ResultError", msg);
        inv_status_set_phase(inv, CTL_FAILED);
        inv_event(inv, true, "ResultError", "%s", msg);
        return true;
    case CTL_RESULT_FINE:
        break;
    }
    return false;
}

static void
finish(struct ctl_inv *inv)
{
    inv_stop_detach(inv);
    if (ctl_phase_terminal(inv->rec.phase))
        return; /* a stop cause came first */
    ctl_record_set_exit_code(&inv->rec, inv->run.exit_code);
    if (inv->run.exit_code == 0 && finish_by_result(inv))
        return;
    if (inv->run.exit_code == 0) {
        inv_status_set_condition(inv, "Ready", false, "Completed",
                                 "the agent exited 0");
        inv_status_set_phase(inv, CTL_SUCCEEDED);
        inv_event(inv, false, "Completed", "the agent exited 0");
    } else {
        char msg[80];

        snprintf(msg, sizeof(msg), "the agent exited %ld", inv->run.exit_code);
        inv_status_set_condition(inv, "Ready", false, "Error", msg);
        inv_status_set_phase(inv, CTL_FAILED);
        inv_event(inv, true, "Error", "%s", msg);
    }
}

enum ctl_step
pass_run_step(struct ctl_inv *inv)
{
    const char *agent = ctl_record_role_id(&inv->rec, RC_ROLE_AGENT);
    enum ctl_step st;
    struct err e;

    if (agent == NULL) {
        inv_stop(inv, CTL_FAILED, CTL_STOP_AGENT_LOST,
                 "the agent container is not recorded");
        return CTL_STEP_DONE;
    }
    if (inv->run.out == NULL && !inv->run.logs_done && inv->run.logs == NULL) {
        if (open_output(inv, &e) == -1) {
            inv_stop(inv, CTL_FAILED, CTL_STOP_CAPTURE_FAILURE, e.msg);
            return CTL_STEP_DONE;
        }
    }
    if (inv->run.exited && inv->run.logs_done) {
        if (!inv->run.exit_confirmed && !ctl_test_disabled("exit-confirmation"))
            return confirm_exit(inv);
        if ((st = out_resultread_step(inv)) != CTL_STEP_NONE)
            return st; /* the result first: it may decide the end */
        finish(inv);
        return CTL_STEP_DONE;
    }
    if (attach(inv, agent, &e) == -1)
        return try_step_failed(inv, &e);
    return CTL_STEP_NONE; /* the streams' answers queue the next pass */
}
