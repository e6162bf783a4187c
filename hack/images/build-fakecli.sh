#!/usr/bin/env bash
# build-fakecli.sh - agentctl/fakecli:VERSION, a test image: FROM scratch
# plus tests/images/fake_vendor_cli.c installed as the vendor CLIs the
# adapters run (claude and codex on PATH, /agent for the generic adapter).
# It reports what it was given; tests/integration/controller/
# test_adapters.sh reads that. Not part of the product.
source "$(dirname "$0")/lib.sh"

static_build fake-vendor-cli
ctx=$(mktemp -d /tmp/agentctl-fakecli-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/root/usr/local/bin"
cp "$(static_bin fake-vendor-cli)" "$ctx/root/agent"
ln -s /agent "$ctx/root/usr/local/bin/claude"
ln -s /agent "$ctx/root/usr/local/bin/codex"
find "$ctx/root" -exec touch -h -d @0 {} +
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY root/ /
ENV PATH=/usr/local/bin
ENTRYPOINT ["/agent"]
DOCKERFILE
build_image "agentctl/fakecli:$VERSION" "$ctx"
