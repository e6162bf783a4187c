#!/usr/bin/env bash
# build-claude-code.sh - agentctl/claude-code:<CLI version>: FROM scratch
# with the Claude Code CLI binary (npm package
# @anthropic-ai/claude-code-linux-x64 at the version pinned in
# vendor-clis.txt, integrity-checked), the shared libraries `ldd` names for
# it (it is a dynamically linked glibc program; they come from this Debian
# machine), the CA certificate bundle, and nothing else: no shell, no
# package scripts run. Runs as 1000:1000; the controller adds the
# read-only root, /tmp scratch and HOME=/tmp. Skipped with a message when
# the registry cannot be reached (docs/vendor-clis.md).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_npm.sh"

WHO=build-claude-code
TAG=$(pin_field claude-code 2)
ctx=$(mktemp -d /tmp/agentctl-claude-code-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/root/usr/local/bin" "$ctx/root/etc/ssl/certs" "$ctx/root/tmp"
chmod 1777 "$ctx/root/tmp"
npm_fetch_binary "$WHO" claude-code "$ctx/root/usr/local/bin/claude"
copy_ldd_libs "$WHO" "$ctx/root/usr/local/bin/claude" "$ctx/root"
cp /etc/ssl/certs/ca-certificates.crt "$ctx/root/etc/ssl/certs/"
find "$ctx/root" -exec touch -h -d @0 {} +
cat >"$ctx/Dockerfile" <<DOCKERFILE
FROM scratch
LABEL agentctl.dev/recipe=$(cli_recipe "$0")
COPY root/ /
ENV PATH=/usr/local/bin HOME=/tmp
USER 1000:1000
ENTRYPOINT ["/usr/local/bin/claude"]
DOCKERFILE
build_image "agentctl/claude-code:$TAG" "$ctx"
