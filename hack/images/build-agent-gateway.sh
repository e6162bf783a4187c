#!/usr/bin/env bash
# build-agent-gateway.sh - agentctl/agent-gateway:VERSION: FROM scratch with
# only the static agent-gateway (glibc, libev, c-ares, OpenSSL linked in)
# and the build machine's CA bundle at /etc/ssl/certs/ca-certificates.crt
# (the default --ca-file). Runs as nobody (numeric). docs/gateway.md.
#
#   build-agent-gateway.sh [TAG]    (default agentctl/agent-gateway:VERSION)
source "$(dirname "$0")/lib.sh"

tag=${1:-agentctl/agent-gateway:$VERSION}
ca=/etc/ssl/certs/ca-certificates.crt
[ -s "$ca" ] || { echo "build-agent-gateway: no CA bundle at $ca" >&2; exit 1; }
static_build agent-gateway
bin=$(static_bin agent-gateway)
[ -n "$bin" ] || { echo "build-agent-gateway: no static binary" >&2; exit 1; }
if ! file -L "$bin" | grep -q 'statically linked'; then
    echo "build-agent-gateway: $bin is not statically linked" >&2
    exit 1
fi
ctx=$(mktemp -d /tmp/agentctl-agent-gateway-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/root/etc/ssl/certs"
cp "$bin" "$ctx/root/agent-gateway"
strip "$ctx/root/agent-gateway"
cp "$ca" "$ctx/root/etc/ssl/certs/ca-certificates.crt"
chmod 0444 "$ctx/root/etc/ssl/certs/ca-certificates.crt"
find "$ctx/root" -exec touch -h -d @0 {} +
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY root/ /
USER 65534:65534
EXPOSE 8080
ENTRYPOINT ["/agent-gateway"]
DOCKERFILE
build_image "$tag" "$ctx"
