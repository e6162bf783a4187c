#!/usr/bin/env bash
# build-codex.sh - agentctl/codex:<CLI version>: FROM scratch with the
# Codex CLI binary (npm package @openai/codex, its linux-x64 build at the
# version pinned in vendor-clis.txt, integrity-checked: a static-pie musl
# program, so `ldd` names no library) and its codex-code-mode-host helper
# from the same tarball, the CA certificate bundle, and nothing else: not
# the ripgrep and bubblewrap copies the tarball also carries
# (docs/vendor-clis.md says why), no shell, no package scripts.
# Runs as 1000:1000. Skipped with a message when the registry cannot be
# reached.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_npm.sh"

WHO=build-codex
TAG=$(pin_field codex 2)
CODEX_MEMBER=$(pin_field codex 6)
ctx=$(mktemp -d /tmp/agentctl-codex-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/root/usr/local/bin" "$ctx/root/etc/ssl/certs" "$ctx/root/tmp"
chmod 1777 "$ctx/root/tmp"
npm_fetch_binary "$WHO" codex "$ctx/root/usr/local/bin/codex"
# codex runs the model's tool calls through this helper of its own (code
# mode), looked up next to the codex binary; without it no tool works
npm_extract_member "${CODEX_MEMBER%/codex}/codex-code-mode-host" \
    "$ctx/root/usr/local/bin/codex-code-mode-host"
copy_ldd_libs "$WHO" "$ctx/root/usr/local/bin/codex-code-mode-host" "$ctx/root"
copy_ldd_libs "$WHO" "$ctx/root/usr/local/bin/codex" "$ctx/root"
cp /etc/ssl/certs/ca-certificates.crt "$ctx/root/etc/ssl/certs/"
find "$ctx/root" -exec touch -h -d @0 {} +
cat >"$ctx/Dockerfile" <<DOCKERFILE
FROM scratch
LABEL agentctl.dev/recipe=$(cli_recipe "$0")
COPY root/ /
ENV PATH=/usr/local/bin HOME=/tmp
USER 1000:1000
ENTRYPOINT ["/usr/local/bin/codex"]
DOCKERFILE
build_image "agentctl/codex:$TAG" "$ctx"
