#!/usr/bin/env bash
# test_gateway_codex.sh - the real Codex CLI (agentctl/codex, pinned)
# through the credential gateway (credentialMode gateway, docs/gateway.md):
# the adapter points it at the gateway with a model provider of its own
# (-c model_provider=agentctl-gateway, no WebSocket; 0.171.0
# ignores OPENAI_BASE_URL), the gateway adds the key as Authorization:
# Bearer, and Codex never holds it.
#
#   x-gw (execute): Succeeded with exit code 0 and the vendor's final text
#     in the output; every request that reached the vendor carried
#     "Bearer <the real key>" (its digest in the vendor's record) and none
#     the placeholder; the runner, run through the runner tool, dumps
#     every process's environment: the placeholder is there, the key is
#     not;
#     no docker inspect taken while it ran shows the key; the agent made
#     no CONNECT (the proxy runs --deny-all); status, events, output and
#     the controller's log hold no key; the egress audit lists its
#     requests as forwarded. The gateway is the stock image: the test
#     vendor's private CA comes from the profile's gateway.caFile.
#     status.usage's tokens (the Responses API's SSE usage, read by the
#     gateway) equal the vendor's own records of x-gw's requests; every
#     request carried the profile's gateway.organization and
#     gateway.project as OpenAI-Organization and OpenAI-Project.
#   x-org (a shell agent of the codex vendor): a request that names the
#     box's own organization and project reaches the vendor with the
#     operator's, never the box's.
#
# Negative controls: the env dump shows the placeholder (the dump is
# real); the digest check finds no request with a wrong key's digest
# (it can fail).
source "$(dirname "$0")/lib_gateway_ctl.sh"
gw_init codex
# The test vendor is a private one: its CA reaches the stock gateway image
# through the config (gateway.caFile, docs/gateway.md "Private vendors"),
# not through an image made FROM the gateway's with the CA added.
sed -i -e "s|gateway: \"$GW_TEST_IMAGE\"|gateway: \"agentctl/agent-gateway:$VERSION\"|" \
    -e 's|gateway: {authHeader: bearer, allow: \["POST /v1/responses"\]}|gateway: {authHeader: bearer, allow: ["POST /v1/responses"], caFile: "'"$VD_TLS/ca.pem"'", organization: org-operator1, project: proj_operator1}|' \
    "$CONFIG"
grep -q "caFile: \"$VD_TLS/ca.pem\"" "$CONFIG" || fail "caFile not in the config"
grep -q "organization: org-operator1" "$CONFIG" ||
    fail "gateway.organization not in the config"
grep -q "gateway: \"agentctl/agent-gateway:$VERSION\"" "$CONFIG" ||
    fail "the stock gateway image not in the config"
ctl_start
vd_watch_proxies
BEARER_SHA=$(printf 'Bearer %s' "$CRED_TOKEN" | sha256sum | cut -c1-64)

cat >"$WS_ROOT/proj/envdump.sh" <<'SH'
for f in /proc/[0-9]*/environ; do tr '\000' '\n' <"$f"; echo; done 2>/dev/null | sort -u
echo ENV-DONE
SH
CALL=$(printf 'CALL exec %s' "$(jq -cn '{input: "const r = await tools.mcp__agentctl__run({}); text(JSON.stringify(r));"}')")
apply_spec x-gw execute "vendor: codex" "image: $VD_TEST_IMAGE" \
    "prompt: $(jq -Rs . <<<"$(vd_prompt x-gw "$CALL")")" \
    "credential: $CRED_NAME" "runner: [sh, envdump.sh]" \
    "workspace: {source: proj, size: 16Mi, inodes: 1000}" \
    "scratch: {size: 256Mi, inodes: 20000}" \
    "resources: {memory: 2Gi, cpus: \"1\", pids: 512}" "deadlineSeconds: 240"
inspect_loop x-gw "$TEST_TMP/inspect-x-gw.json" &
LOOP=$!
check_eq "x-gw: Succeeded" Succeeded "$(wait_terminal x-gw 300)"
wait "$LOOP" || true
check_eq "x-gw: the CLI's exit code" 0 "$(status_field x-gw .exitCode)"
a=$(vd_answer_of x-gw)
check_match "x-gw: the vendor ended the turn" '^VENDOR-DONE' "$a"
recs=$(vd_records_of x-gw)
check "x-gw: the vendor got requests" test -n "$recs"
check_eq "x-gw: every request carried Bearer <the real key>, once" "" \
    "$(jq -r --arg s "authorization sha256:$BEARER_SHA" \
        'select((.secrets // []) != [$s]) | .secrets' <<<"$recs")"
check "control: a wrong key's digest would be seen" \
    test -n "$(jq -r --arg s "authorization sha256:0000" \
        'select((.secrets // []) != [$s]) | 1' <<<"$recs")"
check_match "control: the env dump ran and shows the placeholder" \
    'CODEX_API_KEY=agentctl-gateway-holds-the-key' "$a"
check "x-gw: no process in the box had the key" lacks "$a" "$CRED_TOKEN"
check "x-gw: the inspects were taken while it ran" \
    grep -q '"agentctl.dev/role": "gateway"' "$TEST_TMP/inspect-x-gw.json"
check "x-gw: no docker inspect of any container showed the key" \
    not holds_key "$TEST_TMP/inspect-x-gw.json"
# (the canary runs in the agent's namespace and asks for the vendor on
# purpose: every CONNECT from the agent's address must be refused)
check_eq "x-gw: no CONNECT from the agent's address got through" "" \
    "$(vd_agent_tunnels | grep -v ' 403$' || true)"
check_no_key_kept x-gw /v1/responses
# x-gw is the vendor's only client: the status adds up to its records
wait_no_objects "agentctl.dev/invocation=x-gw $MANAGED" 60 >/dev/null
check_eq "x-gw: status.usage's tokens equal the vendor's records" \
    "$(vd_records | jq -s -c '[.[] | .usage // empty] |
        {inputTokens: (map(.input) | add), outputTokens: (map(.output) | add),
         cacheReadTokens: (map(.cacheRead) | add),
         cacheWriteTokens: (map(.cacheWrite) | add)}')" \
    "$(status_field x-gw '.usage | {inputTokens, outputTokens,
        cacheReadTokens, cacheWriteTokens}' | jq -c .)"
check "x-gw: and some were counted" \
    test "$(status_field x-gw .usage.inputTokens)" -gt 0
check_eq "x-gw: every request carried the operator's organization and project" \
    "org-operator1 proj_operator1" \
    "$(jq -r '"\(.headers["openai-organization"]) \(.headers["openai-project"])"' \
        <<<"$recs" | sort -u | paste -sd, -)"

# --- x-org: a process in the box names an organization and project ------
# (a shell agent posting to the gateway, at its NO_PROXY address): the
# vendor sees the operator's (gateway.organization, gateway.project),
# never the box's
read -r -d '' SCRIPT <<'SH' || true
b='{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"TASK x-org"}]}]}'
printf 'POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nOpenAI-Organization: org-box\r\nOpenAI-Project: proj_box\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' "${#b}" "$b" |
    busybox nc -w 5 "$NO_PROXY" 8080 | head -n 1
SH
apply_spec x-org execute "vendor: codex" "image: $VD_TEST_IMAGE" \
    "command: [sh, -c, $(jq -Rs . <<<"$SCRIPT")]" "credential: $CRED_NAME" \
    "deadlineSeconds: 120"
check_eq "x-org: Succeeded" Succeeded "$(wait_terminal x-org 180)"
check_match "x-org: its request went" '^HTTP/1.1 200' "$(agent_output x-org)"
check_eq "x-org: the vendor saw the operator's organization and project" \
    "org-operator1 proj_operator1" \
    "$(vd_records_of x-org | jq -r \
        '"\(.headers["openai-organization"]) \(.headers["openai-project"])"')"
all=$(vd_records)
check "x-org: no request reached the vendor with the box's organization" \
    lacks "$all" org-box
check "x-org: ... nor its project" lacks "$all" proj_box
ctl_finish
