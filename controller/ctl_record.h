/* ctl_record.h - one invocation's attempt record: the status document as
 * typed fields.
 *
 * The record is the controller's memory of the attempt (every Docker
 * object by ID, what is done, why it stopped). ctl_record.c is the one
 * place that knows the JSON keys: ctl_record_from_json() loads a status
 * document written by any version, ctl_record_to_json() writes the same
 * keys back, and keys this version does not know ride along unchanged.
 */
#ifndef CTL_RECORD_H
#define CTL_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "rc_desired.h"

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
    /* cleanup: the egress audit is written (ctl_egress.c) */
    CTL_PROG_EGRESS_READ,
    /* cleanup: the change set is kept, or found unavailable
       (ctl_changes.c) */
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
    bool status;
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
    cJSON *git;            /* digestBefore/digestAfter (JSON by nature) */
    cJSON *result;         /* status.result: changes (ctl_changes.c) */
    cJSON *usage;          /* status.usage: the gateway's counts
                              (ctl_usage.c); NULL before any */
    cJSON *egress;         /* status.egress: the live audit's counts and
                              where each log was read up to
                              (ctl_egress.c); NULL before its first line */
    cJSON *box;            /* the warm box taken (docs/warm-pool.md): name,
                              vendor, uid, attempt, verifiedAt; NULL none */
    cJSON *progress_extra; /* progress keys of a newer version */
    cJSON *res_extra;      /* resources of roles this version lacks */
    cJSON *extra;          /* top-level keys this version does not know */
};

/* The record of a fresh status: Pending, owned by `controller`, `uid`. */
void ctl_record_init_new(struct ctl_record *r, const char *controller,
                         const char *uid);
/* Free everything the record holds and zero it (no status). */
void ctl_record_cleanup(struct ctl_record *r);
/* Load a status document (not taken). Keys this version does not know,
 * or whose type it does not expect, are kept for ctl_record_to_json().
 * -1 with e when doc is no object; r is then empty. */
int ctl_record_from_json(struct ctl_record *r, const cJSON *doc, struct err *e);
/* The status document of the record (caller deletes), NULL on no memory. */
cJSON *ctl_record_to_json(const struct ctl_record *r);

/* A new attempt starts from a finished one: forget everything the previous
 * attempt left (its ID stays in usedAttempts, the objects are already
 * removed, the conditions and standIns are the invocation's history). */
void ctl_record_reset_attempt(struct ctl_record *r);
/* A drift repair before the start removed every object: the one-off
 * actions must run again (same attempt, capture and subnet). */
void ctl_record_reset_progress(struct ctl_record *r);

/* Enum names as written in the status. */
const char *ctl_phase_name(enum ctl_phase p);
bool ctl_phase_terminal(enum ctl_phase p);
/* NULL for CTL_STOP_NONE and CTL_STOP_UNKNOWN. */
const char *ctl_stop_reason_name(enum ctl_stop_reason s);
const char *ctl_progress_name(enum ctl_progress p);
/* Role index (enum rc_role or CTL_REC_PROBE) of a resources key, or -1. */
int ctl_record_role(const char *name);
const char *ctl_record_role_name(int role);

/* Set a string field of r (`field` points into r) to a copy of v, or
 * drop it (v NULL); marks r dirty when the value changes. */
void ctl_record_set_str(struct ctl_record *r, char **field, const char *v);
void ctl_record_set_phase(struct ctl_record *r, enum ctl_phase p);
void ctl_record_set_stop(struct ctl_record *r, enum ctl_stop_reason s);
void ctl_record_set_subnet(struct ctl_record *r, long index);
void ctl_record_set_exit_code(struct ctl_record *r, long code);
void ctl_record_set_output(struct ctl_record *r, double bytes, bool truncated,
                           const char *sha256);
/* The pinned ID of a helper image, or NULL (not pinned). */
const char *ctl_record_helper_image(const struct ctl_record *r,
                                    enum rc_helper h);
/* Pin a helper image to its ID (v NULL: drop it); marks r dirty when the
 * value changes. */
void ctl_record_set_helper_image(struct ctl_record *r, enum rc_helper h,
                                 const char *v);
/* Every helper image of the attempt is pinned (status.helperImages). */
bool ctl_record_helpers_pinned(const struct ctl_record *r);

/* Take ownership of the captured spec (replacing any). */
void ctl_record_set_captured(struct ctl_record *r, cJSON *captured);
const cJSON *ctl_record_captured(const struct ctl_record *r);

/* Recorded objects (role: enum rc_role or CTL_REC_PROBE). The strings are
 * borrowed while the record holds them; NULL when not recorded. */
const char *ctl_record_role_id(const struct ctl_record *r, int role);
const char *ctl_record_role_obj_name(const struct ctl_record *r, int role);
const char *ctl_record_role_image(const struct ctl_record *r, int role);
/* Record a new object of the role: {id, name}, no image yet. A container
 * role (proxy, keeper, agent, probe) is also marked answered. */
void ctl_record_set_role(struct ctl_record *r, int role, const char *id,
                         const char *name);
void ctl_record_set_role_image(struct ctl_record *r, int role,
                               const char *image);
void ctl_record_drop_role(struct ctl_record *r, int role);
/* Forget every recorded object (they are another controller's). */
void ctl_record_drop_all_roles(struct ctl_record *r);
/* The record holds an object with this ID or (volumes) this name. */
bool ctl_record_holds(const struct ctl_record *r, const char *id,
                      const char *name);

/* A create of the container or network role (enum rc_role or
 * CTL_REC_PROBE, given by its name as the agentctl.dev/role label says)
 * answered in this attempt:
 * its ID was recorded, even if cleanup has dropped it since. Names and
 * labels identify only a create whose ID never came back, so a container
 * with the labels of an answered role is a stand-in. False for volumes
 * (their identity is CreatedAt) and unknown names. */
bool ctl_record_role_answered(const struct ctl_record *r, const char *role);

bool ctl_record_done(const struct ctl_record *r, enum ctl_progress p);
void ctl_record_set_done(struct ctl_record *r, enum ctl_progress p);
/* The action is to be done again (a probe run again). */
void ctl_record_clear_done(struct ctl_record *r, enum ctl_progress p);

bool ctl_record_attempt_used(const struct ctl_record *r, const char *attempt);
void ctl_record_mark_used(struct ctl_record *r, const char *attempt);
/* Remember a stand-in by Docker ID (first role seen stays). */
void ctl_record_add_standin(struct ctl_record *r, const char *id,
                            const char *role);
bool ctl_record_is_standin(const struct ctl_record *r, const char *id);

/* Set condition `type`; its lastTransitionTime moves to `now` only when
 * status, reason or message change. */
void ctl_record_set_condition(struct ctl_record *r, const char *type,
                              bool status, const char *reason,
                              const char *message, const char *now);
/* The condition of that type, or NULL. */
const struct ctl_record_cond *ctl_record_condition(const struct ctl_record *r,
                                                   const char *type);

/* status.box.<key> (name, vendor, uid, attempt, verifiedAt), or NULL. */
const char *ctl_record_box_str(const struct ctl_record *r, const char *key);
/* Record the warm box the attempt took (taken: an object of the keys
 * above), or forget it (NULL). */
void ctl_record_set_box(struct ctl_record *r, cJSON *box);

/* status.egress (ctl_egress.c owns its keys), or NULL. */
const cJSON *ctl_record_egress(const struct ctl_record *r);
/* Replace it (taken; NULL drops it); marks r dirty. */
void ctl_record_set_egress(struct ctl_record *r, cJSON *egress);

/* status.git.<key> (digestBefore, digestAfter), or NULL. */
const char *ctl_record_git_str(const struct ctl_record *r, const char *key);
void ctl_record_set_git_str(struct ctl_record *r, const char *key,
                            const char *value);

#endif
