#!/usr/bin/env bash
# images.sh - build every image the project runs, from its own sources, with
# no registry pull: each hack/images/build-*.sh makes one image FROM scratch.
# Needs a built tree (build-static/ is made here for the static binaries).
#
#   hack/images.sh               build them all
#   hack/images.sh --save DIR    then `docker save` the helper images the
#                                Debian package can carry (packaging/
#                                images.txt) as DIR/NAME.tar, for
#                                -DAGENTCTL_PACKAGE_IMAGES=DIR
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
save_dir=
case "${1:-}" in
--save) [ -n "${2:-}" ] || { echo "usage: images.sh [--save DIR]" >&2; exit 2; }
    save_dir=$2 ;;
"") ;;
*) echo "usage: images.sh [--save DIR]" >&2; exit 2 ;;
esac
"$ROOT/hack/dockerd-up.sh"
for s in "$ROOT"/hack/images/build-*.sh; do
    [ -e "$s" ] || continue
    echo "== $(basename "$s")"
    bash "$s"
done
[ -z "$save_dir" ] || "$ROOT/hack/images/save-helpers.sh" "$save_dir"
