/* rc_drift.h - the drift checker: given what the controller created for one
 * object of an attempt (the rc_desired body plus what it recorded at
 * creation) and what Docker reports now (a fresh inspect result), say
 * exactly what differs (docs/design.md "The reconcile loop"). Pure: no Docker,
 * no I/O, no printing.
 *
 * The rules live in one table (rc_drift_rules.c), documented row for row
 * in docs/drift-rules.md (a unit test keeps the two in lock-step). Each
 * rule has a stable ID such as "container.restart-policy" and an index;
 * rule i in rc_drift_expect.disabled_rules switches it off (a
 * test-only negative control: it proves a test of that rule can fail).
 *
 * Identity (the ID behind the object's name is the recorded one) takes
 * two inspects only when it fails: the controller inspects by the
 * recorded ID, which is one request per object on every pass, and only
 * when that answers 404 asks what is under the name now and hands it to
 * rc_drift_check_missing(): a stand-in is the role's ID rule
 * (network.id, container.id), nothing is object.gone. While the recorded
 * ID answers, container.name proves the name is still its own (container
 * names are unique; networks cannot be renamed).
 *
 * What inspect adds on its own and the checker therefore allows
 * (verified on dockerd 20.10, API 1.41: tests/unit/fixtures/drift/):
 * Config.Env and Config.Labels gain the image's entries whose key the body
 * does not set; Config.Entrypoint, Cmd, User, WorkingDir come from the
 * image when the body leaves them out (a body Entrypoint clears the
 * image's Cmd); HostConfig.Mounts[] drops "ReadOnly": false; null, [] and
 * {} are the same; fields the body leaves out show Docker's default
 * (PidMode/UTSMode/UsernsMode "", CgroupnsMode "host" on cgroup v1, 0 for
 * limits); NetworkSettings.Ports lists the image's EXPOSEd ports with a
 * null binding; the network's Containers lists only running endpoints.
 */
#ifndef RC_DRIFT_H
#define RC_DRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "rc_desired.h"

#define RC_DRIFT_FIELD_MAX 192 /* inspect path plus a key or two */
#define RC_DRIFT_VALUE_MAX 256 /* short JSON text; longer ends in "..." */
#define RC_DRIFT_MSG_MAX   768

/* How a rule compares (the checker's dispatch; see rc_drift_rules.c). */
enum rc_drift_cmp {
    RC_CMP_GONE,              /* the object answers at all (see
                                 rc_drift_check_missing) */
    RC_CMP_EXACT,             /* inspect value = body value (or the default) */
    RC_CMP_ID,                /* Id = the recorded ID */
    RC_CMP_CREATED_AT,        /* CreatedAt = the recorded one (volumes) */
    RC_CMP_NAME,              /* Name = "/" + the object's name */
    RC_CMP_IMAGE_ID,          /* .Image = the recorded image ID */
    RC_CMP_PINNED_IMAGE,      /* .Image = the ID pinned at capture */
    RC_CMP_LABELS_IMAGE,      /* body labels + the image's other labels */
    RC_CMP_ENV_IMAGE,         /* body Env + the image's other variables */
    RC_CMP_FROM_IMAGE,        /* body value, else the image's Config value */
    RC_CMP_IPAM,              /* one IPAM.Config entry: subnet (+ gateway) */
    RC_CMP_ENDPOINTS_EXTRA,   /* Containers keys within the allowed set */
    RC_CMP_ENDPOINTS_MISSING, /* the required endpoints are there */
    RC_CMP_NETWORKS,          /* NetworkSettings.Networks keys = expected */
    RC_CMP_PORTS_LIVE,        /* every NetworkSettings.Ports value null */
    RC_CMP_MOUNTS,            /* HostConfig.Mounts, ReadOnly false = absent */
    RC_CMP_LIVE_MOUNTS,       /* .Mounts[] = the body's mounts, as mounted */
    RC_CMP_INTERNAL_IP,       /* address on the internal network */
    RC_CMP_CGROUPNS,          /* body value, else the daemon's default */
    RC_CMP_APPARMOR,          /* the profile the body's SecurityOpt names,
                                 else "" (no AppArmor on the host) */
    RC_CMP_NEIGHBOUR,         /* another container, not this object's
                                 inspect (rc_drift_check_neighbour) */
    RC_CMP_CANARY,            /* the boundary canary's verdict, not an
                                 inspect (controller/box/box_canary.c) */
    RC_CMP_WAITING,           /* a warm box's agent still waits for its
                                 order (rc_drift_expect.waiting) */
};

/* A set of rules by index (the table holds at most RC_DRIFT_MAX_RULES). */
#define RC_DRIFT_MAX_RULES 128
struct rc_drift_set {
    uint64_t w[RC_DRIFT_MAX_RULES / 64];
};

static inline bool
rc_drift_set_has(const struct rc_drift_set *s, size_t i)
{
    return i < RC_DRIFT_MAX_RULES && (s->w[i / 64] >> (i % 64)) & 1u;
}

static inline void
rc_drift_set_add(struct rc_drift_set *s, size_t i)
{
    if (i < RC_DRIFT_MAX_RULES)
        s->w[i / 64] |= 1ull << (i % 64);
}

static inline bool
rc_drift_set_empty(const struct rc_drift_set *s)
{
    for (size_t k = 0; k < RC_DRIFT_MAX_RULES / 64; k++)
        if (s->w[k] != 0)
            return false;
    return true;
}

#define RC_DRIFT_ROLE(r) (1u << (r))
#define RC_DRIFT_CONTAINERS                                                    \
    (RC_DRIFT_ROLE(RC_ROLE_PROXY) | RC_DRIFT_ROLE(RC_ROLE_KEEPER) |            \
     RC_DRIFT_ROLE(RC_ROLE_AGENT) | RC_DRIFT_ROLE(RC_ROLE_GATEWAY))
#define RC_DRIFT_VOLUMES                                                       \
    (RC_DRIFT_ROLE(RC_ROLE_WORKSPACE) | RC_DRIFT_ROLE(RC_ROLE_GIT) |           \
     RC_DRIFT_ROLE(RC_ROLE_CONFIG) | RC_DRIFT_ROLE(RC_ROLE_SCRATCH) |          \
     RC_DRIFT_ROLE(RC_ROLE_KEY))
#define RC_DRIFT_ANY                                                           \
    (RC_DRIFT_ROLE(RC_ROLE_NETWORK) | RC_DRIFT_CONTAINERS | RC_DRIFT_VOLUMES)

/* One rule of the table. Static, read-only. */
struct rc_drift_rule {
    const char *id;   /* stable: "container.restart-policy" */
    unsigned roles;   /* RC_DRIFT_ROLE() bits it applies to */
    const char *path; /* inspect path, dotted: "HostConfig.RestartPolicy" */
    const char *want; /* JSON pointer into the create body, or NULL */
    const char *def;  /* JSON text shown when the body leaves it out */
    enum rc_drift_cmp cmp;
    const char *expected; /* for the doc: what must hold */
    const char *why;      /* for the doc: why it matters */
};

/* What the controller recorded for the object. Everything is borrowed. */
struct rc_drift_expect {
    const char *id;         /* containers, network: ID recorded at create */
    const char *created_at; /* volumes: CreatedAt recorded at create, or
                               NULL to skip volume.created-at: pass it only
                               while no container holds the volume (a
                               mounted tmpfs volume's CreatedAt is the ctime
                               of its root, which moves on writes) */
    /* containers */
    const char *image_id;        /* .Image recorded at create */
    const char *pinned_image;    /* the ID the role's image was pinned to
                                    at capture (agent: status.imageID;
                                    proxy, keeper: status.helperImages),
                                    or NULL for a helper of an attempt
                                    captured before helpers were pinned
                                    (container.image-pinned skipped) */
    const cJSON *image_config;   /* Config of GET /images/<image_id>/json:
                                    Env, Labels, Entrypoint, Cmd, User,
                                    WorkingDir fill what the body leaves out */
    const char *const *networks; /* NetworkSettings.Networks keys; n == 0:
                                    proxy {internal, egress}, agent
                                    {internal}, keeper {"none"} */
    size_t n_networks;
    const char *internal_ip;      /* proxy, agent: recorded address on the
                                     internal network; NULL = d's proxy_ip or
                                     agent_ip */
    const char *cgroupns_default; /* CgroupnsMode when the body has none;
                                     NULL = "host" (20.10, cgroup v1) */
    /* network: container IDs that may be attached right now ({proxy}
     * before the agent runs, {proxy, agent} while it runs, plus a running
     * probe), and the subset that must be (running, so listed). */
    const char *const *allowed;
    size_t n_allowed;
    const char *const *required;
    size_t n_required;
    /* agent: a warm box's waiting agent before its claim
     * (rc_desired_wait): it must still be running its launcher's wait
     * (container.waiting). false: that rule is skipped (an agent that
     * took its order may exit). */
    bool waiting;
    struct rc_drift_set disabled_rules; /* rule i skipped; empty in
                                           production */
};

/* The first drift found, in table order, and which rules found any. */
struct rc_drift_report {
    const char *rule; /* rule ID (static) */
    enum rc_role role;
    char object[RC_NAME_MAX];
    char field[RC_DRIFT_FIELD_MAX];    /* "HostConfig.RestartPolicy.Name" */
    char expected[RC_DRIFT_VALUE_MAX]; /* short JSON text */
    char observed[RC_DRIFT_VALUE_MAX]; /* short JSON text */
    char message[RC_DRIFT_MSG_MAX];    /* one line, for the condition */
    struct rc_drift_set drifted;       /* rule i found drift */
    unsigned count;                    /* rules that found drift */
};

/* Check one object of role `role` (its inspect result) against d and the
 * record x. Returns 0 when nothing differs, 1 on drift (out filled:
 * details of the first rule in table order that found drift, plus the bit
 * of every rule that did), -1 on a bad argument (NULL d/inspect/x/out, a
 * role d has no object for, an inspect that is not a JSON object, a
 * container or network without x->id, a container without x->image_id or
 * x->image_config) or out of memory. Values in the
 * report never hold the credential: the agent's Env is reported by key
 * only and every string is scrubbed of d's secret. */
int rc_drift_check(const struct rc_desired *d, enum rc_role role,
                   const cJSON *inspect, const struct rc_drift_expect *x,
                   struct rc_drift_report *out);

/* The object's recorded ID (a volume: its name) answered 404. by_name is
 * the inspect of what Docker has under the object's name now (GET by
 * name), or NULL when nothing is there (always NULL for a volume, which
 * is inspected by name already). Something under the name whose Id is
 * not the recorded one is a stand-in: the role's ID rule (network.id,
 * container.id), expected the recorded ID, observed the stand-in's, and
 * nothing else is checked (whatever it copied, it is not ours). Nothing
 * there is object.gone. Returns 1 with out filled as by rc_drift_check(),
 * 0 when nothing is reported: the rule that applies is switched off in
 * x->disabled_rules, or by_name's Id is the recorded one after all (the
 * caller then checks by_name with rc_drift_check() as usual), -1 on a bad
 * argument (NULL d/x/out, a role d has no object for, by_name not a JSON
 * object or given for a volume, a container or network without x->id) or
 * out of memory. */
int rc_drift_check_missing(const struct rc_desired *d, enum rc_role role,
                           const cJSON *by_name,
                           const struct rc_drift_expect *x,
                           struct rc_drift_report *out);

/* The attempt's containers, by role (RC_ROLE_PROXY, RC_ROLE_KEEPER,
 * RC_ROLE_AGENT; NULL or "" when not recorded), plus its probe: every ID a
 * container of the attempt has. Borrowed. */
struct rc_drift_neighbours {
    const char *container_ids[RC_ROLE_COUNT];
};

/* Judge a container that is not the attempt's (other: its entry of
 * GET /containers/json, or its inspect): it must not join a namespace of
 * one of ours (HostConfig NetworkMode, PidMode or IpcMode
 * "container:<our ID>"; container.joined, reported on the joined role) nor
 * mount one of d's volumes (Mounts[].Name; volume.foreign-mount, reported
 * on the volume's role). A list entry has NetworkMode and Mounts only;
 * PidMode and IpcMode need the inspect (rc_drift_neighbour_needs_inspect).
 * Returns 1 with out filled, 0 when it touches nothing of ours (or the
 * rule that would report it is set in disabled_rules), -1 on a bad
 * argument or out of memory. The report is scrubbed of d's secret as
 * rc_drift_check()'s is: other is the daemon's reply, and the mount path
 * in it is whatever the other container's creator wrote. */
int rc_drift_check_neighbour(const struct rc_desired *d, const cJSON *other,
                             const struct rc_drift_neighbours *ours,
                             const struct rc_drift_set *disabled_rules,
                             struct rc_drift_report *out);

/* other is a list entry without PidMode/IpcMode: inspect it to judge it. */
bool rc_drift_neighbour_needs_inspect(const cJSON *other);

/* The rule table: count, rule i (NULL when i is out of range), its ID
 * (NULL likewise), and the index of an ID (-1 when unknown). The bit of
 * rule i in disabled_rules and in rc_drift_report.drifted is member i. */
size_t rc_drift_rule_count(void);
const struct rc_drift_rule *rc_drift_rule_at(size_t i);
const char *rc_drift_rule_id(size_t i);
int rc_drift_rule_by_id(const char *id);

#endif
