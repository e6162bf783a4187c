#!/usr/bin/env bash
# build-probe.sh - agentctl/probe:VERSION: FROM scratch + the static probe
# binary (images/probe.c), the short-lived container that proves
# an invocation's boundary from the agent's side before the agent starts.
# No /etc files: Docker mounts resolv.conf, which the probe's DNS check
# reads; the controller sets the user. PROBE_TAG=agentctl/probe:dev builds
# under another tag (try a change there before the shared VERSION tag).
source "$(dirname "$0")/lib.sh"

static_build probe
bin=$(static_bin probe)
[ -n "$bin" ] || { echo "build-probe: no static binary" >&2; exit 1; }
if ! file -L "$bin" | grep -q 'statically linked'; then
    echo "build-probe: $bin is not statically linked" >&2
    exit 1
fi
ctx=$(mktemp -d /tmp/agentctl-probe-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
cp "$bin" "$ctx/probe"
touch -d @0 "$ctx/probe"
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY probe /probe
USER 65534:65534
ENTRYPOINT ["/probe"]
DOCKERFILE
build_image "${PROBE_TAG:-agentctl/probe:$VERSION}" "$ctx"
