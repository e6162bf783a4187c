#!/usr/bin/env bash
# test_controller_etcd.sh - agent-controller on the etcd store, end to end
# on this machine's Docker daemon: apply -> the demo agent runs ->
# Succeeded; its output is read back by `agentctl logs` and its change set
# by `agentctl changes` from another state dir (uploaded to etcd); delete
# -> every Docker object of the attempt is removed. The first etcd
# endpoint is dead, so every request fails over.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/etcd_lib.sh"

need_docker
command -v jq >/dev/null || skip "jq not installed"
A=$BUILD/cli/agentctl
C=$BUILD/controller/agent-controller
for i in demo-agent testbox egress-proxy; do
    docker image inspect "agentctl/$i:0.1.0" >/dev/null 2>&1 ||
        skip "agentctl/$i:0.1.0 not built (hack/images.sh)"
done
start_etcd

RUN=$(printf '%s' "$TEST_RUN_ID" | sha256sum | cut -c1-10)
ID=etcd-$RUN
MANAGED="agentctl.dev/managed-by=$ID"
EG=agentctl-test-egress-$RUN
mkdir -p "$TEST_TMP/ws/demo" "$TEST_TMP/in"
install -d -m 0700 "$TEST_TMP/secrets"
echo "a workspace file" >"$TEST_TMP/ws/demo/README"
cat >"$TEST_TMP/controller.yaml" <<YAML
vendors:
  fake: {hosts: ["vendor.test:443"], allowPrivate: true, credentialEnv: FAKE_API_KEY,
         credentialMode: env}
egressNetwork: $EG
workspaceRoot: $TEST_TMP/ws
secretsDir: $TEST_TMP/secrets
YAML
CP=
stop_controller() {
    [ -n "$CP" ] || return 0
    kill -TERM "$CP" 2>/dev/null || true
    wait "$CP" 2>/dev/null || true
    CP=
}
on_cleanup 'stop_controller; docker_cleanup_label "$MANAGED"; docker_cleanup_label "$TEST_LABEL"; docker network rm "$EG" >/dev/null 2>&1 || true'
docker network create --label "$TEST_LABEL" "$EG" >/dev/null
docker run -d --label "$TEST_LABEL" --name "vendor-$RUN" --network "$EG" \
    --network-alias vendor.test agentctl/testbox:0.1.0 sh -c \
    "echo vendor-$RUN >/www/index.html && exec httpd -f -p 443 -h /www" >/dev/null

export AGENTCTL_ETCD="http://127.0.0.1:1,$ETCD_URL" AGENTCTL_ETCD_PREFIX=/c-$RUN
export AGENTCTL_STATE=$TEST_TMP/state
unset AGENTCTL_SPECS
sed -e "s/^  name: demo$/  name: demo-$RUN/" "$ROOT/manifests/examples/demo.yaml" \
    >"$TEST_TMP/in/demo.yaml"
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
