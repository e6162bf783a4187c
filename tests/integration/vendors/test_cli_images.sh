#!/usr/bin/env bash
# test_cli_images.sh - the vendor CLI images (hack/images/build-claude-code.sh,
# build-codex.sh) from the pins in hack/images/vendor-clis.txt:
#
#   each image holds exactly the CLI's files, its libraries, the CA bundle
#   (nothing else: no shell), runs as 1000:1000 and prints the pinned
#   version with a read-only root, no capabilities and no-new-privileges;
#   it carries the recipe label of this checkout.
#
# Negative controls: a pin whose integrity does not match the tarball is
# refused (exit 1, no image); an unreachable registry is a skip with the
# reason (exit 0, "skipped:"). Both use an empty npm cache, so the
# registry is asked; the doctored pin is a copy, never the repository's.
source "$(dirname "$0")/lib_vendors.sh"
need_docker
command -v npm >/dev/null || skip "npm not installed"

for img in claude-code codex; do
    vd_need_cli_image "$img"
    ref=$VD_CLI_IMAGE
    ver=$(vd_pin "$img" 4)
    ver=${ver%-linux-x64}
    files=$(docker create --label "$TEST_LABEL" "$ref" >"$TEST_TMP/cid" &&
        docker export "$(cat "$TEST_TMP/cid")" | tar -t | grep -v '/$' |
        grep -vE '^(\.dockerenv|etc/(hosts|hostname|resolv\.conf|mtab)|dev/|proc/|sys/)' |
        sort | tr '\n' ' ')
    docker rm -f "$(cat "$TEST_TMP/cid")" >/dev/null
    echo "# $ref: $files"
    case $img in
    claude-code)
        L=lib/x86_64-linux-gnu
        check_eq "$ref: the CLI, the libraries ldd names and the CA bundle only" \
            "etc/ssl/certs/ca-certificates.crt $L/libc.so.6 $L/libdl.so.2 $L/libm.so.6 $L/libpthread.so.0 $L/librt.so.1 lib64/ld-linux-x86-64.so.2 usr/local/bin/claude " \
            "$files"
        ;;
    codex)
        check_eq "$ref: the CLI, its code-mode host and the CA bundle only" \
            "etc/ssl/certs/ca-certificates.crt usr/local/bin/codex usr/local/bin/codex-code-mode-host " \
            "$files"
        ;;
    esac
    check "$ref: no shell in the image" not grep -qE '(^| )(bin/sh|bin/bash)' <<<"$files"
    check_eq "$ref: runs as 1000:1000" 1000:1000 \
        "$(docker image inspect -f '{{.Config.User}}' "$ref")"
    out=$(docker run --rm --label "$TEST_LABEL" --network none --read-only \
        --cap-drop ALL --security-opt no-new-privileges --tmpfs /tmp \
        "$ref" --version 2>/dev/null)
    check_match "$ref: prints the pinned version in the box" "$ver" "$out"
done

# negative controls, into an empty cache so the registry is asked
pins=$TEST_TMP/pins
sed 's/^\(codex .* \)sha512-l66N/\1sha512-AAAA/' "$ROOT/hack/images/vendor-clis.txt" >"$pins"
check "control: the doctored pin differs" not cmp -s "$pins" \
    "$ROOT/hack/images/vendor-clis.txt"
rc=0
out=$(AGENTCTL_CLI_PINS=$pins AGENTCTL_NPM_CACHE=$TEST_TMP/cache1 \
    bash "$ROOT/hack/images/build-codex.sh" 2>&1) || rc=$?
check_eq "a tarball that does not match its pinned integrity is refused" 1 "$rc"
check_match "and the refusal says why" 'integrity .* pinned .*refusing it' "$out"
check "and the tarball is not kept" not test -e "$TEST_TMP/cache1"/*.tgz
rc=0
out=$(AGENTCTL_NPM_CACHE=$TEST_TMP/cache2 npm_config_registry=http://127.0.0.1:9/ \
    bash "$ROOT/hack/images/build-codex.sh" 2>&1) || rc=$?
check_eq "an unreachable registry is not a failure" 0 "$rc"
check_match "it is a skip with the reason" \
    'build-codex: skipped: the npm registry is not reachable \(http://127.0.0.1:9/\)' "$out"
