/* rc_desired.c - build the Engine API create bodies of one attempt from
 * the spec, the controller config and the capture-time inputs. Pure: no
 * Docker, no I/O, same inputs -> same JSON.
 *
 * Every hardening field carries its reason beside it; docs/docker-notes.md
 * holds the measurements behind them. The bodies are the single statement
 * of the desired state (rc_desired.h).
 */
#include "rc_desired.h"
#include "rc_desired_int.h"
#include "http_rule.h"
#include "rc_harden.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RC_MAX_EXACT (1ull << 53) /* largest integer a JSON double holds */

void
rc_ok(struct rc_build *b, const void *p)
{
    if (p == NULL)
        b->nomem = 1;
}

void
rc_str(struct rc_build *b, cJSON *o, const char *k, const char *v)
{
    rc_ok(b, cJSON_AddStringToObject(o, k, v));
}

static void
rc_bool(struct rc_build *b, cJSON *o, const char *k, bool v)
{
    rc_ok(b, cJSON_AddBoolToObject(o, k, v));
}

void
rc_num(struct rc_build *b, cJSON *o, const char *k, uint64_t v)
{
    rc_ok(b, cJSON_AddNumberToObject(o, k, (double)v));
}

static cJSON *
rc_obj(struct rc_build *b, cJSON *o, const char *k)
{
    cJSON *c = cJSON_AddObjectToObject(o, k);

    rc_ok(b, c);
    return c;
}

/* An array of strings under key k. */
cJSON *
rc_strs(struct rc_build *b, cJSON *o, const char *k, const char *const *v,
        size_t n)
{
    cJSON *a = cJSON_AddArrayToObject(o, k);

    rc_ok(b, a);
    for (size_t i = 0; a != NULL && i < n; i++) {
        cJSON *s = cJSON_CreateString(v[i]);

        rc_ok(b, s);
        if (s != NULL)
            cJSON_AddItemToArray(a, s);
    }
    return a;
}

/* ---- inputs -------------------------------------------------------------- */

static bool
rc_chars_ok(const char *s, const char *extra, size_t lo, size_t hi)
{
    size_t n = s ? strlen(s) : 0;

    if (n < lo || n > hi)
        return false;
    for (; *s != '\0'; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              strchr(extra, *s) != NULL))
            return false;
    return true;
}

/* "sha256:<64 lower-case hex>": an image ID, which names its content. */
static bool
rc_image_id_ok(const char *id)
{
    return id != NULL && strncmp(id, "sha256:", 7) == 0 &&
           rc_chars_ok(id + 7, "", 64, 64) &&
           strpbrk(id + 7, "ghijklmnopqrstuvwxyz") == NULL;
}

/* The vendor's API is reached through a gateway of the attempt's own
 * (docs/gateway.md), which holds the spec's credential, if any: the agent
 * never does. A spec without one still gets its gateway (--no-credential):
 * the rules and the request policy govern the vendor's door either way. */
bool
rc_gateway_mode(const struct rc_build *b)
{
    return rc_helper_needed(b->vendor, RC_HELPER_GATEWAY);
}

static int
rc_check_inputs(const struct rc_build *b, struct err *e)
{
    const struct rc_inputs *in = b->in;
    const struct spec_invocation *inv = b->inv;

    /* The ID goes into label filters and object names: keep it plain. */
    if (!rc_chars_ok(in->controller_id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ._-", 1, 63))
        return err_set(e, ERR_INVALID,
                       "controller ID must be 1-63 of [A-Za-z0-9._-]");
    if (!rc_chars_ok(in->uid, "-", 8, 64) || in->uid[0] == '-')
        return err_set(e, ERR_INVALID,
                       "invocation uid must be 8-64 of [a-z0-9-]");
    /* the box's identity goes into names and labels like the uid */
    if (in->box != NULL && (!rc_chars_ok(in->box->owner, ".-", 1, 70) ||
                            !rc_chars_ok(in->box->uid, "-", 8, 64) ||
                            !rc_chars_ok(in->box->attempt, ".-_", 1, 63)))
        return err_set(e, ERR_INVALID,
                       "warm box identity must be of [a-z0-9.-_]");
    /* Never a tag: a tag can be moved to another image after capture. */
    if (!rc_image_id_ok(in->image_id))
        return err_set(e, ERR_INVALID,
                       "agent image must be pinned as sha256:<64 hex>, not "
                       "a tag");
    /* The gateway's image is pinned only for a vendor that runs one: a
     * vendor switched to gateway mode after the capture has none. */
    if (rc_helper_needed(b->vendor, RC_HELPER_GATEWAY) &&
        in->helper_image_ids[0] != NULL &&
        in->helper_image_ids[RC_HELPER_GATEWAY] == NULL)
        return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0,
                          "spec.vendor",
                          "vendor \"%s\" uses credentialMode gateway, but "
                          "this attempt was captured without a gateway (the "
                          "config changed since): start a new attempt",
                          inv->vendor);
    /* ... and the other way: built in env mode now, the agent's body
     * would carry the key that the attempt was captured to keep out */
    if (!rc_helper_needed(b->vendor, RC_HELPER_GATEWAY) &&
        in->helper_image_ids[RC_HELPER_GATEWAY] != NULL)
        return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0,
                          "spec.vendor",
                          "vendor \"%s\" uses credentialMode env, but this "
                          "attempt was captured with a gateway (the config "
                          "changed since): start a new attempt",
                          inv->vendor);
    for (int h = 0; h < RC_HELPER_COUNT; h++)
        if ((rc_helper_needed(b->vendor, (enum rc_helper)h) &&
             (in->helper_image_ids[h] != NULL) !=
                 (in->helper_image_ids[0] != NULL)) ||
            (in->helper_image_ids[h] != NULL &&
             !rc_image_id_ok(in->helper_image_ids[h])))
            return err_set(e, ERR_INVALID,
                           "helper images must all be pinned as "
                           "sha256:<64 hex> (or none, for an attempt "
                           "captured before they were): %s",
                           rc_helper_name((enum rc_helper)h));
    if ((inv->credential == NULL) != (in->credential == NULL))
        return err_set(e, ERR_INVALID,
                       "spec.credential and the credential value must be "
                       "given together");
    if (in->credential != NULL && in->credential[0] == '\0')
        return err_set(e, ERR_INVALID, "the credential value is empty");
    if (in->credential != NULL && rc_gateway_mode(b)) {
        const char *why =
            http_key_check(in->credential, strlen(in->credential));

        if (why != NULL)
            return err_set_at(e, ERR_INVALID, inv->file, inv->line, 0,
                              "spec.credential",
                              "%s: %s, which the gateway (credentialMode "
                              "gateway) sends in a header",
                              inv->credential, why);
    }
    if (in->egress_network != NULL &&
        !rc_chars_ok(in->egress_network, "ABCDEFGHIJKLMNOPQRSTUVWXYZ._-", 1,
                     64))
        return err_set(e, ERR_INVALID, "bad egress network name");
    if (inv->memory_bytes > RC_MAX_EXACT || inv->scratch_bytes > RC_MAX_EXACT ||
        inv->workspace_bytes > RC_MAX_EXACT ||
        inv->millicpus > RC_MAX_EXACT / 1000000)
        return err_set(e, ERR_INVALID, "a resource value is too large");
    return 0;
}

/* ---- shared pieces ---------------------------------------------------- */

/* The roles a warm box brings: they carry the box's identity. */
static bool
rc_box_role(const struct rc_inputs *in, enum rc_role role)
{
    return in->box != NULL &&
           (role == RC_ROLE_NETWORK || role == RC_ROLE_PROXY);
}

/* Exactly the five labels docs/design.md names: GC and adoption find objects by
 * them, so nothing else may vary. */
static cJSON *
rc_labels(struct rc_build *b, cJSON *o, enum rc_role role)
{
    cJSON *l = rc_obj(b, o, "Labels");
    const struct rc_box *box = rc_box_role(b->in, role) ? b->in->box : NULL;

    rc_str(b, l, RC_LABEL_MANAGED_BY, b->in->controller_id);
    rc_str(b, l, RC_LABEL_INVOCATION, box ? box->owner : b->inv->name);
    rc_str(b, l, RC_LABEL_UID, box ? box->uid : b->in->uid);
    rc_str(b, l, RC_LABEL_ATTEMPT, box ? box->attempt : b->inv->attempt);
    rc_str(b, l, RC_LABEL_ROLE, rc_role_name(role));
    return l;
}

/* Config fields of every container: no terminal, stdin closed, and a
 * short stop so cleanup never waits Docker's default 10 s. */
void
rc_container_config(struct rc_build *b, cJSON *c, enum rc_role role)
{
    rc_labels(b, c, role);
    rc_bool(b, c, "Tty", false);       /* logs stay multiplexed (notes s7) */
    rc_bool(b, c, "OpenStdin", false); /* stdin closed */
    rc_bool(b, c, "AttachStdin", false);
    rc_bool(b, c, "StdinOnce", false);
    rc_num(b, c, "StopTimeout", 2); /* Init passes SIGTERM; then SIGKILL */
}

/* HostConfig fields every container shares. */
cJSON *
rc_host_config(struct rc_build *b, cJSON *c, enum rc_role role,
               const char *network_mode, uint64_t memory, uint64_t pids,
               const char *log_size, const char *log_files)
{
    static const char *const cap_drop[] = { "ALL" };
    static const char *const sec_opt[] = { "no-new-privileges" };
    cJSON *hc = rc_obj(b, c, "HostConfig"), *rp, *lc, *lo;

    rc_str(b, hc, "NetworkMode", network_mode);
    /* docker-init as PID 1: reaps orphans (zombies would fill PidsLimit)
     * and ends the process on SIGTERM (docs/docker-notes.md section 3). */
    rc_bool(b, hc, "Init", true);
    rc_bool(b, hc, "Privileged", false);    /* no devices, no full caps */
    rc_strs(b, hc, "CapDrop", cap_drop, 1); /* no capability at all */
    rc_bool(b, hc, "ReadonlyRootfs", true); /* only the volumes are writable */
    /* setuid binaries in the image cannot raise privileges. */
    rc_strs(b, hc, "SecurityOpt", sec_opt, 1);
    /* Restarting is the controller's decision, never the daemon's. */
    rp = rc_obj(b, hc, "RestartPolicy");
    rc_str(b, rp, "Name", "no");
    rc_num(b, rp, "MaximumRetryCount", 0);
    rc_str(b, hc, "IpcMode", "private"); /* no shared IPC namespace */
    /* Port bindings are latent on internal networks and go live on a
     * later connect (docs/docker-notes.md section 4): none, ever. */
    rc_ok(b, cJSON_AddObjectToObject(hc, "PortBindings"));
    rc_bool(b, hc, "PublishAllPorts", false);
    /* Memory == MemorySwap: no swap beyond the limit. */
    rc_num(b, hc, "Memory", memory);
    rc_num(b, hc, "MemorySwap", memory);
    rc_num(b, hc, "PidsLimit", pids); /* fork bombs stop here */
    /* Logs live on the host's disk: bound them. The "local" driver keeps
     * the bytes as written; json-file rewrites invalid UTF-8 to U+FFFD,
     * which would hide exactly what the capture must refuse
     * (capture-failure). */
    lc = rc_obj(b, hc, "LogConfig");
    rc_str(b, lc, "Type", "local");
    lo = rc_obj(b, lc, "Config");
    rc_str(b, lo, "max-size", log_size);
    rc_str(b, lo, "max-file", log_files);
    /* "local" compresses rotated files by default, which it refuses with a
     * single file. */
    rc_str(b, lo, "compress", "false");
    /* Docker's defaults, stated so that a drift rule compares each. */
    if (hc != NULL && !b->in->legacy_bodies &&
        rc_harden_host_config(hc, role, b->in->apparmor,
                              b->in->forwarding_unstated) == -1)
        b->nomem = 1;
    return hc;
}

/* One endpoint only: API 1.41 refuses two at create (docs/docker-notes.md
 * section 2), and a static address so the proxy URL is known in advance. */
void
rc_one_endpoint(struct rc_build *b, cJSON *c, const char *ip)
{
    cJSON *nc = rc_obj(b, c, "NetworkingConfig");
    cJSON *ec = rc_obj(b, nc, "EndpointsConfig");
    cJSON *ep = rc_obj(b, ec, b->d->objects[RC_ROLE_NETWORK].name);
    cJSON *ipam = rc_obj(b, ep, "IPAMConfig");

    rc_str(b, ipam, "IPv4Address", ip);
}

/* A volume mount; NoCopy so the volume holds exactly what the controller
 * put there, never files copied up from an image. */
void
rc_mount(struct rc_build *b, cJSON *mounts, enum rc_role vol,
         const char *target, bool read_only)
{
    cJSON *m = cJSON_CreateObject(), *vo;

    rc_ok(b, m);
    if (m == NULL || !cJSON_AddItemToArray(mounts, m)) {
        cJSON_Delete(m);
        b->nomem = 1;
        return;
    }
    rc_str(b, m, "Type", "volume");
    rc_str(b, m, "Source", b->d->objects[vol].name);
    rc_str(b, m, "Target", target);
    rc_bool(b, m, "ReadOnly", read_only);
    vo = rc_obj(b, m, "VolumeOptions");
    rc_bool(b, vo, "NoCopy", true);
}

/* ---- the objects ----------------------------------------------------------
 */

static cJSON *
rc_network_body(struct rc_build *b)
{
    cJSON *n = cJSON_CreateObject(), *ipam, *conf, *sub, *opt;

    rc_ok(b, n);
    rc_str(b, n, "Name", b->d->objects[RC_ROLE_NETWORK].name);
    rc_str(b, n, "Driver", "bridge");
    rc_bool(b, n, "Internal", true); /* no route out but the proxy */
    /* The raw API default is false and a duplicate makes the name
     * ambiguous for every later call (docs/docker-notes.md section 1). */
    rc_bool(b, n, "CheckDuplicate", true);
    rc_bool(b, n, "EnableIPv6", false); /* no second family past the proxy */
    rc_labels(b, n, RC_ROLE_NETWORK);
    /* An explicit subnet: the default pools hold only 31 networks. */
    ipam = rc_obj(b, n, "IPAM");
    rc_str(b, ipam, "Driver", "default");
    conf = cJSON_AddArrayToObject(ipam, "Config");
    rc_ok(b, conf);
    sub = cJSON_CreateObject();
    rc_ok(b, sub);
    if (conf != NULL && sub != NULL)
        cJSON_AddItemToArray(conf, sub);
    else
        cJSON_Delete(sub);
    rc_str(b, sub, "Subnet", b->d->subnet);
    rc_str(b, sub, "Gateway", b->d->gateway);
    /* Internal alone leaves the host reachable at the gateway address;
     * this keeps IPv4 off the bridge (docs/docker-notes.md section 1). */
    opt = rc_obj(b, n, "Options");
    rc_str(b, opt, "com.docker.network.bridge.inhibit_ipv4", "true");
    return n;
}

/* "h1,h2,..." for --allow; caller frees. */
static char *
rc_allow_list(const struct cfg_vendor *v)
{
    size_t len = 1, at = 0;
    char *s;

    for (size_t i = 0; i < v->n_hosts; i++)
        len += strlen(v->hosts[i]) + 1;
    s = malloc(len);
    if (s == NULL)
        return NULL;
    s[0] = '\0';
    for (size_t i = 0; i < v->n_hosts; i++)
        at += (size_t)snprintf(s + at, len - at, "%s%s", i ? "," : "",
                               v->hosts[i]);
    return s;
}

static cJSON *
rc_proxy_body(struct rc_build *b)
{
    cJSON *c = cJSON_CreateObject(), *cmd, *flag;
    char listen[RC_IP_MAX + 8];
    char *allow = rc_allow_list(b->vendor);

    rc_ok(b, c);
    rc_ok(b, allow);
    /* Listen on the internal address only: the egress bridge is shared by
     * every proxy, so no other invocation can borrow this allowlist. */
    snprintf(listen, sizeof(listen), "%s:%u", b->d->proxy_ip,
             (unsigned)b->cfg->proxy_port);
    rc_str(b, c, "Image", b->d->helper_images[RC_HELPER_PROXY]);
    /* In gateway mode the agent's only way to the vendor is the gateway:
     * its proxy lets nothing through (a request past the gateway fails). */
    if (rc_gateway_mode(b))
        cmd = rc_strs(b, c, "Cmd",
                      (const char *const[]){ "--listen", listen, "--deny-all" },
                      3);
    else
        cmd = rc_strs(b, c, "Cmd",
                      (const char *const[]){ "--listen", listen, "--allow",
                                             allow ? allow : "" },
                      4);
    free(allow);
    if (b->vendor->allow_private && !rc_gateway_mode(b)) {
        flag = cJSON_CreateString("--allow-private");
        rc_ok(b, flag);
        if (flag != NULL && cmd != NULL)
            cJSON_AddItemToArray(cmd, flag);
        else
            cJSON_Delete(flag);
    }
    rc_str(b, c, "User", RC_PROXY_USER); /* nobody: owns no file */
    rc_container_config(b, c, RC_ROLE_PROXY);
    /* No Mounts, no Binds: the proxy needs no storage. */
    rc_host_config(b, c, RC_ROLE_PROXY, b->d->objects[RC_ROLE_NETWORK].name,
                   RC_PROXY_MEMORY, RC_PROXY_PIDS, "10m", "2");
    rc_one_endpoint(b, c, b->d->proxy_ip);
    return c;
}

static cJSON *
rc_volume_body(struct rc_build *b, enum rc_role role, uint64_t bytes,
               uint64_t inodes)
{
    cJSON *v = cJSON_CreateObject(), *opts;
    char o[160];
    /* The key volume belongs to the gateway's user, who may only read
     * it; every other volume to the agent's user. */
    bool key = role == RC_ROLE_KEY;

    rc_ok(b, v);
    rc_str(b, v, "Name", b->d->objects[role].name);
    rc_str(b, v, "Driver", "local");
    /* tmpfs with byte and inode limits, owned by its user and closed to
     * others (docs/docker-notes.md section 6). */
    snprintf(o, sizeof(o), "size=%llu,nr_inodes=%llu,uid=%u,gid=%u,mode=%s%s",
             (unsigned long long)bytes, (unsigned long long)inodes,
             key ? RC_GATEWAY_UID : b->d->agent_uid,
             key ? RC_GATEWAY_UID : b->d->agent_gid, key ? "0500" : "0700",
             b->in->legacy_bodies ? "" : "," RC_VOLUME_MOUNT_FLAGS);
    opts = rc_obj(b, v, "DriverOpts");
    rc_str(b, opts, "type", "tmpfs");
    rc_str(b, opts, "device", "tmpfs");
    rc_str(b, opts, "o", o);
    rc_labels(b, v, role);
    return v;
}

/* The volumes as the keeper (agent false) or the agent sees them. The
 * keeper holds everything writable, since uploads land through it; the
 * agent gets /work writable only in execute and fix, and the git
 * metadata and the adapter's config read-only always. */
void
rc_storage_mounts(struct rc_build *b, cJSON *mounts, bool agent)
{
    const struct rc_object *o = b->d->objects;

    if (o[RC_ROLE_WORKSPACE].body != NULL)
        rc_mount(b, mounts, RC_ROLE_WORKSPACE, "/work",
                 agent && !spec_phase_writable(b->inv->phase));
    if (o[RC_ROLE_GIT].body != NULL)
        rc_mount(b, mounts, RC_ROLE_GIT, RC_GIT_TARGET, agent);
    if (o[RC_ROLE_CONFIG].body != NULL)
        rc_mount(b, mounts, RC_ROLE_CONFIG, RC_ADAPTER_CONFIG_DIR, agent);
    rc_mount(b, mounts, RC_ROLE_SCRATCH, "/tmp", false);
    /* The key is written through the keeper (a tmpfs lives only while a
     * running container holds it); the agent never mounts it. */
    if (!agent && o[RC_ROLE_KEY].body != NULL)
        rc_mount(b, mounts, RC_ROLE_KEY, RC_GATEWAY_KEY_DIR, false);
}

static cJSON *
rc_keeper_body(struct rc_build *b)
{
    cJSON *c = cJSON_CreateObject(), *hc, *mounts;

    rc_ok(b, c);
    /* its ENTRYPOINT runs */
    rc_str(b, c, "Image", b->d->helper_images[RC_HELPER_KEEPER]);
    rc_str(b, c, "User", b->d->agent_user);
    rc_container_config(b, c, RC_ROLE_KEEPER);
    /* No network at all: it only holds the volumes mounted. */
    hc = rc_host_config(b, c, RC_ROLE_KEEPER, "none", RC_KEEPER_MEMORY,
                        RC_KEEPER_PIDS, "1m", "1");
    mounts = cJSON_AddArrayToObject(hc, "Mounts");
    rc_ok(b, mounts);
    rc_storage_mounts(b, mounts, false);
    return c;
}


static int
rc_names_and_addresses(struct rc_build *b, struct err *e)
{
    struct rc_desired *d = b->d;
    char box_prefix[RC_NAME_MAX];
    int w;

    if (rc_subnet_for(b->cfg, b->in->subnet_index, d->subnet, d->gateway,
                      d->proxy_ip, d->agent_ip, e) == -1)
        return -1;
    w = snprintf(d->proxy_url, sizeof(d->proxy_url), "http://%s:%u",
                 d->proxy_ip, (unsigned)b->cfg->proxy_port);
    if (w < 0 || (size_t)w >= sizeof(d->proxy_url))
        return err_set(e, ERR_LIMIT, "proxy URL too long");
    /* gateway_url is the one mark of gateway mode past this point (the
     * probe's mode, box_probe_mode, reads it) */
    if (rc_gateway_mode(b)) {
        if (rc_subnet_host(d, RC_GATEWAY_HOST_OCTET, d->gateway_ip) == -1)
            return err_set(e, ERR_INVALID, "no gateway address in %s",
                           d->subnet);
        snprintf(d->gateway_url, sizeof(d->gateway_url), "http://%s:%u",
                 d->gateway_ip, (unsigned)RC_GATEWAY_PORT);
    }
    w = snprintf(d->egress_network, sizeof(d->egress_network), "%s",
                 b->in->egress_network ? b->in->egress_network
                                       : b->cfg->egress_network);
    if (w < 0 || (size_t)w >= sizeof(d->egress_network))
        return err_set(e, ERR_LIMIT, "egress network name too long");
    w = snprintf(d->prefix, sizeof(d->prefix), "agentctl-%s-%.8s", b->inv->name,
                 b->in->uid);
    if (w < 0 || (size_t)w + 8 >= sizeof(d->prefix))
        return err_set(e, ERR_LIMIT, "invocation name too long");
    if (b->in->box != NULL) {
        w = snprintf(box_prefix, sizeof(box_prefix), "agentctl-%s-%.8s",
                     b->in->box->owner, b->in->box->uid);
        if (w < 0 || (size_t)w + 8 >= sizeof(box_prefix))
            return err_set(e, ERR_LIMIT, "box name too long");
    }
    for (int r = 0; r < RC_ROLE_COUNT; r++) {
        d->objects[r].role = (enum rc_role)r;
        d->objects[r].kind = rc_role_kind((enum rc_role)r);
        snprintf(d->objects[r].name, sizeof(d->objects[r].name), "%s%s",
                 rc_box_role(b->in, (enum rc_role)r) ? box_prefix : d->prefix,
                 rc_role_suffix((enum rc_role)r));
    }
    return 0;
}

/* The pinned IDs, or the config's tags for an attempt captured before
 * helper images were pinned (its running boxes were made from them). */
static int
rc_helper_images(struct rc_build *b, struct err *e)
{
    for (int h = 0; h < RC_HELPER_COUNT; h++) {
        const char *ref = b->in->helper_image_ids[h];
        int w;

        if (!rc_helper_needed(b->vendor, (enum rc_helper)h))
            continue; /* left "": no container of it is made */
        if (ref == NULL)
            ref = rc_helper_tag(b->cfg, (enum rc_helper)h);
        w = snprintf(b->d->helper_images[h], sizeof(b->d->helper_images[h]),
                     "%s", ref ? ref : "");
        if (ref == NULL || ref[0] == '\0' || w < 0 ||
            (size_t)w >= sizeof(b->d->helper_images[h]))
            return err_set(e, ERR_INVALID, "bad %s image reference",
                           rc_helper_name((enum rc_helper)h));
    }
    b->d->helpers_pinned = b->in->helper_image_ids[0] != NULL;
    return 0;
}

static void
rc_bodies(struct rc_build *b)
{
    struct rc_object *o = b->d->objects;
    const struct spec_invocation *inv = b->inv;

    o[RC_ROLE_NETWORK].body = rc_network_body(b);
    o[RC_ROLE_PROXY].body = rc_proxy_body(b);
    if (inv->has_workspace)
        o[RC_ROLE_WORKSPACE].body = rc_volume_body(
            b, RC_ROLE_WORKSPACE, inv->workspace_bytes, inv->workspace_inodes);
    /* The git metadata gets the workspace's limits in a storage of its
     * own, so that it can be mounted read-only in every phase. */
    if (inv->has_workspace && b->in->git_metadata)
        o[RC_ROLE_GIT].body = rc_volume_body(
            b, RC_ROLE_GIT, inv->workspace_bytes, inv->workspace_inodes);
    if (b->d->adapter != NULL && b->d->adapter->n_files > 0)
        o[RC_ROLE_CONFIG].body = rc_volume_body(b, RC_ROLE_CONFIG,
                                                b->in->unlaunched ? RC_CONFIG_BYTES_UNLAUNCHED
                                                                   : RC_CONFIG_BYTES,
                                                RC_CONFIG_INODES);
    o[RC_ROLE_SCRATCH].body = rc_volume_body(
        b, RC_ROLE_SCRATCH, inv->scratch_bytes, inv->scratch_inodes);
    if (rc_gateway_mode(b))
        o[RC_ROLE_KEY].body = rc_volume_body(
            b, RC_ROLE_KEY, RC_GATEWAY_KEY_BYTES, RC_GATEWAY_KEY_INODES);
    o[RC_ROLE_KEEPER].body = rc_keeper_body(b);
    if (rc_gateway_mode(b))
        o[RC_ROLE_GATEWAY].body = rc_gateway_body(b);
    o[RC_ROLE_AGENT].body = rc_agent_body(b);
    /* in gateway mode no body holds the key: only the key tar does */
    o[RC_ROLE_AGENT].sensitive =
        b->in->credential != NULL && !rc_gateway_mode(b);
}

struct rc_desired *
rc_desired_build(const struct spec_invocation *inv,
                 const struct cfg *cfg, const struct rc_inputs *in,
                 struct err *e)
{
    struct rc_build b = { .inv = inv, .cfg = cfg, .in = in };

    if (cfg_admit(cfg, inv, e) == -1)
        return NULL;
    b.vendor = cfg_find_vendor(cfg, inv->vendor);
    if (rc_check_inputs(&b, e) == -1)
        return NULL;
    b.d = calloc(1, sizeof(*b.d));
    if (b.d == NULL) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (rc_names_and_addresses(&b, e) == -1 || rc_agent_user(&b, e) == -1 ||
        rc_helper_images(&b, e) == -1 || rc_adapt(&b, e) == -1)
        goto fail;
    if (in->credential != NULL &&
        (b.d->secret = strdup(in->credential)) == NULL)
        b.nomem = 1;
    if (b.vendor != NULL && b.vendor->gateway_ca_pem != NULL &&
        b.vendor->credential_mode == CFG_CREDENTIAL_GATEWAY &&
        (b.d->gateway_ca = strdup(b.vendor->gateway_ca_pem)) == NULL)
        b.nomem = 1;
    if (!b.nomem)
        rc_bodies(&b);
    if (!b.nomem)
        return b.d;
    err_set(e, ERR_NOMEM, "out of memory building the desired state");
fail:
    rc_desired_free(b.d);
    return NULL;
}

/* Overwrite every string holding the secret before the memory is freed. */
static void
rc_wipe(cJSON *j, const char *secret)
{
    for (cJSON *c = j; c != NULL; c = c->next) {
        if (cJSON_IsString(c) && c->valuestring != NULL &&
            strstr(c->valuestring, secret) != NULL)
            explicit_bzero(c->valuestring, strlen(c->valuestring));
        rc_wipe(c->child, secret);
    }
}

void
rc_desired_free(struct rc_desired *d)
{
    if (d == NULL)
        return;
    for (int r = 0; r < RC_ROLE_COUNT; r++) {
        if (d->secret != NULL && d->secret[0] != '\0')
            rc_wipe(d->objects[r].body, d->secret);
        cJSON_Delete(d->objects[r].body);
    }
    if (d->secret != NULL && d->secret[0] != '\0')
        rc_wipe(d->order, d->secret);
    cJSON_Delete(d->order);
    free(d->gateway_ca);
    if (d->secret != NULL) {
        explicit_bzero(d->secret, strlen(d->secret));
        free(d->secret);
    }
    rc_adapter_out_free(d->adapter);
    free(d);
}

const struct rc_object *
rc_desired_object(const struct rc_desired *d, enum rc_role role)
{
    if (d == NULL || (unsigned)role >= RC_ROLE_COUNT ||
        d->objects[role].body == NULL)
        return NULL;
    return &d->objects[role];
}

cJSON *
rc_egress_network_body(const char *name)
{
    cJSON *body = cJSON_CreateObject(), *labels;

    cJSON_AddStringToObject(body, "Name", name);
    cJSON_AddStringToObject(body, "Driver", "bridge");
    cJSON_AddBoolToObject(body, "CheckDuplicate", 1);
    labels = cJSON_AddObjectToObject(body, "Labels");
    cJSON_AddStringToObject(labels, "agentctl.dev/role", "egress");
    return body;
}

cJSON *
rc_desired_egress_connect(const struct rc_desired *d,
                          const char *container_id)
{
    cJSON *c = cJSON_CreateObject();

    /* No aliases, no static address: the egress side only dials out. */
    if (cJSON_AddStringToObject(c, "Container", container_id) == NULL ||
        cJSON_AddObjectToObject(c, "EndpointConfig") == NULL) {
        cJSON_Delete(c);
        return NULL;
    }
    (void)d;
    return c;
}
