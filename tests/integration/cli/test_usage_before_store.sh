#!/usr/bin/env bash
# test_usage_before_store.sh - get's and wait's usage errors are found
# before the store is opened: with etcd down (a loopback port nothing
# listens on) a wrong -o, JSONPath, --sort-by, --for, --timeout or a
# missing name is exit 2 naming the mistake, not exit 1 with etcd's
# error. Controls: the same commands well formed exit 1 (etcd is down
# indeed). And `wait --for=delete` does not pass on a store that does not
# answer: it times out (1) naming the store's error; on a store that
# answers, a missing name passes at once (0).
source "$(dirname "$0")/../lib.sh"
A=$BUILD/cli/agentctl
[ -x "$A" ] || skip "agentctl not built"
DOWN=http://127.0.0.1:1

# usage WHAT WORD ARGS...: exit 2 and the message has WORD
usage() {
    local what=$1 word=$2 rc=0 out
    shift 2
    out=$("$A" --etcd "$DOWN" "$@" 2>&1) || rc=$?
    check_eq "$what: exit 2 with etcd down" 2 "$rc"
    check_match "$what: names the mistake" "$word" "$out"
}
usage "get -o bogus" 'unable to match a printer.*"bogus"' get -o bogus
usage "get -o jsonpath={.a" 'error parsing jsonpath \{\.a: unclosed action' get -o 'jsonpath={.a'
usage "get --sort-by=.a[*]" "couldn't parse --sort-by" get --sort-by='.a[*]'
usage "wait --for=bogus" 'unrecognized condition: "bogus"' wait x --for=bogus
usage "wait --for=phase=Nope" 'no such phase' wait x --for=phase=Nope
usage "wait --timeout=zz" 'invalid --timeout "zz"' wait x --for=delete --timeout=zz
usage "wait without a name" 'expected NAME' wait --for=delete

rc=0; out=$("$A" --etcd "$DOWN" get -o name 2>&1) || rc=$?
check_eq "control: get well formed, etcd down: 1" 1 "$rc"
check_match "control: ... etcd's error" 'connection refused' "$out"
rc=0; out=$("$A" --etcd "$DOWN" wait x --for=delete --timeout=1s 2>&1) || rc=$?
check_eq "wait --for=delete with etcd down: times out (1), does not pass" 1 "$rc"
check_match "... naming the store's error" 'timed out waiting .*the store: .*connection refused' "$out"
mkdir -p "$TEST_TMP/specs"
rc=0; "$A" --specs "$TEST_TMP/specs" wait x --for=delete --timeout=1s >/dev/null 2>&1 || rc=$?
check_eq "control: a store that answers: a missing name is deleted (0)" 0 "$rc"
echo "PASS: $CHECKS checks"
