#!/usr/bin/env bash
# test_kube_watch.sh - the API server store's watch (store_kube_watch.c)
# against a real kube-apiserver, through store_contract --watch: a new
# object and a spec change are reported, a status-only update (the
# controller's own writes) is not; the API server restarted is survived
# (the stream resumes, nothing reported twice); after a restart whose
# etcd was compacted past the watch's resourceVersion (410 Gone) the
# store lists again and reports RESYNC, and later changes flow. Control:
# a plain resume from that resourceVersion is refused with 410, so the
# relist is what kept the watch alive.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../lib_kube.sh"
command -v etcdctl >/dev/null 2>&1 || skip "etcdctl is not installed (Debian etcd-client)"
start_kube
install_crd
W=$TEST_TMP/watch.log
"$BUILD/tests/store_contract" --watch kube "$KUBECONFIG_FILE" "$TEST_TMP/state" >"$W" 2>&1 &
WATCHER=$!
on_cleanup 'kill $WATCHER 2>/dev/null; wait $WATCHER 2>/dev/null'

count() { grep -Ec "$1" "$W" || true; }
# wait_line REGEX [N]: until the watcher printed N (1) lines matching it
# (30 s)
wait_line() {
    for _ in $(seq 300); do
        [ "$(count "$1")" -ge "${2:-1}" ] && return 0
        sleep 0.1
    done
    return 1
}
spec() { sed "s/name: minimal/name: $1/" "$ROOT/tests/specs/valid/minimal.yaml"; }
ectl() { ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URL" "$@"; }

check "the watch starts" wait_line '^WATCHING'
spec a | kubectl_t apply -f - >/dev/null
check "a new object is reported" wait_line '^PUT a$'
kubectl_t patch ai a --subresource status --type merge -p '{"status":{"phase":"Running"}}' >/dev/null
kubectl_t patch ai a --type merge -p '{"spec":{"deadlineSeconds":5}}' >/dev/null
check "a spec change is reported" wait_line '^PUT a$' 2
spec b | kubectl_t apply -f - >/dev/null
check "... and the next object after it" wait_line '^PUT b$'
check_eq "the status-only update was not reported" 2 "$(count '^PUT a$')"

resyncs=$(count '^RESYNC')
restart_kube
spec c | kubectl_t apply -f - >/dev/null
# the stream resumes from its version, or (the restarted server's watch
# cache may not reach back that far) lists again: either way the caller
# hears of c
heard_c() {
    for _ in $(seq 300); do
        [ "$(count '^PUT c$')" -ge 1 ] || [ "$(count '^RESYNC')" -gt "$resyncs" ] && return 0
        sleep 0.1
    done
    return 1
}
check "after an API server restart the watch goes on (PUT c or RESYNC)" heard_c
check_eq "... without reporting anything twice" "2 1" "$(count '^PUT a$') $(count '^PUT b$')"
sleep 1
spec c2 | kubectl_t apply -f - >/dev/null
check "... and the next change is reported" wait_line '^PUT c2$'

old=$(kubectl_t get ai c2 -o jsonpath='{.metadata.resourceVersion}')
resyncs=$(count '^RESYNC')
kill_kube
ectl put /agentctl-test/bump 1 >/dev/null
rev=$(ectl endpoint status -w json | jq '.[0].Status.header.revision')
ectl compact "$rev" >/dev/null
run_kube_apiserver
out=$(curl -sS --max-time 5 --cacert "$KUBE_PKI/ca.crt" --cert "$KUBE_PKI/admin.crt" \
    --key "$KUBE_PKI/admin.key" \
    "$KUBE_URL/apis/agentctl.dev/v1alpha1/agentinvocations?watch=1&resourceVersion=$old&timeoutSeconds=1" || true)
check_match "control: a plain resume from the compacted version gets 410 Gone" '"code":410' "$out"
check "after 410 Gone the store lists again and says RESYNC" \
    wait_line '^RESYNC' $((resyncs + 1))
spec d | kubectl_t apply -f - >/dev/null
check "... and later changes flow" wait_line '^PUT d$'

echo "# $SECONDS s in all"
