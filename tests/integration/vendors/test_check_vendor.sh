#!/usr/bin/env bash
# test_check_vendor.sh - agentctl check vendor NAME against the real Claude
# Code CLI and the TLS test vendor, which here requires the test's key
# (TV_API_KEY: any other key gets a 401, as the real API answers).
#
#   right key, the vendor's CA: every step ok (admitted, box verified, CLI
#     started, CLI answered, vendor, valid output), exit 0, the check's
#     spec deleted afterwards;
#   a wrong key: FAILED at the vendor step, in the CLI's words (401);
#   a wrong CA (the system bundle, which does not hold the test CA):
#     FAILED at the vendor step, in the CLI's words;
#   the vendor profile without the vendor's host (the controller restarted
#     with another host in it): FAILED, naming the step and why.
# Negative control: the same check with the right key and CA but a script
# whose answer breaks the check's schema fails at "valid output", so the
# passing run's last step is a real check.
source "$(dirname "$0")/lib_vendors.sh"
VD_VENDOR_ENV=(-e "TV_API_KEY=$CRED_TOKEN")
vd_init claude
ctl_start
(umask 077 && printf 'wrong-%s\n' "$CTL_RUN" >"$SECRETS/wrong-key")

OK_PROMPT=$(vd_prompt chk 'CALL StructuredOutput {"ok":true}')
BAD_PROMPT=$(vd_prompt chk-bad 'ANSWER {"ok":"yes"}')
# check_vendor OUT [ARGS...]: agentctl check vendor claude, into OUT.out,
# its exit status into OUT.rc
check_vendor() {
    local out=$TEST_TMP/$1 rc=0
    shift
    actl check vendor claude --image "$VD_TEST_IMAGE" --timeout 150s "$@" \
        >"$out.out" 2>&1 || rc=$?
    echo "$rc" >"$out.rc"
}
CA=(-e "ANTHROPIC_BASE_URL=https://$VD_HOST"
    -e NODE_EXTRA_CA_CERTS=/etc/agentctl-test/ca.pem)
# the four at once (each its own box); waited for by their PIDs (the
# harness has followers of its own running in the background)
PIDS=()
check_vendor ok --credential "$CRED_NAME" "${CA[@]}" --prompt "$OK_PROMPT" &
PIDS+=($!)
check_vendor bad --credential "$CRED_NAME" "${CA[@]}" --prompt "$BAD_PROMPT" &
PIDS+=($!)
check_vendor key --credential wrong-key "${CA[@]}" --prompt "$OK_PROMPT" &
PIDS+=($!)
check_vendor ca --credential "$CRED_NAME" --prompt "$OK_PROMPT" \
    -e "ANTHROPIC_BASE_URL=https://$VD_HOST" \
    -e NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt &
PIDS+=($!)
wait "${PIDS[@]}"
for c in ok bad key ca; do sed "s/^/# $c: /" "$TEST_TMP/$c.out"; done

check_eq "right key and CA: exit 0" 0 "$(cat "$TEST_TMP/ok.rc")"
for s in admitted "box verified" "CLI started" "CLI answered" "vendor" "valid output"; do
    check "right key and CA: $s ok" grep -q "^ok  *$s" "$TEST_TMP/ok.out"
done
check "right key and CA: passed" grep -q ': passed$' "$TEST_TMP/ok.out"
check_eq "the check's specs are deleted afterwards" "" \
    "$(ls "$SPECS" | grep '^check-' || true)"
check_eq "control: an answer that breaks the schema: exit 1" 1 "$(cat "$TEST_TMP/bad.rc")"
check "control: FAILED at valid output" \
    grep -q '^FAILED  valid output .*result invalid' "$TEST_TMP/bad.out"
check_eq "wrong key: exit 1" 1 "$(cat "$TEST_TMP/key.rc")"
check "wrong key: FAILED at the vendor, in the CLI's words" \
    grep -qiE '^FAILED  vendor .*the CLI reported: .*(401|api key|x-api-key)' \
    "$TEST_TMP/key.out"
check_eq "wrong CA: exit 1" 1 "$(cat "$TEST_TMP/ca.rc")"
check "wrong CA: FAILED at the vendor, in the CLI's words" \
    grep -qE '^FAILED  vendor .*the CLI reported: ' "$TEST_TMP/ca.out"

# the profile without the vendor's host
ctl_stop
sed -i "s|claude: {hosts: \[\"$VD_HOST:443\"\]|claude: {hosts: [\"other.vendor.test:443\"]|" "$CONFIG"
grep -q 'other.vendor.test' "$CONFIG" || fail "the profile was not changed"
ctl_start
check_vendor host --credential "$CRED_NAME" "${CA[@]}" --prompt "$OK_PROMPT"
sed "s/^/# host: /" "$TEST_TMP/host.out"
check_eq "profile without the host: exit 1" 1 "$(cat "$TEST_TMP/host.rc")"
check "profile without the host: FAILED, naming the step" \
    grep -qE '^FAILED  (box verified|vendor) ' "$TEST_TMP/host.out"
ctl_finish
