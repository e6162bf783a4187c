#!/usr/bin/env bash
# test_store_contract.sh - the store contract (tests/store/store_contract.c)
# against the directory store and against a private etcd, with negative
# controls: the suite must report a failure when one expectation is
# deliberately wrong (--break), and etcd down must be an error a user can
# act on.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/etcd_lib.sh"

P=$BUILD/tests/store_contract
[ -x "$P" ] || fail "$P is not built"
start_etcd

mkdir -p "$TEST_TMP/specs"
check "contract: directory store" "$P" dir "$TEST_TMP/specs" "$TEST_TMP/state"
check "contract: etcd store" "$P" etcd "$ETCD_URL" /contract "$TEST_TMP/estate"
# a dead endpoint first: every request fails over to the live one
check "contract: etcd with a dead endpoint first" \
    "$P" etcd "http://127.0.0.1:1,$ETCD_URL" /contract2 "$TEST_TMP/estate2"

# negative control: a broken expectation (a stale put must succeed) fails
rc=0
out=$("$P" --break etcd "$ETCD_URL" /contract3 "$TEST_TMP/estate3" 2>&1) || rc=$?
check_eq "negative control: --break fails the suite (etcd)" 1 "$rc"
check_match "negative control: the stale put is the failure" \
    "FAIL BROKEN EXPECTATION: put with a stale revision" "$out"
rc=0
mkdir -p "$TEST_TMP/specs4"
"$P" --break dir "$TEST_TMP/specs4" "$TEST_TMP/state4" >/dev/null 2>&1 || rc=$?
check_eq "negative control: --break fails the suite (dir)" 1 "$rc"

# every endpoint down: an error naming the endpoint and the count
rc=0
out=$("$BUILD/cli/agentctl" --etcd http://127.0.0.1:1,http://127.0.0.1:2 get 2>&1) || rc=$?
check_eq "etcd down: agentctl fails" 1 "$rc"
check_match "etcd down: the error says where and why" \
    "etcd http://127.0.0.1:[12]: connection refused \(tried 2 endpoints\)" "$out"
