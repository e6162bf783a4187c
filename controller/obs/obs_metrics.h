/* obs_metrics.h - the controller's metrics registry and its /metrics and
 * /healthz HTTP endpoint.
 *
 * The registry (ctl_metrics_*) holds counters, gauges and fixed-bucket
 * histograms in one object the caller owns (no global state) and renders
 * them in the Prometheus text exposition format 0.0.4: families sorted by
 * name, series by their label text, every value written the same way on
 * every render so a scrape can be compared with a golden file.
 *
 * Updating is cheap: obs_metrics_series() returns a handle once, and
 * obs_series_add/set/observe are a few instructions. The by-name calls
 * (obs_metrics_counter_add, ...) look the series up each time (binary
 * search over a few dozen entries): fine for a reconcile pass, use a handle
 * in a hot loop.
 *
 * The endpoint (ctl_http_*) runs libmicrohttpd in the caller's libev loop
 * without threads: MHD's epoll fd is an ev_io, MHD_get_timeout() arms an
 * ev_timer, and both call MHD_run(). The health callback and the metrics
 * hook therefore run inside the loop and must not block: they report the
 * state the controller already knows, they do not go and probe it.
 */
#ifndef OBS_METRICS_H
#define OBS_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "err.h"

struct ev_loop;

/* --- registry --------------------------------------------------------- */

enum obs_metric_type {
    CTL_METRIC_COUNTER,   /* only goes up (or is copied from a counter) */
    CTL_METRIC_GAUGE,     /* any value, set each time it is known */
    CTL_METRIC_HISTOGRAM, /* observations counted into fixed buckets */
};

/* Caps: the registry never grows past them (label values may come from
 * specs, so a bad input must not make a scrape unbounded). */
#define CTL_METRICS_MAX_FAMILIES   64
#define CTL_METRICS_MAX_SERIES     256 /* per family */
#define CTL_METRICS_MAX_LABELS     4   /* key/value pairs per series */
#define CTL_METRICS_MAX_LABEL_TEXT 512 /* rendered `k="v",...` bytes */
#define CTL_METRICS_MAX_BUCKETS    32

/* A NULL-terminated list of label keys and values, e.g.
 * CTL_LABELS("result", "ok"). Pass NULL for a series without labels.
 * Values are escaped when rendered (\\, \" and \n). */
#define CTL_LABELS(...) ((const char *const[]){ __VA_ARGS__, NULL })

struct obs_metrics;
struct obs_series;

/* Called by obs_metrics_refresh() right before a render, to copy values
 * the controller keeps elsewhere (dk_stats, phase counts) into gauges and
 * counters. Runs inside the event loop: must not block. */
typedef void obs_metrics_hook_fn(struct obs_metrics *m, void *arg);

/* An empty registry. NULL when out of memory. Free with
 * obs_metrics_free(); NULL is a no-op there. */
struct obs_metrics *obs_metrics_new(void);
void obs_metrics_free(struct obs_metrics *m);

/* Declare a counter or gauge family. name must match
 * [a-zA-Z_:][a-zA-Z0-9_:]*; help is any text (escaped when rendered).
 * Declaring the same name and type again is a no-op (the first help
 * stays); another type fails with ERR_CONFLICT. ERR_LIMIT past
 * CTL_METRICS_MAX_FAMILIES, ERR_INVALID for a bad name. */
int obs_metrics_register(struct obs_metrics *m, enum obs_metric_type type,
                         const char *name, const char *help, struct err *e);

/* Declare a histogram family with n strictly increasing, finite upper
 * bounds (the +Inf bucket is implied). bounds are copied. */
int obs_metrics_register_histogram(struct obs_metrics *m, const char *name,
                                   const char *help, const double *bounds,
                                   size_t n, struct err *e);

/* The series of family name with these labels (CTL_LABELS or NULL),
 * created at zero if new. The handle stays valid until
 * obs_metrics_free(). NULL with ERR_NOTFOUND (no such family),
 * ERR_INVALID (bad label name, "le" on a histogram, key without value,
 * duplicate key) or ERR_LIMIT. */
struct obs_series *obs_metrics_series(struct obs_metrics *m, const char *name,
                                      const char *const *labels, struct err *e);

/* Counter: add v (negative v is ignored: counters never go down).
 * Gauge: add v (may be negative). Histogram: ignored. */
void obs_series_add(struct obs_series *s, double v);

/* Counter or gauge: set the value. For counters this is for copying a
 * counter kept elsewhere (struct dk_stats); histogram: ignored. */
void obs_series_set(struct obs_series *s, double v);

/* Histogram: count v into its bucket, add it to _sum and _count.
 * Counter or gauge: ignored. NaN is ignored. */
void obs_series_observe(struct obs_series *s, double v);

/* The current value of a counter or gauge (0 for a histogram). */
double obs_series_value(const struct obs_series *s);

/* By-name shorthands: obs_metrics_series() then the update. They fail
 * like obs_metrics_series(), and with ERR_INVALID when the family has
 * another type (counter_add on a gauge, ...). */
int obs_metrics_counter_add(struct obs_metrics *m, const char *name,
                            const char *const *labels, double v);
int obs_metrics_counter_set(struct obs_metrics *m, const char *name,
                            const char *const *labels, double v);
int obs_metrics_gauge_set(struct obs_metrics *m, const char *name,
                          const char *const *labels, double v);
int obs_metrics_observe(struct obs_metrics *m, const char *name,
                        const char *const *labels, double v);

/* Set the pre-render hook (NULL clears it). */
void obs_metrics_set_hook(struct obs_metrics *m, obs_metrics_hook_fn *fn,
                          void *arg);

/* Run the hook, if one is set. The endpoint calls it before each render. */
void obs_metrics_refresh(struct obs_metrics *m);

/* Append the exposition text to out. On ERR_LIMIT (out's cap) or
 * ERR_NOMEM out holds a partial text: reset it before reuse. */
int obs_metrics_render(const struct obs_metrics *m, struct buf *out,
                       struct err *e);

/* --- the controller's metrics ----------------------------------------- */

#define CTL_M_RECONCILES        "agentctl_reconciles_total"
#define CTL_M_RECONCILE_SECONDS "agentctl_reconcile_duration_seconds"
#define CTL_M_DOCKER_REQUESTS   "agentctl_docker_requests_total"
#define CTL_M_DOCKER_IN_FLIGHT  "agentctl_docker_requests_in_flight"
#define CTL_M_INVOCATIONS       "agentctl_invocations"
#define CTL_M_DOCKER_UP         "agentctl_docker_up"
#define CTL_M_STORE_UP          "agentctl_store_up"
#define CTL_M_BUILD_INFO        "agentctl_build_info"
#define CTL_M_DOCKER_SECONDS    "agentctl_docker_request_duration_seconds"
#define CTL_M_ETCD_SECONDS      "agentctl_etcd_request_duration_seconds"
#define CTL_M_ATTEMPTS_FINISHED "agentctl_attempts_finished_total"
#define CTL_M_DRIFT             "agentctl_drift_detections_total"
#define CTL_M_CANARY            "agentctl_canary_runs_total"
#define CTL_M_GC_REMOVALS       "agentctl_gc_removals_total"
#define CTL_M_QUEUE_DEPTH       "agentctl_workqueue_depth"
#define CTL_M_QUEUE_RETRIES     "agentctl_workqueue_retries_total"
#define CTL_M_BOXES             "agentctl_boxes"
#define CTL_M_SPECS_INVALID     "agentctl_specs_invalid"
#define CTL_M_POOL_BOXES        "agentctl_pool_boxes"
#define CTL_M_POOL_HANDOVERS    "agentctl_pool_handovers_total"
#define CTL_M_VENDOR_REQUESTS   "agentctl_vendor_requests_total"
#define CTL_M_VENDOR_TOKENS     "agentctl_vendor_tokens_total"
#define CTL_M_TOKEN_BUDGET      "agentctl_vendor_token_budget_refusals_total"
#define CTL_M_CONFIG_RELOAD_OK  "agentctl_config_last_reload_successful"

#define CTL_M_PROCESS_CPU     "process_cpu_seconds_total"
#define CTL_M_PROCESS_RSS     "process_resident_memory_bytes"
#define CTL_M_PROCESS_VSZ     "process_virtual_memory_bytes"
#define CTL_M_PROCESS_FDS     "process_open_fds"
#define CTL_M_PROCESS_MAX_FDS "process_max_fds"
#define CTL_M_PROCESS_START   "process_start_time_seconds"

/* Register every agentctl_ family above with its help text and create
 * each known series at zero, so a scrape shows them all before anything
 * happened: reconciles_total{result=ok|error|requeue},
 * reconcile_duration_seconds (buckets 0.005 .. 10),
 * docker_requests_total{result=ok|4xx|5xx|transport|timeout|cancelled},
 * docker_requests_in_flight, invocations{phase=...}, docker_up, store_up,
 * build_info{version} = 1, config_last_reload_successful = 1 (the config
 * loaded at start; a failed SIGHUP reload sets it to 0, the next good one
 * to 1), workqueue_depth, workqueue_retries_total,
 * boxes{state=building|waiting},
 * canary_runs_total{result=ok|vendor-unreachable|breach|proxy-broken|
 * inconclusive|unreadable}; and
 * the families whose series appear with their first observation:
 * docker_request_duration_seconds{operation} and
 * etcd_request_duration_seconds{operation} (buckets 0.001 .. 10),
 * attempts_finished_total{phase,reason}, drift_detections_total{rule},
 * gc_removals_total{kind}, vendor_requests_total{vendor,phase,result},
 * vendor_tokens_total{vendor,phase,kind} and
 * vendor_token_budget_refusals_total{vendor,phase}. */
int obs_metrics_register_agentctl(struct obs_metrics *m, const char *version,
                                  struct err *e);

/* obs_metrics_process.c: the process_* families (at zero), and their
 * values from /proc/self, to be called from the refresh hook. */
int obs_metrics_register_process(struct obs_metrics *m, struct err *e);
void obs_metrics_process_refresh(struct obs_metrics *m);

/* --- health ----------------------------------------------------------- */

#define CTL_HEALTH_MAX_CHECKS 8

struct obs_health_check {
    char name[32];    /* "docker", "store" */
    char detail[512]; /* "ok" or "unreachable: <why>" (a path or two) */
    bool ok;
};

struct obs_health {
    bool ok; /* false as soon as one check failed */
    size_t n_checks;
    struct obs_health_check checks[CTL_HEALTH_MAX_CHECKS];
};

/* Fills h (which the endpoint zeroed and set ok = true) from what the
 * controller knows. Runs inside the event loop: must not block. */
typedef void obs_health_fn(struct obs_health *h, void *arg);

/* Add a named check; detail is printf text ("ok" when healthy). A failing
 * check clears h->ok. Past CTL_HEALTH_MAX_CHECKS the check is dropped but
 * a failure still clears h->ok. Long texts are truncated. */
void obs_health_add(struct obs_health *h, const char *name, bool ok,
                    const char *fmt, ...) ERR_PRINTF(4, 5);

/* --- HTTP endpoint ---------------------------------------------------- */

#define CTL_HTTP_MAX_CONNECTIONS 32
#define CTL_HTTP_TIMEOUT_SECONDS 10
#define CTL_HTTP_MEMORY_LIMIT    (16 * 1024)   /* per connection: headers */
#define CTL_HTTP_MAX_BODY        (1024 * 1024) /* cap on a /metrics render */

struct obs_http;

/* Serve on addr_port: "IPv4:port" or "[IPv6]:port" (numeric only: no name
 * lookups in the loop); port 0 picks a free one (see obs_http_port).
 * Only that address is bound. Routes: GET /metrics (200, text/plain;
 * version=0.0.4; obs_metrics_refresh then render), GET /healthz (200 "ok"
 * or 503 "unhealthy", then one "name: detail" line per check; the 503
 * lists the failing checks only), anything else 404, a method other than
 * GET or HEAD 405. health may be NULL (always healthy). m and arg are
 * borrowed and must outlive the endpoint. NULL with ERR_INVALID (bad
 * address) or ERR_IO (bind failed, e.g. the port is taken). */
struct obs_http *obs_http_start(struct ev_loop *loop, const char *addr_port,
                                obs_health_fn *health, void *arg,
                                struct obs_metrics *m, struct err *e);

/* The bound port. */
int obs_http_port(const struct obs_http *h);

/* Stop the watchers, close every connection and free. Not from inside the
 * health callback or the metrics hook. NULL is a no-op. */
void obs_http_stop(struct obs_http *h);

#endif
