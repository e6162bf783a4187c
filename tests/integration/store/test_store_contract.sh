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
# One txn on etcd: the status the contract wrote with two events
# (case_status_write, name "delta") carries their mod_revision; the
# event appended alone before them does not (the control: separate
# writes are told apart).
b64() { printf %s "$1" | base64 -w0; }
range() { # range KEY [RANGE_END]: "<mod_revision>" per key, in key order
    local body="{\"key\":\"$(b64 "$1")\""
    [ -z "${2:-}" ] || body+=",\"range_end\":\"$(b64 "$2")\""
    curl -fsS "$ETCD_URL/v3/kv/range" -d "$body}" | jq -r '.kvs[].mod_revision'
}
status_rev=$(range /contract/status/delta)
mapfile -t ev_revs < <(range /contract/events/delta/ /contract/events/delta0)
check_eq "etcd: four events of delta" 4 "${#ev_revs[@]}"
check_eq "etcd: the status and its first event are one txn" "$status_rev" "${ev_revs[1]:-}"
check_eq "etcd: the status and its second event are one txn" "$status_rev" "${ev_revs[2]:-}"
check "control: the event appended alone has another revision" \
    [ "${ev_revs[0]:-}" != "$status_rev" ]
# several names' statuses at once (case_status_write_many): one txn
check_eq "etcd: two names' statuses written at once are one txn" \
    "$(range /contract/status/zeta1)" "$(range /contract/status/zeta2)"
check "control: statuses written apart have other revisions" \
    [ "$(range /contract/status/zeta1)" != "$status_rev" ]
# several names' claims at once (case_claims): one txn
check_eq "etcd: two names claimed at once are one txn" \
    "$(range /contract/claims/kappa5)" "$(range /contract/claims/kappa6)"
check "control: a name claimed apart has another revision" \
    [ "$(range /contract/claims/kappa2)" != "$(range /contract/claims/kappa5)" ]
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
