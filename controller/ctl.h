/* ctl.h - agent-controller's shared state: the loop, the store, the Docker
 * client, the config, and one struct ctl_inv per known invocation. Only
 * types live here; each module's functions are in its own header, and a
 * module includes only the headers of the modules under it
 * (docs/architecture.md draws the order; hack/check-layers.sh checks it):
 *
 *   loop_main.c      flags, start-up, signals, the loop
 *   loop_flags.c     the flag table: getopt_long's options and --help
 *   loop_sync.c      the store watch and resync: specs into invocations
 *   loop_events.c    Docker events: a revalidation for the invocation
 *   loop_gc.c        objects of this controller that nobody owns
 *   pass_inv.c       one invocation's pass: capture, then the phase's step
 *   pass_prepare.c   preparation: the planner's next rung as a request
 *     box_network.c, box_create.c, box_probe.c, box_git.c   its steps;
 *                   box_probe.c is the one probe runner (preparation,
 *                   canary, warm box), inv_probing.c resets its state
 *   box_boxreq.c    the requests that build a box (creates, egress connect,
 *                   start), an invocation's and a warm box's alike
 *   pass_run.c       a running agent: logs, wait, exit
 *   box_canary.c    the boundary probe again, inside the running agent's
 *                   network namespace (timer, events)
 *   drift_verify.c    the revalidation round (drift rules)
 *   pass_cleanup.c   removal by recorded ID, the planner's cleanup rungs
 *   try_claim.c     etcd claims and the controller's lease (scale-out)
 *   drift_objects.c   which Docker objects are this attempt's (labels)
 *   try_attempt.c   starting an attempt over; the subnet of an attempt
 *   pass_plan.c      the facts the step planner (plan/plan_step.c) reads
 *   inv_stop.c      the stop decision (first reason wins)
 *   try_result.c    the result interpreter: the one retry decision (and
 *                   the one retry delay, the warm pool's too)
 *   try_build.c     build slots: boxes built a few at a time, in order
 *   box_pool.c      the warm pool: boxes made ahead, handed to one
 *                   invocation each; box.c one box's steps
 *   inv_queue.c     the invocation list and its work queue
 *   loop_docker.c    whether the daemon answers
 *   pass_waiting.c   what a Pending invocation waits for (Waiting)
 *   obs_invalid.c   an invalid spec: logged once per version, counted
 *   inv_status.c    phase, conditions, events, status writes
 *   try_write.c     the status writes of a loop iteration, grouped (etcd)
 *   (the attempt record, typed status: model/ctl_record.h)
 *   obs_metrics.c   the metrics registry; obs_metrics_http.c and
 *                   obs_observe.c serve /metrics and /healthz
 */
#ifndef CTL_H
#define CTL_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <ev.h>

#include "cfg.h"
#include "container_of.h"
#include "ctl_record_types.h"
#include "dk.h"
#include "dk_engine.h"
#include "err.h"
#include "plan_step.h"
#include "rc_desired.h"
#include "rc_drift.h"
#include "rc_output.h"
#include "spec.h"
#include "store.h"

#define CTL_ID_MAX        63
#define CTL_BACKOFF_MIN   0.1  /* seconds, docs/design.md "base 100ms" */
#define CTL_BACKOFF_MAX   30.0 /* seconds, "cap 30s" */
#define CTL_KILL_GRACE_MS 2000
#define CTL_MAX_BUILDING  6 /* --max-building's default (try_build.h) */

struct ctl;
struct ctl_inv;
struct inv_ws;
struct inv_changes;
struct inv_resultread;
struct inv_egress;

struct buf;

/* Why this attempt's networks are listed (box_network.c). */
enum ctl_net_retry {
    CTL_NET_FRESH,    /* before a create */
    CTL_NET_CONFLICT, /* the create found the name taken */
    CTL_NET_OVERLAP,  /* the create found the subnet taken */
    CTL_NET_SWEEP,    /* a create by name found it ambiguous */
};

/* One invocation the controller knows: the latest spec from the store, the
 * attempt record it owns (which records every Docker object by ID), and
 * the watchers and requests of the pass in progress. */
/* Where the boundary canary of a running agent is (box_canary.c). */
enum ctl_canary_stage {
    CTL_CANARY_IDLE,    /* none of this process in flight */
    CTL_CANARY_NAMED,   /* its name is recorded (canaryPending): create */
    CTL_CANARY_CREATED, /* recorded as the probe role; start next */
    CTL_CANARY_STARTED, /* wait for its exit */
    CTL_CANARY_EXITED,  /* read its verdict */
    CTL_CANARY_JUDGED,  /* remove it */
};

/* The boundary probe (before the start) and the canary (while the agent
 * runs) of one attempt: owned by the probe runner (box_probe.c) and the
 * canary (box_canary.c), started over by inv_probing_reset() only. */
struct ctl_probing {
    long exit;              /* the last run's exit code (its /wait) */
    bool exited;            /* the pre-start probe's /wait answered */
    unsigned silent;        /* the pre-start probe's inconclusive runs */
    ev_timer canary;        /* the next canary run on the timer */
    bool canary_due;        /* a run is asked for (timer, Docker event) */
    enum ctl_canary_stage canary_stage;
    unsigned canary_passed; /* runs in a row that verified the boundary */
    unsigned canary_silent; /* inconclusive runs in a row */
    char canary_first[32];  /* when the passes in a row began */
};

/* What a step did (try_result.h interprets it). */
enum ctl_step {
    CTL_STEP_NONE,    /* nothing to do at this point: go on (or idle) */
    CTL_STEP_STARTED, /* a request is in flight: its answer decides */
    CTL_STEP_DONE,    /* progress (or a terminal decision): pass again now */
    CTL_STEP_FAILED,  /* may pass: retry with backoff (inv->step_err) */
};

/* Reads the answer of a step's request (r->err set when it failed). */
typedef enum ctl_step ctl_answer_fn(struct ctl_inv *inv, struct dk_response *r);

/* One step request in flight (try_result.h). An invocation has one lane
 * for every step, and while its box is built a second one for the
 * storage (volumes, keeper, uploads), which needs nothing of the network
 * and the proxy being made at the same time (pass_prepare.c). */
enum ctl_lane_id { CTL_LANE_MAIN, CTL_LANE_STORAGE, CTL_LANES };

struct ctl_lane {
    struct dk_req *call;      /* the request in flight, or NULL */
    ctl_answer_fn *answer;    /* reads call's answer */
    enum ctl_progress action; /* what the action step in flight does */
    int creating;             /* enum rc_role the create in flight makes */
};

/* A step error that keeps recurring (try_condition.c). */
struct ctl_stuck {
    unsigned count;    /* failures in a row with this message; 0: none */
    char message[256]; /* the error, as in the Ready condition */
    char first[32];    /* when it first happened (RFC 3339) */
    bool had_ready;    /* the Ready condition StepFailed replaced ... */
    bool ready_status; /* ... restored when the step goes through */
    char ready_reason[64];
    char ready_message[256];
};

/* The images one capture pinned so far (pass_inv.c), all of one spec. */
struct ctl_pins {
    char hash[65];                     /* the spec hash they are for */
    char image[80];                    /* the agent image's ID */
    char helpers[RC_HELPER_COUNT][80]; /* the helpers' ("" not yet) */
    /* the inspects out at once (drift_pins.c): [0] the agent's image,
     * [1 + h] helper h's; how many are out; the first failure */
    struct dk_req *req[1 + RC_HELPER_COUNT];
    unsigned out;
    struct err *failed;
    int missing; /* that failure's slot + 1 when its image is not on
                    the host; 0 otherwise */
};

/* Events a pass holds for its status write; more are written at once. */
#define CTL_EVENTS_HELD 8

/* An invocation's claim request waiting for the loop iteration's group
 * (try_claim.c). */
enum ctl_claim_op { CTL_CLAIM_NONE, CTL_CLAIM_TAKE, CTL_CLAIM_RELEASE };
/* Whether our claim key holds it under c->lease (try_claim.c): not, won
 * by the last group and not yet acted on (its next pass does), or held. */
enum ctl_claim_hold { CTL_CLAIM_UNHELD, CTL_CLAIM_WON, CTL_CLAIM_HELD };

/* An invocation's scale-out claim (try_claim.c; always UNHELD on the
 * directory store). */
struct ctl_inv_claim {
    enum ctl_claim_hold hold;
    bool was_free;   /* WON: ... and nobody held it before */
    bool lease_lost; /* ours when the lease expired: stop and clean it */
    /* another controller's attempt marked NodeLost: the claim goes once
     * that status is written (without blocking) */
    bool release_after_write;
    enum ctl_claim_op op; /* its request waiting in c->claims */
    bool waiting;         /* a pass was turned away while op was out */
};
/* Whether its status and metadata are removed from the store (the spec
 * deleted, its objects gone; try_write.c, etcd only). */
enum ctl_status_removal {
    CTL_STATUS_KEPT,
    CTL_STATUS_REMOVING, /* they go in the next group */
    CTL_STATUS_REMOVED,  /* they went: nothing writes its status again */
};

/* An invocation's status write (inv_status.c; the group write of a loop
 * iteration, try_write.c). */
struct ctl_inv_write {
    /* events of the pass running now, written with its next status
     * (inv_status.c: one etcd txn instead of one request each) */
    bool in_pass;
    char *events[CTL_EVENTS_HELD];
    size_t events_n;
    /* its status and events wait in the loop iteration's group write
     * (etcd only): c->writes, linked by next. Both may hold: queued
     * again while the last one is out. */
    bool queued;
    struct ctl_inv *next;
    bool sent; /* in the group write etcd has not answered */
    enum ctl_status_removal removal;
    bool pass_after;    /* a pass waits for that write (try_write_first) */
    struct err *failed; /* the last group write of it failed: the next
                           pass fails with it and backs off */
};
/* Drift found on an invocation's objects (inv_verify_part.h). */
struct ctl_drift_finding {
    /* drift a round found, counted once the daemon takes a new
     * connection (drift.c); rule "" = none */
    char drift_rule[48];
    char drift_message[320];
    const char *foreign_rule; /* the rule of foreign_seen (static) */
    char foreign_seen[224];   /* a docker exec or cp on one of the
                                 attempt's containers, Docker's event as
                                 the finding; "" = none (drift_neighbours.c) */
};

/* An invocation's revalidation (drift_verify.c: the rounds; drift.c
 * and drift_neighbours.c: what they find). */
struct ctl_inv_verify {
    bool due;        /* re-inspect every object before going on */
    bool round_open; /* a round's first inspect went out: an
                        event from now on may be newer than an
                        answer the round checks */
    bool again;      /* an event came while the round was open:
                        one more round after it */
    unsigned verified;        /* roles checked in this round (1 << rc_role,
                                 CTL_VERIFIED_NEIGHBOURS) */
    /* what a round or an event found, allocated only then (600 B: most
     * invocations never hold one; inv_verify_part.h) */
    struct ctl_drift_finding *found;
    /* the rule of a docker exec/cp event (static) when `found` could not
     * be allocated for it: acted on with a fixed message, as the event
     * itself would be (drift_neighbours.c; no round can see either) */
    const char *foreign_lost;
    /* ... and the rule of a round's drift (static, from the rule table):
     * it still waits for the daemon's new connection (drift.c) */
    const char *drift_lost;
    char role[16];            /* role being inspected */
    cJSON *pending_inspect;   /* inspect waiting for its image's config */
    /* the neighbours a listing left to inspect (drift_neighbours.c) */
    char (*ns_queue)[65];
    unsigned ns_queue_n, ns_queue_at;
    bool ns_queue_more;     /* more than the queue holds: list again */
    bool repairing;         /* drift before start: tear down, rebuild */
    bool resumed;           /* a box this process did not see built
                               (a restart): inspected before any step */
    bool prestart_verified; /* the round right before the agent start ran */
    bool storage_verified;  /* the volumes' identity was inspected before
                               the keeper's create (drift_verify.c) */
    bool start_checked;     /* Docker says the run-once container about
                             * to be started never ran (pass_prepare.c) */
    char never_started[65]; /* a run-once container this process saw
                               never started (its create answered, or
                               the round before the start inspected
                               it) and sent no start since: its start
                               needs no inspect first; "" = none */
};
/* A running agent (pass_run.c): its log stream, its wait, its exit. */
struct ctl_inv_run {
    struct dk_req *logs; /* follow stream */
    struct dk_req *wait; /* POST /wait */
    /* the capture while the logs are followed, NULL otherwise: allocated
     * only then (about 17 KiB each, most invocations never hold one) */
    struct rc_output *out;
    bool exited; /* wait answered */
    long exit_code;
    bool logs_done;
    bool exit_confirmed; /* the daemon still accepts connections after
                            the exit: the exit is the agent's own */
    bool daemon_lost;    /* Docker was unreachable while it ran */
};

/* An invocation's cleanup (pass_cleanup.c): the object being removed, and
 * the readers of what the attempt left (egress audit, change set, the
 * CLI's result). */
struct ctl_inv_cleanup {
    char role[16];             /* role of the object the step is removing */
    bool swept;                /* no unrecorded container of the attempt left */
    char created[40];          /* the CreatedAt the volume showed */
    struct inv_egress *egress; /* the egress audit being read */
    struct inv_changes *changes;   /* the change set being read */
    struct inv_resultread *result; /* the CLI's result (out_resultread.c) */
};

/* An attempt's networks (box_network.c) and its place on the egress
 * network (box_egressnet.c). */
struct ctl_inv_net {
    bool listed;                /* no network of this attempt: create next */
    enum ctl_net_retry retry;   /* why the networks are listed */
    bool egress_checked;        /* this attempt saw the egress network */
    char proxy_egress_ip[16];   /* the proxy's address on the egress net */
    char gateway_egress_ip[16]; /* the credential gateway's, likewise */
};

/* An invalid version of its spec in the store (obs_invalid.c): logged
 * once per version. */
struct ctl_inv_invalid {
    bool spec;           /* the store holds an invalid version */
    uint64_t rev;        /* the version's revision, hashed, and */
    uint64_t logged_rev; /* the invalid one logged */
    char *msg;           /* its first error; NULL: none known */
};

/* What a capture checks and pins before the attempt freezes the spec
 * (pass_inv.c, drift_pins.c, out_ws.c's check). */
struct ctl_inv_capture {
    char ws_checked[65];  /* spec hash whose workspace passed the check
                             for the capture to come; "" none */
    char ws_checking[65]; /* spec hash of the check in flight */
    /* capture in progress: the image IDs found so far; NULL outside
     * a capture (most invocations are not capturing) */
    struct ctl_pins *pins;
    char frozen_hash[65]; /* spec hash already warned about (SpecFrozen) */
};

struct try_claim_req;
struct try_claim_batch;
struct try_write_group;
struct drift_nscache;

/* Where an invocation is in the controller's queue (inv_queue.c): its
 * name bucket, the backlog of due passes, its kick timer and backoff. */
struct ctl_inv_queue {
    struct ctl_inv *hnext; /* the next in its name bucket */
    struct ctl_inv *bnext; /* the next in the backlog of due passes */
    bool in_backlog;
    ev_timer kick;         /* run the next pass (0 s, or backoff) */
    bool pass_asked;       /* a pass was turned away while a request was
                              in flight: the last answer runs it
                              (try_inv_settle) */
    unsigned failures;     /* consecutive failed steps: backoff exponent */
};

/* Where an invocation is with the build slots (try_build.c): none, in
 * c->build_line, holding one (its box is being built), or uploading its
 * workspace (a box begun that holds no slot meanwhile). */
enum ctl_build_state {
    CTL_BUILD_NONE,
    CTL_BUILD_WAITING,
    CTL_BUILD_SLOT,
    CTL_BUILD_UPLOADING,
};

struct ctl_inv_build {
    enum ctl_build_state state;
    struct ctl_inv *next; /* the next in c->build_line (WAITING) */
};

struct ctl_inv {
    struct ctl *ctl;
    struct ctl_inv *next;
    struct ctl_inv_queue queue; /* inv_queue.c */
    char name[STORE_NAME_MAX + 1];
    struct spec_invocation *spec; /* latest valid spec; NULL if none */
    struct ctl_inv_invalid invalid; /* obs_invalid.c */
    struct ctl_inv_capture capture; /* pass_inv.c, drift_pins.c */
    bool meta_unwritten;          /* its metadata could not be written: the
                                     spec is read again on every resync
                                     (loop_sync.c) */
    bool deleted;                 /* the spec is gone: stop and clean */
    struct store_meta meta;
    struct ctl_record rec;  /* the status; rec.dirty: write it before
                               the next Docker call */
    struct ctl_lane lanes[CTL_LANES]; /* the step requests in flight */
    struct ctl_lane *lane;  /* the lane of the step or answer running */
    struct err *step_err;   /* why the last failed step failed; NULL
                               while steps go through (try_result.c) */
    struct inv_ws *ws;      /* workspace worker: a check in flight, or the
                               upload behind `call` (out_ws.c) */
    ev_timer deadline;      /* end of the attempt's deadlineSeconds */
    bool status_unreadable;  /* its status exists and cannot be read: held,
                                nothing done or written (pass_inv.c) */
    struct ctl_stuck *stuck; /* the step error shown as Ready=False; NULL
                                while no step fails (try_condition.c) */
    struct ctl_inv_write write; /* inv_status.c, try_write.c */
    char *credential;       /* the attempt's secret; never logged */
    struct ctl_inv_run run; /* pass_run.c */
    struct ctl_inv_net net; /* box_network.c */
    bool freeing;          /* done: free when the pass returns */
    bool seen;             /* found in the last full listing */
    struct spec_invocation *captured; /* the spec as captured (frozen) */
    struct rc_desired *desired;       /* built from `captured` */
    struct ctl_inv_cleanup cleanup; /* pass_cleanup.c */
    struct ctl_inv_verify verify;   /* drift_verify.c, drift.c,
                                       drift_neighbours.c */
    struct ctl_probing probe; /* boundary probe and canary (box_probe.h) */
    struct ctl_inv_claim claim; /* try_claim.c */
    struct ctl_inv_build build; /* try_build.c */
};

/* A warm box's steps, in order (box.c): its stage is the one in
 * flight (call set) or the next; only box.c's set_stage() moves it. */
enum ctl_box_stage {
    CTL_BOX_PIN,           /* inspect the next helper image not pinned yet */
    CTL_BOX_EGRESS,        /* the shared egress network is there */
    CTL_BOX_EGRESS_CREATE, /* ... or is made */
    CTL_BOX_NETWORK,       /* create the internal network */
    CTL_BOX_PROXY,         /* create the proxy on it */
    CTL_BOX_CONNECT,       /* join the proxy to the egress network */
    CTL_BOX_START,         /* start the proxy */
    CTL_BOX_ADDRESS,       /* inspect it: its egress address, for the probe */
    CTL_BOX_PROBE,         /* create the boundary probe */
    CTL_BOX_PROBE_START,
    CTL_BOX_PROBE_WAIT,
    CTL_BOX_PROBE_LOGS,    /* read its verdict */
    CTL_BOX_PROBE_DROP,    /* remove the exited probe: then the box is ready */
    CTL_BOX_READY,         /* waits to be handed */
    CTL_BOX_CHECK_NETWORK, /* revalidation: the network by ID */
    CTL_BOX_CHECK_PROXY,   /* the proxy by ID */
    CTL_BOX_CHECK_IMAGE,   /* the proxy image's config, for its rules */
    CTL_BOX_REMOVE_PROBE,  /* removal, by ID, containers first */
    CTL_BOX_REMOVE_PROXY,
    CTL_BOX_REMOVE_NETWORK,
    CTL_BOX_GONE,
};

/* One warm box (box_pool.c, docs/warm-pool.md): an internal network and
 * a started proxy on it whose boundary probe passed, made ahead for one
 * vendor and handed to exactly one invocation. Its objects carry an
 * identity of their own (invocation label pool.<vendor>, the box's uid)
 * until an invocation records them. */
struct ctl_box {
    struct ctl *ctl;
    struct ctl_box *next;
    char vendor[64];
    char owner[72];              /* "pool.<vendor>": the invocation label */
    char uid[33];                /* 32 hex digits */
    char attempt[8];             /* the attempt label, "w1" */
    char name[RC_NAME_MAX];      /* agentctl-pool.<vendor>-<uid8> */
    long subnet;                 /* its /24 of subnetPool (try_attempt.c) */
    enum ctl_box_stage stage;    /* the step in flight or next (box.c) */
    struct dk_req *call;         /* that step's request, or NULL */
    bool ready;                  /* the probe passed: it may be handed */
    bool check_due;              /* revalidate it (an event, the resync) */
    bool doomed;                 /* failed or drifted: being removed */
    struct spec_invocation *ref; /* the reference spec of the vendor */
    struct rc_desired *desired;  /* its bodies (network, proxy, probe) */
    char helpers[RC_HELPER_COUNT][80]; /* pinned helper image IDs */
    char net_id[72], proxy_id[72], probe_id[72];
    char proxy_egress_ip[16];
    long probe_exit;
    cJSON *pending_inspect; /* the proxy's, waiting for its image config */
    double born;            /* ev_now() of its first step */
    char created_at[32], verified_at[32]; /* RFC 3339 */
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
    unsigned max_building; /* --max-building: boxes built at once, 0 = any
                              (try_build.h) */
};

struct ctl {
    struct ev_loop *loop;
    void (*pass)(struct ctl_inv *inv);  /* the queue's pass (inv_queue.h) */
    void (*docker_back)(struct ctl *c); /* the daemon answers again */
    struct ctl_opts opts;
    struct store *store;
    struct dk *dk;
    struct cfg *cfg;
    struct ctl_inv *invs;
    struct ctl_inv **by_name; /* name hash buckets over invs; NULL: none */
    size_t buckets, ninvs;
    double slice_start;       /* when this loop iteration's passes began */
    unsigned slice_iter;      /* ev_iteration() of slice_start */
    struct ctl_inv *backlog, *backlog_last; /* due passes, FIFO */
    ev_timer backlog_timer;   /* runs the backlog in the next iteration */
    ev_io store_watch;
    ev_prepare status_writer;  /* writes c->writes before the loop waits */
    struct ctl_inv *writes, *writes_last; /* whose status waits for it, FIFO */
    struct try_write_group *write_sent;   /* the one etcd has not answered */
    /* try_write.c's queueing, set when the store groups writes: an event
     * made outside a pass (a step's answer) joins the group write rather
     * than taking a request of its own (inv_status.c, which sits under
     * try_write.c and so reaches it only through this) */
    void (*join_group)(struct ctl_inv *inv);
    ev_idle writes_left;       /* more than one group queued: the loop does
                                  not wait before the next one goes */
    ev_timer resync;
    ev_signal sigterm, sigint, sighup;
    bool docker_up;
    bool egress_known; /* the egress network was seen (box_egressnet.c) */
    struct dk_req *egress_look; /* its look-up in flight */
    char docker_error[256];
    bool negotiating;
    struct dk_security security; /* GET /info after each negotiation */
    char security_error[256];    /* why boxes cannot run ("" = they can) */
    bool stopping;
    bool listed;           /* the store has been listed once (loop_sync_all) */
    unsigned once_stalls;  /* --once: resyncs in a row without the daemon
                              or the store's list (inv_once_gave_up) */
    int exit_code;         /* main()'s, once the loop has ended */
    struct obs_metrics *metrics;
    struct obs_http *http;
    uint64_t reconciles_ok, reconciles_error;
    uint64_t reconciles_requeue; /* asked for while a step's request was in
                                    flight: run again when it answers */
    uint64_t queue_retries;      /* passes queued again with backoff */
    int gc_removing;             /* enum dk_kind of the GC removal in flight */
    struct dk_req *events[2];    /* containers by label; networks+volumes */
    ev_timer events_retry;
    long events_since;      /* Unix time of the last event seen */
    uint64_t events_seen;   /* events that triggered a pass */
    struct dk_req *gc_call; /* the garbage collector's request */
    int gc_stage;           /* which object list it is reading */
    cJSON *gc_queue;        /* paths of orphans still to remove */
    cJSON *image_configs;   /* image ID -> Config (immutable by ID) */
    /* other containers' PidMode and IpcMode (drift_nscache.h) */
    struct drift_nscache *ns_modes;
    struct rc_drift_set disabled_rules; /* test-hooks build only: drift
                                           rules off */
    int64_t lease;         /* etcd lease of our claims; 0 = none yet */
    struct try_claim_req *claims, **claims_tail; /* claims and releases for
                              the group at the iteration's end, FIFO */
    struct try_claim_batch *claims_sent; /* the group etcd has not answered
                              yet (one at a time); NULL: none */
    ev_timer lease_timer;  /* keepalive every lease_ttl_s / 3 */
    bool keepalive_busy;   /* one keep-alive in flight (not blocking) */
    bool grant_busy;       /* one lease grant in flight (not blocking) */
    int64_t keepalive_of;  /* the lease it renews */
    char store_error[256]; /* why etcd is unreachable ("" = it is not) */
    /* why the last status write to the directory store failed, or why
     * the API server refused it ("" = it went): /readyz names it
     * (inv_status.c, obs_observe.c) */
    char state_error[256];
    unsigned building;     /* build slots held (try_build.c) */
    struct ctl_inv *build_line, *build_last; /* waiting for one, FIFO */
    unsigned build_waiters;                  /* in build_line */
    /* the warm pool (box_pool.c): off with --once and without warmPool */
    struct ctl_box *boxes;
    void (*pool_changed)(struct ctl *c); /* a box started, is ready or went
                                            (box.c, under box_pool.c) */
    ev_timer pool_timer;    /* refill and age checks; backoff after a failure */
    unsigned pool_failures; /* boxes failed in a row: the backoff exponent */
    double pool_not_before; /* ev_now() before which no box starts */
    ev_timer pool_doc;      /* writes the pool document, coalesced */
    bool pool_doc_dirty;
    bool pool_doc_sent;     /* one write in flight (not blocking) */
    bool pool_doc_again;    /* changed meanwhile: write again after it */
};

#endif
