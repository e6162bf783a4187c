#!/usr/bin/env bash
# test_step_errors.sh - why an invocation is stuck is where a kubectl
# user looks: with the config's workspaceRoot gone, the step that copies
# the workspace fails and is retried with backoff; `agentctl describe`
# shows the condition Ready=False, reason StepFailed, the error as its
# message, and one Warning StepFailed event row counting the retries
# ("xN over ..."); once the root is back the step goes through (a Normal
# Progressing event, Ready no longer StepFailed) and the invocation
# succeeds. Negative control: an
# invocation whose steps never failed has no StepFailed event or
# condition.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

apply_spec calm execute "command: [/demo-agent]" \
    "workspace: {source: small, size: 4Mi, inodes: 1000}"
wait_phase calm Succeeded 240
mv "$WS_ROOT" "$WS_ROOT.away"
on_cleanup "[ -d '$WS_ROOT.away' ] && mv '$WS_ROOT.away' '$WS_ROOT' || true"
apply_spec stuck execute "command: [/demo-agent]" \
    "workspace: {source: small, size: 4Mi, inodes: 1000}"

for _ in $(seq 120); do # until the fourth failure's event is written
    [ "$(jq -s '[.[] | select(.reason=="StepFailed")] | last | .count // 0' \
        "$STATE/events/stuck.jsonl" 2>/dev/null)" -ge 4 ] 2>/dev/null && break
    sleep 0.5
done
check_eq "Ready=False" False "$(condition_field stuck Ready status)"
check_eq "reason StepFailed" StepFailed "$(condition_field stuck Ready reason)"
check_match "the message is the step's error" "$(basename "$WS_ROOT")|workspace" \
    "$(condition_field stuck Ready message)"
check_eq "still Pending" Pending "$(status_field stuck .phase)"
out=$(actl describe stuck)
echo "$out" | sed -n '/^Conditions:/,$p' | sed 's/^/# /'
check_match "describe: the Ready condition" "Ready +False +[0-9T:-]+Z +StepFailed" "$out"
rows=$(grep -Ec 'Warning +StepFailed' <<<"$out" || true)
check_eq "describe: one StepFailed row for the repeats" 1 "$rows"
check_match "describe: the row counts them" 'Warning +StepFailed +[0-9]+[smh] \(x[0-9]+ over [0-9]+[smh]\)' "$out"

mv "$WS_ROOT.away" "$WS_ROOT"
for _ in $(seq 120); do
    [ "$(condition_field stuck Ready reason)" != StepFailed ] && break
    sleep 0.5
done
check "after the fix: Ready is no longer StepFailed" \
    test "$(condition_field stuck Ready reason)" != StepFailed
check_match "a Normal event says it went through" \
    "the step that failed [0-9]+ times went through" \
    "$(jq -r 'select(.reason=="Progressing") | .message' "$STATE/events/stuck.jsonl")"
wait_phase stuck Succeeded 240
check_eq "and the attempt ends as usual: Ready=False Completed" "False Completed" \
    "$(condition_field stuck Ready status) $(condition_field stuck Ready reason)"

check_eq "control: a calm one's Ready is its own (Completed), never StepFailed" Completed \
    "$(condition_field calm Ready reason)"
check "control: and no StepFailed event" bash -c '! grep -q StepFailed "$1"' _ "$STATE/events/calm.jsonl"
ctl_finish
