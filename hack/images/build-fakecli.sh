#!/usr/bin/env bash
# build-fakecli.sh - agentctl/fakecli:VERSION, a test image: FROM scratch
# plus tests/images/fake_vendor_cli.c installed as the vendor CLIs the
# adapters run (claude and codex on PATH, /agent for the generic adapter).
# It reports what it was given and what the box let it do;
# tests/integration/controller/test_adapters.sh and test_phase_policy.sh
# read that. A static busybox as /bin/sh is there for a runner to use and
# for the fake CLI to try (and be refused). Not part of the product.
source "$(dirname "$0")/lib.sh"

static_build fake-vendor-cli
ctx=$(mktemp -d /tmp/agentctl-fakecli-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
BUSYBOX=${BUSYBOX:-/bin/busybox}
file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' || {
    echo "build-fakecli: $BUSYBOX is not a static busybox;" \
        "run hack/setup.sh (package busybox-static)" >&2
    exit 1
}
mkdir -p "$ctx/root/usr/local/bin" "$ctx/root/bin"
cp "$(static_bin fake-vendor-cli)" "$ctx/root/agent"
cp "$BUSYBOX" "$ctx/root/bin/busybox"
for a in sh echo id touch cat; do
    ln -s busybox "$ctx/root/bin/$a"
done
ln -s /agent "$ctx/root/usr/local/bin/claude"
ln -s /agent "$ctx/root/usr/local/bin/codex"
find "$ctx/root" -exec touch -h -d @0 {} +
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY root/ /
ENV PATH=/usr/local/bin:/bin
ENTRYPOINT ["/agent"]
DOCKERFILE
build_image "agentctl/fakecli:$VERSION" "$ctx"
