#!/usr/bin/env bash
# test_dockerd_restart_kill.sh - test_dockerd_restart.sh with the daemon
# killed (SIGKILL, a crash) instead of stopped.
PD_SIGNAL=KILL exec bash "$(dirname "$0")/test_dockerd_restart.sh"
