#!/usr/bin/env bash
# test_controller_etcd.sh - agent-controller on the etcd store, end to end
# on this machine's Docker daemon: apply -> the demo agent runs ->
# Succeeded; its output is read back by `agentctl logs` and its change set
# by `agentctl changes` from another state dir (uploaded to etcd); delete
# -> every Docker object of the attempt is removed. The first etcd
# endpoint is dead, so every request fails over.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/etcd_lib.sh"
source "$(dirname "$0")/../lib_demo.sh"

command -v jq >/dev/null || skip "jq not installed"
A=$BUILD/cli/agentctl
C=$BUILD/controller/agent-controller
demo_setup etcd
start_etcd

export AGENTCTL_ETCD="http://127.0.0.1:1,$ETCD_URL" AGENTCTL_ETCD_PREFIX=/c-$RUN
export AGENTCTL_STATE=$TEST_TMP/state
unset AGENTCTL_SPECS
demo_spec "$TEST_TMP/in/demo.yaml"
check "apply to etcd" "$A" apply -f "$TEST_TMP/in/demo.yaml"
"$C" --etcd "$AGENTCTL_ETCD" --etcd-prefix "$AGENTCTL_ETCD_PREFIX" \
    --state "$AGENTCTL_STATE" --config "$TEST_TMP/controller.yaml" \
    --controller-id "$ID" --resync 2s >"$TEST_TMP/controller.log" 2>&1 &
CP=$!
if ! "$A" wait "demo-$RUN" --for=phase=Succeeded --timeout=480s; then
    tail -n 30 "$TEST_TMP/controller.log" >&2
    fail "demo-$RUN did not succeed"
fi
check_eq "status names this controller" "$ID" \
    "$("$A" get "demo-$RUN" -o json | jq -r .status.controller)"
check_match "logs from another state dir: the output came through etcd" \
    "vendor_body: vendor-$RUN" \
    "$(AGENTCTL_STATE=$TEST_TMP/elsewhere "$A" logs "demo-$RUN")"
# the change set too: read back at cleanup, uploaded with the status
for _ in $(seq 600); do
    [ "$("$A" get "demo-$RUN" -o json | jq -r .status.progress.changesRead)" = true ] &&
        break
    sleep 0.2
done
check_match "changes from another state dir: the demo agent's write came through etcd" \
    ' A demo\.txt' \
    "$(AGENTCTL_STATE=$TEST_TMP/elsewhere "$A" changes "demo-$RUN" --stat)"
check_eq "and its diff is the controller's, byte for byte" \
    "$(sha256sum <"$TEST_TMP/state/output/demo-$RUN.changes.diff")" \
    "$(sha256sum <"$TEST_TMP/elsewhere/output/demo-$RUN.changes.diff")"
check "delete" "$A" delete "demo-$RUN"
for _ in $(seq 600); do # until the controller removed the attempt's objects
    [ "$(docker_count_label "$MANAGED")" = 0 ] &&
        ! "$A" get "demo-$RUN" -o json 2>/dev/null | jq -e .status.phase >/dev/null &&
        break
    sleep 0.2
done
check_eq "delete: every Docker object of the attempt removed" 0 \
    "$(docker_count_label "$MANAGED")"
check "the controller is still running" kill -0 "$CP"
