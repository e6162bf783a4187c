#!/usr/bin/env bash
# test_policy.sh - target checks: an IP literal only when that literal is
# listed, a name that resolves to loopback refused without
# --allow-private (and admitted with it, the positive control).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/px_lib.sh"

start_upstream echo echo
ECHO=$UP_PORT

# Only the name is listed; no --allow-private.
start_proxy --allow "localhost:$ECHO"
check_eq "literal 127.0.0.1 refused when only the name is listed" 403 \
    "$(status "CONNECT 127.0.0.1:$ECHO HTTP/1.1\r\n\r\n")"
check_eq "literal [::1] refused when only the name is listed" 403 \
    "$(status "CONNECT [::1]:$ECHO HTTP/1.1\r\n\r\n")"
check_eq "listed name resolving to loopback refused without --allow-private" \
    403 "$(status "CONNECT localhost:$ECHO HTTP/1.1\r\n\r\n")"
check_eq "same with other case and a trailing dot" 403 \
    "$(status "CONNECT LocalHost.:$ECHO HTTP/1.1\r\n\r\n")"
stop_proxy
check_match "the log names the refused target" '"target":"localhost:[0-9]+","status":403' \
    "$(grep localhost "$TEST_TMP/proxy.log" | head -n 1)"

# Literal listed, no --allow-private: the literal is loopback, refused.
start_proxy --allow "127.0.0.1:$ECHO"
check_eq "listed loopback literal refused without --allow-private" 403 \
    "$(status "CONNECT 127.0.0.1:$ECHO HTTP/1.1\r\n\r\n")"
stop_proxy

# Positive controls with --allow-private.
start_proxy --allow "localhost:$ECHO,127.0.0.1:$ECHO" --allow-private
check_eq "name admitted with --allow-private" 200 \
    "$(status "CONNECT localhost:$ECHO HTTP/1.1\r\n\r\n")"
check_eq "case and trailing dot normalised" 200 \
    "$(status "CONNECT LOCALHOST.:$ECHO HTTP/1.1\r\n\r\n")"
check_eq "listed literal admitted with --allow-private" 200 \
    "$(status "CONNECT 127.0.0.1:$ECHO HTTP/1.1\r\n\r\n")"
check_eq "port compared exactly" 403 \
    "$(status "CONNECT localhost:$((ECHO + 1)) HTTP/1.1\r\n\r\n")"
check_eq "a suffix of a listed name is no match" 403 \
    "$(status "CONNECT x.localhost:$ECHO HTTP/1.1\r\n\r\n")"
stop_proxy

# --deny-all: an empty allowlist said out loud (a vendor whose agent goes
# through the credential gateway); the target that --allow-private admits
# above is refused, and so is everything else.
start_proxy --deny-all --allow-private
check_eq "--deny-all refuses what the allowlist admitted above" 403 \
    "$(status "CONNECT localhost:$ECHO HTTP/1.1\r\n\r\n")"
check_eq "--deny-all refuses a public-looking name" 403 \
    "$(status "CONNECT api.anthropic.com:443 HTTP/1.1\r\n\r\n")"
stop_proxy
P=$PROXY_BIN
check_eq "neither --allow nor --deny-all: refused at start (2)" 2 \
    "$("$P" --listen 127.0.0.1:0 >/dev/null 2>&1; echo $?)"
check_eq "both --allow and --deny-all: refused at start (2)" 2 \
    "$("$P" --listen 127.0.0.1:0 --deny-all --allow x.test:443 >/dev/null 2>&1; echo $?)"

# Every refusal names itself (RFC 9209 Proxy-Status): a policy refusal
# reads differently from a network fault.
start_proxy --allow "localhost:$ECHO,127.0.0.1:1"
raw() { # the proxy's whole answer to a CONNECT of $1
    exec 3<>"/dev/tcp/127.0.0.1/$PX_PORT"
    printf 'CONNECT %s HTTP/1.1\r\n\r\n' "$1" >&3
    timeout 10 cat <&3 | tr -d '\r'
    exec 3<&-
}
check_match "a target off the allowlist: 403 with Proxy-Status http_request_denied" \
    'Proxy-Status: agentctl-egress-proxy; error=http_request_denied; details="not in the allowlist"' \
    "$(raw x.test:443)"
check_match "a listed name resolving inward: destination_ip_prohibited" \
    'Proxy-Status: agentctl-egress-proxy; error=destination_ip_prohibited' \
    "$(raw "localhost:$ECHO")"
stop_proxy
# (loopback only: a name that does not resolve would ask the host's
# resolver, which is not the test's to ask)
start_proxy --allow "127.0.0.1:1" --allow-private
check_match "a listed target that refuses: 502 connection_refused" \
    '^HTTP/1.1 502 .*Proxy-Status: agentctl-egress-proxy; error=connection_refused' \
    "$(raw 127.0.0.1:1 | paste -sd' ' -)"
stop_proxy
