#!/usr/bin/env bash
# test_gateway_http.sh - agent-gateway's HTTP handling on loopback, with
# the built binaries (no Docker): the gateway and the TLS test vendor on
# 127.0.0.1, a CA made by the test, the vendor dialled via --connect-to.
#
#   a 2 MB body with Content-Length (curl sends Expect: 100-continue and
#     gets the gateway's 100) and the same body chunked both arrive whole;
#   three pipelined requests followed by a half-close get three answers;
#   a head that never ends gets 408 with Proxy-Status;
#   chunked request trailers and Content-Length + Transfer-Encoding get
#     400; a byte budget spent gets 429 "byte budget spent";
#   a target with '#', a raw 0xff or "%u" and a field name with '_'
#     (X_Api_Key, X_HTTP_Method_Override) get 400 and reach nothing;
#   a body over --max-body gets 413 (Content-Length at admission, chunked
#     as it grows); a 5 MB body against a 1,000-byte budget gets 429 and
#     reaches nothing, by length and chunked;
#   --organization / --project: the vendor sees the operator's
#     OpenAI-Organization and OpenAI-Project, never the box's (control:
#     without them it sees neither); a value that is not an ID stops the
#     gateway at start;
#   a key file of mode 0640 stops the gateway at start;
#   SIGTERM while a stream is held: no new connection is accepted, the
#     stream in flight still ends whole, then the gateway exits 0.
# Negative control: a request to the vendor that the gateway did not
# forward is not found in the vendor's records (the record search works).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib_gateway_local.sh"
gwl_init "gateway http test CA" openssl python3 curl jq
not() { ! "$@"; }
jq_true() { jq -e "$@" >/dev/null; }

printf 'sk-http-%s\n' "$(openssl rand -hex 8)" >"$TEST_TMP/key"
chmod 0400 "$TEST_TMP/key"
mkdir -p "$TEST_TMP/release"
gwl_vendor TV_RELEASE_FILE="$TEST_TMP/release/go"
GWL_FLAGS=(--allow 'POST /v1/messages')
gateway main --key-file "$TEST_TMP/key" --header-timeout 1
# 500 bytes: one request (about 240 up) fits; with its answer (about 350
# down) the budget is spent
gateway bytes --key-file "$TEST_TMP/key" --max-bytes 500
gateway tiny --key-file "$TEST_TMP/key" --max-bytes 1000
gateway tinyc --key-file "$TEST_TMP/key" --max-bytes 1000
gateway cap --key-file "$TEST_TMP/key" --max-body 4096
gateway org --key-file "$TEST_TMP/key" --auth-header bearer \
    --organization org-operator1 --project proj_operator1
gateway drain --key-file "$TEST_TMP/key" --drain-timeout 60
DRAIN_PID=${PIDS[-1]}
URL=http://127.0.0.1:$PORT_main/v1/messages

# body TASK [PAD-BYTES]: a Messages request whose text is TASK and padding
body() {
    python3 - "$1" "${2:-0}" <<'EOF'
import json, sys
print(json.dumps({"model": "m", "max_tokens": 8, "messages": [
    {"role": "user", "content": "TASK " + sys.argv[1] + "\n" + "x" * int(sys.argv[2])}]}))
EOF
}
# vendor_bytes TASK: the body size the vendor recorded for TASK
vendor_bytes() {
    jq -r --arg t "$1" 'select(.task == $t) | .bodyBytes' "$TEST_TMP/vendor.out"
}

body big 2000000 >"$TEST_TMP/big.json"
size=$(stat -c %s "$TEST_TMP/big.json")
out=$(curl -sS -v -o /dev/null -w '%{http_code}' "$URL" \
    -H 'content-type: application/json' --data-binary "@$TEST_TMP/big.json" 2>&1)
check_match "a 2 MB body gets the gateway's 100 Continue" '< HTTP/1.1 100 Continue' "$out"
check_match "and 200" '200$' "$out"
check_eq "the vendor got all of it" "$size" "$(vendor_bytes big)"
body bigchunked 2000000 >"$TEST_TMP/bigc.json"
size=$(stat -c %s "$TEST_TMP/bigc.json")
check_eq "the same body chunked gets 200" 200 \
    "$(curl -sS -o /dev/null -w '%{http_code}' "$URL" -H 'Transfer-Encoding: chunked' \
        -H 'content-type: application/json' --data-binary "@$TEST_TMP/bigc.json")"
check_eq "and arrives whole" "$size" "$(vendor_bytes bigchunked)"

# raw PORT: send stdin's bytes (LF made CRLF), half-close unless the last
# line is KEEP, print what comes back (CRLF made LF)
cat >"$TEST_TMP/raw.py" <<'EOF'
import socket, sys
data = sys.stdin.buffer.read().replace(b"\n", b"\r\n")
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(30)
s.sendall(data)
if not data.endswith(b"KEEP\r\n"):
    s.shutdown(socket.SHUT_WR)
out = b""
while True:
    try:
        x = s.recv(65536)
    except socket.timeout:
        break
    if not x:
        break
    out += x
sys.stdout.buffer.write(out.replace(b"\r\n", b"\n"))
EOF
raw() { python3 "$TEST_TMP/raw.py" "$1"; }
pipelined() {
    local i b
    for i in 1 2 3; do
        b=$(body "pipe$i")
        printf 'POST /v1/messages HTTP/1.1\nHost: x\nContent-Type: application/json\nContent-Length: %d\n\n' \
            "$((${#b}))"
        printf '%s' "$b"
    done
}
# the bodies have no newline, so the \n -> \r\n rewrite leaves them be
out=$(pipelined | raw "$PORT_main")
check_eq "three pipelined requests and a half-close get three answers" 3 \
    "$(grep -o 'HTTP/1.1 200 OK' <<<"$out" | wc -l)"
check_eq "in order" "pipe1 pipe2 pipe3" \
    "$(jq -r 'select(.task | startswith("pipe")) | .task' "$TEST_TMP/vendor.out" | paste -sd' ')"

out=$(printf 'POST /v1/messages HTTP/1.1\nHost: x\nKEEP\n' | raw "$PORT_main")
check_match "a head that never ends gets 408" '^HTTP/1.1 408 ' "$out"
check_match "with Proxy-Status" \
    'Proxy-Status: agentctl-gateway; error=http_request_error; details="request head not complete in time"' \
    "$out"

out=$(printf 'POST /v1/messages HTTP/1.1\nHost: x\nTransfer-Encoding: chunked\n\n2\nhi\n0\nx-api-key: mine\n\n' |
    raw "$PORT_main")
check_match "a chunked request with trailers gets 400" '^HTTP/1.1 400 ' "$out"
check_match "saying why" 'details="trailer fields are not accepted"' "$out"
out=$(printf 'POST /v1/messages HTTP/1.1\nHost: x\nContent-Length: 2\nTransfer-Encoding: chunked\n\n2\nhi\n0\n\n' |
    raw "$PORT_main")
check_match "Content-Length with Transfer-Encoding gets 400" '^HTTP/1.1 400 ' "$out"
check "neither reached the vendor" \
    test -z "$(jq -r 'select(.bodyBytes == 2) | 1' "$TEST_TMP/vendor.out")"
check "control: the record search finds a request that did arrive" \
    test -n "$(jq -r 'select(.task == "pipe2") | 1' "$TEST_TMP/vendor.out")"

BYTES=http://127.0.0.1:$PORT_bytes/v1/messages
check_eq "the byte budget's first request passes" 200 \
    "$(curl -sS -o /dev/null -w '%{http_code}' "$BYTES" -d "$(body b1)")"
out=$(curl -sS -i "$BYTES" -d "$(body b2)")
check_match "once spent, 429" '^HTTP/1.1 429 ' "$out"
check_match "byte budget spent" 'details="byte budget spent"' "$out"
check_eq "the audit line says what is left" "0" \
    "$(jq -r .bytes_left "$TEST_TMP/bytes.audit" | tail -n 1)"

# the request target: RFC 3986 characters only (a '#' is not cut here
# and forwarded whole); a field name with '_' is refused (a server would
# read X_Api_Key as X-Api-Key)
hostile() { # TARGET FIELD-LINE TASK
    local b
    b=$(body "$3")
    printf 'POST %s HTTP/1.1\nHost: x\n%sContent-Type: application/json\nContent-Length: %d\n\n%s' \
        "$1" "$2" "${#b}" "$b"
}
out=$(hostile '/v1/messages#/../../admin' '' hash | raw "$PORT_main")
check_match "a target with '#' gets 400" '^HTTP/1.1 400 ' "$out"
check_match "naming the byte and where" \
    'details="request target: byte 0x23 at 12 is not allowed \(RFC 3986\)"' "$out"
out=$(hostile $'/v1/messages\xff' '' rawbyte | raw "$PORT_main")
check_match "a raw 0xff in the target gets 400" \
    'details="request target: byte 0xff at 12 is not allowed \(RFC 3986\)"' "$out"
out=$(hostile '/v1/%u002e%u002e/admin' '' pctu | raw "$PORT_main")
check_match "a %u escape gets 400" \
    'details="request target: byte 0x25 at 4 is not allowed \(RFC 3986\)"' "$out"
out=$(hostile '/v1/messages' $'X_Api_Key: sk-agents-own\n' underscore |
    raw "$PORT_main")
check_match "an underscore-spelled credential header gets 400" '^HTTP/1.1 400 ' "$out"
check_match "saying why" \
    'details="header field name \\"X_Api_Key\\" has \\"_\\": refused, servers read it as \\"-\\""' \
    "$out"
out=$(hostile '/v1/messages' $'X_HTTP_Method_Override: DELETE\n' override |
    raw "$PORT_main")
check_match "so does X_HTTP_Method_Override" '^HTTP/1.1 400 ' "$out"
for t in hash rawbyte pctu underscore override; do
    check "the $t request never reached the vendor" \
        test -z "$(jq -r --arg t "$t" 'select(.task == $t) | 1' "$TEST_TMP/vendor.out")"
done
check "one audit line each, saying why" \
    jq_true -s 'map(select(.status == 400 and
        (.reason | startswith("request target: byte") or
         startswith("header field name")))) | length == 5' \
    "$TEST_TMP/main.audit"

# request bodies: --max-body per request, --max-bytes before forwarding
body capok 3500 >"$TEST_TMP/capok.json"
body capover 5000 >"$TEST_TMP/capover.json"
CAP=http://127.0.0.1:$PORT_cap/v1/messages
check_eq "a body under --max-body passes" 200 \
    "$(curl -sS -o /dev/null -w '%{http_code}' "$CAP" --data-binary "@$TEST_TMP/capok.json")"
out=$(curl -sS -i "$CAP" --data-binary "@$TEST_TMP/capover.json")
check_match "a Content-Length body over --max-body gets 413" '^HTTP/1.1 413 ' "$out"
check_match "saying why" 'details="request body over --max-body"' "$out"
out=$(curl -sS -i "$CAP" -H 'Transfer-Encoding: chunked' \
    --data-binary "@$TEST_TMP/capover.json")
check_match "a chunked body growing past --max-body gets 413" '^HTTP/1.1 413 ' "$out"
check_eq "both audit lines say why" \
    "413 request body over --max-body,413 request body over --max-body" \
    "$(jq -r 'select(.status == 413) | "\(.status) \(.reason)"' "$TEST_TMP/cap.audit" | paste -sd,)"
check "the body over the cap never reached the vendor" \
    test -z "$(jq -r 'select(.task == "capover") | 1' "$TEST_TMP/vendor.out")"
check "control: the body under the cap did" \
    test -n "$(jq -r 'select(.task == "capok") | 1' "$TEST_TMP/vendor.out")"

# one 5 MB body and a 1,000-byte budget
body huge 5000000 >"$TEST_TMP/huge.json"
out=$(curl -sS -i "http://127.0.0.1:$PORT_tiny/v1/messages" \
    --data-binary "@$TEST_TMP/huge.json")
check_match "a 5 MB body against a 1,000-byte budget gets 429 at once" \
    '^HTTP/1.1 429 ' "$out"
check_match "byte budget spent" 'details="byte budget spent"' "$out"
check_eq "and counts nothing" "1000" \
    "$(jq -r .bytes_left "$TEST_TMP/tiny.audit" | tail -n 1)"
out=$(curl -sS -i "http://127.0.0.1:$PORT_tinyc/v1/messages" \
    -H 'Transfer-Encoding: chunked' --data-binary "@$TEST_TMP/huge.json" |
    tr -d '\r')
check_match "the same body chunked is stopped as it grows: 429 (after the 100)" \
    $'^HTTP/1.1 100 Continue\n\nHTTP/1.1 429 ' "$out"
check_eq "the audit line says why" "429 byte budget spent" \
    "$(jq -r '"\(.status) \(.reason)"' "$TEST_TMP/tinyc.audit" | tail -n 1)"
check "and what went up stayed within the budget" \
    jq_true -s '.[-1].bytes_up <= 1000' "$TEST_TMP/tinyc.audit"
check "the 5 MB body never reached the vendor" \
    test -z "$(jq -r 'select(.task == "huge" or .bodyBytes > 4000000) | 1' "$TEST_TMP/vendor.out")"

# the operator's organization and project (--organization, --project):
# sent for every request, in place of the ones the box sends
org_box() { # PORT TASK: a request naming the box's own org and project
    curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/v1/messages" \
        -H 'content-type: application/json' -H 'OpenAI-Organization: org-box' \
        -H 'openai-project: proj_box' --data-binary "$(body "$2")"
}
# vendor_org TASK: the org and project the vendor saw for TASK's request
vendor_org() {
    jq -r --arg t "$1" 'select(.task == $t)
        | "\(.headers["openai-organization"]) \(.headers["openai-project"])"' \
        "$TEST_TMP/vendor.out"
}
check_eq "--organization: the request goes" 200 "$(org_box "$PORT_org" orgop)"
check_eq "the vendor sees the operator's organization and project" \
    "org-operator1 proj_operator1" "$(vendor_org orgop)"
check "and never the box's" \
    not grep -q 'org-box\|proj_box' "$TEST_TMP/vendor.out"
check_eq "control: without the flags the request goes" 200 \
    "$(org_box "$PORT_main" orgnone)"
check_eq "control: and the vendor sees neither (the box's are dropped)" \
    "null null" "$(vendor_org orgnone)"
rc=0
"$GW_BIN" --listen 127.0.0.1:0 --upstream "$HOST:443" --ca-file "$TEST_TMP/ca.pem" \
    --allow 'POST /v1/messages' --no-credential \
    --organization $'org-a\r\nX-Api-Key: k' >/dev/null 2>"$TEST_TMP/orgbad.err" || rc=$?
check_eq "an --organization that is not an ID stops the gateway (2)" 2 "$rc"
check "saying why" grep -q "letters, digits" "$TEST_TMP/orgbad.err"

cp "$TEST_TMP/key" "$TEST_TMP/key0640"
chmod 0640 "$TEST_TMP/key0640"
rc=0
"$GW_BIN" --listen 127.0.0.1:0 --upstream "$HOST:443" --ca-file "$TEST_TMP/ca.pem" \
    --allow 'POST /v1/messages' --key-file "$TEST_TMP/key0640" \
    >/dev/null 2>"$TEST_TMP/open.err" || rc=$?
check_eq "a key file of mode 0640 stops the gateway with status 1" 1 "$rc"
check "saying why" grep -q 'mode 0640.*want 0400' "$TEST_TMP/open.err"
check "the key is in no log or audit line" \
    not grep -rqF "$(cat "$TEST_TMP/key")" "$TEST_TMP"/main.err \
    "$TEST_TMP"/main.audit "$TEST_TMP"/bytes.err "$TEST_TMP"/bytes.audit \
    "$TEST_TMP"/open.err "$TEST_TMP"/vendor.out

# SIGTERM with a stream in flight (the vendor holds it after its first
# event until release/go exists)
: >"$TEST_TMP/drain.out"
curl -sS -N --max-time 60 "http://127.0.0.1:$PORT_drain/v1/messages" \
    -H 'tv-hold: 1' -d '{"model":"m","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"TASK drain"}]}' \
    >"$TEST_TMP/drain.out" 2>&1 &
curl_pid=$!
for i in $(seq 1 300); do # readiness: the first event is through
    grep -q 'event: message_start' "$TEST_TMP/drain.out" && break
    sleep 0.1
done
check "the held stream's first event is through" \
    grep -q 'event: message_start' "$TEST_TMP/drain.out"
kill -TERM "$DRAIN_PID"
for i in $(seq 1 100); do # readiness: the gateway says it drains
    grep -q '"draining' "$TEST_TMP/drain.err" && break
    sleep 0.1
done
check "after SIGTERM a new connection is refused" \
    not curl -sS -o /dev/null --max-time 10 "http://127.0.0.1:$PORT_drain/v1/messages" -d '{}' 2>/dev/null
touch "$TEST_TMP/release/go"
wait "$curl_pid" || fail "the stream in flight broke: $(cat "$TEST_TMP/drain.out")"
check "the stream in flight still ended whole" \
    grep -q 'event: message_stop' "$TEST_TMP/drain.out"
rc=0
wait "$DRAIN_PID" || rc=$?
check_eq "then the gateway exited 0" 0 "$rc"
check "with its audit line for the stream" \
    grep -q '"status":200' "$TEST_TMP/drain.audit"
