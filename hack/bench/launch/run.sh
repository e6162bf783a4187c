#!/usr/bin/env bash
# run.sh - what agent-launch costs, side by side in one run (issue 36's
# goal: at most 20 ms added to a box's start).
#
#   exec   on this host: `agent-launch --policy P -- /bin/true` against
#          `/bin/true` alone, BENCH_EXECS times each, in interleaved rounds
#          (the launcher's own work: policy, PATH, ELF interpreter,
#          seccomp, Landlock; "runner" adds the fork and the socket of the
#          runner service);
#   box    a prompt spec of an operator-defined vendor (the fake CLI of
#          agentctl/fakecli, which prints when its main began) from
#          `agentctl apply` to the CLI's first instruction, with the
#          launcher (agent-controller) and without it (the test-hooks
#          controller, AGENTCTL_TEST_DISABLE=launcher), BENCH_BOXES times
#          each, alternating; this includes the 0.8 MiB more the config
#          upload carries.
#
# Numbers, no pass/fail. Uses the test harness of tests/integration
# (lib_controller.sh: a controller of its own, its label, its clean-up).
# Env: BENCH_EXECS (300), BENCH_BOXES (5), AGENTCTL_BUILD (build).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
export AGENTCTL_ROOT=$ROOT AGENTCTL_BUILD=${AGENTCTL_BUILD:-$ROOT/build}
EXECS=${BENCH_EXECS:-300}
BOXES=${BENCH_BOXES:-5}
LAUNCH=$AGENTCTL_BUILD/images/agent-launch
[ -x "$LAUNCH" ] || { echo "no $LAUNCH: build first" >&2; exit 1; }
LIB_NO_CHECKS=1 # the harness's clean-up, no checks to report
source "$ROOT/tests/integration/controller/lib_controller.sh"

# ---- exec -------------------------------------------------------------
T=$TEST_TMP/launch
mkdir -p "$T/w"
printf 'landlock required\nwrite %s\nwrite /dev/null\nconnect 3128\n' \
    "$T/w" >"$T/plain"
printf '%srunner-arg /bin/true\nrunner-dir %s\nrunner-timeout 10\n%s\n%s\n' \
    "$(cat "$T/plain")
" "$T/w" "runner-max-bytes 1024" "runner-socket $T/runner.sock" >"$T/runner"

# per_exec_us CMD...: mean microseconds of one run of CMD over EXECS runs.
per_exec_us() {
    local i t0 t1
    t0=$(date +%s%N)
    for ((i = 0; i < EXECS; i++)); do
        "$@" >/dev/null 2>&1
    done
    t1=$(date +%s%N)
    echo $(((t1 - t0) / EXECS / 1000))
}
declare -A E=([direct]=0 [plain]=0 [runner]=0)
for round in 1 2 3; do
    E[direct]=$((E[direct] + $(per_exec_us /bin/true)))
    E[plain]=$((E[plain] + $(per_exec_us "$LAUNCH" --policy "$T/plain" -- /bin/true)))
    E[runner]=$((E[runner] + $(per_exec_us "$LAUNCH" --policy "$T/runner" -- /bin/true)))
done
echo "## agent-launch on $(uname -r) ($(nproc) CPUs), $EXECS execs x 3 rounds"
echo
echo "| exec | mean per run | added |"
echo "| --- | --- | --- |"
for k in direct plain runner; do
    printf '| %s | %d us | %d us |\n' "$k" $((E[$k] / 3)) \
        $(((E[$k] - E[direct]) / 3))
done
echo

# ---- box --------------------------------------------------------------
ctl_init
FAKECLI=agentctl/fakecli:$VERSION
docker image inspect "$FAKECLI" >/dev/null 2>&1 || bash "$ROOT/hack/images/build-fakecli.sh" >/dev/null
sed -i '/^vendors:/a\
  acme: {hosts: ["vendor.test:443"], allowPrivate: true}' "$CONFIG"
HOOKED=$BUILD/controller/agent-controller-testhooks

# one_box KIND I: ms from apply to the fake CLI's main, one invocation.
one_box() {
    local n=lb-$1-$2 t0 started
    if [ "$1" == without ]; then
        CONTROLLER=$HOOKED AGENTCTL_TEST_DISABLE=launcher ctl_start >/dev/null
    else
        ctl_start >/dev/null
    fi
    t0=$(date +%s%N)
    apply_spec "$n" planning "vendor: acme" "image: $FAKECLI" \
        "prompt: time me" >/dev/null
    wait_terminal "$n" 120 >/dev/null
    started=$(agent_output "$n" | grep '^{"startedNs"' | jq -r .startedNs)
    actl delete "$n" >/dev/null 2>&1 || true
    ctl_stop >/dev/null 2>&1 || true
    echo $(((started - t0) / 1000000))
}
declare -A B=([with]="" [without]="")
for ((i = 0; i < BOXES; i++)); do
    for k in without with; do
        B[$k]="${B[$k]} $(one_box "$k" "$i")"
    done
done
# med LIST: the median of a list of numbers.
med() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "## a prompt spec from apply to the CLI's main, $BOXES each, alternating"
echo
echo "| box | runs (ms) | median |"
echo "| --- | --- | --- |"
for k in without with; do
    printf '| %s launcher |%s | %d ms |\n' "$k" "${B[$k]}" "$(med "${B[$k]}")"
done
printf '\nadded by the launcher (median): %d ms\n' \
    $(($(med "${B[with]}") - $(med "${B[without]}")))
