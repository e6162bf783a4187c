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

# Only the daemon of this socket counts: a test's private dockerd (its own
# --host and --pidfile) runs under the same name, and `pgrep -x dockerd`
# took it for this one and never started the machine's (seen: every
# scenario after it failed on a dead socket).
PIDFILE=${DOCKER_PIDFILE:-/var/run/docker.pid}
pid=$(cat "$PIDFILE" 2>/dev/null || true)
if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
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
