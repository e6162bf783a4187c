#!/usr/bin/env bash
# probe.sh - the boundary probe's container wall time (State.StartedAt to
# State.FinishedAt: start to exit), side by side in one run, interleaved:
#   noop      a probe that does no work (probe-images.sh noop): the floor
#   before    the probe of BENCH_PROBE_BEFORE (a git rev) with the body
#             the controller of that time sent (no sysctl)
#   after     this checkout's probe with today's body (rc_probe_body: the
#             net.ipv4.neigh.eth0.retrans_time_ms=50 sysctl)
#   after-nosysctl  this checkout's probe with the old body (what the new
#             probe does under an older controller)
# The topology is the controller's: an Internal network with inhibit_ipv4
# (10.217.60.0/24), the egress-proxy at .2 on it and on an egress network
# (10.217.61.0/24) with a busybox httpd as vendor.test; the probe at .4
# with the agent's hardening, --direct gateway:443, gateway:80 and the
# proxy's egress address, as controller/box/box_probe.c passes them. Each run
# is create, start, wait, logs, delete over the Engine API (curl). Also
# printed: start-call-to-wait-returned, as the controller sees it, and
# that minus the no-work probe's: what the checks themselves cost. (The
# no-work probe's own wall time is about 0 and may print negative: Docker
# stamps StartedAt after the process may already have exited.)
# Not a test: numbers, no pass/fail (exit 1 only when the harness breaks).
#
# Env: BENCH_REPS (20), BENCH_PROBE_BEFORE (a git rev; default 86553e8,
# the sequential probe), BENCH_OUT (also write
# the table there). Everything created carries agentctl.bench=<run>.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
HERE=$ROOT/hack/bench/controller
REPS=${BENCH_REPS:-20}
# 86553e8: the last commit with the sequential probe (3 s per silent check)
BEFORE_REV=${BENCH_PROBE_BEFORE:-86553e8}
RUN=pbench-$(date +%H%M%S)-$$
SOCK=${DOCKER_SOCK:-/var/run/docker.sock}
API=http://localhost/v1.41
NET=10.217.60
EGR=10.217.61
W=$(mktemp -d /tmp/probebench.XXXXXX)
KINDS="noop before after after-nosysctl"

say() { echo "[$(date +%T)] $*" >&2; }
cleanup() {
    local ids
    ids=$(docker ps -aq --filter "label=agentctl.bench=$RUN")
    [ -z "$ids" ] || docker rm -f $ids >/dev/null 2>&1 || true
    ids=$(docker network ls -q --filter "label=agentctl.bench=$RUN")
    [ -z "$ids" ] || docker network rm $ids >/dev/null 2>&1 || true
    rm -rf "$W"
}
trap cleanup EXIT

if docker network inspect $(docker network ls -q) \
    --format '{{range .IPAM.Config}}{{.Subnet}} {{end}}' |
    grep -qE "10\.217\.6[01]\."; then
    echo "a network on the daemon uses 10.217.60-61.0/24: run later" >&2
    exit 1
fi

say "building the probe images (before = $BEFORE_REV, after = this tree)"
"$HERE/probe-images.sh" rev "$BEFORE_REV" "agentctl/probe:$RUN-before" >/dev/null
"$HERE/probe-images.sh" tree "agentctl/probe:$RUN-after" >/dev/null
"$HERE/probe-images.sh" noop "agentctl/probe:$RUN-noop" >/dev/null
trap 'cleanup; docker rmi agentctl/probe:$RUN-before agentctl/probe:$RUN-after agentctl/probe:$RUN-noop >/dev/null 2>&1 || true' EXIT

L=(--label "agentctl.bench=$RUN")
docker network create "${L[@]}" --internal \
    -o com.docker.network.bridge.inhibit_ipv4=true \
    --subnet "$NET.0/24" --gateway "$NET.1" "$RUN-int" >/dev/null
docker network create "${L[@]}" --subnet "$EGR.0/24" --gateway "$EGR.1" \
    "$RUN-egr" >/dev/null
docker run -d "${L[@]}" --name "$RUN-vendor" --network "$RUN-egr" \
    --network-alias vendor.test agentctl/testbox:0.1.0 \
    httpd -f -p 443 -h /www >/dev/null
docker create "${L[@]}" --name "$RUN-proxy" --network "$RUN-int" \
    --ip "$NET.2" --dns 0.0.0.0 --dns-option timeout:1 \
    --dns-option attempts:1 agentctl/egress-proxy:0.1.0 \
    --listen 0.0.0.0:3128 --allow vendor.test:443 --allow-private >/dev/null
docker network connect "$RUN-egr" "$RUN-proxy"
docker start "$RUN-proxy" >/dev/null
PEIP=$(docker inspect -f "{{(index .NetworkSettings.Networks \"$RUN-egr\").IPAddress}}" "$RUN-proxy")

# body KIND: the create body, as rc_probe_body builds it (and, for before
# and after-nosysctl, without the sysctl).
body() {
    local img sysctl=""
    case $1 in
    noop) img=agentctl/probe:$RUN-noop ;;
    before) img=agentctl/probe:$RUN-before ;;
    after)
        img=agentctl/probe:$RUN-after
        sysctl=',"Sysctls":{"net.ipv4.neigh.eth0.retrans_time_ms":"50"}'
        ;;
    after-nosysctl) img=agentctl/probe:$RUN-after ;;
    esac
    printf '{"Image":"%s","Entrypoint":["/probe","--proxy","%s.2:3128","--allowed","vendor.test:443","--denied","agentctl-probe-denied.invalid:443","--direct","%s.1:443","--direct","%s.1:80","--direct","%s:3128"],"Env":[],"WorkingDir":"/","User":"1000:1000","Labels":{"agentctl.bench":"%s"},"Tty":false,"OpenStdin":false,"AttachStdin":false,"StdinOnce":false,"StopTimeout":2,"HostConfig":{"NetworkMode":"%s","Init":true,"Privileged":false,"CapDrop":["ALL"],"ReadonlyRootfs":true,"SecurityOpt":["no-new-privileges"],"RestartPolicy":{"Name":"no","MaximumRetryCount":0},"IpcMode":"private","PortBindings":{},"PublishAllPorts":false,"Memory":16777216,"MemorySwap":16777216,"PidsLimit":16,"NanoCpus":250000000,"Dns":["0.0.0.0"],"DnsOptions":["timeout:1","attempts:1"],"DnsSearch":[],"ExtraHosts":[],"Mounts":[],"LogConfig":{"Type":"local","Config":{"max-size":"1m","max-file":"1","compress":"false"}}%s},"NetworkingConfig":{"EndpointsConfig":{"%s":{"IPAMConfig":{"IPv4Address":"%s.4"}}}}}' \
        "$img" "$NET" "$NET" "$NET" "$PEIP" "$RUN" "$RUN-int" "$sysctl" \
        "$RUN-int" "$NET"
}
api() { # METHOD PATH [BODY] -> body on stdout
    local data=()
    [ $# -ge 3 ] && data=(-H 'Content-Type: application/json' --data-binary "$3")
    curl -fsS --unix-socket "$SOCK" -X "$1" "${data[@]}" "$API$2"
}
ns_of() { date -d "$1" +%s%N; }
p50() { # COLUMN FILE: the median of a numeric column
    sort -n -k"$1" "$2" | awk -v c="$1" '{a[NR] = $c} END {print a[int((NR + 1) / 2)]}'
}

# one KIND: prints "KIND wall_ms client_ms verdict"
one() {
    local id t0 t1 st fin verdict
    id=$(api POST "/containers/create?name=$RUN-probe" "$(body "$1")" |
        sed -n 's/.*"Id":"\([0-9a-f]*\)".*/\1/p')
    t0=$EPOCHREALTIME
    api POST "/containers/$id/start" >/dev/null
    api POST "/containers/$id/wait" >/dev/null
    t1=$EPOCHREALTIME
    read -r st fin < <(docker inspect -f '{{.State.StartedAt}} {{.State.FinishedAt}}' "$id")
    verdict=$(api GET "/containers/$id/logs?stdout=1" | tr -c '[:print:]' ' ' |
        sed -n 's/.*"verdict":"\([a-z-]*\)".*/\1/p')
    api DELETE "/containers/$id?force=1" >/dev/null
    echo "$1 $((($(ns_of "$fin") - $(ns_of "$st")) / 1000000)) $(((${t1/./} - ${t0/./}) / 1000)) ${verdict:-none}"
}

say "warm-up"
for k in $KINDS; do one "$k" >/dev/null; done
say "$REPS rounds of: $KINDS"
LOAD0=$(cut -d' ' -f1 /proc/loadavg)
for r in $(seq "$REPS"); do
    for k in $KINDS; do one "$k"; done
done >"$W/samples"
for k in $KINDS; do awk -v k="$k" '$1 == k' "$W/samples" >"$W/$k"; done
LOAD1=$(cut -d' ' -f1 /proc/loadavg)

{
    echo "Probe container wall time (StartedAt -> FinishedAt), $REPS runs each, interleaved;"
    echo "before = $(git -C "$ROOT" rev-parse --short "$BEFORE_REV"), after = $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- images || echo '+dirty'); load avg $LOAD0 -> $LOAD1"
    echo
    echo "| kind | verdicts | wall p50 (ms) | wall min / max (ms) | start call to wait returned p50 (ms) | that minus noop's (ms) | wall p50 / before |"
    echo "|---|---|---|---|---|---|---|"
    b=$(p50 2 "$W/before") z=$(p50 3 "$W/noop")
    for k in $KINDS; do
        f=$W/$k
        p=$(p50 2 "$f") c=$(p50 3 "$f")
        printf '| %s | %s | %s | %s / %s | %s | %s | %s |\n' "$k" \
            "$(awk '{v[$4]++} END {for (x in v) printf "%s%s %d", (n++ ? ", " : ""), x, v[x]}' "$f")" \
            "$p" "$(sort -n -k2 "$f" | head -n 1 | cut -d' ' -f2)" \
            "$(sort -n -k2 "$f" | tail -n 1 | cut -d' ' -f2)" "$c" "$((c - z))" \
            "$(awk -v a="$p" -v b="$b" 'BEGIN {printf "%.2fx", a / b}')"
    done
} | tee "${BENCH_OUT:-/dev/null}"
