# etcd_lib.sh - a private etcd on loopback for a store scenario (source
# after ../lib.sh). start_etcd picks free ports and sets ETCD_URL;
# kill_etcd / restart_etcd stop it hard and bring it back on the same ports
# and data. It is killed and its data removed on exit. Skips when etcd is
# not installed.

# FREE_PORT = a loopback port nothing listens on (nothing answers a
# connect), not one handed out before in this scenario.
free_port() {
    local p
    while :; do
        # below the kernel's ephemeral range (32768-60999): a port there
        # can be taken by any outgoing connection between this check and
        # etcd's bind ("address already in use", seen in the store bench)
        p=$((20000 + RANDOM % 12700))
        case " ${USED_PORTS:-} " in *" $p "*) continue ;; esac
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            USED_PORTS="${USED_PORTS:-} $p"
            FREE_PORT=$p
            return
        fi
    done
}

run_etcd() {
    etcd --name t --data-dir "$TEST_TMP/etcd" \
        --listen-client-urls "$ETCD_URL" --advertise-client-urls "$ETCD_URL" \
        --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" \
        --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
        --initial-cluster "t=http://127.0.0.1:$ETCD_PEER" \
        >>"$TEST_TMP/etcd.log" 2>&1 &
    ETCD_PID=$!
    for _ in $(seq 100); do
        if curl -fsS --max-time 1 "$ETCD_URL/health" 2>/dev/null | grep -q true; then
            return 0
        fi
        sleep 0.1
    done
    cat "$TEST_TMP/etcd.log" >&2
    fail "etcd did not come up on $ETCD_URL"
}

start_etcd() {
    command -v etcd >/dev/null 2>&1 || skip "etcd is not installed (Debian etcd-server)"
    free_port
    ETCD_URL=http://127.0.0.1:$FREE_PORT
    free_port
    ETCD_PEER=$FREE_PORT
    on_cleanup 'kill_etcd'
    run_etcd
}

kill_etcd() {
    [ -n "${ETCD_PID:-}" ] || return 0
    kill -9 "$ETCD_PID" 2>/dev/null || true
    wait "$ETCD_PID" 2>/dev/null || true
    ETCD_PID=
}

restart_etcd() {
    kill_etcd
    run_etcd
}
