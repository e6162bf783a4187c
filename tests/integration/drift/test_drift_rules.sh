#!/usr/bin/env bash
# test_drift_rules.sh - one real-Docker mutation per drift rule that Docker
# lets anyone make while an attempt runs, each on its own
# invocation, all of a batch at once (lib_drift.sh lists them). For each:
# phase Failed, stopReason boundary-drift, condition Drifted=True whose
# reason is exactly the rule ID and whose message names the object.
#
# Negative control: the same batch again under the test-hooks controller
# with every rule under test switched off
# (AGENTCTL_TEST_DISABLE_DRIFT_RULES). Each case's check must then fail:
# the invocation is not Failed with its rule ID once the slowest positive
# case's detection time plus a margin has passed (it is still Running, or
# another rule caught it, which is printed). One controller can switch off
# all of them at once: switching a rule off only removes findings, so a
# case that was caught by its own rule alone stays Running; a case whose
# mutation trips a second rule shows that rule (and the output says so).
# The stand-in cases (net-twin, proxy-twin, keeper-twin) have their
# negative control in test_drift_standin.sh.
#
# The repair before the start is test_drift_prestart.sh.
source "$(dirname "$0")/../controller/lib_controller.sh"
source "$(dirname "$0")/lib_drift.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
ctl_init
on_cleanup remove_standins
# A batch takes 15 /24s at once; the harness's /20 leaves no room when
# another scenario's networks land in it ("no free /24 left in
# subnetPool"): a /18 of 10.218.0.0/16 of its own instead.
for k in 0 1 2 3; do
    pool=10.218.$((k * 64)).0/18
    subnet_overlaps "$pool" || break
    [ "$k" -lt 3 ] || fail "every /18 of 10.218.0.0/16 is in use"
done
sed -i "s|^subnetPool: .*|subnetPool: $pool|" "$CONFIG"
echo "# subnetPool $pool"
PROD=$CONTROLLER
SLEEP=("command: [/demo-agent, --sleep, \"600\"]" "deadlineSeconds: 600")
declare -A OBJNAME MUT_AT LATENCY

case_field() { # CASE-LINE N: the Nth |-separated field (1-based)
    cut -d'|' -f"$2" <<<"$1"
}

# in_table RULE[,RULE...]: every one is a rule of docs/drift-rules.md
in_table() {
    local r
    for r in ${1//,/ }; do
        grep -q "^| \`$r\` |" "$ROOT/docs/drift-rules.md" || return 1
    done
}

# expect_re CASE-LINE NAME: the start of the message each allowed
# (role, object) gives, as one regex.
expect_re() {
    local roles re="" r
    roles=($(case_field "$1" 3 | tr , ' '))
    for r in "${roles[@]}"; do
        re+="${re:+|}$r ${OBJNAME[$2/$r]}"
    done
    echo "^($re)[: ]"
}

# mutate_batch PREFIX: every case's mutation; the paused ones in one window
# with the controller stopped.
mutate_batch() {
    local pre=$1 c n pass want t
    for pass in live paused; do
        want=
        [ "$pass" = live ] || want=paused
        [ "$pass" = live ] || kill -STOP "$CTL_PID"
        for c in "${BATCH[@]}"; do
            n=$pre-$(case_field "$c" 1)
            [ "$(case_field "$c" 5)" = "$want" ] || continue
            MUT_AT[$n]=$(date +%s.%N)
            eval "$(case_field "$c" 4) $n" ||
                { kill -CONT "$CTL_PID"; fail "$n: mutation failed"; }
        done
        [ "$pass" = live ] || kill -CONT "$CTL_PID"
    done
    # paused mutations take effect when the controller runs again
    t=$(date +%s.%N)
    for c in "${BATCH[@]}"; do
        n=$pre-$(case_field "$c" 1)
        [ "$(case_field "$c" 5)" != paused ] || MUT_AT[$n]=$t
    done
}

# start_batch PREFIX: every case applied, running, its objects named.
start_batch() {
    local pre=$1 c n r
    for c in "${BATCH[@]}"; do
        apply_spec "$pre-$(case_field "$c" 1)" execute "${SLEEP[@]}"
    done
    for c in "${BATCH[@]}"; do
        n=$pre-$(case_field "$c" 1)
        wait_phase "$n" Running 300
        for r in $(case_field "$c" 3 | tr , ' '); do
            OBJNAME[$n/$r]=$(status_field "$n" ".resources.$r.name")
            [ -n "${OBJNAME[$n/$r]}" ] || fail "$n: no recorded $r"
        done
    done
}

# end_batch PREFIX: stand-ins away, every invocation ended, nothing left.
end_batch() {
    local pre=$1 c n
    for c in "${BATCH[@]}"; do
        n=$pre-$(case_field "$c" 1)
        [[ $(status_field "$n" .phase) =~ $TERMINAL_RE ]] ||
            actl cancel "$n" >/dev/null
    done
    for c in "${BATCH[@]}"; do
        wait_terminal "$pre-$(case_field "$c" 1)" 120 >/dev/null
    done
    remove_standins
    for c in "${BATCH[@]}"; do
        n=$pre-$(case_field "$c" 1)
        check_no_objects "$n: nothing of it left" \
            "agentctl.dev/uid=$(inv_uid "$n")" 90
    done
}

# ---- positive: every rule catches its mutation ----
BATCH=("${DRIFT_CASES[@]}")
ctl_start
t0=$SECONDS
start_batch p
echo "# batch running after $((SECONDS - t0))s"
mutate_batch p
# Detection time: from the mutation to the Drifted condition's
# lastTransitionTime (whole seconds, so rounded up to the next second).
for c in "${DRIFT_CASES[@]}"; do
    wait_terminal "p-$(case_field "$c" 1)" 120 >/dev/null
done
max_lat=0
for c in "${DRIFT_CASES[@]}"; do
    n=p-$(case_field "$c" 1)
    rule=$(case_field "$c" 2)
    role=$(case_field "$c" 3)
    phase=$(wait_terminal "$n" 5)
    at=$(date -d "$(condition_field "$n" Drifted lastTransitionTime)" +%s)
    LATENCY[$n]=$(echo "$at + 1 - ${MUT_AT[$n]}" | bc)
    check_eq "$n: Failed" Failed "$phase"
    check_eq "$n: stopReason boundary-drift" boundary-drift \
        "$(status_field "$n" .stopReason)"
    check_eq "$n: Drifted=True" True "$(condition_field "$n" Drifted status)"
    check_match "$n: Drifted reason is the rule ${rule//,/ or }" \
        "^(${rule//,/|})\$" "$(condition_field "$n" Drifted reason)"
    msg=$(condition_field "$n" Drifted message)
    check_match "$n: the message names the ${role//,/ or }" \
        "$(expect_re "$c" "$n")" "$msg"
    echo "# $n: caught in ${LATENCY[$n]}s: $msg"
    l=${LATENCY[$n]%.*}
    l=${l#-}
    [ "${l:-0}" -lt "$max_lat" ] || max_lat=$((${l:-0} + 1))
done
echo "# slowest detection (upper bound, whole seconds): ${max_lat}s"
check "the agent of p-rp-agent is not running any more" not test \
    "$(docker inspect -f '{{.State.Running}}' \
        "$(object_of p-rp-agent agent)" 2>/dev/null)" == true
end_batch p
ctl_stop
echo "# positive batch: $((SECONDS - t0))s"

# ---- negative control: the same with the rules switched off ----
# Grouped to keep the run short: the mutations whose switched-off rule
# leaves nothing else to find (seen one per invocation: they stay
# Running) share one invocation; those another rule then catches get their
# own. Grouping cannot make a negative control pass wrongly: with its rule
# off, a case's check (Failed with that rule) fails whatever the others do.
NEG_GROUPS=("quiet|rp-proxy rp-keeper rp-agent extra-ep agent-egress rename
    memory swap cpus pids" "agent-off|agent-off" "proxy-off|proxy-off")
case_line() { # NAME: its DRIFT_CASES line
    local c
    for c in "${DRIFT_CASES[@]}"; do
        [ "$(case_field "$c" 1)" != "$1" ] || echo "$c"
    done
}
t0=$SECONDS
for c in "${DRIFT_CASES[@]}"; do
    r=$(case_field "$c" 2)
    in_table "$r" || echo "# $(case_field "$c" 1): ${r//,/ or } not all" \
        "rules of the table: no switch, no negative control"
done
off=$(for g in "${NEG_GROUPS[@]}"; do
    for k in ${g#*|}; do case_field "$(case_line "$k")" 2 | tr , '\n'; done
done | sort -u | paste -sd,)
echo "# switched off: $off"
BATCH=()
for g in "${NEG_GROUPS[@]}"; do BATCH+=("${g%%|*}|||"); done
# The canary is off too: it is no drift rule, and agent-egress (the agent
# joined to the egress network) is a breach it finds on its jittered
# timer; when that fell between the quiet group's mutations, n-quiet was
# failed and being removed before the last ones (seen under load: "pids:
# container is marked for removal").
CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE_DRIFT_RULES=$off \
    AGENTCTL_TEST_DISABLE=canary ctl_start
CONTROLLER=$PROD
check "the test-hooks controller switched the rules off" \
    grep -q 'drift rule disabled' "$CTL_LOG"
start_batch n
for g in "${NEG_GROUPS[@]}"; do
    for k in ${g#*|}; do
        eval "$(case_field "$(case_line "$k")" 4) n-${g%%|*}" ||
            fail "n-${g%%|*}: mutation $k failed"
    done
done
margin=$((max_lat + 10))
echo "# waiting ${margin}s: slowest positive detection + 10s"
sleep "$margin"
for g in "${NEG_GROUPS[@]}"; do
    n=n-${g%%|*}
    phase=$(status_field "$n" .phase)
    reason=$(condition_field "$n" Drifted reason)
    echo "# $n (${g#*|}): phase $phase, Drifted reason ${reason:-none}"
    for k in ${g#*|}; do
        rule=$(case_field "$(case_line "$k")" 2)
        check "$k: with ${rule//,/ and } off its check fails" not \
            grep -Eqx "Failed/(${rule//,/|})" <<<"$phase/$reason"
    done
done
end_batch n
ctl_stop
echo "# negative batch: $((SECONDS - t0))s"

check_no_objects "no Docker object labelled $MANAGED left" "$MANAGED" 60
