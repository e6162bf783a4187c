#!/usr/bin/env bash
# test_probe.sh - the boundary probe (agentctl/probe) against the real
# topology: an Internal network with inhibit_ipv4, the egress-proxy on it
# and on an egress network with a vendor. The probe, hardened as the agent
# is, says ok with the vendor reachable; then each negative control flips
# the verdict: (a) vendor stopped -> ok, vendor unreachable; (b) a proxy
# that admits the denied host -> breach; (c) the probe also on the egress
# network -> direct connection breach; (d) an internal network without
# inhibit_ipv4 and a host listener on its gateway -> direct breach; (e)
# IPv6 switched on inside the box (lo gets ::1) -> ipv6 breach, where the
# agent's sysctls (net.ipv6.conf.{all,default}.disable_ipv6=1, which every
# other run here has, as the controller's probe does) leave no address.
# Traffic goes only to the networks and containers made here and to a
# listener bound to the gateway address of a network made here.
source "$(dirname "$0")/../lib.sh"
need_docker
command -v jq >/dev/null || skip "no jq"
[ -x /bin/busybox ] || skip "no /bin/busybox (package busybox-static)"
VERSION=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' \
    "$ROOT/CMakeLists.txt")
PROBE=agentctl/probe:$VERSION
PROXY=agentctl/egress-proxy:$VERSION
BOX=agentctl/testbox:$VERSION
bash "$ROOT/hack/images/build-probe.sh" >/dev/null || fail "cannot build $PROBE"
for img in egress-proxy:$PROXY testbox:$BOX; do
    docker image inspect "${img#*:}" >/dev/null 2>&1 ||
        bash "$ROOT/hack/images/build-${img%%:*}.sh" >/dev/null ||
        fail "cannot build ${img#*:}"
done

id=$$
L=(--label "$TEST_LABEL")
TIMEOUT_MS=1500
DENIED=agentctl-probe-denied.invalid:443

# make_net NAME [docker network create flags...]: create NAME on the first
# free /24 of a few candidates; prints the subnet's first three octets.
make_net() {
    local name=$1 third
    shift
    for third in 247 246 245 244 243 242 241 240 239 238; do
        if docker network create "${L[@]}" "$@" \
            --subnet "10.213.$third.0/24" --gateway "10.213.$third.1" \
            "$name" >/dev/null 2>&1; then
            echo "10.213.$third"
            return 0
        fi
    done
    fail "no free /24 for $name in 10.213.238-247"
}

INT=probe-int-$id
EGR=probe-egr-$id
S=$(make_net "$INT" --internal -o com.docker.network.bridge.inhibit_ipv4=true)
E=$(make_net "$EGR")
echo "# internal $S.0/24 (inhibit_ipv4), egress $E.0/24"

# httpd NAME ALIAS: a busybox web server on the egress network
httpd() {
    docker run -d "${L[@]}" --name "$1-$id" --network "$EGR" \
        --network-alias "$2" "$BOX" httpd -f -p 443 -h /www >/dev/null
}
# proxy NAME NET IP ALLOW: egress-proxy on NET at IP, also on the egress
# network. No outside DNS: it resolves only the egress network's names.
proxy() {
    docker create "${L[@]}" --name "$1-$id" --network "$2" --ip "$3" \
        --dns 0.0.0.0 --dns-option timeout:1 --dns-option attempts:1 \
        "$PROXY" --listen 0.0.0.0:3128 --allow "$4" --allow-private >/dev/null
    docker network connect "$EGR" "$1-$id"
    docker start "$1-$id" >/dev/null
}
ip_on() { # CONTAINER NETWORK
    docker inspect -f "{{(index .NetworkSettings.Networks \"$2\").IPAddress}}" "$1"
}

httpd vendor vendor.test
proxy proxy "$INT" "$S.2" vendor.test:443
VENDOR_IP=$(ip_on "vendor-$id" "$EGR")
PROXY_EGR_IP=$(ip_on "proxy-$id" "$EGR")

# probe NAME NET IP [--connect NET2] PROBE-ARGS...: run the probe hardened
# as the agent is (rc_probe_body), print its stdout, then "exit=N".
# SYSCTLS: the IPv6 sysctls of the agent's body (case (e) turns them on).
SYSCTLS=(--sysctl net.ipv6.conf.all.disable_ipv6=1
    --sysctl net.ipv6.conf.default.disable_ipv6=1)
probe() {
    local name=$1-$id net=$2 ip=$3 out rc
    shift 3
    docker create "${L[@]}" --name "$name" --network "$net" --ip "$ip" \
        --user 65534:65534 --cap-drop ALL --read-only --init \
        --security-opt no-new-privileges --restart no --pids-limit 16 \
        --memory 16m --dns 0.0.0.0 --dns-option timeout:1 \
        --dns-option attempts:1 "${SYSCTLS[@]}" "$PROBE" "${@:2}" >/dev/null
    [ "$1" != --connect-egress ] || docker network connect "$EGR" "$name"
    rc=0
    out=$(docker start -a "$name" 2>/dev/null) || rc=$?
    printf '%s\nexit=%s\n' "$out" "$rc"
}
verdict() { head -n 1 <<<"$1" | jq -r '"\(.verdict) \(.vendor)"'; }
exit_of() { tail -n 1 <<<"$1"; }
check_of() { # OUTPUT NAME TARGET -> "ok detail"
    head -n 1 <<<"$1" | jq -r --arg n "$2" --arg t "$3" \
        '.checks[] | select(.name == $n and .target == $t) | "\(.ok) \(.detail)"'
}

BASE=(--proxy "$S.2:3128" --allowed vendor.test:443 --denied "$DENIED"
    --timeout-ms "$TIMEOUT_MS")
DIRECT=(--direct "$S.1:80" --direct "$S.1:443" --direct "$S.1:3128"
    --direct "$PROXY_EGR_IP:3128" --direct "$VENDOR_IP:443")

# The vendor's httpd may need a moment: retry the first run a few times.
for i in 1 2 3 4 5; do
    t0=$(date +%s%N)
    out=$(probe "p0-$i" "$INT" "$S.4" - "${BASE[@]}" "${DIRECT[@]}")
    t1=$(date +%s%N)
    [ "$(verdict "$out")" == "ok reachable" ] && break
    docker rm -f "p0-$i-$id" >/dev/null
    sleep 1
done
echo "# $(head -n 1 <<<"$out")"
echo "# probe run (create to exit, 5 direct addresses, timeout $TIMEOUT_MS ms):" \
    "$(((t1 - t0) / 1000000)) ms; inside the container:" \
    "$(docker inspect -f '{{.State.StartedAt}} {{.State.FinishedAt}}' "p0-$i-$id" |
        { read -r a b; echo $((($(date -d "$b" +%s%N) - $(date -d "$a" +%s%N)) / 1000000)); }) ms"
check_eq "boundary holds: verdict ok, vendor reachable" "ok reachable" \
    "$(verdict "$out")"
check_eq "and exit 0" exit=0 "$(exit_of "$out")"
check_eq "one JSON line and the exit line" 2 "$(wc -l <<<"$out")"
check_eq "allowed: 200" "true 200" "$(check_of "$out" allowed vendor.test:443)"
check_eq "denied: 403" "true 403" "$(check_of "$out" denied "$DENIED")"
check_match "gateway :443 unreachable (inhibit_ipv4)" '^true (timeout|unreachable)$' \
    "$(check_of "$out" direct "$S.1:443")"
check_match "vendor's egress IP unreachable" '^true ' \
    "$(check_of "$out" direct "$VENDOR_IP:443")"
check_match "proxy's egress IP unreachable" '^true ' \
    "$(check_of "$out" direct "$PROXY_EGR_IP:3128")"
check_match "resolver does not answer the vendor's name" '^true ' \
    "$(check_of "$out" dns vendor.test:443)"
check_eq "no inet6 address in the box" "true no address" \
    "$(check_of "$out" ipv6 inet6)"
check_eq "the probe ran as the agent does: read-only, no caps" \
    "true [ALL] true" "$(docker inspect -f \
    '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.CapDrop}} {{.HostConfig.Init}}' \
    "p0-$i-$id")"

out=$(probe p-usage "$INT" "$S.4" - --proxy "$S.2:3128")
check_eq "bad usage: exit 4" exit=4 "$(exit_of "$out")"

# (a) vendor down: the proxy answers 502/504; no breach, vendor unreachable.
docker stop -t 1 "vendor-$id" >/dev/null
out=$(probe pa "$INT" "$S.4" - "${BASE[@]}")
echo "# (a) $(head -n 1 <<<"$out")"
check_eq "(a) vendor stopped: ok, vendor unreachable" "ok unreachable" \
    "$(verdict "$out")"
check_match "(a) allowed: 502 or 504" '^true 50[24]$' \
    "$(check_of "$out" allowed vendor.test:443)"
check_eq "(a) exit 0" exit=0 "$(exit_of "$out")"
docker start "vendor-$id" >/dev/null

# (b) a proxy whose allowlist holds the "denied" host, which answers.
httpd denied denied.test
proxy proxyb "$INT" "$S.5" vendor.test:443,denied.test:443
out=$(probe pb "$INT" "$S.4" - --proxy "$S.5:3128" --allowed vendor.test:443 \
    --denied denied.test:443 --timeout-ms "$TIMEOUT_MS")
echo "# (b) $(head -n 1 <<<"$out")"
check_eq "(b) denied host admitted: breach" breach "$(verdict "$out" | cut -d' ' -f1)"
check_eq "(b) denied: 200" "false 200" "$(check_of "$out" denied denied.test:443)"
check_eq "(b) exit 2" exit=2 "$(exit_of "$out")"
docker rm -f "proxyb-$id" "denied-$id" >/dev/null

# (c) the probe also on the egress network: the vendor is reachable directly.
out=$(probe pc "$INT" "$S.4" --connect-egress "${BASE[@]}" \
    --direct "$VENDOR_IP:443")
echo "# (c) $(head -n 1 <<<"$out")"
check_eq "(c) direct path: breach" breach "$(verdict "$out" | cut -d' ' -f1)"
check_eq "(c) direct to the vendor connected" "false connected" \
    "$(check_of "$out" direct "$VENDOR_IP:443")"
check_match "(c) and the resolver now answers the vendor's name" '^false ' \
    "$(check_of "$out" dns vendor.test:443)"
check_eq "(c) exit 2" exit=2 "$(exit_of "$out")"

# (d) an internal network WITHOUT inhibit_ipv4: the host holds its gateway
# address, and a host listener there is reachable from the box.
INT2=probe-int2-$id
T=$(make_net "$INT2" --internal)
proxy proxyd "$INT2" "$T.2" vendor.test:443
mkdir -p "$TEST_TMP/www"
/bin/busybox httpd -f -p "$T.1:18443" -h "$TEST_TMP/www" &
LISTENER=$!
on_cleanup "kill $LISTENER 2>/dev/null"
for i in $(seq 50); do
    ss -ltn | grep -q "$T.1:18443" && break
    sleep 0.1
done
out=$(probe pd "$INT2" "$T.4" - --proxy "$T.2:3128" --allowed vendor.test:443 \
    --denied "$DENIED" --timeout-ms "$TIMEOUT_MS" --direct "$T.1:18443")
echo "# (d) $(head -n 1 <<<"$out")"
check_eq "(d) host gateway reachable: breach" breach \
    "$(verdict "$out" | cut -d' ' -f1)"
check_eq "(d) direct to the gateway connected" "false connected" \
    "$(check_of "$out" direct "$T.1:18443")"
# positive control for (d): the same listener port on the inhibited
# network's gateway address is no route at all
out=$(probe pd2 "$INT" "$S.4" - "${BASE[@]}" --direct "$S.1:18443")
check_eq "(d) same port on the inhibit_ipv4 network: ok" ok \
    "$(verdict "$out" | cut -d' ' -f1)"
kill "$LISTENER" 2>/dev/null || true

# (e) IPv6 on inside the box: lo gets ::1, and the probe says breach.
SYSCTLS=(--sysctl net.ipv6.conf.all.disable_ipv6=0
    --sysctl net.ipv6.conf.lo.disable_ipv6=0)
out=$(probe pe "$INT" "$S.4" - "${BASE[@]}")
echo "# (e) $(head -n 1 <<<"$out")"
check_eq "(e) an inet6 address up: breach" breach \
    "$(verdict "$out" | cut -d' ' -f1)"
check_match "(e) the ipv6 check names it" '^false [1-9][0-9]* addresses, first on [a-z0-9]+$' \
    "$(check_of "$out" ipv6 inet6)"
check_eq "(e) exit 2" exit=2 "$(exit_of "$out")"
