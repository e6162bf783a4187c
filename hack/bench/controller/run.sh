#!/usr/bin/env bash
# run.sh - benchmark agent-controller against the floor and docker-compose,
# side by side in one run, and print one markdown table.
#
# For N = 1, 10, 50 concurrent invocations of the demo agent
# (agentctl/demo-agent:0.1.0, command [/demo-agent], vendor fake, phase
# execute, a one-file workspace) it measures, from the spec drop, the time
# to (a) agent running and (b) Succeeded, for:
#   agentctl - agent-controller on a directory (--resync 1s), specs dropped
#              with `agentctl apply -f` of one multi-document file; times
#              from cbwatch.c (inotify on the status directory: first status
#              document showing Running / startedAt, then Succeeded);
#   floor    - floor.sh: the same Engine API calls with the same bodies,
#              back to back with curl, N sequences as parallel jobs;
#   compose  - compose.sh: docker-compose (Debian's 1.29) of an equivalent
#              compose file, N projects in parallel.
# Also the controller's peak RSS (VmHWM) and CPU seconds (utime+stime) over
# each agentctl run (a fresh controller per run; its start-up is not timed).
# Every configuration runs BENCH_REPS times (default 2), interleaved so a
# load change on the machine hits all three alike. Not a test: numbers,
# no pass/fail (exit 1 only when the harness itself breaks).
#
# Everything the floor and compose create carries agentctl.bench=<run>;
# the controller's objects carry agentctl.dev/managed-by=<run>-...; all
# is removed on exit and checked. Subnets: controller 10.216.0.0/16, floor
# 10.217.0-49.0/24, compose 10.217.100-149.0/24, egress 10.217.255.0/24
# (BENCH_EGRESS_SUBNET);
# the script refuses to start when any network on the daemon uses them.
#
# agentctl-base (in BENCH_KINDS) is the controller built from the git
# revision BENCH_BASE (default HEAD~1), run exactly like agentctl: the
# before and after of a change, side by side in one run.
# agentctl-warm is this tree's controller with a warm pool of N boxes
# (warmPool: {fake: N}, docs/design.md "Warm pool"): the specs are dropped
# once the pool document shows N boxes Ready, so every invocation can take
# one; the pool refills while they run. Its leftovers count only the
# invocations' objects (the refilled boxes are the pool's, swept after).
# agentctl-warm-base is the same with BENCH_BASE's controller.
# Env: BENCH_NS ("1 10 50"), BENCH_REPS (2), BENCH_KINDS ("agentctl floor
# compose"), BENCH_COMPOSE_NS (the Ns compose runs at, default
# BENCH_NS), BENCH_TIMEOUT (per configuration, 600 s), BENCH_BUILD (build
# dir, build-bench-ctl), BENCH_SKIP_IMAGES=1 (do not run hack/images.sh when
# the images exist), BENCH_OUT (also write the table there), BENCH_KEEP
# (copy each agentctl run's controller log and status documents there),
# BENCH_CTL_ARGS (more flags for this tree's controller, not the base's:
# "--max-building 1"), BENCH_TRACE (a directory: each agentctl run at N = 1
# writes its critical path there, <controller-id>.trace: ms from the drop,
# Docker's events about the invocation's objects and its status phases).
# The deadline is an hour: the attempt's deadline bounds preparation too,
# and a loaded machine at N=50 can queue Docker calls for minutes.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=$ROOT/hack/bench/controller
B=${BENCH_BUILD:-$ROOT/build-bench-ctl}
NS=${BENCH_NS:-"1 10 50"}
REPS=${BENCH_REPS:-2}
KINDS=${BENCH_KINDS:-"agentctl floor compose"}
COMPOSE_NS=${BENCH_COMPOSE_NS:-$NS}
TIMEOUT=${BENCH_TIMEOUT:-600}
RUN=cbench-$(date +%H%M%S)-$$
EGRESS=$RUN-egress
EGRESS_SUBNET=${BENCH_EGRESS_SUBNET:-10.217.255.0/24}
VENDOR=$RUN-vendor
W=$(mktemp -d /tmp/ctlbench.XXXXXX)
PIDS=()
CTL_IDS=()

say() { echo "[$(date +%T)] $*" >&2; }

# --- clean-up: by label, also on failure ----------------------------
# sweep LABEL=VALUE [NAME_PREFIX]: remove containers, volumes, networks
# carrying the label (and whose name starts with the prefix, if given).
sweep() {
    local ids f=(--filter "label=$1")
    [ $# -lt 2 ] || f+=(--filter "name=$2")
    ids=$(docker ps -aq "${f[@]}")
    [ -z "$ids" ] || docker rm -f $ids >/dev/null 2>&1 || true
    ids=$(docker volume ls -q "${f[@]}")
    [ -z "$ids" ] || docker volume rm $ids >/dev/null 2>&1 || true
    ids=$(docker network ls -q "${f[@]}")
    [ -z "$ids" ] || docker network rm $ids >/dev/null 2>&1 || true
}
leftovers() { # LABEL=VALUE [NAME_PREFIX]: count what still carries it
    local f=(--filter "label=$1")
    [ $# -lt 2 ] || f+=(--filter "name=$2")
    echo $(($(docker ps -aq "${f[@]}" | wc -l) +
        $(docker volume ls -q "${f[@]}" | wc -l) +
        $(docker network ls -q "${f[@]}" | wc -l)))
}
cleanup() {
    local p id
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for id in "${CTL_IDS[@]}"; do sweep "agentctl.dev/managed-by=$id"; done
    sweep "agentctl.bench=$RUN"
    rm -rf "$W"
}
trap cleanup EXIT

# --- pre-flight --------------------------------------------------------
if docker network inspect $(docker network ls -q) \
    --format '{{.Name}} {{range .IPAM.Config}}{{.Subnet}} {{end}}' |
    grep -E " (10\.216\.|10\.217\.(1?[0-4]?[0-9])\.|${EGRESS_SUBNET//./\\.})"; then
    echo "a network above overlaps 10.216.0.0/16, 10.217.{0-49,100-149}.0/24" \
        "or $EGRESS_SUBNET: remove it, set BENCH_EGRESS_SUBNET or run later" >&2
    exit 1
fi
if [[ " $KINDS " == *" compose "* ]] && ! command -v docker-compose >/dev/null; then
    say "installing docker-compose (Debian)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends docker-compose >/dev/null
fi

# --- build ----------------------------------------------------------------
say "building agentctl, agent-controller, cbwatch"
cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$B" -j "$(nproc)" --target agentctl agent-controller >/dev/null
cc -O2 -Wall -Wextra -o "$W/cbwatch" "$HERE/cbwatch.c"
if [ "${BENCH_SKIP_IMAGES:-0}" != 1 ] ||
    ! docker image inspect agentctl/demo-agent:0.1.0 agentctl/egress-proxy:0.1.0 \
        agentctl/keeper:0.1.0 agentctl/testbox:0.1.0 agentctl/probe:0.1.0 \
        >/dev/null 2>&1; then
    say "building the images (hack/images.sh)"
    "$ROOT/hack/images.sh" >/dev/null
fi
if [[ " $KINDS " == *" floor "* && "${FLOOR_PROBE:-noop}" == noop ]]; then
    say "building the floor's probe that does no work (probe-images.sh noop)"
    "$HERE/probe-images.sh" noop "${FLOOR_NOOP_IMAGE:-agentctl/probe:bench-noop}" >/dev/null
fi
AGENTCTL=$B/cli/agentctl
CONTROLLER=$B/controller/agent-controller
BASE_CONTROLLER=
if [[ " $KINDS " == *" agentctl-base "* || " $KINDS " == *" agentctl-warm-base "* ]]; then
    say "building agent-controller at ${BENCH_BASE:-HEAD~1}"
    mkdir -p "$W/base-src"
    git -C "$ROOT" archive "${BENCH_BASE:-HEAD~1}" | tar -x -C "$W/base-src"
    cmake -S "$W/base-src" -B "$W/base-build" \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$W/base-build" -j "$(nproc)" --target agent-controller \
        >/dev/null
    BASE_CONTROLLER=$W/base-build/controller/agent-controller
fi
IMAGE=$(docker image inspect -f '{{.Id}}' agentctl/demo-agent:0.1.0)

# --- shared set-up: egress network, vendor, workspace, config ------------
docker network create --label "agentctl.bench=$RUN" \
    --subnet "$EGRESS_SUBNET" "$EGRESS" >/dev/null
docker run -d --name "$VENDOR" --label "agentctl.bench=$RUN" \
    --network "$EGRESS" --network-alias vendor.test agentctl/testbox:0.1.0 \
    sh -c 'mkdir -p /www && echo hello >/www/index.html &&
           exec httpd -f -p 443 -h /www' >/dev/null
mkdir -p "$W/ws/tiny" "$W/secrets"
chmod 700 "$W/secrets"
echo "a workspace file" >"$W/ws/tiny/README"
tar --owner=1000 --group=1000 --numeric-owner -C "$W/ws/tiny" \
    -cf "$W/ws.tar" README
cat >"$W/controller.yaml" <<YAML
vendors:
  fake: {hosts: ["vendor.test:443"], allowPrivate: true}
egressNetwork: $EGRESS
subnetPool: 10.216.0.0/16
workspaceRoot: $W/ws
secretsDir: $W/secrets
YAML

specs_file() { # N FILE: N invocation documents
    local i
    for ((i = 0; i < $1; i++)); do
        cat <<YAML
---
apiVersion: agentctl.dev/v1alpha1
kind: AgentInvocation
metadata: {name: b$i}
spec:
  vendor: fake
  phase: execute
  image: agentctl/demo-agent:0.1.0
  command: [/demo-agent]
  workspace: {source: tiny, size: 1Mi, inodes: 100}
  deadlineSeconds: 3600
YAML
    done >"$2"
}

# Each run_* writes $d/times: "<s_to_running> <s_to_succeeded> <ok 0|1>"
# per invocation, relative to the drop, and $d/extra for the table.
run_agentctl() { # N DIR [CONTROLLER|warm|warm-base]
    local n=$1 d=$2 id ctl watch t0 i st
    # -w: warm, -b: the base's controller (its path is no valid ID part)
    id=$RUN-a$1-$(basename "$2")
    case ${3:-} in
    '') ;;
    warm) id+=-w ;;
    warm-base) id+=-wb ;;
    *) id+=-b ;;
    esac
    local config=$W/controller.yaml bin=${3:-$CONTROLLER}
    CTL_IDS+=("$id")
    if [[ ${3:-} == warm* ]]; then
        config=$d/controller.yaml bin=$CONTROLLER
        [ "$3" = warm ] || bin=$BASE_CONTROLLER
        { cat "$W/controller.yaml"; echo "warmPool: {fake: $n}"; } >"$config"
    fi
    mkdir -p "$d/specs/.agentctl/status"
    specs_file "$n" "$d/in.yaml"
    "$W/cbwatch" "$d/specs/.agentctl/status" >"$d/marks" &
    watch=$!
    PIDS+=("$watch")
    local extra=${BENCH_CTL_ARGS:-}
    [ -z "${3:-}" ] || [ "$3" = warm ] || extra= # the base's flags are its own
    # shellcheck disable=SC2086 # extra: words
    "$bin" --specs "$d/specs" --config "$config" \
        --controller-id "$id" --resync 1s $extra 2>"$d/ctl.log" &
    ctl=$!
    PIDS+=("$ctl")
    for i in $(seq 100); do
        grep -q 'Docker daemon reachable' "$d/ctl.log" && break
        sleep 0.1
    done
    sleep 0.5
    if [[ ${3:-} == warm* ]]; then # n boxes ready before the drop
        for ((i = 0; i < TIMEOUT * 5; i++)); do
            [ "$(jq '[.boxes[] | select(.state == "Ready")] | length' \
                "$d/specs/.agentctl/pool/$id.json" 2>/dev/null)" = "$n" ] && break
            sleep 0.2
        done
        say "  $n warm boxes ready after $((i / 5)) s"
    fi
    local tracer=
    if [ -n "${BENCH_TRACE:-}" ] && [ "$n" = 1 ]; then # Docker's side of it
        local fmt='{{.TimeNano}} {{.Type}} {{.Action}} {{.Actor.ID}}'
        fmt+=' {{.Actor.Attributes.name}} {{.Actor.Attributes.container}}'
        docker events --format "$fmt" >"$d/docker-events" &
        tracer=$!
        PIDS+=("$tracer")
        sleep 0.5
    fi
    t0=$EPOCHREALTIME
    "$AGENTCTL" --specs "$d/specs" apply -f "$d/in.yaml" >/dev/null
    for ((i = 0; i < TIMEOUT * 5; i++)); do
        [ "$(grep -c ' cleanedUp$' "$d/marks")" -ge "$n" ] && break
        kill -0 "$ctl" 2>/dev/null || break # it exited: its log says why
        sleep 0.2
    done
    st=($(cat "/proc/$ctl/stat" | sed 's/.*) //'))
    echo "rss_kib=$(awk '/VmHWM/ {print $2}' "/proc/$ctl/status")" \
        "cpu_s=$(awk -v u="${st[11]}" -v s="${st[12]}" -v hz="$(getconf CLK_TCK)" \
            'BEGIN {printf "%.2f", (u + s) / hz}')" >"$d/extra"
    kill "$ctl" "$watch" $tracer
    wait "$ctl" "$watch" $tracer || true
    [ -z "$tracer" ] || trace "$d" "$t0" "$BENCH_TRACE/$id.trace"
    # What the stopped controller left (unfinished invocations keep their
    # objects on SIGTERM); removed now so the next run starts clean.
    echo "leftover=$(leftovers "agentctl.dev/managed-by=$id" agentctl-b)" >>"$d/extra"
    echo "retries=$(grep -c 'step failed' "$d/ctl.log")" >>"$d/extra"
    grep -o '"error":"[^"]*"' "$d/ctl.log" | sed -E 's/[0-9a-f]{64}/ID/g;
        s/agentctl-b[0-9]+-[0-9a-f]+/NAME/g; s/[0-9]+ milliseconds/N ms/;
        s/10\.216\.[0-9]+/10.216.X/g' | sort | uniq -c | sort -rn |
        head -8 >"$d/retries" || true
    sweep "agentctl.dev/managed-by=$id"
    if [ -n "${BENCH_KEEP:-}" ]; then # the controller's log and statuses
        mkdir -p "$BENCH_KEEP/$id"
        cp -r "$d/ctl.log" "$d/specs/.agentctl/status" "$BENCH_KEEP/$id/"
    fi
    for ((i = 0; i < n; i++)); do
        awk -v t0="$t0" -v name="b$i" '
            $2 == name && $3 == "Running" { r = $1 / 1e9 - t0 }
            $2 == name && ($3 == "Succeeded" || $3 == "Failed" ||
                           $3 == "Cancelled") { s = $1 / 1e9 - t0; ok = ($3 == "Succeeded") }
            END { if (r == "") r = "-"; if (s == "") s = "-"
                  printf "%s %s %d\n", r, s, ok + 0 }' "$d/marks"
    done >"$d/times"
}

# trace DIR T0 OUT: one invocation's critical path, ms from the spec's
# drop: Docker's events about its objects (their names hold "-b0-"; a
# network's connect and disconnect name the container, the egress
# network's too) and its status documents' phases (cbwatch), in time
# order.
trace() {
    mkdir -p "$(dirname "$3")"
    {
        awk -v t0="$2" '
            function role(n) { sub(/^agentctl-b0-[0-9a-f]+-/, "", n); return n }
            function at() { return sprintf("%.0f", ($1 / 1e9 - t0) * 1000) }
            $2 == "container" && $5 ~ /-b0-/ { who[$4] = role($5)
                print at(), "container", $3, who[$4] }
            $2 == "volume" && $4 ~ /-b0-/ { print at(), "volume", $3, role($4) }
            $2 == "network" && ($5 ~ /-b0-/ || $6 in who) {
                net = $5 ~ /-b0-/ ? "net" : ($5 ~ /-egress$/ ? "egress" : $5)
                print at(), "network", $3, net, ($6 in who ? who[$6] : "") }
            ' "$1/docker-events"
        awk -v t0="$2" '$2 == "b0" {
            printf "%.0f status %s\n", ($1 / 1e9 - t0) * 1000, $3 }' "$1/marks"
    } | sort -n -k1,1 >"$3"
}

run_script() { # KIND N DIR: floor.sh or compose.sh, N in parallel
    local kind=$1 n=$2 d=$3 t0 i base jobs=()
    local prefix=$RUN-${kind:0:1}$n-$(basename "$d")-
    base=$([ "$kind" = floor ] && echo 0 || echo 100)
    mkdir -p "$d"
    t0=$EPOCHREALTIME
    for ((i = 0; i < n; i++)); do
        timeout "$TIMEOUT" "$HERE/$kind.sh" "$RUN" \
            "$prefix$i" $((base + i)) "$IMAGE" \
            "$EGRESS" "$W/ws.tar" "$d" >"$d/r$i" 2>"$d/err$i" &
        jobs+=($!)
    done
    wait "${jobs[@]}" || true
    for ((i = 0; i < n; i++)); do
        awk -v t0="$t0" '
            NF == 4 && $1 != "-" && $2 != "-" {
                printf "%.6f %.6f %d\n", $1 - t0, $2 - t0, $4 == "0"; next }
            { print "- - 0" }
            END { if (NR == 0) print "- - 0" }' "$d/r$i"
    done >"$d/times"
    # Jobs cut by BENCH_TIMEOUT leave objects: counted, then removed.
    echo "leftover=$(leftovers "agentctl.bench=$RUN" "$prefix")" >"$d/extra"
    sweep "agentctl.bench=$RUN" "$prefix"
}

stats() { # TIMES COLUMN: "p50 max" of that column over the ok rows
    awk -v c="$2" '$3 == 1 && $c != "-" { print $c }' "$1" | sort -g |
        awk '{ v[NR] = $1 } END {
            if (NR == 0) { print "- -"; exit }
            printf "%.2f %.2f\n", v[int((NR + 1) / 2)], v[NR] }'
}

# --- the runs ------------------------------------------------------------
ROWS=$W/rows
: >"$ROWS"
for rep in $(seq "$REPS"); do
    for n in $NS; do
        for kind in $KINDS; do
            [ "$kind" != compose ] || [[ " $COMPOSE_NS " == *" $n "* ]] ||
                continue
            d=$W/$kind-$n/$rep
            mkdir -p "$d"
            load=$(cut -d' ' -f1 /proc/loadavg)
            say "$kind N=$n run $rep (load $load)"
            start=$EPOCHREALTIME
            if [ "$kind" = agentctl ]; then
                run_agentctl "$n" "$d"
            elif [ "$kind" = agentctl-base ]; then
                run_agentctl "$n" "$d" "$BASE_CONTROLLER"
            elif [ "$kind" = agentctl-warm ]; then
                run_agentctl "$n" "$d" warm
            elif [ "$kind" = agentctl-warm-base ]; then
                run_agentctl "$n" "$d" warm-base
            else
                run_script "$kind" "$n" "$d"
            fi
            wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}')
            read -r rp50 rmax <<<"$(stats "$d/times" 1)"
            read -r sp50 smax <<<"$(stats "$d/times" 2)"
            ok=$(awk '$3 == 1' "$d/times" | wc -l)
            echo "$n $rep $kind $rp50 $rmax $sp50 $smax $ok $wall $load $(cat "$d/extra" | tr '\n' ' ')" >>"$ROWS"
            [ ! -s "$d/retries" ] || { say "  controller retries:"; cat "$d/retries" >&2; }
            say "  running p50/max $rp50/$rmax s, succeeded p50/max $sp50/$smax s, ok $ok/$n, wall ${wall}s; $(cat "$d/extra" | tr '\n' ' ')"
            cat "$d"/err* 2>/dev/null | head -5 >&2 || true
        done
    done
done

# --- the table ----------------------------------------------------------------
table() {
    echo "| N | run | kind | running p50 / max (s) | succeeded p50 / max (s) | ok | agentctl/floor running p50, succeeded p50 | controller peak RSS, CPU, failed steps | wall (s) | load | leftovers |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    awk '
        { key = $1 " " $2; k[NR] = $0; if ($3 == "floor") { fr[key] = $4; fs[key] = $6 } }
        END {
            for (i = 1; i <= NR; i++) {
                split(k[i], f, " "); key = f[1] " " f[2]
                ratio = ""; extra = ""; left = ""
                for (j = 11; j <= length(f); j++) {
                    if (f[j] ~ /^rss_kib=/) { sub(/rss_kib=/, "", f[j]); rss = f[j] }
                    if (f[j] ~ /^cpu_s=/) { sub(/cpu_s=/, "", f[j]); cpu = f[j] }
                    if (f[j] ~ /^leftover=/) { sub(/leftover=/, "", f[j]); left = f[j] }
                    if (f[j] ~ /^retries=/) { sub(/retries=/, "", f[j]); retries = f[j] }
                }
                if (f[3] ~ /^agentctl/) {
                    extra = sprintf("%.1f MiB, %s s, %s retries", rss / 1024, cpu, retries)
                    if ((key in fr) && fr[key] > 0 && f[4] != "-")
                        ratio = sprintf("%.2fx, %.2fx", f[4] / fr[key], f[6] / fs[key])
                }
                printf "| %s | %s | %s | %s / %s | %s / %s | %s/%s | %s | %s | %s | %s | %s |\n",
                    f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[1], ratio, extra, f[9], f[10], left
            }
        }' "$ROWS"
}
echo
echo "controller benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
table | tee "${BENCH_OUT:-/dev/null}"
