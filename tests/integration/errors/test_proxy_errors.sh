#!/usr/bin/env bash
# test_proxy_errors.sh - egress-proxy's bad invocations (issue 34, item 2):
# no flags, every flag without its value and with an invalid one, unknown
# flags, a value for a flag that takes none, a stray argument, neither or
# both of --allow and --deny-all, counts that are not whole numbers, and
# a --listen address that is not this host's or whose port is taken.
#
# docs/design.md "egress-proxy contract": exit 2 on bad flags, 1 on a
# runtime error (bind, listen). The proxy reads no file. Each row runs
# plain, under ASan/UBSan and under valgrind (lib_errors.sh). The only
# network is loopback (a port a listener of this test holds); 1.2.3.4:80
# and [2001:db8::1]:80 fail at bind and send nothing.
source "$(dirname "$0")/lib_errors.sh"
err_require proxy/egress-proxy
PX=@proxy/egress-proxy
L=(--listen 127.0.0.1:0)
err_listener # $ERR_TAKEN_PORT
TAKEN=127.0.0.1:$ERR_TAKEN_PORT

# ---- what the proxy needs, and flags it does not know ----
row "no flags" 2 "--listen and one of --allow or --deny-all are required" $PX
row "--listen alone" 2 "one of --allow or --deny-all" $PX "${L[@]}"
row "--allow and --deny-all" 2 "one of --allow or --deny-all" \
    $PX "${L[@]}" --deny-all --allow example.com:443
row "--deny-all without --listen" 2 "--listen and one of" $PX --deny-all
row "unknown flag" 2 "unknown flag --bogus" $PX "${L[@]}" --deny-all --bogus
row "unknown short flag" 2 "unknown flag -x" $PX "${L[@]}" --deny-all -x
row "a stray argument" 2 'unexpected argument \\"stray\\"' \
    $PX "${L[@]}" --deny-all stray
for f in deny-all allow-private; do
    row "a value for --$f" 2 "--$f=yes: the flag takes no value" \
        $PX "${L[@]}" --deny-all --$f=yes
done

# ---- a flag without its value ----
for f in listen allow header-limit header-timeout idle-timeout max-conns \
    connect-timeout drain-timeout; do
    row "--$f without a value" 2 "--$f: missing value" \
        $PX "${L[@]}" --deny-all --$f
done

# ---- --listen and --allow values that are not valid ----
for v in '' foo 127.0.0.1 :80 127.0.0.1: 127.0.0.1:99999 127.0.0.1:-1 \
    127.0.0.1:8x localhost:80 '[::1' '[::1]' 300.1.1.1:80; do
    row "--listen '$v'" 2 "--listen $(q "$v"): " $PX --listen "$v" --deny-all
done
for v in '' nocolon host:0 host:99999 host:x http://host:1 user@host:1 \
    'a.example:1,,b.example:2' '*.example.com:443' 'host:443/path'; do
    row "--allow '$v'" 2 "allow entry \\\\\"" $PX "${L[@]}" --allow "$v"
done

# ---- numbers out of range, not numbers, counts not whole ----
while read -r f vals; do
    for v in $vals; do
        row "--$f $v" 2 "--$f $(q "$v"): must be a (whole )?number from" \
            $PX "${L[@]}" --deny-all --$f "$v"
    done
done <<'EOF'
header-limit 63 1048577 abc 100.5 -1
header-timeout 0 x 3601 -1 nan
idle-timeout 0 -1 x 1e8 inf
max-conns 0 1000001 1.5 x
connect-timeout 0 nan 3601 1s
drain-timeout -1 3601 x
EOF

# ---- runtime: the address cannot be listened on (exit 1) ----
row "--listen not local (1.2.3.4:80)" 1 \
    "--listen 1\\.2\\.3\\.4:80: cannot listen: Cannot assign" \
    $PX --listen 1.2.3.4:80 --deny-all
row "--listen not local (IPv6)" 1 \
    "--listen \\[2001:db8::1\\]:80: cannot listen: " \
    $PX --listen '[2001:db8::1]:80' --deny-all
row "--listen port taken" 1 \
    "--listen $(q "$TAKEN"): cannot listen: Address already in use" \
    $PX --listen "$TAKEN" --deny-all

rows_finish
