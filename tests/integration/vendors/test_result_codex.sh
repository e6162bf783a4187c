#!/usr/bin/env bash
# test_result_codex.sh - the result of the real Codex CLI (agentctl/codex)
# read from its documented channel: the file `codex exec
# --output-last-message` writes on the scratch volume, read back through
# the keeper after the CLI exits, with spec.output.schema handed to it as
# --output-schema FILE (docs/status.md "result"). The TLS test vendor
# answers what each prompt's script says (tv_reply.h: ANSWER, ANSWERFILL,
# FAIL).
#
#   x-ok: a JSON answer that satisfies the schema: Succeeded, the answer
#     in status.result.json, channel output-last-message; the schema file
#     reached the CLI (the request carries its text.format);
#   x-bad: an answer that breaks the schema: Failed, capture-failure,
#     invalid, the first error's JSON path;
#   x-big: a 4 MB answer with maxResultBytes 1Ki: capture-failure,
#     oversized (the archive is not held beyond the bound; codex 0.171.0
#     takes minutes to take in a 100 MB answer from the vendor, so the
#     100 MB line is test_result_claude.sh's; codex also prints the
#     message on stdout, twice, so 4 MB stays under output.maxBytes);
#   x-empty: an empty final message: codex exits 0 with an empty file:
#     capture-failure, missing;
#   x-fail: the vendor refuses every request: the CLI exits non-zero and
#     leaves an empty file: Failed by its exit, status.result says
#     missing (reported as it is, beside the exit).
source "$(dirname "$0")/lib_vendors.sh"
vd_init codex
ctl_start

SCHEMA='schema: {type: object, required: [verdict], additionalProperties: false, properties: {verdict: {type: string, enum: [pass, fail]}}}'
vd_spec x-ok review "$(vd_prompt x-ok 'ANSWER {"verdict":"pass"}')" "output: {$SCHEMA}"
vd_spec x-bad planning "$(vd_prompt x-bad 'ANSWER {"verdict":"maybe"}')" "output: {$SCHEMA}"
vd_spec x-big planning "$(vd_prompt x-big 'ANSWERFILL 4194304 x')" \
    "output: {maxBytes: 16Mi, maxResultBytes: 1Ki}"
vd_spec x-empty planning "$(vd_prompt x-empty 'ANSWERFILL 0 x')"
vd_spec x-fail planning "$(vd_prompt x-fail FAIL)"

check_eq "x-ok: Succeeded" Succeeded "$(wait_terminal x-ok 300)"
check_eq "x-ok: the answer, from the last-message file, valid" \
    '{"verdict":"pass"} output-last-message true' \
    "$(status_field x-ok .result | jq -c -r '"\(.json | tojson) \(.channel) \(.valid)"')"
check_eq "x-ok: agentctl result prints it" pass \
    "$(actl result x-ok | jq -r .verdict)"

check_eq "x-bad: Failed, capture-failure" "Failed capture-failure" \
    "$(wait_terminal x-bad 300) $(status_field x-bad .stopReason)"
check_eq "x-bad: invalid, the first error's JSON path" 'invalid $.verdict' \
    "$(status_field x-bad .result | jq -r '"\(.problem) \(.errors[0].path)"')"

check_eq "x-big: capture-failure, oversized" "capture-failure oversized" \
    "$(wait_terminal x-big 600 >/dev/null; status_field x-big .stopReason) $(status_field x-big .result.problem)"

check_eq "x-empty: exit 0, capture-failure, missing" "0 capture-failure missing" \
    "$(wait_terminal x-empty 300 >/dev/null; status_field x-empty .exitCode) $(status_field x-empty .stopReason) $(status_field x-empty .result.problem)"

check_eq "x-fail: Failed by the CLI's exit" Failed "$(wait_terminal x-fail 300)"
check "x-fail: a non-zero exit" test "$(status_field x-fail .exitCode)" -ne 0
check_eq "x-fail: an empty file: the result is missing" missing \
    "$(status_field x-fail .result.problem)"
echo "# x-fail: $(status_field x-fail .result.detail)"
ctl_finish
