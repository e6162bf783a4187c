/* ctl_record_types.h - the attempt record's types (ctl_record.h has its
 * functions): phases, stop reasons, progress bits and struct ctl_record.
 * Types only, so that ctl.h, which embeds a record in every invocation,
 * includes no module's functions (hack/check-layers.sh checks that no
 * *_types.h header declares one). */
#ifndef CTL_RECORD_TYPES_H
#define CTL_RECORD_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "rec_roles.h"

struct spec_invocation; /* model/spec.h */

/* Phases of docs/design.md; the order is the lifecycle's. */
enum ctl_phase {
    CTL_PENDING,
    CTL_PREPARING,
    CTL_RUNNING,
    CTL_SUCCEEDED,
    CTL_FAILED,
    CTL_CANCELLED,
};

/* status.stopReason: why the attempt was stopped (the first cause wins). */
enum ctl_stop_reason {
    CTL_STOP_NONE,               /* not stopped (no stopReason key) */
    CTL_STOP_DEADLINE,           /* ran past spec.deadlineSeconds */
    CTL_STOP_CANCELLED,          /* spec.cancel */
    CTL_STOP_SUPERSEDED,         /* a new attempt ID was given */
    CTL_STOP_DELETED,            /* the spec was deleted */
    CTL_STOP_OUTPUT_LIMIT,       /* the agent wrote more than allowed */
    CTL_STOP_CAPTURE_FAILURE,    /* its output could not be kept */
    CTL_STOP_PREPARATION_FAILED, /* the box could not be built */
    CTL_STOP_AGENT_LOST,         /* Docker lost the agent while it ran */
    CTL_STOP_BOUNDARY_DRIFT,     /* an object changed under the agent */
    CTL_STOP_BOUNDARY_BREACH,    /* the probe got out of the box */
    CTL_STOP_NODE_LOST,          /* its controller lost the etcd lease */
    CTL_STOP_UNKNOWN,            /* a reason of a newer version: kept as
                                    written, counts as stopped */
};
#define CTL_STOP_COUNT (CTL_STOP_UNKNOWN + 1)

/* status.progress: the one-off actions of the attempt that are done. */
enum ctl_progress {
    CTL_PROG_PROXY_CONNECTED,
    CTL_PROG_PROXY_STARTED,
    CTL_PROG_KEEPER_STARTED,
    CTL_PROG_WORKSPACE_UPLOADED,
    CTL_PROG_CONFIG_UPLOADED,
    CTL_PROG_AGENT_STARTED,
    CTL_PROG_PROBE_STARTED,
    CTL_PROG_BOUNDARY_VERIFIED,
    /* A create of the container (or the network) answered and its ID was
     * recorded: from then on another object with the role's labels is a
     * stand-in, never an unrecorded create of ours
     * (ctl_record_role_answered). */
    CTL_PROG_PROXY_CREATED,
    CTL_PROG_KEEPER_CREATED,
    CTL_PROG_AGENT_CREATED,
    CTL_PROG_PROBE_CREATED,
    CTL_PROG_NETWORK_CREATED,
    /* the credential gateway (credentialMode gateway) */
    CTL_PROG_KEY_UPLOADED,
    CTL_PROG_GATEWAY_CREATED,
    CTL_PROG_GATEWAY_CONNECTED,
    CTL_PROG_GATEWAY_STARTED,
    /* cleanup: the egress audit is written (out_egress.c) */
    CTL_PROG_EGRESS_READ,
    /* cleanup: the change set is kept, or found unavailable
       (out_changes.c) */
    CTL_PROG_CHANGES_READ,
};
#define CTL_PROG_COUNT (CTL_PROG_CHANGES_READ + 1)

/* The recorded objects: the roles of plan/rc_desired.h and the probe. */
#define CTL_REC_PROBE RC_ROLE_COUNT
#define CTL_REC_ROLES (RC_ROLE_COUNT + 1)

/* resources.<role>: a Docker object of the attempt. */
struct ctl_record_res {
    bool set; /* resources.<role> exists */
    char *id;
    char *name;
    char *image;  /* the image a container runs, from its first inspect */
    cJSON *extra; /* keys of a newer version, or NULL */
};

/* One of status.conditions. */
struct ctl_record_cond {
    char *type;
    bool status;       /* status is "True" */
    char *status_text; /* status as written: "True", "False", another
                          writer's ("Unknown"), or NULL when absent;
                          agentctl shows and compares this one */
    char *reason;
    char *message;
    char *time; /* lastTransitionTime */
};

/* One id -> role pair of status.standIns (also used for usedAttempts,
 * whose entries have no role). */
struct ctl_record_pair {
    char *key;
    char *value;
};

/* status.output: what was kept of the agent's output. */
struct ctl_record_output {
    bool set;
    double bytes;
    bool truncated;
    char *sha256;
};

struct ctl_record {
    bool present; /* a status exists (loaded, or made for the spec) */
    bool dirty;   /* changed since the last write */
    bool phase_set;
    enum ctl_phase phase;
    enum ctl_stop_reason stop;
    char *controller; /* the controller that captured the attempt */
    char *uid;
    char *attempt; /* attempt ID of the spec captured last */
    char *image_id;
    /* status.helperImages: the IDs the helper images (enum rc_helper)
     * had at capture; all NULL for an attempt an older version captured,
     * whose helpers are created from the config's tags. */
    char *helper_images[RC_HELPER_COUNT];
    cJSON *helper_extra; /* helperImages keys of a newer version */
    char *spec_hash;
    char *captured_at;
    char *started_at;
    char *finished_at;
    char *tool_policy;
    char *agent_user; /* status.agentUser: "uid:gid" fixed at capture */
    char *credential_mode; /* status.credentialMode: "env" | "gateway",
                              a spec with a credential only */
    /* status.canaryPending: the name of the canary container about to be
     * created, on disk before its create; cleared when its ID is
     * recorded. Left set, it names a create whose answer a crash lost. */
    char *canary_pending;
    /* status.networkPending: the network's name, on disk before its first
     * create since the attempt (or its last repair) began: creates of it
     * were sent, and one whose answer was lost may have made a network
     * with this attempt's labels. Unset, such a network is not ours (a
     * stand-in that copied the labels) and is never adopted. */
    char *network_pending;
    bool has_generation;
    double observed_generation;
    bool has_subnet;
    long subnet_index;
    bool has_exit_code;
    long exit_code;
    bool git_metadata;    /* .git gets a read-only volume of its own */
    bool forwarding_stated; /* the proxy's and gateway's bodies state
                               net.ipv4.ip_forward=0 (ipForwardOff) */
    bool launcher_stated; /* a prompt spec's agent runs its CLI under
                             agent-launch (status.launcher) */
    bool result_channel;  /* the CLI's result is read back from its
                             documented channel (status.resultChannel) */
    bool defaults_stated; /* the bodies state Docker's defaults
                             (plan/rc_harden.c); false for an attempt an
                             older version captured, whose boxes lack them */
    bool cleaned_up;
    unsigned progress; /* 1 << enum ctl_progress */
    struct ctl_record_res res[CTL_REC_ROLES];
    struct ctl_record_output output;
    struct ctl_record_cond *conds;
    size_t nconds;
    struct ctl_record_pair *used; /* usedAttempts (value NULL) */
    size_t nused;
    struct ctl_record_pair *standins; /* Docker ID -> role */
    size_t nstandins;
    cJSON *captured;       /* the spec as captured (JSON by nature) */
    /* The same spec typed (shared, never changed): the one the controller
     * captured, or - in a controller that did not (a restart, a claim) -
     * parsed from `captured` once, when first asked
     * (ctl_record_captured_spec). NULL until then. */
    struct spec_invocation *captured_spec;
    unsigned captured_parses; /* times `captured` was parsed into it since
                                 the record was loaded or the attempt began */
    cJSON *git;            /* digestBefore/digestAfter (JSON by nature) */
    cJSON *result;         /* status.result: changes (out_changes.c) */
    cJSON *usage;          /* status.usage: the gateway's counts
                              (obs_usage.c); NULL before any */
    cJSON *egress;         /* status.egress: the live audit's counts and
                              where each log was read up to
                              (out_egress.c); NULL before its first line */
    cJSON *box;            /* the warm box taken (docs/warm-pool.md): name,
                              vendor, uid, attempt, verifiedAt; NULL none */
    cJSON *progress_extra; /* progress keys of a newer version */
    cJSON *res_extra;      /* resources of roles this version lacks */
    cJSON *extra;          /* top-level keys this version does not know */
};

#endif
