#!/usr/bin/env bash
# run.sh - the main job (README command a).
#
# Builds agentctl, checks every example in manifests/examples/, applies them
# into a specs directory and shows them with `agentctl get`. Once the
# controller lands (issue 4), this script also starts it on that directory.
# AGENTCTL_SPECS picks the directory (default build/demo/specs).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build
SPECS=${AGENTCTL_SPECS:-$B/demo/specs}

cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$B" -j "$(nproc)" --target agentctl >/dev/null
AGENTCTL=$B/controller/agentctl
mkdir -p "$SPECS"

echo "\$ agentctl validate -f manifests/examples/"
"$AGENTCTL" validate -f "$ROOT/manifests/examples/"
echo
echo "\$ agentctl --specs $SPECS apply -f manifests/examples/"
"$AGENTCTL" --specs "$SPECS" apply -f "$ROOT/manifests/examples/"
echo
echo "\$ agentctl --specs $SPECS get -o wide"
"$AGENTCTL" --specs "$SPECS" get -o wide
