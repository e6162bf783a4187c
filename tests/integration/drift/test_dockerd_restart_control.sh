#!/usr/bin/env bash
# test_dockerd_restart_control.sh - the negative control of
# test_dockerd_restart.sh: with the exit confirmation and "lost first"
# switched off in the test-hooks controller, the lost agent must be
# misreported (the test can fail).
PD_CONTROL=1 exec bash "$(dirname "$0")/test_dockerd_restart.sh"
