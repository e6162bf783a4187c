#!/usr/bin/env bash
# test_egress_refused.sh - the agent's only way out is its proxy, and the
# proxy admits only the vendor's hosts. A demo-agent asking for other.test
# (a live server on the same egress network) gets 403 and fails with its
# exit code 3; a box that tries the vendor directly, past the proxy, by IP
# or by name, gets nowhere. Controls: the very same direct commands work
# from the egress network, so "blocked" means the boundary. (busybox wget
# -T crashes in this build, hence timeout(1).)
source "$(dirname "$0")/lib_controller.sh"
ctl_init

# direct URL: the shell command the boxes run.
direct() {
    echo "timeout 5 wget -q -O - $1 && echo DIRECT-OK || echo DIRECT-BLOCKED"
}
BY_IP=$(direct "http://$VENDOR_IP:443/")
BY_NAME=$(direct "http://vendor.test:443/")

# Controls first: the same commands, run as the agent is (uid 1000, no
# capabilities, read-only root) but on the egress network, work.
AS_AGENT=(--label "$TEST_LABEL" --user 1000:1000 --cap-drop ALL --read-only)
for cmd in "$BY_IP" "$BY_NAME"; do
    out=$(docker run --rm "${AS_AGENT[@]}" --network "$EGRESS_NET" \
        "$BOX_IMAGE" sh -c "$cmd" 2>&1 || true)
    check_match "control: on the egress network: $cmd" \
        "$VENDOR_TOKEN"$'\n'DIRECT-OK "$out"
done
out=$(docker run --rm "${AS_AGENT[@]}" --network "$EGRESS_NET" \
    "$BOX_IMAGE" sh -c "$(direct http://other.test:443/)" 2>&1 || true)
check_match "control: other.test answers on the egress network" \
    "$OTHER_TOKEN" "$out"

ctl_start
apply_spec refused execute "command: [/demo-agent, other.test:443]"
apply_spec direct execute "image: $BOX_IMAGE" \
    "command: [sh, -c, \"$BY_IP\"]"
apply_spec direct-name execute "image: $BOX_IMAGE" \
    "command: [sh, -c, \"$BY_NAME\"]"

wait_phase refused Failed 240
out=$(agent_output refused)
echo "# refused output:"
sed 's/^/#   /' <<<"$out"
check_eq "refused: exit code 3 (CONNECT refused)" 3 \
    "$(status_field refused .exitCode)"
check_eq "refused: no stopReason (the agent exited on its own)" "" \
    "$(status_field refused .stopReason)"
check_match "refused: the proxy answered 403" "connect: HTTP/1.1 403" "$out"
check "refused: no page of other.test" lacks "$out" "$OTHER_TOKEN"

for n in direct direct-name; do
    phase=$(wait_terminal "$n" 240)
    out=$(agent_output "$n")
    echo "# $n ($phase) output:"
    sed 's/^/#   /' <<<"$out"
    check_match "$n: the direct connection failed" DIRECT-BLOCKED "$out"
    check "$n: and showed no page" lacks "$out" "$VENDOR_TOKEN"
    check "$n: no DIRECT-OK" lacks "$out" DIRECT-OK
    check_eq "$n: the box itself ran to the end" Succeeded "$phase"
done
ctl_finish
