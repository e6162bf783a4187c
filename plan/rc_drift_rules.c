/* rc_drift_rules.c - the one table of drift rules and its
 * accessors. docs/drift-rules.md is this table rendered row for row;
 * test_rc_drift fails when the two disagree and rewrites the doc with
 * `test_rc_drift --write-doc docs/drift-rules.md`.
 *
 * A rule names the inspect path it reads, the create-body pointer that
 * states the expected value (so no value is written twice), Docker's
 * default for a field the body leaves out, and how to compare. */
#include "rc_drift.h"
#include "rc_harden.h"

#include <string.h>

#define ANY  RC_DRIFT_ANY
#define NET  RC_DRIFT_ROLE(RC_ROLE_NETWORK)
#define CTR  RC_DRIFT_CONTAINERS
#define VOL  RC_DRIFT_VOLUMES
#define PXAG                                                                   \
    (RC_DRIFT_ROLE(RC_ROLE_PROXY) | RC_DRIFT_ROLE(RC_ROLE_AGENT) |             \
     RC_DRIFT_ROLE(RC_ROLE_GATEWAY))
#define AGT  RC_DRIFT_ROLE(RC_ROLE_AGENT)

#define HC(k) "HostConfig." k, "/HostConfig/" k

#define RECREATED                                                              \
    "a same-named object recreated behind the controller's back is another "   \
    "object, even with identical attributes"
#define BEHIND_NAME                                                            \
    "the recorded ID; when it answers 404, what is under the name is "         \
    "inspected: another Id there is a stand-in (reported with both IDs, "      \
    "left in place)"
#define CREATE_ONLY                                                            \
    "create-time only (/update ignores it), so a change means a recreated "    \
    "stand-in"

static const struct rc_drift_rule rules[] = {
    /* ---- any object (rc_drift_check_missing) ---- */
    { "object.gone", ANY, "404 by ID, then by name", NULL, NULL, RC_CMP_GONE,
      "the object answers: a container or network by its recorded ID or "
      "something under its name, a volume by its name",
      "an object removed behind the controller's back takes the boundary it "
      "was part of with it (a network its isolation, a keeper the mounted "
      "workspace); the recorded ID stays the only one cleanup removes" },
    /* ---- network ---- */
    { "network.id", NET, "Id", NULL, NULL, RC_CMP_ID, BEHIND_NAME, RECREATED },
    { "network.labels", NET, "Labels", "/Labels", "null", RC_CMP_EXACT,
      "exactly the body's labels",
      "ownership: GC and adoption find objects by these labels" },
    { "network.driver", NET, "Driver", "/Driver", "\"bridge\"", RC_CMP_EXACT,
      "the body's driver (bridge)",
      "another driver means other isolation semantics" },
    { "network.internal", NET, "Internal", "/Internal", "false", RC_CMP_EXACT,
      "true",
      "without it the bridge routes out: the agent would bypass the proxy" },
    { "network.enable-ipv6", NET, "EnableIPv6", "/EnableIPv6", "false",
      RC_CMP_EXACT, "false", "an IPv6 path is a route the proxy does not see" },
    { "network.ipam", NET, "IPAM.Config", "/IPAM/Config", "null", RC_CMP_IPAM,
      "one entry: the body's subnet and gateway",
      "the proxy and agent addresses (HTTPS_PROXY) are fixed in this subnet" },
    { "network.options", NET, "Options", "/Options", "null", RC_CMP_EXACT,
      "exactly the body's options (bridge.inhibit_ipv4 \"true\")",
      "without inhibit_ipv4 the host holds the gateway address and the agent "
      "reaches host services (docs/docker-notes.md section 1)" },
    { "network.endpoint-extra", NET, "Containers", NULL, NULL,
      RC_CMP_ENDPOINTS_EXTRA,
      "every running endpoint is an allowed container (proxy, gateway, "
      "agent, probe)",
      "an extra container on the network is a path to or from the agent "
      "outside the proxy" },
    { "network.endpoint-missing", NET, "Containers", NULL, NULL,
      RC_CMP_ENDPOINTS_MISSING,
      "every required endpoint is there (Containers lists running ones only)",
      "a proxy disconnected or stopped means the boundary is not the one "
      "verified" },
    /* ---- containers: identity and command ---- */
    { "container.id", CTR, "Id", NULL, NULL, RC_CMP_ID, BEHIND_NAME,
      RECREATED },
    { "container.name", CTR, "Name", NULL, NULL, RC_CMP_NAME,
      "\"/\" + the object's name",
      "a renamed container frees its name for a stand-in" },
    { "container.labels", CTR, "Config.Labels", "/Labels", "null",
      RC_CMP_LABELS_IMAGE, "the body's labels plus the image's other labels",
      "ownership: GC and adoption find objects by these labels" },
    { "container.image-id", CTR, "Image", NULL, NULL, RC_CMP_IMAGE_ID,
      "the image ID recorded at create",
      "a tag moved or a stand-in built from another image runs other code" },
    { "container.image-pinned", CTR, "Image", NULL, NULL, RC_CMP_PINNED_IMAGE,
      "the image ID pinned at capture: the agent's status.imageID, the "
      "proxy's, keeper's and gateway's status.helperImages (an attempt "
      "captured before "
      "helper images were pinned has none: its helpers run from the "
      "config's tags)",
      "a helper created from a tag moved after capture (or adopted from "
      "another body) runs other code than the attempt was captured with: an "
      "impostor proxy decides the whole egress policy" },
    { "container.image", CTR, "Config.Image", "/Image", "null", RC_CMP_EXACT,
      "the body's Image", "the reference the controller pinned" },
    { "container.entrypoint", CTR, "Config.Entrypoint", "/Entrypoint", "null",
      RC_CMP_FROM_IMAGE, "the body's, else the image's",
      "what runs in the box" },
    { "container.cmd", CTR, "Config.Cmd", "/Cmd", "null", RC_CMP_FROM_IMAGE,
      "the body's, else the image's (none when the body sets Entrypoint)",
      "what runs in the box (the proxy's allowlist is in its Cmd)" },
    { "container.env", CTR, "Config.Env", "/Env", "null", RC_CMP_ENV_IMAGE,
      "the body's variables plus the image's other variables, nothing else",
      "HTTPS_PROXY and the credential; an added variable (LD_PRELOAD, a "
      "proxy bypass) changes behaviour" },
    { "container.user", CTR, "Config.User", "/User", "\"\"", RC_CMP_FROM_IMAGE,
      "the body's user (non-root)",
      "root in the container widens every other escape" },
    { "container.workdir", CTR, "Config.WorkingDir", "/WorkingDir", "\"\"",
      RC_CMP_FROM_IMAGE, "the body's, else the image's",
      "where the agent writes" },
    { "container.stdin", CTR, "Config.OpenStdin", "/OpenStdin", "false",
      RC_CMP_EXACT, "false", "stdin stays closed (docs/design.md)" },
    { "container.exec-ids", CTR, "ExecIDs", NULL, "null", RC_CMP_EXACT,
      "none; a Docker exec_create or exec_start event on the container is "
      "the same finding (an exec that ended is gone from ExecIDs)",
      "a process started with docker exec (-u 0 --privileged) runs as root "
      "with every capability inside the box's namespaces, past its user, "
      "CapDrop and no-new-privileges" },
    /* ---- containers: privilege ---- */
    { "container.privileged", CTR, HC("Privileged"), "false", RC_CMP_EXACT,
      "false", "privileged is root on the host" },
    { "container.cap-add", CTR, HC("CapAdd"), "null", RC_CMP_EXACT, "none",
      "an added capability (NET_ADMIN, SYS_ADMIN) undoes CapDrop" },
    { "container.cap-drop", CTR, HC("CapDrop"), "null", RC_CMP_EXACT,
      "exactly the body's ([\"ALL\"])", "no capabilities in the box" },
    { "container.readonly-rootfs", CTR, HC("ReadonlyRootfs"), "false",
      RC_CMP_EXACT, "true", "writes go only to the sized volumes" },
    { "container.security-opt", CTR, HC("SecurityOpt"), "null", RC_CMP_EXACT,
      "exactly the body's ([\"no-new-privileges\"])",
      "seccomp=unconfined or a lost no-new-privileges reopens escalation" },
    { "container.apparmor", CTR, "AppArmorProfile", "/HostConfig/SecurityOpt",
      NULL, RC_CMP_APPARMOR,
      "docker-default where the host has AppArmor (the body says "
      "apparmor=docker-default), else \"\"; a body of an older version "
      "(no MaskedPaths) may show either, never another",
      "unconfined lifts the mandatory access control Docker's profile adds "
      "(mount, /proc writes, ptrace)" },
    { "container.masked-paths", CTR, HC("MaskedPaths"), RC_MASKED_PATHS_JSON,
      RC_CMP_EXACT,
      "exactly the body's: Docker's default list (/proc/kcore, /proc/keys, "
      "/sys/firmware, ...), which is also what a body without it gets",
      "an unmasked /proc/kcore or /proc/keys leaks the host's memory and "
      "keys; --security-opt systempaths=unconfined empties it" },
    { "container.readonly-paths", CTR, HC("ReadonlyPaths"),
      RC_READONLY_PATHS_JSON, RC_CMP_EXACT,
      "exactly the body's: Docker's default list (/proc/sys, "
      "/proc/sysrq-trigger, ...), which is also what a body without it gets",
      "a writable /proc/sys or /proc/sysrq-trigger reaches the host kernel" },
    { "container.sysctls", CTR, HC("Sysctls"), "null", RC_CMP_EXACT,
      "exactly the body's (agent, probe: net.ipv6.conf.all and default "
      "disable_ipv6 \"1\"; none elsewhere)",
      "an IPv6 address in the box is a path the proxy does not see; other "
      "sysctls change the box's network stack" },
    { "container.ulimits", CTR, HC("Ulimits"), "null", RC_CMP_EXACT,
      "exactly the body's: nofile and nproc",
      "descriptor and process exhaustion of the host" },
    { "container.shm-size", CTR, HC("ShmSize"), "67108864", RC_CMP_EXACT,
      "the body's (agent 16 MiB, helpers 1 MiB)",
      "/dev/shm is unsized writable memory outside the volumes' limits" },
    { "container.restart-policy", CTR, HC("RestartPolicy"),
      "{\"Name\":\"no\",\"MaximumRetryCount\":0}", RC_CMP_EXACT,
      "Name \"no\", MaximumRetryCount 0",
      "a restarted agent runs an attempt twice; docker update can set it "
      "on a live container" },
    /* ---- containers: network ---- */
    { "container.dns", CTR, HC("Dns"), "null", RC_CMP_EXACT,
      "exactly the body's (agent [\"0.0.0.0\"]; none elsewhere)",
      "an upstream resolver is a DNS tunnel past the proxy; " CREATE_ONLY },
    { "container.dns-options", CTR, HC("DnsOptions"), "null", RC_CMP_EXACT,
      "exactly the body's", CREATE_ONLY },
    { "container.dns-search", CTR, HC("DnsSearch"), "null", RC_CMP_EXACT,
      "exactly the body's (none)", CREATE_ONLY },
    { "container.extra-hosts", CTR, HC("ExtraHosts"), "null", RC_CMP_EXACT,
      "exactly the body's (none)",
      "a hosts entry redirects a name the agent trusts; " CREATE_ONLY },
    { "container.network-mode", CTR, HC("NetworkMode"), "\"default\"",
      RC_CMP_EXACT, "the body's (internal network; keeper \"none\")",
      "host or another container's namespace is no boundary" },
    { "container.networks", CTR, "NetworkSettings.Networks", NULL, NULL,
      RC_CMP_NETWORKS,
      "keys exactly: proxy and gateway {internal, egress}, agent "
      "{internal}, keeper {none}",
      "a second network is a route past the proxy" },
    { "container.internal-ip", PXAG, "NetworkSettings.Networks", NULL, NULL,
      RC_CMP_INTERNAL_IP, "the recorded address on the internal network",
      "the agent's HTTPS_PROXY names the proxy by this address" },
    { "container.port-bindings", CTR, HC("PortBindings"), "null", RC_CMP_EXACT,
      "none",
      "a binding goes live on a later connect even when Ports is empty "
      "(docs/docker-notes.md section 4)" },
    { "container.publish-all-ports", CTR, HC("PublishAllPorts"), "false",
      RC_CMP_EXACT, "false", "publishes every EXPOSEd port on the host" },
    { "container.ports-live", CTR, "NetworkSettings.Ports", NULL, NULL,
      RC_CMP_PORTS_LIVE, "no port has a host binding (EXPOSE alone is null)",
      "a live host port reaches into the box" },
    /* ---- containers: storage ---- */
    { "container.mounts", CTR, HC("Mounts"), "null", RC_CMP_MOUNTS,
      "exactly the body's mounts",
      "a mount carries data in or out of the box; /work read-only by phase" },
    { "container.live-mounts", CTR, "Mounts", "/HostConfig/Mounts", NULL,
      RC_CMP_LIVE_MOUNTS,
      "exactly the body's mounts: type, volume name, destination, RW",
      "what is really mounted, binds and VolumesFrom included" },
    { "container.binds", CTR, HC("Binds"), "null", RC_CMP_EXACT, "none",
      "a host path in the box" },
    { "container.volumes-from", CTR, HC("VolumesFrom"), "null", RC_CMP_EXACT,
      "none", "another container's volumes in the box" },
    { "container.tmpfs", CTR, HC("Tmpfs"), "null", RC_CMP_EXACT,
      "exactly the body's (none)", "unsized writable space" },
    { "container.devices", CTR, HC("Devices"), "null", RC_CMP_EXACT, "none",
      "a host device in the box" },
    /* ---- containers: namespaces ---- */
    { "container.pid-mode", CTR, HC("PidMode"), "\"\"", RC_CMP_EXACT,
      "the body's, else \"\" (private)",
      "host or another container's PID namespace (ptrace, signals)" },
    { "container.ipc-mode", CTR, HC("IpcMode"), "\"private\"", RC_CMP_EXACT,
      "the body's (\"private\")", "shared memory with the host or others" },
    { "container.uts-mode", CTR, HC("UTSMode"), "\"\"", RC_CMP_EXACT,
      "the body's, else \"\" (private)", "the host's UTS namespace" },
    { "container.userns-mode", CTR, HC("UsernsMode"), "\"\"", RC_CMP_EXACT,
      "the body's, else \"\"", "user namespace changes what uid 1000 is" },
    { "container.cgroupns-mode", CTR, "HostConfig.CgroupnsMode",
      "/HostConfig/CgroupnsMode", NULL, RC_CMP_CGROUPNS,
      "the body's, else the daemon's default (\"host\" on cgroup v1)",
      "the cgroup namespace the limits were checked in" },
    { "container.joined", CTR,
      "HostConfig.NetworkMode, PidMode, IpcMode of every other container", NULL,
      NULL, RC_CMP_NEIGHBOUR,
      "no container but the attempt's names this one as container:<ID> "
      "(listed since the proxy's create; PidMode and IpcMode by inspect, "
      "cached by container ID: they are create-time only)",
      "a container in the agent's network namespace has no endpoint on the "
      "internal network, so network.endpoint-extra cannot see it; in its "
      "PID namespace it can ptrace and signal the agent. --ipc "
      "container:<agent> is refused by Docker (IpcMode private, "
      "container.ipc-mode)" },
    /* ---- containers: limits ---- */
    { "container.memory", CTR, HC("Memory"), "0", RC_CMP_EXACT, "the body's",
      "memory limit of the spec (docker update can change it)" },
    { "container.memory-swap", CTR, HC("MemorySwap"), "0", RC_CMP_EXACT,
      "the body's (= Memory: no swap)", "swap would lift the memory limit" },
    { "container.nano-cpus", CTR, HC("NanoCpus"), "0", RC_CMP_EXACT,
      "the body's (agent: the spec's; proxy and gateway 1 CPU, keeper 0.1)",
      "cpu limit of the spec; a helper without one can starve the host" },
    { "container.pids-limit", CTR, HC("PidsLimit"), "null", RC_CMP_EXACT,
      "the body's", "fork bombs" },
    { "container.init", CTR, HC("Init"), "null", RC_CMP_EXACT, "true",
      "reaps orphans that would fill PidsLimit; SIGTERM ends the agent" },
    { "container.waiting", AGT, "State", NULL, NULL, RC_CMP_WAITING,
      "a warm box's waiting agent, before its claim: Running true, Paused, "
      "Restarting and OOMKilled false, and its Entrypoint the launcher's wait "
      "with the order nonce of its label (docs/warm-pool.md); not checked "
      "once the claim wrote the order",
      "an agent whose wait ended (no order in time: exit 122; an order "
      "refused: 123) or that is paused cannot take an order, and the claim "
      "would hand the spec to nothing; a nonce label that is not the "
      "Entrypoint's means the two were not made together" },
    /* ---- volumes ---- */
    { "volume.created-at", VOL, "CreatedAt", NULL, NULL, RC_CMP_CREATED_AT,
      "the CreatedAt recorded at create, checked until the keeper (the first "
      "container that mounts the volume) is recorded",
      RECREATED
      ". Volumes have no ID; CreatedAt is the ctime of the tmpfs "
      "root while mounted (it moves at mount and on writes at /work's top), "
      "and from then on Docker refuses to remove a volume a container "
      "references, so container.id and container.live-mounts carry it. "
      "Whole seconds: a stand-in made within the second is not told apart" },
    { "volume.labels", VOL, "Labels", "/Labels", "null", RC_CMP_EXACT,
      "exactly the body's labels",
      "ownership: GC and adoption find objects by these labels" },
    { "volume.driver", VOL, "Driver", "/Driver", "\"local\"", RC_CMP_EXACT,
      "the body's (local)", "another driver stores the data elsewhere" },
    { "volume.options", VOL, "Options", "/DriverOpts", "null", RC_CMP_EXACT,
      "exactly the body's: type tmpfs, device, o (size, nr_inodes, uid, gid, "
      "mode)",
      "the byte and inode limits and the owner of the workspace" },
    { "volume.foreign-mount", VOL, "Mounts of every other container", NULL,
      NULL, RC_CMP_NEIGHBOUR,
      "mounted by the attempt's containers only (every container created "
      "since the proxy, listed with its Mounts)",
      "-v <workspace volume>:/x or --volumes-from reads and writes the "
      "workspace from outside the box, and a volume's inspect does not say "
      "who mounts it" },
    /* ---- the boundary canary: the probe, run again inside the running
     * agent's network namespace (controller/box/box_canary.c) ---- */
    { "probe.allowed", AGT, "canary check allowed", NULL, NULL, RC_CMP_CANARY,
      "CONNECT to the vendor through the proxy answers 200 (502/504: the "
      "vendor is down, recorded, not drift)",
      "a proxy that no longer serves the vendor was replaced or reconfigured "
      "while the agent ran" },
    { "probe.gateway", AGT, "canary check gateway", NULL, NULL, RC_CMP_CANARY,
      "gateway mode: a request outside the gateway's rules, sent to the "
      "gateway, answers 403 with Proxy-Status agentctl-gateway (instead of "
      "probe.allowed)",
      "what answers on the gateway's address no longer enforces its rules "
      "(a stand-in or a gateway reconfigured in place forwards what they "
      "refuse), or nothing serves there any more" },
    { "probe.denied", AGT, "canary check denied", NULL, NULL, RC_CMP_CANARY,
      "CONNECT to a name off the allowlist answers 403 (gateway mode: the "
      "vendor's own host, which only the gateway may reach)",
      "the allowlist was widened behind the inspect rules (a stand-in proxy "
      "with the same attributes, a proxy reconfigured in place)" },
    { "probe.direct", AGT, "canary check direct", NULL, NULL, RC_CMP_CANARY,
      "a plain connect to the internal gateway and to the proxy's egress "
      "address fails with an answer (refused, unreachable)",
      "the agent's namespace has a route past the proxy (another interface, "
      "a gateway someone now holds), whatever the inspects say" },
    { "probe.dns", AGT, "canary check dns", NULL, NULL, RC_CMP_CANARY,
      "the agent's resolver does not answer the vendor's name",
      "name resolution is a channel out of the box" },
    { "probe.ipv6", AGT, "canary check ipv6", NULL, NULL, RC_CMP_CANARY,
      "no inet6 address in the agent's namespace",
      "an IPv6 path is a route the proxy does not see" },
    { "probe.landlock", AGT, "canary check landlock", NULL, NULL,
      RC_CMP_CANARY,
      "the kernel offers the box Landlock (ABI 1 or later) where the agent "
      "runs under agent-launch and the config requires it",
      "without it the launcher cannot confine the CLI: no exec, write or "
      "connect rules below the CLI's own settings (docs/phase-policy.md)" },
    { "probe.inconclusive", AGT, "canary verdict", NULL, NULL, RC_CMP_CANARY,
      "a definite answer to every check, at most one inconclusive run in a "
      "row",
      "silence twice in a row means the boundary can no longer be shown to "
      "hold" },
    { "probe.output", AGT, "canary output", NULL, NULL, RC_CMP_CANARY,
      "exactly one well-formed probe line whose exit code matches its "
      "verdict",
      "a canary that cannot report is a boundary nobody checks" },
    /* ---- Docker's events about the attempt's containers ---- */
    { "container.archive", PXAG, "archive-path, extract-to-dir events", NULL,
      NULL, RC_CMP_NEIGHBOUR,
      "none: the controller copies files into and out of the keeper only",
      "docker cp into the agent, proxy or gateway puts files past the box's "
      "mounts and checks (a binary, a changed allowlist), and out of it "
      "takes what the agent holds past the egress proxy" },
};

#define N_RULES (sizeof(rules) / sizeof(rules[0]))

/* Rules are addressed by their index in a struct rc_drift_set. */
_Static_assert(sizeof(rules) / sizeof(rules[0]) <= RC_DRIFT_MAX_RULES,
               "at most RC_DRIFT_MAX_RULES rules");

size_t
rc_drift_rule_count(void)
{
    return N_RULES;
}

const struct rc_drift_rule *
rc_drift_rule_at(size_t i)
{
    return i < N_RULES ? &rules[i] : NULL;
}

const char *
rc_drift_rule_id(size_t i)
{
    return i < N_RULES ? rules[i].id : NULL;
}

int
rc_drift_rule_by_id(const char *id)
{
    for (size_t i = 0; id != NULL && i < N_RULES; i++)
        if (strcmp(rules[i].id, id) == 0)
            return (int)i;
    return -1;
}
