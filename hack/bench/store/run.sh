#!/usr/bin/env bash
# run.sh - the directory store against the etcd store, side by
# side in one run: how long until agent-controller has seen 1,000 applied
# specs, and the watch-to-reconcile latency of one spec at a time (p50/p99),
# plus the controller's peak RSS. Not a test: numbers, no pass/fail (exit 1
# only when the harness itself breaks). docs/bench-store.md has the results.
#
# No agent runs (1,000 agents do not fit a 2-core machine). Every spec is an
# ordinary one the controller admits, naming an image that is not on the
# daemon: the controller writes its first status (Pending, Admitted=True)
# before any Docker call - that is "seen" - then asks Docker for the image
# (a read; 404), writes Failed/ImageNotFound with two events, cleans up
# (cleanedUp: true) and, on etcd, releases its claim - that is "done".
# Nothing is created on the daemon for them; the controller's label is
# swept anyway.
#
# Per store, a fresh store and controller (--resync 5s, the default):
#   latency: S specs applied one at a time to the empty store, the
#            controller otherwise idle (`agentctl apply -f` of one document,
#            the next after the previous is done, 0-90 ms apart); from the
#            spec's write to its first status and to done;
#   bulk:    `agentctl apply -f` of one file of N documents (the same client
#            for both stores); time from its start to the last first status
#            (seen) and to the last cleanedUp (done);
#   latency: again, now with those N (and the S) in the store;
#   idle:    10 s with nothing applied: the controller's CPU and, on etcd,
#            the requests etcd answers (the resync's price);
#   drift:   (after the RSS and CPU figures below are taken) D agents that
#            do run, one at a time, the N (and 2S) specs still in the
#            store and, on the directory store, the hostile file beside
#            them: once one is Running its agent container gets
#            `docker update --restart always` (by ID); from Docker's
#            `update` event (its TimeNano, followed live by `docker
#            events`) and from the command's start to the first status
#            that says Failed; its stopReason (boundary-drift) is read
#            after it is cleaned up. These agents need a box: the bench's
#            own egress network and test vendor (a busybox httpd as
#            vendor.test), both with this run's test label.
# At the end of each store: peak RSS (VmHWM) and CPU of the controller, and
# of etcd.
# The clock is stwatch.c: inotify on the spec and status directories, or an
# etcd watch (curl on the JSON gateway) over <prefix>/specs/ and
# <prefix>/status/; it stamps each notification on arrival, before parsing.
# So a latency is "the spec became visible to watchers" to "its status
# became visible to watchers", one observer and one clock for both ends.
#
# Env: BENCH_N (1000), BENCH_SAMPLES (200), BENCH_STORES ("dir etcd"; add
# "dirmv": the directory store fed by mv instead of agentctl),
# BENCH_REPS (1: every store again, in turn), BENCH_BASE (a baseline
# build dir: a column "dir-base" or "etcd-base" runs that store with its
# agentctl and agent-controller, beside this tree's), BENCH_TIMEOUT (s per
# wait, 900), BENCH_BUILD (build dir, build-bench-store), BENCH_OUT (also
# write the table there), BENCH_KEEP (copy logs and event streams there),
# BENCH_HOSTILE (1: the hostile ~1 MiB file of tests/specs/hostile lies
# in the directory store's specs from the start; 0: not),
# BENCH_DRIFT_SAMPLES (D, 5; 0: no drift phase). During the bulk
# GET /healthz is polled back to back: the controller's loop answers it,
# so its latency is how long the loop was busy.
LIB_NO_CHECKS=1 # lib.sh: a benchmark, no "passed: N checks" line
source "$(cd "$(dirname "$0")/../../.." && pwd)/tests/integration/lib.sh"
source "$ROOT/tests/integration/store/etcd_lib.sh"
HERE=$ROOT/hack/bench/store
B=${BENCH_BUILD:-$ROOT/build-bench-store}
N=${BENCH_N:-1000}
SAMPLES=${BENCH_SAMPLES:-200}
STORES=${BENCH_STORES:-"dir etcd"}
BASE=${BENCH_BASE:-} # a baseline build dir, for the "<store>-base" columns
REPS=${BENCH_REPS:-1}
TIMEOUT=${BENCH_TIMEOUT:-900}
DRIFT_SAMPLES=${BENCH_DRIFT_SAMPLES:-5}
RUN=stbench-$(date +%H%M%S)-$$
VERSION=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' \
    "$ROOT/CMakeLists.txt")
# the drift phase's agents: what the controller builds a box of
DEMO_IMAGE=agentctl/demo-agent:$VERSION
BOX_IMAGE=agentctl/testbox:$VERSION
EGRESS_NET=$RUN-egress
PREFIX=/bench
# An image no one builds: the controller must get a 404 for it.
ABSENT_IMAGE=agentctl/bench-store-absent:0.0.0
AGENTCTL=$B/cli/agentctl
CONTROLLER=$B/controller/agent-controller
STWATCH=$TEST_TMP/stwatch
ROWS=$TEST_TMP/rows
BG=() # pids of what runs in the background, stopped on exit

say() { echo "[$(date +%T)] $*" >&2; }

# lib.sh's EXIT trap runs the on_cleanup hooks and removes $TEST_TMP;
# Ctrl-C and kill must go through it too.
trap 'exit 130' INT TERM
stop_bg() {
    local p
    for p in "${BG[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${BG[@]}"; do wait "$p" 2>/dev/null || true; done
    BG=()
}
on_cleanup stop_bg
# Every controller of this run has its own ID (CTL_IDS): its Docker
# objects would carry agentctl.dev/managed-by=<ID>. None is expected (no
# invocation gets that far); swept anyway, also on failure.
CTL_IDS=()
sweep_run() {
    local id
    for id in "${CTL_IDS[@]}"; do
        docker_cleanup_label "agentctl.dev/managed-by=$id"
    done
}
on_cleanup sweep_run

# --- pre-flight and build -------------------------------------------------
preflight() {
    need_docker
    command -v jq >/dev/null || fail "jq is needed (apt-get install jq)"
    if ! command -v etcd >/dev/null; then
        say "installing etcd-server (Debian)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends etcd-server >/dev/null
    fi
    ! docker image inspect "$ABSENT_IMAGE" >/dev/null 2>&1 ||
        fail "$ABSENT_IMAGE exists on the daemon; the benchmark needs it absent"
    case " $STORES" in *-base*)
        if [ ! -x "$BASE/cli/agentctl" ] || [ ! -x "$BASE/controller/agent-controller" ]; then
            fail "a -base column needs BENCH_BASE=<build dir> with agentctl and agent-controller"
        fi ;;
    esac
    local img
    [ "$DRIFT_SAMPLES" = 0 ] ||
        for img in "$DEMO_IMAGE" "$BOX_IMAGE" "agentctl/egress-proxy:$VERSION" \
            "agentctl/keeper:$VERSION"; do
            docker image inspect "$img" >/dev/null 2>&1 ||
                fail "$img is missing (hack/images.sh builds it)"
        done
    say "building agentctl, agent-controller, stwatch"
    cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$B" -j "$(nproc)" --target agentctl agent-controller >/dev/null
    cc -O2 -Wall -Wextra -Werror -o "$STWATCH" "$HERE/stwatch.c"
    mkdir -p "$TEST_TMP/ws" "$TEST_TMP/secrets"
    chmod 700 "$TEST_TMP/secrets"
    bash "$ROOT/tests/specs/hostile/make.sh" "$TEST_TMP/hostile" >/dev/null
    # Only the vendor matters (admission) until the drift phase: only its
    # agents reach a network, the egress network below.
    cat >"$TEST_TMP/controller.yaml" <<YAML
vendors:
  fake: {hosts: ["vendor.test:443"], allowPrivate: true}
images: {proxy: "agentctl/egress-proxy:$VERSION", keeper: "agentctl/keeper:$VERSION"}
egressNetwork: $EGRESS_NET
agentUser: "1000:1000"
subnetPool: 10.218.0.0/16
workspaceRoot: $TEST_TMP/ws
secretsDir: $TEST_TMP/secrets
YAML
    [ "$DRIFT_SAMPLES" = 0 ] || start_vendor
}

# start_vendor: the egress network and a test vendor on it (busybox httpd
# as vendor.test), both labelled $TEST_LABEL: lib.sh removes them on exit.
start_vendor() {
    local i
    docker network create --label "$TEST_LABEL" "$EGRESS_NET" >/dev/null ||
        fail "cannot create the egress network $EGRESS_NET"
    docker run -d --label "$TEST_LABEL" --name "$RUN-vendor" \
        --network "$EGRESS_NET" --network-alias vendor.test "$BOX_IMAGE" \
        sh -c "echo $RUN >/www/index.html && exec httpd -f -p 443 -h /www" \
        >/dev/null || fail "cannot start the test vendor"
    for i in $(seq 100); do # readiness, not timed
        docker exec "$RUN-vendor" timeout 5 wget -q -O - \
            http://127.0.0.1:443/ 2>/dev/null | grep -q "$RUN" && return 0
        sleep 0.1
    done
    fail "the test vendor never answered"
}

# spec_docs PREFIX COUNT [DIR [PER]]: invocation documents PREFIX0.. on
# stdout, or in DIR one file each, or PER each (PREFIX0.yaml, PREFIX1.yaml,
# ...; awk: a thousand forks of cat take 20 s here).
spec_docs() {
    awk -v p="$1" -v n="$2" -v dir="${3:-}" -v per="${4:-1}" -v img="$ABSENT_IMAGE" 'BEGIN {
        for (i = 0; i < n; i++) {
            out = dir == "" ? "/dev/stdout" : dir "/" p int(i / per) ".yaml"
            printf "---\napiVersion: agentctl.dev/v1alpha1\n" \
                "kind: AgentInvocation\nmetadata: {name: %s%d}\nspec:\n" \
                "  vendor: fake\n  phase: execute\n  image: %s\n" \
                "  command: [/demo-agent]\n  deadlineSeconds: 600\n",
                p, i, img > out
            if (dir != "" && (i + 1) % per == 0) close(out)
        } }'
}

# --- one store: its flags, its watcher ------------------------------------
# etcd_fresh: a new etcd (empty data dir) on free loopback ports
# (etcd_lib.sh's start_etcd, which also registers its cleanup).
etcd_fresh() {
    kill_etcd
    rm -rf "$TEST_TMP/etcd"
    start_etcd
}

# store_flags STORE DIR: the flags agentctl and the controller share.
# "dirmv" is the directory store fed by mv instead of agentctl (below).
store_flags() {
    if [ "$1" != etcd ]; then
        echo "--specs $2/specs"
    else
        echo "--etcd $ETCD_URL --etcd-prefix $PREFIX"
    fi
}

# The etcd watch, normalised to the dir watcher's lines (jq runs after the
# stamp, off the clock): "<ns> spec NAME" / "<ns> status NAME PHASE 0|1".
# shellcheck disable=SC2016 # jq's own variables
ETCD_NORMALISE='
  .ns as $t
  | if .m.result.created then "\($t) ready" else
      .m.result.events[]? | select(.type != "DELETE")
      | (.kv.key | @base64d) as $k
      | if ($k | startswith($p + "/specs/")) then
          "\($t) spec \($k | ltrimstr($p + "/specs/"))"
        elif ($k | startswith($p + "/status/")) then
          (.kv.value | @base64d | fromjson) as $s
          | "\($t) status \($k | ltrimstr($p + "/status/")) \($s.phase)" +
            " \(if $s.cleanedUp == true then 1 else 0 end)"
        else empty end
    end'

# start_watch STORE DIR: the event stream into DIR/events until stopped.
start_watch() {
    local store=$1 d=$2 key end i
    if [ "$store" != etcd ]; then
        mkdir -p "$d/specs/.agentctl/status"
        "$STWATCH" dir "$d/specs" "$d/specs/.agentctl/status" >"$d/events" &
        BG+=($!)
    else
        # [<p>/specs/, <p>/status0) holds exactly specs/* and status/*
        key=$(printf '%s/specs/' "$PREFIX" | base64 -w0)
        end=$(printf '%s/status0' "$PREFIX" | base64 -w0)
        # three processes joined by FIFOs, so each has a pid to stop
        mkfifo "$d/raw" "$d/stamped"
        curl -sN -X POST "$ETCD_URL/v3/watch" \
            -d "{\"create_request\":{\"key\":\"$key\",\"range_end\":\"$end\"}}" \
            >"$d/raw" &
        BG+=($!)
        "$STWATCH" lines <"$d/raw" >"$d/stamped" &
        BG+=($!)
        jq -r --unbuffered --arg p "$PREFIX" "$ETCD_NORMALISE" \
            <"$d/stamped" >"$d/events" &
        BG+=($!)
    fi
    for i in $(seq 100); do
        grep -q ' ready$' "$d/events" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "the $store watcher did not start"
}


# start_controller STORE DIR ID: sets CTL_PID once it talks to Docker.
start_controller() {
    local store=$1 d=$2 id=$3 i extra=()
    # the etcd store keeps captured output in a local state directory
    [ "$store" != etcd ] || extra=(--state "$d/state")
    # /healthz is answered from the controller's loop: polled in the bulk
    free_port
    HEALTHZ_URL=http://127.0.0.1:$FREE_PORT/healthz
    extra+=(--metrics "127.0.0.1:$FREE_PORT")
    # the hostile ~1 MiB file of tests/specs/hostile beside the specs
    if [ "$store" != etcd ] && [ "${BENCH_HOSTILE:-1}" = 1 ]; then
        mkdir -p "$d/specs"
        cp "$TEST_TMP/hostile/docs-21x9999-keys.yaml" "$d/specs/hostile.yaml"
    fi
    # shellcheck disable=SC2046 # the store flags are separate words
    "$CONTROLLER" $(store_flags "$store" "$d") "${extra[@]}" \
        --config "$TEST_TMP/controller.yaml" --controller-id "$id" \
        --resync 5s 2>"$d/ctl.log" &
    CTL_PID=$!
    BG+=("$CTL_PID")
    CTL_IDS+=("$id")
    for i in $(seq 100); do
        grep -qs 'Docker daemon reachable' "$d/ctl.log" && break
        kill -0 "$CTL_PID" 2>/dev/null || {
            cat "$d/ctl.log" >&2
            fail "agent-controller on $store exited at start"
        }
        sleep 0.1
    done
    sleep 1 # first sync (and on etcd the lease) done: start-up is not timed
}

# proc_usage PID: "<VmHWM KiB> <CPU s>" of a live process.
proc_usage() {
    local st
    read -r -a st <<<"$(sed 's/.*) //' "/proc/$1/stat")"
    echo "$(awk '/^VmHWM/ {print $2}' "/proc/$1/status")" \
        "$(awk -v u="${st[11]}" -v s="${st[12]}" -v hz="$(getconf CLK_TCK)" \
            'BEGIN {printf "%.2f", (u + s) / hz}')"
}

row() { echo "$REP $STORE $1 $2" >>"$ROWS"; } # KEY VALUE

# wait_done EVENTS NAME_RE COUNT: until COUNT names matching the regex are
# cleaned up. Polled every 0.5 s: the times come from the stamps, not
# from when this loop noticed.
wait_done() {
    local end=$((SECONDS + TIMEOUT)) n=0
    while [ "$SECONDS" -lt "$end" ]; do
        n=$(awk -v re="$2" '$2 == "status" && $5 == 1 && $3 ~ re { d[$3] = 1 }
            END { print length(d) }' "$1")
        [ "$n" -lt "$3" ] || return 0
        sleep 0.5
    done
    fail "$STORE: only $n of $3 specs done after ${TIMEOUT}s"
}

# --- the two measurements -------------------------------------------------
# put_specs DIR FILE|FILES-DIR: the spec(s) into the store under test. The
# same client for dir and etcd; "dirmv" renames one-document files into
# the directory (what the store itself does, without agentctl's own cost:
# every put of the directory store lists and parses all specs first).
put_specs() {
    if [ "$KIND" = dirmv ]; then
        if [ -d "$2" ]; then mv "$2"/*.yaml "$1/specs/"; else mv "$2" "$1/specs/"; fi
    else
        # shellcheck disable=SC2046 # the store flags are separate words
        "$AGENTCTL" $(store_flags "$KIND" "$1") apply -f "$2" >/dev/null
    fi
}

# bulk DIR: N specs in one apply; seconds from its start.
bulk() {
    local d=$1 t0 t1
    local src=$d/bulk.yaml
    if [ "$KIND" = dirmv ]; then # one file per spec, on the same fs
        src=$d/bulk
        mkdir -p "$src"
        spec_docs b "$N" "$src"
    elif [ "$N" -gt 2000 ]; then # a file is at most 1 MiB: 2,000 a file
        src=$d/bulk
        mkdir -p "$src"
        spec_docs b "$N" "$src" 2000
    else
        spec_docs b "$N" >"$src"
    fi
    say "$STORE: applying $N specs"
    poll_healthz "$d/healthz" &
    local poller=$!
    BG+=("$poller")
    t0=$EPOCHREALTIME
    put_specs "$d" "$src"
    t1=$EPOCHREALTIME
    wait_done "$d/events" '^b[0-9]+$' "$N"
    kill "$poller" 2>/dev/null || true
    wait "$poller" 2>/dev/null || true
    # total: p50, p99, max; connect and first byte: p99 (a connect of 1 s
    # or more is a SYN resent, a late first byte the controller's wait)
    for col in 3:total 1:connect 2:ttfb; do
        cut -d' ' -f"${col%%:*}" "$d/healthz" | sort -g | awk -v k="${col#*:}" '
            { v[NR] = $1 * 1000 }
            END { r50 = int((50 * NR + 99) / 100); r99 = int((99 * NR + 99) / 100)
                  if (k == "total")
                      printf "healthz_n %d\nhealthz_p50 %.1f\nhealthz_p99 %.1f\nhealthz_max %.1f\n",
                             NR, v[r50], v[r99], v[NR]
                  else
                      printf "healthz_%s_p99 %.1f\n", k, v[r99] }'
    done | while read -r k v; do row "$k" "$v"; done
    row apply_s "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')"
    # the last first status (seen) and the last cleanedUp (done) of b*
    awk -v t0="$t0" -v n="$N" '
        $2 == "status" && $3 ~ /^b[0-9]+$/ {
            t = $1 / 1e9 - t0
            if (!($3 in seen)) { seen[$3] = 1; if (t > s) s = t }
            if ($5 == 1 && !($3 in done)) { done[$3] = 1; if (t > d) d = t }
        }
        END { printf "seen_s %.2f\nseen_rate %.0f\ndone_s %.2f\ndone_rate %.0f\n",
                     s, n / s, d, n / d }' "$d/events" |
        while read -r k v; do row "$k" "$v"; done
}

# poll_healthz FILE: GET /healthz one after another (10 ms apart) until
# killed, a line of FILE per answer: curl's seconds to connected, to the
# first byte and in all (no answer in 10 s: 10 10 10). curl's own start is
# in none of them.
poll_healthz() {
    while :; do
        curl -s -o /dev/null --max-time 10 \
            -w '%{time_connect} %{time_starttransfer} %{time_total}\n' \
            "$HEALTHZ_URL" >>"$1" || echo 10 10 10 >>"$1"
        sleep 0.01
    done
}

# until_done FD NAME: read the event stream until NAME is cleaned up.
until_done() {
    local kind name cleaned
    # fields: <ns> spec|status NAME [PHASE CLEANED]
    while read -r -t "$TIMEOUT" _ kind name _ cleaned <&"$1"; do
        [ "$kind $name $cleaned" != "status $2 1" ] || return 0
    done
    return 1
}

# latency DIR PREFIX: SAMPLES specs one at a time, each after the last is
# done; rows lat<PREFIX>_*.
latency() {
    local d=$1 p=$2 i fd tailpid col
    mkdir -p "$d/one-$p"
    spec_docs "$p" "$SAMPLES" "$d/one-$p"
    # follow the stream from here on (by offset: tail may open it late)
    exec {fd}< <(tail -c +$(($(stat -c %s "$d/events") + 1)) -f "$d/events")
    tailpid=$!
    BG+=("$tailpid")
    say "$STORE: $SAMPLES specs one at a time ($p)"
    for ((i = 0; i < SAMPLES; i++)); do
        # 0-90 ms apart, so the samples do not lock onto the resync timer
        sleep "0.0$((RANDOM % 10))"
        echo "$p$i $EPOCHREALTIME" >>"$d/applied-$p"
        put_specs "$d" "$d/one-$p/$p$i.yaml"
        until_done "$fd" "$p$i" || fail "$STORE: $p$i not done in ${TIMEOUT}s"
    done
    kill "$tailpid" 2>/dev/null || true
    exec {fd}<&-
    # per sample (ms): spec write -> first status, -> done; apply start ->
    # first status (what a user of agentctl sees, its own run included)
    awk -v re="^${p}[0-9]+\$" 'NR == FNR { a[$1] = $2; next }
        $3 !~ re { next }
        $2 == "spec" && !($3 in w) { w[$3] = $1 }
        $2 == "status" && !($3 in s) { s[$3] = $1 }
        $2 == "status" && $5 == 1 && !($3 in c) { c[$3] = $1 }
        END { for (n in a)
            printf "%.2f %.2f %.2f\n", (s[n] - w[n]) / 1e6,
                (c[n] - w[n]) / 1e6, s[n] / 1e6 - a[n] * 1e3 }' \
        "$d/applied-$p" "$d/events" >"$d/lat-$p"
    for col in 1:seen 2:done 3:client; do
        cut -d' ' -f"${col%%:*}" "$d/lat-$p" | sort -g | awk -v k="lat${p}_${col#*:}" '
            { v[NR] = $1 }
            END { r50 = int((50 * NR + 99) / 100); r99 = int((99 * NR + 99) / 100)
                  printf "%s_p50 %s\n%s_p99 %s\n%s_max %s\n", k, v[r50], k, v[r99], k, v[NR] }'
    done | while read -r k v; do row "$k" "$v"; done
}

# idle DIR: what the idle controller costs with N + 2S specs in the store,
# over 10 s (two resyncs): its CPU share and, on etcd, the requests etcd
# answered (gRPC calls of the KV and Lease services - reads, writes, the
# lease keep-alive; the gateway turns each JSON request into one; the
# watch streams, ours and the bench's, are the Watch service).
idle() {
    local c0 c1 k0 k1
    c0=$(proc_cpu "$CTL_PID")
    [ "$KIND" != etcd ] || k0=$(etcd_kv_calls)
    sleep 10
    c1=$(proc_cpu "$CTL_PID")
    row idle_cpu_pct "$(awk -v a="$c0" -v b="$c1" 'BEGIN {printf "%.0f", (b - a) * 10}')"
    [ "$KIND" != etcd ] || {
        k1=$(etcd_kv_calls)
        row idle_etcd_rps "$(awk -v a="$k0" -v b="$k1" 'BEGIN {printf "%.1f", (b - a) / 10}')"
    }
}
proc_cpu() { proc_usage "$1" | cut -d' ' -f2; }
etcd_kv_calls() {
    curl -fsS "$ETCD_URL/metrics" | awk '/^grpc_server_handled_total/ &&
        /grpc_service="etcdserverpb.(KV|Lease)"/ { s += $2 } END { printf "%d\n", s }'
}

# drift_doc NAME: an invocation whose agent runs (sleeps) until stopped.
drift_doc() {
    printf '%s\n' "apiVersion: agentctl.dev/v1alpha1" "kind: AgentInvocation" \
        "metadata: {name: $1}" "spec:" "  vendor: fake" "  phase: execute" \
        "  image: $DEMO_IMAGE" "  command: [/demo-agent, --sleep, \"600\"]" \
        "  deadlineSeconds: 600"
}

# until_status FD NAME PHASE CLEANED: read the event stream until a status
# of NAME in PHASE with cleanedUp CLEANED (0, 1, or * for either); 1 on
# timeout, 2 when NAME ended in another terminal phase.
until_status() {
    local kind name phase cleaned
    # fields: <ns> spec|status NAME [PHASE CLEANED]
    while read -r -t "$TIMEOUT" _ kind name phase cleaned <&"$1"; do
        [ "$kind $name" = "status $2" ] || continue
        if [ "$phase" = "$3" ]; then
            if [ "$4" = "*" ] || [ "$cleaned" = "$4" ]; then return 0; fi
        elif [[ $phase =~ ^(Succeeded|Failed|Cancelled)$ ]]; then
            return 2
        fi
    done
    return 1
}

# drift DIR ID: DRIFT_SAMPLES agents one at a time, each made to drift
# once Running (its agent container gets RestartPolicy "always"), the next
# after the last is cleaned up; rows drift_*. The controller has ID ID.
drift() {
    local d=$1 id=$2 i n fd tailpid uid agent rc col
    [ "$DRIFT_SAMPLES" -gt 0 ] || return 0
    row drift_load "$(cut -d' ' -f1 /proc/loadavg)"
    mkdir -p "$d/drift"
    # Docker's update events of this controller's objects, from now on:
    # "<TimeNano> <container ID>"
    docker events --filter "label=agentctl.dev/managed-by=$id" \
        --filter event=update --format '{{.TimeNano}} {{.ID}}' \
        >"$d/drift-updates" 2>"$d/drift-updates.err" &
    BG+=($!)
    exec {fd}< <(tail -c +$(($(stat -c %s "$d/events") + 1)) -f "$d/events")
    tailpid=$!
    BG+=("$tailpid")
    sleep 1 # the events stream is subscribed (not timed)
    say "$STORE: $DRIFT_SAMPLES running agents made to drift, one at a time"
    for ((i = 0; i < DRIFT_SAMPLES; i++)); do
        n=drift$i
        drift_doc "$n" >"$d/drift/$n.yaml"
        put_specs "$d" "$d/drift/$n.yaml"
        rc=0
        until_status "$fd" "$n" Running "*" || rc=$?
        [ "$rc" = 0 ] || fail "$STORE: $n not Running (rc $rc): $(tail -n 5 "$d/ctl.log")"
        # shellcheck disable=SC2046 # the store flags are separate words
        uid=$("$AGENTCTL" $(store_flags "$KIND" "$d") get "$n" -o json |
            jq -r '.metadata.uid // empty')
        agent=$(docker ps -q --no-trunc --filter "label=agentctl.dev/uid=$uid" \
            --filter label=agentctl.dev/role=agent)
        [[ $agent =~ ^[0-9a-f]{64}$ ]] || fail "$STORE: $n: no agent container ($agent)"
        echo "$n $agent $EPOCHREALTIME" >>"$d/drift-cmd"
        docker update --restart always "$agent" >/dev/null ||
            fail "$STORE: docker update of $n's agent failed"
        rc=0
        until_status "$fd" "$n" Failed 1 || rc=$?
        [ "$rc" = 0 ] || fail "$STORE: $n not Failed and cleaned up (rc $rc)"
        # shellcheck disable=SC2046 # the store flags are separate words
        echo "$n $("$AGENTCTL" $(store_flags "$KIND" "$d") get "$n" -o json |
            jq -r '.status.stopReason // "none"')" >>"$d/drift-stop"
    done
    kill "$tailpid" 2>/dev/null || true
    exec {fd}<&-
    # per sample (ms): Docker's update event -> first Failed status, and
    # `docker update` start -> first Failed status; "-" for an event not
    # seen (then only the second)
    awk 'FILENAME == ARGV[1] { ag[$1] = $2; cmd[$1] = $3; next }
        FILENAME == ARGV[2] { if (!($2 in up)) up[$2] = $1; next }
        $2 == "status" && ($3 in ag) && $4 == "Failed" && !($3 in f) { f[$3] = $1 }
        END { for (n in ag) {
            ev = (ag[n] in up) ? sprintf("%.1f", (f[n] - up[ag[n]]) / 1e6) : "-"
            printf "%s %s %.1f\n", n, ev, f[n] / 1e6 - cmd[n] * 1e3 } }' \
        "$d/drift-cmd" "$d/drift-updates" "$d/events" >"$d/lat-drift"
    row drift_n "$(grep -c . "$d/lat-drift")"
    row drift_events "$(awk '$2 != "-"' "$d/lat-drift" | grep -c . || true)"
    row drift_boundary "$(grep -c ' boundary-drift$' "$d/drift-stop" || true)"
    for col in 2:ev 3:cmd; do
        cut -d' ' -f"${col%%:*}" "$d/lat-drift" | grep -v '^-$' | sort -g |
            awk -v k="drift_${col#*:}" '{ v[NR] = $1 }
                END { if (NR == 0) exit
                      r50 = int((50 * NR + 99) / 100)
                      printf "%s_p50 %s\n%s_max %s\n", k, v[r50], k, v[NR] }'
    done | while read -r k v; do row "$k" "$v"; done
}

# one_store: a fresh store and controller of column STORE, every
# measurement. A column "<store>-base" is that store run by the baseline
# build (BENCH_BASE), so an old and a new build are measured side by side.
one_store() {
    local d=$TEST_TMP/$STORE-$REP usage
    KIND=${STORE%-base}
    if [ "$KIND" != "$STORE" ]; then
        AGENTCTL=$BASE/cli/agentctl
        CONTROLLER=$BASE/controller/agent-controller
    else
        AGENTCTL=$B/cli/agentctl
        CONTROLLER=$B/controller/agent-controller
    fi
    mkdir -p "$d"
    [ "$KIND" != etcd ] || etcd_fresh # no history from the last rep
    start_watch "$KIND" "$d"
    row load "$(cut -d' ' -f1 /proc/loadavg)"
    start_controller "$KIND" "$d" "$RUN-$STORE-$REP"
    latency "$d" e # an empty store: the path itself
    bulk "$d"
    latency "$d" l # N specs in the store: what a resync and a list cost
    idle "$d"
    read -r -a usage <<<"$(proc_usage "$CTL_PID")"
    row ctl_rss_mib "$(awk -v k="${usage[0]}" 'BEGIN {printf "%.1f", k / 1024}')"
    row ctl_cpu_s "${usage[1]}"
    if [ "$KIND" = etcd ]; then
        read -r -a usage <<<"$(proc_usage "$ETCD_PID")"
        row etcd_rss_mib "$(awk -v k="${usage[0]}" 'BEGIN {printf "%.1f", k / 1024}')"
        row etcd_cpu_s "${usage[1]}"
    fi
    row failed_steps "$(grep -c 'step failed' "$d/ctl.log" || true)"
    drift "$d" "$RUN-$STORE-$REP"
    [ -z "${BENCH_KEEP:-}" ] || {
        mkdir -p "$BENCH_KEEP/$STORE-$REP"
        cp "$d/ctl.log" "$d/events" "$d"/lat-* "$BENCH_KEEP/$STORE-$REP/"
        [ ! -e "$d/drift-cmd" ] ||
            cp "$d"/drift-{cmd,updates,stop} "$BENCH_KEEP/$STORE-$REP/"
    }
    stop_bg # controller and watcher; the next store starts from nothing
}

# --- the table ------------------------------------------------------------
# shellcheck disable=SC2016 # backquotes are markdown
LABELS='load|load average (1 min) at the start
late_seen_p50|empty store, one at a time: spec write to first status, p50 (ms)
late_seen_p99|empty store, one at a time: spec write to first status, p99 (ms)
late_seen_max|empty store, one at a time: spec write to first status, max (ms)
late_done_p50|empty store, one at a time: spec write to done, p50 (ms)
late_done_p99|empty store, one at a time: spec write to done, p99 (ms)
late_client_p50|empty store, one at a time: `agentctl apply` start to first status, p50 (ms)
late_client_p99|empty store, one at a time: `agentctl apply` start to first status, p99 (ms)
apply_s|bulk: `agentctl apply -f` of N specs returned (s)
seen_s|bulk: apply start to all N seen (s)
seen_rate|bulk: seen per second
done_s|bulk: apply start to all N done (s)
done_rate|bulk: done per second
healthz_n|bulk: `GET /healthz` answers while it ran
healthz_p50|bulk: `GET /healthz` p50 (ms)
healthz_p99|bulk: `GET /healthz` p99 (ms)
healthz_max|bulk: `GET /healthz` max (ms)
healthz_connect_p99|bulk: `GET /healthz` connected, p99 (ms)
healthz_ttfb_p99|bulk: `GET /healthz` first byte, p99 (ms)
latl_seen_p50|N in the store, one at a time: spec write to first status, p50 (ms)
latl_seen_p99|N in the store, one at a time: spec write to first status, p99 (ms)
latl_seen_max|N in the store, one at a time: spec write to first status, max (ms)
latl_done_p50|N in the store, one at a time: spec write to done, p50 (ms)
latl_done_p99|N in the store, one at a time: spec write to done, p99 (ms)
latl_client_p50|N in the store, one at a time: `agentctl apply` start to first status, p50 (ms)
latl_client_p99|N in the store, one at a time: `agentctl apply` start to first status, p99 (ms)
ctl_rss_mib|controller peak RSS, VmHWM (MiB)
ctl_cpu_s|controller CPU, user+system (s)
idle_cpu_pct|idle, every spec still in the store: controller CPU over 10 s (% of a core)
idle_etcd_rps|idle, every spec still in the store: etcd KV and Lease requests per second
etcd_rss_mib|etcd peak RSS, VmHWM (MiB)
etcd_cpu_s|etcd CPU, user+system (s)
failed_steps|controller "step failed" log lines (before the drift phase)
drift_load|drift: load average (1 min) at its start
drift_n|drift: running agents made to drift (samples)
drift_events|drift: of them, Docker `update` event seen
drift_boundary|drift: of them, stopReason boundary-drift
drift_ev_p50|drift: Docker `update` event to status Failed, p50 (ms)
drift_ev_max|drift: Docker `update` event to status Failed, max (ms)
drift_cmd_p50|drift: `docker update` start to status Failed, p50 (ms)
drift_cmd_max|drift: `docker update` start to status Failed, max (ms)'

table() { # one column per store of BENCH_STORES, then the ratios:
    # <store>/<store>-base for each baseline column, and etcd/dir
    local rep
    for rep in $(seq "$REPS"); do
        [ "$REPS" = 1 ] || echo "run $rep:"
        awk -F'|' -v rep="$rep" -v n="$N" -v s="$SAMPLES" -v stores="$STORES" \
            -v rows="$ROWS" '
            BEGIN { while ((getline l < rows) > 0) { split(l, f, " ")
                        if (f[1] == rep) v[f[2] " " f[3]] = f[4] }
                    ns = split(stores, st, " ")
                    for (i = 1; i <= ns; i++) have[st[i]] = 1
                    np = 0
                    for (i = 1; i <= ns; i++)
                        if (st[i] ~ /-base$/) { k = st[i]; sub(/-base$/, "", k)
                            if (k in have) { np++; num[np] = k; den[np] = st[i] } }
                    if (("etcd" in have) && ("dir" in have)) {
                        np++; num[np] = "etcd"; den[np] = "dir" }
                    head = "| N = " n ", S = " s " |"; line = "|---|"
                    for (i = 1; i <= ns; i++) { head = head " " st[i] " |"; line = line "---|" }
                    for (j = 1; j <= np; j++) { head = head " " num[j] "/" den[j] " |"; line = line "---|" }
                    print head; print line }
            { out = ""; any = 0
              for (i = 1; i <= ns; i++) { x = v[st[i] " " $1]; if (x != "") any = 1
                                          out = out " " (x == "" ? "-" : x) " |" }
              if (!any) next
              for (j = 1; j <= np; j++) {
                  d = v[den[j] " " $1]; e = v[num[j] " " $1]; r = ""
                  if (d != "" && e != "" && d > 0 && $1 !~ /load$/)
                      r = sprintf("%.2fx", e / d)
                  out = out " " r " |" }
              label = $2; gsub(/ N /, " " n " ", label)
              printf "| %s |%s\n", label, out }' <<<"$LABELS"
        echo
    done
}

# --- main -----------------------------------------------------------------
preflight
: >"$ROWS"
for REP in $(seq "$REPS"); do
    for STORE in $STORES; do
        say "$STORE, run $REP (load $(cut -d' ' -f1 /proc/loadavg))"
        one_store
    done
done
sweep_run
left=0
for id in "${CTL_IDS[@]}"; do
    left=$((left + $(docker_count_label "agentctl.dev/managed-by=$id")))
done
[ "$left" = 0 ] || say "WARNING: $left Docker objects of this run's controllers were left"
echo
echo "store benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores," \
    "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
table | tee "${BENCH_OUT:-/dev/null}"
