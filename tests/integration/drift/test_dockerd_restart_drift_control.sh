#!/usr/bin/env bash
# test_dockerd_restart_drift_control.sh - the negative control of the
# drift confirmation (controller/drift/drift.c): with it switched off in
# the test-hooks controller, the round that the dying daemon's own events
# ask for sees its teardown on an old connection and the lost agent is
# misreported as boundary-drift (seen 2 of 2 on 2026-12-06).
PD_CONTROL=1 PD_DISABLE=drift-confirmation \
    exec bash "$(dirname "$0")/test_dockerd_restart.sh"
