# shellcheck shell=bash
# lib_gateway_local.sh - agent-gateway and the TLS test vendor as built
# binaries on loopback, no Docker (source it from
# tests/integration/gateway/test_gateway_*.sh after lib.sh).
#
#   gwl_init TITLE TOOL...
#               skip without a TOOL, agent-gateway or tls-vendor; HOST is
#               the vendor's test name, a CA titled TITLE made for it, PIDS
#               killed at cleanup
#   gwl_vendor [VAR=VALUE...]
#               the vendor on a free port (VPORT) with the variables in its
#               environment, once it listens
#   gateway NAME FLAG...
#               a gateway on a kernel-chosen port dialling that vendor with
#               GWL_FLAGS and FLAG...; sets PORT_NAME

gwl_init() {
    local title=$1 t
    shift
    for t in "$@"; do
        command -v "$t" >/dev/null || skip "$t not installed"
    done
    GW_BIN=$BUILD/proxy/agent-gateway
    VENDOR_BIN=$(find "$BUILD/tests" -maxdepth 2 -type f -name tls-vendor 2>/dev/null | head -n 1)
    [ -x "$GW_BIN" ] && [ -n "$VENDOR_BIN" ] ||
        skip "agent-gateway or tls-vendor not built in $BUILD"
    HOST=llm.vendor.test
    PIDS=()
    GWL_FLAGS=()
    on_cleanup 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null'
    make_test_ca "$TEST_TMP" "$HOST" "$title"
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

gwl_vendor() {
    VPORT=$(free_port)
    env "$@" "$VENDOR_BIN" --cert "$TEST_TMP/vendor.pem" \
        --key "$TEST_TMP/vendor.key" --port "$VPORT" \
        >"$TEST_TMP/vendor.out" 2>"$TEST_TMP/vendor.err" &
    PIDS+=($!)
    for _ in $(seq 1 100); do # readiness, not a timed assertion
        grep -q 'listening' "$TEST_TMP/vendor.err" && break
        sleep 0.1
    done
}

gateway() {
    local name=$1 port
    shift
    "$GW_BIN" --listen 127.0.0.1:0 --upstream "$HOST:443" \
        --connect-to "$HOST:443=127.0.0.1:$VPORT" --ca-file "$TEST_TMP/ca.pem" \
        "${GWL_FLAGS[@]}" "$@" \
        >"$TEST_TMP/$name.audit" 2>"$TEST_TMP/$name.err" &
    PIDS+=($!)
    for _ in $(seq 1 100); do # readiness, not a timed assertion
        port=$(jq -r 'select(.msg == "listening") | .addr' \
            "$TEST_TMP/$name.err" 2>/dev/null | cut -d: -f2)
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || fail "$name never listened: $(cat "$TEST_TMP/$name.err")"
    printf -v "PORT_$name" '%s' "$port"
}
