#!/usr/bin/env bash
# test_dockerd_restart_kill.sh - test_dockerd_restart.sh with the daemon
# killed (SIGKILL, a crash) instead of stopped. Extended: one more daemon
# restart (~2 min), so AGENTCTL_TEST_EXTENDED=1 runs it.
[ -n "${AGENTCTL_TEST_EXTENDED:-}" ] || {
    echo "extended scenario: set AGENTCTL_TEST_EXTENDED=1 to run it"
    exit 77
}
PD_SIGNAL=KILL exec bash "$(dirname "$0")/test_dockerd_restart.sh"
