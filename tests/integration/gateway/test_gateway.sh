#!/usr/bin/env bash
# test_gateway.sh - the credential gateway (agentctl/agent-gateway,
# docs/gateway.md) in its image against the TLS test vendor
# (tests/images/vendor/) on a network this test makes, with a CA this run
# makes. The test talks only to containers on that network.
#
#   the vendor receives the real key as x-api-key, once: the agent's own
#     x-api-key and Authorization are replaced (the vendor's record lists
#     a digest of every secret header it got);
#   an SSE response arrives incrementally: the first event is at the
#     client while the vendor still holds the rest of the stream;
#   a path outside the allowlist (and one with a dot segment) gets 403
#     with Proxy-Status; the budget spent gets 429 with Proxy-Status;
#   an attacker's requests: a target with '#', an underscore-spelled
#     credential header (X_Api_Key), a body over --max-body (by length
#     and chunked) get 400 / 400 / 413 with Proxy-Status, and the vendor's
#     log shows none of them arrived (control: a body under the cap did);
#   a vendor certificate from another CA gets 502 with Proxy-Status
#     error=tls_certificate_error (reached through --connect-to);
#   a key file of mode 0644 is refused at start;
#   `docker inspect` and the logs of the gateway hold no key;
#   the audit lines are one JSON object each, one per request, with the
#     fields; SIGTERM (docker stop) ends the gateway with status 0.
#
# Negative controls, each run through the same check function that must
# then fail: a gateway with --no-credential (injection off) -> the vendor
# gets no key; a container with the key in its env -> the inspect search
# finds it; a stream the vendor is not holding -> the "still open" check
# fails.
source "$(dirname "$0")/../lib.sh"
command -v openssl >/dev/null || skip "openssl not installed"
command -v jq >/dev/null || skip "jq not installed"
need_docker
VERSION=$(sed -n 's/^project(agentctl VERSION \([0-9.]*\).*/\1/p' \
    "$ROOT/CMakeLists.txt")
L=(--label "$TEST_LABEL")
id=$$
not() { ! "$@"; }
jq_true() { jq -e "$@" >/dev/null; }
HOST=llm.vendor.test
KEY="sk-ant-gw-$id-$(openssl rand -hex 12)"
KEY_SHA=$(printf '%s' "$KEY" | sha256sum | cut -c1-64)

# Images: this checkout's gateway and vendor, each under a tag of this
# run's (the shared agentctl/agent-gateway and agentctl/tls-vendor tags
# may be another checkout's build, and a scenario running beside this one
# may be using them).
GTAG=agentctl-test/agent-gateway:gw-$id
bash "$ROOT/hack/images/build-agent-gateway.sh" "$GTAG" >/dev/null 2>&1 ||
    fail "cannot build $GTAG"
on_cleanup "docker rmi -f $GTAG >/dev/null 2>&1"
GW_IMAGE=$(docker image inspect -f '{{.Id}}' "$GTAG")
VTAG=agentctl-test/tls-vendor:gw-$id
bash "$ROOT/hack/images/build-tls-vendor.sh" "$VTAG" >/dev/null 2>&1 ||
    fail "cannot build $VTAG"
on_cleanup "docker rmi -f $VTAG >/dev/null 2>&1"

# Two CAs: the vendor's certificate from "ca", the rogue's from "rogue",
# both for $HOST.
make_cert() { # DIR CA-NAME
    make_test_ca "$1" "$HOST" "$2 $id"
}
mkdir -p "$TEST_TMP"/{tls,rogue,release,keys,keys644}
make_cert "$TEST_TMP/tls" "gateway test CA"
make_cert "$TEST_TMP/rogue" "rogue CA"
chmod 0755 "$TEST_TMP"/{tls,rogue,release}

# The key as the controller would leave it: a directory and a file only
# the gateway's user (65534) may read; and a copy of mode 0644.
printf '%s\n' "$KEY" >"$TEST_TMP/keys/api-key"
chown -R 65534:65534 "$TEST_TMP/keys"
chmod 0500 "$TEST_TMP/keys"
chmod 0400 "$TEST_TMP/keys/api-key"
cp "$TEST_TMP/keys/api-key" "$TEST_TMP/keys644/api-key"
chown -R 65534:65534 "$TEST_TMP/keys644"
chmod 0755 "$TEST_TMP/keys644"
chmod 0644 "$TEST_TMP/keys644/api-key"

NET=gwnet-$id
docker network create "${L[@]}" "$NET" >/dev/null || fail "no network"

# wait_log NAME TEXT: readiness (bounded), not a timed assertion.
wait_log() {
    local i
    for i in $(seq 1 100); do
        docker logs "$1" 2>&1 | grep -q "$2" && return 0
        sleep 0.1
    done
    fail "$1 never logged '$2': $(docker logs "$1" 2>&1 | tail -5)"
}
ip_of() {
    docker inspect -f "{{(index .NetworkSettings.Networks \"$NET\").IPAddress}}" "$1"
}

vendor() { # NAME CERT-DIR [ALIAS]
    local alias=()
    [ -z "${3:-}" ] || alias=(--network-alias "$3")
    docker run -d "${L[@]}" --name "$1-$id" --network "$NET" "${alias[@]}" \
        -e TV_RELEASE_FILE=/release/go -v "$2:/tls:ro" \
        -v "$TEST_TMP/release:/release:ro" "$VTAG" \
        --cert /tls/vendor.pem --key /tls/vendor.key --port 443 >/dev/null ||
        fail "cannot start $1"
    wait_log "$1-$id" 'listening on 443'
}
vendor vendor "$TEST_TMP/tls" "$HOST"
vendor rogue "$TEST_TMP/rogue"

# gateway NAME KEY-DIR FLAG...: the gateway hardened as the controller
# would run it (read-only root, no capabilities, no new privileges).
gateway() {
    local name=$1 keys=$2
    shift 2
    docker run -d "${L[@]}" --name "$name-$id" --network "$NET" \
        --read-only --cap-drop ALL --security-opt no-new-privileges \
        --memory 64m --pids-limit 32 \
        -v "$keys:/run/agentctl/gateway:ro" -v "$TEST_TMP/tls/ca.pem:/ca.pem:ro" \
        "$GW_IMAGE" --listen 0.0.0.0:8080 --upstream "$HOST:443" \
        --ca-file /ca.pem --allow 'POST /v1/messages' --allow-private \
        "$@" >/dev/null || fail "cannot start $name"
}
KEYFLAGS=(--key-file /run/agentctl/gateway/api-key --auth-header x-api-key)
gateway gw "$TEST_TMP/keys" "${KEYFLAGS[@]}"
gateway budget "$TEST_TMP/keys" "${KEYFLAGS[@]}" --max-requests 1
gateway nocred "$TEST_TMP/keys" --no-credential
gateway tofu "$TEST_TMP/keys" "${KEYFLAGS[@]}" \
    --connect-to "$HOST:443=$(ip_of "rogue-$id"):443"
gateway holes "$TEST_TMP/keys" "${KEYFLAGS[@]}" --max-body 4096
for g in gw budget nocred tofu holes; do
    wait_log "$g-$id" '"msg":"listening"'
done
GW=http://$(ip_of "gw-$id"):8080

body() { # TASK [STREAM]
    jq -cn --arg t "TASK $1" --argjson s "${2:-false}" \
        '{model: "claude-test", max_tokens: 16, stream: $s,
          messages: [{role: "user", content: $t}]}'
}
# post BASE TASK [CURL-ARG...]: status line, headers and body in one
post() {
    local base=$1 task=$2
    shift 2
    curl -sS -i --max-time 30 "$base/v1/messages" \
        -H 'content-type: application/json' -H 'anthropic-version: 2023-06-01' \
        "$@" -d "$(body "$task")"
}
status_of() { head -n 1 | tr -d '\r' | cut -d' ' -f2; }
proxy_status_of() { grep -i '^Proxy-Status:' | tr -d '\r' || true; }

# vendor_got_key TASK: the vendor's record of TASK lists exactly one
# secret header, x-api-key, whose value is the real key.
vendor_got_key() {
    local got
    got=$(docker logs "vendor-$id" 2>/dev/null |
        jq -c --arg t "$1" 'select(.task == $t) | .secrets' 2>/dev/null)
    [ "$got" == "[\"x-api-key sha256:$KEY_SHA\"]" ]
}

# 1. the real key, the agent's own credentials replaced
out=$(post "$GW" t-real -H 'x-api-key: agent-placeholder' \
    -H 'Authorization: Bearer another-account')
check_eq "a request through the gateway is answered" 200 \
    "$(status_of <<<"$out")"
check_match "with the vendor's answer" 'VENDOR-OK' "$out"
check "the vendor got the real key as x-api-key, and nothing else secret" \
    vendor_got_key t-real
check "the agent's placeholder did not reach the vendor either" \
    test -z "$(docker logs "vendor-$id" 2>/dev/null |
        jq -r 'select(.task == "t-real") | .secrets[]' |
        grep -v "sha256:$KEY_SHA")"

# 2. an SSE stream arrives incrementally: the vendor holds everything
# after the first event until release/go exists
stream_open_after_first_event() { # FILE PID
    local i
    for i in $(seq 1 300); do
        grep -q 'event: message_start' "$1" && break
        sleep 0.1
    done
    grep -q 'event: message_start' "$1" && ! grep -q 'message_stop' "$1" &&
        kill -0 "$2" 2>/dev/null
}
: >"$TEST_TMP/sse.out"
curl -sS -N --max-time 60 "$GW/v1/messages" -H 'content-type: application/json' \
    -H 'tv-hold: 1' -d "$(body t-sse true)" >"$TEST_TMP/sse.out" 2>&1 &
sse_pid=$!
check "the first SSE event is at the client while the stream is held" \
    stream_open_after_first_event "$TEST_TMP/sse.out" "$sse_pid"
touch "$TEST_TMP/release/go"
wait "$sse_pid" || fail "the held stream did not end well: $(cat "$TEST_TMP/sse.out")"
check "after the release the stream ends with message_stop" \
    grep -q 'event: message_stop' "$TEST_TMP/sse.out"
: >"$TEST_TMP/sse2.out"
curl -sS -N --max-time 60 "$GW/v1/messages" -H 'content-type: application/json' \
    -H 'tv-hold: 1' -d "$(body t-sse2 true)" >"$TEST_TMP/sse2.out" 2>&1 &
sse_pid=$!
wait "$sse_pid" || true
check "control: an unheld stream fails the still-open check" \
    not stream_open_after_first_event "$TEST_TMP/sse2.out" "$sse_pid"

# 3. policy: 403 with Proxy-Status
out=$(curl -sS -i --max-time 30 "$GW/v1/models")
check_eq "a path outside the allowlist gets 403" 403 "$(status_of <<<"$out")"
check_eq "with Proxy-Status naming the refusal" \
    'Proxy-Status: agentctl-gateway; error=http_request_denied; details="path not allowed"' \
    "$(proxy_status_of <<<"$out")"
out=$(curl -sS -i --max-time 30 --path-as-is -X POST \
    "$GW/v1/messages/../../v1/admin" -d '{}')
check_eq "a dot segment under an allowed prefix gets 403" 403 \
    "$(status_of <<<"$out")"
check_match "as a path not in normal form" 'details="path not in normal form"' \
    "$(proxy_status_of <<<"$out")"

# 4. budget: one request, then 429
BUDGET=http://$(ip_of "budget-$id"):8080
check_eq "the budget's one request passes" 200 \
    "$(post "$BUDGET" t-budget1 | status_of)"
out=$(post "$BUDGET" t-budget2)
check_eq "the next gets 429" 429 "$(status_of <<<"$out")"
check_match "with Proxy-Status saying why" \
    'error=http_request_denied; details="request budget spent"' \
    "$(proxy_status_of <<<"$out")"

# 4b. an attacker in the box: a target with '#', an underscore-spelled
# credential header, a body over --max-body; each refused before the
# vendor, which never sees it
HOLES=http://$(ip_of "holes-$id"):8080
vendor_has() { # TASK: the vendor's log has a record of TASK
    test -n "$(docker logs "vendor-$id" 2>/dev/null |
        jq -r --arg t "$1" 'select(.task == $t) | 1' 2>/dev/null)"
}
out=$(post "$HOLES" t-hash --request-target '/v1/messages#/../../admin')
check_eq "a target with '#' gets 400" 400 "$(status_of <<<"$out")"
check_eq "with Proxy-Status naming the byte" \
    'Proxy-Status: agentctl-gateway; error=http_request_error; details="request target: byte 0x23 at 12 is not allowed (RFC 3986)"' \
    "$(proxy_status_of <<<"$out")"
out=$(post "$HOLES" t-underscore -H "X_Api_Key: sk-ant-agents-own-$id")
check_eq "an underscore-spelled credential header gets 400" 400 \
    "$(status_of <<<"$out")"
check_match "with Proxy-Status saying why" \
    'details="header field name \\"X_Api_Key\\" has \\"_\\": refused, servers read it as \\"-\\""' \
    "$(proxy_status_of <<<"$out")"
big_body() { # TASK BYTES: a Messages request of about BYTES
    jq -cn --arg t "TASK $1" --arg pad "$(head -c "$2" /dev/zero | tr '\0' x)" \
        '{model: "claude-test", max_tokens: 16,
          messages: [{role: "user", content: ($t + "\n" + $pad)}]}'
}
big_body t-bigok 3000 >"$TEST_TMP/bigok.json"
big_body t-bigover 8000 >"$TEST_TMP/bigover.json"
big_body t-bigchunk 8000 >"$TEST_TMP/bigchunk.json"
out=$(curl -sS -i --max-time 30 "$HOLES/v1/messages" \
    -H 'content-type: application/json' --data-binary "@$TEST_TMP/bigover.json")
check_eq "a body over --max-body gets 413" 413 "$(status_of <<<"$out")"
check_match "with Proxy-Status saying why" \
    'error=http_request_denied; details="request body over --max-body"' \
    "$(proxy_status_of <<<"$out")"
out=$(curl -sS -i --max-time 30 "$HOLES/v1/messages" -H 'Expect:' \
    -H 'Transfer-Encoding: chunked' -H 'content-type: application/json' \
    --data-binary "@$TEST_TMP/bigchunk.json")
check_eq "the same chunked gets 413 as it grows" 413 "$(status_of <<<"$out")"
check_eq "a body under --max-body passes" 200 \
    "$(curl -sS -o /dev/null -w '%{http_code}' --max-time 30 "$HOLES/v1/messages" \
        -H 'content-type: application/json' --data-binary "@$TEST_TMP/bigok.json")"
for t in t-hash t-underscore t-bigover t-bigchunk; do
    check "the vendor's log shows no $t" not vendor_has "$t"
done
check "control: the vendor's log shows the body under the cap" \
    vendor_has t-bigok
check_eq "the holes gateway's audit: one line each, saying why" \
    "400 request target: byte 0x23 at 12 is not allowed (RFC 3986)|400 header field name \"X_Api_Key\" has \"_\": refused, servers read it as \"-\"|413 request body over --max-body|413 request body over --max-body|200 forwarded" \
    "$(docker logs "holes-$id" 2>/dev/null | jq -r '"\(.status) \(.reason)"' | paste -sd'|')"

# 5. a certificate from another CA: 502 tls_certificate_error
out=$(post "http://$(ip_of "tofu-$id"):8080" t-rogue)
check_eq "a vendor certificate from another CA gets 502" 502 \
    "$(status_of <<<"$out")"
check_match "with Proxy-Status tls_certificate_error" \
    'error=tls_certificate_error' "$(proxy_status_of <<<"$out")"
check "the rogue vendor never saw a request" \
    test -z "$(docker logs "rogue-$id" 2>/dev/null | grep '^{' || true)"

# 6. negative control: injection off -> no key at the vendor
check_eq "without a credential the vendor still answers" 200 \
    "$(post "http://$(ip_of "nocred-$id"):8080" t-nocred | status_of)"
check "control: with injection off the key check fails" \
    not vendor_got_key t-nocred

# 7. a key file others may read is refused at start
rc=0
docker run "${L[@]}" --name "open-$id" --network "$NET" --read-only \
    --cap-drop ALL -v "$TEST_TMP/keys644:/run/agentctl/gateway:ro" \
    -v "$TEST_TMP/tls/ca.pem:/ca.pem:ro" "$GW_IMAGE" --listen 0.0.0.0:8080 \
    --upstream "$HOST:443" --ca-file /ca.pem --allow 'POST /v1/messages' \
    "${KEYFLAGS[@]}" >"$TEST_TMP/open.out" 2>&1 || rc=$?
check "a key file of mode 0644 stops the gateway at start" test "$rc" -ne 0
check "saying why" grep -q 'mode 0644.*want 0400' "$TEST_TMP/open.out"
check "and it never listened" not grep -q '"listening"' "$TEST_TMP/open.out"

# 8. no key in docker inspect or the logs
# not "docker inspect | grep -q": grep -q exits at the first match, and
# with pipefail the inspect's SIGPIPE then fails the pipe (a flaky control)
inspect_has_key() { grep -qF "$KEY" <<<"$(docker inspect "$1")"; }
for g in gw budget nocred tofu holes; do
    check "docker inspect of $g shows no key" not inspect_has_key "$g-$id"
    check "the logs of $g hold no key" \
        not grep -qF "$KEY" <<<"$(docker logs "$g-$id" 2>&1)"
done
docker create "${L[@]}" --name "envkey-$id" -e "ANTHROPIC_API_KEY=$KEY" \
    "$GW_IMAGE" >/dev/null
check "control: the inspect search finds a key put in the env" \
    inspect_has_key "envkey-$id"

# 9. audit lines: one JSON object per request, with the fields
audit=$(docker logs "gw-$id" 2>/dev/null)
check_eq "one audit line per request on the main gateway" 5 \
    "$(grep -c . <<<"$audit")"
check "every audit line is one JSON object with every field" \
    jq_true -s 'length == 5 and all(.[]; type == "object" and
        (keys | contains(["time", "method", "path", "status", "bytes_up",
          "bytes_down", "duration_ms", "requests_left", "bytes_left"])))' \
    <<<"$audit"
check_eq "their statuses and paths" \
    "200 /v1/messages,200 /v1/messages,200 /v1/messages,403 /v1/models,403 /v1/messages/../../v1/admin" \
    "$(jq -r '"\(.status) \(.path)"' <<<"$audit" | paste -sd,)"
check "bytes were counted both ways for a forwarded request" \
    jq_true -s '.[0].bytes_up > 0 and .[0].bytes_down > 0' <<<"$audit"
check_eq "the budget gateway counted down" "0 0" \
    "$(docker logs "budget-$id" 2>/dev/null | jq -r .requests_left | paste -sd' ')"

# 10. SIGTERM ends it cleanly
docker stop -t 10 "gw-$id" >/dev/null
check_eq "SIGTERM stops the gateway with status 0" 0 \
    "$(docker inspect -f '{{.State.ExitCode}}' "gw-$id")"
check "it says it stopped" grep -q '"msg":"stopped"' \
    <<<"$(docker logs "gw-$id" 2>&1)"
