#!/usr/bin/env bash
# test_status_codes.sh - every status of the egress-proxy contract against
# the real binary on loopback: 200, 400, 403, 405, 408, 431, 502, 503, 504.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/px_lib.sh"

start_upstream echo echo
ECHO=$UP_PORT
start_upstream stuck stuck
STUCK=$UP_PORT
# a port with nothing listening: one an upstream had, after it is gone
start_upstream echo gone
REFUSED=$UP_PORT
kill "$(jobs -p | tail -n 1)"
wait_gone() { ! probe status "$REFUSED" x >/dev/null 2>&1; }
for i in $(seq 50); do wait_gone && break; sleep 0.1; done

start_proxy --allow "localhost:$ECHO,127.0.0.1:$ECHO,127.0.0.1:$REFUSED" \
    --allow "127.0.0.1:$STUCK,vendor.test:443" --allow-private \
    --header-timeout 1 --connect-timeout 1 --header-limit 1024

check_eq "allowlisted literal gets 200" 200 \
    "$(status "CONNECT 127.0.0.1:$ECHO HTTP/1.1\r\n\r\n")"
check_eq "allowlisted name (from /etc/hosts) gets 200" 200 \
    "$(status "CONNECT LOCALHOST.:$ECHO HTTP/1.1\r\nHost: x\r\n\r\n")"
check_eq "name not on the list gets 403" 403 \
    "$(status "CONNECT other.test:443 HTTP/1.1\r\n\r\n")"
check_eq "right host, other port gets 403" 403 \
    "$(status "CONNECT 127.0.0.1:$((ECHO + 1)) HTTP/1.1\r\n\r\n")"
check_eq "GET gets 405" 405 "$(status "GET / HTTP/1.1\r\nHost: a\r\n\r\n")"
check_eq "absolute-form POST gets 405" 405 \
    "$(status "POST http://127.0.0.1:$ECHO/ HTTP/1.1\r\n\r\n")"
check_eq "absolute-form CONNECT target gets 400" 400 \
    "$(status "CONNECT http://127.0.0.1:$ECHO HTTP/1.1\r\n\r\n")"
check_eq "userinfo gets 400" 400 \
    "$(status "CONNECT u@127.0.0.1:$ECHO HTTP/1.1\r\n\r\n")"
check_eq "port 0 gets 400" 400 "$(status "CONNECT vendor.test:0 HTTP/1.1\r\n\r\n")"
check_eq "unbracketed IPv6 gets 400" 400 \
    "$(status "CONNECT ::1:443 HTTP/1.1\r\n\r\n")"
check_eq "bad version gets 400" 400 \
    "$(status "CONNECT vendor.test:443 HTTP/9\r\n\r\n")"
check_eq "header over --header-limit gets 431" 431 \
    "$(status "CONNECT vendor.test:443 HTTP/1.1\r\nX: $(head -c 1100 /dev/zero | tr '\0' a)\r\n\r\n")"
check_eq "unfinished header gets 408 after --header-timeout" 408 \
    "$(status "CONNECT vendor.test:443 HTTP/1.1\r\nX: y")"
check_eq "refused upstream gets 502" 502 \
    "$(status "CONNECT 127.0.0.1:$REFUSED HTTP/1.1\r\n\r\n")"
check_eq "upstream that never answers gets 504" 504 \
    "$(status "CONNECT 127.0.0.1:$STUCK HTTP/1.1\r\n\r\n")"

# 503: with --max-conns 2, hold two tunnels and ask for a third and fourth
stop_proxy
start_proxy --allow "127.0.0.1:$ECHO" --allow-private --max-conns 2
out=$(probe many "$PX_PORT" "127.0.0.1:$ECHO" 4 0)
check_eq "--max-conns 2: two tunnels, two 503" "200=2 503=2 other=0 echoed=2" "$out"
# once they are gone, new tunnels are admitted again
sleep 0.3
check_eq "after the overflow, a tunnel gets 200 again" 200 \
    "$(status "CONNECT 127.0.0.1:$ECHO HTTP/1.1\r\n\r\n")"
stop_proxy

# one JSON line per connection, with every field
line=$(grep '"status":200' "$TEST_TMP/proxy.log" | head -n 1)
check_match "log line has time, client, target, status, bytes, duration" \
    '^\{"time":"[^"]+","level":"info","msg":"tunnel","client":"127\.0\.0\.1:[0-9]+","target":"127\.0\.0\.1:[0-9]+","status":200,"bytes_up":5,"bytes_down":5,"duration_ms":[0-9]+' \
    "$line"
check_eq "one log line per connection (4 + 1)" 5 \
    "$(grep -c '"msg":"tunnel"' "$TEST_TMP/proxy.log")"
check_eq "two of them 503" 2 "$(grep -c '"status":503' "$TEST_TMP/proxy.log")"
