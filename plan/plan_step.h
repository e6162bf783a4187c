/* plan_step.h - the next step of an attempt, as a pure function of what
 * the desired state holds and what the attempt has recorded.
 *
 * The controller brings an attempt up and tears it down one Engine API
 * request at a time, recording each result before the next step acts on
 * it. Which step comes next depends only on that record, so a controller
 * killed at any point and restarted picks the same step again (and the
 * step itself is safe to repeat: a create adopts what a lost answer made,
 * a start asks Docker first). This module is that decision: no Docker, no
 * loop, no I/O, tested as a table (tests/unit/test_plan_step.c).
 */
#ifndef PLAN_STEP_H
#define PLAN_STEP_H

#include <stdbool.h>

#include "ctl_record_types.h"
#include "rc_desired.h"

/* What the planner looks at: the attempt's record and the controller's
 * per-attempt memory, reduced to facts. Bits are (1u << enum rc_role). */
struct plan_view {
    unsigned desired;       /* objects the desired state has */
    unsigned recorded;      /* objects whose ID is recorded (a volume's ID
                               is its CreatedAt) */
    unsigned named;         /* objects whose name is recorded: cleanup
                               removes a volume by its name */
    unsigned progress;      /* the record's progress: 1u << enum
                               ctl_progress (model/ctl_record_types.h) */
    bool probe_recorded;    /* the boundary probe container is recorded */
    bool probe_exited;      /* its /wait answered in this attempt */
    bool has_workspace;     /* the captured spec has a workspace */
    bool egress_checked;    /* the egress network was seen this attempt */
    bool network_sweep;     /* a create by name was ambiguous: sweep */
    bool prestart_verified; /* the last revalidation before the start ran */
    bool storage_verified;  /* the volumes were inspected by their
                               identity before the keeper mounts them */
    /* cleanup */
    bool git_digest_before; /* the uploaded .git was digested */
    bool git_digest_after;  /* the .git read back was digested */
    bool changes_wanted;    /* the agent ran in a phase that writes /work:
                               its change set is read before the keeper
                               goes */
    bool unrecorded_swept;  /* no unrecorded container of it is left */
    bool has_uid;           /* the record knows the invocation's uid */
    bool has_attempt;       /* the record names an attempt */
    bool terminal;          /* the phase is Succeeded, Failed or Cancelled */
    bool cleaned_up;        /* status.cleanedUp is recorded */
};

enum plan_action {
    PLAN_NONE,             /* cleanup: nothing of the attempt is left */
    PLAN_CHECK_EGRESS,     /* inspect the egress network, create if missing */
    PLAN_FIND_NETWORK,     /* list the attempt's network by label, create */
    PLAN_CREATE,           /* create role */
    PLAN_CONNECT_EGRESS,   /* connect role (proxy, gateway) to the egress
                              network */
    PLAN_START,            /* start role (the agent: PLAN_START_AGENT) */
    PLAN_UPLOAD_WORKSPACE, /* put the workspace tar into the keeper */
    PLAN_UPLOAD_CONFIG,    /* put the adapter's files into the keeper */
    PLAN_UPLOAD_KEY,       /* put the gateway's key file into the keeper */
    PLAN_VERIFY_STORAGE,   /* inspect the volumes before the keeper's create */
    PLAN_PROBE_CREATE,     /* create the boundary probe */
    PLAN_PROBE_START,      /* start it (once: Docker is asked first) */
    PLAN_PROBE_WAIT,       /* wait for its exit */
    PLAN_PROBE_READ,       /* read its verdict from its logs */
    PLAN_PROBE_DISCARD,    /* remove it: its verdict is recorded */
    PLAN_REVALIDATE,       /* inspect the whole box once more */
    PLAN_START_AGENT,      /* start the agent (once: Docker is asked first) */
    PLAN_READ_GIT,         /* read /work/.git back from the keeper */
    PLAN_READ_CHANGES,     /* read /work back: the change set */
    PLAN_READ_EGRESS,      /* keep the gateway's and proxy's audit lines */
    PLAN_REMOVE,           /* remove role by its recorded ID */
    PLAN_REMOVE_PROBE,     /* remove the probe by its recorded ID */
    PLAN_SWEEP_UNRECORDED, /* remove containers of it that were never
                              recorded (found by their labels) */
    PLAN_MARK_CLEANED,     /* record status.cleanedUp and say so */
};

struct plan_step {
    enum plan_action action;
    enum rc_role role; /* for PLAN_CREATE, PLAN_START and PLAN_REMOVE */
};

/* The box is begun, so it is finished before anything new is built: an
 * object of it is recorded, or a step the ladder takes is done. The
 * *_CREATED bits (kept after a repair's cleanup dropped their objects)
 * and AGENT_STARTED are not the ladder's: an attempt with none of its
 * objects left waits for a build slot and may take a warm box, as a new
 * one does. */
bool plan_box_begun(const struct plan_view *v);

/* The next step of bringing the attempt up. The last is always
 * PLAN_START_AGENT: its executor asks Docker whether the agent ever ran
 * and follows it instead of starting it twice, and the phase turns
 * Running with the start, which ends preparation. */
struct plan_step plan_prepare_next(const struct plan_view *v);

/* The same ladder on two lanes, for a box built with two requests in
 * flight (docs/design.md "The step graph"). The storage lane: the
 * volumes, the keeper, the uploads, then the agent's create (it mounts
 * the volumes and joins the network); PLAN_NONE when that is done, and
 * until the attempt's network is recorded (a subnet taken by another
 * network rebuilds the desired state before that). The main lane: the
 * network and the proxy, then the boundary probe (it needs the proxy,
 * not the storage), then - once the storage lane is done - the last
 * revalidation and the agent's start; PLAN_NONE while it waits for the
 * storage lane. Together they take exactly the rungs plan_prepare_next()
 * takes, each once, never the same one on both lanes. */
struct plan_step plan_prepare_storage(const struct plan_view *v);
struct plan_step plan_prepare_main(const struct plan_view *v);

/* The next step of removing what the attempt owns: containers (the
 * credential gateway first, so the key is unusable the moment the attempt
 * ends; probe, agent, keeper, proxy; the git metadata read back once the agent
 * is gone and before the keeper goes), unrecorded containers, volumes, the
 * network, then the cleanedUp mark; PLAN_NONE when nothing is left. */
struct plan_step plan_cleanup_next(const struct plan_view *v);

/* "create", "start", ...: for logs and tests. */
const char *plan_action_name(enum plan_action a);

#endif
