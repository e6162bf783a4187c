#!/usr/bin/env bash
# test_demo_agent.sh - agentctl/demo-agent:VERSION reports the box it runs
# in truthfully and follows its exit-code contract towards the proxy: 0 when
# the tunnel and the vendor answered, 3 when the CONNECT was refused, 4 when
# the proxy is unreachable. The proxy here is a busybox nc responder on a
# network of the test's own; the real egress-proxy is the controller's test.
source "$(dirname "$0")/../lib.sh"
need_docker

for s in demo-agent testbox; do
    bash "$ROOT/hack/images/build-$s.sh" >/dev/null 2>&1 ||
        fail "hack/images/build-$s.sh failed"
done
VERSION=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' \
    "$ROOT/CMakeLists.txt")
IMG=agentctl/demo-agent:$VERSION
BOX=agentctl/testbox:$VERSION
HARDEN=(--label "$TEST_LABEL" --user 1000:1000 --read-only --cap-drop ALL
    --security-opt no-new-privileges --init)
ZERO_CAPS=0000000000000000

size=$(docker image inspect -f '{{.Size}}' "$IMG")
echo "# $IMG: $size bytes"
check "demo-agent is under 2 MB" test "$size" -lt $((2 * 1024 * 1024))

# agent ARGS...: docker run, stdout in OUT, exit code in RC (stderr, the
# usage text, goes to $TEST_TMP/stderr).
agent() {
    RC=0
    OUT=$(docker run "$@" 2>"$TEST_TMP/stderr") || RC=$?
}

# --- what it reports, hardened and (negative control) not ----------------
agent "${HARDEN[@]}" --network none -e AGENT_PHASE=review \
    -e DEMO_CREDENTIAL_ENV=DEMO_TOKEN -e DEMO_TOKEN=s3cret-t0ken "$IMG"
check_eq "no proxy, no failure: exit 0" 0 "$RC"
check_match "uid/gid 1000" $'uid: 1000\ngid: 1000' "$OUT"
check_match "no effective capabilities" "cap_eff: $ZERO_CAPS" "$OUT"
check_match "empty bounding set" "cap_bnd: $ZERO_CAPS" "$OUT"
check_match "no_new_privs set" "no_new_privs: 1" "$OUT"
check_match "root not writable" "root_writable: no \(Read-only" "$OUT"
check_match "phase reported" "agent_phase: review" "$OUT"
check_match "credential reported as set" "credential DEMO_TOKEN: set" "$OUT"
check "credential value never printed" \
    bash -c '! grep -q s3cret-t0ken <<<"$1"' _ "$OUT"
check_match "no proxy, no vendor call" "proxy: unset" "$OUT"

agent --label "$TEST_LABEL" --network none "$IMG"
check_match "as root: uid 0" "uid: 0" "$OUT"
check "as root: some effective capability" \
    bash -c '! grep -q "cap_eff: $2" <<<"$1"' _ "$OUT" "$ZERO_CAPS"
check_match "writable root is reported" "root_writable: yes" "$OUT"
check_match "unset credential reported as unset" \
    "credential ANTHROPIC_API_KEY: unset" "$OUT"

# --- /work read-write and read-only (a tmpfs volume as the controller's) --
vol=$(docker volume create --label "$TEST_LABEL" --driver local \
    --opt type=tmpfs --opt device=tmpfs \
    --opt o=size=1m,uid=1000,gid=1000,mode=0755)
agent "${HARDEN[@]}" --network none \
    --mount "type=volume,source=$vol,target=/work" "$IMG" --write-work
check_match "rw /work is writable" "work_writable: yes" "$OUT"
check_match "--write-work succeeds on rw /work" "write_work: ok" "$OUT"
agent "${HARDEN[@]}" --network none \
    --mount "type=volume,source=$vol,target=/work,readonly" "$IMG" \
    --write-work
check_match "ro /work is not writable" "work_writable: no" "$OUT"
check_match "--write-work fails on ro /work" "write_work: failed" "$OUT"

# --- test flags -----------------------------------------------------------
agent "${HARDEN[@]}" --network none "$IMG" --exit 7 --print 100 --bad-utf8
check_eq "--exit 7" 7 "$RC"
check "--print 100 prints exactly 100 x" \
    bash -c 'grep -qx "x\{100\}" <<<"$1"' _ "$OUT"
check "--bad-utf8 prints invalid UTF-8" \
    bash -c 'grep -q "bad_utf8: " <<<"$1" && ! iconv -f UTF-8 -t UTF-8 \
        <<<"$1" >/dev/null 2>&1' _ "$OUT"
agent "${HARDEN[@]}" --network none "$IMG" --nonsense
check_eq "unknown flag: exit 2" 2 "$RC"

# --sleep keeps it running until stopped; under docker-init SIGTERM ends
# it (143), it is not killed after the stop timeout (137).
id=$(docker run -d "${HARDEN[@]}" --network none "$IMG" --sleep 600)
docker stop -t 10 "$id" >/dev/null
check_eq "--sleep ends on docker stop with 143" 143 \
    "$(docker inspect -f '{{.State.ExitCode}}' "$id")"

# --- the proxy path on a network of our own (internal: no way out) --------
net=$(docker network create --internal --label "$TEST_LABEL" \
    "agentctl-test-demo-$$")
box() {
    docker run -d --label "$TEST_LABEL" --user 1000:1000 --read-only \
        --cap-drop ALL --network "$net" "$@"
}
ip_of() {
    docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$1"
}
# wait_listen ID PORT: readiness (not a timed assertion): nc forks late.
wait_listen() {
    local i
    for i in $(seq 1 100); do
        docker exec "$1" busybox netstat -ltn 2>/dev/null |
            grep -q ":$2 " && return 0
        sleep 0.1
    done
    fail "container $1 never listened on port $2"
}

vendor=$(box --tmpfs /www:uid=1000 "$BOX" sh -c \
    'echo vendor-ok >/www/index.html && exec httpd -f -p 8443 -h /www')
wait_listen "$vendor" 8443
VENDOR_IP=$(ip_of "$vendor")
# A CONNECT "proxy" that refuses, and one that says 200 and relays to the
# vendor (reads the 3 request lines first, then hands the socket to nc).
deny=$(box "$BOX" nc -ll -p 3128 -e sh -c \
    'printf "HTTP/1.1 403 Forbidden\r\n\r\n"')
allow=$(box "$BOX" nc -ll -p 3128 -e sh -c \
    "read l; read h; read e; printf 'HTTP/1.1 200 Connection established\r\n\r\n'; exec nc $VENDOR_IP 8443")
wait_listen "$deny" 3128
wait_listen "$allow" 3128
DENY_IP=$(ip_of "$deny")
ALLOW_IP=$(ip_of "$allow")

agent "${HARDEN[@]}" --network "$net" -e HTTPS_PROXY="http://$DENY_IP:3999" \
    "$IMG"
check_eq "closed proxy port: exit 4" 4 "$RC"
check_match "closed proxy port reported" "proxy: cannot connect" "$OUT"

agent "${HARDEN[@]}" --network "$net" -e HTTPS_PROXY="http://$DENY_IP:3128" \
    "$IMG"
check_eq "CONNECT refused: exit 3" 3 "$RC"
check_match "refusal status printed" "connect: HTTP/1.1 403 Forbidden" "$OUT"

agent "${HARDEN[@]}" --network "$net" -e https_proxy="http://$ALLOW_IP:3128" \
    "$IMG" vendor.test:443
check_eq "tunnel and vendor answered: exit 0" 0 "$RC"
check_match "tunnel established" "connect: HTTP/1.1 200" "$OUT"
check_match "vendor body printed" "vendor_body: vendor-ok" "$OUT"

agent "${HARDEN[@]}" --network "$net" -e HTTPS_PROXY="http://vendor:3128" \
    "$IMG"
check_eq "proxy given by name (no DNS in the demo): exit 2" 2 "$RC"
