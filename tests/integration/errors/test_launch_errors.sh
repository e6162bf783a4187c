#!/usr/bin/env bash
# test_launch_errors.sh - agent-launch's bad invocations and bad policies
# (docs/phase-policy.md): exit 125 for a bad command line or policy, 127
# for a CLI that is not there; the message names the file and line, or
# the name; a policy file that is a directory or a FIFO is refused without
# blocking; garbage in a policy is shown as plain text. Each row runs
# plain, under ASan/UBSan and under valgrind (lib_errors.sh), with
# agent-launch-test: the same sources linked as the build's other
# programs (the static product binary has no sanitizer, and valgrind reads
# static glibc's start-up as uninitialised memory). Landlock itself is not
# reached here: valgrind does not know its calls
# (tests/unit/test_launch_confine.c applies it). Wait mode's bad flags
# and refused orders are rows too.
source "$(dirname "$0")/lib_errors.sh"
err_require images/agent-launch-test
L=@images/agent-launch-test
F=$TEST_TMP/f
err_fixtures "$F"
P=$TEST_TMP/p
mkdir -p "$P"
printf 'landlock required\nbogus /x\n' >"$P/unknown"
printf 'write tmp\n' >"$P/relative"
printf 'connect 70000\n' >"$P/port"
printf 'runner-arg make\n' >"$P/runner"
printf 'write\n' >"$P/novalue"
printf 'exec-sibling ../x\n' >"$P/sibling"
head -c 70000 /dev/zero | tr '\0' '#' >"$P/big"
printf 'landlock optional\n' >"$P/ok"

row no-arguments 125 'usage: agent-launch' $L
row policy-without-cli 125 'usage: agent-launch' $L --policy "$P/ok"
row no-end-of-options 125 'usage: agent-launch' $L --policy "$P/ok" /bin/true
row unknown-flag 125 'usage: agent-launch' $L --polcy "$P/ok" -- /bin/true
row policy-missing 125 "policy $(q "$F/missing"): No such file" \
    $L --policy "$F/missing" -- /bin/true
row policy-directory 125 "policy $(q "$F/dir"): not a regular file" \
    $L --policy "$F/dir" -- /bin/true
row policy-fifo 125 "policy $(q "$F/fifo"): not a regular file" \
    $L --policy "$F/fifo" -- /bin/true
row policy-loop 125 "policy $(q "$F/loop"): Too many levels" \
    $L --policy "$F/loop" -- /bin/true
row policy-garbage 125 "$(q "$F/garbage"):1: expected \"key value\"" \
    $L --policy "$F/garbage" -- /bin/true
row policy-too-big 125 "policy $(q "$P/big"): larger than 64 KiB" \
    $L --policy "$P/big" -- /bin/true
row unknown-directive 125 "$(q "$P/unknown"):2: unknown directive: bogus" \
    $L --policy "$P/unknown" -- /bin/true
row relative-path 125 "$(q "$P/relative"):1: a path is absolute" \
    $L --policy "$P/relative" -- /bin/true
row bad-port 125 "$(q "$P/port"):1: a port is 1-65535" \
    $L --policy "$P/port" -- /bin/true
row no-value 125 "$(q "$P/novalue"):1: expected \"key value\"" \
    $L --policy "$P/novalue" -- /bin/true
row sibling-path 125 "$(q "$P/sibling"):1: a name, without '/'" \
    $L --policy "$P/sibling" -- /bin/true
row runner-without-bounds 125 'a runner needs runner-dir, runner-socket' \
    $L --policy "$P/runner" -- /bin/true
row cli-missing 127 'agent-launch: no-such-cli-here: not found' \
    $L --policy "$P/ok" -- no-such-cli-here
# a CLI in the working directory is never found through PATH's "." (nor
# an empty or relative entry): the launcher runs what the image holds
printf '#!/bin/sh\nexit 0\n' >"$P/mycli"
chmod +x "$P/mycli"
row cli-only-in-cwd 127 'agent-launch: mycli: not found' \
    env -C "$P" PATH=.:bin: "$ERR_PLAIN_ROOT/images/agent-launch-test" \
    --policy "$P/ok" -- mycli
# wait mode (images/launch_order.h): bad flags 125, no order in time 122,
# a refused order 123, each with its line
W=$TEST_TMP/w
mkdir -p "$W"
N=0123456789abcdef0123456789abcdef
printf '{"version":1,"nonce":"%s","argv":["/bin/true"],"env":[],"workdir":"/","policy":"landlock optional\\n"}' \
    fedcba9876543210fedcba9876543210 >"$W/forged.json"
printf '{"version":1,"nonce":"%s","argv":["/bin/true"],"env":[],"workdir":"/","policy":"bogus /x\\n"}' \
    "$N" >"$W/badpolicy.json"
printf 'not json' >"$W/garbage.json"
ln -s "$W/forged.json" "$W/link.json"
row wait-without-nonce 125 'usage: agent-launch' $L --wait "$W/forged.json"
row wait-bad-nonce 125 'order-nonce: expected 32-128 lowercase hex' \
    $L --wait "$W/forged.json" --order-nonce XYZ
row wait-zero-seconds 125 'usage: agent-launch' \
    $L --wait "$W/forged.json" --order-nonce "$N" --wait-seconds 0
row wait-relative 123 'order refused: order w/o.json: expected an absolute' \
    $L --wait w/o.json --order-nonce "$N" --wait-seconds 1
row wait-no-order 122 "no order at $(q "$W/none.json") within 1 s" \
    $L --wait "$W/none.json" --order-nonce "$N" --wait-seconds 1
row wait-forged 123 'order refused: nonce: not the one this container' \
    $L --wait "$W/forged.json" --order-nonce "$N" --wait-seconds 1
row wait-garbage 123 'order refused: order: not JSON' \
    $L --wait "$W/garbage.json" --order-nonce "$N" --wait-seconds 1
row wait-link 123 'order refused: order .*: Too many levels' \
    $L --wait "$W/link.json" --order-nonce "$N" --wait-seconds 1
row wait-bad-policy 123 'order policy:1: unknown directive: bogus' \
    $L --wait "$W/badpolicy.json" --order-nonce "$N" --wait-seconds 1
rows_finish
