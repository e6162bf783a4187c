#!/usr/bin/env bash
# build-testbox.sh - agentctl/testbox:VERSION: FROM scratch + Debian's
# static busybox (package busybox-static, installed by hack/setup.sh) with
# links for the applets the tests use: shells for test containers and the
# test vendor (httpd). Not part of the product.
source "$(dirname "$0")/lib.sh"

BUSYBOX=${BUSYBOX:-/bin/busybox}
APPLETS=(sh ls cat echo mkdir rm mv ln touch id sleep nc wget httpd dd df
    find grep sed head tail wc sha256sum stat mount true false kill ps env
    printf test '[' tr cut sort xargs timeout nslookup ip ifconfig route cp
    chmod date tar)

if ! file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked'; then
    echo "build-testbox: $BUSYBOX is not a static busybox;" \
        "run hack/setup.sh (package busybox-static)" >&2
    exit 1
fi
ctx=$(mktemp -d /tmp/agentctl-testbox-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/root/bin" "$ctx/root/tmp" "$ctx/root/www"
chmod 1777 "$ctx/root/tmp"
cp "$BUSYBOX" "$ctx/root/bin/busybox"
for a in "${APPLETS[@]}"; do
    ln -s busybox "$ctx/root/bin/$a"
done
# Fixed mtimes so docker's layer cache hits when nothing changed.
find "$ctx/root" -exec touch -h -d @0 {} +
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY root/ /
ENV PATH=/bin
CMD ["sh"]
DOCKERFILE
build_image "agentctl/testbox:$VERSION" "$ctx"
