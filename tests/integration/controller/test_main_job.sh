#!/usr/bin/env bash
# test_main_job.sh - README command (a)'s script, hack/run.sh, in a
# specs directory of its own (AGENTCTL_SPECS): it exits 0 and the example
# invocations it applies are run by the controller it starts: at least one
# reaches Succeeded and none is left unfinished. Skips until the controller
# exists and hack/run.sh starts it.
source "$(dirname "$0")/lib_controller.sh"
[ -x "$CONTROLLER" ] ||
    skip "agent-controller not built yet ($CONTROLLER missing)"
grep -q agent-controller "$ROOT/hack/run.sh" ||
    skip "hack/run.sh does not start agent-controller yet"
command -v jq >/dev/null || skip "jq not installed"
need_docker

SPECS=$TEST_TMP/main-specs
mkdir -p "$SPECS"
# Anything hack/run.sh leaves running for this specs directory is ours to
# stop at the end (found by the unique temp path, killed by PID).
on_cleanup 'for p in $(pgrep -f -- "$SPECS" || true); do
    [ "$p" != $$ ] && kill -TERM "$p" 2>/dev/null; done'

RC=0
AGENTCTL_SPECS=$SPECS timeout 900 bash "$ROOT/hack/run.sh" \
    >"$TEST_TMP/run.out" 2>&1 || RC=$?
sed 's/^/#   /' "$TEST_TMP/run.out" | tail -n 60
check_eq "hack/run.sh exits 0" 0 "$RC"

STATE=$SPECS/.agentctl
shopt -s nullglob
files=("$STATE"/status/*.json)
check "the examples have status documents" test ${#files[@]} -gt 0
succeeded=0
for f in "${files[@]}"; do
    name=$(basename "$f" .json)
    phase=$(jq -r '.phase // ""' "$f")
    echo "# $name: $phase $(jq -c '{stopReason,exitCode}' "$f")"
    check_match "$name: finished" "$TERMINAL_RE" "$phase"
    [ "$phase" != Succeeded ] || succeeded=$((succeeded + 1))
done
check "at least one example invocation Succeeded" test "$succeeded" -gt 0
