#!/usr/bin/env bash
# test_docker_egress.sh - the real topology: an agent-side client on an
# internal network whose only way out is the egress-proxy container,
# which is also on an egress network with two "vendors". Through the
# proxy the allowlisted vendor answers; the other one gets 403; direct
# connections from the client to either vendor fail.
source "$(dirname "$0")/../lib.sh"
need_docker
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
VERSION=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' \
    "$ROOT/CMakeLists.txt")
PROXY_IMAGE=agentctl/egress-proxy:$VERSION
if ! docker image inspect "$PROXY_IMAGE" >/dev/null 2>&1; then
    bash "$ROOT/hack/images/build-egress-proxy.sh" >/dev/null ||
        fail "cannot build $PROXY_IMAGE"
fi

# Test boxes: the shared testbox image if present, else a throwaway
# FROM scratch image with Debian's static busybox, removed at the end.
BOX=agentctl/testbox:$VERSION
if ! docker image inspect "$BOX" >/dev/null 2>&1; then
    [ -x /bin/busybox ] || skip "no /bin/busybox (package busybox-static)"
    BOX=agentctl-pxtest:${TEST_RUN_ID,,}
    mkdir -p "$TEST_TMP/box/bin"
    cp /bin/busybox "$TEST_TMP/box/bin/busybox"
    printf 'FROM scratch\nCOPY bin/ /bin/\n' >"$TEST_TMP/box/Dockerfile"
    docker build -q --label "$TEST_LABEL" -t "$BOX" "$TEST_TMP/box" >/dev/null
    on_cleanup "docker rmi -f $BOX >/dev/null 2>&1"
fi
BB=/bin/busybox
id=$$
INT=pxint-$id
EGR=pxegr-$id
L=(--label "$TEST_LABEL")

docker network create "${L[@]}" --internal --subnet 10.213.250.0/24 \
    -o com.docker.network.bridge.inhibit_ipv4=true "$INT" >/dev/null
docker network create "${L[@]}" --subnet 10.213.251.0/24 "$EGR" >/dev/null
check_eq "internal network is Internal" true \
    "$(docker network inspect -f '{{.Internal}}' "$INT")"

httpd() { # NAME ALIAS TEXT
    docker run -d "${L[@]}" --name "$1-$id" --network "$EGR" \
        --network-alias "$2" "$BOX" $BB sh -c \
        "$BB mkdir -p /www && $BB echo $3 >/www/index.html && exec $BB httpd -f -p 443 -h /www" \
        >/dev/null
}
httpd vendor vendor.test vendor-ok
httpd other other.test other-ok

docker create "${L[@]}" --name "proxy-$id" --network "$INT" \
    --ip 10.213.250.10 "$PROXY_IMAGE" --listen 0.0.0.0:3128 \
    --allow vendor.test:443 --allow-private >/dev/null
docker network connect "$EGR" "proxy-$id"
docker start "proxy-$id" >/dev/null
docker run -d "${L[@]}" --name "client-$id" --network "$INT" "$BOX" \
    $BB sleep 300 >/dev/null
check_eq "proxy runs as 65534" "65534:65534" \
    "$(docker inspect -f '{{.Config.User}}' "proxy-$id")"

VENDOR_IP=$(docker inspect -f "{{(index .NetworkSettings.Networks \"$EGR\").IPAddress}}" "vendor-$id")
OTHER_IP=$(docker inspect -f "{{(index .NetworkSettings.Networks \"$EGR\").IPAddress}}" "other-$id")

# in_client CMD: run a busybox shell command in the client container
in_client() {
    docker exec "client-$id" $BB sh -c "$1" 2>&1 || true
}
through_proxy() { # TARGET: CONNECT, then a GET pipelined behind it
    in_client "printf 'CONNECT $1 HTTP/1.1\r\nHost: $1\r\n\r\nGET / HTTP/1.0\r\n\r\n' | $BB timeout 10 $BB nc 10.213.250.10 3128"
}

for i in $(seq 50); do # the vendor's httpd may need a moment
    out=$(through_proxy vendor.test:443)
    [[ $out == *vendor-ok* ]] && break
    sleep 0.2
done
check_match "allowlisted vendor through the proxy: 200" \
    '^HTTP/1.1 200 Connection established' "$out"
check_match "and the vendor's page" 'vendor-ok' "$out"
check_match "other vendor through the proxy: 403" '^HTTP/1.1 403 ' \
    "$(through_proxy other.test:443)"
check_match "vendor by IP through the proxy: 403 (literal not listed)" \
    '^HTTP/1.1 403 ' "$(through_proxy "$VENDOR_IP:443")"

lacks() { [[ $1 != *"$2"* ]]; }
direct=$(in_client "$BB timeout 5 $BB wget -q -O - http://$VENDOR_IP:443/; echo rc=\$?")
echo "# direct: $direct"
check_match "direct to the vendor's IP fails" 'rc=[1-9]' "$direct"
check "and shows no page" lacks "$direct" vendor-ok
direct=$(in_client "$BB timeout 5 $BB wget -q -O - http://$OTHER_IP:443/; echo rc=\$?")
check_match "direct to the other's IP fails" 'rc=[1-9]' "$direct"
check "and shows no page" lacks "$direct" other-ok
direct=$(in_client "$BB timeout 5 $BB wget -q -O - http://vendor.test:443/; echo rc=\$?")
check_match "direct to vendor.test by name fails" 'rc=[1-9]' "$direct"
# positive control: the same wget from the egress side works
check_match "the vendor does answer on its own network" 'vendor-ok' \
    "$(docker exec "other-$id" $BB wget -q -O - "http://$VENDOR_IP:443/" 2>&1)"

docker stop -t 10 "proxy-$id" >/dev/null
check_eq "proxy exits 0 on docker stop (SIGTERM)" 0 \
    "$(docker inspect -f '{{.State.ExitCode}}' "proxy-$id")"
logs=$(docker logs "proxy-$id" 2>&1)
check_match "proxy logged the tunnel" '"target":"vendor.test:443","status":200,"bytes_up":[1-9]' "$logs"
check_match "and the refusal" '"target":"other.test:443","status":403' "$logs"
