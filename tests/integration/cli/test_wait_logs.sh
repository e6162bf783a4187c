#!/usr/bin/env bash
# test_wait_logs.sh - agentctl wait and logs as kubectl users expect them,
# against a specs directory whose status and output the test writes by
# hand (as the controller does): wait exits 1 at once, naming phase and
# stop reason, when a final phase cannot become the one asked for;
# --for=condition=TYPE[=STATUS] (the status as written: Unknown or none
# is not False) and --for=delete; Go-style durations;
# logs -f says it waits for the attempt and honours --timeout; --tail and
# --since; logs of an attempt with nothing captured is an error; a phase
# that does not exist is refused at once. Negative controls: the same
# waits on a phase that is not final run into their timeout instead of
# exiting early; an agent that printed nothing is no error.
source "$(dirname "$0")/../lib.sh"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
ST=$S/.agentctl
mkdir -p "$S" "$ST/status" "$ST/output"
ctl() { "$A" --specs "$S" "$@"; }
spec() {
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n'
    printf 'metadata:\n  name: %s\nspec:\n  vendor: fake\n  phase: execute\n' "$1"
    printf '  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent]\n'
    printf '  deadlineSeconds: 60\n'
}
status() { printf '%s' "$2" >"$ST/status/$1.json"; }
for n in done failed run unk; do spec $n | ctl apply -f - >/dev/null; done
status done '{"phase":"Succeeded","conditions":[{"type":"Ready","status":"False","reason":"Finished","message":"m"}]}'
status failed '{"phase":"Failed","stopReason":"deadline"}'
status run '{"phase":"Running","conditions":[{"type":"BoundaryVerified","status":"True","reason":"Verified","message":"ok"}]}'
status unk '{"phase":"Running","conditions":[{"type":"Ready","status":"Unknown","reason":"Other","message":"m"},{"type":"Admitted","reason":"NoStatus","message":"m"}]}'

# wait --for=phase
out=$(ctl wait done --for=phase=Succeeded)
check_eq "phase reached" "agentinvocation.agentctl.dev/done condition met" "$out"
out=$(ctl wait done --for=phase=succeeded)
check_match "phase compared case-insensitively" "condition met" "$out"
rc=0; out=$(ctl wait failed --for=phase=Succeeded --timeout=1h 2>&1) || rc=$?
check_eq "final in another phase: exit 1 (no 1h wait)" 1 "$rc"
check_match "says phase and stop reason" \
    "agentinvocations/failed will not reach phase Succeeded: phase is Failed \(stopReason deadline\), which is final" "$out"
rc=0; out=$(ctl wait run --for=phase=Succeeded --timeout=300ms 2>&1) || rc=$?
check_eq "control: Running is not final, the wait times out" 1 "$rc"
check_match "control: timed out, not 'will not reach'" "timed out waiting for the condition on agentinvocations/run" "$out"
rc=0; ctl wait done failed --for=phase=Succeeded --timeout=1h >/dev/null 2>&1 || rc=$?
check_eq "several names: one cannot get there, exit 1" 1 "$rc"

# wait --for=condition
out=$(ctl wait run --for=condition=BoundaryVerified)
check_match "condition=TYPE means True" "run condition met" "$out"
out=$(ctl wait done --for=condition=Ready=False)
check_match "condition=TYPE=STATUS" "done condition met" "$out"
rc=0; ctl wait done --for=condition=Ready --timeout=300ms >/dev/null 2>&1 || rc=$?
check_eq "condition with another status: times out" 1 "$rc"
# another writer's Unknown, or no status at all, is not False
rc=0; ctl wait unk --for=condition=Ready=False --timeout=300ms >/dev/null 2>&1 || rc=$?
check_eq "status Unknown does not meet =False: times out" 1 "$rc"
rc=0; ctl wait unk --for=condition=Admitted=False --timeout=300ms >/dev/null 2>&1 || rc=$?
check_eq "no status does not meet =False: times out" 1 "$rc"
out=$(ctl wait unk --for=condition=Ready=Unknown --timeout=5s)
check_match "control: the status as written meets its own text" "unk condition met" "$out"
check_match "describe shows the status as written" "Ready +Unknown" "$(ctl describe unk)"

# wait --for=delete: the spec gone and the status deleted (cleanup done)
rc=0; ctl wait nothing-here --for=delete >/dev/null || rc=$?
check_eq "delete of a name that is not there: met" 0 "$rc"
ctl delete run >/dev/null
rc=0; ctl wait run --for=delete --timeout=300ms >/dev/null 2>&1 || rc=$?
check_eq "control: spec deleted but status kept (cleanup not done): times out" 1 "$rc"
rm "$ST/status/run.json"
out=$(ctl wait run --for=delete --timeout=5s)
check_eq "status gone too: deleted" "agentinvocation.agentctl.dev/run deleted" "$out"

# durations and usage
for d in 1h30m 2.5s 500ms 90 1m0s; do
    rc=0; ctl wait done --for=phase=Succeeded --timeout=$d >/dev/null || rc=$?
    check_eq "--timeout=$d is a duration" 0 "$rc"
done
for d in 5x -1s 1h30; do
    rc=0; ctl wait done --for=phase=Succeeded --timeout=$d >/dev/null 2>&1 || rc=$?
    check_eq "--timeout=$d: usage" 2 "$rc"
done
rc=0; ctl wait done --for=bogus >/dev/null 2>&1 || rc=$?
check_eq "unknown --for: usage" 2 "$rc"
rc=0; ctl wait nope --for=phase=Succeeded >/dev/null 2>&1 || rc=$?
check_eq "wait on a missing name: 1" 1 "$rc"

# logs
printf 'one\ntwo\nthree\n' >"$ST/output/done.log"
check_eq "logs" "$(printf 'one\ntwo\nthree')" "$(ctl logs done)"
check_eq "logs --tail 2" "$(printf 'two\nthree')" "$(ctl logs done --tail 2)"
check_eq "logs --tail=0" "" "$(ctl logs done --tail=0)"
check_eq "logs --tail 9 (more than there are)" "$(printf 'one\ntwo\nthree')" "$(ctl logs --tail 9 done)"
check_eq "logs -f on a final phase prints and ends" "$(printf 'one\ntwo\nthree')" "$(ctl logs -f done)"
touch -d '2 hours ago' "$ST/output/done.log"
check_eq "logs --since 1h: last written before, nothing" "" "$(ctl logs done --since 1h)"
check_eq "control: logs --since 3h shows it" "$(printf 'one\ntwo\nthree')" "$(ctl logs done --since=3h)"
rc=0; ctl logs done --tail x >/dev/null 2>&1 || rc=$?
check_eq "logs --tail x: usage" 2 "$rc"

spec pend | ctl apply -f - >/dev/null
# logs of an attempt that captured nothing: an error, as kubectl's logs of
# a container still waiting to start, never an empty success
rc=0; out=$(ctl logs pend 2>&1) || rc=$?
check_eq "logs with no output yet: exit 1" 1 "$rc"
check_match "it says so and what -f does" "pend has no output yet \(phase Pending\); -f waits for it" "$out"
rc=0; out=$(ctl logs failed 2>&1) || rc=$?
check_eq "logs of a final attempt without output: exit 1" 1 "$rc"
check_match "it says the attempt ended before a capture" "failed has no output yet \(phase Failed\): its attempt ended before anything was captured" "$out"
rc=0; out=$(ctl logs pend --egress 2>&1) || rc=$?
check_eq "logs --egress with no audit yet: exit 1" 1 "$rc"
check_match "and no word of -f, which --egress refuses" "pend has no egress audit yet \(phase Pending\)$" "$out"
: >"$ST/output/empty.log"
spec empty | ctl apply -f - >/dev/null
status empty '{"phase":"Succeeded"}'
rc=0; out=$(ctl logs empty 2>&1) || rc=$?
check_eq "control: an agent that printed nothing: exit 0, nothing" "0 " "$rc $out"
# a phase that does not exist: refused at once, not waited for
rc=0; out=$(ctl wait run --for=phase=Bogus --timeout=1h 2>&1) || rc=$?
check_eq "wait --for=phase=Bogus: usage error at once" 2 "$rc"
check_match "it names the phases there are" "no such phase \(Pending, Preparing, Running, Succeeded, Failed, Cancelled\)" "$out"
rc=0; out=$(ctl logs pend -f --timeout=400ms 2>&1) || rc=$?
check_eq "logs -f on a Pending invocation gives up at --timeout" 1 "$rc"
check_match "logs -f says it waits for the attempt" \
    "waiting for the attempt of pend to start \(phase Pending\)" "$out"
check_match "logs -f says why it ended" "timed out waiting for the attempt of pend" "$out"
# logs -f picks the output up once the attempt starts, ends when final
ctl logs pend -f --timeout=60s >"$TEST_TMP/follow.out" 2>"$TEST_TMP/follow.err" &
follower=$!
on_cleanup "kill $follower 2>/dev/null || true"
for _ in $(seq 100); do [ -s "$TEST_TMP/follow.err" ] && break; sleep 0.1; done
status pend '{"phase":"Running"}'
printf 'hello\n' >"$ST/output/pend.log"
for _ in $(seq 100); do grep -q hello "$TEST_TMP/follow.out" && break; sleep 0.1; done
printf 'bye\n' >>"$ST/output/pend.log"
status pend '{"phase":"Succeeded"}'
rc=0; wait "$follower" || rc=$?
check_eq "logs -f ends 0 when the phase is final" 0 "$rc"
check_eq "logs -f printed everything" "$(printf 'hello\nbye')" "$(cat "$TEST_TMP/follow.out")"
