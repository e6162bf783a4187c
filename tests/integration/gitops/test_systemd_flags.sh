#!/usr/bin/env bash
# test_systemd_flags.sh - the shipped systemd unit's own ExecStart flags
# (manifests/systemd/agent-controller.service, read from the file, not
# copied here) run agent-controller, and the agentctl command its comment
# tells users to run (`agentctl --specs /var/lib/agentctl/specs ...`,
# without --state) shows the status that controller writes under the
# unit's --state. The unit's paths are moved under a temporary root and %H
# becomes a name of this run (so nothing of another controller on this
# daemon is ours); the flags themselves are the unit's. The spec names a
# vendor the config lacks, so it stays Pending (NotAdmitted) and no Docker
# object is created. Negative control: without the record the controller
# leaves in the specs directory, that agentctl sees no status at all.
source "$(dirname "$0")/../lib.sh"
need_docker

UNIT=$ROOT/manifests/systemd/agent-controller.service
CTL_BIN=$BUILD/controller/agent-controller
A=$BUILD/cli/agentctl
R=$TEST_TMP/root
ID="unit-test-$$"
[ -x "$CTL_BIN" ] || fail "no agent-controller at $CTL_BIN"

# ExecStart= with its continuation lines, and the unit's Environment=.
exec_start=$(awk '/^ExecStart=/ { on = 1; sub(/^ExecStart=/, "") }
    on { line = line " " $0; if ($0 !~ /\\$/) { print line; exit } }' "$UNIT" |
    tr -d '\\')
metrics=$(sed -n 's/^Environment=AGENTCTL_METRICS=//p' "$UNIT")
check_match "the unit runs the controller with --specs and --state" \
    "--specs /var/lib/agentctl/specs .*--state /var/lib/agentctl/state" "$exec_start"
check_match "the unit's comment tells users agentctl --specs without --state" \
    "agentctl --specs /var/lib/agentctl/specs get" "$(grep '^#' "$UNIT")"

# systemd's part: StateDirectory= and ConfigurationDirectory=, %H, $VARS.
mkdir -p "$R/var/lib/agentctl/specs" "$R/var/lib/agentctl/state" \
    "$R/var/lib/agentctl/workspaces" "$R/etc/agentctl/secrets"
sed -e "s|/etc/agentctl|$R/etc/agentctl|g" -e "s|/var/lib/agentctl|$R/var/lib/agentctl|g" \
    "$ROOT/manifests/config/controller.yaml" >"$R/etc/agentctl/controller.yaml"
port=$((12000 + RANDOM % 20000))
read -r -a argv <<<"$(sed -e "s|\${AGENTCTL_METRICS}|${metrics%:*}:$port|" \
    -e "s|%H|$ID|g" -e "s|/usr/local/bin/agent-controller|$CTL_BIN|" \
    -e "s|/var/lib/agentctl|$R/var/lib/agentctl|g" -e "s|/etc/agentctl|$R/etc/agentctl|g" \
    <<<"$exec_start")"
check_eq "the command is the built controller" "$CTL_BIN" "${argv[0]}"
"${argv[@]}" >"$TEST_TMP/ctl.log" 2>&1 &
ctl_pid=$!
on_cleanup "kill $ctl_pid 2>/dev/null; wait $ctl_pid 2>/dev/null || true"

# what the unit's comment says to run
S=$R/var/lib/agentctl/specs
user_ctl() { "$A" --specs "$S" "$@"; }
printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\nmetadata:\n  name: shown\nspec:\n  vendor: not-in-config\n  phase: execute\n  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent]\n  deadlineSeconds: 60\n' |
    user_ctl apply -f - >/dev/null
for _ in $(seq 150); do
    [ -s "$R/var/lib/agentctl/state/status/shown.json" ] && break
    kill -0 "$ctl_pid" 2>/dev/null || fail "controller exited: $(tail -n 5 "$TEST_TMP/ctl.log")"
    sleep 0.2
done
check "the controller wrote the status under the unit's --state" \
    test -s "$R/var/lib/agentctl/state/status/shown.json"
check_eq "it recorded that state in the specs directory" "$R/var/lib/agentctl/state" \
    "$(cat "$S/.agentctl-state")"
check_eq "agentctl --specs (no --state) sees the controller's status" "$ID" \
    "$(user_ctl get shown -o jsonpath='{.status.controller}')"
# admission runs once the daemon has answered; the first status may come
# before that (bounded wait, not timed)
for _ in $(seq 150); do
    [ "$(user_ctl get shown -o jsonpath='{.status.conditions[?(@.type=="Waiting")].reason}')" == NotAdmitted ] && break
    sleep 0.2
done
check_match "and describe shows why it is Pending" "Waiting +True +[0-9TZ:-]+ +NotAdmitted" "$(user_ctl describe shown)"
check_eq "agentctl --state still wins" "" \
    "$(user_ctl --state "$TEST_TMP/elsewhere" get shown -o jsonpath='{.status.controller}')"

# negative control: the record is what makes the default agree
mv "$S/.agentctl-state" "$TEST_TMP/record"
check_eq "control: without the record, agentctl sees no status" "" \
    "$(user_ctl get shown -o jsonpath='{.status.controller}')"
check_match "control: and the table shows it Pending with no controller" \
    "^shown +Pending +<none> +<none> " "$(user_ctl get shown --no-headers)"
mv "$TEST_TMP/record" "$S/.agentctl-state"

# a controller on the default state removes the record
kill "$ctl_pid"; wait "$ctl_pid" 2>/dev/null || true
"$CTL_BIN" --specs "$S" --config "$R/etc/agentctl/controller.yaml" \
    --controller-id "$ID" --once >"$TEST_TMP/once.log" 2>&1 || true
check "without --state the controller removes the record" test ! -e "$S/.agentctl-state"
