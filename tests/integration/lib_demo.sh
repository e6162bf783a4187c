# lib_demo.sh - what a scenario needs to run manifests/examples/demo.yaml
# end to end under a controller (source after lib.sh): demo_setup ID_PREFIX
# checks the images, sets RUN (a short hash of this run), ID
# (<prefix>-RUN, the controller ID), MANAGED (its managed-by label) and
# EG (the egress network), writes $TEST_TMP/controller.yaml, starts the
# vendor stand-in (vendor.test:443 on EG, answering "vendor-RUN") and
# the demo's workspace, and registers their clean-up with the
# controller's (stop_controller kills $CP). demo_spec OUT writes the demo
# named demo-RUN.

demo_setup() {
    local i
    need_docker
    for i in demo-agent testbox egress-proxy; do
        docker image inspect "agentctl/$i:0.1.0" >/dev/null 2>&1 ||
            skip "agentctl/$i:0.1.0 not built (hack/images.sh)"
    done
    RUN=$(printf '%s' "$TEST_RUN_ID" | sha256sum | cut -c1-10)
    ID=$1-$RUN
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
    on_cleanup 'stop_controller; docker_cleanup_label "$MANAGED"; docker_cleanup_label "$TEST_LABEL"; docker network rm "$EG" >/dev/null 2>&1 || true'
    docker network create --label "$TEST_LABEL" "$EG" >/dev/null
    docker run -d --label "$TEST_LABEL" --name "vendor-$RUN" --network "$EG" \
        --network-alias vendor.test agentctl/testbox:0.1.0 sh -c \
        "echo vendor-$RUN >/www/index.html && exec httpd -f -p 443 -h /www" >/dev/null
}

stop_controller() {
    [ -n "$CP" ] || return 0
    kill -TERM "$CP" 2>/dev/null || true
    wait "$CP" 2>/dev/null || true
    CP=
}

demo_spec() {
    sed -e "s/^  name: demo$/  name: demo-$RUN/" "$ROOT/manifests/examples/demo.yaml" >"$1"
}

# demo_named NAME ARGS...: the demo named NAME-RUN running /demo-agent
# ARGS (e.g. --sleep 300), on stdout.
demo_named() {
    local name=$1
    shift
    sed -e "s/^  name: demo$/  name: $name-$RUN/" \
        -e "s|command: \[/demo-agent, --write-work\]|command: [/demo-agent$(printf ', "%s"' "$@")]|" \
        "$ROOT/manifests/examples/demo.yaml"
}
