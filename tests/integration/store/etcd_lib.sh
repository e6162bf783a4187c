# etcd_lib.sh - start a private etcd on loopback for a store scenario
# (source after ../lib.sh). Sets ETCD_URL; the server is killed and its
# data removed on exit. Skips when etcd is not installed.

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start_etcd() {
    command -v etcd >/dev/null 2>&1 || skip "etcd is not installed (Debian etcd-server)"
    local port peer
    port=$(free_port)
    peer=$(free_port)
    ETCD_URL=http://127.0.0.1:$port
    etcd --name t --data-dir "$TEST_TMP/etcd" \
        --listen-client-urls "$ETCD_URL" --advertise-client-urls "$ETCD_URL" \
        --listen-peer-urls "http://127.0.0.1:$peer" \
        --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
        --initial-cluster "t=http://127.0.0.1:$peer" \
        >"$TEST_TMP/etcd.log" 2>&1 &
    ETCD_PID=$!
    on_cleanup "kill $ETCD_PID 2>/dev/null; wait $ETCD_PID 2>/dev/null"
    for _ in $(seq 100); do
        if curl -fsS --max-time 1 "$ETCD_URL/health" 2>/dev/null | grep -q true; then
            return 0
        fi
        sleep 0.1
    done
    cat "$TEST_TMP/etcd.log" >&2
    fail "etcd did not come up on $ETCD_URL"
}
