#!/usr/bin/env bash
# test_hostile_file.sh - a hostile ~1 MiB file in the specs directory (21
# documents of a 9,999-key flow mapping: each within the per-document
# node budget, together far over the per-file one) is reported invalid
# with its one file:line:col error, and beside it:
#  - an invocation applied beside it converges;
#  - of two running agents, the one whose agent container is given
#    RestartPolicy "always" behind the controller's back (`docker update`,
#    by ID) fails closed (boundary-drift, Drifted=True naming
#    RestartPolicy and "always"), its agent stops and its objects go;
#    the other keeps running until it is cancelled;
#  - an invocation applied after the drift converges.
# Asserts results, not times (the costs are in hack/bench/parse/run.sh and
# hack/bench/store/run.sh). Negative controls: the parser whose budget
# reset at `---` reports a different first error (a missing apiVersion),
# which the exact match below refuses; and, by hand, HOSTILE_DRIFT_CONTROL
# makes the drift checks fail: "foreign" aims the `docker update` at a
# container of the test's own (not the controller's), "rule-off" runs the
# test-hooks controller with container.restart-policy switched off
# (AGENTCTL_TEST_DISABLE_DRIFT_RULES). With either set the scenario must
# FAIL at "drifter did not reach phase Failed".
source "$(dirname "$0")/lib_controller.sh"
CONTROL=${HOSTILE_DRIFT_CONTROL:-}
case $CONTROL in
"" | foreign) ;;
rule-off)
    CONTROLLER=$BUILD/controller/agent-controller-testhooks
    [ -x "$CONTROLLER" ] || skip "agent-controller-testhooks not built"
    export AGENTCTL_TEST_DISABLE_DRIFT_RULES=container.restart-policy
    ;;
*) fail "HOSTILE_DRIFT_CONTROL=$CONTROL: foreign or rule-off" ;;
esac
ctl_init

bash "$ROOT/tests/specs/hostile/make.sh" "$TEST_TMP/hostile"
cp "$TEST_TMP/hostile/docs-21x9999-keys.yaml" "$SPECS/hostile.yaml"
ctl_start
[ -z "$CONTROL" ] || echo "# NEGATIVE CONTROL $CONTROL: this run must fail"

apply_spec web execute "image: $BOX_IMAGE" \
    "command: [sh, -c, \"echo converged-beside-hostile\"]"
wait_phase web Succeeded 300
check_match "web: its own output" "^converged-beside-hostile$" \
    "$(agent_output web)"

out=$(actl get 2>&1)
check_match "the hostile file is listed as Invalid" $'(^|\n)hostile +Invalid ' "$out"
check_match "web is listed as Succeeded" $'(^|\n)web +Succeeded ' "$out"
rc=0
out=$(actl validate -f "$SPECS/hostile.yaml" 2>&1) || rc=$?
check_eq "validate: invalid" 1 "$rc"
check_eq "validate: the one error" \
    "$SPECS/hostile.yaml:7:1: file has too many nodes (limit 100000 in all its documents)" \
    "$(grep -v '^1 file(s): ' <<<"$out")"

# ---- a running agent's drift, the hostile file still there ----
SLEEP=("command: [/demo-agent, --sleep, \"600\"]" "deadlineSeconds: 600")
apply_spec drifter execute "${SLEEP[@]}"
apply_spec steady execute "${SLEEP[@]}"
wait_phase drifter Running 240
wait_phase steady Running 240
check_running_objects drifter # the control for its "gone" check below
agent=$(object_of drifter agent)
check_match "drifter: agent container found by its labels" \
    '^[0-9a-f]{64}$' "$agent"
check_eq "drifter: its agent runs" true \
    "$(docker inspect -f '{{.State.Running}}' "$agent")"
target=$agent
if [ "$CONTROL" = foreign ]; then # ours, not the controller's
    target=$(docker run -d --label "$TEST_LABEL" "$BOX_IMAGE" sleep 600)
fi
docker update --restart always "$target" >/dev/null
check_eq "docker update: RestartPolicy always set" always \
    "$(docker inspect -f '{{.HostConfig.RestartPolicy.Name}}' "$target")"

wait_phase drifter Failed 120
check_eq "drifter: stopReason boundary-drift" boundary-drift \
    "$(status_field drifter .stopReason)"
check_eq "drifter: condition Drifted=True" True \
    "$(condition_field drifter Drifted status)"
check_eq "drifter: Drifted reason container.restart-policy" \
    container.restart-policy "$(condition_field drifter Drifted reason)"
msg=$(condition_field drifter Drifted message)
echo "# drifter: Drifted: $msg"
check_match "drifter: the message names the agent's RestartPolicy \"always\"" \
    '^agent .*RestartPolicy[.A-Za-z]* is "always"' "$msg"
check_not_running "drifter: its agent container is not running" "$agent"
check_no_objects "drifter: every object with its uid is gone" \
    "agentctl.dev/uid=$(inv_uid drifter)" 60
# Docker lists the network as gone a moment before the controller has
# recorded its removal and marked the attempt cleaned up: bounded wait
for _ in $(seq 1 240); do
    [ "$(status_field drifter .cleanedUp)" = true ] && break
    sleep 0.25
done
check_eq "drifter: cleanedUp" true "$(status_field drifter .cleanedUp)"

check_eq "steady: still Running" Running "$(status_field steady .phase)"
check_eq "steady: no Drifted=True" "" \
    "$(status_field steady '.conditions[]? | select(.type == "Drifted" and .status == "True") | .type')"
check_running_objects steady

apply_spec after execute "image: $BOX_IMAGE" \
    "command: [sh, -c, \"echo converged-after-drift\"]"
wait_phase after Succeeded 300
check_match "after: its own output" "^converged-after-drift$" \
    "$(agent_output after)"
check_eq "steady: still Running after that" Running \
    "$(status_field steady .phase)"

check "agentctl cancel steady" quiet actl cancel steady
wait_phase steady Cancelled 120
check_no_objects "steady: every object with its uid is gone" \
    "agentctl.dev/uid=$(inv_uid steady)" 60
out=$(actl get 2>&1)
check_match "the hostile file is still listed as Invalid" \
    $'(^|\n)hostile +Invalid ' "$out"
check_match "drifter is listed as Failed" $'(^|\n)drifter +Failed ' "$out"
ctl_finish
