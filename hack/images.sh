#!/usr/bin/env bash
# images.sh - build every image the project runs, from its own sources, with
# no registry pull: each hack/images/build-*.sh makes one image FROM scratch.
# Needs a built tree (build-static/ is made here for the static binaries).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/hack/dockerd-up.sh"
for s in "$ROOT"/hack/images/build-*.sh; do
    [ -e "$s" ] || continue
    echo "== $(basename "$s")"
    bash "$s"
done
