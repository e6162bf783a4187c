#!/usr/bin/env bash
# test_controller_image.sh - agentctl/agent-controller:VERSION (the image
# of the Kubernetes DaemonSet, hack/images/build-agent-controller.sh) runs
# the whole job: as a container with the Docker socket and the scenario's
# directories mounted at their own paths, read-only root, no capabilities,
# it answers /healthz, runs an invocation to Succeeded through the proxy
# to the test vendor, cleans up, and stops cleanly on SIGTERM.
source "$(dirname "$0")/../controller/lib_controller.sh"
IMG=agentctl/agent-controller:$VERSION
docker image inspect "$IMG" >/dev/null 2>&1 ||
    skip "$IMG not built (hack/images/build-agent-controller.sh)"
check_eq "its entrypoint is agent-controller" \
    '["/usr/local/bin/agent-controller"]' \
    "$(docker image inspect -f '{{json .Config.Entrypoint}}' "$IMG")"
check_eq "agentctl is in it too" "agentctl version $VERSION" \
    "$(docker run --pull never --rm --label "$TEST_LABEL" \
        --entrypoint /usr/local/bin/agentctl "$IMG" version)"
ctl_init

# Host network: /metrics on loopback; the controller's objects are made
# by the daemon, not in this container's namespace.
ctr=$(docker run --pull never -d --label "$TEST_LABEL" --network host \
    --read-only --cap-drop ALL --security-opt no-new-privileges \
    -v /var/run/docker.sock:/var/run/docker.sock -v "$TEST_TMP:$TEST_TMP" \
    "$IMG" --specs "$SPECS" --state "$STATE" --config "$CONFIG" \
    --resync 1s --metrics "$CTL_METRICS" --controller-id "$CTL_ID")
# The helpers watch CTL_PID for a controller that died: here a `docker
# wait` that lives as long as the container runs.
docker wait "$ctr" >/dev/null 2>&1 &
CTL_PID=$!
h=
for _ in $(seq 1 120); do # readiness, not a timed assertion
    h=$(curl -fsS --max-time 2 "http://$CTL_METRICS/healthz" 2>/dev/null) &&
        break
    sleep 0.25
done
check_match "healthz: Docker reachable from the image" 'docker: ok' "$h"

apply_spec img execute "command: [/demo-agent]" \
    "workspace: {source: small, size: 16Mi, inodes: 1000}"
wait_phase img Succeeded 240
check_match "img: the agent reached the vendor through the proxy" \
    "vendor_body: $VENDOR_TOKEN" "$(agent_output img)"
check_no_objects "img: nothing of it left" "agentctl.dev/uid=$(inv_uid img)" 60

docker stop -t 30 "$ctr" >/dev/null
wait "$CTL_PID" 2>/dev/null || true
CTL_PID=
check_eq "it stops on SIGTERM with status 0" 0 \
    "$(docker inspect -f '{{.State.ExitCode}}' "$ctr")"
check_match "its log says why it stopped" 'SIGTERM' "$(docker logs "$ctr" 2>&1)"
