#!/usr/bin/env bash
# test_agentctl_etcd.sh - every agentctl command that writes or reads specs
# against a private etcd: apply (created/configured/unchanged), get, diff,
# describe, cancel, delete, apply --prune (never a spec apply did not
# write), and two concurrent applies of different versions of one name
# (both land in order, none is lost, the generation counts each change
# exactly once).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/etcd_lib.sh"

A=$BUILD/cli/agentctl
start_etcd
export AGENTCTL_ETCD=$ETCD_URL AGENTCTL_ETCD_PREFIX=/t-$$ AGENTCTL_STATE=$TEST_TMP/state
unset AGENTCTL_SPECS
IN=$TEST_TMP/in
mkdir -p "$IN"

spec() { # spec NAME DEADLINE
    cat <<YAML
apiVersion: agentctl.dev/v1alpha1
kind: AgentInvocation
metadata:
  name: $1
spec:
  vendor: fake
  phase: execute
  image: agentctl/demo-agent:0.1.0
  command: [demo-agent]
  deadlineSeconds: $2
YAML
}
gen() { "$A" get "$1" -o json | jq -r .metadata.generation; }

spec one 10 >"$IN/one.yaml"
spec two 10 >"$IN/two.yaml"
check_eq "apply creates" "agentinvocation.agentctl.dev/one created
agentinvocation.agentctl.dev/two created" "$("$A" apply -f "$IN")"
check_eq "apply again: unchanged" "agentinvocation.agentctl.dev/one unchanged
agentinvocation.agentctl.dev/two unchanged" "$("$A" apply -f "$IN")"
check_match "get lists both" "one.*two" "$("$A" get | tr '\n' ' ')"
check_eq "generation 1" 1 "$(gen one)"
k=$(printf %s "/t-$$/specs/one" | base64 -w0)
check_match "the key <prefix>/specs/one holds the YAML apply wrote" \
    "name: one" "$(curl -fsS "$ETCD_URL/v3/kv/range" -d "{\"key\":\"$k\"}" |
        jq -r '.kvs[0].value' | base64 -d)"

rc=0; "$A" diff -f "$IN/one.yaml" >/dev/null || rc=$?
check_eq "diff: same" 0 "$rc"
spec one 20 >"$IN/one.yaml"
rc=0; "$A" diff -f "$IN/one.yaml" >/dev/null || rc=$?
check_eq "diff: different" 1 "$rc"
check_eq "apply configures" "agentinvocation.agentctl.dev/one configured" \
    "$("$A" apply -f "$IN/one.yaml")"
check_eq "generation 2 after a change" 2 "$(gen one)"
check_match "describe shows the etcd key" "/t-$$/specs/one" "$("$A" describe one)"
check_eq "cancel" "agentinvocation.agentctl.dev/one cancelled" "$("$A" cancel one)"
check_eq "cancel wrote spec.cancel" true "$("$A" get one -o json | jq -r .spec.cancel)"

# a spec written by someone else (not apply) is never pruned
hand=$(spec hand 10 | base64 -w0)
key=$(printf %s "/t-$$/specs/hand" | base64 -w0)
curl -fsS "$ETCD_URL/v3/kv/put" -d "{\"key\":\"$key\",\"value\":\"$hand\"}" >/dev/null
check_match "a hand-written key is listed" "hand" "$("$A" get hand)"
rm "$IN/two.yaml"
spec one 10 >"$IN/one.yaml"
out=$("$A" apply -f "$IN" --prune --all)
check_match "prune removes what apply wrote and the input dropped" \
    "two pruned" "$out"
rc=0; "$A" get two >/dev/null 2>&1 || rc=$?
check_eq "pruned spec is gone" 1 "$rc"
check_match "a hand-written spec survives prune" "hand" "$("$A" get hand)"
# a cancelled spec is apply's own bytes rewritten: prune still knows it
rm "$IN/one.yaml"; spec three 10 >"$IN/three.yaml"
check_match "prune follows a cancel's rewrite" "one pruned" "$("$A" apply -f "$IN" --prune --all)"

check_eq "delete" 'agentinvocation.agentctl.dev "hand" deleted' "$("$A" delete hand)"
rc=0; "$A" delete hand >/dev/null 2>&1 || rc=$?
check_eq "delete again: not found" 1 "$rc"

# two applies of different versions of one name, 10 rounds at once: the
# store lock serialises them, so both land in order and each change of
# the spec is counted once: generation == 1 + number of changes.
for v in 100 200; do spec race $v >"$IN/race-$v.yaml"; done
"$A" apply -f "$IN/race-100.yaml" >/dev/null
changes=0
last=100
for round in $(seq 10); do
    "$A" apply -f "$IN/race-100.yaml" >"$TEST_TMP/a.out" 2>&1 &
    p1=$!
    "$A" apply -f "$IN/race-200.yaml" >"$TEST_TMP/b.out" 2>&1 &
    p2=$!
    r1=0; wait $p1 || r1=$?
    r2=0; wait $p2 || r2=$?
    [ $r1 -eq 0 ] && [ $r2 -eq 0 ] || fail "round $round: an apply failed: $(cat "$TEST_TMP/a.out" "$TEST_TMP/b.out")"
    changes=$((changes + $(cat "$TEST_TMP/a.out" "$TEST_TMP/b.out" | grep -c configured || true)))
    d=$("$A" get race -o json | jq -r .spec.deadlineSeconds)
    [ "$d" = 100 ] || [ "$d" = 200 ] || fail "round $round: deadline $d"
done
check "10 rounds of racing applies: every apply landed" true
check_eq "generation counts every change exactly once" $((1 + changes)) "$(gen race)"

# One apply of 100 specs is a few txns, not four requests per spec: the
# writes are queued and sent 128 at a time (store/etcd/store_etcd_batch.c),
# the metadata read once. Counted by etcd itself. The control: ten specs
# applied one command each cost at least one txn apiece, so the counter
# does see agentctl's writes.
etcd_calls() { # etcd_calls METHOD: KV calls answered OK so far
    curl -fsS "$ETCD_URL/metrics" | awk -v m="$1" '
        /^grpc_server_handled_total/ && /grpc_code="OK"/ &&
        index($0, "grpc_method=\"" m "\"") { n += $2 } END { print n + 0 }'
}
BULK=$TEST_TMP/bulk
mkdir -p "$BULK"
for i in $(seq 100); do [ "$i" = 1 ] || echo ---; spec "bulk-$i" 10; done >"$BULK/all.yaml"
t0=$(etcd_calls Txn); r0=$(etcd_calls Range)
out=$("$A" apply -f "$BULK/all.yaml")
t1=$(etcd_calls Txn); r1=$(etcd_calls Range)
check_eq "bulk apply: every spec created" 100 "$(grep -c ' created$' <<<"$out")"
check_eq "bulk apply: every spec listed" 100 "$("$A" get -o name | grep -c /bulk-)"
check_eq "bulk apply: every spec has generation 1 and a uid" 100 \
    "$("$A" get -o json | jq '[.items[] | select(.metadata.name | startswith("bulk-"))
        | select(.metadata.generation == 1 and (.metadata.uid | length) == 36)] | length')"
# A spec and its metadata go in one txn (store_batch_item_end): a txn
# boundary between them let a controller create the metadata first and
# sent the next txn's writes again one by one. One txn, one revision:
# every bulk spec's key has its metadata key's mod_revision. 300 writes
# in txns of 128 put a boundary inside an item unless items are kept
# whole, so the check fails without it.
split_items() { # names whose spec and meta keys have other revisions
    local p=$AGENTCTL_ETCD_PREFIX
    # [<prefix>/, <prefix>0): "0" is the byte after "/"
    curl -fsS "$ETCD_URL/v3/kv/range" -d "$(jq -nc --arg k "$p/" --arg e "${p}0" \
        '{key: ($k | @base64), range_end: ($e | @base64), keys_only: true}')" |
        jq -r --arg p "$p/" '[.kvs[] | {k: (.key | @base64d | ltrimstr($p)),
            r: .mod_revision}] | map(select(.k | test("^(specs|meta)/bulk-")))
            | group_by(.k | sub("^[a-z]+/"; "")) | map(select(length != 2
            or .[0].r != .[1].r)) | .[][0].k'
}
check_eq "bulk apply: each spec went in one txn with its metadata" "" \
    "$(split_items)"
check "bulk apply of 100: at most 8 txns (was $((t1 - t0)))" \
    [ $((t1 - t0)) -le 8 ]
check "bulk apply of 100: at most 8 ranges (was $((r1 - r0)))" \
    [ $((r1 - r0)) -le 8 ]
check_eq "applying it again changes nothing" 100 \
    "$("$A" apply -f "$BULK/all.yaml" | grep -c ' unchanged$')"
t0=$(etcd_calls Txn)
for i in $(seq 10); do spec "single-$i" 10 | "$A" apply -f - >/dev/null; done
t1=$(etcd_calls Txn)
check "control: 10 one-spec applies cost at least 10 txns (was $((t1 - t0)))" \
    [ $((t1 - t0)) -ge 10 ]
