# shellcheck shell=bash
# lib_private_dockerd.sh - a Docker daemon of the scenario's own, for the
# faults that take the daemon down (source after lib.sh, or a library that
# sources it). The machine's shared dockerd is never touched: the private
# one has its own socket, data-root, exec-root, pidfile, containerd and a
# default bridge of its own, with the project's images loaded into it.
#
#   pd_init IMAGE...   checks (skip when it cannot be had), start, load
#                      agentctl/IMAGE:$VERSION from the shared daemon
#   pd_up / pd_down SIGNAL / pd_ping / pd_cleanup (registered by pd_init)
#
# Set PD_POOL (a /16 no shared network uses) before sourcing to run beside
# another private daemon.
#
# The private daemon runs with --iptables=false: with iptables on, dockerd's
# bridge driver starts by deleting the DOCKER and DOCKER-ISOLATION chains
# (libnetwork bridge configure: removeIPChains, then setupIPChains), which
# are the shared daemon's, so it cannot coexist with it. Without its own
# rules, though, the shared daemon's FORWARD policy DROP (bridged traffic
# goes through iptables, bridge-nf-call-iptables=1) drops every packet on
# the private daemon's bridges, even between two containers of one network
# (seen: the boundary probe's CONNECT timed out, preparation-failed). So
# pd_init inserts one rule in DOCKER-USER (the chain Docker leaves to the
# host) accepting traffic from PD_POOL to PD_POOL, with a comment naming
# this run, and deletes it on exit. Everything of the private daemon lives
# in PD_POOL: its default address pool (the egress network) and the
# controller's subnetPool (its upper half).
#
# Its default bridge is a bridge device the test makes (PD_BRIDGE), never
# `--bridge=none`: a dockerd started with the bridge disabled deletes the
# host's docker0 interface (libnetwork removes the default bridge
# interface when the bridge driver is off), taking the shared daemon's
# default network with it (seen: test_testbox.sh failed "could not find
# bridge docker0" after this test had run). For the same reason it has no
# --default-address-pool: dockerd 20.10, restarted on a data-root that
# holds a default bridge network and with address pools configured,
# deletes the interface named docker0 whatever its --bridge is
# (initNetworkController: removeDefaultBridgeInterface; reproduced here).
# The egress network gets an explicit subnet instead (EGRESS_SUBNET).
#

PD=$TEST_TMP/pd
PD_SOCK=unix://$PD/docker.sock
PD_POOL=${PD_POOL:-10.219.0.0/16}
PD_CTL_POOL=${PD_CTL_POOL:-${PD_POOL%.0.0/16}.128.0/20}
PD_BRIDGE=agpd$$
PD_BIP=${PD_BIP:-${PD_POOL%.0.0/16}.255.1/24}
PD_PID=
MAIN_HOST=unix:///var/run/docker.sock

pd_ping() {
    curl -fsS --max-time 2 --unix-socket "$PD/docker.sock" \
        http://docker/_ping >/dev/null 2>&1
}

# pd_up: start the private daemon (same dirs every time) and wait for it.
pd_up() {
    local i
    mkdir -p "$PD/data" "$PD/exec"
    if ! ip link show "$PD_BRIDGE" >/dev/null 2>&1; then
        ip link add "$PD_BRIDGE" type bridge &&
            ip addr add "$PD_BIP" dev "$PD_BRIDGE" &&
            ip link set "$PD_BRIDGE" up || return 1
    fi
    dockerd --host "$PD_SOCK" --data-root "$PD/data" --exec-root "$PD/exec" \
        --pidfile "$PD/docker.pid" --bridge "$PD_BRIDGE" --iptables=false \
        >>"$PD/dockerd.log" 2>&1 &
    PD_PID=$!
    for i in $(seq 1 120); do # readiness, not a timed assertion
        pd_ping && return 0
        kill -0 "$PD_PID" 2>/dev/null || break
        sleep 0.5
    done
    return 1
}

# pd_down SIGNAL: stop it and wait until the process is gone.
pd_down() {
    local i
    [ -n "$PD_PID" ] || return 0
    kill -"$1" "$PD_PID" 2>/dev/null || true
    for i in $(seq 1 120); do
        kill -0 "$PD_PID" 2>/dev/null || break
        sleep 0.5
    done
    if kill -0 "$PD_PID" 2>/dev/null; then
        kill -KILL "$PD_PID" 2>/dev/null || true
    fi
    wait "$PD_PID" 2>/dev/null || true
    PD_PID=
}

PD_RULE=(DOCKER-USER -s "$PD_POOL" -d "$PD_POOL" -m comment --comment
    "agentctl $TEST_RUN_ID" -j ACCEPT)

# pd_cleanup: the private daemon gone, its mounts, directories and
# firewall rule too.
pd_cleanup() {
    local m
    pd_down TERM
    while iptables -D "${PD_RULE[@]}" 2>/dev/null; do :; done
    # its containerd (started by dockerd, parent gone now) by its socket
    for m in $(pgrep -f "containerd --config $PD/exec/containerd/" || true); do
        kill -TERM "$m" 2>/dev/null || true
    done
    sleep 1
    awk -v p="$PD/" 'index($2, p) == 1 { print $2 }' /proc/mounts |
        sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf "$PD"
    ip link del "$PD_BRIDGE" 2>/dev/null || true
    export DOCKER_HOST=$MAIN_HOST
}


# pd_init IMAGE...: the private daemon up, with agentctl/IMAGE:$VERSION of
# the shared daemon loaded into it; skips (77) when the machine cannot
# have one, and registers pd_cleanup.
pd_init() {
    local img
    command -v dockerd >/dev/null || skip "dockerd not installed"
    command -v iptables >/dev/null || skip "iptables not installed"
    iptables -S DOCKER-USER >/dev/null 2>&1 ||
        skip "no DOCKER-USER chain: the shared dockerd does not run iptables"
    if docker network ls -q | xargs -r docker network inspect \
        -f '{{range .IPAM.Config}}{{.Subnet}} {{end}}' 2>/dev/null |
        grep -q "^${PD_POOL%.0.0/16}\.\| ${PD_POOL%.0.0/16}\."; then
        skip "the shared daemon has a network in $PD_POOL (set PD_POOL)"
    fi
    on_cleanup pd_cleanup
    iptables -I "${PD_RULE[@]}" || skip "cannot add the DOCKER-USER rule"
    pd_up || skip "the private dockerd did not come up: $(tail -n 5 \
        "$PD/dockerd.log" 2>/dev/null | tr '\n' ' ')"
    for img in "$@"; do
        docker -H "$MAIN_HOST" image inspect "agentctl/$img:$VERSION" \
            >/dev/null 2>&1 || skip "agentctl/$img:$VERSION not built"
        docker -H "$MAIN_HOST" save "agentctl/$img:$VERSION" |
            docker -H "$PD_SOCK" load >/dev/null ||
            fail "cannot load agentctl/$img:$VERSION into the private daemon"
    done
}
