#!/usr/bin/env bash
# debroot.sh - make (once) a minimal Debian 12 root for the package test
# (tests/integration/package/test_deb_install.sh) and print its path.
#
# Docker images cannot be pulled here, so the "fresh Debian 12 machine" is
# a debootstrap of bookworm's minbase from Debian's archive. It is cached
# outside the checkout (CI time counts: a bootstrap takes minutes, a reuse
# nothing) and never written to afterwards: the test mounts an overlay on
# it and throws the upper layer away.
#
#   AGENTCTL_DEBROOT   where the root lives (default
#                      /var/cache/agentctl/debian12-minbase)
#   AGENTCTL_DEBMIRROR the archive (default http://deb.debian.org/debian)
#
# Exit 0 with the path on stdout; 1 when it cannot be made (the reason on
# stderr).
set -euo pipefail

root=${AGENTCTL_DEBROOT:-/var/cache/agentctl/debian12-minbase}
mirror=${AGENTCTL_DEBMIRROR:-http://deb.debian.org/debian}

mkdir -p "$(dirname "$root")"
# One bootstrap at a time: test runs of other checkouts share the cache.
exec 9>"$root.lock"
flock 9
# The marker is written last: a bootstrap cut short is redone, never used.
if [ -f "$root/.agentctl-complete" ]; then
    echo "$root"
    exit 0
fi
command -v debootstrap >/dev/null || {
    echo "debroot: debootstrap is not installed (hack/setup.sh installs it)" >&2
    exit 1
}
tmp="$root.partial"
rm -rf "$tmp"
if ! debootstrap --variant=minbase bookworm "$tmp" "$mirror" \
    >"$tmp.log" 2>&1; then
    echo "debroot: debootstrap bookworm from $mirror failed; last lines of" \
        "$tmp.log:" >&2
    tail -n 5 "$tmp.log" >&2
    exit 1
fi
rm -rf "$root"
mv "$tmp" "$root"
touch "$root/.agentctl-complete"
rm -f "$tmp.log"
echo "$root"
