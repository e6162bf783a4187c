#!/usr/bin/env bash
# save-helpers.sh - `docker save` the helper images the Debian package can
# carry (packaging/images.txt) as DIR/NAME.tar, for
# -DAGENTCTL_PACKAGE_IMAGES=DIR. The images must be built (hack/images.sh).
#
#   hack/images/save-helpers.sh DIR
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 1 ] || { echo "usage: save-helpers.sh DIR" >&2; exit 2; }
version=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")
mkdir -p "$1"
grep '^[a-z]' "$ROOT/packaging/images.txt" | while read -r name; do
    docker save -o "$1/$name.tar" "agentctl/$name:$version" || {
        echo "save-helpers: cannot save agentctl/$name:$version (hack/images.sh builds it)" >&2
        exit 1
    }
    echo "saved agentctl/$name:$version as $1/$name.tar"
done
