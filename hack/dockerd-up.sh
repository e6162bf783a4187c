#!/usr/bin/env bash
# dockerd-up.sh - start dockerd in the background when nothing answers on its
# socket, and wait until it does. Quiet when the daemon is already up.
set -euo pipefail

SOCK=${DOCKER_SOCK:-/var/run/docker.sock}
LOG=${DOCKERD_LOG:-/var/log/agentctl-dockerd.log}

ping_daemon() {
    curl -fsS --max-time 2 --unix-socket "$SOCK" http://localhost/_ping \
        >/dev/null 2>&1
}

ping_daemon && exit 0

if ! pgrep -x dockerd >/dev/null; then
    echo "setup: starting dockerd (log: $LOG)"
    nohup dockerd >>"$LOG" 2>&1 </dev/null &
fi
for _ in $(seq 1 120); do
    ping_daemon && exit 0
    sleep 0.5
done
echo "setup: dockerd did not answer on $SOCK within 60s; last log lines:" >&2
tail -n 20 "$LOG" >&2 || true
exit 1
