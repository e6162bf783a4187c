# lib.sh - helpers for hack/images/build-*.sh (source it).
#
# Images are made FROM scratch out of a context directory that a build
# script fills with static binaries from build-static/ (a separate CMake
# tree configured with -DAGENTCTL_STATIC=ON), plus files the script writes.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VERSION=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' \
    "$ROOT/CMakeLists.txt")
STATIC_BUILD=$ROOT/build-static

# static_build TARGET...: build the named targets as static binaries.
# Serialised with flock so image scripts may run side by side.
static_build() {
    mkdir -p "$STATIC_BUILD"
    (
        flock 9
        cmake -S "$ROOT" -B "$STATIC_BUILD" -DAGENTCTL_STATIC=ON \
            -DCMAKE_BUILD_TYPE=Release >/dev/null
        cmake --build "$STATIC_BUILD" -j "$(nproc)" --target "$@"
    ) 9>"$STATIC_BUILD.lock"
}

# static_bin TARGET: path of a target built by static_build.
static_bin() {
    find "$STATIC_BUILD" -type f -name "$1" -perm -u+x | head -n 1
}

# build_image TAG CONTEXT_DIR: docker build with no pulls (FROM scratch
# only), labelled so the images can be listed and removed together.
build_image() {
    docker build -q --label agentctl.dev/image=true -t "$1" "$2" >/dev/null
    echo "built $1 ($(docker image inspect -f '{{.Size}}' "$1") bytes)"
}
