#!/usr/bin/env bash
# test_split.sh - two controllers with different IDs, one Docker daemon,
# one etcd: six invocations are split between them without overlap. Each
# status names one of the two controllers, the objects of each invocation
# carry that controller's managed-by label only, every agent starts
# exactly once (Docker start events per uid), and neither controller ever
# holds more than --max-running 3 unfinished invocations (sampled while
# they run; with 3 each and 6 long enough agents, both must take some).
source "$(dirname "$0")/lib_scaleout.sh"
sc_init
sc_start a --max-running 3
sc_start b --max-running 3
A=$(sc_id a)
B=$(sc_id b)
names="s1 s2 s3 s4 s5 s6"
for n in $names; do
    sc_apply "$n" "command: [/demo-agent, --sleep, \"20\"]"
done

# Sample the claims while the agents run: at most 3 unfinished each.
over=
end=$((SECONDS + 400))
while [ "$SECONDS" -lt "$end" ]; do
    done_n=0 ua=0 ub=0
    for n in $names; do
        st=$(sc_status "$n" '"\(.phase) \(.controller)"')
        case $st in
        Succeeded*|Failed*|Cancelled*) done_n=$((done_n + 1)) ;;
        "Preparing $A"|"Running $A") ua=$((ua + 1)) ;;
        "Preparing $B"|"Running $B") ub=$((ub + 1)) ;;
        esac
    done
    [ "$ua" -le 3 ] && [ "$ub" -le 3 ] || over="a=$ua b=$ub"
    [ "$done_n" -eq 6 ] && break
    sleep 0.5
done
check_eq "never more than 3 unfinished per controller" "" "$over"

used_a=0 used_b=0
for n in $names; do
    sc_wait "$n" '.phase == "Succeeded" and .cleanedUp == true' 120
    ctl=$(sc_status "$n" .controller)
    uid=$(sc_status "$n" .uid)
    check_match "$n: status.controller is a or b" "^($A|$B)\$" "$ctl"
    [ "$ctl" == "$A" ] && used_a=$((used_a + 1))
    [ "$ctl" == "$B" ] && used_b=$((used_b + 1))
    check_eq "$n: its agent started exactly once" 1 "$(sc_starts "$uid")"
    check_match "$n: events name the owner's capture" "Captured" \
        "$(sctl describe "$n")"
done
check "controller a ran some" test "$used_a" -gt 0
check "controller b ran some" test "$used_b" -gt 0
check_eq "all six split between them" 6 $((used_a + used_b))
# Control for the start-event count: the query sees a start at all.
check "start events are visible to the query (control)" \
    test "$(sc_starts "$(sc_status s1 .uid)")" -ge 1
check "a still running" sc_alive a
check "b still running" sc_alive b
check_no_objects "nothing of a left" "agentctl.dev/managed-by=$A" 60
check_no_objects "nothing of b left" "agentctl.dev/managed-by=$B" 60
