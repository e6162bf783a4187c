#!/usr/bin/env bash
# test_probe.sh - the boundary probe (agentctl/probe) against the real
# topology: an Internal network with inhibit_ipv4, the egress-proxy on it
# and on an egress network with a vendor. The probe, hardened as the agent
# is (and with the controller's one sysctl), says ok with the vendor
# reachable, every direct connect answered "unreachable" (no one holds the
# gateway) and the resolver's silence explained; then each negative
# control flips the verdict: (a) vendor stopped -> ok, vendor unreachable;
# (b) a proxy that admits the denied host -> breach; (c) the probe also on
# the egress network -> direct connection breach; (d) an internal network
# without inhibit_ipv4 and a host listener on its gateway -> direct breach;
# (e) the same network with nothing listening: the gateway is held, so the
# resolver's silence is not explained -> inconclusive, never ok; (f) a
# listener that drops SYNs (full backlog) -> no answer -> inconclusive;
# (g) without the sysctl a no-holder answer takes the kernel's 3 s ARP
# give-up and the probe waits for it rather than cutting it into "no
# answer"; (h) IPv6 switched on inside the box (lo gets ::1) -> ipv6
# breach, where the agent's sysctls (net.ipv6.conf.{all,default}.
# disable_ipv6=1, which every other run here has, as the controller's probe
# does) leave no address; (i) --landlock required where the box's seccomp
# profile refuses the Landlock calls (as on a kernel without Landlock) ->
# the landlock check fails (broken, exit 3) naming it, where the first run
# reported the kernel's ABI.
# Traffic goes only to the networks and containers made here and to
# listeners bound to the gateway address of a network made here.
#
# AGENTCTL_PROBE_IMAGE=agentctl/probe:dev tries a probe under a dev tag
# (built here from images/probe*.c) without touching the shared tag.
source "$(dirname "$0")/../lib.sh"
need_docker
command -v jq >/dev/null || skip "no jq"
[ -x /bin/busybox ] || skip "no /bin/busybox (package busybox-static)"
VERSION=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' \
    "$ROOT/CMakeLists.txt")
PROBE=${AGENTCTL_PROBE_IMAGE:-agentctl/probe:$VERSION}
PROXY=agentctl/egress-proxy:$VERSION
BOX=agentctl/testbox:$VERSION
PROBE_TAG=$PROBE bash "$ROOT/hack/images/build-probe.sh" >/dev/null ||
    fail "cannot build $PROBE"
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
# free_port [NOT...]: a TCP port in 18440-18499 nothing on the host listens
# on (other runs share the host: a listener on 0.0.0.0 there would answer
# on our gateway addresses too), and not one of NOT.
free_port() {
    local p used
    used=$(ss -Hltn | awk '{print $4}' | sed 's/.*://')
    for p in $(seq 18440 18499); do
        grep -qx "$p" <<<"$used" || [[ " $* " == *" $p "* ]] || {
            echo "$p"
            return 0
        }
    done
    fail "no free port in 18440-18499"
}
ip_on() { # CONTAINER NETWORK
    docker inspect -f "{{(index .NetworkSettings.Networks \"$2\").IPAddress}}" "$1"
}

httpd vendor vendor.test
proxy proxy "$INT" "$S.2" vendor.test:443
VENDOR_IP=$(ip_on "vendor-$id" "$EGR")
PROXY_EGR_IP=$(ip_on "proxy-$id" "$EGR")

# probe NAME NET IP [--connect-egress|--no-sysctl|-] PROBE-ARGS...: run the
# probe hardened as the agent is, with the sysctls the controller sets
# (rc_probe_body: the ARP give-up and IPv6 off), print its stdout, then
# "exit=N". SYSCTLS: the IPv6 sysctls of the agent's body (case (h) turns
# them on).
ARP_SYSCTL=(--sysctl net.ipv4.neigh.eth0.retrans_time_ms=50)
SYSCTLS=(--sysctl net.ipv6.conf.all.disable_ipv6=1
    --sysctl net.ipv6.conf.default.disable_ipv6=1)
SECOPT=()
probe() {
    local name=$1-$id net=$2 ip=$3 out rc sysctl=("${ARP_SYSCTL[@]}")
    shift 3
    [ "$1" != --no-sysctl ] || sysctl=()
    docker create "${L[@]}" --name "$name" --network "$net" --ip "$ip" \
        --user 65534:65534 --cap-drop ALL --read-only --init \
        --security-opt no-new-privileges --restart no --pids-limit 16 \
        --memory 16m --dns 0.0.0.0 --dns-option timeout:1 \
        --dns-option attempts:1 "${sysctl[@]}" "${SYSCTLS[@]}" \
        ${SECOPT[@]+"${SECOPT[@]}"} "$PROBE" \
        "${@:2}" >/dev/null
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
fail_of() { # OUTPUT NAME TARGET -> the failed check's "fail"
    head -n 1 <<<"$1" | jq -r --arg n "$2" --arg t "$3" \
        '.checks[] | select(.name == $n and .target == $t) | .fail'
}
route_of() { head -n 1 <<<"$1" | jq -r .route; }

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
# Every direct connect ends on an answer (no one holds the gateway, which
# is also the next hop to anything off the link), never on a timeout.
for d in "$S.1:80" "$S.1:443" "$S.1:3128" "$PROXY_EGR_IP:3128" \
    "$VENDOR_IP:443"; do
    check_eq "direct $d: unreachable (an answer, not a timeout)" \
        "true unreachable" "$(check_of "$out" direct "$d")"
done
check_match "the route fact: the gateway is unheld, ARP gives up fast" \
    "^gateway $S.1 unheld \(arp gives up in [0-9]{2,3} ms\)$" \
    "$(route_of "$out")"
check_eq "resolver silent on the vendor's name, explained by the facts" \
    "true silent: resolver up, nothing leaves the link" \
    "$(check_of "$out" dns vendor.test:443)"
check_eq "no inet6 address in the box" "true no address" \
    "$(check_of "$out" ipv6 inet6)"
check_match "the kernel's Landlock ABI reported" '^true ABI [1-9][0-9]*$' \
    "$(check_of "$out" landlock kernel)"
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
LPORT=$(free_port)
EPORT=$(free_port "$LPORT")
HPORT=$(free_port "$LPORT" "$EPORT")
mkdir -p "$TEST_TMP/www"
/bin/busybox httpd -f -p "$T.1:$LPORT" -h "$TEST_TMP/www" &
LISTENER=$!
on_cleanup "kill $LISTENER 2>/dev/null"
for i in $(seq 50); do
    ss -ltn | grep -q "$T.1:$LPORT" && break
    sleep 0.1
done
out=$(probe pd "$INT2" "$T.4" - --proxy "$T.2:3128" --allowed vendor.test:443 \
    --denied "$DENIED" --timeout-ms "$TIMEOUT_MS" --direct "$T.1:$LPORT")
echo "# (d) $(head -n 1 <<<"$out")"
check_eq "(d) host gateway reachable: breach" breach \
    "$(verdict "$out" | cut -d' ' -f1)"
check_eq "(d) direct to the gateway connected" "false connected" \
    "$(check_of "$out" direct "$T.1:$LPORT")"
# positive control for (d): the same listener port on the inhibited
# network's gateway address is no route at all
out=$(probe pd2 "$INT" "$S.4" - "${BASE[@]}" --direct "$S.1:$LPORT")
check_eq "(d) same port on the inhibit_ipv4 network: ok" ok \
    "$(verdict "$out" | cut -d' ' -f1)"
kill "$LISTENER" 2>/dev/null || true

# (e) the same network, nothing listening: every direct connect is refused
# (the host holds the gateway), which is an answer; but the resolver's
# silence is no longer explained, since a packet may leave the link.
out=$(probe pe "$INT2" "$T.4" - --proxy "$T.2:3128" --allowed vendor.test:443 \
    --denied "$DENIED" --timeout-ms 800 --direct "$T.1:$EPORT")
echo "# (e) $(head -n 1 <<<"$out")"
check_eq "(e) gateway held: the silence is inconclusive, not ok" inconclusive \
    "$(verdict "$out" | cut -d' ' -f1)"
check_eq "(e) exit 5" exit=5 "$(exit_of "$out")"
check_eq "(e) direct to the held gateway: refused (an answer)" "true refused" \
    "$(check_of "$out" direct "$T.1:$EPORT")"
check_eq "(e) the dns check is the undecided one" undecided \
    "$(fail_of "$out" dns vendor.test:443)"
check_match "(e) route: gateway held" "^gateway $T.1 held" "$(route_of "$out")"

# (f) a silent drop: a host listener on the held gateway whose accept queue
# is full drops every further SYN. No answer must never read as blocked.
if command -v python3 >/dev/null; then
    python3 - "$T.1" $HPORT "$TEST_TMP/blackhole.ready" <<'PY' &
import socket, sys, time
ip, port, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.socket(); s.bind((ip, port)); s.listen(0)
fill = []
for _ in range(3):  # fill the accept queue; never accept
    c = socket.socket(); c.setblocking(False)
    try: c.connect((ip, port))
    except BlockingIOError: pass
    fill.append(c)
time.sleep(0.5); open(ready, "w").close(); time.sleep(120)
PY
    HOLE=$!
    on_cleanup "kill $HOLE 2>/dev/null"
    for i in $(seq 50); do [ -e "$TEST_TMP/blackhole.ready" ] && break; sleep 0.1; done
    out=$(probe pf2 "$INT2" "$T.4" - --proxy "$T.2:3128" \
        --allowed vendor.test:443 --denied "$DENIED" --timeout-ms 800 \
        --direct "$T.1:$HPORT")
    echo "# (f) $(head -n 1 <<<"$out")"
    check_eq "(f) a dropped SYN: inconclusive, not ok" inconclusive \
        "$(verdict "$out" | cut -d' ' -f1)"
    check_eq "(f) the direct check says no answer" \
        "false no answer in 800 ms (a silent drop)" \
        "$(check_of "$out" direct "$T.1:$HPORT")"
    check_eq "(f) and it is undecided, not a breach" undecided \
        "$(fail_of "$out" direct "$T.1:$HPORT")"
    kill "$HOLE" 2>/dev/null || true
else
    echo "# (f) skipped: no python3 for the SYN-dropping listener"
fi

# (g) without the sysctl: the kernel's own ARP give-up (3 x 1 s) is longer
# than --timeout-ms, and the probe still waits for it: "unreachable", ok.
out=$(probe pg "$INT" "$S.4" --no-sysctl "${BASE[@]}" --timeout-ms 500 \
    --direct "$S.1:443")
echo "# (g) $(head -n 1 <<<"$out")"
check_eq "(g) no sysctl, short timeout: still an answer" "true unreachable" \
    "$(check_of "$out" direct "$S.1:443")"
check_eq "(g) and ok" ok "$(verdict "$out" | cut -d' ' -f1)"
check_match "(g) route: the default 3000 ms give-up was read" \
    "arp gives up in 3000 ms" "$(route_of "$out")"

# (h) IPv6 on inside the box: lo gets ::1, and the probe says breach.
SYSCTLS=(--sysctl net.ipv6.conf.all.disable_ipv6=0
    --sysctl net.ipv6.conf.lo.disable_ipv6=0)
out=$(probe ph "$INT" "$S.4" - "${BASE[@]}")
echo "# (h) $(head -n 1 <<<"$out")"
check_eq "(h) an inet6 address up: breach" breach \
    "$(verdict "$out" | cut -d' ' -f1)"
check_match "(h) the ipv6 check names it" '^false [1-9][0-9]* addresses, first on [a-z0-9]+$' \
    "$(check_of "$out" ipv6 inet6)"
check_eq "(h) exit 2" exit=2 "$(exit_of "$out")"

# (i) no Landlock for the box (its seccomp profile answers ENOSYS, as a
# kernel without Landlock does) while the agent's launcher needs it: the
# probe fails the attempt before anything runs. Without --landlock
# required the same box is ok (the control).
NOLL=$TEST_TMP/no-landlock.json
printf '%s' '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":
    ["landlock_create_ruleset"],"action":"SCMP_ACT_ERRNO","errnoRet":38}]}' \
    >"$NOLL"
SYSCTLS=(--sysctl net.ipv6.conf.all.disable_ipv6=1
    --sysctl net.ipv6.conf.default.disable_ipv6=1)
SECOPT=(--security-opt "seccomp=$NOLL")
out=$(probe pi "$INT" "$S.4" - "${BASE[@]}" --landlock required)
echo "# (i) $(head -n 1 <<<"$out")"
check_eq "(i) no Landlock where required: the landlock check fails" \
    "false none (not in this kernel)" "$(check_of "$out" landlock kernel)"
check_eq "(i) as broken" broken "$(fail_of "$out" landlock kernel)"
check_eq "(i) exit 3" exit=3 "$(exit_of "$out")"
out=$(probe pj "$INT" "$S.4" - "${BASE[@]}" --landlock optional)
check_eq "(i) control: optional, the same box is ok" "ok reachable" \
    "$(verdict "$out")"
check_eq "(i) control: and says there is none" \
    "true none (not in this kernel)" "$(check_of "$out" landlock kernel)"
