#!/usr/bin/env bash
# test_cmake_install.sh - `cmake --install` of the test build (prefix
# /usr/local, the default) into a DESTDIR puts each file in its FHS place
# (docs/install.md's table), the unit's paths are those of the install,
# and nothing but the four programs goes into bin/; cpack -G DEB of it is
# refused (a package installs under /usr).
source "$(dirname "$0")/../lib.sh"

prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$BUILD/CMakeCache.txt")
[ "$prefix" = /usr/local ] ||
    skip "$BUILD is configured with prefix $prefix; this checks /usr/local"
cmake --build "$BUILD" --target agentctl agent-controller egress-proxy \
    agent-gateway agentctl-docs >/dev/null || fail "cannot build the programs in $BUILD"
D=$TEST_TMP/dest
DESTDIR=$D cmake --install "$BUILD" >"$TEST_TMP/install.log" 2>&1 ||
    { cat "$TEST_TMP/install.log"; fail "cmake --install failed"; }
check "cmake --install into DESTDIR" true

L=$D/usr/local
for f in bin/agentctl bin/agent-controller bin/egress-proxy bin/agent-gateway \
    share/man/man1/agentctl.1.gz share/man/man8/agent-controller.8.gz \
    share/man/man5/agent-controller.yaml.5.gz \
    share/bash-completion/completions/agentctl \
    share/zsh/site-functions/_agentctl \
    lib/systemd/system/agent-controller.service etc/agentctl/controller.yaml \
    share/agentctl/crds/agentinvocations.agentctl.dev.yaml \
    share/doc/agentctl/examples/specs/demo.yaml \
    share/doc/agentctl/examples/config/etcd.yaml \
    share/doc/agentctl/examples/systemd/etcd.conf \
    share/agentctl/monitoring/agentctl-alerts.yaml \
    share/agentctl/monitoring/agentctl-alerts.test.yaml \
    share/agentctl/monitoring/agentctl-dashboard.json \
    libexec/agentctl/load-images; do
    test -s "$L/$f" || fail "$L/$f is missing or empty"
done
check "programs, pages, completions, unit, config, CRD, examples, monitoring in place" true
check "the pages are gzip'd and whole" gzip -t "$L/share/man/man1/agentctl.1.gz" \
    "$L/share/man/man8/agent-controller.8.gz" "$L/share/man/man5/agent-controller.yaml.5.gz"
check "without -DAGENTCTL_PACKAGE_IMAGES no image is installed" \
    test ! -e "$L/share/agentctl/images"
out=$("$L/libexec/agentctl/load-images" 2>&1) && fail "load-images with no images succeeded"
check_match "load-images with no images: exit 1, names the default directory and the way" \
    'no image tarballs in /usr/local/share/agentctl/images: .*hack/images.sh' "$(tr '\n' ' ' <<<"$out")"
check_eq "bin/ holds the four programs and nothing else" \
    "agent-controller agent-gateway agentctl egress-proxy" \
    "$(ls "$L/bin" | tr '\n' ' ' | sed 's/ $//')"
unit=$(cat "$L/lib/systemd/system/agent-controller.service")
check_match "the unit runs the installed controller" \
    'ExecStart=/usr/local/bin/agent-controller' "$unit"
check_match "the unit reads the installed config" \
    '--config /usr/local/etc/agentctl/controller.yaml' "$unit"
check_match "the etcd drop-in example too" \
    'ExecStart=/usr/local/bin/agent-controller' \
    "$(cat "$L/share/doc/agentctl/examples/systemd/etcd.conf")"
check_match "the bash completion is agentctl's" 'complete .*agentctl' \
    "$(cat "$L/share/bash-completion/completions/agentctl")"
check "the installed agentctl runs" "$L/bin/agentctl" version

# A Debian package of this build would put files under /usr/local:
# refused, naming the way out.
out=$(cd "$BUILD" && cpack -G DEB -B "$TEST_TMP/pkg" 2>&1) &&
    fail "cpack -G DEB of a /usr/local build succeeded"
check_match "cpack -G DEB of a /usr/local build: refused with the fix" \
    'configure with -DCMAKE_INSTALL_PREFIX=/usr' "$(tr '\n' ' ' <<<"$out" | tr -s ' ')"
