#!/usr/bin/env bash
# test_gateway_body_policy.sh - agent-gateway's request policy of the model
# endpoints (--body-policy, docs/gateway.md "Request policy") on loopback,
# with the built binaries (no Docker): the TLS test vendor on 127.0.0.1
# and an attacker (curl) sending what a process in the box could.
#
#   anthropic: a Messages request with client tools passes; a server-side
#     tool (web_fetch), mcp_servers, the same key escaped (m\u0063p_...),
#     an unlisted anthropic-beta, a chunked body, a compressed body, a body
#     that is not strict JSON: each refused (403/411/415) with a
#     Proxy-Status naming why, an audit line saying it, and never in the
#     vendor's records; --allow-tool-type widens exactly the type it names;
#   openai: /v1/responses with function tools passes; web_search, an mcp
#     tool, background: true and an unlisted OpenAI-Beta flag are refused;
#     --allow-beta admits exactly the OpenAI-Beta flag it names;
#   a refused request uses no budget (--max-requests 1: a refusal, then
#     the one request still goes, then 429).
# Negative controls: the same server-tool request and the same OpenAI-Beta
# request through a gateway without --body-policy reach the vendor (so the
# checks above can fail).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib_gateway_local.sh"
gwl_init "gateway policy test CA" openssl python3 curl jq gzip
gwl_vendor
GWL_FLAGS=(--no-credential)
gateway ant --allow 'POST /v1/messages' --body-policy anthropic
gateway wide --allow 'POST /v1/messages' --body-policy anthropic \
    --allow-tool-type web_fetch_20250910
gateway oai --allow 'POST /v1/responses' --body-policy openai
gateway oaiwide --allow 'POST /v1/responses' --body-policy openai \
    --allow-beta assistants=v2
gateway open --allow 'POST /v1/messages' # the control: no policy
gateway oaiopen --allow 'POST /v1/responses' # the control: no policy
gateway one --allow 'POST /v1/messages' --body-policy anthropic --max-requests 1

# send NAME PATH BODY [CURL-ARGS...]: POST it; prints "STATUS PROXY-STATUS"
send() {
    local port=PORT_$1 path=$2 body=$3
    shift 3
    printf '%s' "$body" >"$TEST_TMP/body"
    curl -sS -o /dev/null -D "$TEST_TMP/head" -w '%{http_code}' \
        "http://127.0.0.1:${!port}$path" -H 'content-type: application/json' \
        --data-binary "@$TEST_TMP/body" "$@" >"$TEST_TMP/code"
    printf '%s %s' "$(cat "$TEST_TMP/code")" \
        "$(grep -i '^proxy-status:' "$TEST_TMP/head" | tr -d '\r' || true)"
}
# arrived TASK: the vendor recorded a request whose prompt said TASK
arrived() { jq -e --arg t "$1" 'select(.task == $t)' "$TEST_TMP/vendor.out" >/dev/null; }
# path_arrived PATH: the vendor recorded a request for PATH (it records
# every request, a 404 too)
path_arrived() { jq -e --arg p "$1" 'select(.path == $p)' "$TEST_TMP/vendor.out" >/dev/null; }
msg() { # TASK EXTRA-JSON-MEMBERS
    printf '{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"TASK %s"}]%s}' "$1" "$2"
}

out=$(send ant /v1/messages "$(msg ok ',"tools":[{"name":"Read","input_schema":{"type":"object"}}]')")
check_match "anthropic: client tools pass (200)" '^200' "$out"
check "and reach the vendor" arrived ok

refused() { # WHAT TASK EXPECT-STATUS EXPECT-DETAIL OUT
    check_match "$1: refused ($3)" "^$3 " "$5"
    check_match "$1: Proxy-Status says why" "$4" "$5"
    check "$1: never reached the vendor" not arrived "$2"
}
not() { ! "$@"; }
out=$(send ant /v1/messages "$(msg srv ',"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]')")
refused "a server-side tool" srv 403 'tools\[0\]\.type' "$out"
out=$(send ant /v1/messages "$(msg mcp ',"mcp_servers":[{"type":"url","url":"https://x.invalid/sse","name":"x"}]')")
refused "mcp_servers" mcp 403 'field \\"mcp_servers\\" is not allowed|mcp_servers' "$out"
out=$(send ant /v1/messages "$(msg esc ',"m\u0063p_servers":[]')")
refused "an escaped mcp_servers" esc 403 'mcp_servers' "$out"
out=$(send ant /v1/messages "$(msg beta '')" -H 'anthropic-beta: mcp-client-2025-04-04')
refused "an unlisted anthropic-beta" beta 403 'mcp-client-2025-04-04' "$out"
out=$(send ant /v1/messages "$(msg chunk '')" -H 'Transfer-Encoding: chunked')
refused "a chunked body" chunk 411 'Content-Length' "$out"
msg gz '' | gzip >"$TEST_TMP/gz"
out=$(curl -sS -o /dev/null -D "$TEST_TMP/head" -w '%{http_code}' \
    "http://127.0.0.1:$PORT_ant/v1/messages" -H 'content-type: application/json' \
    -H 'content-encoding: gzip' --data-binary "@$TEST_TMP/gz")
out="$out $(grep -i '^proxy-status:' "$TEST_TMP/head" | tr -d '\r')"
refused "a compressed body" gz 415 'compressed' "$out"
out=$(send ant /v1/messages '{"model":"m","messages":[],"tools":[],}')
check_match "a body that is not strict JSON: refused (403)" '^403 ' "$out"
check_match "it says so" 'not strict JSON' "$out"
check_match "the audit line names the refused field" '"mcp_servers' \
    "$(cat "$TEST_TMP/ant.audit")"

out=$(send wide /v1/messages "$(msg widened ',"tools":[{"type":"web_fetch_20250910","name":"f"}]')")
check_match "--allow-tool-type admits the type it names" '^200' "$out"
out=$(send wide /v1/messages "$(msg other ',"tools":[{"type":"web_search_20250305","name":"s"}]')")
check_match "and no other" '^403 ' "$out"

resp() { # TASK EXTRA-JSON-MEMBERS
    printf '{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"TASK %s"}]}]%s}' "$1" "$2"
}
out=$(send oai /v1/responses "$(resp fn ',"tools":[{"type":"function","name":"shell","parameters":{"type":"object"}}]')")
check_match "openai: function tools pass (200)" '^200' "$out"
check "and reach the vendor" arrived fn
out=$(send oai /v1/responses "$(resp ws ',"tools":[{"type":"web_search"}]')")
refused "openai: web_search" ws 403 'web_search' "$out"
out=$(send oai /v1/responses "$(resp omcp ',"tools":[{"type":"mcp","server_label":"x","server_url":"https://x.invalid/"}]')")
refused "openai: a remote MCP tool" omcp 403 'mcp' "$out"
out=$(send oai /v1/responses "$(resp bg ',"background":true')")
refused "openai: a background run" bg 403 'background' "$out"
# OpenAI-Beta, judged as anthropic-beta is: nothing on the list (Codex
# 0.171.0 sends none through the gateway), a widening admits its flag
OWS='OpenAI-Beta: responses_websockets=2026-02-06'
out=$(send oai /v1/responses "$(resp obeta '')" -H "$OWS")
refused "openai: an unlisted OpenAI-Beta" obeta 403 \
    'OpenAI-Beta .*responses_websockets=2026-02-06' "$out"
check_eq "openai: one audit line says it" 1 \
    "$(grep -c 'OpenAI-Beta .*responses_websockets' "$TEST_TMP/oai.audit")"
out=$(send oai /v1/responses "$(resp obeta2 '')" -H 'openai-beta: assistants=v2')
refused "openai: a lower-case openai-beta" obeta2 403 'assistants=v2' "$out"
out=$(send oaiwide /v1/responses "$(resp owide '')" -H 'OpenAI-Beta: assistants=v2')
check_match "--allow-beta admits the OpenAI-Beta flag it names (200)" '^200' "$out"
check "and it reaches the vendor" arrived owide
out=$(send oaiwide /v1/responses "$(resp oother '')" \
    -H 'OpenAI-Beta: assistants=v2, realtime=v1')
refused "and no other" oother 403 'realtime=v1' "$out"
out=$(send oaiopen /v1/responses "$(resp obetaopen '')" -H "$OWS")
check_match "control: without --body-policy the OpenAI-Beta request goes (200)" \
    '^200' "$out"
# beta_arrived TASK: the vendor recorded TASK's request with its OpenAI-Beta
beta_arrived() {
    jq -e --arg t "$1" 'select(.task == $t) | .headers["openai-beta"]
        | test("responses_websockets")' "$TEST_TMP/vendor.out" >/dev/null
}
check "control: and reaches the vendor with its header" beta_arrived obetaopen

# a refused request uses no budget: one request left, after a refusal
out=$(send one /v1/messages "$(msg spent ',"mcp_servers":[]')")
check_match "budget: a refused request (403)" '^403 ' "$out"
out=$(send one /v1/messages "$(msg afterrefusal '')")
check_match "budget: the one request allowed still goes (200)" '^200' "$out"
out=$(send one /v1/messages "$(msg overbudget '')")
check_match "budget: the next is over it (429, the control)" '^429 ' "$out"

# expect_100 PORT TASK: a raw client that sends the head with Expect:
# 100-continue and waits (up to 10 s) for the 100 before the body, as a
# client is entitled to; prints the status lines it got.
expect_100() {
    python3 - "$1" "$(msg "$2" '')" <<'PY'
import socket, sys
body = sys.argv[2].encode()
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(10)
s.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\n"
          b"Content-Type: application/json\r\nExpect: 100-continue\r\n"
          b"Content-Length: %d\r\n\r\n" % len(body))
try:
    first = s.recv(4096)
except socket.timeout:
    print("no 100 Continue within 10 s")
    sys.exit(0)
print(first.split(b"\r\n")[0].decode())
s.sendall(body)
data = b""
while b"\r\n\r\n" not in data:
    d = s.recv(4096)
    if not d:
        break
    data += d
print(data.split(b"\r\n")[0].decode())
PY
}
out=$(expect_100 "$PORT_ant" expect)
check_match "Expect: 100-continue on a judged body: the 100 first, then 200" \
    $'^HTTP/1.1 100 Continue\nHTTP/1.1 200' "$out"
check "and it reaches the vendor" arrived expect

# below a model endpoint: a prefix rule admits it, the vendor may serve it
# (the Message Batches take server-side tools), its body would not be
# judged: refused
SRV=',"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]'
for path in /v1/messages/batches /v1/messages/; do
    out=$(send ant "$path" "$(msg below "$SRV")")
    check_match "$path: refused (403)" '^403 .*below a model endpoint' "$out"
    check "$path: never reached the vendor" not path_arrived "$path"
done
out=$(send open /v1/messages/batches "$(msg below "$SRV")")
check "control: without --body-policy /v1/messages/batches reaches the vendor" \
    path_arrived /v1/messages/batches

out=$(send open /v1/messages "$(msg control ',"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]')")
check_match "control: without --body-policy the server tool goes through" '^200' "$out"
check "control: and reaches the vendor" arrived control
