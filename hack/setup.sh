#!/usr/bin/env bash
# setup.sh - install everything agentctl needs to build, test and run on
# Debian 12, and make sure a Docker daemon is answering on its socket.
#
# Idempotent: a second run installs nothing and prints nothing unless
# something is missing. Must run as root (it calls apt-get and dockerd).
set -euo pipefail

PACKAGES=(
    # build
    build-essential cmake pkg-config git ca-certificates clang
    libclang-rt-14-dev clang-format valgrind
    # libraries (docs/design.md "Dependencies come from Debian packages")
    libyaml-dev libcjson-dev libev-dev libcmocka-dev libcurl4-openssl-dev
    libssl-dev libhttp-parser-dev libc-ares-dev libarchive-dev
    libmicrohttpd-dev libgit2-dev
    # the real parts the tests drive
    docker.io etcd-server etcd-client busybox-static
    # test tooling
    curl jq procps iproute2 psmisc
    # the independent checks of the CRD and of /metrics (tests/integration/crd/),
    # promtool for the alert rules (tests/integration/monitoring/)
    python3-yaml python3-jsonschema prometheus
    # the package and its man pages (tests/integration/package/): cpack's
    # dpkg-shlibdeps, groff -ww, and the fresh Debian 12 root (hack/debroot.sh)
    dpkg-dev groff-base debootstrap
)
# npm fetches the pinned vendor CLIs (hack/images/vendor-clis.txt); any npm
# will do, so one that is already there (not from Debian) is kept
command -v npm >/dev/null || PACKAGES+=(npm)

missing=()
for p in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
        grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done

if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # Packages must not start their services here (there may be no init
    # system); dockerd is started below, etcd by the tests that need it.
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    rm -f /usr/sbin/policy-rc.d
fi

exec "$(dirname "$0")/dockerd-up.sh"
