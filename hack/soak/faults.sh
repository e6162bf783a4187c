# shellcheck shell=bash
# faults.sh - the soak's fault schedule (sourced by run.sh). fault_next K
# injects the K-th fault of SOAK_FAULT_KINDS (in turn, from an offset the
# run draws) and writes one line of $SOAK/faults ("<epoch> <kind>
# <target>"). Each fault ends with what it broke given back (a daemon
# restarted, a file restored) except what the controllers must repair or
# report themselves (a killed agent, a removed proxy).
SOAK_FAULT_KINDS=(${SOAK_FAULTS:-ctl-kill dockerd-restart etcd-restart
    status-corrupt agent-kill etcd-pause disk-full proxy-rm ctl-kill
    network-cut})
SOAK_FAULT_OFFSET=$((RANDOM % ${#SOAK_FAULT_KINDS[@]}))
SOAK_KILLS=0

note_fault() { echo "$(date +%s) $*" >>"$SOAK/faults"; }

# expect_ended AGENT FAULT NAME: the agent whose box the fault broke must
# not go on running in it: within 90 s the container is stopped or gone
# (the attempt failed closed, or was deleted meanwhile).
expect_ended() {
    for _ in $(seq 1 180); do
        [ "$(docker inspect -f '{{.State.Running}}' "$1" 2>/dev/null)" = true ] ||
            return 0
        sleep 0.5
    done
    violation "$2: $3: its agent still runs 90 s after the fault"
}

fault_next() {
    local kind=${SOAK_FAULT_KINDS[($1 + SOAK_FAULT_OFFSET) % ${#SOAK_FAULT_KINDS[@]}]}
    echo "# fault $(($1 + 1)): $kind"
    "fault_${kind//-/_}"
}

# kill_d: SIGKILL the directory lane's controller (as sc_kill does an
# etcd one's).
kill_d() {
    kill -KILL "$CTL_PID" 2>/dev/null
    wait "$CTL_PID" 2>/dev/null
    CTL_PID=
}

# fault_ctl_kill: SIGKILL one controller (in turn: the directory lane's,
# etcd's a, etcd's b) and start it again after 2 s.
fault_ctl_kill() {
    local who=$((SOAK_KILLS % 3))
    SOAK_KILLS=$((SOAK_KILLS + 1))
    case $who in
    0)
        kill_d
        note_fault ctl-kill d
        sleep 2
        start_d
        ;;
    *)
        local n=a
        [ "$who" -eq 1 ] || n=b
        sc_kill "$n"
        note_fault ctl-kill "$n"
        sleep 2
        start_e "$n"
        ;;
    esac
}

# fault_dockerd_restart: the private daemon stopped (TERM, every other
# time KILL: a crash) and started again; the test vendors, stopped with
# it, are started again too (they are the soak's, not the controllers').
fault_dockerd_restart() {
    local sig=TERM
    [ $((RANDOM % 2)) -eq 0 ] || sig=KILL
    pd_down "$sig"
    note_fault dockerd-restart "$sig"
    sleep 2
    pd_up || fail "the private dockerd did not come back: $(tail -n 5 \
        "$PD/dockerd.log")"
    docker start "vendor-$CTL_RUN" "other-$CTL_RUN" >/dev/null ||
        fail "cannot restart the test vendors"
}

fault_etcd_restart() {
    restart_etcd
    note_fault etcd-restart -
}

# fault_etcd_pause: etcd stopped (SIGSTOP) for 10 s: connections stay open
# and nothing answers.
fault_etcd_pause() {
    kill -STOP "$ETCD_PID"
    note_fault etcd-pause 10s
    sleep 10
    kill -CONT "$ETCD_PID"
}

# fault_disk_full: the directory lane's state disk filled for 10 s.
fault_disk_full() {
    dd if=/dev/zero of="$STATE/soak-ballast" bs=1M >/dev/null 2>&1
    note_fault disk-full "$(df --output=avail -k "$STATE" | tail -n1 | tr -d ' ')k-free"
    sleep 10
    rm -f "$STATE/soak-ballast"
}

# running_agent: "<container id> <uid> <name>" of one agent that runs now
# (any lane), from the daemon's own labels; empty when none does.
running_agent() {
    docker ps --filter label=agentctl.dev/role=agent --format \
        '{{.ID}} {{.Label "agentctl.dev/uid"}} {{.Label "agentctl.dev/invocation"}}' \
        2>/dev/null | shuf -n 1
}

# fault_status_corrupt: a crash that leaves a status file cut in half: the
# directory lane's controller is killed, one status file cut, the
# controller started again. It must hold that invocation (write nothing
# over the file, start nothing) until the file is restored from the copy
# taken before, then go on where it was (docs/design.md "Unreadable
# status"). A running controller never reads its statuses back (it
# writes what it holds), so the cut is made while it is down.
fault_status_corrupt() {
    local f name uid copy=$SOAK/status-copy.json starts half logged
    f=$(find "$STATE/status" -name 's-d-*.json' 2>/dev/null | shuf -n 1)
    [ -n "$f" ] || { note_fault status-corrupt none && return 0; }
    kill_d
    name=$(basename "$f" .json)
    cp "$f" "$copy"
    uid=$(jq -r '.uid // empty' "$copy" 2>/dev/null)
    starts=$(starts_of_uid "$uid")
    half=$(($(stat -c %s "$copy") / 2))
    truncate -s "$half" "$f"
    note_fault status-corrupt "$name"
    logged=$(stat -c %s "$CTL_LOG")
    start_d
    sleep 6 # several resyncs (1 s)
    [ "$(stat -c %s "$f")" -eq "$half" ] ||
        violation "status-corrupt: $name: the cut status file was written over"
    [ "$(starts_of_uid "$uid")" = "$starts" ] ||
        violation "status-corrupt: $name: an agent started while its status was unreadable"
    tail -c +"$((logged + 1))" "$CTL_LOG" | grep -q "status unreadable.*\"$name\"" ||
        violation "status-corrupt: $name: the controller did not say it holds it"
    cp "$copy" "$f.soak" && mv "$f.soak" "$f"
}

fault_agent_kill() {
    local id uid name
    read -r id uid name <<<"$(running_agent)"
    [ -n "${id:-}" ] || { note_fault agent-kill none && return 0; }
    docker kill "$id" >/dev/null 2>&1
    note_fault agent-kill "$name"
}

# fault_proxy_rm: the proxy of a running agent removed by hand.
fault_proxy_rm() {
    local id uid name proxy
    read -r id uid name <<<"$(running_agent)"
    [ -n "${id:-}" ] || { note_fault proxy-rm none && return 0; }
    proxy=$(docker ps -aq --filter "label=agentctl.dev/uid=$uid" \
        --filter label=agentctl.dev/role=proxy)
    [ -n "$proxy" ] || { note_fault proxy-rm none && return 0; }
    docker rm -f $proxy >/dev/null 2>&1
    note_fault proxy-rm "$name"
    expect_ended "$id" proxy-rm "$name"
}

# fault_network_cut: a running agent disconnected from its network by hand,
# and the network then removed if nothing else holds it.
fault_network_cut() {
    local id uid name net
    read -r id uid name <<<"$(running_agent)"
    [ -n "${id:-}" ] || { note_fault network-cut none && return 0; }
    net=$(docker network ls -q --filter "label=agentctl.dev/uid=$uid" \
        --filter label=agentctl.dev/role=network)
    [ -n "$net" ] || { note_fault network-cut none && return 0; }
    docker network disconnect -f "$net" "$id" >/dev/null 2>&1
    docker network rm "$net" >/dev/null 2>&1
    note_fault network-cut "$name"
    expect_ended "$id" network-cut "$name"
}
