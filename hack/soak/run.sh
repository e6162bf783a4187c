#!/usr/bin/env bash
# run.sh [SECONDS] - the chaos soak (docs/reliability.md): a mixed load on
# two stores at once while a schedule injects faults, and the invariants
# checked after every fault and at the end.
#
#   lane d   one controller on the directory store, its state directory on a
#            small tmpfs (the "disk full" fault fills it)
#   lane e   two controllers on one etcd (claims and leases decide who runs
#            what)
#
# Everything runs on a private dockerd (tests/integration/
# lib_private_dockerd.sh) so that restarting the daemon touches nothing
# else on the machine, with a private etcd on loopback.
#
# The load (load.sh): command specs of every phase (some with a workspace
# upload, some with a credential, some failing), cancels, deletes,
# re-applies with a changed spec, hostile and half-written spec files. The
# faults (faults.sh), one every SOAK_FAULT_EVERY seconds in turn: SIGKILL
# and restart of a controller, dockerd restarted (TERM or KILL), etcd
# restarted, etcd paused 10 s, the state disk full, a status file cut
# short (then restored), an agent killed, a proxy removed, an agent cut off
# its network. The invariants (check.sh): every invocation ends in a
# terminal phase or runs with a live agent; no attempt's agent starts
# twice (Docker's own start events); nothing is left on the daemon once
# the invocations are gone; the credential is in no log, status, event,
# output or etcd value; the controllers' RSS, fd count and /healthz time
# show no growth and no stall. The checks are first run on planted
# violations (check_selftest), so each of them can fail.
#
# Environment: SOAK_SECONDS (default 300, or $1), SOAK_FAULT_EVERY (25),
# SOAK_LIVE (live invocations per lane, 4), SOAK_REPORT=FILE (the
# markdown table, also printed), SOAK_KEEP=DIR (logs and samples kept),
# SOAK_POOL (the private daemon's /16, 10.218.0.0/16).
# Exit 0 when every invariant held, 1 otherwise, 77 when the machine
# cannot run it (no dockerd, etcd or iptables).
SOAK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export AGENTCTL_ROOT=${AGENTCTL_ROOT:-$(cd "$SOAK_DIR/../.." && pwd)}
export AGENTCTL_BUILD=${AGENTCTL_BUILD:-$AGENTCTL_ROOT/build}
source "$AGENTCTL_ROOT/tests/integration/scaleout/lib_scaleout.sh"
PD_POOL=${SOAK_POOL:-10.218.0.0/16}
source "$AGENTCTL_ROOT/tests/integration/lib_private_dockerd.sh"
source "$SOAK_DIR/load.sh"
source "$SOAK_DIR/faults.sh"
source "$SOAK_DIR/check.sh"
source "$SOAK_DIR/report.sh"
# A soak goes on through a failed command (a kill of a process already
# gone, a Docker call while the daemon restarts): what counts is what the
# checks find, and `fail` still ends it.
set +e

SOAK_SECONDS=${1:-${SOAK_SECONDS:-300}}
SOAK_FAULT_EVERY=${SOAK_FAULT_EVERY:-25}
SOAK=$TEST_TMP/soak
CONFIG_D=$TEST_TMP/controller-d.yaml
D_POOL=${PD_POOL%.0.0/16}.128.0/20
E_POOL=${PD_POOL%.0.0/16}.144.0/20
STATE_BYTES=${SOAK_STATE_BYTES:-64m}

# soak_images: every image the controllers may run, by name (the vendor
# CLI images excepted: no command spec needs them).
soak_images() {
    local b s
    for b in "$ROOT"/hack/images/build-*.sh; do
        s=${b##*/build-}
        s=${s%.sh}
        case $s in claude-code | codex) continue ;; esac
        echo "$s"
    done
}

# soak_state_disk: the directory lane's state on a tmpfs of its own, so
# that filling it is the disk being full for that controller alone.
soak_state_disk() {
    mount -t tmpfs -o "size=$STATE_BYTES,mode=0755" soak-state "$STATE" ||
        skip "cannot mount a tmpfs for the state directory"
    on_cleanup "umount -l '$STATE' 2>/dev/null || true"
}

# soak_configs: the etcd lane's config (CONFIG) and the directory lane's,
# each with its own half of the private daemon's pool.
soak_configs() {
    sed -i "s|^subnetPool: .*|subnetPool: $E_POOL|" "$CONFIG"
    sed "s|^subnetPool: .*|subnetPool: $D_POOL|" "$CONFIG" >"$CONFIG_D"
}

soak_setup() {
    mkdir -p "$SOAK"
    pd_init $(soak_images)
    export DOCKER_HOST=$PD_SOCK
    EGRESS_SUBNET=${PD_POOL%.0.0/16}.1.0/24
    sc_init
    on_cleanup soak_keep
    soak_state_disk
    soak_configs
    bash "$ROOT/tests/specs/hostile/make.sh" "$SOAK/hostile" >/dev/null
    follow_agent_starts &
    on_cleanup "pkill -P $! 2>/dev/null; kill $! 2>/dev/null || true"
    sample_controllers &
    on_cleanup "kill $! 2>/dev/null || true"
    # pd_init registered the daemon's cleanup first: it must go last,
    # after the controllers, their objects and the logs kept (hooks run
    # in the order registered).
    TEST_CLEANUP_HOOKS=("${TEST_CLEANUP_HOOKS[@]:1}" "${TEST_CLEANUP_HOOKS[0]}")
    start_d
    start_e a
    start_e b
}

# soak_keep: logs, samples and the report kept for a reader (SOAK_KEEP).
soak_keep() {
    [ -n "${SOAK_KEEP:-}" ] || return 0
    mkdir -p "$SOAK_KEEP"
    cp "$CTL_LOG" "$SOAK_KEEP/ctl-d.log" 2>/dev/null
    cp "$TEST_TMP"/ctl-*.log "$SOAK/samples" "$SOAK/starts" "$SOAK/faults" \
        "$SOAK/actions" "$SOAK/violations" "$SOAK_KEEP/" 2>/dev/null
    cp "$PD/dockerd.log" "$SOAK_KEEP/" 2>/dev/null
    return 0
}

# The directory lane's controller and etcd's b run the ASan/UBSan build
# when there is one (hack/test.sh builds it before the scenarios): a
# fault's error path that touches freed memory or leaks ends that
# controller, and the soak says so. etcd's a runs the plain build, whose
# RSS the growth check reads (ASan's quarantine grows by design).
SAN_CONTROLLER=${SOAK_SAN_CONTROLLER:-$ROOT/build-asan/controller/agent-controller}
[ -x "$SAN_CONTROLLER" ] || SAN_CONTROLLER=$CONTROLLER
RSS_LANES=a # the lanes whose RSS growth is judged
[ "$SAN_CONTROLLER" != "$CONTROLLER" ] || RSS_LANES=all
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}

start_d() {
    CONTROLLER=$SAN_CONTROLLER CONFIG=$CONFIG_D ctl_start --docker "$PD_SOCK"
    echo "$CTL_PID $CTL_METRICS" >"$SOAK/pid-d"
}

start_e() {
    local bin=$CONTROLLER
    [ "$1" = a ] || bin=$SAN_CONTROLLER
    CONTROLLER=$bin sc_start "$1" --docker "$PD_SOCK"
    echo "${SC_PID[$1]} ${SC_METRICS[$1]}" >"$SOAK/pid-$1"
}

# soak_stop_all: every controller stopped with SIGTERM, as an operator
# would; each must exit 0 (a sanitized one reports leaks at its exit).
soak_stop_all() {
    local n rc
    ctl_stop
    [ "$CTL_STOPPED" = 0 ] ||
        violation "the directory lane's controller ended $CTL_STOPPED at SIGTERM: $(tail -n 5 "$CTL_LOG")"
    for n in a b; do
        kill -TERM "${SC_PID[$n]}" 2>/dev/null
        for _ in $(seq 1 300); do # 30 s, as ctl_stop gives lane d
            kill -0 "${SC_PID[$n]}" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "${SC_PID[$n]}" 2>/dev/null; then
            kill -KILL "${SC_PID[$n]}" 2>/dev/null
            violation "etcd controller $n did not exit within 30 s of SIGTERM"
        fi
        rc=0
        wait "${SC_PID[$n]}" 2>/dev/null || rc=$?
        SC_PID[$n]=
        [ "$rc" -eq 0 ] ||
            violation "etcd controller $n ended $rc at SIGTERM: $(tail -n 5 "$TEST_TMP/ctl-$n.log")"
    done
}

# soak_loop: the load on both lanes and a fault every SOAK_FAULT_EVERY
# seconds until SOAK_SECONDS are over.
soak_loop() {
    local end=$((SECONDS + SOAK_SECONDS)) next=$((SECONDS + SOAK_FAULT_EVERY))
    local k=0
    while [ "$SECONDS" -lt "$end" ]; do
        load_tick d
        load_tick e
        if [ "$SECONDS" -ge "$next" ]; then
            fault_next "$k"
            k=$((k + 1))
            check_round "after fault $k"
            next=$((SECONDS + SOAK_FAULT_EVERY))
        fi
        sleep 1
    done
}

check_selftest
soak_setup
echo "# soak: ${SOAK_SECONDS}s, a fault every ${SOAK_FAULT_EVERY}s, pool $PD_POOL," \
    "sanitized controllers: $SAN_CONTROLLER"
soak_loop
check_final
soak_stop_all
sanitizer_reports
report
check_verdict
