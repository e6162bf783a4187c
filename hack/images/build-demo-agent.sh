#!/usr/bin/env bash
# build-demo-agent.sh - agentctl/demo-agent:VERSION: FROM scratch + the
# static demo-agent binary (images/demo_agent.c), the agent the
# README's main job and the tests run.
source "$(dirname "$0")/lib.sh"

static_build demo-agent
ctx=$(mktemp -d /tmp/agentctl-demo-agent-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
cp "$(static_bin demo-agent)" "$ctx/demo-agent"
touch -d @0 "$ctx/demo-agent"
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY demo-agent /demo-agent
ENTRYPOINT ["/demo-agent"]
DOCKERFILE
build_image "agentctl/demo-agent:$VERSION" "$ctx"
