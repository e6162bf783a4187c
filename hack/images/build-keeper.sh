#!/usr/bin/env bash
# build-keeper.sh - agentctl/keeper:VERSION: FROM scratch + the static
# keeper binary, which holds an invocation's tmpfs volumes mounted for the
# whole attempt (docs/docker-notes.md section 6). Empty /work and /tmp are
# copied in as mount targets: a scratch image has no directories and no
# shell to make them.
source "$(dirname "$0")/lib.sh"

static_build keeper
ctx=$(mktemp -d /tmp/agentctl-keeper-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
cp "$(static_bin keeper)" "$ctx/keeper"
mkdir -p "$ctx/dirs/work" "$ctx/dirs/tmp"
# Fixed mtimes so docker's layer cache hits when nothing changed.
chmod 1777 "$ctx/dirs/tmp"
touch -d @0 "$ctx/keeper" "$ctx/dirs/work" "$ctx/dirs/tmp"
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY dirs/ /
COPY keeper /keeper
ENTRYPOINT ["/keeper"]
DOCKERFILE
build_image "agentctl/keeper:$VERSION" "$ctx"
