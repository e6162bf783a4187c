/* ctl.h - agent-controller's shared state: the loop, the store, the Docker
 * client, the config, and one struct ctl_inv per known invocation.
 *
 * Module map (controller/):
 *   ctl_main.c    flags, start-up, signals, the loop
 *   ctl_sync.c    store watch, resync timer, per-invocation queue/backoff
 *   ctl_inv.c     one invocation's pass: capture, prepare, run, stop, clean
 *   ctl_plan.c    the facts the step planner (plan/plan_step.c) decides on
 *   ctl_prepare.c the steps that bring an attempt's objects up, one request
 *                 each (ctl_cleanup.c the ones that remove them)
 *   ctl_run.c     a running agent: logs, wait, deadline, cancel, kill
 *   ctl_record.c  the attempt record (typed status); ctl_record_json.c
 *                 its JSON form, the status document
 *   ctl_status.c  phase changes, conditions, status writes, events
 *   ctl_metrics.c the metrics registry and its Prometheus text; the
 *                 /metrics and /healthz endpoint is ctl_metrics_http.c
 *   ctl_claim.c   etcd claims and the controller's lease (scale-out)
 */
#ifndef CTL_H
#define CTL_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <ev.h>

#include "cfg.h"
#include "container_of.h"
#include "ctl_record.h"
#include "dk.h"
#include "dk_engine.h"
#include "plan_step.h"
#include "err.h"
#include "rc_desired.h"
#include "rc_output.h"
#include "spec.h"
#include "store.h"

#define CTL_ID_MAX        63
#define CTL_BACKOFF_MIN   0.1  /* seconds, docs/design.md "base 100ms" */
#define CTL_BACKOFF_MAX   30.0 /* seconds, "cap 30s" */
#define CTL_KILL_GRACE_MS 2000

struct ctl;

struct buf;

/* Why this attempt's networks are listed (ctl_network.c). */
enum ctl_net_retry {
    CTL_NET_FRESH,    /* before a create */
    CTL_NET_CONFLICT, /* the create found the name taken */
    CTL_NET_OVERLAP,  /* the create found the subnet taken */
    CTL_NET_SWEEP,    /* a create by name found it ambiguous */
};

/* One invocation the controller knows: the latest spec from the store, the
 * attempt record it owns (which records every Docker object by ID), and
 * the watchers and requests of the pass in progress. */
/* A step error that keeps recurring (ctl_condition.c). */
struct ctl_stuck {
    unsigned count;     /* failures in a row with this message; 0: none */
    char message[256];  /* the error, as in the Ready condition */
    char first[32];     /* when it first happened (RFC 3339) */
    bool in_pass;       /* a failure happened in the pass running now */
    bool had_ready;     /* the Ready condition StepFailed replaced ... */
    bool ready_status;  /* ... restored when the step goes through */
    char ready_reason[64];
    char ready_message[256];
};

struct ctl_inv {
    struct ctl *ctl;
    struct ctl_inv *next;
    char name[STORE_NAME_MAX + 1];
    struct spec_invocation *spec; /* latest valid spec; NULL if none */
    bool spec_invalid;            /* the store holds an invalid version */
    bool deleted;                 /* the spec is gone: stop and clean */
    struct store_meta meta;
    struct ctl_record rec; /* the status; rec.dirty: write it before
                              the next Docker call */
    struct dk_req *call;   /* the one step request in flight, or NULL */
    ev_timer kick;         /* run the next pass (0 s, or backoff) */
    ev_timer deadline;     /* end of the attempt's deadlineSeconds */
    unsigned failures;     /* consecutive failed steps: backoff exponent */
    struct ctl_stuck stuck; /* the step error shown as Ready=False */
    char *credential;      /* the attempt's secret; never logged */
    /* a running agent */
    struct dk_req *logs; /* follow stream */
    struct dk_req *wait; /* POST /wait */
    bool output_open;
    struct rc_output out;
    bool exited; /* wait answered */
    long exit_code;
    bool logs_done;
    bool exit_confirmed;   /* the daemon still accepts connections after
                              the exit: the exit is the agent's own */
    bool daemon_lost;      /* Docker was unreachable while it ran */
    bool freeing;          /* done: free when the pass returns */
    bool seen;             /* found in the last full listing */
    char invalid_msg[600]; /* first error of the invalid version */
    bool invalid_msg_set;
    /* capture in progress */
    char pinned_image[80];            /* image ID found by the inspect step */
    struct spec_invocation *captured; /* the spec as captured (frozen) */
    struct rc_desired *desired;       /* built from `captured` */
    bool egress_checked;              /* this attempt saw the egress network */
    char frozen_hash[65];     /* spec hash already warned about (SpecFrozen) */
    char cleanup_role[16];    /* role of the object the step is removing */
    bool cleanup_swept;       /* no unrecorded container of the attempt left */
    char cleanup_created[40]; /* cleanup: the CreatedAt the volume showed */
    int creating;             /* enum rc_role the create step is making */
    bool network_listed;      /* no network of this attempt: create next */
    enum ctl_net_retry network_retry; /* why the networks are listed */
    enum ctl_progress action;         /* what the action step in flight does */
    /* revalidation */
    bool verify_due;          /* re-inspect every object before going on */
    unsigned verified;        /* roles checked in this round (1 << rc_role) */
    char verify_role[16];     /* role being inspected */
    cJSON *pending_inspect;   /* inspect waiting for its image's config */
    bool repairing;           /* drift before start: tear down, rebuild */
    bool prestart_verified;   /* the round right before the agent start ran */
    bool start_checked;       /* Docker says the run-once container about
                               * to be started never ran (ctl_prepare.c) */
    char proxy_egress_ip[16]; /* the proxy's address on the egress net */
    /* boundary probe */
    long probe_exit;
    bool probe_exited;
    /* scale-out (ctl_claim.c; always false on the directory store) */
    bool claimed;    /* our claim key holds it under c->lease */
    bool lease_lost; /* ours when the lease expired: stop and clean it */
};

struct ctl_opts {
    const char *specs_dir;
    const char *state_dir;
    const char *config_path;
    const char *docker_url;
    const char *metrics_addr;
    char controller_id[CTL_ID_MAX + 1];
    double resync_s;
    bool once;
    unsigned max_running; /* --max-running: unfinished claims, 0 = any */
    double lease_ttl_s;   /* --lease-ttl (etcd), default 15 s */
};

struct ctl {
    struct ev_loop *loop;
    struct ctl_opts opts;
    struct store *store;
    struct dk *dk;
    struct cfg *cfg;
    struct ctl_inv *invs;
    ev_io store_watch;
    ev_timer resync;
    ev_signal sigterm, sigint, sighup;
    bool docker_up;
    char docker_error[256];
    bool negotiating;
    bool stopping;
    struct ctl_metrics *metrics;
    struct ctl_http *http;
    uint64_t reconciles_ok, reconciles_error;
    uint64_t reconciles_requeue; /* asked for while a step's request was in
                                    flight: run again when it answers */
    uint64_t queue_retries;      /* passes queued again with backoff */
    int gc_removing;             /* enum dk_kind of the GC removal in flight */
    struct dk_req *events[2]; /* containers by label; networks+volumes */
    ev_timer events_retry;
    long events_since;       /* Unix time of the last event seen */
    uint64_t events_seen;    /* events that triggered a pass */
    struct dk_req *gc_call;  /* the garbage collector's request */
    int gc_stage;            /* which object list it is reading */
    cJSON *gc_queue;         /* paths of orphans still to remove */
    cJSON *image_configs;    /* image ID -> Config (immutable by ID) */
    uint64_t disabled_rules; /* test-hooks build only: drift rules off */
    int64_t lease;           /* etcd lease of our claims; 0 = none yet */
    ev_timer lease_timer;    /* keepalive every lease_ttl_s / 3 */
    char store_error[256];   /* why etcd is unreachable ("" = it is not) */
};

/* ctl_main.c: ask the daemon for its version (start, and while down). */
void ctl_check_docker(struct ctl *c);

/* ctl_observe.c: /metrics, /livez and /readyz on --metrics. */
int ctl_observe_start(struct ctl *c, struct err *e);
void ctl_observe_stop(struct ctl *c);

/* Observation points for the metrics (no-ops without --metrics): one pass
 * took seconds; an attempt reached its final phase; the revalidation
 * found drift by rule; the garbage collection removed an object. */
void ctl_observe_pass(struct ctl *c, double seconds);
void ctl_observe_attempt_finished(struct ctl_inv *inv);
void ctl_observe_drift(struct ctl *c, const char *rule);
void ctl_observe_gc_removed(struct ctl *c, const char *kind);

/* What ctl_inv_reset_attempt() starts over. */
enum ctl_reset {
    CTL_RESET_NEW_ATTEMPT, /* a new attempt ID after a finished one */
    CTL_RESET_CLAIMED,     /* claimed a status another controller wrote */
    CTL_RESET_SUBNET,      /* moved to another subnet before any object */
    CTL_RESET_REPAIR,      /* drift before the start: objects rebuilt */
};

/* ctl_inv.c helpers */
long ctl_subnet_alloc(const struct ctl_inv *inv, long from);
/* The one place that forgets state of an attempt (see ctl_inv.c for what
 * each kind clears and keeps). */
void ctl_inv_reset_attempt(struct ctl_inv *inv, enum ctl_reset what);

/* ctl_events.c: follow Docker events (started once the daemon answers). */
void ctl_events_start(struct ctl *c);
void ctl_events_stop(struct ctl *c);

/* ctl_gc.c: remove objects labelled for this controller that no live
 * invocation owns (at start and on every resync). */
void ctl_gc_run(struct ctl *c);
void ctl_gc_stop(struct ctl *c);

/* ctl_sync.c */
int ctl_sync_start(struct ctl *c, struct err *e);
void ctl_sync_stop(struct ctl *c);
/* Re-read every spec and status from the store; create, update or mark
 * deleted the invocations, and queue a pass for each. */
void ctl_sync_all(struct ctl *c);
/* Queue a pass for one invocation after `after` seconds. */
void ctl_inv_kick(struct ctl_inv *inv, double after);
/* Queue with exponential backoff after a failed step. */
void ctl_inv_backoff(struct ctl_inv *inv, const struct err *why);
struct ctl_inv *ctl_inv_find(struct ctl *c, const char *name);
/* The invocation whose status records this uid (Docker labels carry it). */
struct ctl_inv *ctl_inv_by_uid(struct ctl *c, const char *uid);
/* Unlink and free an invocation whose work is done. */
void ctl_inv_forget(struct ctl_inv *inv);
/* true when no invocation has work pending (for --once). */
bool ctl_idle(const struct ctl *c);

/* ctl_inv.c */
void ctl_inv_pass(struct ctl_inv *inv);
/* A new valid spec: stop at once for cancel or a new attempt ID. */
void ctl_inv_spec_changed(struct ctl_inv *inv);
/* Record req as the step in flight; when it could not start (NULL), back
 * off with e. Returns true (a step was attempted) for the callers' tail
 * calls. */
bool ctl_inv_started(struct ctl_inv *inv, struct dk_req *req,
                     const struct err *e);
/* The result of the step request: clears inv->call, records failures. */
bool ctl_inv_step_ok(struct ctl_inv *inv, const struct dk_response *r);

/* ctl_prepare.c: one step of bringing the attempt's objects up; returns
 * true when a request was started (its callback continues the pass),
 * false when everything exists and the agent may start. */
bool ctl_prepare_step(struct ctl_inv *inv);
/* The subnet overlapped a foreign network: move to the next free one. */
void ctl_prepare_next_subnet(struct ctl_inv *inv);
/* The object (inspect or list entry) carries this attempt's uid, attempt,
 * role and managed-by labels and is no stand-in the revalidation found. */
/* List the objects of kind (containers: stopped ones too) whose filter
 * key holds one of values[0..n); cb gets inv. */
bool ctl_prepare_list(struct ctl_inv *inv, enum dk_kind kind, const char *key,
                      const char *const *values, size_t n, dk_done_fn *cb);
/* ctl_prepare_list() by this invocation's uid label, and by role when not
 * NULL. */
bool ctl_prepare_list_ours(struct ctl_inv *inv, enum dk_kind kind,
                           const char *role, dk_done_fn *cb);
bool ctl_prepare_labels_ours(const struct ctl_inv *inv, const cJSON *json,
                             const char *role);
/* The kind of Docker object a role of the attempt is. */
enum dk_kind ctl_role_dk_kind(enum rc_role role);
/* POST the create of one role's object (its callback records the ID). */
bool ctl_prepare_create(struct ctl_inv *inv, enum rc_role role);
bool ctl_prepare_start_probe(struct ctl_inv *inv);

/* ctl_git.c: the git metadata's digest before (from the upload) and
 * after (read back from the keeper, agent gone) into status.git. */
int ctl_git_record_before(struct ctl_inv *inv, const struct buf *tar,
                          struct err *e);
/* The spec's workspace source has a .git directory (at capture). */
bool ctl_git_present(const struct ctl_inv *inv);
/* Whether status.git holds the digest before (upload) and after. */
void ctl_git_digests(const struct ctl_inv *inv, bool *before, bool *after);
/* Read /work/.git back from the keeper (the agent is gone): the digest
 * after. Returns true (a request was started or a backoff queued). */
bool ctl_git_read_back(struct ctl_inv *inv);

/* ctl_network.c: the attempt's network, listed by label before a create
 * and after a failed one; one is adopted, twins are removed by ID. */
bool ctl_network_step(struct ctl_inv *inv);
void ctl_network_create_failed(struct ctl_inv *inv,
                               const struct dk_response *r);
/* A create by network name answered "ambiguous": remove the twin. */
void ctl_network_sweep(struct ctl_inv *inv, const struct err *why);
/* One step of removing the attempt's objects by recorded ID; false when
 * nothing is left. */
bool ctl_cleanup_step(struct ctl_inv *inv);

/* ctl_run.c */
bool ctl_run_step(struct ctl_inv *inv);
/* Decide to stop the agent with a reason (first reason wins). */
void ctl_run_stop(struct ctl_inv *inv, enum ctl_phase phase,
                  enum ctl_stop_reason why, const char *message);
void ctl_run_detach(struct ctl_inv *inv);
/* Stop with agent-lost: the daemon was unreachable while the agent ran. */
void ctl_run_stop_lost(struct ctl_inv *inv);

/* ctl_verify.c: one inspect of the revalidation round; false when the
 * round is complete (or none is due). */
bool ctl_verify_step(struct ctl_inv *inv);
/* Ask for a revalidation round and a pass now (events, resync). */
void ctl_inv_revalidate(struct ctl_inv *inv);
/* Remember a stand-in (status.standIns) by its Docker ID - a volume's
 * CreatedAt, volumes have none. */
void ctl_verify_note_standin(struct ctl_inv *inv, const char *role,
                             const char *id);
/* The object with this Docker ID (NULL: none) was reported as a stand-in
 * under one of the attempt's names: never adopt it, never remove it. */
bool ctl_verify_is_standin(const struct ctl_inv *inv, const char *id);

/* ctl_probe.c: the boundary probe step the planner chose (one of the
 * PLAN_PROBE_* actions); false when none was started. */
bool ctl_probe_step(struct ctl_inv *inv, enum plan_action action);

/* ctl_plan.c: the facts the step planner (plan/plan_step.h) decides the
 * next preparation or cleanup step from. */
void ctl_plan_view(const struct ctl_inv *inv, struct plan_view *v);

/* ctl_claim.c: claims on a store that has them (etcd). */
void ctl_claim_start(struct ctl *c);
void ctl_claim_stop(struct ctl *c);
/* At the start of a pass: true when this controller may act on inv
 * (it holds the claim, or the store has no claims). */
bool ctl_claim_gate(struct ctl_inv *inv);
/* After a pass's status write: release a claim whose work is done. */
void ctl_claim_after_pass(struct ctl_inv *inv);

/* ctl_testhooks.c: SIGKILL self at a named point (test-hooks build). */
void ctl_test_point(const char *kind, const char *what);
/* AGENTCTL_TEST_DISABLE names this protection (test-hooks build only). */
bool ctl_test_disabled(const char *protection);

/* ctl_status.c */
/* The record of a new status for this invocation (Pending). */
void ctl_status_new(struct ctl_inv *inv);
/* Load the status from the store into inv->rec (none: rec.present is
 * false). -1 with e when the store cannot read it (inv->rec unchanged)
 * or it is no JSON object (inv->rec empty, code ERR_INVALID). */
int ctl_status_load(struct ctl_inv *inv, struct err *e);
void ctl_status_set_phase(struct ctl_inv *inv, enum ctl_phase p);
void ctl_status_set_condition(struct ctl_inv *inv, const char *type,
                              bool status, const char *reason,
                              const char *message);
/* Write the status document if it changed. */
int ctl_status_flush(struct ctl_inv *inv, struct err *e);
/* Append an event (Normal or Warning); repeats of the last one count up. */
/* ctl_condition.c: a step failed (why), or went through. Ready=False
 * with reason StepFailed and a Warning event StepFailed counting the
 * failures in a row; Ready=True (reason Progressing) when one that failed
 * goes through. */
void ctl_condition_step_failed(struct ctl_inv *inv, const struct err *why);
void ctl_condition_step_ok(struct ctl_inv *inv);
/* The pass boundaries: a pass that ends with no failure and no request in
 * flight made progress. */
void ctl_condition_pass_begin(struct ctl_inv *inv);
void ctl_condition_pass_end(struct ctl_inv *inv);

/* An event whose count is count (a repeated one), first seen at first. */
void ctl_event_counted(struct ctl_inv *inv, bool warning, const char *reason,
                       unsigned count, const char *first, const char *msg);

void ctl_event(struct ctl_inv *inv, bool warning, const char *reason,
               const char *fmt, ...) ERR_PRINTF(4, 5);
/* RFC 3339 UTC "now" with seconds. */
void ctl_now(char out[32]);

#endif
