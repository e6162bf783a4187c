#!/usr/bin/env bash
# build-tls-vendor.sh - agentctl/tls-vendor:VERSION, a test image: FROM
# scratch with the static tls-vendor (tests/images/vendor/tls_vendor.c,
# OpenSSL linked in), the stand-in for the Anthropic and OpenAI APIs that
# tests/integration/vendors/ runs on the egress network. The certificate
# and key are mounted by the test that made them. Not part of the product.
#
#   build-tls-vendor.sh [TAG]    (default agentctl/tls-vendor:VERSION; a
#                                 test that needs this checkout's vendor
#                                 builds it under a tag of its own)
source "$(dirname "$0")/lib.sh"

tag=${1:-agentctl/tls-vendor:$VERSION}

static_build tls-vendor
bin=$(static_bin tls-vendor)
[ -n "$bin" ] || { echo "build-tls-vendor: no static binary" >&2; exit 1; }
if ! file -L "$bin" | grep -q 'statically linked'; then
    echo "build-tls-vendor: $bin is not statically linked" >&2
    exit 1
fi
ctx=$(mktemp -d /tmp/agentctl-tls-vendor-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
cp "$bin" "$ctx/tls-vendor"
touch -d @0 "$ctx/tls-vendor"
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY tls-vendor /tls-vendor
USER 65534:65534
EXPOSE 443
ENTRYPOINT ["/tls-vendor"]
DOCKERFILE
build_image "$tag" "$ctx"
