#!/usr/bin/env bash
# test_kube_leases.sh - two agent-controllers on one real kube-apiserver
# (docs/store-kube.md "Leases and claims"), as the service account of
# manifests/kubernetes-apiserver (its RBAC: leases get, create, update):
#   - a batch of invocations shared by both (--max-running 3 each, 6
#     invocations): every agent starts exactly once (Docker start events
#     by uid), both controllers ran some, and each holds its Lease
#     agentctl-controller-<id> (holderIdentity, leaseDurationSeconds);
#   - SIGKILL the controller running a long invocation: the other leaves
#     it alone while the Lease lives (control), and once the Lease has
#     expired marks it Failed node-lost naming the lost controller, and
#     it is never run again;
#   - negative control: two controllers of the test-hooks build with
#     AGENTCTL_TEST_DISABLE=kube-claim-holder (every claim looks free)
#     both take invocations of a batch: both start an attempt (each log
#     moves it to Preparing), or one marks the other's live attempt
#     node-lost; the first part asserts neither happens with the check,
#     so the holder check is what prevents it.
#   - the Lease grant, claims and releases go without blocking the loop
#     (on the watch's connection): counted on /metrics, none of them
#     waited for; control: controller d of the negative control runs
#     with AGENTCTL_TEST_DISABLE=kube-loop-async as well (the blocking
#     way, as before) and its loop waited for its grant and claims, while
#     c, the same build without it, waited for none.
source "$(dirname "$0")/../controller/lib_controller.sh"
source "$(dirname "$0")/../lib_kube.sh"

command -v jq >/dev/null || skip "jq not installed"
HOOKED=$BUILD/controller/agent-controller-testhooks
[ -x "$HOOKED" ] || skip "agent-controller-testhooks not built"
ctl_init
start_kube
install_crd
CKC=$TEST_TMP/controller.kubeconfig
kube_sa_kubeconfig "$CKC"

declare -A KP=() KM=()
on_cleanup kl_teardown
kl_teardown() {
    local n
    [ -z "${AGENTCTL_KEEP_LOGS:-}" ] ||
        cp "$TEST_TMP"/ctl-*.log "$AGENTCTL_KEEP_LOGS"/ 2>/dev/null || true
    for n in "${!KP[@]}"; do
        [ -n "${KP[$n]}" ] || continue
        [ "${rc:-0}" -eq 0 ] || [ "${rc:-0}" -eq 77 ] ||
            { echo "----- controller $n" >&2; tail -n 30 "$TEST_TMP/ctl-$n.log" >&2; }
        kill -KILL "${KP[$n]}" 2>/dev/null || true
        wait "${KP[$n]}" 2>/dev/null || true
    done
    [ -z "${EV_PID:-}" ] || kill "$EV_PID" 2>/dev/null || true
    for n in a b c d; do
        docker_cleanup_label "agentctl.dev/managed-by=$CTL_ID-$n"
    done
}
# every agent start from here on, as its uid (one line per start)
docker events --filter type=container --filter event=start \
    --filter label=agentctl.dev/role=agent \
    --format '{{index .Actor.Attributes "agentctl.dev/uid"}}' \
    >"$TEST_TMP/kstarts" 2>/dev/null &
EV_PID=$!
starts() { sleep 1; grep -cxF "$1" "$TEST_TMP/kstarts" || true; }

# kl_start N BINARY [ARGS...]: controller N (ID $CTL_ID-N) on the API server.
kl_start() {
    local n=$1 bin=$2
    shift 2
    KM[$n]=127.0.0.1:$(pick_port)
    "$bin" --kubeconfig "$CKC" --state "$TEST_TMP/state-$n" --config "$CONFIG" \
        --controller-id "$CTL_ID-$n" --resync 1s --lease-ttl 5s \
        --metrics "${KM[$n]}" "$@" >>"$TEST_TMP/ctl-$n.log" 2>&1 &
    KP[$n]=$!
}
# metric N NAME-AND-LABELS: its value on controller N's /metrics (0: none)
metric() {
    curl -fsS --max-time 3 "http://${KM[$1]}/metrics" 2>/dev/null |
        awk -v m="$2" 'index($0, m " ") == 1 { v = $2 } END { print v + 0 }'
}
kl_kill() {
    kill -KILL "${KP[$1]}" 2>/dev/null || true
    wait "${KP[$1]}" 2>/dev/null || true
    KP[$1]=
}

# kl_apply NAME SECONDS: an execute-phase invocation whose agent sleeps.
kl_apply() {
    cat >"$TEST_TMP/in/$1.yaml" <<Y
apiVersion: agentctl.dev/v1alpha1
kind: AgentInvocation
metadata: {name: $1}
spec:
  vendor: fake
  phase: execute
  image: $DEMO_IMAGE
  deadlineSeconds: 3600
  command: [/demo-agent, --sleep, "$2"]
Y
    kubectl_t apply --validate=false -f "$TEST_TMP/in/$1.yaml" >/dev/null ||
        fail "kubectl apply of $1 failed"
}
st() { kubectl_t get ai "$1" -o json 2>/dev/null | jq -r ".status | $2 // empty"; }
kl_wait() { # NAME JQ-TEST TIMEOUT
    local end=$((SECONDS + $3))
    while [ "$SECONDS" -lt "$end" ]; do
        [ "$(st "$1" "$2")" == true ] && return 0
        sleep 0.5
    done
    fail "$1: status never made '$2' true within $3 s: $(st "$1" '{phase,controller,stopReason}')"
}
# both_took N1 N2 NAMES...: how many of NAMES both controllers' logs
# moved to Preparing (each started an attempt of it)
both_took() {
    local a=$1 b=$2 n k=0
    shift 2
    for n in "$@"; do
        grep -q "\"invocation\":\"$n\",\"phase\":\"Preparing\"" "$TEST_TMP/ctl-$a.log" &&
            grep -q "\"invocation\":\"$n\",\"phase\":\"Preparing\"" "$TEST_TMP/ctl-$b.log" &&
            k=$((k + 1))
    done
    echo "$k"
}
lease() { kubectl_t get lease -n agentctl "$1" -o json 2>/dev/null | jq -r "$2"; }

A=$CTL_ID-a
B=$CTL_ID-b
kl_start a "$CONTROLLER" --max-running 3
kl_start b "$CONTROLLER" --max-running 3
batch="s1 s2 s3 s4 s5 s6"
for n in $batch; do kl_apply "$n" 4; done
for n in $batch; do kl_wait "$n" '.phase == "Succeeded"' 480; done
ran_a=0 ran_b=0
for n in $batch; do
    u=$(kubectl_t get ai "$n" -o jsonpath='{.metadata.uid}')
    check_eq "$n: its agent started exactly once" 1 "$(starts "$u")"
    case $(st "$n" .controller) in
    "$A") ran_a=$((ran_a + 1)) ;;
    "$B") ran_b=$((ran_b + 1)) ;;
    esac
done
check_eq "the batch is shared: all 6 run, by both (--max-running 3 each)" \
    "6 yes yes" "$((ran_a + ran_b)) $([ $ran_a -gt 0 ] && echo yes) $([ $ran_b -gt 0 ] && echo yes)"
nl=0
for n in $batch; do [ "$(st "$n" .stopReason)" = node-lost ] && nl=$((nl + 1)); done
check_eq "no invocation of the batch taken by both controllers (started by both, or node-lost)" \
    "0 0" "$(both_took a b $batch) $nl"
for id in "$A" "$B"; do
    check_eq "Lease agentctl-controller-$id held by $id for 5 s" "$id 5" \
        "$(lease "agentctl-controller-$id" '"\(.spec.holderIdentity) \(.spec.leaseDurationSeconds)"')"
done
r1=$(lease "agentctl-controller-$A" .spec.renewTime)
sleep 3
check "a's Lease is renewed (renewTime moves)" \
    test "$(lease "agentctl-controller-$A" .spec.renewTime)" != "$r1"
check_eq "a finished claim is released (holderIdentity \"\")" "" \
    "$(lease agentctl-claim-s1 .spec.holderIdentity)"
# renewals go without blocking the loop (on the watch's connection):
# many renewals, none of them waited for
check "a renewed its Lease several times" test "$(metric a \
    'agentctl_etcd_request_duration_seconds_count{operation="lease_keepalive"}')" -ge 3
check_eq "a's loop waited for none of its renewals" 0 "$(metric a \
    'agentctl_etcd_blocking_requests_total{operation="lease_keepalive"}')"
# sent_waited N OP: how many OP requests controller N sent, and waited for
sent_waited() {
    echo "$(metric "$1" "agentctl_etcd_request_duration_seconds_count{operation=\"$2\"}")" \
        "$(metric "$1" "agentctl_etcd_blocking_requests_total{operation=\"$2\"}")"
}
claims_ab=0
for n in a b; do
    read -r sent waited <<<"$(sent_waited $n claim)"
    claims_ab=$((claims_ab + sent))
    check_eq "$n: its loop waited for none of its claims ($sent sent)" 0 "$waited"
    read -r sent waited <<<"$(sent_waited $n lease_grant)"
    check_eq "$n: its Lease grant went without blocking (sent, waited for)" \
        "yes 0" "$([ "$sent" -ge 1 ] && echo yes) $waited"
    check_eq "$n: its loop waited for none of its releases" 0 \
        "$(sent_waited $n release | cut -d' ' -f2)"
done
echo "# a: claims sent/waited for $(sent_waited a claim), releases $(sent_waited a release)," \
    "grants $(sent_waited a lease_grant), claim-gate reads (still blocking) $(sent_waited a claim_holder)"
check "a and b sent a claim for each of the 6 (and more for the ones they lost)" \
    test "$claims_ab" -ge 6
check "releases were sent (each finished invocation's)" \
    test "$(($(sent_waited a release | cut -d' ' -f1) + $(sent_waited b release | cut -d' ' -f1)))" -ge 6

# SIGKILL the controller of a long invocation: NodeLost after its Lease.
kl_apply l1 600
kl_wait l1 '.phase == "Running"' 420
lost=$(st l1 .controller)
if [ "$lost" = "$A" ]; then lost_n=a other=$B; else lost_n=b other=$A; fi
u1=$(kubectl_t get ai l1 -o jsonpath='{.metadata.uid}')
check_eq "l1's claim is held by its controller" "$lost" \
    "$(lease agentctl-claim-l1 .spec.holderIdentity)"
kl_kill "$lost_n"
sleep 3 # under the 5 s TTL: its claim still holds (control)
check_eq "l1: still Running under $lost while its Lease lives (control)" \
    "Running $lost" "$(st l1 '"\(.phase) \(.controller)"')"
kl_wait l1 '.phase == "Failed"' 60
check_eq "l1: Failed node-lost" "Failed node-lost" "$(st l1 '"\(.phase) \(.stopReason)"')"
check_match "l1: NodeLost names the lost controller, seen by the other" \
    "$lost.*seen by controller $other" \
    "$(st l1 '.conditions[] | select(.type == "NodeLost") | .message')"
check "l1: the claim no longer names $lost (taken, NodeLost written, let go)" \
    test "$(lease agentctl-claim-l1 .spec.holderIdentity)" != "$lost"
check_eq "the lost controller's Lease is fenced before its claim is taken" "" \
    "$(lease "agentctl-controller-$lost" .spec.holderIdentity)"
sleep 4 # several resyncs: nothing reruns it
check_eq "l1: its agent started once, never rerun" 1 "$(starts "$u1")"
kl_kill a
kl_kill b

# Negative control: the holder check off (test-hooks build), every claim
# looks free and both controllers take the invocations of one batch
# (applied before either starts, so both list it at once): an agent runs
# twice, or one controller marks the other's live attempt node-lost.
# With the check (above) neither happened: every agent ran once, and
# only the killed controller's attempt was node-lost.
nbatch="n1 n2 n3 n4 n5 n6"
for n in $nbatch; do kl_apply "$n" 6; done
AGENTCTL_TEST_DISABLE=kube-claim-holder kl_start c "$HOOKED"
AGENTCTL_TEST_DISABLE=kube-claim-holder,kube-loop-async kl_start d "$HOOKED"
for n in $nbatch; do kl_wait "$n" '.phase == "Succeeded" or .phase == "Failed"' 480; done
twice=0 stolen=0
for n in $nbatch; do
    u=$(kubectl_t get ai "$n" -o jsonpath='{.metadata.uid}')
    [ "$(starts "$u")" -gt 1 ] && twice=$((twice + 1))
    [ "$(st "$n" .stopReason)" = node-lost ] && stolen=$((stolen + 1))
done
both=$(both_took c d $nbatch)
echo "# without the holder check: $both of 6 started by both controllers," \
    "$twice of 6 agents ran twice, $stolen of 6 marked node-lost by the other live controller"
check "negative control: without the holder check both controllers took an invocation (started by both, or node-lost while both lived)" \
    test "$((both + stolen))" -gt 0
# the control of the counts above: d (kube-loop-async) waited for its
# grant and for every claim it sent; c, the same build, for none
read -r d_sent d_waited <<<"$(sent_waited d claim)"
echo "# claims sent/waited for: c $(sent_waited c claim), d $d_sent $d_waited;" \
    "grants: c $(sent_waited c lease_grant), d $(sent_waited d lease_grant)"
check "control: d's loop waited for each claim it sent (the blocking way)" \
    test "$d_sent" -ge 1 -a "$d_waited" -eq "$d_sent"
read -r sent waited <<<"$(sent_waited d lease_grant)"
check "control: d's loop waited for its Lease grant" \
    test "$sent" -ge 1 -a "$waited" -eq "$sent"
check_eq "c (same build, without the hook) waited for none of its claims" 0 \
    "$(sent_waited c claim | cut -d' ' -f2)"
