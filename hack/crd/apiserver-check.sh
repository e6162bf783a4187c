#!/usr/bin/env bash
# apiserver-check.sh - check a CRD with the API server's own validation
# code, offline: hack/crd/crdcheck/main.go built inside Debian's
# `kubernetes` source package (upstream 1.20, whole vendor/ tree) with
# Debian's golang-go in GOPATH mode.
#
#   hack/crd/apiserver-check.sh --build     fetch the source, build
#                                           build/crdcheck (minutes)
#   hack/crd/apiserver-check.sh CRD.yaml    check (exit 0 admitted, 1 not)
#
# 1.20 predates CEL: x-kubernetes-validations are removed from the copy it
# checks (hack/crd/check-structural.py checks their shape). Two traps of
# that tree under Go >= 1.18 are handled: the vendored modern-go/reflect2
# 1.0.1 crashes in map iteration (Debian's 1.0.2 replaces it).
# Needs deb-src for bookworm and the packages golang-go,
# golang-github-modern-go-reflect2-dev and dpkg-dev.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${AGENTCTL_BUILD:-$ROOT/build}
BIN=$OUT/crdcheck

build() {
    local work=$OUT/k8s-src gp
    mkdir -p "$work"
    if [ ! -d "$work/src" ]; then
        (cd "$work" && apt-get source --download-only kubernetes >/dev/null &&
            dpkg-source --no-check -x kubernetes_*.dsc src >/dev/null)
    fi
    gp=$work/gopath
    mkdir -p "$gp/src/k8s.io"
    ln -sfn "$work/src" "$gp/src/k8s.io/kubernetes"
    rm -rf "$work/src/vendor/github.com/modern-go/reflect2"
    cp -r /usr/share/gocode/src/github.com/modern-go/reflect2 \
        "$work/src/vendor/github.com/modern-go/reflect2"
    mkdir -p "$work/src/cmd/crdcheck"
    cp "$ROOT/hack/crd/crdcheck/main.go" "$work/src/cmd/crdcheck/main.go"
    (cd "$gp/src/k8s.io/kubernetes" &&
        GOPATH=$gp GO111MODULE=off go build -o "$BIN" ./cmd/crdcheck)
    echo "apiserver-check: built $BIN"
}

check() {
    local crd=$1
    [ -x "$BIN" ] || { echo "apiserver-check: no $BIN; run $0 --build" >&2; exit 2; }
    TMP=$(mktemp --suffix=.yaml)
    trap 'rm -f "$TMP"' EXIT
    /usr/bin/python3 - "$crd" "$TMP" <<'PY'
import sys, yaml
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k != "x-kubernetes-validations"}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
yaml.safe_dump(strip(yaml.safe_load(open(sys.argv[1]))), open(sys.argv[2], "w"))
PY
    "$BIN" "$TMP" | sed "s|^$TMP|$crd|"
}

case ${1:-} in
--build) build ;;
'' | -h | --help) sed -n '2,17p' "$0"; exit 2 ;;
*) check "$1" ;;
esac
