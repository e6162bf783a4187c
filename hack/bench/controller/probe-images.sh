#!/usr/bin/env bash
# probe-images.sh - the probe images the benchmarks compare, built from
# source (FROM scratch, one static binary, no pulls), so a run can put the
# probe of any commit beside today's:
#   probe-images.sh rev REV TAG   images/probe*.c as of git REV -> TAG
#   probe-images.sh tree TAG      images/probe*.c of this checkout -> TAG
#   probe-images.sh noop TAG      a probe that does no work: prints a line
#                                 and exits 0 (the floor's probe)
# Each binary is compiled the same way (cc -static -O2 -s), so the images
# differ only in what the probe does.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
ctx=$(mktemp -d /tmp/agentctl-bench-probe.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
mkdir "$ctx/src"

case ${1:-} in
rev)
    [ $# -eq 3 ] || { echo "usage: $0 rev REV TAG" >&2; exit 2; }
    for f in $(git -C "$ROOT" ls-tree --name-only "$2" images/ |
        grep -E '^images/probe[a-z_]*\.[ch]$'); do
        git -C "$ROOT" show "$2:$f" >"$ctx/src/${f#images/}"
    done
    tag=$3
    ;;
tree)
    [ $# -eq 2 ] || { echo "usage: $0 tree TAG" >&2; exit 2; }
    cp "$ROOT"/images/probe*.[ch] "$ctx/src/"
    tag=$2
    ;;
noop)
    [ $# -eq 2 ] || { echo "usage: $0 noop TAG" >&2; exit 2; }
    cat >"$ctx/src/noop.c" <<'C'
#include <stdio.h>
int main(void) { puts("{\"verdict\":\"noop\"}"); return 0; }
C
    tag=$2
    ;;
*)
    echo "usage: $0 rev REV TAG | tree TAG | noop TAG" >&2
    exit 2
    ;;
esac
ls "$ctx"/src/*.c >/dev/null 2>&1 || { echo "no probe sources" >&2; exit 1; }
cc -static -O2 -s -o "$ctx/probe" "$ctx"/src/*.c
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY probe /probe
USER 65534:65534
ENTRYPOINT ["/probe"]
DOCKERFILE
rm -rf "$ctx/src"
docker build -q --label agentctl.dev/image=true -t "$tag" "$ctx" >/dev/null
echo "$tag"
