#!/usr/bin/env bash
# test_deb_install.sh - `cpack -G DEB` makes a package that installs on a
# fresh Debian 12 with apt-get (its library dependencies named, so apt
# pulls them from the archive), puts everything in its FHS place, makes
# the service user, runs (agentctl version, agent-controller --version),
# and keeps an edited config over an upgrade and a remove.
#
# The fresh Debian 12 is a debootstrap'ed minbase root cached outside the
# checkout (hack/debroot.sh); each run mounts an overlay on it and throws
# the upper layer away, so the cache stays fresh. Needs root (mount,
# chroot) and Debian's archive; skips with the reason otherwise.
source "$(dirname "$0")/../lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (overlay mount and chroot)"
command -v cpack >/dev/null || skip "cpack is not installed"
command -v dpkg-shlibdeps >/dev/null ||
    skip "dpkg-shlibdeps is not installed (dpkg-dev, hack/setup.sh)"
lower=$("$ROOT/hack/debroot.sh") ||
    skip "no Debian 12 root: hack/debroot.sh could not make one (above)"

version=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")
[ -n "$version" ] || fail "no project(agentctl VERSION ...) in CMakeLists.txt"
up=$version+upgrade # sorts after $version for dpkg

# The Release build of hack/test.sh's build-release stage, configured the
# same way, so this builds nothing new after that stage (only the pages).
PKG_BUILD=${AGENTCTL_PKG_BUILD:-$ROOT/build-release-gcc}
# The helper images go in as docker-save tarballs (packaging/images.cmake);
# the tree is configured back without them when the test ends, so no later
# configure of it looks for this run's directory.
docker info >/dev/null 2>&1 || skip "Docker is not reachable (the helper images are saved from it)"
"$ROOT/hack/images/save-helpers.sh" "$TEST_TMP/images" >/dev/null ||
    fail "cannot save the helper images (hack/images.sh builds them)"
on_cleanup "cmake -S '$ROOT' -B '$PKG_BUILD' -DAGENTCTL_PACKAGE_IMAGES= >/dev/null"
CC=gcc cmake -S "$ROOT" -B "$PKG_BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DAGENTCTL_WERROR=ON -DCMAKE_INSTALL_PREFIX=/usr \
    -DAGENTCTL_PACKAGE_IMAGES="$TEST_TMP/images" >/dev/null ||
    fail "cmake could not configure $PKG_BUILD"
cmake --build "$PKG_BUILD" -j "$(nproc)" --target agentctl agent-controller \
    egress-proxy agent-gateway agentctl-docs >/dev/null ||
    fail "the Release build of the programs failed ($PKG_BUILD)"
(cd "$PKG_BUILD" && cpack -G DEB -B "$TEST_TMP/pkg") >"$TEST_TMP/cpack.log" 2>&1 ||
    { cat "$TEST_TMP/cpack.log"; fail "cpack -G DEB failed"; }
deb=$(ls "$TEST_TMP"/pkg/agentctl_*.deb)
# The same files as a later version, for the upgrade below.
(cd "$PKG_BUILD" && cpack -G DEB -B "$TEST_TMP/pkg2" -D "CPACK_PACKAGE_VERSION=$up") \
    >>"$TEST_TMP/cpack.log" 2>&1 || { cat "$TEST_TMP/cpack.log"; fail "cpack of $up failed"; }
deb2=$(ls "$TEST_TMP"/pkg2/agentctl_*.deb)
check "the package is named agentctl_VERSION_ARCH.deb" \
    test "$(basename "$deb")" = "agentctl_${version}_$(dpkg --print-architecture).deb"

# Library dependencies from dpkg-shlibdeps, not written by hand.
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libc6 libyaml-0-2 libcjson1 libcurl4 libev4 libssl3 libarchive13 \
    libgit2-1.5 libmicrohttpd12 libc-ares2; do
    [[ $depends == *"$lib "* || $depends == *"$lib," || $depends == *"$lib" ]] ||
        fail "Depends does not name $lib: $depends"
done
check "Depends names the ten libraries the programs link" true
check_eq "the config is a conffile" "/etc/agentctl/controller.yaml" \
    "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles)"

contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/agentctl ./usr/bin/agent-controller ./usr/bin/egress-proxy \
    ./usr/bin/agent-gateway ./usr/share/man/man1/agentctl.1.gz \
    ./usr/share/man/man8/agent-controller.8.gz \
    ./usr/share/man/man5/agent-controller.yaml.5.gz \
    ./usr/share/bash-completion/completions/agentctl \
    ./usr/share/zsh/vendor-completions/_agentctl \
    ./usr/lib/systemd/system/agent-controller.service \
    ./etc/agentctl/controller.yaml \
    ./usr/share/agentctl/crds/agentinvocations.agentctl.dev.yaml \
    ./usr/share/doc/agentctl/examples/specs/demo.yaml \
    ./usr/share/agentctl/monitoring/agentctl-alerts.yaml \
    ./usr/share/agentctl/monitoring/agentctl-dashboard.json \
    ./usr/libexec/agentctl/load-images; do
    grep -qx -- "$f" <<<"$contents" || fail "$f is not in the package"
done
check "binaries, man pages, completions, unit, config, CRD, monitoring in FHS places" true
for name in $(grep '^[a-z]' "$ROOT/packaging/images.txt"); do
    grep -qx -- "./usr/share/agentctl/images/$name.tar" <<<"$contents" ||
        fail "the image $name is not in the package"
done
check "the helper images of packaging/images.txt are in the package" true
check_eq "no man page is uncompressed (Debian policy 12.1)" "" \
    "$(grep -E '^./usr/share/man/.*[0-9]$' <<<"$contents" || true)"
check "no test program is packaged (the helper images aside, which carry keeper, demo-agent)" \
    test -z "$(grep -v '^./usr/share/agentctl/images/' <<<"$contents" |
        grep -E 'testhooks|keeper|demo-agent|px-probe|agent-launch')"

# The throwaway root: an overlay on the cached one.
R=$TEST_TMP/root
mkdir -p "$TEST_TMP/upper" "$TEST_TMP/work" "$R"
mount -t overlay overlay \
    -o "lowerdir=$lower,upperdir=$TEST_TMP/upper,workdir=$TEST_TMP/work" "$R" ||
    skip "cannot mount an overlay on $lower"
# lazy: a process left in the root must not keep the mounts (and rm -rf
# of TEST_TMP must never walk into a mounted /proc)
on_cleanup "umount -l '$R/var/cache/apt/archives' 2>/dev/null;" \
    "umount -l '$R/proc' 2>/dev/null; umount -l '$R'"
mount -t proc proc "$R/proc"
in_root() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive "$@"; }
# The packages apt downloads (the libraries) are kept between runs, beside
# the root and outside the checkout; the lists are fetched fresh each time
# (stale ones would name superseded versions).
debs=$(dirname "$lower")/apt-archives
mkdir -p "$debs/partial"
mount --bind "$debs" "$R/var/cache/apt/archives"
cp /etc/resolv.conf "$R/etc/resolv.conf"
cp "$deb" "$deb2" "$R/tmp/"

in_root apt-get update -qq >"$TEST_TMP/apt.log" 2>&1 ||
    { tail -n 5 "$TEST_TMP/apt.log"; skip "Debian's archive is unreachable (apt-get update failed)"; }
in_root apt-get install -y -qq --no-install-recommends \
    "/tmp/$(basename "$deb")" >>"$TEST_TMP/apt.log" 2>&1 ||
    { tail -n 20 "$TEST_TMP/apt.log"; fail "apt-get install ./agentctl_*.deb failed"; }
check "apt-get install ./agentctl_*.deb on a fresh Debian 12" true
check_match "postinst: no Docker in the root, so it names the image loader" \
    'Docker is not reachable: load the helper images with /usr/libexec/agentctl/load-images' \
    "$(tr '\n' ' ' <"$TEST_TMP/apt.log")"
check "postinst made the docker group the unit's SupplementaryGroups= names" \
    in_root getent group docker
check_eq "the installed man page is agentctl(1), gzip'd" \
    "$(cat "$PKG_BUILD/packaging/man/agentctl.1")" \
    "$(zcat "$R/usr/share/man/man1/agentctl.1.gz")"

check_eq "agentctl version from PATH" "agentctl version $version" \
    "$(in_root agentctl version)"
check_eq "agent-controller --version from PATH" \
    "agent-controller version $version" "$(in_root agent-controller --version)"
check_match "agent-controller --help lists its flags with defaults" \
    'resync D.*default: 5s' "$(in_root agent-controller --help | tr '\n' ' ')"
check_match "postinst made the system user the unit runs as" \
    '^agentctl:x:[0-9]+:[0-9]+:agentctl controller:/var/lib/agentctl:/usr/sbin/nologin$' \
    "$(in_root getent passwd agentctl)"
check_eq "the secrets directory is the service user's, mode 0700" \
    "agentctl 700" "$(in_root stat -c '%U %a' /etc/agentctl/secrets)"
check_match "the installed unit runs the installed binary" \
    'ExecStart=/usr/bin/agent-controller' \
    "$(cat "$R/usr/lib/systemd/system/agent-controller.service")"
if command -v systemd-analyze >/dev/null; then
    # as tests/integration/gitops/test_manifests.sh does for the source:
    # verify wants ExecStart's binary on this host, so point it there
    mkdir -p "$TEST_TMP/units"
    sed "s|=/usr/bin/agent-controller|=$R/usr/bin/agent-controller|" \
        "$R/usr/lib/systemd/system/agent-controller.service" \
        >"$TEST_TMP/units/agent-controller.service"
    check_eq "systemd-analyze verify: the installed unit, no complaint" "" \
        "$(systemd-analyze verify "$TEST_TMP/units/agent-controller.service" 2>&1 |
            grep -F "$TEST_TMP/units" || true)"
fi

# The image loader as installed: refuses clearly without a daemon, loads
# the packaged tarballs with one. It loads into the machine's daemon only
# when that holds the very images the package carries (always in CI: they
# were saved from it above), so a load never replaces a newer build.
out=$(DOCKER_HOST=unix:///nonexistent.sock "$R/usr/libexec/agentctl/load-images" \
    "$R/usr/share/agentctl/images" 2>&1) && fail "load-images without a daemon succeeded"
check_match "load-images without a daemon: exit 1, says what to do" \
    'Docker daemon is not reachable .*start it, then run' "$out"
out=$("$R/usr/libexec/agentctl/load-images" "$TEST_TMP/empty" 2>&1) &&
    fail "load-images of an empty directory succeeded"
check_match "(control) load-images with nothing to load: exit 1, names the way" \
    'no image tarballs in .*hack/images.sh' "$out"
same=1
for name in $(grep '^[a-z]' "$ROOT/packaging/images.txt"); do
    saved=$(tar -xOf "$R/usr/share/agentctl/images/$name.tar" manifest.json |
        sed -n 's/.*"Config":"\([0-9a-f]*\)\.json".*/\1/p')
    [ "sha256:$saved" = "$(docker image inspect -f '{{.Id}}' "agentctl/$name:$version")" ] || same=0
done
if [ "$same" = 1 ]; then
    out=$("$R/usr/libexec/agentctl/load-images" "$R/usr/share/agentctl/images" 2>&1) ||
        { echo "$out"; fail "load-images of the packaged images failed"; }
    check_eq "load-images loads each packaged image by its tag" \
        "$(grep "^[a-z]" "$ROOT/packaging/images.txt" | sort | sed "s|.*|Loaded image: agentctl/&:$version|")" \
        "$out"
else
    echo "note: the daemon's helper images changed since they were saved; the load is not run"
fi

# The config as installed is a valid config: the controller starts on it
# (and, with nothing to do, --once ends it; Docker is not needed for that).
mkdir -p "$R/tmp/specs"
printf 'proxyPort: x\n' >"$R/tmp/bad.yaml"
run_controller() { # run_controller CONFIG: its exit code; its log in ctl.log
    local rc=0
    in_root timeout 30 agent-controller --specs /tmp/specs --config "$1" \
        --once --docker unix:///nonexistent.sock >"$TEST_TMP/ctl.log" 2>&1 ||
        rc=$?
    echo "$rc"
}
check_eq "agent-controller starts on the installed config" 0 \
    "$(run_controller /etc/agentctl/controller.yaml)"
check "... and says so" grep -q '"agent-controller started"' "$TEST_TMP/ctl.log"
check_eq "(control) a config with an error stops it, exit 1" 1 \
    "$(run_controller /tmp/bad.yaml)"

# An operator's edit survives an upgrade and a remove; only a purge takes
# the conffile.
echo "proxyPort: 3129 # the operator's" >>"$R/etc/agentctl/controller.yaml"
in_root apt-get install -y -qq "/tmp/$(basename "$deb2")" \
    >>"$TEST_TMP/apt.log" 2>&1 || { tail -n 20 "$TEST_TMP/apt.log"; fail "upgrade failed"; }
check_eq "apt-get upgraded the package to $up" "$up" \
    "$(in_root dpkg-query -W -f '${Version}' agentctl)"
check "an edited config survives the upgrade" \
    grep -q "the operator's" "$R/etc/agentctl/controller.yaml"
in_root dpkg -r agentctl >>"$TEST_TMP/apt.log" 2>&1 || fail "dpkg -r failed"
check "remove keeps the config, takes the programs" \
    bash -c "grep -q \"the operator's\" '$R/etc/agentctl/controller.yaml' &&
             ! test -e '$R/usr/bin/agentctl'"
in_root dpkg --purge agentctl >>"$TEST_TMP/apt.log" 2>&1 || fail "dpkg --purge failed"
check "purge takes the config" test ! -e "$R/etc/agentctl/controller.yaml"
