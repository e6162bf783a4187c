#!/usr/bin/env bash
# test_testbox.sh - agentctl/testbox:VERSION (hack/images/build-testbox.sh)
# builds FROM scratch, stays small, and runs a shell with its applets.
source "$(dirname "$0")/../lib.sh"
need_docker

bash "$ROOT/hack/images/build-testbox.sh" >/dev/null 2>&1 ||
    fail "hack/images/build-testbox.sh failed"
VERSION=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' \
    "$ROOT/CMakeLists.txt")
IMG=agentctl/testbox:$VERSION

size=$(docker image inspect -f '{{.Size}}' "$IMG")
echo "# $IMG: $size bytes"
check "testbox is under 10 MB" test "$size" -lt $((10 * 1024 * 1024))
check_eq "testbox has a single layer (FROM scratch)" 1 \
    "$(docker image inspect -f '{{len .RootFS.Layers}}' "$IMG")"
check_eq "testbox has no entrypoint and runs sh" 'null ["sh"]' \
    "$(docker image inspect \
        -f '{{json .Config.Entrypoint}} {{json .Config.Cmd}}' "$IMG")"

out=$(docker run --label "$TEST_LABEL" "$IMG" sh -c 'echo ok')
check_eq "sh -c 'echo ok' prints ok" ok "$out"

# Every applet the tests rely on is linked in /bin (checked as files:
# Debian's busybox sh finds its applets even without links), and the
# directories the test vendor and shells need are there.
out=$(docker run --label "$TEST_LABEL" --user 1000:1000 "$IMG" sh -c '
    for a in ls cat mkdir rm nc wget httpd dd sha256sum timeout nslookup ip \
             tar sed grep [ ; do
        [ -e "/bin/$a" ] || echo "missing $a"
    done
    [ -d /www ] || echo "missing /www"
    echo hi >/tmp/probe && cat /tmp/probe')
check_eq "applets present, /www exists, /tmp writable for uid 1000" hi "$out"

# Negative control: an applet that was not linked is reported missing.
out=$(docker run --label "$TEST_LABEL" "$IMG" sh -c \
    '[ -e /bin/vi ] || echo "missing vi"')
check_eq "an unlinked applet is missing" "missing vi" "$out"
