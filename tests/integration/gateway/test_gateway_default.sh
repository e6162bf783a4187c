#!/usr/bin/env bash
# test_gateway_default.sh - the gateway by default (issue 35 item 1): the
# shipped config (manifests/config/controller.yaml, only its site paths
# changed) says nothing of credentialMode for claude, and its boxes keep the
# key out of the agent.
#
#   g-default (execute, built-in claude, a credential, warm pool of 1):
#     the box the pool made has a network and a proxy that lets nothing
#     through (--deny-all) and no gateway and no probe left; the invocation
#     takes it (status.box, WarmBoxTaken saying its probe runs once the
#     gateway is up), gets a gateway of its own holding the key
#     (--key-file), its own boundary probe (BoundaryVerified not WarmBox),
#     and Running; no docker inspect of any of its containers holds the key;
#     the agent has the placeholder and the gateway's URL; describe says the
#     key is held by the gateway.
#   g-nokey (execute, built-in claude, no credential): admitted, a gateway
#     that adds no key (--no-credential) and the same --deny-all proxy.
#   Negative control: the same shipped config with claude given an explicit
#     `credentialMode: env` profile: the agent's inspect holds the key and
#     the box has no gateway (the checks above would catch a default that
#     put the key in the box).
# The built-in claude's upstream (api.anthropic.com) is never dialled: the
# agents make no vendor request, and the probe's gateway check is refused by
# the gateway's own rules.
source "$(dirname "$0")/../controller/lib_controller.sh"

ctl_init
GATEWAY_IMAGE=agentctl/agent-gateway:$VERSION
docker image inspect "$GATEWAY_IMAGE" >/dev/null 2>&1 ||
    skip "$GATEWAY_IMAGE not built (hack/images.sh)"

# The shipped config, its site keys pointed at this run's.
shipped_config() {
    sed -e "s|^egressNetwork: .*|egressNetwork: $EGRESS_NET|" \
        -e "s|^subnetPool: .*|subnetPool: $SUBNET_POOL|" \
        -e "s|^secretsDir: .*|secretsDir: $SECRETS|" \
        -e "s|^workspaceRoot: .*|workspaceRoot: $WS_ROOT|" \
        "$ROOT/manifests/config/controller.yaml" >"$CONFIG"
}
shipped_config
check "the shipped config has no claude profile of its own" \
    not grep -q '^  claude' "$CONFIG"
echo "warmPool: {claude: 1}" >>"$CONFIG"
ctl_start

# inspect_all NAME: docker inspect of every container of NAME's uid
inspect_all() {
    local ids
    ids=$(docker ps -aq --no-trunc --filter "label=agentctl.dev/uid=$(inv_uid "$1")")
    [ -n "$ids" ] && docker inspect $ids
}
cmd_of() { docker inspect -f '{{json .Config.Cmd}}' "$1"; }
env_of() { docker inspect -f '{{range .Config.Env}}{{println .}}{{end}}' "$1"; }

# --- the warm box of a gateway vendor -----------------------------------------
for i in $(seq 1 240); do # readiness, not a timed assertion
    grep -q '"msg":"warm box ready".*"vendor":"claude"' "$CTL_LOG" && break
    [ "$i" -lt 240 ] || fail "no warm box of claude: $(tail -n 5 "$CTL_LOG")"
    sleep 0.25
done
box_proxy=$(docker ps -q --no-trunc --filter "label=$MANAGED" \
    --filter "label=agentctl.dev/invocation=pool.claude" \
    --filter "label=agentctl.dev/role=proxy")
check "the box has its proxy" test -n "$box_proxy"
check_match "the box's proxy lets nothing through" '"--deny-all"' \
    "$(cmd_of "$box_proxy")"
check_eq "the box has no gateway and no probe" "" \
    "$(docker ps -aq --filter "label=$MANAGED" \
        --filter "label=agentctl.dev/invocation=pool.claude" \
        --filter "label=agentctl.dev/role=gateway"
       docker ps -aq --filter "label=$MANAGED" \
        --filter "label=agentctl.dev/invocation=pool.claude" \
        --filter "label=agentctl.dev/role=probe")"

# --- g-default: the key stays in the gateway ----------------------------------
apply_spec g-default execute "vendor: claude" "image: $BOX_IMAGE" \
    "command: [sleep, \"300\"]" "credential: $CRED_NAME" "deadlineSeconds: 240"
wait_phase g-default Running 120
check_match "g-default: took the warm box" 'pool\.claude' \
    "$(status_field g-default .box.name)"
check_eq "g-default: its proxy is the box's" "$box_proxy" \
    "$(status_field g-default .resources.proxy.id)"
check_match "g-default: WarmBoxTaken says its probe runs after the gateway" \
    'the boundary probe runs once the attempt.s gateway is up' \
    "$(grep -h '"reason":"WarmBoxTaken"' "$STATE/events/g-default.jsonl")"
check_eq "g-default: BoundaryVerified by its own probe" True \
    "$(condition_field g-default BoundaryVerified status)"
check "g-default: ... not the box's verdict" \
    test "$(condition_field g-default BoundaryVerified reason)" != WarmBox
gw=$(object_of g-default gateway)
agent=$(object_of g-default agent)
check "g-default: a gateway of its own" test -n "$gw"
check_match "g-default: the gateway holds the key file" '"--key-file"' \
    "$(cmd_of "$gw")"
check_match "g-default: the agent gets the placeholder" \
    '^ANTHROPIC_API_KEY=' "$(env_of "$agent" | grep '^ANTHROPIC_API_KEY=')"
check_match "g-default: ... and the gateway's URL" \
    '^ANTHROPIC_BASE_URL=http://[0-9.]+:8080$' \
    "$(env_of "$agent" | grep '^ANTHROPIC_BASE_URL=')"
inspect_all g-default >"$TEST_TMP/g-default.inspect"
check "g-default: every container inspected" test -s "$TEST_TMP/g-default.inspect"
check "g-default: no inspect holds the key" \
    not grep -qF "$CRED_TOKEN" "$TEST_TMP/g-default.inspect"
check_match "g-default: describe says where the key is" \
    'Credential: +held by the attempt.s gateway' "$(actl describe g-default)"
check "g-default: no env-mode warning for claude" \
    not grep -q '"msg":"credentialMode env.*"vendor":"claude"' "$CTL_LOG"

# --- g-nokey: a gateway without a key -----------------------------------------
apply_spec g-nokey execute "vendor: claude" "image: $BOX_IMAGE" \
    "command: [sleep, \"300\"]" "deadlineSeconds: 240"
wait_phase g-nokey Running 120
check_match "g-nokey: its gateway adds no key" '"--no-credential"' \
    "$(cmd_of "$(object_of g-nokey gateway)")"
check "g-nokey: ... and has no key file" \
    not grep -q -- '--key-file' <<<"$(cmd_of "$(object_of g-nokey gateway)")"
check_match "g-nokey: its proxy lets nothing through" '"--deny-all"' \
    "$(cmd_of "$(status_field g-nokey .resources.proxy.id)")"
actl delete g-default g-nokey >/dev/null
wait_no_objects "agentctl.dev/invocation=g-default" 90 >/dev/null ||
    fail "g-default's objects were not removed"
wait_no_objects "agentctl.dev/invocation=g-nokey" 90 >/dev/null ||
    fail "g-nokey's objects were not removed"

# --- negative control: claude in credentialMode env ---------------------------
ctl_stop
shipped_config
sed -i '/^vendors:/a\
  claude: {hosts: ["api.anthropic.com:443"], credentialEnv: ANTHROPIC_API_KEY, credentialMode: env}' \
    "$CONFIG"
ctl_start
apply_spec g-env execute "vendor: claude" "image: $BOX_IMAGE" \
    "command: [sleep, \"300\"]" "credential: $CRED_NAME" "deadlineSeconds: 240"
wait_phase g-env Running 120
inspect_all g-env >"$TEST_TMP/g-env.inspect"
check "control g-env: the agent's inspect holds the key" \
    grep -qF "$CRED_TOKEN" "$TEST_TMP/g-env.inspect"
check_eq "control g-env: no gateway" "" "$(object_of g-env gateway)"
check_match "control g-env: the env-mode warning names claude" \
    '"msg":"credentialMode env.*"vendor":"claude"' "$(cat "$CTL_LOG")"
actl delete g-env >/dev/null
ctl_finish
