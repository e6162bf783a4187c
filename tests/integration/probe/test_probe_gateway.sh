#!/usr/bin/env bash
# test_probe_gateway.sh - the boundary probe's gateway mode (--gateway) with
# the built binaries, no Docker: the whole scenario runs in a network
# namespace of its own (unshare -rn: only lo, no default route, no
# resolver it can reach, IPv6 off on lo), so fixed ports are free and no
# packet leaves it. The real agent-gateway refuses the probe's request
# outside its rules with 403 and Proxy-Status (ok, exit 0) and dials
# nothing; the real egress-proxy, whose allowlist does not hold the
# vendor, refuses the CONNECT to it (the request without the gateway
# fails). Each other case is a negative control of the ok one, and the ok
# one of them:
#   a listener answering 200 on the gateway's address -> breach (2);
#   one answering a bare 403 (no Proxy-Status) -> breach (2);
#   nothing listening -> proxy-broken (3), after retrying to --timeout-ms;
#   a listener that never answers -> inconclusive (5);
#   a proxy that admits the vendor (it then fails to resolve it: 502) ->
#     the denied check is a breach (2) though the gateway is fine;
#   --allowed with --gateway, a gateway by name, neither -> usage (4);
#   CONNECT mode (--allowed) against that proxy still runs as before: ok,
#     vendor unreachable (502), no gateway check.
source "$(dirname "$0")/../lib.sh"
PROBE_BIN=$BUILD/images/probe
GW_BIN=$BUILD/proxy/agent-gateway
PX_BIN=$BUILD/proxy/egress-proxy
for b in "$PROBE_BIN" "$GW_BIN" "$PX_BIN"; do
    [ -x "$b" ] || skip "$(basename "$b") not built in $BUILD"
done
for t in jq python3; do
    command -v "$t" >/dev/null || skip "$t not installed"
done
# Everything below runs in the namespace: this script again, under
# unshare, with the checks and the exit code of that run.
if [ -z "${PROBE_GATEWAY_NETNS:-}" ]; then
    unshare -rn true 2>/dev/null ||
        skip "no unprivileged network namespace (unshare -rn)"
    PROBE_GATEWAY_NETNS=1 exec unshare -rn bash "$0" "$@"
fi
ip link set lo up 2>/dev/null || python3 - <<'PY' || fail "cannot bring lo up"
import fcntl, socket, struct
s = socket.socket()
ifr = struct.pack("16sH", b"lo", 0x1 | 0x40)  # IFF_UP | IFF_RUNNING
fcntl.ioctl(s, 0x8914, ifr)  # SIOCSIFFLAGS
PY
# The probe's ipv6 check must see no address, as in the agent's box.
if [ -e /proc/sys/net/ipv6/conf/lo/disable_ipv6 ]; then
    echo 1 >/proc/sys/net/ipv6/conf/lo/disable_ipv6 ||
        skip "cannot switch IPv6 off on lo in the namespace"
fi

PIDS=()
on_cleanup 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null'
TIMEOUT_MS=800
VENDOR=vendor.test:443

"$PX_BIN" --listen 127.0.0.1:3128 --allow other.test:443 \
    >"$TEST_TMP/proxy.out" 2>&1 &
PIDS+=($!)
"$PX_BIN" --listen 127.0.0.1:3129 --allow "$VENDOR" \
    >"$TEST_TMP/proxy-admits.out" 2>&1 &
PIDS+=($!)
"$GW_BIN" --listen 127.0.0.1:8080 --upstream "$VENDOR" --no-credential \
    --allow 'POST /v1/messages' >"$TEST_TMP/gateway.out" 2>&1 &
PIDS+=($!)
# 8081 answers 200, 8082 a bare 403, 8084 never accepts (the kernel
# completes the handshake, nobody reads); nothing listens on 8083.
python3 - "$TEST_TMP/listeners.ready" <<'PY' &
import socket, sys, threading, time
def serve(port, reply):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port)); s.listen(8)
    while True:
        c, _ = s.accept(); buf = b""
        while b"\r\n\r\n" not in buf:
            d = c.recv(512)
            if not d: break
            buf += d
        c.sendall(reply); c.close()
for port, status in ((8081, b"200 OK"), (8082, b"403 Forbidden")):
    threading.Thread(target=serve, daemon=True, args=(port,
        b"HTTP/1.1 " + status + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")).start()
mute = socket.socket(); mute.bind(("127.0.0.1", 8084)); mute.listen(8)
time.sleep(0.2); open(sys.argv[1], "w").close(); time.sleep(300)
PY
PIDS+=($!)
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in $(seq 100); do
    listening 3128 && listening 3129 && listening 8080 &&
        [ -e "$TEST_TMP/listeners.ready" ] && break
    sleep 0.05
done
[ -e "$TEST_TMP/listeners.ready" ] || fail "the listeners did not come up"

# probe ARGS...: its JSON line, then "exit=N".
probe() {
    local out rc=0
    out=$("$PROBE_BIN" "$@" 2>"$TEST_TMP/probe.err") || rc=$?
    printf '%s\nexit=%s\n' "$out" "$rc"
}
verdict() { head -n 1 <<<"$1" | jq -r '"\(.verdict) \(.vendor)"'; }
exit_of() { tail -n 1 <<<"$1"; }
check_of() { # OUTPUT NAME -> "ok detail fail"
    head -n 1 <<<"$1" | jq -r --arg n "$2" \
        '.checks[] | select(.name == $n) | "\(.ok) \(.detail) \(.fail // "-")"'
}
names_of() { head -n 1 <<<"$1" | jq -r '[.checks[].name] | join(",")'; }
GW=(--proxy 127.0.0.1:3128 --denied "$VENDOR" --timeout-ms "$TIMEOUT_MS")

out=$(probe "${GW[@]}" --gateway 127.0.0.1:8080)
echo "# ok: $(head -n 1 <<<"$out")"
check_eq "the real gateway refuses: ok, vendor unknown" "ok unknown" \
    "$(verdict "$out")"
check_eq "and exit 0" exit=0 "$(exit_of "$out")"
check_eq "the checks of gateway mode, gateway first" \
    "gateway,denied,dns,ipv6,landlock" \
    "$(names_of "$out")"
check_eq "gateway: its 403 with Proxy-Status" "true 403 -" \
    "$(check_of "$out" gateway)"
check_eq "denied: the proxy refuses the vendor itself" "true 403 -" \
    "$(check_of "$out" denied)"
check_match "dns asks for the vendor's name (--denied)" '"target":"vendor.test:443"' \
    "$(head -n 1 <<<"$out" | jq -c '.checks[] | select(.name == "dns")')"
# (the readiness connects above sent no request)
audit=$(jq -r 'select(.msg == "request") | "\(.method) \(.path) \(.status)"' \
    "$TEST_TMP/gateway.out")
check_eq "the gateway saw exactly the probe's request and refused it" \
    "GET /agentctl-probe/outside-the-rules 403" "$audit"

out=$(probe "${GW[@]}" --gateway 127.0.0.1:8081)
echo "# 200: $(head -n 1 <<<"$out")"
check_eq "a 200 on the gateway's address: breach" "breach unknown" \
    "$(verdict "$out")"
check_eq "gateway: 200, a breach" "false 200 breach" "$(check_of "$out" gateway)"
check_eq "exit 2" exit=2 "$(exit_of "$out")"

out=$(probe "${GW[@]}" --gateway 127.0.0.1:8082)
echo "# bare 403: $(head -n 1 <<<"$out")"
check_eq "a 403 without Proxy-Status: breach" "breach unknown" \
    "$(verdict "$out")"
check_eq "gateway: not the gateway's refusal" \
    "false 403 without Proxy-Status agentctl-gateway breach" \
    "$(check_of "$out" gateway)"
check_eq "exit 2" exit=2 "$(exit_of "$out")"

t0=$(date +%s%N)
out=$(probe "${GW[@]}" --gateway 127.0.0.1:8083)
t1=$(date +%s%N)
echo "# nothing listening: $(head -n 1 <<<"$out")"
check_eq "no gateway: proxy-broken" "proxy-broken unknown" "$(verdict "$out")"
check_eq "gateway: refused, broken" "false refused broken" \
    "$(check_of "$out" gateway)"
check_eq "exit 3" exit=3 "$(exit_of "$out")"
check "it retried the refusal until --timeout-ms (it may be starting)" \
    test $(((t1 - t0) / 1000000)) -ge $((TIMEOUT_MS - 50))

out=$(probe "${GW[@]}" --gateway 127.0.0.1:8084)
echo "# silent: $(head -n 1 <<<"$out")"
check_eq "a gateway address that never answers: inconclusive" \
    "inconclusive unknown" "$(verdict "$out")"
check_eq "gateway: undecided" "false no answer in $TIMEOUT_MS ms undecided" \
    "$(check_of "$out" gateway)"
check_eq "exit 5" exit=5 "$(exit_of "$out")"

out=$(probe --proxy 127.0.0.1:3129 --denied "$VENDOR" --timeout-ms "$TIMEOUT_MS" \
    --gateway 127.0.0.1:8080)
echo "# proxy admits the vendor: $(head -n 1 <<<"$out")"
check_eq "a proxy that admits the vendor: breach though the gateway holds" \
    "breach unknown" "$(verdict "$out")"
check_match "denied: the proxy tried the vendor (502/504)" \
    '^false 50[24] breach$' "$(check_of "$out" denied)"
check_eq "gateway: still ok" "true 403 -" "$(check_of "$out" gateway)"

for bad in "--allowed $VENDOR --gateway 127.0.0.1:8080" \
    "--gateway gateway.test:8080" ""; do
    # shellcheck disable=SC2086 # word splitting wanted
    out=$(probe --proxy 127.0.0.1:3128 --denied "$VENDOR" $bad)
    check_eq "usage error: [${bad:-neither --allowed nor --gateway}]" exit=4 \
        "$(exit_of "$out")"
done

out=$(probe --proxy 127.0.0.1:3129 --allowed "$VENDOR" \
    --denied agentctl-probe-denied.invalid:443 --timeout-ms "$TIMEOUT_MS")
echo "# CONNECT mode: $(head -n 1 <<<"$out")"
check_eq "CONNECT mode as before: ok, the vendor unreachable (502)" \
    "ok unreachable" "$(verdict "$out")"
check_eq "CONNECT mode's checks, no gateway check" \
    "allowed,denied,dns,ipv6,landlock" \
    "$(names_of "$out")"
