# shellcheck shell=bash
# etcd_absent_lib.sh - what the etcd controller scenarios with nothing
# running share (test_etcd_idle.sh, test_etcd_stall.sh): every spec names
# an image that is not on the daemon ($ABSENT), so the controller admits
# it, gets a 404 for the image, records Failed/ImageNotFound, cleans up
# (nothing to remove) and releases its claim. After lib.sh and
# etcd_lib.sh; the caller sets ABSENT and has started etcd.
#
#   absent_init NAME           checks, config, ID, RUN, agentctl's env
#   absent_config FILE POOL    the controller's config (vendor fake)
#   absent_specs PREFIX COUNT  invocation documents on stdout
#   status_json                every status under the prefix, one JSON a line
#   stop_controller            SIGTERM the controller in $CP (if any)

A=$BUILD/cli/agentctl
C=$BUILD/controller/agent-controller-testhooks
CP=

stop_controller() {
    [ -n "$CP" ] || return 0
    kill -CONT "$CP" 2>/dev/null || true
    kill -TERM "$CP" 2>/dev/null || true
    wait "$CP" 2>/dev/null || true
    CP=
}

absent_config() {
    mkdir -p "$TEST_TMP/ws" && install -d -m 0700 "$TEST_TMP/secrets"
    cat >"$1" <<YAML
vendors:
  fake: {hosts: ["vendor.test:443"], allowPrivate: true}
subnetPool: $2
workspaceRoot: $TEST_TMP/ws
secretsDir: $TEST_TMP/secrets
YAML
}

absent_init() {
    need_docker
    command -v jq >/dev/null || skip "jq not installed"
    [ -x "$C" ] || fail "$C is not built"
    ! docker image inspect "$ABSENT" >/dev/null 2>&1 ||
        skip "$ABSENT exists on the daemon; the scenario needs it absent"
    RUN=$(printf '%s' "$TEST_RUN_ID" | sha256sum | cut -c1-10)
    ID=$1-$RUN
    export AGENTCTL_ETCD=$ETCD_URL AGENTCTL_ETCD_PREFIX=/$1-$RUN
    export AGENTCTL_STATE=$TEST_TMP/cli-state
    unset AGENTCTL_SPECS
    absent_config "$TEST_TMP/controller.yaml" 10.219.0.0/16
}

absent_specs() {
    local i
    for i in $(seq 0 $(($2 - 1))); do
        printf -- '---\napiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n'
        printf 'metadata: {name: %s%d}\nspec:\n  vendor: fake\n  phase: execute\n' "$1" "$i"
        printf '  image: %s\n  command: [/demo-agent]\n  deadlineSeconds: 600\n' "$ABSENT"
    done
}

# status_json: every status document in the store, one JSON per line,
# {"name": ..., "phase": ..., "cleanedUp": ...}, read from etcd directly.
status_json() {
    local key end
    key=$(printf '%s/status/' "$AGENTCTL_ETCD_PREFIX" | base64 -w0)
    end=$(printf '%s/status0' "$AGENTCTL_ETCD_PREFIX" | base64 -w0)
    curl -fsS --max-time 5 "$ETCD_URL/v3/kv/range" \
        -d "{\"key\":\"$key\",\"range_end\":\"$end\"}" |
        jq -c --arg p "$AGENTCTL_ETCD_PREFIX/status/" '.kvs[]? |
            (.key | @base64d | ltrimstr($p)) as $n |
            (.value | @base64d | fromjson) |
            {name: $n, phase: .phase, cleanedUp: (.cleanedUp == true)}'
}
