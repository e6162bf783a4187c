#!/usr/bin/env bash
# test_result_cli.sh - agentctl result, get -o jsonpath / -o wide (RESULT)
# and wait --for=jsonpath on status.result, against a specs directory
# whose status the test writes by hand (as the controller does:
# docs/status.md "result"). The real CLIs' results are
# tests/integration/vendors/test_result_claude.sh and test_result_codex.sh.
source "$(dirname "$0")/../lib.sh"

S=$TEST_TMP/specs
mkdir -p "$S"
ctl() { "$BUILD/cli/agentctl" --specs "$S" "$@"; }
# a review whose answer must be an object with a verdict
spec() {
    cat <<YAML
apiVersion: agentctl.dev/v1alpha1
kind: AgentInvocation
metadata: {name: $1}
spec:
  vendor: claude
  phase: review
  image: agentctl/demo-agent:0.1.0
  prompt: review it
  deadlineSeconds: 60
  output: {schema: {type: object, required: [verdict]}}
YAML
}
status() { printf '%s' "$2" >"$S/.agentctl/status/$1.json"; }
rc_of() { local rc=0; "$@" >/dev/null 2>&1 || rc=$?; echo "$rc"; }

for n in ok bad text none; do spec "$n" | ctl apply -f - >/dev/null; done
status ok '{"phase":"Succeeded","result":{"channel":"stdout-envelope","text":"{\"verdict\":\"pass\"}","json":{"verdict":"pass"},"isError":false,"turns":2,"valid":true,"errorCount":0,"changes":{"added":1}}}'
status bad '{"phase":"Failed","stopReason":"capture-failure","result":{"channel":"output-last-message","text":"{\"verdict\":7}","valid":false,"errorCount":1,"errors":[{"path":"$.verdict","message":"must be a string, not integer"}],"problem":"invalid","detail":"the answer breaks spec.output.schema (1 problem): $.verdict: must be a string, not integer"}}'
status text '{"phase":"Succeeded","result":{"channel":"output-last-message","text":"all good\nsecond line"}}'
status none '{"phase":"Running"}'

check_eq "result: the JSON answer" '{"verdict":"pass"}' "$(ctl result ok | jq -c .)"
check_eq "result -o jsonpath on status.result" "pass 2" \
    "$(ctl result ok -o 'jsonpath={.json.verdict} {.turns}')"
check_eq "result -o json: status.result without the change set" \
    "false" "$(ctl result ok -o json | jq 'has("changes")')"
check_match "result -o yaml" "^channel: stdout-envelope" "$(ctl result ok -o yaml)"
check_eq "result: text when there is no JSON" $'all good\nsecond line' \
    "$(ctl result text)"
check_eq "result of an unusable result: exit 1" 1 "$(rc_of ctl result bad)"
check_match "result of an unusable result: says which" \
    "error: bad: result invalid: the answer breaks spec.output.schema" \
    "$(ctl result bad 2>&1)"
check_eq "no result yet: exit 1" 1 "$(rc_of ctl result none)"
check_match "no result yet: says so" "none has no result yet \(phase Running\)" \
    "$(ctl result none 2>&1)"
check_eq "result of an unknown name: exit 1" 1 "$(rc_of ctl result nosuch)"
check_eq "result -o bogus: usage" 2 "$(rc_of ctl result ok -o bogus)"

check_eq "get -o jsonpath reads the verdict" pass \
    "$(ctl get ok -o 'jsonpath={.status.result.json.verdict}')"
out=$(ctl get -o wide)
check_match "get -o wide: RESULT column" "CONTROLLER +RESULT$" "$(head -n 1 <<<"$out")"
check_match "RESULT: the JSON answer" $'\nok .*\\{"verdict":"pass"\\}' "$out"
check_match "RESULT: the problem" $'\nbad .* invalid' "$out"
check_match "RESULT: the text's first line" $'\ntext .* all good' "$out"

check_eq "wait --for=jsonpath=VALUE met" 0 \
    "$(rc_of ctl wait ok '--for=jsonpath={.status.result.json.verdict}=pass' --timeout 2s)"
check_eq "wait --for=jsonpath: another value, final phase: 1 at once" 1 \
    "$(rc_of ctl wait ok '--for=jsonpath={.status.result.json.verdict}=fail' --timeout 30s)"
check_eq "wait --for=jsonpath without a value: present" 0 \
    "$(rc_of ctl wait ok '--for=jsonpath={.status.result.valid}' --timeout 2s)"
check_eq "wait --for=jsonpath not yet: times out" 1 \
    "$(rc_of ctl wait none '--for=jsonpath={.status.result.json.verdict}=pass' --timeout 1s)"
check_eq "wait --for=jsonpath malformed: usage" 2 \
    "$(rc_of ctl wait ok '--for=jsonpath=.status.x' --timeout 1s)"
