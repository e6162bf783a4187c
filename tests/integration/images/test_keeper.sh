#!/usr/bin/env bash
# test_keeper.sh - agentctl/keeper:VERSION holds a tmpfs volume while it
# runs under the controller's hardening, and ends promptly and cleanly on
# `docker stop` (SIGTERM), with or without docker-init as PID 1.
source "$(dirname "$0")/../lib.sh"
need_docker

for s in keeper testbox; do
    bash "$ROOT/hack/images/build-$s.sh" >/dev/null 2>&1 ||
        fail "hack/images/build-$s.sh failed"
done
VERSION=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' \
    "$ROOT/CMakeLists.txt")
IMG=agentctl/keeper:$VERSION
BOX=agentctl/testbox:$VERSION
HARDEN=(--label "$TEST_LABEL" --user 1000:1000 --read-only --cap-drop ALL
    --security-opt no-new-privileges --network none)

size=$(docker image inspect -f '{{.Size}}' "$IMG")
echo "# $IMG: $size bytes"
check "keeper is under 2 MB" test "$size" -lt $((2 * 1024 * 1024))
check_eq "keeper entrypoint is /keeper" '["/keeper"]' \
    "$(docker image inspect -f '{{json .Config.Entrypoint}}' "$IMG")"

ctr=$(docker create --label "$TEST_LABEL" "$IMG")
check_eq "keeper image holds /keeper, /work, /tmp" "keeper tmp/ work/" \
    "$(docker export "$ctr" | tar tf - | grep -xE 'keeper|tmp/|work/' |
        sort | tr '\n' ' ' | sed 's/ $//')"

# stop_exit ID: docker stop (SIGTERM, SIGKILL after 10 s), then the code.
stop_exit() {
    docker stop -t 10 "$1" >/dev/null
    docker inspect -f '{{.State.ExitCode}}' "$1"
}

# The controller's shape: keeper with Init and a tmpfs volume at /work.
vol=$(docker volume create --label "$TEST_LABEL" --driver local \
    --opt type=tmpfs --opt device=tmpfs \
    --opt o=size=1m,uid=1000,gid=1000,mode=0755)
id=$(docker run -d "${HARDEN[@]}" --init \
    --mount "type=volume,source=$vol,target=/work" "$IMG")
check_eq "keeper runs" true "$(docker inspect -f '{{.State.Running}}' "$id")"
# A second container sees the tmpfs the keeper holds and can write it.
out=$(docker run --label "$TEST_LABEL" --user 1000:1000 --network none \
    --mount "type=volume,source=$vol,target=/work" "$BOX" \
    sh -c 'grep " /work tmpfs " /proc/mounts >/dev/null && echo x >/work/f &&
           cat /work/f')
check_eq "volume held by the keeper is a writable tmpfs" x "$out"
check_eq "one keeper process, uid 1000, under docker-init" 1000 \
    "$(docker top "$id" -o pid,uid,args | awk '$3 == "/keeper" { print $2 }')"
code=$(stop_exit "$id")
echo "# keeper under docker-init: exit code $code"
check_match "keeper stops on SIGTERM with 0/143, not 137" '^(0|143)$' "$code"
check_eq "keeper logged nothing" "" "$(docker logs "$id" 2>&1)"

# Without Init the keeper is PID 1, where unhandled signals are dropped;
# it must still stop on SIGTERM.
id=$(docker run -d "${HARDEN[@]}" "$IMG")
check_match "keeper as PID 1 stops on SIGTERM with 0/143" '^(0|143)$' \
    "$(stop_exit "$id")"

id=$(docker run -d "${HARDEN[@]}" --init "$IMG")
docker kill -s INT "$id" >/dev/null
check_eq "keeper exits 0 on SIGINT" 0 "$(docker wait "$id")"

# Negative control: a PID 1 that ignores SIGTERM is killed (137), so the
# checks above can tell the difference.
id=$(docker run -d "${HARDEN[@]}" --stop-timeout 1 "$BOX" sleep 600)
docker stop "$id" >/dev/null
check_eq "PID 1 ignoring SIGTERM ends with 137" 137 \
    "$(docker inspect -f '{{.State.ExitCode}}' "$id")"
