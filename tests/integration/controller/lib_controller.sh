# shellcheck shell=bash
# lib_controller.sh - harness for the agent-controller scenarios (source it
# from tests/integration/controller/test_*.sh, after nothing else).
#
# These scenarios are black-box: they know agent-controller only through its
# contract (docs/design.md: flags, config file, status/events/output files, the
# labels on every Docker object). Each scenario gets its own specs, state,
# secrets and workspace directories, its own controller ID (so the
# managed-by label names exactly this run's objects), its own egress
# network with two test vendors on it, and its own controller process.
#
#   ctl_init              checks, directories, config, egress net, vendors
#   ctl_start [ARGS...]   start agent-controller in the background
#   apply_spec NAME PHASE [SPEC-LINE...]
#   wait_phase NAME PHASE TIMEOUT / wait_terminal NAME TIMEOUT
#   status_field NAME JQ / condition_field NAME TYPE FIELD / agent_output NAME
#   ctl_finish            no leftovers (bounded poll), controller still up
#
# On exit (also on failure) the controller is stopped (SIGTERM, then
# SIGKILL) and everything with this run's test label or managed-by label is
# removed. On failure the controller log and the status documents are
# printed to stderr so the runner's log shows why.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

CONTROLLER=$BUILD/controller/agent-controller
AGENTCTL=$BUILD/cli/agentctl
VERSION=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' \
    "$ROOT/CMakeLists.txt")
DEMO_IMAGE=agentctl/demo-agent:$VERSION
BOX_IMAGE=agentctl/testbox:$VERSION
PROXY_IMAGE=agentctl/egress-proxy:$VERSION
KEEPER_IMAGE=agentctl/keeper:$VERSION

# A short run ID: names and label values stay well under every limit.
CTL_RUN=$(printf '%s' "$TEST_RUN_ID" | sha256sum | cut -c1-10)
CTL_ID=test-$CTL_RUN
MANAGED="agentctl.dev/managed-by=$CTL_ID"
EGRESS_NET=agentctl-test-egress-$CTL_RUN
SPECS=$TEST_TMP/specs
STATE=$TEST_TMP/state
SECRETS=$TEST_TMP/secrets
WS_ROOT=$TEST_TMP/workspaces
CONFIG=$TEST_TMP/controller.yaml
CTL_LOG=$TEST_TMP/controller.log
CRED_NAME=fake-key
CRED_TOKEN=cred-$(head -c 24 /dev/urandom | sha256sum | cut -c1-40)
VENDOR_TOKEN=vendor-ok-$CTL_RUN
OTHER_TOKEN=other-ok-$CTL_RUN
DEFAULT_DEADLINE=300
CTL_PID=
CTL_STOPPED=
CTL_METRICS=
SUBNET_POOL=
VENDOR_IP=
OTHER_IP=
TERMINAL_RE='^(Succeeded|Failed|Cancelled)$'

# ctl_require: skip (77) when what the scenario needs is not there.
ctl_require() {
    [ -x "$CONTROLLER" ] ||
        skip "agent-controller not built yet ($CONTROLLER missing)"
    [ -x "$AGENTCTL" ] || skip "agentctl not built ($AGENTCTL missing)"
    command -v jq >/dev/null || skip "jq not installed"
    need_docker
    # every image the project builds (hack/images/build-NAME.sh makes
    # agentctl/NAME:VERSION): the controller may need any of them
    local b s
    for b in "$ROOT"/hack/images/build-*.sh; do
        s=${b##*/build-}
        s=${s%.sh}
        # the vendor CLI images are tagged by CLI version, from the
        # registry; only tests/integration/vendors/ needs them
        case $s in claude-code | codex) continue ;; esac
        docker image inspect "agentctl/$s:$VERSION" >/dev/null 2>&1 && continue
        bash "$b" >/dev/null 2>&1 ||
            fail "agentctl/$s:$VERSION is missing and $b failed"
    done
}

# ip4_int A.B.C.D: the address as an integer.
ip4_int() {
    local IFS=. a b c d
    read -r a b c d <<<"$1"
    echo $(((a << 24) | (b << 16) | (c << 8) | d))
}

# subnet_overlaps CIDR: 0 when any Docker network's IPv4 subnet overlaps it.
subnet_overlaps() {
    local len=${1#*/} net s sb sl lo hi slo shi
    lo=$(ip4_int "${1%/*}")
    hi=$((lo + (1 << (32 - len)) - 1))
    for net in $(docker network ls -q); do
        for s in $(docker network inspect -f \
            '{{range .IPAM.Config}}{{.Subnet}} {{end}}' "$net" 2>/dev/null); do
            [[ $s =~ ^[0-9.]+/[0-9]+$ ]] || continue
            sb=$(ip4_int "${s%/*}")
            sl=${s#*/}
            slo=$((sb & ~((1 << (32 - sl)) - 1) & 0xffffffff))
            shi=$((slo + (1 << (32 - sl)) - 1))
            if [ "$slo" -le "$hi" ] && [ "$shi" -ge "$lo" ]; then
                return 0
            fi
        done
    done
    return 1
}

# pick_subnet_pool: a /20 of 10.214.0.0/16 that no Docker network uses,
# starting at one chosen by the scenario's name (parallel scenarios differ).
pick_subnet_pool() {
    local start i k cidr
    start=$(($(printf '%s' "$TEST_NAME" | cksum | cut -d' ' -f1) % 16))
    for i in $(seq 0 15); do
        k=$(((start + i) % 16))
        cidr=10.214.$((k * 16)).0/20
        if ! subnet_overlaps "$cidr"; then
            SUBNET_POOL=$cidr
            return 0
        fi
    done
    fail "every /20 of 10.214.0.0/16 overlaps an existing Docker network"
}

# pick_port: a loopback TCP port (for --metrics) below the ephemeral
# range that no socket uses.
pick_port() {
    local p i
    for i in $(seq 1 50); do
        p=$((12000 + RANDOM % 20000))
        ss -tanH "sport = :$p" 2>/dev/null | grep -q . || {
            echo "$p"
            return 0
        }
    done
    fail "no free loopback port found for --metrics"
}

# make_workspaces: trees under $WS_ROOT the scenarios point specs at.
#   small/     a few files (the normal case)
#   escape/    a symlink that leaves the tree (../../..)
#   absolute/  an absolute symlink
#   big/       3 MiB of data (over a 1Mi workspace size)
#   many/      300 files (over an inodes: 100 limit)
make_workspaces() {
    local i
    mkdir -p "$WS_ROOT/small/src" "$WS_ROOT/small/docs" "$WS_ROOT/escape/sub" \
        "$WS_ROOT/absolute" "$WS_ROOT/big" "$WS_ROOT/many"
    echo "# demo project" >"$WS_ROOT/small/README.md"
    printf 'int main(void) { return 0; }\n' >"$WS_ROOT/small/src/main.c"
    echo "notes" >"$WS_ROOT/small/docs/notes.txt"
    ln -s ../README.md "$WS_ROOT/small/docs/readme-link" # stays inside: fine
    echo "inside" >"$WS_ROOT/escape/sub/file.txt"
    ln -s ../../../../../../etc/passwd "$WS_ROOT/escape/sub/passwd"
    echo "inside" >"$WS_ROOT/absolute/file.txt"
    ln -s /etc/shadow "$WS_ROOT/absolute/shadow"
    head -c $((3 * 1024 * 1024)) /dev/urandom >"$WS_ROOT/big/blob.bin"
    for i in $(seq 1 300); do
        : >"$WS_ROOT/many/f$i"
    done
}

write_config() {
    cat >"$CONFIG" <<EOF
# controller config written by $TEST_NAME (lib_controller.sh)
vendors:
  fake:
    hosts: ["vendor.test:443"]
    credentialEnv: FAKE_API_KEY
    credentialMode: env
    allowPrivate: true
images: {proxy: "$PROXY_IMAGE", keeper: "$KEEPER_IMAGE"}
egressNetwork: $EGRESS_NET
subnetPool: $SUBNET_POOL
proxyPort: 3128
agentUser: "1000:1000"
secretsDir: $SECRETS
workspaceRoot: $WS_ROOT
limits: {maxDeadlineSeconds: 86400, maxWorkspaceBytes: 1Gi, maxOutputBytes: 16Mi}
EOF
}

# start_vendor NAME ALIAS TOKEN: a busybox httpd on the egress network
# answering GET / with TOKEN; echoes its IP on the egress network.
start_vendor() {
    local name=$1 alias=$2 token=$3 i
    docker run -d --label "$TEST_LABEL" --name "$name" --network "$EGRESS_NET" \
        --network-alias "$alias" "$BOX_IMAGE" sh -c \
        "echo $token >/www/index.html && exec httpd -f -p 443 -h /www" \
        >/dev/null || fail "cannot start test vendor $name"
    for i in $(seq 1 100); do # readiness, not a timed assertion
        docker exec "$name" timeout 5 wget -q -O - http://127.0.0.1:443/ \
            2>/dev/null | grep -q "$token" && break
        [ "$i" -lt 100 ] || fail "test vendor $name never answered"
        sleep 0.1
    done
    docker inspect -f \
        "{{(index .NetworkSettings.Networks \"$EGRESS_NET\").IPAddress}}" "$name"
}

# ctl_init: everything a scenario needs before the controller starts.
ctl_init() {
    ctl_require
    on_cleanup ctl_teardown
    mkdir -p "$SPECS" "$STATE" "$TEST_TMP/in"
    install -d -m 0700 "$SECRETS"
    (umask 077 && printf '%s\n' "$CRED_TOKEN" >"$SECRETS/$CRED_NAME")
    chmod 0600 "$SECRETS/$CRED_NAME"
    make_workspaces
    pick_subnet_pool
    CTL_METRICS=127.0.0.1:$(pick_port)
    write_config
    # The egress network exists before the controller starts, so the
    # controller finds it; it carries only the test label (it is ours).
    # EGRESS_SUBNET, when set, pins its subnet.
    follow_starts &
    on_cleanup "pkill -P $! 2>/dev/null; kill $! 2>/dev/null || true"
    docker network create --label "$TEST_LABEL" \
        ${EGRESS_SUBNET:+--subnet "$EGRESS_SUBNET"} "$EGRESS_NET" >/dev/null ||
        fail "cannot create egress network $EGRESS_NET"
    VENDOR_IP=$(start_vendor "vendor-$CTL_RUN" vendor.test "$VENDOR_TOKEN")
    OTHER_IP=$(start_vendor "other-$CTL_RUN" other.test "$OTHER_TOKEN")
    echo "# run $CTL_RUN: controller-id $CTL_ID, pool $SUBNET_POOL," \
        "egress $EGRESS_NET, vendor $VENDOR_IP, other $OTHER_IP"
}

# ctl_start [EXTRA ARGS...]: the controller, in the background. A metrics
# port that another process took in the meantime gets another try.
ctl_start() {
    local try
    for try in 1 2 3; do
        ctl_launch "$@" && return 0
        grep -q 'Address already in use' "$CTL_LOG" ||
            fail "agent-controller exited at start: $(tail -n 20 "$CTL_LOG")"
        CTL_METRICS=127.0.0.1:$(pick_port)
    done
    fail "agent-controller could not bind a metrics port: $(tail -n 5 "$CTL_LOG")"
}

# ctl_launch ARGS...: start it and wait (bounded, not timed) until its
# /healthz answers; 1 when it exited instead.
ctl_launch() {
    local i
    "$CONTROLLER" --specs "$SPECS" --state "$STATE" --config "$CONFIG" \
        --resync 1s --metrics "$CTL_METRICS" --controller-id "$CTL_ID" \
        "$@" >>"$CTL_LOG" 2>&1 &
    CTL_PID=$!
    echo "# agent-controller pid $CTL_PID, metrics $CTL_METRICS, log $CTL_LOG"
    for i in $(seq 1 120); do
        if ! ctl_alive; then
            wait "$CTL_PID" 2>/dev/null || true
            CTL_PID=
            return 1
        fi
        curl -fsS --max-time 2 -o /dev/null "http://$CTL_METRICS/healthz" \
            2>/dev/null && return 0
        sleep 0.25
    done
    echo "# note: http://$CTL_METRICS/healthz never answered; going on"
}

# ctl_hooked POINT: the test-hooks controller (no metrics: an early crash
# point may come before /healthz answers), set to kill itself at POINT
# (AGENTCTL_TEST_CRASH_AT, controller/ctl_testhooks.c).
ctl_hooked() {
    [ -x "$BUILD/controller/agent-controller-testhooks" ] ||
        skip "agent-controller-testhooks not built"
    AGENTCTL_TEST_CRASH_AT=$1 "$BUILD/controller/agent-controller-testhooks" \
        --specs "$SPECS" --state "$STATE" --config "$CONFIG" --resync 1s \
        --controller-id "$CTL_ID" >>"$CTL_LOG" 2>&1 &
    CTL_PID=$!
    echo "# test-hooks controller pid $CTL_PID, crash at $1"
}

# ctl_wait_crash POINT [WHAT]: it reached POINT and died there (bounded
# wait: a create may take minutes on a busy daemon). WHAT prefixes the
# check's description.
ctl_wait_crash() {
    local what=${2:+$2: }
    for _ in $(seq 1 1920); do
        ctl_alive || break
        sleep 0.25
    done
    ctl_alive && fail "${what}the controller never reached $1"
    wait "$CTL_PID" 2>/dev/null || true
    CTL_PID=
    check "${what}the controller killed itself at $1" \
        grep -q "\"point\":\"$1\"" "$CTL_LOG"
}

# ctl_crash_at POINT [WHAT]: ctl_hooked, then ctl_wait_crash.
ctl_crash_at() {
    ctl_hooked "$1"
    ctl_wait_crash "$@"
}

# agent_starts UID SINCE: how many times Docker started an agent of that
# invocation since SINCE (epoch seconds), from Docker's own `start`
# events, followed live from ctl_init on (the daemon keeps only its last
# 256 events for `docker events --since`, which a busy host overruns).
agent_starts() {
    sleep 1 # an event of this second has arrived
    awk -v u="$1" -v s="$2" '$3 == u && $4 == "agent" && $1 / 1e9 >= s {
        print $1, $2 }' "$TEST_TMP/starts" | sort -u | grep -c . || true
}

# follow_starts: Docker's start events of this run's objects, appended to
# $TEST_TMP/starts ("<time ns> <id> <uid> <role>"); a stream that ends (a
# dockerd restart) is opened again with an overlapping --since, and
# agent_starts counts each event once.
follow_starts() {
    local since=$(($(date +%s) - 1))
    while :; do
        docker events --since "$since" --filter "label=$MANAGED" \
            --filter event=start --format '{{.TimeNano}} {{.ID}} {{index
            .Actor.Attributes "agentctl.dev/uid"}} {{index .Actor.Attributes
            "agentctl.dev/role"}}' >>"$TEST_TMP/starts" 2>/dev/null
        since=$(($(date +%s) - 2))
        sleep 0.5
    done
}

# ctl_alive: 0 while the controller we started still runs.
ctl_alive() {
    [ -n "$CTL_PID" ] && kill -0 "$CTL_PID" 2>/dev/null
}

# ctl_stop: SIGTERM, up to 30 s to finish, then SIGKILL. Sets CTL_STOPPED
# to the exit status (or "killed"). Not in a subshell: it waits for its
# child.
ctl_stop() {
    local i rc=0
    CTL_STOPPED=
    [ -n "$CTL_PID" ] || return 0
    kill -TERM "$CTL_PID" 2>/dev/null || true
    for i in $(seq 1 300); do
        kill -0 "$CTL_PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$CTL_PID" 2>/dev/null; then
        kill -KILL "$CTL_PID" 2>/dev/null || true
        wait "$CTL_PID" 2>/dev/null || true
        CTL_PID=
        CTL_STOPPED=killed
        return 0
    fi
    wait "$CTL_PID" 2>/dev/null || rc=$?
    CTL_PID=
    CTL_STOPPED=$rc
}

# ctl_dump: what a failing scenario leaves in the log to explain itself.
ctl_dump() {
    local f
    {
        echo "----- controller log (last 60 lines): $CTL_LOG"
        tail -n 60 "$CTL_LOG" 2>/dev/null
        for f in "$STATE"/status/*.json; do
            [ -e "$f" ] || continue
            echo "----- $f"
            jq . "$f" 2>/dev/null || cat "$f"
        done
        for f in "$STATE"/events/*.jsonl; do
            [ -e "$f" ] || continue
            echo "----- $f (last 20)"
            tail -n 20 "$f"
        done
        echo "----- objects labelled $MANAGED"
        docker ps -a --filter "label=$MANAGED" \
            --format '{{.ID}} {{.Names}} {{.Status}}' 2>/dev/null
        docker network ls --filter "label=$MANAGED" 2>/dev/null
        docker volume ls --filter "label=$MANAGED" 2>/dev/null
    } >&2
}

# ctl_teardown: the cleanup hook (runs in test_cleanup, where $rc is the
# scenario's exit status).
ctl_teardown() {
    [ "${rc:-0}" -eq 0 ] || [ "${rc:-0}" -eq 77 ] || ctl_dump
    ctl_stop
    # Twice: a network of the controller's cannot go while a test
    # container (a drift "stranger") is still attached to it.
    docker_cleanup_label "$MANAGED"
    docker_cleanup_label "$TEST_LABEL"
    docker_cleanup_label "$MANAGED"
    docker network rm "$EGRESS_NET" >/dev/null 2>&1 || true
}

# apply_spec NAME PHASE [SPEC-LINE...]: write an AgentInvocation through
# `agentctl apply`. SPEC-LINEs are YAML lines under `spec:` (indent them
# relative to spec); vendor fake, the demo-agent image and a 300 s deadline
# are the defaults unless a line sets image:, vendor: or deadlineSeconds:.
apply_spec() {
    local name=$1 phase=$2 f=$TEST_TMP/in/$1.yaml line
    shift 2
    local extra
    extra=$(printf '%s\n' "$@")
    {
        echo "apiVersion: agentctl.dev/v1alpha1"
        echo "kind: AgentInvocation"
        echo "metadata:"
        echo "  name: $name"
        echo "spec:"
        grep -q '^vendor:' <<<"$extra" || echo "  vendor: fake"
        echo "  phase: $phase"
        grep -q '^image:' <<<"$extra" || echo "  image: $DEMO_IMAGE"
        grep -q '^deadlineSeconds:' <<<"$extra" ||
            echo "  deadlineSeconds: $DEFAULT_DEADLINE"
        for line in "$@"; do
            echo "  $line"
        done
    } >"$f"
    actl apply -f "$f" >/dev/null ||
        fail "agentctl apply -f $f failed: $(cat "$f")"
}

# actl ARGS...: agentctl on this scenario's store.
actl() {
    "$AGENTCTL" --specs "$SPECS" --state "$STATE" "$@"
}

# inv_uid NAME: metadata.uid, which every Docker object of NAME carries in
# agentctl.dev/uid (and whose first 8 characters are in their names).
inv_uid() {
    actl get "$1" -o json 2>/dev/null | jq -r '.metadata.uid // empty'
}

status_file() { echo "$STATE/status/$1.json"; }

# status_field NAME JQ-PATH: the field's value ("" when absent or null).
status_field() {
    local f
    f=$(status_file "$1")
    [ -s "$f" ] || return 0
    jq -r "($2) | if . == null then empty elif type == \"string\" then . \
        else tojson end" "$f" 2>/dev/null || true
}

# wait_progress NAME KEY WHAT: status.progress.KEY of NAME is true
# (bounded: 240 s); else fail saying WHAT never happened.
wait_progress() {
    for _ in $(seq 1 960); do
        [ "$(status_field "$1" ".progress.$2")" == true ] && return 0
        sleep 0.25
    done
    fail "$1: $3"
}

# wait_changes NAME: the change set is read, or found unavailable
# (the read follows the terminal phase, at cleanup).
wait_changes() { wait_progress "$1" changesRead "the change set was never read"; }

# condition_field NAME TYPE FIELD: a field of the status condition TYPE.
condition_field() {
    status_field "$1" "(.conditions // [])[] | select(.type == \"$2\") | .$3"
}

# wait_phase NAME PHASE TIMEOUT-S: poll the status file; fails on timeout,
# on another terminal phase, or when the controller died.
wait_phase() {
    local name=$1 want=$2 end=$((SECONDS + $3)) phase=""
    while [ "$SECONDS" -lt "$end" ]; do
        phase=$(status_field "$name" .phase)
        [ "$phase" == "$want" ] && return 0
        if [[ $phase =~ $TERMINAL_RE ]]; then
            fail "$name reached phase $phase, not $want"
        fi
        ctl_alive || fail "agent-controller exited while waiting for" \
            "$name to reach $want"
        sleep 0.25
    done
    fail "$name did not reach phase $want within ${3}s (last: ${phase:-none})"
}

# wait_terminal NAME TIMEOUT-S: echoes the terminal phase reached.
wait_terminal() {
    local name=$1 end=$((SECONDS + $2)) phase=""
    while [ "$SECONDS" -lt "$end" ]; do
        phase=$(status_field "$name" .phase)
        if [[ $phase =~ $TERMINAL_RE ]]; then
            echo "$phase"
            return 0
        fi
        ctl_alive || fail "agent-controller exited while waiting for $name"
        sleep 0.25
    done
    fail "$name reached no terminal phase within ${2}s (last: ${phase:-none})"
}

# agent_output NAME: the captured output of the attempt.
agent_output() {
    cat "$STATE/output/$1.log" 2>/dev/null || true
}

# labelled_objects "LABEL [LABEL...]": "kind id name" of every container,
# network and volume carrying all the LABELs (key=value, space-separated).
labelled_objects() {
    local flt=() l
    for l in $1; do
        flt+=(--filter "label=$l")
    done
    {
        docker ps -a "${flt[@]}" --format 'container {{.ID}} {{.Names}}'
        docker network ls "${flt[@]}" --format 'network {{.ID}} {{.Name}}'
        docker volume ls "${flt[@]}" --format 'volume {{.Name}} -'
    } 2>/dev/null || true
}

# wait_no_objects LABEL TIMEOUT-S: 0 once nothing carries LABEL; else 1 and
# what is left on stdout.
wait_no_objects() {
    local label=$1 end=$((SECONDS + $2)) left
    while :; do
        left=$(labelled_objects "$label")
        [ -z "$left" ] && return 0
        [ "$SECONDS" -lt "$end" ] || break
        sleep 0.5
    done
    echo "$left"
    return 1
}

# check_no_objects DESCRIPTION LABEL [TIMEOUT-S]: bounded wait for cleanup.
check_no_objects() {
    local left
    if left=$(wait_no_objects "$2" "${3:-60}"); then
        CHECKS=$((CHECKS + 1))
        echo "ok - $1"
    else
        fail "$1: still there: $(tr '\n' ';' <<<"$left")"
    fi
}

# check_not_running DESCRIPTION CONTAINER [TIMEOUT-S]: bounded wait until
# the container does not run (a kill follows the status that records it:
# record, then act); one already removed counts as not running.
check_not_running() {
    local end=$((SECONDS + ${3:-60})) running
    while :; do
        running=$(docker inspect -f '{{.State.Running}}' "$2" 2>/dev/null) ||
            running=gone
        [ "$running" = true ] && [ "$SECONDS" -lt "$end" ] || break
        sleep 0.25
    done
    check "$1 ($running)" test "$running" != true
}

# ctl_finish: the end of every scenario: the controller is still running
# (it did not crash), it removed every object it created, and it stops.
ctl_finish() {
    check "agent-controller still running" ctl_alive
    check_no_objects "no Docker object labelled $MANAGED left" "$MANAGED" 60
    ctl_stop
    echo "# agent-controller stopped: $CTL_STOPPED"
}

# check_events NAME: the event log is JSON lines of
# {time,type,reason,message,count}, and there is at least one.
check_events() {
    local f=$STATE/events/$1.jsonl bad
    check "$1: has events" test -s "$f"
    bad=$(jq -c 'select((has("time") and has("type") and has("reason")
        and has("message") and has("count")) | not)' "$f" 2>&1) ||
        fail "$1: events are not JSON lines: $bad"
    check_eq "$1: every event has time,type,reason,message,count" "" "$bad"
}

# check_running_objects NAME: while NAME runs, Docker holds objects with
# its uid, managed by this controller (the control for "gone" checks).
check_running_objects() {
    local uid objs
    uid=$(inv_uid "$1")
    objs=$(labelled_objects "agentctl.dev/uid=$uid")
    echo "# objects of $1 ($uid):"
    sed 's/^/#   /' <<<"$objs"
    check "$1: running, it has Docker objects" test -n "$objs"
    check "$1: and each is managed by $CTL_ID" test -z "$(
        docker ps -aq --filter "label=agentctl.dev/uid=$uid" |
            while read -r id; do
                docker inspect -f \
                    '{{index .Config.Labels "agentctl.dev/managed-by"}}' "$id" |
                    grep -vx "$CTL_ID"
            done
    )"
}

# not CMD...: succeeds when CMD fails (for check).
not() { ! "$@"; }

# quiet CMD...: CMD without its output.
quiet() { "$@" >/dev/null 2>&1; }

# lacks TEXT NEEDLE: TEXT does not contain NEEDLE (a fixed string).
lacks() { [[ $1 != *"$2"* ]]; }

# object_of NAME ROLE [KIND]: the ID of NAME's Docker object with role ROLE
# (KIND container, network or volume; container by default), by labels.
object_of() {
    local uid flt
    uid=$(inv_uid "$1")
    flt=(--filter "label=agentctl.dev/uid=$uid"
        --filter "label=agentctl.dev/role=$2")
    case ${3:-container} in
    container) docker ps -aq --no-trunc "${flt[@]}" ;;
    network) docker network ls -q --no-trunc "${flt[@]}" ;;
    volume) docker volume ls -q "${flt[@]}" ;;
    esac
}
