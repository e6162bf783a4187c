#!/usr/bin/env bash
# test_address_classes.sh - names on the allowlist that resolve only into
# a special-purpose block (IANA IPv4 and IPv6 registries, and every IPv6
# form that carries an IPv4) are refused with 403 before any dial; a name
# resolving to a globally reachable address is dialled (the control).
#
# The whole scenario runs in its own network and mount namespaces: the
# only interface is loopback (so no dial, even by a proxy that fails to
# refuse, can leave the machine: it ends in ENETUNREACH, a 502), and the
# names come from a private /etc/hosts bind-mounted over the real one
# (c-ares reads the hosts file before DNS).
if [ -z "${PX_IN_NETNS:-}" ]; then
    [ "$(id -u)" = 0 ] || { echo "needs root for unshare"; exit 77; }
    command -v unshare >/dev/null || { echo "unshare missing"; exit 77; }
    exec unshare --mount --net --propagation private \
        env PX_IN_NETNS=1 bash "$0" "$@"
fi
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/px_lib.sh"

ip link set lo up
check "only loopback in this namespace" \
    test "$(ip -o link show | grep -vc ': lo:')" = 0
HOSTS=$TEST_TMP/hosts
# name  address  (expected status)
cat >"$TEST_TMP/table" <<'EOT'
bench.test        198.18.0.1           403
bench2.test       198.19.255.254       403
ietf.test         192.0.0.1            403
ietf-anycast.test 192.0.0.9            403
doc4.test         203.0.113.5          403
relay.test        192.88.99.1          403
nat64local.test   64:ff9b:1::a00:1     403
nat64localpub.test 64:ff9b:1::808:808  403
siit.test         ::ffff:0:a00:1       403
siitpub.test      ::ffff:0:808:808     403
teredo.test       2001::1              403
teredo2.test      2001:0:4136:e378:8000:63bf:3fff:fdd2 403
doc6.test         2001:db8::1          403
nat64.test        64:ff9b::7f00:1      403
mapped.test       ::ffff:127.0.0.1     403
sixtofour.test    2002:a00:1::1        403
isatap.test       2600::5efe:10.0.0.1  403
srv6.test         5f00::1              403
public4.test      192.31.196.1         502
public6.test      2600::1              502
EOT
: >"$HOSTS"
allow=
while read -r name addr _; do
    echo "$addr $name" >>"$HOSTS"
    allow=${allow:+$allow,}$name:443
done <"$TEST_TMP/table"
# A name with one public and one special address: refused as a whole.
printf '192.31.196.1 mixed.test\n198.18.0.1 mixed.test\n' >>"$HOSTS"
allow=$allow,mixed.test:443
mount --bind "$HOSTS" /etc/hosts
check "the private hosts file is in place" grep -q '^198.18.0.1 bench.test$' \
    /etc/hosts

start_proxy --allow "$allow" --connect-timeout 2
while read -r name addr want; do
    check_eq "$name ($addr): $want" "$want" \
        "$(status "CONNECT $name:443 HTTP/1.1\r\n\r\n")"
done <"$TEST_TMP/table"
check_eq "mixed.test (public and benchmarking): 403" 403 \
    "$(status "CONNECT mixed.test:443 HTTP/1.1\r\n\r\n")"
stop_proxy
check_eq "one 403 log line per refused name (the table's and mixed.test)" \
    "$(($(grep -c ' 403$' "$TEST_TMP/table") + 1))" \
    "$(grep -c '"status":403' "$TEST_TMP/proxy.log")"

# The same blocks as listed literals.
lits="[64:ff9b:1::1]:443,[::ffff:0:10.0.0.1]:443,[2001::1]:443,198.18.0.1:443,192.0.0.1:443"
start_proxy --allow "$lits"
for t in "[64:ff9b:1::1]:443" "[::ffff:0:10.0.0.1]:443" "[2001::1]:443" \
    198.18.0.1:443 192.0.0.1:443; do
    check_eq "listed literal $t: 403" 403 \
        "$(status "CONNECT $t HTTP/1.1\r\n\r\n")"
done
stop_proxy
