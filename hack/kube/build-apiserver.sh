#!/usr/bin/env bash
# build-apiserver.sh - a real kube-apiserver for the Kubernetes API server
# store's tests: built from Debian's `kubernetes` source package (upstream
# 1.20.2 with its whole vendor tree) with Debian's Go, once, and cached
# outside the checkout, keyed by the source version and this script's
# patches. Prints the binary's path. No registry, no module download: the
# source comes from Debian's archive, the two patches from Debian's
# packages and from a sed.
#
#   hack/kube/build-apiserver.sh      (about 12 min on 2 cores the first
#                                      time; 1.5 GB of build files, removed)
#
# The apt configuration of the machine is not touched: the deb-src entries
# (the same URIs and suites as the machine's own Debian entries) and their
# lists live in a private apt directory under the cache.
#
# Two traps of this tree under Go >= 1.16/1.18, both patched here:
#  - the vendored github.com/modern-go/reflect2 1.0.1 crashes in map
#    iteration under Go >= 1.18: Debian's golang-github-modern-go-reflect2-dev
#    (1.0.2) is copied over it;
#  - kube-openapi's type validator of that age treats "" as null under
#    Go >= 1.16, so a custom resource with an empty string is refused
#    (kubernetes/kubernetes#99804; fixed upstream by kube-openapi#230,
#    which drops the zero-value test): the same line is dropped here.
# And `rsync` must be installed: without it the code generators' step
# fails with "prerelease-lifecycle-gen: Permission denied" and leaves a
# tree that fails the same way until _output is removed.
set -euo pipefail

CACHE=${AGENTCTL_KUBE_CACHE:-/var/cache/agentctl/kube}
PATCH_KEY=$(sha256sum "$0" | cut -c1-12)
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9

apt_dir=$CACHE/apt
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o "Dir::Etc::SourceParts=$apt_dir/empty"
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache")
source_version() {
    apt-cache "${apt_opts[@]}" showsrc kubernetes 2>/dev/null |
        sed -n "s/^Version: //p" | sort -V | tail -n 1 || true
}

# The private deb-src list, written from the machine's Debian entries.
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache" "$apt_dir/empty"
{
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\(http[^ ]*debian[^ ]*\) \(.*\)$/deb-src \1\2 \3/p' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk '/^URIs:/ { u = $2 } /^Suites:/ { $1 = ""; s = $0 }
             /^Components:/ { $1 = ""; c = $0 }
             /^$/ { if (u ~ /debian/) print "deb-src " u s c; u = "" }
             END { if (u ~ /debian/) print "deb-src " u s c }' "$f"
    done
} | sed 's/  */ /g' | sort -u >"$apt_dir/sources.list"
[ -s "$apt_dir/sources.list" ] || {
    echo "build-apiserver: no Debian entry in /etc/apt to mirror as deb-src" >&2
    exit 1
}

version=$(source_version)
if [ -z "$version" ]; then
    apt-get "${apt_opts[@]}" update -qq >&2 || {
        echo "build-apiserver: apt-get update of the deb-src lists failed" >&2
        exit 1
    }
    version=$(source_version)
fi
[ -n "$version" ] || { echo "build-apiserver: no kubernetes source package" >&2; exit 1; }
out=$CACHE/kube-apiserver-$version-$PATCH_KEY
if [ -x "$out/kube-apiserver" ]; then
    echo "$out/kube-apiserver"
    exit 0
fi

need=()
for p in golang-go rsync dpkg-dev golang-github-modern-go-reflect2-dev; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi

work=$CACHE/build
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get "${apt_opts[@]}" source -qq "kubernetes=$version") >&2
src=$(find "$work" -maxdepth 1 -mindepth 1 -type d -name 'kubernetes-*' | head -n 1)
[ -n "$src" ] || { echo "build-apiserver: apt-get source left no tree" >&2; exit 1; }

r2=$src/vendor/github.com/modern-go/reflect2
rm -rf "$r2"
cp -r /usr/share/gocode/src/github.com/modern-go/reflect2 "$r2"
tv=$src/vendor/k8s.io/kube-openapi/pkg/validation/validate/type.go
grep -q 'reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data))' "$tv" || {
    echo "build-apiserver: $tv does not hold the line to patch" >&2
    exit 1
}
sed -i 's/if data == nil || reflect.DeepEqual(reflect.Zero(reflect.TypeOf(data)), reflect.ValueOf(data)) {/if data == nil {/' "$tv"

(cd "$src" && GO111MODULE=off make WHAT=cmd/kube-apiserver) >&2
mkdir -p "$out.tmp"
cp "$src/_output/bin/kube-apiserver" "$out.tmp/"
mv "$out.tmp" "$out"
echo "$out/kube-apiserver"
