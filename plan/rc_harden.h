/* rc_harden.h - the protections Docker would otherwise supply by default,
 * stated in every container's create body so that each one is asserted
 * (a drift rule compares it) instead of trusted: Docker's masked and
 * read-only /proc and /sys paths, AppArmor's docker-default profile where
 * the host has AppArmor, ulimits, a small /dev/shm, IPv6 switched off
 * inside the agent (and the probe, which copies its HostConfig), CPU
 * limits on the helpers. seccomp cannot be named on API 1.41 (see
 * docs/security-defaults.md); no-new-privileges and the SecurityOpt rule
 * keep it the daemon's default profile. */
#ifndef RC_HARDEN_H
#define RC_HARDEN_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "rc_desired.h"

#define RC_NOFILE     8192          /* open files per process (soft = hard) */
#define RC_NPROC      16384         /* per host uid, not per box: see doc */
#define RC_AGENT_SHM  (16ull << 20) /* /dev/shm of the agent (and probe) */
#define RC_HELPER_SHM (1ull << 20)  /* proxy, keeper */
#define RC_PROXY_NANOCPUS                                                      \
    1000000000ull /* one CPU: it pumps the agent's bytes */
#define RC_KEEPER_NANOCPUS  100000000ull /* it only sleeps */
#define RC_APPARMOR_PROFILE "docker-default"

/* Docker 20.10's default MaskedPaths and ReadonlyPaths (what inspect shows
 * for a body without them), as JSON: the bodies state them, and the drift
 * rules expect them of a body that leaves them out (an attempt an older
 * version captured). */
#define RC_MASKED_PATHS_JSON                                                   \
    "[\"/proc/asound\",\"/proc/acpi\",\"/proc/kcore\",\"/proc/keys\","         \
    "\"/proc/latency_stats\",\"/proc/timer_list\",\"/proc/timer_stats\","      \
    "\"/proc/sched_debug\",\"/proc/scsi\",\"/sys/firmware\"]"
#define RC_READONLY_PATHS_JSON                                                 \
    "[\"/proc/bus\",\"/proc/fs\",\"/proc/irq\",\"/proc/sys\","                 \
    "\"/proc/sysrq-trigger\"]"

/* Add the role's fields to its HostConfig hc (SecurityOpt must be there
 * already; "apparmor=docker-default" is appended when apparmor; the proxy
 * and the gateway get net.ipv4.ip_forward=0 unless forwarding_unstated).
 * 0, or -1 out of memory. */
int rc_harden_host_config(cJSON *hc, enum rc_role role, bool apparmor,
                          bool forwarding_unstated);

/* The tmpfs mount options every volume gets after its size, inode, owner
 * and mode options: no setuid binaries, no device nodes. */
#define RC_VOLUME_MOUNT_FLAGS "nosuid,nodev"

#endif
