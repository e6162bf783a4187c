#!/usr/bin/env bash
# test_gateway_tokens.sh - agent-gateway's token accounting on loopback,
# with the built binaries (no Docker): the gateway and the TLS test vendor
# on 127.0.0.1 (lib_gateway_local.sh). The vendor answers with the usage
# the prompt's "USAGE in out cacheRead cacheWrite" line asks for and
# records it per request.
#
#   Anthropic JSON, Anthropic SSE by length, chunked in 5-byte pieces and
#     ended by the close, OpenAI Responses SSE and JSON (chunked): the
#     audit lines' usage, request by request, equals the vendor's records,
#     and so do the totals; count_tokens has no usage; the agent's
#     Accept-Encoding does not reach the vendor (identity is asked for);
#   --max-tokens 500: two Anthropic answers bill 400 and 200 (cache reads
#     and writes count), the third request gets 429 "token budget spent"
#     with Proxy-Status and the vendor's records do not have it;
#   --max-tokens 1001 against OpenAI: 1000 input (900 of them cached)
#     spend 1000, not 1900: the next request still goes.
#   --max-tokens: one model request at a time (the overshoot is at most one
#     answer): while an answer is held in flight, a second model request
#     gets 429 "one model request at a time" and never reaches the vendor;
#     once the first has ended, the next goes. Control: without
#     --max-tokens the second request goes while the first is held.
# Negative control: the same third request through a gateway without
# --max-tokens arrives (the record search works).
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib_gateway_local.sh"
gwl_init "gateway tokens test CA" openssl python3 curl jq

printf 'sk-tok-%s\n' "$(openssl rand -hex 8)" >"$TEST_TMP/key"
chmod 0400 "$TEST_TMP/key"
mkdir -p "$TEST_TMP/release"
gwl_vendor TV_RELEASE_FILE="$TEST_TMP/release/go"
GWL_FLAGS=(--key-file "$TEST_TMP/key" --allow 'POST /v1/messages'
    --allow 'POST /v1/responses')
gateway acct
gateway budget --max-tokens 500
gateway obudget --max-tokens 1001
gateway open
gateway conc --max-tokens 100000

# ask GW PATH TASK USAGE STREAM [curl args...]: one model request; prints
# the status
ask() {
    local gw=$1 path=$2 task=$3 usage=$4 stream=$5 port body
    shift 5
    port=PORT_$gw
    body=$(python3 - "$path" "$task" "$usage" "$stream" <<'EOF'
import json, sys
path, task, usage, stream = sys.argv[1:5]
text = "TASK %s\nUSAGE %s" % (task, usage)
if path == "/v1/messages":
    b = {"model": "m", "max_tokens": 8, "stream": stream == "1",
         "messages": [{"role": "user", "content": text}]}
else:
    b = {"model": "m", "stream": stream == "1", "input": text}
print(json.dumps(b))
EOF
)
    curl -sS -o "$TEST_TMP/$task.out" -D "$TEST_TMP/$task.head" \
        -w '%{http_code}' "http://127.0.0.1:${!port}$path" \
        -H 'content-type: application/json' -H 'accept-encoding: gzip, br' \
        "$@" --data-binary "$body"
}
# model audit lines of a gateway, their usage in order
audit_usage() {
    jq -c 'select(.msg == "request" and (.path == "/v1/messages" or
        .path == "/v1/responses")) | .usage' "$TEST_TMP/$1.audit"
}
vendor_usage() { # the vendor's records of model answers, in order
    jq -c --arg p "$1" 'select(.task // "" | startswith($p)) | .usage' \
        "$TEST_TMP/vendor.out"
}
recorded() { # TASK: 1 when the vendor has a record of it
    jq -r --arg t "$1" 'select(.task == $t) | .task' "$TEST_TMP/vendor.out" |
        grep -c . || true
}

check_eq "anthropic json" 200 "$(ask acct /v1/messages a-json '100 20 300 40' 0)"
check_eq "anthropic sse" 200 "$(ask acct /v1/messages a-sse '50 7 0 9' 1)"
check_eq "anthropic sse chunked" 200 \
    "$(ask acct /v1/messages a-chunk '51 8 2 3' 1 -H 'tv-chunk: 5')"
check_eq "anthropic sse to the close" 200 \
    "$(ask acct /v1/messages a-close '52 9 4 5' 1 -H 'tv-chunk: close')"
check_eq "openai sse" 200 "$(ask acct /v1/responses a-osse '1000 77 900 0' 1)"
check_eq "openai json chunked" 200 \
    "$(ask acct /v1/responses a-ojson '12 3 4 0' 0 -H 'tv-chunk: 7')"
check_match "the stream reached the agent as sent" 'message_delta' \
    "$(cat "$TEST_TMP/a-chunk.out")"
check_eq "count_tokens answered" 200 "$(curl -sS -o /dev/null -w '%{http_code}' \
    "http://127.0.0.1:$PORT_acct/v1/messages/count_tokens" \
    -H 'content-type: application/json' --data-binary '{"model":"m","messages":[]}')"
sleep 0.3 # the audit line is written as the exchange ends

want=$(vendor_usage a- | jq -sc .)
check_eq "the vendor recorded six answers" 6 "$(jq length <<<"$want")"
check_eq "six usage lines, as the vendor's records, in order" \
    "$want" "$(audit_usage acct | jq -sc .)"
check_eq "the mapping, OpenAI's cached input as cacheRead" \
    '{"input":1000,"output":77,"cacheRead":900,"cacheWrite":0}' \
    "$(jq -c '.[4]' <<<"$want")"
for k in input output cacheRead cacheWrite; do
    check_eq "total $k equals the vendor's" \
        "$(vendor_usage a- | jq -s "map(.$k) | add")" \
        "$(audit_usage acct | jq -s "map(.$k) | add")"
done
check_eq "count_tokens has no usage" null "$(jq -c \
    'select(.path == "/v1/messages/count_tokens") | .usage' "$TEST_TMP/acct.audit")"
check_eq "no budget: tokens_left -1" '-1' "$(jq -r 'select(.msg == "request") |
    .tokens_left' "$TEST_TMP/acct.audit" | sort -u)"
check_eq "the vendor was asked for identity" identity \
    "$(jq -r 'select(.task == "a-json") | .headers["accept-encoding"]' \
        "$TEST_TMP/vendor.out")"
check_eq "every answer came uncoded" "" "$(grep -il '^content-encoding' \
    "$TEST_TMP"/a-*.head || true)"

# the token budget
check_eq "400 tokens billed" 200 "$(ask budget /v1/messages b-1 '100 100 100 100' 1)"
check_eq "200 more: admitted at 400 of 500" 200 \
    "$(ask budget /v1/messages b-2 '100 100 0 0' 0)"
check_eq "then 429" 429 "$(ask budget /v1/messages b-after '1 1 0 0' 1)"
check_match "with Proxy-Status" 'Proxy-Status: agentctl-gateway; error=http_request_denied; details="token budget spent"' \
    "$(cat "$TEST_TMP/b-after.head")"
sleep 0.3
check_eq "the vendor never saw it" 0 "$(recorded b-after)"
check_eq "tokens_left in the audit lines" '100 0 0' "$(jq -r \
    'select(.msg == "request") | .tokens_left' "$TEST_TMP/budget.audit" | xargs)"
check_eq "the refusal's audit line" 'token budget spent' "$(jq -r \
    'select(.status == 429) | .reason' "$TEST_TMP/budget.audit")"
check_eq "negative control: without --max-tokens it arrives" 200 \
    "$(ask open /v1/messages b-after '1 1 0 0' 1)"
sleep 0.3
check_eq "and the vendor has it" 1 "$(recorded b-after)"

# OpenAI: cached input is part of input, counted once
check_eq "openai: 1000 input, 900 cached" 200 \
    "$(ask obudget /v1/responses o-1 '1000 0 900 0' 1)"
check_eq "1000 of 1001 spent: the next goes" 200 \
    "$(ask obudget /v1/responses o-2 '1 1 0 0' 0)"
check_eq "then 429" 429 "$(ask obudget /v1/responses o-3 '1 1 0 0' 1)"
sleep 0.3
check_eq "o-3 never arrived" 0 "$(recorded o-3)"

# one model exchange at a time under a token budget: an answer held in
# flight on each gateway (the vendor sends its first event and waits for
# release/go), then a second request to each
held() { # GW TASK: a held model request, in the background
    ask "$1" /v1/messages "$2" '1 1 0 0' 1 -N -H 'tv-hold: 1' >"$TEST_TMP/$2.code" &
}
held conc h-conc
HELD_CONC=$!
held acct h-acct
HELD_ACCT=$!
for _ in $(seq 1 100); do # readiness: both first events reached curl
    [ -s "$TEST_TMP/h-conc.out" ] && [ -s "$TEST_TMP/h-acct.out" ] && break
    sleep 0.1
done
check "both held answers are in flight" test -s "$TEST_TMP/h-conc.out"
check_eq "a second model request under the budget: 429" 429 \
    "$(ask conc /v1/messages c-second '1 1 0 0' 0)"
check_match "one model request at a time" 'details="token budget: one model request at a time' \
    "$(tr -d '\r' <"$TEST_TMP/c-second.head")"
check_eq "control: without a budget the second goes" 200 \
    "$(ask acct /v1/messages a-second '1 1 0 0' 0)"
touch "$TEST_TMP/release/go"
wait "$HELD_CONC" "$HELD_ACCT"
check_eq "the held answer ended well" 200 "$(cat "$TEST_TMP/h-conc.code")"
check_eq "then the next model request goes" 200 \
    "$(ask conc /v1/messages c-third '1 1 0 0' 0)"
check_eq "c-second never arrived" 0 "$(recorded c-second)"
check_eq "and the control's did" 1 "$(recorded a-second)"
