#!/usr/bin/env bash
# changes.sh - what the change set of a big workspace costs the controller
# (docs/changes.md, docs/bench-workspace.md "Change set"): a MIB MiB tree
# (lib_wsupload.sh's: 8 MiB files, small files, a .git) is uploaded, an
# agent in execute appends one line to one small file, and the change set
# is read back at cleanup. The controller's peak RSS (VmHWM) is sampled
# every 0.1 s: once the attempt is terminal (the upload and the run) and
# again once the change set is read (the read-back and its comparison),
# with /healthz's worst answer in each part. Not a test: nothing is
# asserted.
#
# Usage: hack/bench/workspace/changes.sh [MIB] [REPS]   (default 1024 1)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export AGENTCTL_ROOT=${AGENTCTL_ROOT:-$(cd "$HERE/../../.." && pwd)}
MIB=${1:-1024}
REPS=${2:-1}
source "$AGENTCTL_ROOT/tests/integration/controller/lib_controller.sh"
source "$AGENTCTL_ROOT/tests/integration/controller/lib_wsupload.sh"

HWM=0
HZ_MAX=0
# sample_until CMD...: VmHWM and one /healthz every 0.1 s until CMD holds
# (bounded: 20 minutes); HWM and HZ_MAX keep the peaks.
sample_until() {
    local hwm code lat
    HZ_MAX=0
    for _ in $(seq 1 12000); do
        ctl_alive || fail "agent-controller exited"
        hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$CTL_PID/status" 2>/dev/null)
        [ -n "$hwm" ] && [ "$hwm" -gt "$HWM" ] && HWM=$hwm
        read -r code lat < <(curl -s -o /dev/null --max-time 5 \
            -w '%{http_code} %{time_total}\n' "http://$CTL_METRICS/healthz" ||
            true)
        [ "${code:-000}" = 000 ] && lat=5
        HZ_MAX=$(printf '%s\n%s\n' "$HZ_MAX" "${lat:-0}" | sort -g | tail -n 1)
        "$@" && return 0
        sleep 0.1
    done
    fail "gave up waiting for: $*"
}
terminal() {
    [ "$(condition_field "$1" Admitted status)" != False ] ||
        fail "$1 not admitted: $(condition_field "$1" Admitted message)"
    [[ $(status_field "$1" .phase) =~ $TERMINAL_RE ]]
}
read_back() { [ "$(status_field "$1" .progress.changesRead)" == true ]; }

ctl_init
# the scenarios' config caps a workspace at 1Gi
sed -i "s/maxWorkspaceBytes: 1Gi/maxWorkspaceBytes: $((MIB + 256))Mi/" "$CONFIG"
ws_make_large "$WS_ROOT/large" "$MIB"
ROWS=()
for rep in $(seq 1 "$REPS"); do
    ctl_start
    HWM=0
    name=big-$rep
    t0=$(date +%s.%N)
    apply_spec "$name" execute "image: $BOX_IMAGE" \
        "command: [sh, -c, \"echo one-more-line >> /work/src/small1.txt\"]" \
        "workspace: {source: large, size: $((MIB + 64))Mi, inodes: 10000}"
    sample_until terminal "$name"
    t1=$(date +%s.%N)
    hwm_run=$HWM hz_run=$HZ_MAX
    sample_until read_back "$name"
    t2=$(date +%s.%N)
    stat=$(actl changes "$name" --stat | tail -n 1)
    ROWS+=("| $rep | $(status_field "$name" .phase) | $((hwm_run / 1024)) | $hz_run | $(printf '%.1f' "$(echo "$t1 - $t0" | bc)") | $((HWM / 1024)) | $HZ_MAX | $(printf '%.1f' "$(echo "$t2 - $t1" | bc)") | $stat |")
    ctl_stop
done
ctl_start
echo
echo "workspace: $(du -sm "$WS_ROOT/large" | cut -f1) MiB in" \
    "$(find "$WS_ROOT/large" | wc -l) entries; $(git -C "$AGENTCTL_ROOT" rev-parse --short HEAD)"
echo "| rep | phase | peak RSS at terminal (MiB) | /healthz max (s) | apply to terminal (s) | peak RSS after the read-back (MiB) | /healthz max (s) | terminal to changesRead (s) | agentctl changes --stat |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${ROWS[@]}"
ctl_finish
