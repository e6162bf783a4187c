#!/usr/bin/env bash
# test_launch_wait.sh - agent-launch's wait mode (images/launch_order.h,
# docs/warm-pool.md "The waiting agent") in real containers, shaped as a
# warm box will be: a keeper holds the config volume (a tmpfs) and the
# launcher is uploaded into it through the keeper; the
# agent container mounts that volume read-only, starts in the launcher
# with a nonce on its command line, and waits. An order written through
# the keeper (an archive upload as the controller writes it: 0400, the
# agent's uid, chowned by dockerd after the close) is read, the
# CLI runs with its argv, env, workdir and policy, and the launcher's line says
# so; an order with another nonce is refused (exit 123) and the CLI never
# runs; the same forged order given to agent-launch-testhook with its hook
# on is obeyed (the negative control: the refusal is the nonce check's);
# no order within --wait-seconds ends the wait (exit 122); an order whose
# policy is not one the launcher reads is refused (123).
source "$(dirname "$0")/../lib.sh"
need_docker

LAUNCH=$BUILD/images/agent-launch
HOOKED=$BUILD/images/agent-launch-testhook
[ -x "$LAUNCH" ] && [ -x "$HOOKED" ] || fail "build agent-launch and agent-launch-testhook first"
VERSION=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' \
    "$ROOT/CMakeLists.txt")
for s in keeper testbox; do
    docker image inspect "agentctl/$s:$VERSION" >/dev/null 2>&1 ||
        bash "$ROOT/hack/images/build-$s.sh" >/dev/null 2>&1 ||
        fail "hack/images/build-$s.sh failed"
done
KEEPER=agentctl/keeper:$VERSION
BOX=agentctl/testbox:$VERSION
CFG=/etc/agentctl/agent
NONCE=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
HARDEN=(--label "$TEST_LABEL" --user 1000:1000 --read-only --cap-drop ALL
    --security-opt no-new-privileges --network none)

# box NAME LAUNCHER [ENV...]: a keeper holding a fresh config volume with
# LAUNCHER in it, and an agent container waiting in it;
# prints "KEEPER AGENT".
box() {
    local launcher=$2 vol keeper agent
    shift 2
    vol=$(docker volume create --label "$TEST_LABEL" --driver local \
        --opt type=tmpfs --opt device=tmpfs \
        --opt o=size=4m,uid=1000,gid=1000,mode=0755)
    keeper=$(docker run -d "${HARDEN[@]}" --init \
        --mount "type=volume,source=$vol,target=/work" "$KEEPER")
    mkdir -p "$TEST_TMP/up/bin"
    cp "$launcher" "$TEST_TMP/up/bin/agent-launch"
    tar -C "$TEST_TMP/up" -cf - bin |
        docker cp - "$keeper:/work" || fail "upload to the keeper failed"
    agent=$(docker create "${HARDEN[@]}" --init "$@" \
        --label "agentctl.dev/order-nonce=$NONCE" \
        --tmpfs /tmp:size=1m,uid=1000,gid=1000 \
        --mount "type=volume,source=$vol,target=$CFG,readonly" \
        --entrypoint "$CFG/bin/agent-launch" "$BOX" \
        --wait "$CFG/order.json" --order-nonce "$NONCE" --wait-seconds 30)
    docker start "$agent" >/dev/null
    echo "$keeper $agent"
}

# order NONCE: an order file's text.
order() {
    printf '{"version": 1, "nonce": "%s", "argv": ["sh", "-c", %s], ' "$1" \
        '"echo cli-ran in $(pwd) as $(id -u) WHO=$WHO"'
    printf '"env": ["WHO=order", "PATH=/bin:/usr/bin"], "workdir": "/tmp", '
    printf '"policy": "landlock optional\\nwrite /tmp\\n"}\n'
}

# deliver KEEPER TEXT: the order uploaded through the keeper as the
# controller makes it (plan/rc_gateway_key.c): mode 0400, owned by the
# agent's uid. dockerd extracts it as root and chowns it after the close,
# so the launcher (uid 1000) must wait through that window.
deliver() {
    rm -rf "$TEST_TMP/o" && mkdir -p "$TEST_TMP/o"
    printf '%s' "$2" >"$TEST_TMP/o/order.json"
    tar -C "$TEST_TMP/o" --owner=1000 --group=1000 --numeric-owner \
        --mode=0400 -cf - order.json | docker cp - "$1:/work"
}

# finish AGENT: its exit code once it ended (at most 20 s).
finish() {
    timeout 20 docker wait "$1" || echo timeout
}

# 1. The genuine order: the CLI runs, as the order says.
read -r k1 a1 < <(box one "$LAUNCH")
check_eq "the agent waits in the launcher" true \
    "$(docker inspect -f '{{.State.Running}}' "$a1")"
deliver "$k1" "$(order "$NONCE")"
check_eq "genuine order: the CLI's exit code" 0 "$(finish "$a1")"
check_match "the order arrived as the controller's: 0400, the agent's uid" \
    '^-r-------- 1000/1000 ' \
    "$(docker cp "$k1:/work/order.json" - | tar --numeric-owner -tvf -)"
logs=$(docker logs "$a1" 2>&1)
check_match "the CLI ran with the order's argv, env and workdir" \
    'cli-ran in /tmp as 1000 WHO=order' "$logs"
check_match "the launcher says what it did" \
    'agent-launch: order accepted: sh, 3 words, 2 variables, in /tmp' "$logs"

# 2. A forged order (another nonce) is refused; the CLI never runs.
FORGED=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
read -r k2 a2 < <(box two "$LAUNCH")
deliver "$k2" "$(order "$FORGED")"
check_eq "forged order: the launcher's refusal code" 123 "$(finish "$a2")"
logs=$(docker logs "$a2" 2>&1)
check_match "the refusal names the nonce" \
    'order refused: nonce: not the one this container was created with' "$logs"
check "the CLI did not run on the forged order" \
    bash -c '! grep -q cli-ran <<<"$1"' _ "$logs"

# 3. Negative control: the hooked build with its hook on obeys it.
read -r k3 a3 < <(box three "$HOOKED" -e AGENT_LAUNCH_TESTHOOK_ANY_ORDER=1)
deliver "$k3" "$(order "$FORGED")"
check_eq "forged order, nonce check off: the CLI's exit code" 0 \
    "$(finish "$a3")"
check_match "forged order, nonce check off: the CLI ran" 'cli-ran' \
    "$(docker logs "$a3" 2>&1)"

# 4. No order: the wait ends by itself with its own code.
vol=$(docker volume create --label "$TEST_LABEL")
a4=$(docker run -d "${HARDEN[@]}" \
    --mount "type=volume,source=$vol,target=$CFG" \
    -v "$LAUNCH:/agent-launch:ro" --entrypoint /agent-launch "$BOX" \
    --wait "$CFG/order.json" --order-nonce "$NONCE" --wait-seconds 1)
check_eq "no order within the wait: exit code" 122 "$(finish "$a4")"
check_match "no order: the launcher says so" \
    "no order at $CFG/order.json within 1 s" "$(docker logs "$a4" 2>&1)"
# 5. An order whose policy the launcher does not read is refused whole
#    (here on the host: the policy is parsed before anything runs).
mkdir -p "$TEST_TMP/h"
printf '{"version": 1, "nonce": "%s", "argv": ["/bin/echo", "cli-ran"], "env": [], "workdir": "/", "policy": "bogus /x\\n"}' \
    "$NONCE" >"$TEST_TMP/h/order.json"
rc=0
out=$("$LAUNCH" --wait "$TEST_TMP/h/order.json" --order-nonce "$NONCE" \
    --wait-seconds 1 2>&1) || rc=$?
check_eq "an order with a bad policy: the refusal code" 123 "$rc"
check_match "the refusal names the policy's line" \
    'order policy:1: unknown directive: bogus.*order refused: policy' "$(tr '\n' ' ' <<<"$out")"
echo "PASS: $CHECKS checks"
