/* rc_desired.h - what one AgentInvocation attempt becomes in Docker
 * (docs/design.md "What one invocation becomes"), as a pure function of the
 * spec, the controller config and what the controller knew when it
 * captured the attempt.
 *
 * Each object is its name plus the exact Engine API create body (cJSON).
 * That body is the one statement of the desired state: the apply step
 * sends it as is and the drift checker compares inspect results with it
 * (rc_json_at() reads a field by JSON pointer), so there is no second copy
 * of any value to fall out of step.
 *
 * Objects, in creation order (deletion is the reverse):
 *   network   agentctl-<name>-<uid8>-net      POST /networks/create
 *   proxy     agentctl-<name>-<uid8>-proxy    POST /containers/create?name=
 *             then POST /networks/<egress>/connect (rc_desired_egress_connect)
 *   workspace agentctl-<name>-<uid8>-ws       POST /volumes/create (only when
 *                                             the spec has a workspace)
 *   git       agentctl-<name>-<uid8>-git      POST /volumes/create (only when
 *                                             the workspace has a .git)
 *   config    agentctl-<name>-<uid8>-cfg      POST /volumes/create (only for
 *                                             a prompt whose adapter writes
 *                                             config files)
 *   scratch   agentctl-<name>-<uid8>-scratch  POST /volumes/create
 *   keeper    agentctl-<name>-<uid8>-keeper   POST /containers/create?name=
 *   agent     agentctl-<name>-<uid8>-agent    POST /containers/create?name=
 * and for a vendor in credentialMode gateway (docs/gateway.md):
 *   gateway   agentctl-<name>-<uid8>-gateway  POST /containers/create?name=
 *             then POST /networks/<egress>/connect, like the proxy
 *   key       agentctl-<name>-<uid8>-gwkey    POST /volumes/create: the
 *             credential, 0400 for the gateway's user only, written
 *             through the keeper (which mounts it read-write) and mounted
 *             read-only in the gateway alone
 * Every object carries exactly the labels agentctl.dev/managed-by,
 * invocation, uid, attempt and role.
 *
 * Addresses: invocation number `index` gets the index-th /24 of the
 * config's subnetPool: network .0/24, gateway .1 (reserved by Docker's
 * IPAM; with inhibit_ipv4 the host does not hold it), proxy .2, agent .3,
 * the boundary probe .4 (rc_probe.h), the credential gateway .5.
 *
 * How inspect echoes these bodies (checked against dockerd 20.10, API
 * 1.41, by creating and running all six objects): container fields come
 * back under Config.* (Image as given, Labels, Env, Entrypoint, User,
 * WorkingDir, ...), HostConfig.* verbatim, the endpoint under
 * NetworkSettings.Networks.<net>.IPAMConfig, volume DriverOpts under
 * Options, network fields at the top. Exceptions a comparison must allow
 * for: network CheckDuplicate is not echoed (create-only);
 * HostConfig.Mounts[] leaves out "ReadOnly": false; Config.Env gains the
 * image's variables (PATH).
 *
 * The agent's command: the spec's argv is the container's Entrypoint (and
 * Cmd is left out), so the argv runs exactly as written, as Kubernetes
 * `command` does; an image ENTRYPOINT is not put in front of it. For a
 * `prompt` spec the vendor's adapter (rc_adapter.h) builds that argv, its
 * extra env and its config files, which the controller uploads into the
 * config volume (read-only in the agent at RC_ADAPTER_CONFIG_DIR).
 *
 * Git metadata: when the workspace had a .git directory at capture, it
 * travels in a volume of its own (the workspace's limits) mounted at
 * /work/.git, read-only in the agent in every phase: a mount point
 * cannot be renamed or removed, and nothing under it can be written.
 */
#ifndef RC_DESIRED_H
#define RC_DESIRED_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "cfg.h"
#include "err.h"
#include "rc_adapter.h"
#include "rec_roles.h"
#include "spec.h"

/* enum rc_role and enum rc_helper: model/rec_roles.h */

/* Where the git metadata is mounted, read-only in the agent always. */
#define RC_GIT_TARGET "/work/.git"
/* The adapter's config volume: a few text files and the launcher. */
#define RC_CONFIG_BYTES  (4ull << 20) /* agent-launch is about 0.8 MiB */
/* ... and as an attempt an older version captured has it (no launcher) */
#define RC_CONFIG_BYTES_UNLAUNCHED (1ull << 20)
#define RC_CONFIG_INODES 64

enum rc_kind {
    RC_KIND_NETWORK,
    RC_KIND_VOLUME,
    RC_KIND_CONTAINER,
};

#define RC_NAME_MAX 128 /* "agentctl-" + 63 + "-" + 8 + "-scratch" fits */
#define RC_IP_MAX   16  /* "255.255.255.255" */
#define RC_CIDR_MAX 19  /* "255.255.255.255/32" */
#define RC_USER_MAX 24 /* "uid:gid", numeric */
#define RC_URL_MAX  40  /* "http://255.255.255.255:65535" */

#define RC_IMAGE_REF_MAX 256 /* an image reference: the config allows 255 */

/* Label keys put on every object. */
#define RC_LABEL_MANAGED_BY "agentctl.dev/managed-by"
#define RC_LABEL_INVOCATION "agentctl.dev/invocation"
#define RC_LABEL_UID        "agentctl.dev/uid"
#define RC_LABEL_ATTEMPT    "agentctl.dev/attempt"
#define RC_LABEL_ROLE       "agentctl.dev/role"

/* Modest fixed limits for the helper containers. */
#define RC_PROXY_MEMORY  (64ull << 20)
#define RC_PROXY_PIDS    128
#define RC_KEEPER_MEMORY (16ull << 20) /* Docker's floor is 6 MB */
#define RC_KEEPER_PIDS   16
#define RC_PROXY_USER    "65534:65534" /* nobody: owns nothing */

/* The credential gateway (docs/gateway.md): where it listens on the
 * internal network, where its key file is mounted, the file's name, and
 * the placeholder the agent's CLI sees where it insists on a key. */
#define RC_GATEWAY_HOST_OCTET  5
#define RC_GATEWAY_PORT        8080
#define RC_GATEWAY_KEY_DIR     "/run/agentctl/gateway"
#define RC_GATEWAY_KEY_FILE    "api-key"
#define RC_GATEWAY_CA_FILE     "ca.pem" /* gateway.caFile, beside the key */
#define RC_GATEWAY_UID         65534u /* the gateway's user owns the key */
#define RC_GATEWAY_KEY_BYTES   (64ull << 10)
#define RC_GATEWAY_KEY_INODES  8
#define RC_GATEWAY_PLACEHOLDER "agentctl-gateway-holds-the-key"

/* The helper images of an attempt: what runs beside the agent. Each is
 * inspected at capture and its containers are created from the ID then
 * (status.helperImages), never from the config's tag, which can be moved
 * to another image at any time. */
/* The config's reference (tag) of the helper image: borrowed from cfg. */
const char *rc_helper_tag(const struct cfg *cfg, enum rc_helper h);
/* The helper of a container role (proxy, keeper, gateway), or -1. */
int rc_helper_of_role(enum rc_role role);
/* Whether an attempt of vendor v runs helper h: every one but the
 * gateway always, the gateway only in credentialMode gateway. */
bool rc_helper_needed(const struct cfg_vendor *v, enum rc_helper h);

/* A warm box (docs/warm-pool.md): an internal network and a proxy made
 * ahead under an identity of their own. Borrowed. */
struct rc_box {
    const char *owner;   /* the invocation label: "pool.<vendor>", which no
                            AgentInvocation can have (a DNS-1123 label has
                            no dot) */
    const char *uid;     /* the box's own uid, [a-z0-9-], >= 8 */
    const char *attempt; /* the box's attempt label */
};

/* What the controller knows when it captures an attempt. Borrowed. */
struct rc_inputs {
    const char *controller_id;  /* [A-Za-z0-9._-], 1..63 */
    const char *uid;            /* invocation uid; [a-z0-9-], >= 8, <= 64 */
    const char *image_id;       /* pinned agent image, "sha256:<64 hex>" */
    /* Pinned helper images, "sha256:<64 hex>" each, or all NULL for an
     * attempt an older version captured (no status.helperImages): its
     * helpers are created from the config's tags, as they were. */
    const char *helper_image_ids[RC_HELPER_COUNT];
    unsigned subnet_index;      /* < rc_subnet_count(cfg) */
    const char *credential;     /* value of spec.credential, NULL if none */
    const char *egress_network; /* NULL = cfg->egress_network */
    bool git_metadata; /* the workspace had a .git directory at capture */
    bool apparmor;     /* the daemon has AppArmor (GET /info): every
                          container gets apparmor=docker-default */
    bool legacy_bodies; /* the attempt was captured by a version whose
                           bodies left Docker's defaults out (no
                           plan/rc_harden.c fields, volumes without
                           nosuid,nodev): build them so, or its running
                           boxes would all be drift */
    bool forwarding_unstated; /* captured by a version whose proxy and
                                 gateway bodies left net.ipv4.ip_forward
                                 out: build them so, or their running
                                 boxes would be drift */
    /* the agent's "uid:gid" recorded at capture (rc_agent_user_for);
     * NULL: the config's agentUser (an attempt an older version captured
     * ran as it) */
    const char *agent_user;
    bool unlaunched; /* captured by a version whose agent ran the vendor
                        CLI without agent-launch (status.launcher unset):
                        build it so, for the same reason */
    bool result_unread; /* captured by a version that read no result
                           (status.resultChannel unset): codex without
                           --output-last-message, for the same reason */
    /* The warm box the attempt took: its network and proxy are named
     * agentctl-<owner>-<box uid8>-net and -proxy and carry the box's
     * labels; every other object keeps the invocation's. NULL: none. */
    const struct rc_box *box;
};

struct rc_object {
    enum rc_role role;
    enum rc_kind kind;
    char name[RC_NAME_MAX];
    cJSON *body;    /* create request body; owned by the rc_desired */
    bool sensitive; /* body holds the credential: print or store only
                       rc_desired_redacted_json() */
};

struct rc_desired {
    struct rc_object objects[RC_ROLE_COUNT]; /* by role; body NULL = none */
    char prefix[RC_NAME_MAX];                /* agentctl-<name>-<uid8> */
    char egress_network[RC_NAME_MAX];
    char subnet[RC_CIDR_MAX];
    char gateway[RC_IP_MAX];
    char proxy_ip[RC_IP_MAX];
    char agent_ip[RC_IP_MAX];
    char proxy_url[RC_URL_MAX]; /* HTTPS_PROXY value */
    /* credentialMode gateway: the gateway's address and the base URL the
     * agent's CLI is pointed at ("" otherwise) */
    char gateway_ip[RC_IP_MAX];
    char gateway_url[RC_URL_MAX];
    /* the agent's and keeper's user (rc_inputs agent_user), numeric */
    char agent_user[RC_USER_MAX];
    uint32_t agent_uid, agent_gid;
    char *secret;               /* private copy for redaction; may be NULL */
    char *gateway_ca;           /* the vendor's gateway.caFile bundle, for
                                   the key volume; NULL: none */
    struct rc_adapter_out *adapter; /* prompt specs: argv, files, policy */
    /* What each helper container is created from: the pinned ID, or the
     * config's tag for an attempt captured before helpers were pinned. */
    char helper_images[RC_HELPER_COUNT][RC_IMAGE_REF_MAX];
    bool helpers_pinned; /* helper_images are the pinned IDs */
    /* A waiting agent (rc_desired_wait): the order the claim writes; the
     * agent body is then the waiting container's. NULL: none. */
    cJSON *order;
};

/* Build every object of one attempt. The spec must have passed
 * cfg_admit() (it is checked again here). Returns NULL with e set
 * (ERR_INVALID naming the input) on a bad input or a prompt spec,
 * ERR_NOMEM when out of memory. Free with rc_desired_free(). */
struct rc_desired *rc_desired_build(const struct spec_invocation *inv,
                                    const struct cfg *cfg,
                                    const struct rc_inputs *in, struct err *e);

/* Zero the credential copy and free everything. NULL is a no-op. */
void rc_desired_free(struct rc_desired *d);

/* The object of a role, or NULL when this attempt has none (workspace
 * without spec.workspace). Borrowed while d lives. */
const struct rc_object *rc_desired_object(const struct rc_desired *d,
                                          enum rc_role role);

/* The create body of the egress network every proxy of the controller
 * joins (a plain bridge, labelled role=egress), made when missing.
 * Caller deletes. */
cJSON *rc_egress_network_body(const char *name);

/* A new body for POST /networks/<d->egress_network>/connect that joins
 * the created proxy or gateway (its ID) to the egress network after
 * create (API 1.41 takes one network at create: docs/docker-notes.md
 * section 2). Caller deletes. NULL when out of memory. */
cJSON *rc_desired_egress_connect(const struct rc_desired *d,
                                 const char *container_id);

/* The key file as a tar archive for RC_GATEWAY_KEY_DIR: one entry
 * RC_GATEWAY_KEY_FILE, owner RC_GATEWAY_UID, mode 0400, holding the
 * credential, and with the vendor's gateway.caFile a second,
 * RC_GATEWAY_CA_FILE, mode 0444. The caller sends it through the keeper and wipes it
 * (explicit_bzero) before freeing. -1 with e set when d has no key
 * volume or out of memory. */
struct buf;
int rc_desired_key_tar(const struct rc_desired *d, struct buf *out,
                       struct err *e);

/* ---- the waiting agent of a warm box (rc_desired_warm.c) ----------------
 * docs/warm-pool.md "The waiting agent". The agent container is created
 * and started before the claim, in agent-launch's wait mode
 * (images/launch_order.h); what is fixed at create stays in its body
 * (image, user, mounts, limits, hardening, network), what the spec says
 * at the claim (argv, env, workdir) goes into one order file that the
 * claim writes through the keeper into the config volume, which the
 * agent mounts read-only. A nonce fixed at create (its Entrypoint and
 * label) must be in the order. */
#define RC_ORDER_FILE_NAME   "order.json"
#define RC_ORDER_FILE        RC_ADAPTER_CONFIG_DIR "/" RC_ORDER_FILE_NAME
#define RC_ORDER_MAX         (64 * 1024) /* the launcher's bound */
#define RC_ORDER_NONCE_MIN   32 /* lowercase hex digits */
#define RC_ORDER_NONCE_MAX   128
#define RC_LABEL_ORDER_NONCE "agentctl.dev/order-nonce"

/* Make d's agent the waiting container: its body's Entrypoint becomes the
 * launcher in wait mode (--wait RC_ORDER_FILE --order-nonce nonce
 * --wait-seconds seconds), its Env none of ours or
 * the spec's, its WorkingDir /tmp, and its labels gain
 * RC_LABEL_ORDER_NONCE; every other field stays as built. d->order gets
 * what the ordinary body ran: the argv after the launcher's "--", the
 * Env, the WorkingDir, and the text of the policy file it read
 * (RC_LAUNCH_POLICY among the adapter's files). -1 with e (ERR_INVALID)
 * when the agent does not start in the launcher (a command spec, an attempt an older version
 * captured), the nonce is not 32-128 lowercase hex digits, seconds is 0
 * or over a day, or it was done already; ERR_NOMEM. Pure. */
int rc_desired_wait(struct rc_desired *d, const char *nonce, unsigned seconds,
                    struct err *e);

/* d->order as the tar archive for RC_ADAPTER_CONFIG_DIR (through the
 * keeper): one entry RC_ORDER_FILE_NAME, owned by the agent's uid, mode
 * 0400. The caller wipes it (explicit_bzero) before freeing: in
 * credentialMode env the order's env holds the key. ERR_INVALID without
 * an order, ERR_LIMIT over RC_ORDER_MAX. (rc_gateway_key.c) */
int rc_desired_order_tar(const struct rc_desired *d, struct buf *out,
                         struct err *e);

/* The body of a role as compact JSON with the credential replaced by
 * "<redacted>" (the Env entry keeps its name: "KEY=<redacted>"; any other
 * string holding the value becomes "<redacted>"). Use it for everything
 * printed, logged or stored. Caller frees; NULL when the role has no
 * object or out of memory. */
char *rc_desired_redacted_json(const struct rc_desired *d, enum rc_role role);

/* The same for any JSON (e.g. an inspect result of the agent). */
char *rc_desired_redact(const struct rc_desired *d, const cJSON *json);

/* "-net", "-proxy", "-ws", "-git", "-cfg", "-scratch", "-keeper",
 * "-agent", "-gateway", "-gwkey". */
const char *rc_role_suffix(enum rc_role role);

/* Network, container or volume. */
enum rc_kind rc_role_kind(enum rc_role role);

/* All RC_ROLE_COUNT roles in creation order (network, proxy, workspace,
 * git, config, gateway-key, scratch, keeper, gateway, agent), or in deletion
 * order (the reverse) when `deletion` is true. Static; skip roles
 * without an object. */
const enum rc_role *rc_role_order(bool deletion);

/* How many /24 subnets the config's pool holds (2^(24 - prefix)). */
unsigned rc_subnet_count(const struct cfg *cfg);

/* The addresses of invocation number `index` (see above). Returns -1 with
 * ERR_LIMIT when index >= rc_subnet_count(cfg). */
int rc_subnet_for(const struct cfg *cfg, unsigned index,
                  char cidr[RC_CIDR_MAX], char gateway[RC_IP_MAX],
                  char proxy_ip[RC_IP_MAX], char agent_ip[RC_IP_MAX],
                  struct err *e);

/* The agent's (and keeper's) "uid:gid" for the attempt on subnet number
 * index: the config's agentUser when it sets one, else a uid of its own,
 * agentUidBase + the /24's network number (its address >> 8) (the same number as
 * gid). Recorded at capture (status.agentUser). -1 with ERR_LIMIT for an
 * index outside the pool. */
int rc_agent_user_for(const struct cfg *cfg, unsigned index,
                      char out[RC_USER_MAX], struct err *e);

/* Address .octet (1..254) of d's /24 (the probe's, the gateway's). -1
 * when the subnet is unusable. */
int rc_subnet_host(const struct rc_desired *d, unsigned octet,
                   char ip[RC_IP_MAX]);

/* The value at an RFC 6901 JSON pointer ("/HostConfig/CapDrop/0", "~1"
 * for '/' in a key: "/Labels/agentctl.dev~1role"), or NULL. "" is root. */
const cJSON *rc_json_at(const cJSON *root, const char *pointer);

/* One expected value: the field at `pointer` of role's body equals the
 * JSON text `json` (NULL: the field must be absent). */
struct rc_golden {
    enum rc_role role;
    const char *pointer;
    const char *json;
};

/* Check the entries of table whose role is `role` against body. Returns
 * the first entry that does not hold (and says why in why[]), or NULL
 * when all hold. */
const struct rc_golden *rc_golden_check(enum rc_role role, const cJSON *body,
                                        const struct rc_golden *table, size_t n,
                                        char *why, size_t why_size);

/* The same for every entry against d's bodies (an entry for a role that
 * has no object fails). */
const struct rc_golden *rc_desired_check_golden(const struct rc_desired *d,
                                                const struct rc_golden *table,
                                                size_t n, char *why,
                                                size_t why_size);

#endif
