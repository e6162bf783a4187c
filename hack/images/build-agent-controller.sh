#!/usr/bin/env bash
# build-agent-controller.sh - agentctl/agent-controller:VERSION, the image
# the Kubernetes DaemonSet runs (manifests/kubernetes/daemonset.yaml):
# FROM scratch with agent-controller and agentctl and exactly the shared
# libraries they load, copied from this machine at their own paths (ldd),
# plus the dynamic loader. Not static like the proxy: libcurl, libarchive
# and libmicrohttpd bring dependencies (nghttp2, gnutls, ...) that Debian
# ships no static archives of. glibc 2.36 has its NSS files/dns modules
# built in, so etcd host names resolve with no /etc/nsswitch.conf. Runs
# as the user the manifest sets (root for the Docker socket).
source "$(dirname "$0")/lib.sh"

BUILD=${AGENTCTL_BUILD:-$ROOT/build}
cmake --build "$BUILD" --target agent-controller agentctl >/dev/null
ctx=$(mktemp -d /tmp/agentctl-controller-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/root/usr/local/bin" "$ctx/root/tmp"
for b in controller/agent-controller cli/agentctl; do
    cp "$BUILD/$b" "$ctx/root/usr/local/bin/${b#*/}"
    strip "$ctx/root/usr/local/bin/${b#*/}"
done
# Every library either binary loads, and the loader, at the same path.
ldd "$ctx"/root/usr/local/bin/* | awk '
    $2 == "=>" && $3 ~ /^\// { print $3 }
    $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u | while read -r lib; do
    mkdir -p "$ctx/root$(dirname "$lib")"
    cp -L "$lib" "$ctx/root$lib"
done
if ldd "$ctx"/root/usr/local/bin/* | grep -q 'not found'; then
    echo "build-agent-controller: a library is missing" >&2
    exit 1
fi
find "$ctx/root" -exec touch -h -d @0 {} +
chmod 1777 "$ctx/root/tmp"
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY root/ /
EXPOSE 9464
ENTRYPOINT ["/usr/local/bin/agent-controller"]
DOCKERFILE
build_image "agentctl/agent-controller:$VERSION" "$ctx"
