/* test_ctl_stop.c - the first stop reason is the one kept: when
 * stop causes race - cancel then deadline, deadline then cancel, drift
 * during a cancel, output-limit then cancel - the status, the Ready
 * condition and the Stopped event name the first cause only.
 *
 * The controller's own code runs here (ctlcore: every ctl_*.c but
 * loop_main.c): the invocation is made by loop_sync_all() from a directory
 * store, the deadline fires through its real timer callback (ev_invoke,
 * so no clock is involved), the output limit through the real log stream
 * of a fake Docker daemon. The races are driven by calling the causes in
 * a fixed order; each second cause is also shown to record its own reason
 * on a fresh attempt, so an overwrite could not go unnoticed. One more
 * drift stop: a same-named stand-in found by the revalidation. And drift
 * whose details find no memory (the finding's calloc fails on demand:
 * linked with --wrap=calloc) is still acted on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctl.h"
#include "ctl_fixture.h"
#include "pass_inv.h"
#include "inv_queue.h"
#include "ctl_record.h"
#include "pass_run.h"
#include "inv_status.h"
#include "inv_stop.h"
#include "loop_sync.h"
#include "inv_verify_part.h"
#include "drift_neighbours.h"
#include "drift.h"

#define OUTPUT_MAX 16

static const char spec_yaml[] = "apiVersion: agentctl.dev/v1alpha1\n"
                                "kind: AgentInvocation\n"
                                "metadata: {name: race}\n"
                                "spec:\n"
                                "  vendor: claude\n"
                                "  phase: execute\n"
                                "  image: agentctl/demo-agent:0\n"
                                "  command: [sleep, \"600\"]\n"
                                "  deadlineSeconds: 30\n"
                                "  output: {maxBytes: 16}\n";

static const char spec_cancelled[] = "apiVersion: agentctl.dev/v1alpha1\n"
                                     "kind: AgentInvocation\n"
                                     "metadata: {name: race}\n"
                                     "spec:\n"
                                     "  vendor: claude\n"
                                     "  phase: execute\n"
                                     "  image: agentctl/demo-agent:0\n"
                                     "  command: [sleep, \"600\"]\n"
                                     "  deadlineSeconds: 30\n"
                                     "  output: {maxBytes: 16}\n"
                                     "  cancel: true\n";

/* One multiplexed stdout frame of 40 bytes: over OUTPUT_MAX. */
static const char logs_frame[] = "\x01\x00\x00\x00\x00\x00\x00\x28"
                                 "0123456789012345678901234567890123456789";
static const char *const logs_chunks[] = { logs_frame, NULL };
static const size_t logs_lens[] = { sizeof(logs_frame) - 1 };
static const char *const nothing[] = { NULL };

#define AGENT_NAME "agentctl-race-test"
#define STANDIN_ID                                                             \
    "5ea1ed5ea1ed5ea1ed5ea1ed5ea1ed5ea1ed5ea1ed5ea1ed5ea1ed5ea1ed5ea1"

/* The drift finding's calloc fails while this is set (the test is linked
 * with -Wl,--wrap=calloc); every other allocation goes through. */
static bool finding_nomem;

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

void *
__wrap_calloc(size_t n, size_t size)
{
    if (finding_nomem && n == 1 && size == sizeof(struct ctl_drift_finding))
        return NULL;
    return __real_calloc(n, size);
}

struct fx {
    struct ctl_fixture fix;
    struct ctl c;
    struct ctl_inv *inv;
    bool standin; /* a stand-in holds the agent's name */
    int ping_status; /* what GET /_ping answers: 0 = 200 */
};

static void
fake_docker(struct fake_conn *conn, const struct fake_http *h, void *arg)
{
    static const char standin[] =
        "{\"Id\":\"" STANDIN_ID "\",\"Name\":\"/" AGENT_NAME "\"}";
    const struct fx *f = arg;

    if (f->standin &&
        strcmp(h->path, "/v1.41/containers/" AGENT_NAME "/json") == 0)
        fake_reply(conn, 200, "OK", "application/json", standin,
                   sizeof(standin) - 1);
    else if (strncmp(h->path, "/v1.41/containers/c1/logs?", 26) == 0)
        fake_stream(conn, "application/vnd.docker.raw-stream", logs_chunks,
                    logs_lens, 0);
    else if (strcmp(h->path, "/v1.41/containers/c1/wait") == 0)
        fake_stream(conn, "application/json", nothing, NULL, 0);
    else if (strcmp(h->path, "/_ping") == 0 && f->ping_status == 0)
        fake_reply(conn, 200, "OK", "text/plain", "OK", 2);
    else if (strcmp(h->path, "/_ping") == 0)
        fake_reply(conn, f->ping_status, "Error", "application/json",
                   "{\"message\":\"shutting down\"}", 27);
    else if (strcmp(h->path, "/v1.41/networks/slow") == 0)
        return; /* a step request Docker takes its time over */
    else
        fake_reply(conn, 404, "Not Found", "application/json",
                   "{\"message\":\"no such thing\"}", 27);
}

/* A Running attempt: captured spec, an agent recorded, deadline armed. */
static void
running(struct fx *f)
{
    struct spec_file sf;

    inv_status_new(f->inv);
    ctl_record_set_role(&f->inv->rec, RC_ROLE_AGENT, "c1", AGENT_NAME);
    inv_status_set_phase(f->inv, CTL_RUNNING);
    if (f->inv->captured == NULL) {
        assert_int_equal(
            spec_load_buffer("race.yaml", spec_yaml, strlen(spec_yaml), &sf),
            0);
        f->inv->captured = spec_file_take(&sf, 0);
        spec_file_cleanup(&sf);
        assert_non_null(f->inv->captured);
    }
    ev_timer_set(&f->inv->deadline, 3600., 0.);
    ev_timer_start(f->c.loop, &f->inv->deadline);
}

static int
setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    f->inv =
        ctl_fixture_open(&f->fix, &f->c, "race", spec_yaml, fake_docker, f);
    running(f);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    struct fx *f = *state;

    ctl_fixture_close(&f->fix, &f->c);
    free(f);
    return 0;
}

/* --- the causes, as the controller raises them ---------------------- */

/* pass_inv.c watch_spec_changes() on spec.cancel. */
static void
cause_cancel(struct fx *f)
{
    inv_stop(f->inv, CTL_CANCELLED, CTL_STOP_CANCELLED, "spec.cancel is true");
}

/* The deadline timer's own callback (pass_inv.c), fired now. */
static void
cause_deadline(struct fx *f)
{
    ev_invoke(f->c.loop, &f->inv->deadline, EV_TIMER);
}

/* drift_verify.c on_drift() while the agent runs. */
static void
cause_drift(struct fx *f)
{
    inv_stop(f->inv, CTL_FAILED, CTL_STOP_BOUNDARY_DRIFT,
             "agent: HostConfig.RestartPolicy.Name is always, expected no");
}

/* --- what the status says ------------------------------------------- */

/* A field of the status condition `type`, or NULL. */
static const char *
condition(const struct fx *f, const char *type, const char *field)
{
    const struct ctl_record_cond *c = ctl_record_condition(&f->inv->rec, type);

    if (c == NULL)
        return NULL;
    if (strcmp(field, "status") == 0)
        return c->status ? "True" : "False";
    if (strcmp(field, "reason") == 0)
        return c->reason;
    if (strcmp(field, "message") == 0)
        return c->message;
    return NULL;
}

/* Events whose reason is Stopped, and how many of them start with
 * "<stop_reason>:". */
static void
count_stopped(struct fx *f, const char *stop_reason, int *all, int *match)
{
    char *data = NULL, *line, *save = NULL;
    size_t len = 0;
    struct err e;

    *all = *match = 0;
    if (store_event_read(f->c.store, "race", &data, &len, &e) == -1)
        return;
    for (line = strtok_r(data, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        cJSON *ev = cJSON_Parse(line);
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(ev, "reason");
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(ev, "message");

        if (cJSON_IsString(r) && strcmp(r->valuestring, "Stopped") == 0) {
            (*all)++;
            if (cJSON_IsString(m) &&
                strncmp(m->valuestring, stop_reason, strlen(stop_reason)) ==
                    0 &&
                m->valuestring[strlen(stop_reason)] == ':')
                (*match)++;
        }
        cJSON_Delete(ev);
    }
    free(data);
}

/* The status in memory and on disk, and the event log, name `reason`
 * and `phase` only. */
static void
assert_stopped(struct fx *f, const char *reason, enum ctl_phase phase)
{
    cJSON *disk = NULL;
    struct err e;
    int all, match;

    assert_string_equal(ctl_stop_reason_name(f->inv->rec.stop), reason);
    assert_int_equal(f->inv->rec.phase, phase);
    assert_string_equal(condition(f, "Ready", "reason"), reason);
    assert_int_equal(inv_status_flush(f->inv, &e), 0);
    assert_int_equal(
        store_json_get(f->c.store, STORE_DOC_STATUS, "race", &disk, &e), 0);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(disk, "stopReason")->valuestring,
        reason);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(disk, "phase")->valuestring,
        ctl_phase_name(phase));
    cJSON_Delete(disk);
    count_stopped(f, reason, &all, &match);
    assert_int_equal(match, 1);
    assert_int_equal(all, 1);
    /* a stopped attempt's deadline can no longer fire */
    assert_false(ev_is_active(&f->inv->deadline));
}

/* The next test's attempt starts with an empty event log. */
static void
fresh_attempt(struct fx *f)
{
    char path[128];

    snprintf(path, sizeof(path), "%s/state/events/race.jsonl", f->fix.dir);
    unlink(path);
    running(f);
}

/* --- the races ------------------------------------------------------ */

static void
test_cancel_then_deadline(void **state)
{
    struct fx *f = *state;

    cause_cancel(f);
    assert_stopped(f, "cancelled", CTL_CANCELLED);
    cause_deadline(f);
    assert_stopped(f, "cancelled", CTL_CANCELLED);

    /* control: the deadline alone is recorded as such */
    fresh_attempt(f);
    cause_deadline(f);
    assert_stopped(f, "deadline", CTL_FAILED);
}

static void
test_deadline_then_cancel(void **state)
{
    struct fx *f = *state;

    cause_deadline(f);
    assert_stopped(f, "deadline", CTL_FAILED);
    cause_cancel(f);
    assert_stopped(f, "deadline", CTL_FAILED);
    inv_stop(f->inv, CTL_CANCELLED, CTL_STOP_DELETED, "the spec was deleted");
    assert_stopped(f, "deadline", CTL_FAILED);

    /* control: the cancel alone is recorded as such */
    fresh_attempt(f);
    cause_cancel(f);
    assert_stopped(f, "cancelled", CTL_CANCELLED);
}

static void
test_drift_during_cancel(void **state)
{
    struct fx *f = *state;

    cause_cancel(f);
    cause_drift(f);
    assert_stopped(f, "cancelled", CTL_CANCELLED);
    cause_deadline(f);
    assert_stopped(f, "cancelled", CTL_CANCELLED);

    /* control: drift alone fails the attempt with boundary-drift */
    fresh_attempt(f);
    cause_drift(f);
    assert_stopped(f, "boundary-drift", CTL_FAILED);
    cause_cancel(f);
    assert_stopped(f, "boundary-drift", CTL_FAILED);
}

/* Run the loop (bounded) until the attempt has a stop reason. */
static void
run_until_stopped(struct fx *f)
{
    for (int i = 0; i < 2000 && f->inv->rec.stop == CTL_STOP_NONE; i++)
        ev_run(f->c.loop, EVRUN_ONCE);
}

static void
test_output_limit_then_cancel(void **state)
{
    struct fx *f = *state;

    /* the real capture: pass_run_step follows logs and wait of agent c1 */
    assert_int_equal(pass_run_step(f->inv), CTL_STEP_NONE);
    assert_non_null(f->inv->run.logs);
    assert_non_null(f->inv->run.wait);
    run_until_stopped(f);
    assert_stopped(f, "output-limit", CTL_FAILED);
    assert_null(f->inv->run.logs); /* detached: no later byte can count */
    assert_null(f->inv->run.wait);
    cause_cancel(f);
    cause_deadline(f);
    assert_stopped(f, "output-limit", CTL_FAILED);
    assert_true(f->inv->rec.output.set && f->inv->rec.output.truncated);

    /* control: cancel first, and the same stream records nothing more */
    fresh_attempt(f);
    f->inv->run.logs_done = false;
    assert_int_equal(pass_run_step(f->inv), CTL_STEP_NONE);
    assert_non_null(f->inv->run.logs);
    cause_cancel(f);
    assert_null(f->inv->run.logs);
    for (int i = 0; i < 50; i++)
        ev_run(f->c.loop, EVRUN_NOWAIT);
    assert_stopped(f, "cancelled", CTL_CANCELLED);
}

static void
on_slow_step(struct dk_req *req, struct dk_response *r, void *arg)
{
    struct ctl_inv *inv = arg;

    (void)req;
    (void)r;
    inv->lanes[CTL_LANE_MAIN].call = NULL;
}

/* cancel: true is applied while a step's request is in flight (a pass
 * then returns at once: the request's callback queues the next one), and
 * the deadline fires before the request returns. The cancel came first
 * and is the one recorded. */
static void
test_cancel_during_step_then_deadline(void **state)
{
    struct fx *f = *state;
    char path[128];
    struct err e;

    f->inv->lanes[CTL_LANE_MAIN].call = dk_get(f->c.dk, "/networks/slow", on_slow_step, f->inv, &e);
    assert_non_null(f->inv->lanes[CTL_LANE_MAIN].call);
    snprintf(path, sizeof(path), "%s/specs/race.yaml", f->fix.dir);
    ctl_fixture_write(path, spec_cancelled);
    loop_sync_all(&f->c); /* what the store watch does on the change */
    assert_true(f->inv->spec->cancel);
    pass_inv_pass(f->inv); /* the kick: returns, the step is in flight */
    cause_deadline(f);
    assert_stopped(f, "cancelled", CTL_CANCELLED);
    dk_cancel(f->inv->lanes[CTL_LANE_MAIN].call);
    f->inv->lanes[CTL_LANE_MAIN].call = NULL;

    /* control: without the cancel, the deadline is recorded */
    fresh_attempt(f);
    ctl_fixture_write(path, spec_yaml);
    loop_sync_all(&f->c);
    assert_false(f->inv->spec->cancel);
    cause_deadline(f);
    assert_stopped(f, "deadline", CTL_FAILED);
}

/* Event reasons in the log, space-separated. */
static void
event_reasons(struct fx *f, char *out, size_t size)
{
    char *data = NULL, *line, *save = NULL;
    size_t len = 0, used = 0;
    struct err e;

    out[0] = '\0';
    if (store_event_read(f->c.store, "race", &data, &len, &e) == -1)
        return;
    for (line = strtok_r(data, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        cJSON *ev = cJSON_Parse(line);
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(ev, "reason");

        if (cJSON_IsString(r) && used < size)
            used += (size_t)snprintf(out + used, size - used, "%s ",
                                     r->valuestring);
        cJSON_Delete(ev);
    }
    free(data);
}

/* A captured Running attempt whose next pass revalidates. */
static void
prime_verify(struct fx *f)
{
    struct ctl_record *r = &f->inv->rec;

    ctl_record_set_str(r, &r->spec_hash, f->inv->spec->spec_hash);
    ctl_record_set_str(
        r, &r->image_id,
        "sha256:"
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    ctl_record_set_captured(r, spec_resource(f->inv->spec));
    ctl_record_set_subnet(r, 0);
    f->inv->verify.due = true;
}

/* Let the fake daemon answer until no request of the attempt is open. */
static void
run_calls(struct fx *f)
{
    for (int i = 0; i < 2000 && f->inv->lanes[CTL_LANE_MAIN].call != NULL; i++)
        ev_run(f->c.loop, EVRUN_ONCE);
    assert_null(f->inv->lanes[CTL_LANE_MAIN].call);
}

/* The pass that acts on the drift a round found, after the daemon took
 * a new connection (drift.c). */
static void
confirm_drift(struct fx *f)
{
    assert_true(inv_verify_drift_pending(f->inv));
    pass_inv_pass(f->inv); /* GET /_ping over a new connection */
    run_calls(f);
    assert_true(!inv_verify_drift_pending(f->inv));
}

/* The same while GET /_ping fails (a daemon shutting down): the agent
 * keeps running, nothing says Drifted, a round is due again. */
static void
not_counted(struct fx *f)
{
    assert_int_equal(f->inv->rec.phase, CTL_RUNNING);
    confirm_drift(f);
    assert_int_equal(f->inv->rec.phase, CTL_RUNNING);
    assert_null(condition(f, "Drifted", "status"));
    assert_true(f->inv->verify.due);
}

/* The deadline fires while a revalidation inspect is in flight, and the
 * inspect then finds the agent gone (drift): the deadline, first, stays
 * the stop reason, the drift is recorded as an observation, and no
 * repair is announced for an attempt that is already stopping. */
static void
test_deadline_during_verify(void **state)
{
    struct fx *f = *state;
    char reasons[256];

    prime_verify(f);
    pass_inv_pass(f->inv); /* starts GET /containers/c1/json */
    assert_non_null(f->inv->lanes[CTL_LANE_MAIN].call);
    cause_deadline(f);
    run_calls(f);
    confirm_drift(f);
    assert_stopped(f, "deadline", CTL_FAILED);
    event_reasons(f, reasons, sizeof(reasons));
    assert_null(strstr(reasons, "DriftRepaired"));
    assert_false(f->inv->verify.repairing);
    assert_string_equal(condition(f, "Drifted", "status"), "True");
    assert_string_equal(condition(f, "Drifted", "reason"), "object.gone");
}

/* While the agent runs its recorded ID answers 404 and a stand-in holds
 * its name (drift_verify.c): the attempt fails closed with container.id
 * naming both IDs, a Warning StandInFound says it is left in place, the
 * recorded ID stays for cleanup (which removes by it alone), and the
 * stand-in's ID is kept so nothing takes it for the attempt's own. */
static void
test_standin_while_running(void **state)
{
    struct fx *f = *state;
    char reasons[256];
    const char *msg;

    f->standin = true;
    prime_verify(f);
    pass_inv_pass(f->inv); /* GET /containers/c1/json: 404, then the name */
    run_calls(f);
    confirm_drift(f);
    assert_stopped(f, "boundary-drift", CTL_FAILED);
    assert_string_equal(condition(f, "Drifted", "reason"), "container.id");
    msg = condition(f, "Drifted", "message");
    assert_non_null(strstr(msg, ": a stand-in holds the name"));
    assert_non_null(strstr(msg, "\"" STANDIN_ID "\""));
    assert_non_null(strstr(msg, "\"c1\""));
    event_reasons(f, reasons, sizeof(reasons));
    assert_non_null(strstr(reasons, "StandInFound"));
    assert_null(strstr(reasons, "DriftRepaired"));
    assert_string_equal(ctl_record_role_id(&f->inv->rec, RC_ROLE_AGENT), "c1");
    assert_true(ctl_record_is_standin(&f->inv->rec, STANDIN_ID));
    assert_false(ctl_record_is_standin(&f->inv->rec, "c1"));
    assert_false(ctl_record_is_standin(&f->inv->rec, NULL));
}

/* A round's finding counts only once the daemon answers on a new
 * connection: a dockerd shutting down shows its own teardown on the old
 * ones. While GET /_ping fails the agent keeps running, nothing says
 * Drifted, and a round is due again; once it answers, the next round's
 * finding fails the attempt closed (the control). */
static void
test_drift_confirmed_over_new_connection(void **state)
{
    struct fx *f = *state;

    f->standin = true;
    f->ping_status = 500;
    prime_verify(f);
    pass_inv_pass(f->inv); /* the round finds the stand-in */
    run_calls(f);
    not_counted(f);

    /* control: the daemon answers, the next round's finding counts */
    f->ping_status = 0;
    pass_inv_pass(f->inv);
    run_calls(f);
    confirm_drift(f);
    assert_stopped(f, "boundary-drift", CTL_FAILED);
    assert_string_equal(condition(f, "Drifted", "reason"), "container.id");
}

/* A docker exec reported while the finding cannot be allocated is not
 * lost (no round can see an exec that ended): its rule waits, a pass is
 * asked for, and the attempt fails closed with a fixed message. The
 * control: with memory, Docker's event is the message. */
static void
test_exec_event_without_memory(void **state)
{
    struct fx *f = *state;

    prime_verify(f);
    f->inv->verify.due = false;
    ev_timer_stop(f->c.loop, &f->inv->queue.kick);
    finding_nomem = true;
    drift_neighbours_event_seen(f->inv, "c1", "exec_start: sh -c id");
    finding_nomem = false;
    assert_null(f->inv->verify.found);
    assert_true(inv_verify_foreign_pending(f->inv));
    assert_true(ev_is_active(&f->inv->queue.kick)); /* a pass is asked for */
    pass_inv_pass(f->inv); /* the finding, made now */
    confirm_drift(f);
    assert_stopped(f, "boundary-drift", CTL_FAILED);
    assert_string_equal(condition(f, "Drifted", "reason"),
                        "container.exec-ids");
    assert_non_null(
        strstr(condition(f, "Drifted", "message"), "lost: out of memory"));

    /* control: with memory the event itself is the finding */
    fresh_attempt(f);
    drift_neighbours_event_seen(f->inv, "c1", "exec_start: sh -c id");
    assert_non_null(f->inv->verify.found);
    pass_inv_pass(f->inv);
    confirm_drift(f);
    assert_non_null(
        strstr(condition(f, "Drifted", "message"), "exec_start: sh -c id"));
}

/* A round finds a stand-in while the finding cannot be allocated. */
static void
drift_without_memory(struct fx *f)
{
    finding_nomem = true;
    drift_found(f->inv, "container.id", "agent: a stand-in holds the name");
    finding_nomem = false;
}

/* A round's drift whose details find no memory still waits for the
 * daemon's new connection (a dockerd shutting down shows its own
 * teardown): while GET /_ping fails the agent keeps running. The
 * control: once the daemon answers, the rule alone fails the attempt. */
static void
test_round_drift_without_memory(void **state)
{
    struct fx *f = *state;

    prime_verify(f);
    f->ping_status = 500;
    drift_without_memory(f);
    assert_null(f->inv->verify.found);
    not_counted(f);

    /* control: the daemon answers, the drift counts by its rule */
    f->ping_status = 0;
    drift_without_memory(f);
    confirm_drift(f);
    assert_stopped(f, "boundary-drift", CTL_FAILED);
    assert_string_equal(condition(f, "Drifted", "reason"), "container.id");
    assert_non_null(
        strstr(condition(f, "Drifted", "message"), "lost: out of memory"));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cancel_then_deadline, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_deadline_then_cancel, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_drift_during_cancel, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_output_limit_then_cancel, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_deadline_during_verify, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_drift_confirmed_over_new_connection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_standin_while_running, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_cancel_during_step_then_deadline,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_exec_event_without_memory,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_drift_without_memory,
                                        setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
