#!/usr/bin/env bash
# test_result_claude.sh - the result of the real Claude Code CLI
# (agentctl/claude-code) read from its documented channel, the JSON
# envelope of `-p --output-format json` on stdout, with spec.output.schema
# handed to it as --json-schema (docs/status.md "result"). The TLS test
# vendor answers what each prompt's script says (tv_reply.h: CALL,
# ANSWER, ANSWERFILL, FAIL).
#
#   r-ok: the model calls Claude Code's StructuredOutput tool with a
#     verdict: Succeeded, status.result.json is the answer, valid; agentctl
#     result prints it, get -o jsonpath and wait --for=jsonpath read it,
#     get -o wide shows it in RESULT;
#   r-bad: an answer that breaks the schema: Failed, capture-failure, the
#     first error with its JSON path; agentctl result exits 1;
#   r-deep: an answer nested 5000 deep: capture-failure, too-deep;
#   r-big: a 100 MB answer with maxResultBytes 1Ki (output.maxBytes large
#     enough that the output bound is not what stops it): capture-failure,
#     oversized, the agent stopped as soon as stdout passed the bound;
#   r-err: the vendor refuses the request: the envelope says is_error, the
#     CLI exits 1; reported as it is (Failed by the exit, isError true).
# The GitOps pipeline (hack/gitops/pipeline.sh --gate) gates a commit on
# its reviews' verdicts: a commit with a review that says fail exits 6
# and names it; the next commit, whose review passes, exits 0.
# Negative control: the same schema-breaking answer with validation off
# (the test-hooks controller, AGENTCTL_TEST_DISABLE=result-validation)
# is accepted: Succeeded with the answer in status.result.json.
source "$(dirname "$0")/lib_vendors.sh"
vd_init claude
ctl_start

SCHEMA='schema: {type: object, required: [verdict], additionalProperties: false, properties: {verdict: {type: string, enum: [pass, fail]}}}'
DEEP=$(printf '%.0s[' $(seq 1 5000))$(printf '%.0s]' $(seq 1 5000))
vd_spec r-ok review "$(vd_prompt r-ok 'CALL StructuredOutput {"verdict":"pass"}')" \
    "output: {$SCHEMA}"
vd_spec r-bad review "$(vd_prompt r-bad 'ANSWER {"verdict":"maybe"}')" \
    "output: {$SCHEMA}"
vd_spec r-deep planning "$(vd_prompt r-deep "ANSWER $DEEP")" "output: {$SCHEMA}"
vd_spec r-big planning "$(vd_prompt r-big 'ANSWERFILL 104857600 x')" \
    "output: {maxBytes: 16Mi, maxResultBytes: 1Ki}"
vd_spec r-err planning "$(vd_prompt r-err FAIL)"

check_eq "r-ok: Succeeded" Succeeded "$(wait_terminal r-ok 300)"
check_eq "r-ok: the answer is status.result.json" '{"verdict":"pass"}' \
    "$(status_field r-ok .result.json | jq -c .)"
check_eq "r-ok: valid, from the stdout envelope, not an error" \
    "true stdout-envelope false" \
    "$(status_field r-ok .result | jq -r '"\(.valid) \(.channel) \(.isError)"')"
check_eq "r-ok: agentctl result prints the JSON answer" '{"verdict":"pass"}' \
    "$(actl result r-ok | jq -c .)"
check_eq "r-ok: agentctl result -o jsonpath" pass \
    "$(actl result r-ok -o 'jsonpath={.json.verdict}')"
check_eq "r-ok: get -o jsonpath reads the verdict" pass \
    "$(actl get r-ok -o 'jsonpath={.status.result.json.verdict}')"
check "r-ok: wait --for=jsonpath=...=pass is met" \
    actl wait r-ok "--for=jsonpath={.status.result.json.verdict}=pass" --timeout 5s
check "r-ok: wait --for=jsonpath=...=fail is not (final phase: at once)" \
    not actl wait r-ok "--for=jsonpath={.status.result.json.verdict}=fail" --timeout 5s
check "r-ok: get -o wide shows RESULT" \
    grep -q 'RESULT.*{"verdict":"pass"}' <<<"$(actl get r-ok -o wide | tr '\n' ' ')"

check_eq "r-bad: Failed, capture-failure" "Failed capture-failure" \
    "$(wait_terminal r-bad 300) $(status_field r-bad .stopReason)"
check_eq "r-bad: invalid, the first error's JSON path" 'invalid false $.verdict' \
    "$(status_field r-bad .result | jq -r '"\(.problem) \(.valid) \(.errors[0].path)"')"
check_eq "r-bad: no json for an invalid answer" false \
    "$(status_field r-bad '.result | has("json")')"
check "r-bad: the condition names the problem" \
    grep -q 'result invalid: the answer breaks spec.output.schema' \
    <<<"$(condition_field r-bad Ready message)"
check "r-bad: agentctl result exits 1" not actl result r-bad

check_eq "r-deep: capture-failure, too-deep" "capture-failure too-deep" \
    "$(wait_terminal r-deep 300 >/dev/null; status_field r-deep .stopReason) $(status_field r-deep .result.problem)"

check_eq "r-big: capture-failure, oversized" "capture-failure oversized" \
    "$(wait_terminal r-big 600 >/dev/null; status_field r-big .stopReason) $(status_field r-big .result.problem)"
check "r-big: the agent was stopped at the bound" \
    grep -q 'the agent was stopped' <<<"$(condition_field r-big Ready message)"

check_eq "r-err: Failed by the CLI's exit 1" "Failed 1" \
    "$(wait_terminal r-err 300) $(status_field r-err .exitCode)"
check_eq "r-err: is_error reported as it is" "true null" \
    "$(status_field r-err .result | jq -r '"\(.isError) \(.problem)"')"
check "r-err: agentctl result exits 1" not actl result r-err

# the negative control: validation off accepts the breaking answer
ctl_stop
[ -x "$BUILD/controller/agent-controller-testhooks" ] ||
    skip "agent-controller-testhooks not built"
export AGENTCTL_TEST_DISABLE=result-validation
CONTROLLER=$BUILD/controller/agent-controller-testhooks
ctl_start
vd_spec r-bad-nv review "$(vd_prompt r-bad-nv 'ANSWER {"verdict":"maybe"}')" \
    "output: {$SCHEMA}"
check_eq "control: validation off, the breaking answer is accepted" \
    'Succeeded {"verdict":"maybe"}' \
    "$(wait_terminal r-bad-nv 300) $(status_field r-bad-nv .result.json | jq -c .)"
check "control: and the checked run refused the same answer" \
    test "$(status_field r-bad .stopReason)" = capture-failure

# the GitOps pipeline gates on the verdict
unset AGENTCTL_TEST_DISABLE
ctl_stop
CONTROLLER=$BUILD/controller/agent-controller
ctl_start
REPO=$TEST_TMP/gitops
mkdir -p "$REPO"
git -C "$REPO" init -q
vd_spec g-pass review "$(vd_prompt g-pass 'ANSWER {"verdict":"pass"}')" \
    "output: {$SCHEMA}"
vd_spec g-fail review "$(vd_prompt g-fail 'ANSWER {"verdict":"fail"}')" \
    "output: {$SCHEMA}"
cp "$TEST_TMP/in/g-pass.yaml" "$TEST_TMP/in/g-fail.yaml" "$REPO/"
git -C "$REPO" add -A && git -C "$REPO" -c user.name=t -c user.email=t@t.invalid \
    commit -qm "a pass and a fail"
gate() {
    GRC=0
    "$ROOT/hack/gitops/pipeline.sh" --specs "$SPECS" --state "$STATE" \
        --agentctl "$AGENTCTL" --wait 300s \
        --gate '{.status.result.json.verdict}=pass' "$REPO" \
        >"$TEST_TMP/gate.out" 2>"$TEST_TMP/gate.err" || GRC=$?
}
gate
check_eq "gitops: a review that says fail stops the pipeline (exit 6)" 6 "$GRC"
check "gitops: the summary says gate-failed" \
    grep -q 'gated=2 gate-failed=1 result=gate-failed$' "$TEST_TMP/gate.out"
check "gitops: it names the review" \
    grep -q 'g-fail: {.status.result.json.verdict} is "fail", not "pass"' \
    "$TEST_TMP/gate.err"
git -C "$REPO" rm -q g-fail.yaml && git -C "$REPO" -c user.name=t \
    -c user.email=t@t.invalid commit -qm "the fail dropped"
gate
check_eq "gitops: the commit whose review passes goes through" 0 "$GRC"
check "gitops: result=ok" grep -q 'result=ok$' "$TEST_TMP/gate.out"
ctl_finish
