#!/usr/bin/env bash
# handover.sh - what a warm claim's hand-over to a waiting agent costs
# against starting a created agent (today's warm path), side by side in
# one run, BENCH_ROUNDS (10) interleaved rounds (docs/warm-pool.md "The
# waiting agent"). Both agents are shaped alike (tests/integration/
# images/test_launch_wait.sh): a keeper holds the config volume with
# agent-launch and its policy, the agent mounts it read-only, runs as
# 1000:1000 with no network and a read-only root, and its CLI is
# `sh -c 'echo ran'`.
#
#   start  `docker start -a` of the created agent in the ordinary mode
#          (agent-launch --policy P -- sh -c ...), until the CLI exits;
#   order  the agent started beforehand in wait mode (the policy in the
#          order); from the order's
#          upload through the keeper (`docker cp`) until the CLI exits
#          (`docker wait`).
#
# Both spans end in the container's exit and the client's round trips,
# so the difference is the start the order path no longer has. Numbers,
# no pass/fail; prints the median and p90 in ms of each.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${AGENTCTL_BUILD:-$ROOT/build}
ROUNDS=${BENCH_ROUNDS:-10}
LAUNCH=$BUILD/images/agent-launch
[ -x "$LAUNCH" ] || { echo "no $LAUNCH: build first" >&2; exit 1; }
LABEL="agentctl.bench=handover-$$"
T=$(mktemp -d /tmp/agentctl-handover.XXXXXX)
cleanup() {
    local ids
    ids=$(docker ps -aq --filter "label=$LABEL")
    [ -z "$ids" ] || docker rm -f -v $ids >/dev/null
    ids=$(docker volume ls -q --filter "label=$LABEL")
    [ -z "$ids" ] || docker volume rm $ids >/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
CFG=/etc/agentctl/agent
NONCE=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
HARDEN=(--label "$LABEL" --user 1000:1000 --read-only --cap-drop ALL
    --security-opt no-new-privileges --network none --init)
mkdir -p "$T/up/bin" "$T/o"
cp "$LAUNCH" "$T/up/bin/agent-launch"
printf 'landlock optional\nwrite /tmp\n' >"$T/up/launch.policy"
printf '{"version":1,"nonce":"%s","argv":["sh","-c","echo ran"],"env":[],"workdir":"/tmp","policy":"landlock optional\\nwrite /tmp\\n"}' \
    "$NONCE" >"$T/o/order.json"

# agent MODE: a keeper with the uploads and an agent created in MODE
# (plain or wait); prints "KEEPER AGENT".
agent() {
    local vol keeper mode=$1 args
    vol=$(docker volume create --label "$LABEL" --driver local \
        --opt type=tmpfs --opt device=tmpfs \
        --opt o=size=4m,uid=1000,gid=1000,mode=0755)
    keeper=$(docker run -d "${HARDEN[@]}" \
        --mount "type=volume,source=$vol,target=/work" agentctl/keeper:0.1.0)
    tar -C "$T/up" -cf - bin launch.policy | docker cp - "$keeper:/work"
    if [ "$mode" = wait ]; then
        args=(--wait "$CFG/order.json" --order-nonce "$NONCE")
    else
        args=(--policy "$CFG/launch.policy" -- sh -c 'echo ran')
    fi
    docker create "${HARDEN[@]}" --tmpfs /tmp:size=1m,uid=1000,gid=1000 \
        --mount "type=volume,source=$vol,target=$CFG,readonly" \
        --entrypoint "$CFG/bin/agent-launch" agentctl/testbox:0.1.0 \
        "${args[@]}" | tr '\n' ' '
    echo "$keeper"
}

ms_since() { # ms_since T0: milliseconds from T0 (EPOCHREALTIME) to now
    echo "$1 $EPOCHREALTIME" | awk '{ printf "%.1f\n", ($2 - $1) * 1000 }'
}

: >"$T/start" && : >"$T/order"
for _ in $(seq "$ROUNDS"); do
    read -r a k < <(agent plain)
    t0=$EPOCHREALTIME
    docker start -a "$a" >/dev/null
    ms_since "$t0" >>"$T/start"
    docker rm -f -v "$a" "$k" >/dev/null
    read -r a k < <(agent wait)
    docker start "$a" >/dev/null
    sleep 0.2 # the launcher is waiting on inotify
    t0=$EPOCHREALTIME
    tar -C "$T/o" -cf - order.json | docker cp - "$k:/work"
    [ "$(docker wait "$a")" = 0 ] || { docker logs "$a"; exit 1; }
    ms_since "$t0" >>"$T/order"
    docker rm -f -v "$a" "$k" >/dev/null
done
stats() { sort -n "$1" | awk '{ v[NR] = $1 } END {
    printf "median %6.1f ms  p90 %6.1f ms  (n=%d)\n", v[int((NR + 1) / 2)],
        v[int(NR * 0.9 + 0.999)], NR }'; }
echo "start (docker start -a of a created agent): $(stats "$T/start")"
echo "order (upload through the keeper + wait):   $(stats "$T/order")"
