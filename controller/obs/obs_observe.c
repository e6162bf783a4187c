/* obs_observe.c - what the controller shows on --metrics: the metrics
 * registry fed from the controller's own counters, the Docker client's
 * stats and /proc/self at scrape time, the observation points the loop
 * calls (pass duration, attempts finished, drift, GC removals) and the
 * request latencies the Docker client and the etcd store report; and the
 * /readyz checks (Docker daemon, the directory store's state directory,
 * etcd, status writes the API server refuses). */
#include "obs_observe.h"

#include <stdio.h>
#include <string.h>

#include "obs_invalid.h"
#include "obs_metrics.h"
#include "ctl_record.h"
#include "ctl_testhooks.h"
#include "obs_usage.h"
#include "log.h"

/* A blocking request held the whole loop for its time: counted apart,
 * so a test sees one come back (test_etcd_stall.sh). */
#define CTL_M_ETCD_BLOCKING "agentctl_etcd_blocking_requests_total"
/* Every spec the controller holds, its own or another's: how far its
 * list and watch have come (hack/bench/scale/run.sh). */
#define CTL_M_INVOCATIONS_KNOWN "agentctl_invocations_known"

/* Invocations with a pass queued: their kick timer runs. */
static double
queue_depth(const struct ctl *c)
{
    double n = 0;

    for (const struct ctl_inv *i = c->invs; i != NULL; i = i->next)
        n += ev_is_active(&i->queue.kick) ? 1 : 0;
    return n;
}

/* agentctl_pool_boxes for every vendor of warmPool (0s included). */
static void
pool_gauges(const struct ctl *c, struct obs_metrics *m)
{
    for (size_t i = 0; i < c->cfg->n_warm_pool; i++) {
        const char *v = c->cfg->warm_pool[i].vendor;
        unsigned n[2] = { 0, 0 };

        for (const struct ctl_box *b = c->boxes; b != NULL; b = b->next)
            if (!b->doomed && strcmp(b->vendor, v) == 0)
                n[b->ready]++;
        obs_metrics_gauge_set(m, CTL_M_POOL_BOXES,
                              CTL_LABELS("vendor", v, "state", "building"),
                              (double)n[0]);
        obs_metrics_gauge_set(m, CTL_M_POOL_BOXES,
                              CTL_LABELS("vendor", v, "state", "ready"),
                              (double)n[1]);
    }
}

static void
refresh(struct obs_metrics *m, void *arg)
{
    struct ctl *c = arg;
    static const char *const phases[] = {
        "Pending", "Preparing", "Running", "Succeeded", "Failed", "Cancelled"
    };
    double by_phase[6] = { 0 }, known = 0;
    struct dk_stats st;

    for (const struct ctl_inv *i = c->invs; i != NULL; i = i->next) {
        if (i->rec.present)
            by_phase[i->rec.phase]++;
        known += !i->deleted;
    }
    obs_metrics_gauge_set(m, CTL_M_INVOCATIONS_KNOWN, NULL, known);
    for (size_t p = 0; p < 6; p++)
        obs_metrics_gauge_set(m, CTL_M_INVOCATIONS,
                              CTL_LABELS("phase", phases[p]), by_phase[p]);
    dk_stats(c->dk, &st);
    obs_metrics_counter_set(m, CTL_M_DOCKER_REQUESTS,
                            CTL_LABELS("result", "ok"), (double)st.ok);
    obs_metrics_counter_set(m, CTL_M_DOCKER_REQUESTS,
                            CTL_LABELS("result", "4xx"), (double)st.http_4xx);
    obs_metrics_counter_set(m, CTL_M_DOCKER_REQUESTS,
                            CTL_LABELS("result", "5xx"), (double)st.http_5xx);
    obs_metrics_counter_set(m, CTL_M_DOCKER_REQUESTS,
                            CTL_LABELS("result", "transport"),
                            (double)st.transport);
    obs_metrics_counter_set(m, CTL_M_DOCKER_REQUESTS,
                            CTL_LABELS("result", "timeout"),
                            (double)st.timeout);
    obs_metrics_counter_set(m, CTL_M_DOCKER_REQUESTS,
                            CTL_LABELS("result", "cancelled"),
                            (double)st.cancelled);
    obs_metrics_gauge_set(m, CTL_M_DOCKER_IN_FLIGHT, NULL,
                          (double)st.in_flight);
    obs_metrics_counter_set(m, CTL_M_RECONCILES, CTL_LABELS("result", "ok"),
                            (double)c->reconciles_ok);
    obs_metrics_counter_set(m, CTL_M_RECONCILES, CTL_LABELS("result", "error"),
                            (double)c->reconciles_error);
    obs_metrics_counter_set(m, CTL_M_RECONCILES,
                            CTL_LABELS("result", "requeue"),
                            (double)c->reconciles_requeue);
    obs_metrics_counter_set(m, CTL_M_QUEUE_RETRIES, NULL,
                            (double)c->queue_retries);
    obs_metrics_gauge_set(m, CTL_M_QUEUE_DEPTH, NULL, queue_depth(c));
    obs_metrics_gauge_set(m, CTL_M_BOXES, CTL_LABELS("state", "building"),
                          (double)c->building);
    obs_metrics_gauge_set(m, CTL_M_BOXES, CTL_LABELS("state", "waiting"),
                          (double)c->build_waiters);
    obs_metrics_gauge_set(m, CTL_M_SPECS_INVALID, NULL,
                          (double)obs_invalid_count(c));
    pool_gauges(c, m);
    obs_metrics_process_refresh(m);
    obs_metrics_gauge_set(m, CTL_M_DOCKER_UP, NULL, c->docker_up ? 1 : 0);
    obs_metrics_gauge_set(m, CTL_M_STORE_UP, NULL, c->store_error[0] ? 0 : 1);
}

void
obs_state_dir(const struct ctl *c, char *out, size_t n)
{
    if (c->opts.state_dir != NULL)
        snprintf(out, n, "%s", c->opts.state_dir);
    else /* the directory store's default (loop_main.c open_dir_store) */
        snprintf(out, n, "%s/.agentctl",
                 c->opts.specs_dir ? c->opts.specs_dir : ".");
}

/* A status write failed or went again. A state directory that cannot be
 * written (read-only, full, its permissions changed), or an API server
 * that refuses the controller the verb (403 on agentinvocations/status),
 * holds every invocation where it is: nothing is done in Docker that is
 * not in the store first, and each write is retried with the step's
 * backoff (100 ms doubling to 30 s) and at each resync, not in a loop.
 * Said once when it starts and once when it ends, and in /readyz
 * meanwhile, so an operator sees why nothing moves. Other failures of a
 * remote store (unreachable, a conflict) are not this: said elsewhere. */
void
obs_observe_state_write(struct ctl *c, const struct err *e)
{
    bool dir = strcmp(c->store->backend, "dir") == 0;
    char where[4096];

    if (ctl_test_disabled("state-check") ||
        (!dir && e != NULL && e->code != ERR_DENIED))
        return;
    if (dir)
        obs_state_dir(c, where, sizeof(where));
    else
        snprintf(where, sizeof(where), "%s", c->store->backend);
    if (e != NULL) {
        if (c->state_error[0] == '\0')
            log_kv(LOG_ERROR,
                   dir ? "cannot write the state directory: every status "
                         "write waits and is retried (backoff up to 30 s, "
                         "and at each resync) until it can"
                       : "the store refuses the controller's status writes: "
                         "every status write waits and is retried (backoff "
                         "up to 30 s, and at each resync) until the verb is "
                         "granted",
                   dir ? "state" : "store", where, "error", e->msg, NULL);
        snprintf(c->state_error, sizeof(c->state_error), "%s", e->msg);
        return;
    }
    if (c->state_error[0] != '\0')
        log_kv(LOG_INFO,
               dir ? "the state directory can be written again"
                   : "the store takes status writes again",
               dir ? "state" : "store", where, NULL);
    c->state_error[0] = '\0';
}

static void
health(struct obs_health *h, void *arg)
{
    struct ctl *c = arg;

    if (c->docker_up)
        obs_health_add(h, "docker", true, "ok");
    else if (c->security_error[0] != '\0')
        obs_health_add(h, "docker", false, "reachable, but refused: %s",
                       c->security_error);
    else
        obs_health_add(h, "docker", false, "unreachable: %s",
                       c->docker_error[0] ? c->docker_error : "not checked");
    if (c->security_error[0] != '\0')
        obs_health_add(h, "seccomp", false, "%s", c->security_error);
    else if (c->docker_up)
        obs_health_add(h, "seccomp", true, "profile %s; apparmor %s",
                       c->security.seccomp_profile[0]
                           ? c->security.seccomp_profile
                           : "(unnamed)",
                       c->security.apparmor ? "yes" : "no (not on this host)");
    if (strcmp(c->store->backend, "dir") == 0) {
        char dir[4096];

        obs_state_dir(c, dir, sizeof(dir));
        if (c->state_error[0] != '\0')
            obs_health_add(h, "state", false,
                           "cannot write %s: %s (status writes wait and are "
                           "retried)",
                           dir, c->state_error);
        else
            obs_health_add(h, "state", true, "ok (%s)", dir);
    } else if (c->state_error[0] != '\0')
        obs_health_add(h, "status-writes", false, "refused (%s): %s",
                       c->store->backend, c->state_error);
    /* store_error: etcd's lease keepalive or a claim could not reach it */
    if (c->store_error[0] != '\0')
        obs_health_add(h, "store", false, "unreachable (%s): %s",
                       c->store->backend, c->store_error);
    else
        obs_health_add(h, "store", true, "ok (%s)", c->store->backend);
}

void
obs_observe_pass(struct ctl *c, double seconds)
{
    if (c->metrics != NULL)
        obs_metrics_observe(c->metrics, CTL_M_RECONCILE_SECONDS, NULL, seconds);
}

void
obs_observe_attempt_finished(struct ctl_inv *inv)
{
    struct ctl *c = inv->ctl;
    const char *reason = inv->rec.stop == CTL_STOP_NONE
                             ? "exit"
                             : ctl_stop_reason_name(inv->rec.stop);

    if (c->metrics != NULL)
        obs_metrics_counter_add(c->metrics, CTL_M_ATTEMPTS_FINISHED,
                                CTL_LABELS("phase",
                                           ctl_phase_name(inv->rec.phase),
                                           "reason", reason),
                                1);
}

void
obs_observe_drift(struct ctl *c, const char *rule)
{
    if (c->metrics != NULL)
        obs_metrics_counter_add(c->metrics, CTL_M_DRIFT,
                                CTL_LABELS("rule", rule), 1);
}

void
obs_observe_pool(struct ctl *c, const char *vendor, const char *result)
{
    if (c->metrics != NULL)
        obs_metrics_counter_add(c->metrics, CTL_M_POOL_HANDOVERS,
                                CTL_LABELS("vendor", vendor, "result", result),
                                1);
}

void
obs_observe_canary(struct ctl *c, const char *result)
{
    if (c->metrics != NULL)
        obs_metrics_counter_add(c->metrics, CTL_M_CANARY,
                                CTL_LABELS("result", result), 1);
}

void
obs_observe_gc_removed(struct ctl *c, const char *kind)
{
    if (c->metrics != NULL)
        obs_metrics_counter_add(c->metrics, CTL_M_GC_REMOVALS,
                                CTL_LABELS("kind", kind), 1);
}

void
obs_observe_usage(struct ctl *c, const char *vendor, const char *phase,
                  const struct obs_usage *u)
{
    static const char *const kinds[] = { "input", "output", "cacheRead",
                                         "cacheWrite" };
    const uint64_t tokens[] = { u->input, u->output, u->cache_read,
                                u->cache_write };

    if (c->metrics == NULL)
        return;
    obs_metrics_counter_add(
        c->metrics, CTL_M_VENDOR_REQUESTS,
        CTL_LABELS("vendor", vendor, "phase", phase, "result", "answered"),
        (double)(u->requests - u->refused));
    obs_metrics_counter_add(
        c->metrics, CTL_M_VENDOR_REQUESTS,
        CTL_LABELS("vendor", vendor, "phase", phase, "result", "refused"),
        (double)u->refused);
    for (size_t i = 0; i < 4; i++)
        obs_metrics_counter_add(
            c->metrics, CTL_M_VENDOR_TOKENS,
            CTL_LABELS("vendor", vendor, "phase", phase, "kind", kinds[i]),
            (double)tokens[i]);
    obs_metrics_counter_add(c->metrics, CTL_M_TOKEN_BUDGET,
                            CTL_LABELS("vendor", vendor, "phase", phase),
                            (double)u->token_spent);
}

void
obs_observe_config_reload(struct ctl *c, bool ok)
{
    if (c->metrics != NULL)
        obs_metrics_gauge_set(c->metrics, CTL_M_CONFIG_RELOAD_OK, NULL,
                              ok ? 1 : 0);
}

/* The Docker client's and the etcd store's request latencies. */
static void
on_docker_request(void *arg, const char *operation, double seconds, bool ok)
{
    struct ctl *c = arg;

    (void)ok; /* outcomes are counted in docker_requests_total */
    obs_metrics_observe(c->metrics, CTL_M_DOCKER_SECONDS,
                        CTL_LABELS("operation", operation), seconds);
}

static void
on_store_request(void *arg, const char *operation, double seconds, bool ok,
                 bool blocking)
{
    struct ctl *c = arg;

    (void)ok;
    obs_metrics_observe(c->metrics, CTL_M_ETCD_SECONDS,
                        CTL_LABELS("operation", operation), seconds);
    if (blocking)
        (void)obs_metrics_counter_add(c->metrics, CTL_M_ETCD_BLOCKING,
                                      CTL_LABELS("operation", operation), 1);
}

int
obs_observe_start(struct ctl *c, struct err *e)
{
    c->metrics = obs_metrics_new();
    if (c->metrics == NULL)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (obs_metrics_register_agentctl(c->metrics, AGENTCTL_VERSION, e) == -1 ||
        obs_metrics_register_process(c->metrics, e) == -1 ||
        obs_metrics_register(c->metrics, CTL_METRIC_COUNTER,
                             CTL_M_ETCD_BLOCKING,
                             "etcd requests the loop waited for, by "
                             "operation (the rest are sent without "
                             "blocking).",
                             e) == -1 ||
        obs_metrics_register(c->metrics, CTL_METRIC_GAUGE,
                             CTL_M_INVOCATIONS_KNOWN,
                             "Invocations known from the store (specs not "
                             "deleted), whichever controller works on them.",
                             e) == -1)
        return -1;
    dk_set_observer(c->dk, on_docker_request, c);
    store_set_observer(c->store, on_store_request, c);
    obs_metrics_set_hook(c->metrics, refresh, c);
    c->http =
        obs_http_start(c->loop, c->opts.metrics_addr, health, c, c->metrics, e);
    if (c->http == NULL) {
        err_prefix(e, "--metrics %s: ", c->opts.metrics_addr);
        return -1;
    }
    return 0;
}

void
obs_observe_stop(struct ctl *c)
{
    if (c->dk != NULL)
        dk_set_observer(c->dk, NULL, NULL);
    if (c->store != NULL)
        store_set_observer(c->store, NULL, NULL);
    obs_http_stop(c->http);
    c->http = NULL;
    obs_metrics_free(c->metrics);
    c->metrics = NULL;
}
