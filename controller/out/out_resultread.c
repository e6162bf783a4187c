/* out_resultread.c - the agent's result, from its CLI's documented
 * channel (docs/status.md "result", docs/adapters.md):
 *   - Claude Code prints one JSON envelope on stdout: while the logs are
 *     followed, the stdout frames are kept here (at most maxResultBytes
 *     plus the envelope's slack; one byte more stops the agent), beside
 *     the output capture, which keeps stdout and stderr together;
 *   - Codex writes its last message to RC_CODEX_RESULT_FILE on the
 *     scratch volume, which the keeper mounts too: once the CLI exited it
 *     is read back as Docker's archive of that path from the keeper.
 * hostio/rc_result.c reads either strictly; the members go into
 * status.result beside `changes`, and out_resultread_verdict() tells the
 * run step how the attempt ends. */
#include "out_resultread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_record.h"
#include "try_result.h"
#include "inv_resultjob.h"
#include "inv_status.h"
#include "inv_stop.h"
#include "ctl_testhooks.h"
#include "rc_adapter.h"
#include "rc_result.h"

#define RESULT_IDLE_MS 30000 /* the archive stalls this long: failed */
#define TAR_SLACK      (64u * 1024) /* tar headers around the one file */

enum channel { CHANNEL_NONE, CHANNEL_STDOUT, CHANNEL_FILE };


static enum channel
channel_of(const struct ctl_inv *inv)
{
    const struct spec_invocation *s = inv->captured;
    const char *adapter;

    if (s == NULL || s->prompt == NULL || !inv->rec.result_channel)
        return CHANNEL_NONE;
    adapter = rc_adapter_for_vendor(s->vendor);
    if (strcmp(adapter, "claude") == 0)
        return CHANNEL_STDOUT;
    if (strcmp(adapter, "codex") == 0)
        return CHANNEL_FILE;
    return CHANNEL_NONE;
}


static struct inv_resultread *
fresh(struct ctl_inv *inv, size_t max)
{
    inv_resultread_free(inv);
    inv->cleanup.result = calloc(1, sizeof(*inv->cleanup.result));
    if (inv->cleanup.result == NULL)
        return NULL;
    dk_logs_demux_init(&inv->cleanup.result->demux);
    inv->cleanup.result->max = max;
    return inv->cleanup.result;
}

void
out_resultread_restart(struct ctl_inv *inv)
{
    if (channel_of(inv) == CHANNEL_STDOUT)
        (void)fresh(inv, inv->captured->output_max_result_bytes +
                             RC_RESULT_ENVELOPE_SLACK);
    else
        inv_resultread_free(inv);
}

static void read_stdout(struct ctl_inv *inv);

/* Keep bytes up to the bound; past it only count that there were more. */
static void
keep(struct inv_resultread *rr, const char *data, size_t len)
{
    size_t room = rr->max - rr->len;
    char *grown;

    if (rr->over)
        return;
    if (len > room) {
        rr->over = true;
        return;
    }
    grown = realloc(rr->buf, rr->len + len + 1);
    if (grown == NULL) {
        rr->over = true; /* said as oversized: nothing is half kept */
        return;
    }
    rr->buf = grown;
    memcpy(rr->buf + rr->len, data, len);
    rr->len += len;
    rr->buf[rr->len] = '\0';
}

static void
on_frame(int stream, const char *data, size_t len, void *arg)
{
    if (stream == 1) /* stdout: the envelope; stderr is the output's */
        keep(arg, data, len);
}

void
out_resultread_feed_logs(struct ctl_inv *inv, const char *data, size_t len)
{
    struct inv_resultread *rr = inv->cleanup.result;
    struct err e;

    if (rr == NULL || rr->over || rr->broken)
        return;
    if (dk_logs_demux_feed(&rr->demux, data, len, on_frame, rr, &e) == -1)
        rr->broken = true; /* the output capture stops the agent for it */
    if (rr->over) { /* said in status.result, then the agent stops */
        read_stdout(inv);
        inv_stop(inv, CTL_FAILED, CTL_STOP_CAPTURE_FAILURE,
                 "result oversized: stdout passed spec.output.maxResultBytes "
                 "and the envelope's slack; the agent was stopped");
    }
}

/* ---- the outcome ------------------------------------------------------ */

/* status.result's members of an earlier read go; `changes` stays. */
static void
record(struct ctl_inv *inv, const struct rc_result *r)
{
    static const char *const keys[] = {
        "channel", "text", "textTruncated", "bytes", "json", "isError",
        "turns", "permissionDenials", "valid", "errorCount", "errors",
        "problem", "detail",
    };
    cJSON *fresh_members = rc_result_status(r), *it;
    struct inv_resultread *rr = inv->cleanup.result;

    if (inv->rec.result == NULL)
        inv->rec.result = cJSON_CreateObject();
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        cJSON_DeleteItemFromObjectCaseSensitive(inv->rec.result, keys[i]);
    while (fresh_members != NULL && (it = fresh_members->child) != NULL)
        cJSON_AddItemToObject(inv->rec.result, it->string,
                              cJSON_DetachItemViaPointer(fresh_members, it));
    cJSON_Delete(fresh_members);
    inv->rec.dirty = true;
    rr->done = true;
    rr->problem = r->problem;
    rr->is_error = r->is_error;
    snprintf(rr->detail, sizeof(rr->detail), "%s", r->detail);
    if (r->problem == RC_RESULT_OK)
        inv_event(inv, false, "ResultRead", "%zu bytes from %s%s%s", r->text_len,
                  r->channel, r->has_schema ? ", valid against the schema" : "",
                  r->is_error ? ", the CLI reported an error" : "");
    else
        inv_event(inv, true, "ResultUnusable", "result %s: %s",
                  rc_result_problem_name(r->problem), r->detail);
}

static struct rc_result_opts
opts_of(const struct ctl_inv *inv)
{
    return (struct rc_result_opts){
        .max_bytes = inv->captured->output_max_result_bytes,
        .schema = inv->captured->output_schema,
        .skip_validation = ctl_test_disabled("result-validation"),
    };
}

static void
read_stdout(struct ctl_inv *inv)
{
    struct rc_result_opts o = opts_of(inv);
    struct inv_resultread *rr = inv->cleanup.result;
    struct rc_result r;

    rc_result_claude(rr->buf != NULL ? rr->buf : "", rr->len, &o, &r);
    if (rr->over) { /* the agent was stopped for it; said all the same */
        rc_result_cleanup(&r);
        rc_result_claude("", 0, &o, &r);
        r.problem = RC_RESULT_OVERSIZED;
        snprintf(r.detail, sizeof(r.detail),
                 "stdout passed %zu bytes: over spec.output.maxResultBytes",
                 rr->max);
    }
    record(inv, &r);
    rc_result_cleanup(&r);
}

/* ---- the file, through the keeper -------------------------------------- */

/* The archive's bytes as they come. Past the bound the rest is not
 * read: the request is cancelled and answered here (as oversized), else
 * a sparse file of a terabyte (`truncate -s 1T`, which fits any tmpfs)
 * would be streamed as zeros, daemon to controller, for as long as that
 * takes, and the attempt would wait for it. */
static void
on_file_data(struct dk_req *req, const char *data, size_t len, void *arg)
{
    struct ctl_inv *inv = arg;
    struct dk_response cut = { .status = 200, .body = "" };

    if (inv->cleanup.result == NULL || inv->cleanup.result->over)
        return;
    keep(inv->cleanup.result, data, len);
    if (!inv->cleanup.result->over || ctl_test_disabled("result-stream-cut"))
        return;
    dk_cancel(req);
    try_step_answered(req, &cut, inv);
}

static void
file_missing(struct ctl_inv *inv, const char *why)
{
    struct rc_result_opts o = opts_of(inv);
    struct rc_result r;

    rc_result_text(NULL, 0, &o, &r);
    if (why != NULL)
        snprintf(r.detail, sizeof(r.detail), "%.*s",
                 (int)sizeof(r.detail) - 1, why); /* says it fits (-O3) */
    record(inv, &r);
    rc_result_cleanup(&r);
}

static enum ctl_step
on_file(struct ctl_inv *inv, struct dk_response *resp)
{
    struct inv_resultread *rr = inv->cleanup.result;
    struct rc_result_opts o = opts_of(inv);
    struct rc_result r;
    char *data, why[400];
    size_t n;
    struct err e;

    if (resp->err != NULL && resp->err->code == ERR_UNAVAIL)
        return try_step_failed(inv, resp->err); /* the daemon: retried */
    if (resp->err != NULL && resp->err->code == ERR_NOTFOUND) {
        file_missing(inv, NULL);
        return CTL_STEP_DONE;
    }
    if (resp->err != NULL) {
        snprintf(why, sizeof(why), "the result file could not be read "
                 "from the keeper: %s", resp->err->msg);
        file_missing(inv, why);
        return CTL_STEP_DONE;
    }
    if (rr->over || rc_result_untar(rr->buf != NULL ? rr->buf : "", rr->len,
                                    o.max_bytes, &data, &n, &e) == -1) {
        rc_result_text("", 0, &o, &r);
        r.problem = rr->over || e.code == ERR_LIMIT ? RC_RESULT_OVERSIZED
                                                    : RC_RESULT_MALFORMED;
        snprintf(r.detail, sizeof(r.detail), "%s %s",
                 RC_CODEX_RESULT_FILE, rr->over ? "is over "
                 "spec.output.maxResultBytes" : e.msg);
        record(inv, &r);
        rc_result_cleanup(&r);
        return CTL_STEP_DONE;
    }
    rc_result_text(data, n, &o, &r);
    free(data);
    record(inv, &r);
    rc_result_cleanup(&r);
    return CTL_STEP_DONE;
}

static enum ctl_step
read_file(struct ctl_inv *inv)
{
    const char *keeper = ctl_record_role_id(&inv->rec, RC_ROLE_KEEPER);
    struct inv_resultread *rr =
        fresh(inv, inv->captured->output_max_result_bytes + TAR_SLACK);
    struct err e;

    if (rr == NULL) {
        err_set(&e, ERR_NOMEM, "out of memory");
        return try_step_failed(inv, &e);
    }
    if (keeper == NULL) {
        file_missing(inv, "no keeper is recorded to read the result "
                          "file through");
        return CTL_STEP_NONE;
    }
    return try_step_request(
        inv, on_file,
        dk_container_stream_archive(inv->ctl->dk, keeper, RC_CODEX_RESULT_FILE,
                                    RESULT_IDLE_MS, on_file_data,
                                    try_step_answered, inv, &e),
        &e);
}

enum ctl_step
out_resultread_step(struct ctl_inv *inv)
{
    enum channel ch = channel_of(inv);

    if (ch == CHANNEL_NONE ||
        (inv->cleanup.result != NULL && inv->cleanup.result->done))
        return CTL_STEP_NONE;
    if (ch == CHANNEL_FILE)
        return read_file(inv);
    if (inv->cleanup.result == NULL) { /* out of memory when the logs began */
        struct err e;

        err_set(&e, ERR_NOMEM, "out of memory keeping the agent's stdout");
        return try_step_failed(inv, &e);
    }
    read_stdout(inv);
    return CTL_STEP_NONE;
}

enum out_result_verdict
out_resultread_verdict(const struct ctl_inv *inv, char *msg, size_t size)
{
    const struct inv_resultread *rr = inv->cleanup.result;

    if (rr == NULL || !rr->done)
        return CTL_RESULT_FINE;
    if (rr->problem != RC_RESULT_OK) {
        snprintf(msg, size, "result %s: %s",
                 rc_result_problem_name(rr->problem), rr->detail);
        return CTL_RESULT_UNUSABLE;
    }
    if (rr->is_error) {
        snprintf(msg, size, "the agent exited 0 but its CLI reported an "
                 "error (is_error; agentctl result %s)", inv->name);
        return CTL_RESULT_CLI_ERROR;
    }
    return CTL_RESULT_FINE;
}
