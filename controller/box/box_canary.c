/* box_canary.c - the boundary canary (docs/design.md "The boundary
 * canary"): while the agent runs, the boundary probe runs again, inside
 * the agent's own network namespace, so it checks what the agent has now
 * - its interfaces, routes, resolver and the proxy it reaches - and not
 * only what the inspects say. A run is due on a jittered timer (config
 * probeInterval) and after every Docker event about the attempt's network
 * or its proxy. A breach fails the attempt closed like drift
 * (boundary-drift, Drifted=True with rule probe.<check>); an inconclusive
 * run is made again at once and fails closed the second time in a row.
 * Each run is a BoundaryCanary event and counts in
 * agentctl_canary_runs_total{result}.
 *
 * One request at a time, like every step: create (recorded as the probe
 * role, on disk before the start), start, wait, read the verdict from its
 * logs, remove it by ID. The boundary probe of the preparation, exited,
 * is removed here too, right after the agent's start. A canary recorded
 * by an earlier process (killed mid-run) is removed first and the run
 * made again: its verdict was never read.
 */
#include "box_canary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drift.h"
#include "drift_objects.h"
#include "obs_observe.h"
#include "box_probe.h"
#include "inv_queue.h"
#include "ctl_record.h"
#include "try_result.h"
#include "inv_status.h"
#include "ctl_testhooks.h"
#include "log.h"
#include "rc_probe.h"

/* The probe decides in milliseconds on the internal network; inside the
 * agent's namespace (no sysctl of its own) an address no one holds takes
 * the kernel's ARP give-up, about 3 s. A canary that has not exited by
 * then (paused, stuck) is an inconclusive run: it holds the main lane
 * while it is awaited. */
#define CANARY_WAIT_MS (20 * 1000L)
/* Docker creates containers one at a time behind network creates: a
 * create that outlasts its request is found by its name (adopt()). */
#define CANARY_CREATE_MS (10L * 60 * 1000)
#define CANARY_JITTER    0.2 /* each wait is probeInterval +- 20 % */
#define CANARY_SILENT    2   /* inconclusive runs in a row that fail it */

static void
on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct ctl_inv *inv = container_of(w, struct ctl_inv, probe.canary);

    (void)loop;
    (void)revents;
    inv->probe.canary_due = true;
    inv_kick(inv, 0);
}

void
box_canary_init(struct ctl_inv *inv)
{
    ev_timer_init(&inv->probe.canary, on_timer, 0., 0.);
}

/* Jittered, so that invocations started together do not probe together. */
static void
arm(struct ctl_inv *inv)
{
    double every = inv->ctl->cfg->probe_interval_s;
    double r = (double)random() / RAND_MAX;

    if (every <= 0 || ev_is_active(&inv->probe.canary))
        return;
    ev_timer_set(&inv->probe.canary,
                 every * (1 - CANARY_JITTER + 2 * CANARY_JITTER * r), 0.);
    ev_timer_start(inv->ctl->loop, &inv->probe.canary);
}

/* The canary's name is held by a container that is not this attempt's
 * (taken before our create, or left by a lost create and not ours by its
 * labels): a container may sit in the agent's namespace under it. */
static enum ctl_step
name_taken(struct ctl_inv *inv, const char *name, const char *id)
{
    char msg[300];

    snprintf(msg, sizeof(msg),
             "the canary's name %s is held by container %.12s, not this "
             "attempt's",
             name, id ? id : "?");
    ctl_record_set_str(&inv->rec, &inv->rec.canary_pending, NULL);
    return drift_found(inv, "container.joined", msg);
}

static enum ctl_step
on_created(struct ctl_inv *inv, struct dk_response *r)
{
    const char *id =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r->json, "Id"));
    char name[RC_NAME_MAX];

    if (rc_probe_canary_name(inv->desired->prefix, name) == -1)
        name[0] = '\0';
    if (r->err != NULL && r->err->code == ERR_CONFLICT &&
        inv->rec.canary_pending != NULL) {
        inv->probe.canary_stage = CTL_CANARY_IDLE; /* adopt() finds what holds it */
        return CTL_STEP_DONE;
    }
    if (r->err != NULL && r->err->code == ERR_CONFLICT)
        return name_taken(inv, name, NULL);
    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    if (id == NULL) {
        struct err e;

        err_set(&e, ERR_SYNTAX, "canary create answered no Id");
        return try_step_failed(inv, &e);
    }
    ctl_test_point("created", "canary"); /* the answer lost: adopt() */
    ctl_record_set_role(&inv->rec, CTL_REC_PROBE, id, name);
    ctl_record_set_str(&inv->rec, &inv->rec.canary_pending, NULL);
    inv->probe.canary_stage = CTL_CANARY_CREATED;
    return CTL_STEP_DONE;
}

/* The name goes on disk first (status.canaryPending): a create whose
 * answer a crash loses is then found by it (adopt()), never taken for a
 * stranger in the agent's namespace. */
static enum ctl_step
create(struct ctl_inv *inv, const char *agent)
{
    char name[RC_NAME_MAX];
    cJSON *body;
    struct err e;
    enum ctl_step s;

    if (rc_probe_canary_name(inv->desired->prefix, name) == -1) {
        err_set(&e, ERR_INVALID, "cannot name the boundary canary");
        return try_step_failed(inv, &e);
    }
    if (inv->probe.canary_stage != CTL_CANARY_NAMED &&
        !ctl_test_disabled("canary-pending")) {
        ctl_record_set_str(&inv->rec, &inv->rec.canary_pending, name);
        inv->probe.canary_stage = CTL_CANARY_NAMED;
        return CTL_STEP_DONE; /* the next pass writes it, then creates */
    }
    body = box_probe_body(inv);
    if (body == NULL || rc_probe_join(body, agent) == -1) {
        cJSON_Delete(body);
        err_set(&e, ERR_INVALID, "cannot build the boundary canary");
        return try_step_failed(inv, &e);
    }
    inv->probe.canary_due = false; /* an event from now on asks for another run */
    s = box_probe_run(
        inv, on_created, CTL_PROBE_CREATE,
        (struct box_probe_call){
            .name = name,
            .body = body,
            .opts = &(struct dk_call){ .timeout_ms = CANARY_CREATE_MS } });
    cJSON_Delete(body);
    return s;
}

/* A canary create from before a restart whose answer was lost: what holds
 * its name is adopted when its labels say it is this attempt's probe (then
 * removed, and the run made again), a stranger fails the attempt closed,
 * nothing there means the create never happened. */
/* The container's network namespace is the recorded agent's (or its own:
 * a create the canary's body describes names no other). */
static bool
joins_agent(const struct ctl_inv *inv, const cJSON *inspect)
{
    const char *agent = ctl_record_role_id(&inv->rec, RC_ROLE_AGENT);
    const char *mode = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(inspect, "HostConfig"),
        "NetworkMode"));

    return agent != NULL && mode != NULL &&
           strncmp(mode, "container:", 10) == 0 &&
           strcmp(mode + 10, agent) == 0;
}

/* The attempt stopped (cleanup asks, box_canary_settle()): a stranger
 * under the canary's name is nothing to fail any more, but it is not
 * ours either: reported, remembered as a stand-in, left in place. */
static enum ctl_step
stranger_left(struct ctl_inv *inv, const char *name, const char *id)
{
    inv_event(inv, true, "StandInFound",
              "the canary's name %s is held by container %.12s, not this "
              "attempt's: a stand-in, left in place, never removed",
              name, id ? id : "?");
    if (id != NULL)
        ctl_record_add_standin(&inv->rec, id, RC_PROBE_ROLE);
    ctl_record_set_str(&inv->rec, &inv->rec.canary_pending, NULL);
    return CTL_STEP_DONE;
}

static enum ctl_step
on_pending_inspected(struct ctl_inv *inv, struct dk_response *r)
{
    const char *name = inv->rec.canary_pending;
    const char *id;

    if (r->err != NULL && r->err->code == ERR_NOTFOUND) {
        ctl_record_set_str(&inv->rec, &inv->rec.canary_pending, NULL);
        return CTL_STEP_DONE;
    }
    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    id = drift_objects_identity(r->json, false);
    if (id == NULL || !drift_objects_ours(inv, r->json, RC_PROBE_ROLE) ||
        !joins_agent(inv, r->json)) {
        if (inv->rec.phase != CTL_RUNNING)
            return stranger_left(inv, name, id);
        return name_taken(inv, name, id);
    }
    inv_event(inv, false, "Adopted",
              "canary %s was created before a restart: adopted, removed", name);
    ctl_record_set_role(&inv->rec, CTL_REC_PROBE, id, name);
    ctl_record_set_str(&inv->rec, &inv->rec.canary_pending, NULL);
    inv->probe.canary_stage = CTL_CANARY_IDLE; /* removed next, run again */
    return CTL_STEP_DONE;
}

static enum ctl_step
adopt(struct ctl_inv *inv)
{
    struct err e;

    return try_step_request(inv, on_pending_inspected,
                            dk_inspect(inv->ctl->dk, DK_CONTAINER,
                                       inv->rec.canary_pending,
                                       try_step_answered, inv, &e),
                            &e);
}

static enum ctl_step
on_started(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    inv->probe.canary_stage = CTL_CANARY_STARTED;
    return CTL_STEP_DONE;
}

static enum ctl_step breach(struct ctl_inv *inv, const char *rule,
                            const char *finding);

/* No definite answer: the run is made again at once, and the second in a
 * row fails the attempt closed (the boundary can no longer be shown to
 * hold). The canary is removed first (stage JUDGED). */
static enum ctl_step
silent(struct ctl_inv *inv, const char *finding)
{
    obs_observe_canary(inv->ctl, "inconclusive");
    inv->probe.canary_passed = 0;
    inv->probe.canary_stage = CTL_CANARY_JUDGED;
    if (++inv->probe.canary_silent < CANARY_SILENT) {
        inv_event(inv, true, "BoundaryCanary", "canary: %s; running it again",
                  finding);
        inv->probe.canary_due = true;
        return CTL_STEP_DONE;
    }
    return breach(inv, "probe.inconclusive", finding);
}

static enum ctl_step
on_waited(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err != NULL && r->err->code == ERR_TIMEOUT && !inv->run.exited)
        return silent(inv, "inconclusive: the canary did not exit within "
                           "20 s");
    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    inv->probe.exit = dk_wait_status(r);
    inv->probe.canary_stage = CTL_CANARY_EXITED;
    return CTL_STEP_DONE;
}

/* "probe.<check>" when the table has that rule, else probe.output. */
static const char *
rule_of(const char *check, char out[32])
{
    snprintf(out, 32, "probe.%s", check);
    return rc_drift_rule_by_id(out) >= 0 ? out : "probe.output";
}

/* A finding fails the attempt closed, unless the test-hooks build has
 * switched its rule off (the negative control of drift/test_canary.sh). */
static enum ctl_step
breach(struct ctl_inv *inv, const char *rule, const char *finding)
{
    int i = rc_drift_rule_by_id(rule);
    char msg[RC_PROBE_FINDING_MAX + 16];

    if (i >= 0 && rc_drift_set_has(&inv->ctl->disabled_rules, (size_t)i)) {
        log_kv(LOG_WARN, "canary finding ignored: its rule is disabled",
               "invocation", inv->name, "rule", rule, "finding", finding, NULL);
        return CTL_STEP_DONE;
    }
    snprintf(msg, sizeof(msg), "canary: %s", finding);
    inv_status_set_condition(inv, "BoundaryVerified", false, "CanaryFailed",
                             msg);
    return drift_found(inv, rule, msg);
}

static enum ctl_step
passed(struct ctl_inv *inv, const struct rc_probe_result *res)
{
    char msg[RC_PROBE_FINDING_MAX + 16];

    inv->probe.canary_silent = 0;
    if (inv->probe.canary_passed++ == 0)
        inv_now(inv->probe.canary_first);
    snprintf(msg, sizeof(msg), "canary: %s", res->finding);
    obs_observe_canary(inv->ctl,
                       res->vendor_reachable ? "ok" : "vendor-unreachable");
    inv_event_counted(inv, !res->vendor_reachable, "BoundaryCanary",
                      inv->probe.canary_passed, inv->probe.canary_first, msg);
    return CTL_STEP_DONE;
}

static enum ctl_step
judge(struct ctl_inv *inv, const struct dk_response *r)
{
    struct rc_probe_result res;
    struct err e;
    char rule[32];

    if (box_probe_verdict(inv, r, &res, &e) == -1) {
        obs_observe_canary(inv->ctl, "unreadable");
        return breach(inv, "probe.output", e.msg);
    }
    if (res.verdict == RC_PROBE_OK)
        return passed(inv, &res);
    if (res.verdict == RC_PROBE_INCONCLUSIVE)
        return silent(inv, res.finding);
    obs_observe_canary(inv->ctl, rc_probe_verdict_name(res.verdict));
    inv->probe.canary_passed = 0;
    return breach(inv, rule_of(res.check, rule), res.finding);
}

static enum ctl_step
on_logs(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err != NULL)
        return try_step_failed(inv, r->err);
    inv->probe.canary_stage = CTL_CANARY_JUDGED;
    /* The agent exited meanwhile: its namespace went with it, and what
     * the canary saw of a torn-down namespace says nothing of the box. */
    if (inv->run.exited)
        return CTL_STEP_DONE;
    return judge(inv, r);
}

static enum ctl_step
on_removed(struct ctl_inv *inv, struct dk_response *r)
{
    if (r->err != NULL && r->err->code != ERR_NOTFOUND)
        return try_step_failed(inv, r->err);
    ctl_record_drop_role(&inv->rec, CTL_REC_PROBE);
    inv->probe.canary_stage = CTL_CANARY_IDLE;
    return CTL_STEP_DONE;
}

static bool
is_prestart_probe(const struct ctl_inv *inv)
{
    const char *name = ctl_record_role_obj_name(&inv->rec, CTL_REC_PROBE);
    size_t n = name ? strlen(name) : 0, k = strlen(RC_PROBE_SUFFIX);

    return n > k && strcmp(name + n - k, RC_PROBE_SUFFIX) == 0;
}

/* The next request of the run whose probe container is recorded. */
static enum ctl_step
run_step(struct ctl_inv *inv, const char *id)
{
    struct box_probe_call pc = { .id = id, .wait_ms = CANARY_WAIT_MS };

    switch (inv->probe.canary_stage) {
    case CTL_CANARY_CREATED:
        return box_probe_run(inv, on_started, CTL_PROBE_START, pc);
    case CTL_CANARY_STARTED:
        return box_probe_run(inv, on_waited, CTL_PROBE_WAIT, pc);
    case CTL_CANARY_EXITED:
        return box_probe_run(inv, on_logs, CTL_PROBE_READ, pc);
    case CTL_CANARY_IDLE:
        /* The boundary probe, exited, removed after the start (off the
         * path to it), or a canary of an earlier process, whose verdict
         * was never read: that one runs again. */
        if (!is_prestart_probe(inv))
            inv->probe.canary_due = true;
        break;
    case CTL_CANARY_NAMED: /* not reached: recorded means created */
    case CTL_CANARY_JUDGED:
        break;
    }
    return box_probe_run(inv, on_removed, CTL_PROBE_REMOVE, pc);
}

enum ctl_step
box_canary_step(struct ctl_inv *inv)
{
    const char *probe = ctl_record_role_id(&inv->rec, CTL_REC_PROBE);
    const char *agent = ctl_record_role_id(&inv->rec, RC_ROLE_AGENT);

    if (inv->rec.phase != CTL_RUNNING || inv->run.exited || agent == NULL) {
        ev_timer_stop(inv->ctl->loop, &inv->probe.canary);
        return CTL_STEP_NONE; /* cleanup removes a recorded probe */
    }
    arm(inv);
    if (probe != NULL)
        return run_step(inv, probe);
    if (inv->rec.canary_pending != NULL &&
        inv->probe.canary_stage != CTL_CANARY_NAMED)
        return adopt(inv);
    if (!inv->probe.canary_due || ctl_test_disabled("canary"))
        return CTL_STEP_NONE;
    return create(inv, agent);
}

/* Cleanup comes first here: the agent is still recorded, so the canary's
 * namespace can be checked against it before the agent goes. Without
 * this an attempt that stopped while the controller was down (a deadline,
 * a cancel, the agent's exit) never adopted its canary, and cleanup's
 * sweep took the orphan for a stand-in and left it on the daemon. */
enum ctl_step
box_canary_settle(struct ctl_inv *inv)
{
    if (inv->rec.canary_pending == NULL || ctl_test_disabled("canary-cleanup"))
        return CTL_STEP_NONE;
    return adopt(inv);
}

void
box_canary_event(struct ctl_inv *inv, const char *type, const char *id,
                 const char *role, const char *container)
{
    const char *net = ctl_record_role_id(&inv->rec, RC_ROLE_NETWORK);

    if (inv->rec.phase != CTL_RUNNING || type == NULL)
        return;
    bool ours =
        container != NULL && ctl_record_holds(&inv->rec, container, NULL);

    if (strcmp(type, "container") == 0) {
        if (role == NULL ||
            (strcmp(role, "proxy") != 0 && strcmp(role, "gateway") != 0))
            return; /* the agent's, the keeper's, the canary's own */
    } else if (strcmp(type, "network") != 0) {
        return;
    } else if (id != NULL && net != NULL && strcmp(id, net) == 0) {
        if (ours)
            return; /* the attempt's own container joined or left */
    } else if (!ours) {
        return; /* another network, none of the attempt's containers */
    }
    inv->probe.canary_due = true;
    inv_kick(inv, 0);
}
