#!/usr/bin/env bash
# test_secret_never_leaks.sh - the credential reaches the agent (in the
# vendor's credentialEnv) and nowhere else: not in status, events, output
# (even when the agent prints it, whole or split), the controller's log,
# agentctl get/describe/logs, the metrics endpoint, nor in any Docker
# object of the invocation but the agent container's environment.
# Negative controls: the same grep finds the token in the credential
# file, and finds the vendor's token in the captured output. Env mode is
# said: a warning at config load, and describe's Credential line.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

spec=("credential: $CRED_NAME" "env: {DEMO_CREDENTIAL_ENV: FAKE_API_KEY}")
apply_spec keyed execute "command: [/demo-agent]" "${spec[@]}"
apply_spec keyed-long execute "command: [/demo-agent, --sleep, \"600\"]" \
    "${spec[@]}"
# and one that leaves through every error path it can: a bad target
apply_spec keyed-refused execute "command: [/demo-agent, other.test:443]" \
    "${spec[@]}"

# and one that prints it: whole, and split across two writes a second
# apart (redaction must hold across chunks of the log stream)
echo_key='echo "whole=$FAKE_API_KEY"
h="${FAKE_API_KEY%????????????????????}"
printf "split=%s" "$h"
sleep 1
printf "%s\n" "${FAKE_API_KEY#"$h"}"
echo "length=${#FAKE_API_KEY}"'
script=$(printf '%s' "$echo_key" | sed 's/\\/\\\\/g; s/"/\\"/g' |
    awk '{printf "%s\\n", $0}')
apply_spec keyed-echo execute "image: $BOX_IMAGE" \
    "command: [sh, -c, \"$script\"]" "${spec[@]}"

wait_phase keyed Succeeded 240
check_match "keyed: the agent got the credential in FAKE_API_KEY" \
    "credential FAKE_API_KEY: set" "$(agent_output keyed)"
wait_phase keyed-echo Succeeded 240
out=$(agent_output keyed-echo)
echo "# keyed-echo output:"
sed 's/^/#   /' <<<"$out"
check_match "keyed-echo: the box had the credential (its length)" \
    "length=${#CRED_TOKEN}" "$out"
check_match "keyed-echo: printed whole" 'whole=.' "$out"
check_match "keyed-echo: printed split" 'split=.' "$out"
check "keyed-echo: the output holds no credential" lacks "$out" "$CRED_TOKEN"
check "keyed-echo: not even its second half" lacks "$out" "${CRED_TOKEN:20}"
# credentialMode env is said where an operator looks (issue 35): once at
# config load in the log, and on the invocation in describe
check_eq "the log says once that vendor fake's key goes into the box" 1 \
    "$(grep -c '"msg":"credentialMode env: a spec.s key for this vendor goes into the box.*"vendor":"fake"' "$CTL_LOG")"
check_match "describe: the key is in the box (env mode)" \
    'Credential: +in the box \(credentialMode env' "$(actl describe keyed-echo)"

# While keyed-long runs: only the agent container holds the value.
wait_phase keyed-long Running 240
uid=$(inv_uid keyed-long)
agent_seen=0
for id in $(docker ps -aq --filter "label=agentctl.dev/uid=$uid"); do
    role=$(docker inspect -f '{{index .Config.Labels "agentctl.dev/role"}}' "$id")
    ins=$(docker inspect "$id")
    if [ "$role" == agent ]; then
        agent_seen=1
        check "agent container: the credential is in its env (control)" \
            grep -q "FAKE_API_KEY=$CRED_TOKEN" <<<"$ins"
        check "agent container: not in its labels" lacks \
            "$(docker inspect -f '{{json .Config.Labels}}' "$id")" "$CRED_TOKEN"
        check "agent container: not in its command" lacks \
            "$(docker inspect -f '{{json .Config.Cmd}} {{json .Args}}' "$id")" \
            "$CRED_TOKEN"
    else
        check "$role container: no trace of the credential" lacks "$ins" \
            "$CRED_TOKEN"
    fi
done
check_eq "keyed-long: the agent container was found" 1 "$agent_seen"
for net in $(docker network ls -q --filter "label=agentctl.dev/uid=$uid"); do
    check "network $net: no trace of the credential" lacks \
        "$(docker network inspect "$net")" "$CRED_TOKEN"
done
for vol in $(docker volume ls -q --filter "label=agentctl.dev/uid=$uid"); do
    check "volume $vol: no trace of the credential" lacks \
        "$(docker volume inspect "$vol")" "$CRED_TOKEN"
done
check "agentctl cancel keyed-long" quiet actl cancel keyed-long
wait_phase keyed-long Cancelled 120
phase=$(wait_terminal keyed-refused 240)
echo "# keyed-refused: $phase"

# Everything the user and the operator can read.
check "control: grep finds the token in the credential file" \
    grep -rqF "$CRED_TOKEN" "$SECRETS"
check "control: grep finds the vendor's token in the output dir" \
    grep -rqF "$VENDOR_TOKEN" "$STATE/output"
check "state dir (status, events, output, meta): no token" \
    not grep -rqF "$CRED_TOKEN" "$STATE"
check "specs dir: no token" not grep -rqF "$CRED_TOKEN" "$SPECS"
check "controller log: no token" not grep -qF "$CRED_TOKEN" "$CTL_LOG"
for n in keyed keyed-long keyed-refused keyed-echo; do
    for cmd in "get $n -o json" "get $n -o yaml" "describe $n" "logs $n"; do
        # shellcheck disable=SC2086
        check "agentctl $cmd: no token" lacks "$(actl $cmd 2>&1)" \
            "$CRED_TOKEN"
    done
done
check "agentctl get -o wide: no token" lacks "$(actl get -o wide 2>&1)" \
    "$CRED_TOKEN"
metrics=$(curl -fsS --max-time 5 "http://$CTL_METRICS/metrics" 2>&1 || true)
check "metrics endpoint: no token" lacks "$metrics" "$CRED_TOKEN"
ctl_finish
check "controller log after shutdown: no token" \
    not grep -qF "$CRED_TOKEN" "$CTL_LOG"
