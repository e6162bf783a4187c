#!/usr/bin/env bash
# build-egress-proxy.sh - agentctl/egress-proxy:VERSION: FROM scratch with
# only the static egress-proxy binary (glibc, libev, c-ares linked in; no
# NSS lookups at run time: c-ares reads /etc/resolv.conf and /etc/hosts,
# which Docker mounts). Runs as nobody (numeric, no /etc/passwd needed).
source "$(dirname "$0")/lib.sh"

static_build egress-proxy
bin=$(static_bin egress-proxy)
[ -n "$bin" ] || { echo "build-egress-proxy: no static binary" >&2; exit 1; }
if ! file -L "$bin" | grep -q 'statically linked'; then
    echo "build-egress-proxy: $bin is not statically linked" >&2
    exit 1
fi
ctx=$(mktemp -d /tmp/agentctl-egress-proxy-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
cp "$bin" "$ctx/egress-proxy"
strip "$ctx/egress-proxy"
touch -d @0 "$ctx/egress-proxy"
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY egress-proxy /egress-proxy
USER 65534:65534
EXPOSE 3128
ENTRYPOINT ["/egress-proxy"]
DOCKERFILE
build_image "agentctl/egress-proxy:$VERSION" "$ctx"
