#!/usr/bin/env bash
# test_config_reload.sh - the controller configuration is all or nothing:
#  - a config with an unknown key: the controller refuses to start and
#    says file:line:col;
#  - a spec naming a vendor the config lacks is refused with a clear
#    message and creates nothing in Docker;
#  - SIGHUP with a bad file keeps the old config (and says why): specs
#    still run; SIGHUP with a good file applies it: a vendor added there
#    (other.test) is reachable through its own proxy.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
cp "$CONFIG" "$TEST_TMP/good.yaml"

# 1. refuses to start on a bad config
printf 'egresNetwork: %s\n' "$EGRESS_NET" >>"$CONFIG"
bad_line=$(grep -n '^egresNetwork:' "$CONFIG" | cut -d: -f1)
RC=0
timeout 60 "$CONTROLLER" --specs "$SPECS" --state "$STATE" --config "$CONFIG" \
    --resync 1s --metrics "$CTL_METRICS" --controller-id "$CTL_ID" \
    >"$TEST_TMP/bad-start.log" 2>&1 || RC=$?
echo "# bad config: exit $RC: $(head -c 400 "$TEST_TMP/bad-start.log")"
check "a bad config: the controller exits non-zero" test "$RC" -ne 0
check "and it was not killed by the timeout" test "$RC" -ne 124
check "and names file:line:col" grep -qE \
    "controller.yaml:$bad_line:[0-9]+" "$TEST_TMP/bad-start.log"
check "and the unknown key" grep -q egresNetwork "$TEST_TMP/bad-start.log"

# 2. good config; a spec with an unknown vendor
cp "$TEST_TMP/good.yaml" "$CONFIG"
ctl_start
apply_spec stranger execute "vendor: nope" "command: [/demo-agent]"
for i in $(seq 1 60); do
    status_field stranger '.conditions[]? | select(.status == "False") | .message' |
        grep -q nope && break
    sleep 0.5
done
msg=$(status_field stranger '.conditions[]? | select(.status == "False") | .message')
echo "# stranger: $msg"
check_match "unknown vendor: a False condition names it" 'nope' "$msg"
check_eq "unknown vendor: nothing created in Docker" "" \
    "$(labelled_objects "agentctl.dev/invocation=stranger $MANAGED")"

# 3. SIGHUP with a bad file keeps the old config
printf 'vendors: {fake2: {hosts: [other.test:443], allowPrivat: true}}\n' \
    >"$CONFIG"
kill -HUP "$CTL_PID"
for i in $(seq 1 40); do
    grep -qE 'controller.yaml:1:[0-9]+' "$CTL_LOG" && break
    sleep 0.25
done
check "SIGHUP with a bad file: still running" ctl_alive
check "and the log says why (file:line:col)" grep -qE 'controller.yaml:1:[0-9]+' \
    "$CTL_LOG"
apply_spec after-bad execute "command: [/demo-agent]"
wait_phase after-bad Succeeded 240
check_match "after-bad: the old config still works" \
    "vendor_body: $VENDOR_TOKEN" "$(agent_output after-bad)"

# 4. SIGHUP with a good file adds a vendor
cp "$TEST_TMP/good.yaml" "$TEST_TMP/new.yaml"
sed -i 's/^vendors:$/vendors:\n  fake2: {hosts: ["other.test:443"], allowPrivate: true}/' \
    "$TEST_TMP/new.yaml"
cp "$TEST_TMP/new.yaml" "$CONFIG"
lines=$(wc -l <"$CTL_LOG")
kill -HUP "$CTL_PID"
for i in $(seq 1 40); do # until it logs the reload (bounded)
    tail -n +$((lines + 1)) "$CTL_LOG" | grep -qi 'config' && break
    sleep 0.25
done
check "SIGHUP with a good file: still running" ctl_alive
apply_spec second-vendor execute "vendor: fake2" \
    "command: [/demo-agent, other.test:443]"
wait_phase second-vendor Succeeded 240
check_match "second-vendor: other.test reached through its proxy" \
    "vendor_body: $OTHER_TOKEN" "$(agent_output second-vendor)"
ctl_finish
