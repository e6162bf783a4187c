#!/usr/bin/env bash
# test_invalid_spec.sh - an invalid spec in the store is told to the
# operator once per version (docs/monitoring.md "Invalid specs"): on the
# real controller with the directory store, a file in the watched
# directory that does not validate gets one log line "spec invalid" with
# its first error as file:line:col: field: problem, however many resyncs
# pass, and agentctl_specs_invalid counts it; an edit that leaves it
# invalid is a new version (one more line), a fix brings the gauge back to
# 0. The same for an invalid value put into etcd. Negative control: the
# test-hooks controller with AGENTCTL_TEST_DISABLE=invalid-log-once logs
# it at every resync.
source "$(dirname "$0")/../scaleout/lib_scaleout.sh"
sc_init
TESTHOOKS=$BUILD/controller/agent-controller-testhooks

# lines LOG NAME: the controller's "spec invalid" lines about NAME.
lines() { grep 'spec invalid' "$1" | grep -c "\"invocation\":\"$2\"" || true; }

gauge() {
    curl -fsS "http://$1/metrics" | awk '$1 == "agentctl_specs_invalid" { print $2 }'
}

passes() {
    curl -fsS "http://$1/metrics" |
        awk '$1 ~ /^agentctl_reconciles_total/ { n += $2 } END { print n + 0 }'
}

# until LOG has N lines about NAME (60 s)
wait_lines() {
    for _ in $(seq 1 240); do
        [ "$(lines "$1" "$2")" -ge "$3" ] && return 0
        sleep 0.25
    done
    fail "$2: $3 'spec invalid' lines never came: $(grep 'spec invalid' "$1" | tail -n 3)"
}

# four resyncs later (a pass of every invocation each: metrics at ADDR)
resyncs() {
    local from
    from=$(passes "$1")
    sleep 4.5
    check "four resyncs passed ($(passes "$1") > $from passes)" \
        test "$(passes "$1")" -gt "$from"
}

bad() { # NAME DEADLINE: a spec whose deadlineSeconds is line 10, col 20
    printf '%s\n' "apiVersion: agentctl.dev/v1alpha1" "kind: AgentInvocation" \
        "metadata:" "  name: $1" "spec:" "  vendor: fake" "  phase: execute" \
        "  image: $DEMO_IMAGE" "  command: [/demo-agent]" "  deadlineSeconds: $2"
}

# --- the directory store
ctl_start
bad dirbad -5 >"$SPECS/dirbad.yaml"
wait_lines "$CTL_LOG" dirbad 1
line=$(grep 'spec invalid' "$CTL_LOG" | grep '"invocation":"dirbad"')
check_match "dir: the line names file:line:col: field: problem" \
    "$SPECS/dirbad.yaml:10:20: spec.deadlineSeconds: " "$line"
check_eq "dir: agentctl_specs_invalid counts it" 1 "$(gauge "$CTL_METRICS")"
resyncs "$CTL_METRICS"
check_eq "dir: one line over the resyncs" 1 "$(lines "$CTL_LOG" dirbad)"
# a SIGHUP reloads the config and lists the store again: the same
# version, so no second line (it came again at every relist before)
kill -HUP "$CTL_PID"
for _ in $(seq 1 40); do
    grep -q '"config reloaded"\|"msg":"config' "$CTL_LOG" && break
    sleep 0.25
done
resyncs "$CTL_METRICS"
check_eq "dir: one line after a SIGHUP's relist too" 1 "$(lines "$CTL_LOG" dirbad)"
bad dirbad nope >"$SPECS/dirbad.yaml"
wait_lines "$CTL_LOG" dirbad 2
check_match "dir: an edit still invalid is a new version: its own line" \
    'spec.deadlineSeconds: ' "$(grep 'spec invalid' "$CTL_LOG" | grep '"invocation":"dirbad"' | tail -n1)"
bad dirbad 60 >"$SPECS/dirbad.yaml"
for _ in $(seq 1 120); do [ "$(gauge "$CTL_METRICS")" == 0 ] && break; sleep 0.25; done
check_eq "dir: fixed, the gauge is 0" 0 "$(gauge "$CTL_METRICS")"
rm "$SPECS/dirbad.yaml"
ctl_stop

# control: without the once-per-version rule, a line at every resync
if [ -x "$TESTHOOKS" ]; then
    bad noisy -5 >"$SPECS/noisy.yaml"
    CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE=invalid-log-once ctl_start
    wait_lines "$CTL_LOG" noisy 1
    resyncs "$CTL_METRICS"
    n=$(lines "$CTL_LOG" noisy)
    check "control: a line at every resync without the rule ($n > 2)" test "$n" -gt 2
    ctl_stop
    rm "$SPECS/noisy.yaml"
fi

# --- etcd: an invalid value under <prefix>/specs/
sc_start a
value=$(bad etcdbad -5 | base64 -w0)
curl -fsS "$ETCD_URL/v3/kv/put" -d "{\"key\":\"$(ekey specs/etcdbad)\",\"value\":\"$value\"}" >/dev/null
LOG_A=$TEST_TMP/ctl-a.log
wait_lines "$LOG_A" etcdbad 1
check_match "etcd: the line names key:line:col: field: problem" \
    ':10:20: spec.deadlineSeconds: ' "$(grep 'spec invalid' "$LOG_A" | grep '"invocation":"etcdbad"')"
check_eq "etcd: agentctl_specs_invalid counts it" 1 "$(gauge "${SC_METRICS[a]}")"
resyncs "${SC_METRICS[a]}"
check_eq "etcd: one line over the resyncs" 1 "$(lines "$LOG_A" etcdbad)"
sctl delete etcdbad >/dev/null 2>&1 ||
    curl -fsS "$ETCD_URL/v3/kv/deleterange" -d "{\"key\":\"$(ekey specs/etcdbad)\"}" >/dev/null
for _ in $(seq 1 120); do [ "$(gauge "${SC_METRICS[a]}")" == 0 ] && break; sleep 0.25; done
check_eq "etcd: deleted, the gauge is 0" 0 "$(gauge "${SC_METRICS[a]}")"
sc_stop a
echo "PASS: $CHECKS checks"
