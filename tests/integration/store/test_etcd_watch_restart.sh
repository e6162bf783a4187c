#!/usr/bin/env bash
# test_etcd_watch_restart.sh - the etcd store's watch across etcd being
# killed and restarted: the watcher never blocks or exits, says RESYNC once
# etcd is back (so its owner relists), and goes on delivering changes made
# after the restart. Negative control: with etcd gone, no change is
# reported that did not happen.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/etcd_lib.sh"

P=$BUILD/tests/store_contract
A=$BUILD/cli/agentctl
[ -x "$P" ] || fail "$P is not built"
start_etcd
export AGENTCTL_ETCD=$ETCD_URL AGENTCTL_ETCD_PREFIX=/w AGENTCTL_STATE=$TEST_TMP/state
unset AGENTCTL_SPECS

spec() {
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\nmetadata:\n  name: %s\nspec:\n  vendor: fake\n  phase: execute\n  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent]\n  deadlineSeconds: 5\n' "$1"
}
# wait_line REGEX: until the watcher printed a matching line (30 s at most)
wait_line() {
    for _ in $(seq 300); do
        grep -qE "$1" "$TEST_TMP/watch.out" && return 0
        kill -0 "$W" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

W=
"$P" --watch etcd "$ETCD_URL" /w "$TEST_TMP/wstate" >"$TEST_TMP/watch.out" 2>&1 &
W=$!
on_cleanup 'kill $W 2>/dev/null'
check "the watcher is up" wait_line '^WATCHING$'

spec before | "$A" apply -f - >/dev/null
check "a put before the restart is seen" wait_line '^PUT before$'

kill_etcd
sleep 1
check "the watcher survives etcd being gone" kill -0 "$W"
check_eq "nothing invented while etcd is gone" 0 \
    "$(grep -cvE '^(WATCHING|PUT before)$' "$TEST_TMP/watch.out" || true)"
restart_etcd
check "RESYNC once etcd is back" wait_line '^RESYNC $'
spec after | "$A" apply -f - >/dev/null
check "a put after the restart is seen" wait_line '^PUT after$'
"$A" delete before >/dev/null
check "a delete after the restart is seen" wait_line '^DELETE before$'
