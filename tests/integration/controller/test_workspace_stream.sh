#!/usr/bin/env bash
# test_workspace_stream.sh - a big workspace (WS_STREAM_MIB, default 320
# MiB, made in the test's own tmp dir) is checked, packed and uploaded
# without the controller holding it: its peak RSS (VmHWM) stays under
# RSS_BOUND_MIB (default 64), far below the workspace's size, the attempt
# Succeeds with its files in place and GitIntact (the .git digest taken
# while streaming equals the one read back). /healthz is sampled all along
# and reported, never timed.
#
# Negative control (test-hooks build): AGENTCTL_TEST_DISABLE=
# workspace-stream puts back the buffered upload (the archive in one
# buffer on the loop): the same upload then peaks above the workspace's
# size, so the bound is what the stream buys.
source "$(dirname "$0")/lib_controller.sh"
source "$(dirname "$0")/lib_wsupload.sh"
MIB=${WS_STREAM_MIB:-320}
BOUND_KB=$((${RSS_BOUND_MIB:-64} * 1024))
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
ctl_init
ws_make_large "$WS_ROOT/large" "$MIB"
echo "# workspace: $(du -sm "$WS_ROOT/large" | cut -f1) MiB"

if [ -x "$TESTHOOKS" ]; then
    CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE=workspace-stream ctl_start
    ws_upload_run buffered large 512Mi
    check_eq "control: the buffered upload Succeeds too" Succeeded "$UP_PHASE"
    check "control: the buffered upload peaks at ${UP_HWM_KB} kB, over the ${MIB} MiB workspace" \
        test "$UP_HWM_KB" -gt $((MIB * 1024))
    ctl_stop
else
    echo "# skip: the negative control needs $TESTHOOKS"
fi

ctl_start
ws_upload_run stream large 512Mi
check_eq "streamed: the attempt Succeeded" Succeeded "$UP_PHASE"
check_match "streamed: the agent wrote to /work" "write_work: ok" \
    "$(agent_output stream)"
check_eq "streamed: GitIntact (digest of the bytes sent = read back)" \
    DigestsEqual "$UP_GIT"
check "streamed: peak RSS ${UP_HWM_KB} kB under ${BOUND_KB} kB" \
    test "$UP_HWM_KB" -gt 0 -a "$UP_HWM_KB" -lt "$BOUND_KB"
check "streamed: /healthz answered during the upload ($UP_HZ_N times)" \
    test "$UP_HZ_N" -gt 0
ctl_finish
