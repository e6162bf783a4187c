#!/usr/bin/env bash
# test_result_sparse.sh - a Codex result file that is a sparse terabyte
# (`truncate -s 1T`: it fits any tmpfs, and Docker's archive streams its
# holes as zeros) is refused as oversized as soon as the bytes read pass
# spec.output.maxResultBytes: the controller cancels the archive's read
# (controller/out/out_resultread.c), so the attempt ends in seconds with
# capture-failure instead of waiting while a terabyte moves.
#
# The fake CLI (agentctl/fakecli, as codex) writes its last-message file
# and then makes it sparse (CODEX_FAKE_SPARSE).
#
# Negative control: the test-hooks controller with the cut disabled
# (AGENTCTL_TEST_DISABLE=result-stream-cut) keeps reading: the same
# attempt has not ended when the protected one long had.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
[ -x "$BUILD/controller/agent-controller-testhooks" ] ||
    skip "agent-controller-testhooks not built"
FAKECLI=agentctl/fakecli:$VERSION
sed -i '/^vendors:/a\
  codex: {hosts: ["vendor.test:443"], allowPrivate: true}' "$CONFIG"
ctl_start

sparse_spec() { # NAME
    apply_spec "$1" planning "vendor: codex" "image: $FAKECLI" \
        "prompt: review it" "deadlineSeconds: 600" \
        "env: {CODEX_FAKE_SPARSE: \"1099511627776\"}"
}

sparse_spec rs-cut
t0=$SECONDS
check_eq "a sparse terabyte as the result: Failed" Failed "$(wait_terminal rs-cut 120)"
took=$((SECONDS - t0))
echo "# ended after ${took}s"
check_eq "... stopReason capture-failure" capture-failure \
    "$(status_field rs-cut .stopReason)"
check_eq "... the result is oversized" oversized \
    "$(status_field rs-cut .result.problem)"
check_match "... the detail names the bound" "maxResultBytes" \
    "$(status_field rs-cut .result.detail)"
check_no_objects "... and its box is removed" "$MANAGED" 60
ctl_stop

# The control: the same file, the cut disabled. Its attempt is still
# reading well after the protected one ended (at 1 TB it would read for
# many minutes). The controller is then stopped: its box goes with the
# scenario's clean-up (a delete would wait for the read to end).
AGENTCTL_TEST_DISABLE=result-stream-cut "$BUILD/controller/agent-controller-testhooks" \
    --specs "$SPECS" --state "$STATE" --config "$CONFIG" --resync 1s \
    --controller-id "$CTL_ID" >>"$CTL_LOG" 2>&1 &
CTL_PID=$!
sparse_spec rs-uncut
wait_phase rs-uncut Running 120
sleep $((took + 20))
check_eq "(control) without the cut the attempt is still reading $((took + 20))s on" \
    Running "$(status_field rs-uncut .phase)"
ctl_stop
