#!/usr/bin/env bash
# run.sh - one big workspace upload, main's controller against this
# branch's, in one run (docs/bench-workspace.md): the same MIB MiB tree
# (8 MiB files, small files, a .git with a packfile, made in the run's own
# tmp dir and removed after) uploaded REPS times by each, alternating.
# For each upload: the controller's peak RSS (VmHWM) and /healthz's
# latency, sampled every 0.1 s from the spec's apply until the attempt is
# terminal (tests/integration/controller/lib_wsupload.sh). Not a test:
# nothing is asserted; test_workspace_stream.sh asserts the RSS bound.
#
# Usage: MAIN_BUILD=/path/to/main/build hack/bench/workspace/run.sh [MIB] [REPS]
#   MAIN_BUILD: a build of main (controller/agent-controller); the rest
#   (agentctl, this branch's controller) comes from AGENTCTL_BUILD
#   (default ./build). Needs Docker and the agentctl/* test images.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export AGENTCTL_ROOT=${AGENTCTL_ROOT:-$(cd "$HERE/../../.." && pwd)}
: "${MAIN_BUILD:?set MAIN_BUILD to a build of main}"
MIB=${1:-320}
REPS=${2:-2}
source "$AGENTCTL_ROOT/tests/integration/controller/lib_controller.sh"
source "$AGENTCTL_ROOT/tests/integration/controller/lib_wsupload.sh"
BRANCH_CTL=$CONTROLLER
MAIN_CTL=$MAIN_BUILD/controller/agent-controller
[ -x "$MAIN_CTL" ] || fail "no controller at $MAIN_CTL"

ctl_init
ws_make_large "$WS_ROOT/large" "$MIB"
ROWS=()
for rep in $(seq 1 "$REPS"); do
    for leg in main branch; do
        if [ "$leg" = main ]; then CONTROLLER=$MAIN_CTL; else CONTROLLER=$BRANCH_CTL; fi
        ctl_start
        ws_upload_run "$leg-$rep" large 512Mi
        ROWS+=("| $leg | $rep | $UP_PHASE | $((UP_HWM_KB / 1024)) | $UP_HZ_N | $UP_HZ_FAIL | $UP_HZ_P50 | $UP_HZ_MAX | ${UP_PUT_S:-?} | $(printf '%.1f' "$UP_SECONDS") |")
        ctl_stop
    done
done
CONTROLLER=$BRANCH_CTL
ctl_start # cleans up what the last attempts left, then ctl_finish checks
echo
echo "workspace: $(du -sm "$WS_ROOT/large" | cut -f1) MiB in $(find "$WS_ROOT/large" | wc -l) entries;" \
    "main: $("$MAIN_CTL" --version 2>/dev/null || echo "$MAIN_CTL"); branch: $(git -C "$AGENTCTL_ROOT" rev-parse --short HEAD)"
echo "| build | rep | phase | peak RSS (MiB) | /healthz answers | no answer in 5 s | /healthz p50 (s) | /healthz max (s) | PUT archive (s) | apply to terminal (s) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${ROWS[@]}"
ctl_finish
