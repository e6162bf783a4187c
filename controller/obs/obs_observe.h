/* obs_observe.h - /metrics, /livez and /readyz on --metrics, and the
 * observation points that feed them (obs_observe.c). */
#ifndef OBS_OBSERVE_H
#define OBS_OBSERVE_H

#include "ctl.h"

int obs_observe_start(struct ctl *c, struct err *e);
void obs_observe_stop(struct ctl *c);
/* Observation points for the metrics (no-ops without --metrics): one pass
 * took seconds; an attempt reached its final phase; the revalidation
 * found drift by rule; the garbage collection removed an object. */
void obs_observe_pass(struct ctl *c, double seconds);
/* The directory store's state directory, as the flags say (--state, else
 * <specs>/.agentctl), into out (n bytes). */
void obs_state_dir(const struct ctl *c, char *out, size_t n);
/* A write under the directory store's state directory (a status, an
 * invocation's metadata) failed (e) or went (e NULL): /readyz's "state"
 * check and one log line at each change. */
void obs_observe_state_write(struct ctl *c, const struct err *e);
void obs_observe_attempt_finished(struct ctl_inv *inv);
void obs_observe_drift(struct ctl *c, const char *rule);
void obs_observe_gc_removed(struct ctl *c, const char *kind);
/* A boundary canary run ended: result "ok", "vendor-unreachable",
 * "breach", "proxy-broken", "inconclusive" or "unreadable". */
void obs_observe_canary(struct ctl *c, const char *result);
/* What became of a warm box of vendor: "handed", "drifted" (removed while
 * it waited) or "empty" (an invocation found none ready). */
void obs_observe_pool(struct ctl *c, const char *vendor, const char *result);
/* An attempt's gateway usage (obs_usage.h), by vendor and spec phase:
 * agentctl_vendor_requests_total{result="answered"|"refused"},
 * agentctl_vendor_tokens_total{kind="input"|"output"|"cacheRead"|
 * "cacheWrite"} and agentctl_vendor_token_budget_refusals_total. */
struct obs_usage;
void obs_observe_usage(struct ctl *c, const char *vendor, const char *phase,
                       const struct obs_usage *u);
/* A SIGHUP reload of the config succeeded (ok) or failed and the old
 * config stays: agentctl_config_last_reload_successful 1 or 0. */
void obs_observe_config_reload(struct ctl *c, bool ok);

#endif
