#!/usr/bin/env bash
# test_main_job.sh - README command (a)'s script, hack/run.sh, in a
# specs directory of its own (AGENTCTL_SPECS): it exits 0, the example
# invocations it applies are run by the controller it starts (`demo`
# reaches Succeeded, fetched the demo vendor's page through its proxy and
# its write to /work comes back in its change set;
# none is left unfinished), and nothing the controller (ID "demo") created
# is left in Docker. Skips until the controller exists and hack/run.sh
# starts it. (hack/run.sh uses fixed names, controller ID "demo" and the
# container agentctl-demo-vendor: do not run it at the same time.)
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
check_eq "demo: Succeeded" Succeeded \
    "$(jq -r '.phase // ""' "$STATE/status/demo.json" 2>/dev/null)"
out=$(cat "$STATE/output/demo.log" 2>/dev/null)
check_match "demo: its CONNECT through the proxy was admitted" \
    'connect: HTTP/1.1 200' "$out"
check_match "demo: and the vendor's page came back" 'vendor_body: [^[:space:]]' \
    "$out"
check_match "demo: its write to /work came back (agentctl changes --stat)" \
    ' [AM] demo\.txt' "$(cat "$TEST_TMP/run.out")"
check_no_objects "no Docker object of controller demo left" \
    agentctl.dev/managed-by=demo 60
check_eq "the demo vendor container is gone" "" \
    "$(docker ps -aq --filter label=agentctl.dev/demo=vendor)"
