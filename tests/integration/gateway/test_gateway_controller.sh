#!/usr/bin/env bash
# test_gateway_controller.sh - credentialMode gateway end to end (issue 16,
# docs/gateway.md): the controller runs a credential gateway per attempt
# and the real Claude Code CLI (agentctl/claude-code, pinned) completes a
# turn through it against the TLS test vendor (llm.vendor.test on this
# run's egress network, CA made by this run), never holding the key.
#
#   c-gw (execute, the real CLI):
#     Succeeded, exit code 0, the CLI's envelope is a successful turn;
#     the vendor received the real key as x-api-key (the digest in its
#       record), never the placeholder the CLI was given;
#     the CLI's environment inside the box (the runner, through the
#       runner tool, dumps every /proc/*/environ) has the placeholder and
#       the gateway's base URL,
#       not the key, and the box has no /run/agentctl;
#     `docker inspect` of every container of the invocation, taken again
#       and again while it ran, never shows the key; the gateway's key
#       volume is mounted read-only in the gateway only;
#     the agent made no CONNECT at all (the proxy runs --deny-all);
#     the status, the events and the output hold no key;
#     the gateway is gone with the rest at cleanup;
#     status.usage's tokens equal the vendor's own records (every model
#       request so far was c-gw's), and describe shows them.
#   c-budget (a shell agent, vendorBudget.requests 2): three requests
#     through the gateway; the third gets 429 with Proxy-Status; a path
#     outside the profile gets 403 with Proxy-Status; a request straight
#     to the vendor through the CONNECT proxy gets 403.
#     The egress audit (agentctl logs --egress) holds each request with
#     its status and the proxy's refusal; the spent budget is an event.
#   c-tokens (a shell agent, vendorBudget.tokens 500): two answers bill
#     400 and 200 tokens (the vendor's USAGE script line), the third
#     request gets 429 "token budget spent" with Proxy-Status and never
#     reaches the vendor; status.usage equals the vendor's totals (3
#     requests, 1 refused); TokenBudgetSpent is an event; /metrics has
#     its cache writes in agentctl_vendor_tokens_total. Control:
#     c-budget, without a token budget, has no TokenBudgetSpent.
#   c-tools (a shell agent): the request policy the controller gives the
#     gateway refuses a Messages request with a server-side tool and one
#     with mcp_servers (403 naming the field), neither reaches the vendor;
#     an ordinary request does (the control).
#   c-drift: the canary runs in gateway mode (probeInterval 2s) and passes;
#     the gateway killed under a running agent fails the attempt
#     (boundary-drift, the finding names the gateway's missing endpoint).
#   c-deadline (a shell agent that keeps asking, deadline 8 s): the attempt
#     ends at its deadline and the gateway container is removed with it.
#   c-switch: the vendor leaves gateway mode while an attempt runs and
#     the controller restarts: the attempt's desired state is not built in
#     env mode (its agent body would hold the key), the attempt fails
#     closed saying it was captured with a gateway; all is removed.
#
# Negative controls: the inspect search finds the key in a container made
# with the key in its env (the search can fail); the env-dump check finds
# the placeholder (the dump is real).
source "$(dirname "$0")/lib_gateway_ctl.sh"
gw_init claude
ctl_start
vd_watch_proxies
KEY_SHA=$(printf '%s' "$CRED_TOKEN" | sha256sum | cut -c1-64)
PH_SHA=$(printf '%s' agentctl-gateway-holds-the-key | sha256sum | cut -c1-64)

# --- c-gw: the real CLI through the gateway --------------------------------
# the runner (the one command the phase lets Claude Code run): every
# process's environment in the box, and whether /run/agentctl exists
cat >"$WS_ROOT/proj/envdump.sh" <<'SH'
for f in /proc/[0-9]*/environ; do tr '\000' '\n' <"$f"; echo; done 2>/dev/null | sort -u
ls /run/agentctl 2>&1
echo ENV-DONE
SH
apply_spec c-gw execute "vendor: claude" "image: $VD_TEST_IMAGE" \
    "prompt: $(jq -Rs . <<<"$(vd_prompt c-gw \
        'CALL Read {"file_path":"/work/README.md"}' \
        'CALL mcp__agentctl__run {}')")" \
    "credential: $CRED_NAME" "runner: [sh, envdump.sh]" \
    "workspace: {source: proj, size: 16Mi, inodes: 1000}" \
    "scratch: {size: 256Mi, inodes: 20000}" \
    "resources: {memory: 2Gi, cpus: \"1\", pids: 512}" "deadlineSeconds: 240"
inspect_loop c-gw "$TEST_TMP/inspect-c-gw.json" &
LOOP=$!
check_eq "c-gw: Succeeded" Succeeded "$(wait_terminal c-gw 300)"
wait "$LOOP" || true
check_eq "c-gw: the CLI's exit code" 0 "$(status_field c-gw .exitCode)"
env=$(agent_output c-gw | grep '^{' | tail -n 1 || true)
check_eq "c-gw: the CLI's envelope is a successful turn" "result success false" \
    "$(jq -r '"\(.type) \(.subtype) \(.is_error)"' <<<"$env" 2>/dev/null)"
recs=$(vd_records_of c-gw)
check "c-gw: the vendor got requests" test -n "$recs"
check "c-gw: every request carried the real key as x-api-key" \
    test -z "$(jq -r --arg s "x-api-key sha256:$KEY_SHA" \
        'select((.secrets // []) | index($s) | not) | 1' <<<"$recs")"
check "c-gw: the placeholder never reached the vendor" \
    lacks "$recs" "$PH_SHA"
a=$(vd_answer_of c-gw)
check_match "c-gw: Read worked" "proj-$CTL_RUN" "$a"
check_match "control: the env dump ran and shows the placeholder" \
    'ANTHROPIC_API_KEY=agentctl-gateway-holds-the-key' "$a"
check_match "c-gw: the CLI was pointed at the gateway" \
    'ANTHROPIC_BASE_URL=http://[0-9.]+\.5:8080' "$a"
check "c-gw: no process in the box had the key" lacks "$a" "$CRED_TOKEN"
check_match "c-gw: the box has no /run/agentctl" 'No such file' "$a"
check "c-gw: the inspects were taken while it ran" \
    grep -q '"agentctl.dev/role": "gateway"' "$TEST_TMP/inspect-c-gw.json"
check "c-gw: no docker inspect of any container showed the key" \
    not holds_key "$TEST_TMP/inspect-c-gw.json"
check_eq "c-gw: the gateway mounts its key read-only" false \
    "$(jq -r '.[] | select(.Config.Labels["agentctl.dev/role"] == "gateway")
        | .Mounts[] | select(.Destination == "/run/agentctl/gateway") | .RW' \
        "$TEST_TMP/inspect-c-gw.json" 2>/dev/null | sort -u | paste -sd, -)"
check "c-gw: the agent does not mount the key" \
    test -z "$(jq -r '.[] | select(.Config.Labels["agentctl.dev/role"] == "agent")
        | .Mounts[] | select(.Destination == "/run/agentctl/gateway") | 1' \
        "$TEST_TMP/inspect-c-gw.json" 2>/dev/null)"
# (the canary runs in the agent's namespace and asks for the vendor on
# purpose: every CONNECT from the agent's address must be refused)
check_eq "c-gw: no CONNECT from the agent's address got through" "" \
    "$(vd_agent_tunnels | grep -v ' 403$' || true)"
check_no_key_kept c-gw /v1/messages
# every model request the vendor has seen so far is c-gw's (the probe's
# checks never reach it): the status must add up to the vendor's records
wait_no_objects "agentctl.dev/invocation=c-gw $MANAGED" 60 >/dev/null
vsum=$(vd_records | jq -s -c '[.[] | .usage // empty] |
    {inputTokens: (map(.input) | add), outputTokens: (map(.output) | add),
     cacheReadTokens: (map(.cacheRead) | add),
     cacheWriteTokens: (map(.cacheWrite) | add)}')
check_eq "c-gw: status.usage's tokens equal the vendor's records" "$vsum" \
    "$(status_field c-gw '.usage | {inputTokens, outputTokens,
        cacheReadTokens, cacheWriteTokens}' | jq -c .)"
check_eq "c-gw: its requests that were not refused are the vendor's records" \
    "$(vd_records | grep -c .)" \
    "$(status_field c-gw '.usage.requests - .usage.refused')"
check_match "c-gw: describe shows the usage" \
    'Usage: +[0-9]+ requests \(0 refused\); tokens: [1-9]' "$(actl describe c-gw)"
check_match "c-gw: describe says the gateway holds the key" \
    'Credential: +held by the attempt.s gateway, never in the box' \
    "$(actl describe c-gw)"
check "c-gw: no env-mode warning for the gateway vendor claude" \
    not grep -q '"msg":"credentialMode env.*"vendor":"claude"' "$CTL_LOG"
check_eq "c-gw: logs --egress cannot be followed (usage, 2)" 2 \
    "$(actl logs -f --egress c-gw >/dev/null 2>&1; echo $?)"
# control: the search finds a key where one is
docker create --label "$TEST_LABEL" --name "gw-control-$CTL_RUN" \
    -e "LEAK=$CRED_TOKEN" "$BOX_IMAGE" true >/dev/null
docker inspect "gw-control-$CTL_RUN" >"$TEST_TMP/inspect-control.json"
docker rm -f "gw-control-$CTL_RUN" >/dev/null
check "control: the inspect search finds a key in a container's env" \
    holds_key "$TEST_TMP/inspect-control.json"

# --- c-budget: the budget, the rules, the way around ------------------------
# raw requests (busybox wget hides the headers of an error answer): the
# gateway's status line and Proxy-Status for each, then a CONNECT to the
# vendor through the proxy
read -r -d '' SCRIPT <<SH || true
u=\${ANTHROPIC_BASE_URL#http://}
ask() {
    printf 'POST %s HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: application/json\\r\\nContent-Length: 2\\r\\nConnection: close\\r\\n\\r\\n{}' "\$1" |
        busybox nc -w 5 \${u%:*} \${u##*:} | tr -d '\\r' |
        grep -E '^(HTTP/1.1|Proxy-Status:)' | tr '\\n' ' '
    echo
}
for i in 1 2 3; do echo "ASK\$i \$(ask /v1/messages)"; done
echo "ASKPATH \$(ask /v1/files)"
p=\${HTTPS_PROXY#http://}
echo "DIRECT \$(printf 'CONNECT $VD_HOST:443 HTTP/1.1\\r\\nHost: $VD_HOST:443\\r\\n\\r\\n' |
    busybox nc -w 5 \${p%:*} \${p##*:} 2>&1 | tr -d '\\r' |
    grep -E '^(HTTP/1.1|Proxy-Status:)' | tr '\\n' ' ')"
SH
apply_spec c-budget execute "vendor: claude" "image: $VD_TEST_IMAGE" \
    "command: [sh, -c, $(jq -Rs . <<<"$SCRIPT")]" "credential: $CRED_NAME" \
    "vendorBudget: {requests: 2}" "deadlineSeconds: 120"
check_eq "c-budget: Succeeded" Succeeded "$(wait_terminal c-budget 180)"
out=$(agent_output c-budget)
echo "# c-budget output:"
sed 's/^/#   /' <<<"$out"
check_match "c-budget: request 1 forwarded" 'ASK1 HTTP/1.1 [0-9]+ ' "$out"
check "c-budget: request 1 not refused by the gateway" \
    not grep -q 'ASK1.*Proxy-Status' <<<"$out"
check "c-budget: request 2 not refused by the gateway" \
    not grep -q 'ASK2.*Proxy-Status' <<<"$out"
check_match "c-budget: request 3 gets 429 with Proxy-Status" \
    'ASK3 HTTP/1.1 429 .*Proxy-Status: agentctl-gateway; error=http_request_denied; details="request budget spent"' "$out"
check_match "c-budget: a path outside the profile gets 403 with Proxy-Status" \
    'ASKPATH HTTP/1.1 403 .*Proxy-Status: agentctl-gateway; error=http_request_denied' "$out"
check_match "c-budget: the vendor through the CONNECT proxy is refused, and says why" \
    'DIRECT HTTP/1.1 403 Forbidden Proxy-Status: agentctl-egress-proxy; error=http_request_denied; details="not in the allowlist"' "$out"
check "c-budget: no key in its output" not holds_key "$STATE/output/c-budget.log"
# the egress audit, kept when the box was removed
wait_no_objects "agentctl.dev/invocation=c-budget $MANAGED" 60 >/dev/null
eg=$(actl logs --egress c-budget)
check_eq "c-budget: the audit has the three requests to /v1/messages" \
    "400 400 429" "$(jq -r 'select(.source == "gateway" and .path == "/v1/messages")
        | .status' <<<"$eg" | paste -sd' ' -)"
check_eq "c-budget: ... and the refused path" "403 path not allowed" \
    "$(jq -r 'select(.source == "gateway" and .path == "/v1/files")
        | "\(.status) \(.reason)"' <<<"$eg")"
check_match "c-budget: ... and the proxy's refusal of the vendor" \
    "\"target\":\"$VD_HOST:443\",\"status\":403" \
    "$(jq -c 'select(.source == "proxy")' <<<"$eg")"
check "c-budget: every audit line is one JSON object" \
    jq -e -s 'all(type == "object")' <<<"$eg"
check_match "c-budget: the spent budget raised an event" \
    '"reason":"VendorBudgetSpent"' "$(cat "$STATE/events/c-budget.jsonl")"
check "control: c-gw spent no budget, and no such event" \
    not grep -q VendorBudgetSpent "$STATE/events/c-gw.jsonl"

# ASKB: shell for an agent that posts a Messages body ($1) to the gateway
# (ANTHROPIC_BASE_URL) and prints the answer's status and Proxy-Status
read -r -d '' ASKB <<SH || true
u=\${ANTHROPIC_BASE_URL#http://}
askb() {
    printf 'POST /v1/messages HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: application/json\\r\\nContent-Length: %d\\r\\nConnection: close\\r\\n\\r\\n%s' "\${#1}" "\$1" |
        busybox nc -w 5 \${u%:*} \${u##*:} | tr -d '\\r' |
        grep -E '^(HTTP/1.1|Proxy-Status:)' | tr '\\n' ' '
    echo
}
SH

# --- c-tokens: the token budget and status.usage ----------------------------
read -r -d '' SCRIPT <<SH || true
$ASKB
m='"model":"m","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"TASK'
echo "T1 \$(askb "{\$m c-tokens-1\\nUSAGE 100 100 100 100\"}]}")"
echo "T2 \$(askb "{\$m c-tokens-2\\nUSAGE 100 100 0 0\"}]}")"
echo "T3 \$(askb "{\$m c-tokens-3\\nUSAGE 1 1 0 0\"}]}")"
SH
apply_spec c-tokens execute "vendor: claude" "image: $VD_TEST_IMAGE" \
    "command: [sh, -c, $(jq -Rs . <<<"$SCRIPT")]" "credential: $CRED_NAME" \
    "vendorBudget: {tokens: 500}" "deadlineSeconds: 120"
check_eq "c-tokens: Succeeded" Succeeded "$(wait_terminal c-tokens 180)"
out=$(agent_output c-tokens)
echo "# c-tokens output:"
sed 's/^/#   /' <<<"$out"
check_match "c-tokens: 400 tokens billed" 'T1 HTTP/1.1 200 ' "$out"
check_match "c-tokens: admitted at 400 of 500, 200 more billed" \
    'T2 HTTP/1.1 200 ' "$out"
check_match "c-tokens: then 429 with Proxy-Status" \
    'T3 HTTP/1.1 429 .*Proxy-Status: agentctl-gateway; error=http_request_denied; details="token budget spent"' "$out"
check "c-tokens: the refused request never reached the vendor" \
    test -z "$(vd_records_of c-tokens-3)"
wait_no_objects "agentctl.dev/invocation=c-tokens $MANAGED" 60 >/dev/null
check_eq "c-tokens: status.usage equals the vendor's totals" \
    '{"requests":3,"refused":1,"inputTokens":200,"outputTokens":200,"cacheReadTokens":100,"cacheWriteTokens":100}' \
    "$(status_field c-tokens .usage | jq -c .)"
check_eq "c-tokens: ... which are" '200 200 100 100' \
    "$( (vd_records_of c-tokens-1; vd_records_of c-tokens-2) | jq -s -r \
        '[(map(.usage.input) | add), (map(.usage.output) | add),
          (map(.usage.cacheRead) | add), (map(.usage.cacheWrite) | add)]
         | map(tostring) | join(" ")')"
check_match "c-tokens: the spent token budget raised an event" \
    '"reason":"TokenBudgetSpent"' "$(cat "$STATE/events/c-tokens.jsonl")"
check "control: c-budget spent no token budget" \
    not grep -q TokenBudgetSpent "$STATE/events/c-budget.jsonl"
check_match "c-tokens: the gateway's audit has tokens_left" \
    '"tokens_left":0' "$(actl logs --egress c-tokens)"
# only c-tokens' answers carried cache writes so far
check_eq "c-tokens: /metrics counts its cache writes by vendor and phase" 100 \
    "$(curl -fsS "http://$CTL_METRICS/metrics" | awk '$1 == "agentctl_vendor_tokens_total{kind=\"cacheWrite\",phase=\"execute\",vendor=\"claude\"}" { print $2 + 0 }')"

# --- c-tools: a process in the box asks the vendor to act for it -----------
# the request policy the controller gives the gateway (bodyPolicy
# anthropic, the authHeader's): a server-side tool and an MCP connector
# are refused before anything reaches the vendor, an ordinary request goes
read -r -d '' SCRIPT <<SH || true
$ASKB
m='"model":"m","max_tokens":8,"messages":[{"role":"user","content":"TASK'
echo "SERVER \$(askb "{\$m c-tools-server\"}],\"tools\":[{\"type\":\"web_fetch_20250910\",\"name\":\"web_fetch\"}]}")"
echo "MCP \$(askb "{\$m c-tools-mcp\"}],\"mcp_servers\":[{\"type\":\"url\",\"url\":\"https://x.invalid/\",\"name\":\"x\"}]}")"
echo "PLAIN \$(askb "{\$m c-tools-plain\"}]}")"
SH
apply_spec c-tools execute "vendor: claude" "image: $VD_TEST_IMAGE" \
    "command: [sh, -c, $(jq -Rs . <<<"$SCRIPT")]" "credential: $CRED_NAME" \
    "deadlineSeconds: 120"
check_eq "c-tools: Succeeded" Succeeded "$(wait_terminal c-tools 180)"
out=$(agent_output c-tools)
echo "# c-tools output:"
sed 's/^/#   /' <<<"$out"
check_match "c-tools: a server-side tool is refused (403, the reason)" \
    'SERVER HTTP/1.1 403 .*tools\[0\]\.type \\"web_fetch_20250910\\"' "$out"
check_match "c-tools: mcp_servers is refused (403, the reason)" \
    'MCP HTTP/1.1 403 .*mcp_servers' "$out"
check_match "c-tools: an ordinary request goes to the vendor (control)" \
    'PLAIN HTTP/1.1 200' "$out"
check "c-tools: the vendor saw the ordinary request (control)" \
    test -n "$(vd_records_of c-tools-plain)"
check "c-tools: and neither refused one" \
    test -z "$(vd_records_of c-tools-server)$(vd_records_of c-tools-mcp)"

# --- c-drift: the gateway stopped under a running agent ---------------------
apply_spec c-drift execute "vendor: claude" "image: $VD_TEST_IMAGE" \
    "command: [sleep, \"300\"]" "credential: $CRED_NAME" "deadlineSeconds: 240"
wait_phase c-drift Running 120
# the canary (probeInterval 2s) checks the gateway from inside the agent's
# namespace: it refuses a path outside its rules (bounded wait)
for i in $(seq 1 60); do
    grep -q '"reason":"BoundaryCanary"' "$STATE/events/c-drift.jsonl" \
        2>/dev/null && break
    sleep 0.5
done
check_match "c-drift: the canary ran in gateway mode and passed" \
    'canary: ok: boundary verified, the gateway refuses' \
    "$(grep '"reason":"BoundaryCanary"' "$STATE/events/c-drift.jsonl")"
gw=$(docker ps -q --filter label=agentctl.dev/invocation=c-drift \
    --filter label=agentctl.dev/role=gateway --filter "label=$MANAGED")
docker kill "$gw" >/dev/null
check_eq "c-drift: a stopped gateway fails the attempt" Failed \
    "$(wait_terminal c-drift 60)"
check_eq "c-drift: as boundary drift" boundary-drift \
    "$(status_field c-drift .stopReason)"
check_match "c-drift: the finding names the gateway's endpoint" "${gw:0:12}" \
    "$(condition_field c-drift Drifted message)"

# --- c-deadline: the gateway ends with the attempt -------------------------
apply_spec c-deadline execute "vendor: claude" "image: $VD_TEST_IMAGE" \
    "command: [sh, -c, \"while :; do wget -q -O /dev/null --post-data '{}' \$ANTHROPIC_BASE_URL/v1/messages; sleep 0.5; done\"]" \
    "credential: $CRED_NAME" "deadlineSeconds: 8"
wait_phase c-deadline Running 120
gw=$(docker ps -q --filter label=agentctl.dev/invocation=c-deadline \
    --filter label=agentctl.dev/role=gateway --filter "label=$MANAGED")
check "c-deadline: its gateway runs while the agent runs" test -n "$gw"
check_eq "c-deadline: Failed at the deadline" Failed \
    "$(wait_terminal c-deadline 60)"
check_eq "c-deadline: stop reason" deadline "$(status_field c-deadline .stopReason)"
check_no_objects "c-deadline: the gateway and the rest are removed" \
    "agentctl.dev/invocation=c-deadline $MANAGED" 60

# --- c-switch: the vendor leaves gateway mode while an attempt runs ----------
# (a restart rebuilds the desired state from the new config: the recorded
# gateway would have no body to be checked against)
apply_spec c-switch execute "vendor: claude" "image: $VD_TEST_IMAGE" \
    "command: [sleep, \"300\"]" "credential: $CRED_NAME" "deadlineSeconds: 240"
wait_phase c-switch Running 120
ctl_stop
cp "$CONFIG" "$TEST_TMP/config-gateway.yaml"
sed -i -e '/^  claude:$/,/^    gateway: /d' -e '/^vendors:/a\
  claude: {hosts: ["'"$VD_HOST"':443"], credentialEnv: ANTHROPIC_API_KEY, credentialMode: env, allowPrivate: true}' \
    "$CONFIG"
ctl_start
check_eq "c-switch: the attempt fails closed after the restart" Failed \
    "$(wait_terminal c-switch 60)"
# (its desired state is not built in env mode: that body would hold the key)
check_eq "c-switch: before anything is built from the new config" \
    preparation-failed "$(status_field c-switch .stopReason)"
check_match "c-switch: the message says it was captured with a gateway" \
    'uses credentialMode env, but this attempt was captured with a gateway' \
    "$(condition_field c-switch Ready message) $(grep -h '"reason":"Stopped"' "$STATE/events/c-switch.jsonl")"
check "c-switch: no agent body with the key was made" \
    not grep -qF "$CRED_TOKEN" "$CTL_LOG"
check_no_objects "c-switch: everything of it is removed, the gateway too" \
    "agentctl.dev/invocation=c-switch $MANAGED" 60
ctl_finish
