#!/usr/bin/env bash
# test_node_lost.sh - a controller killed with SIGKILL while its agents run:
# once its lease (--lease-ttl 5s) expires, the other controller marks its
# unfinished invocations Failed, stopReason node-lost, condition NodeLost
# naming the lost controller, and never reruns them (one agent start per
# uid, nothing of them under the survivor's label). Control: while the
# first controller lives, the second leaves them Running for well over a
# TTL. The lost controller's Docker objects stay (they carry its label);
# restarted with the same ID it claims its invocations back and removes
# them (docs/store-etcd.md: what an operator does).
source "$(dirname "$0")/lib_scaleout.sh"
sc_init
A=$(sc_id a)
B=$(sc_id b)
sc_start a --lease-ttl 5s
for n in l1 l2; do
    sc_apply "$n" "command: [/demo-agent, --sleep, \"600\"]"
done
for n in l1 l2; do
    sc_wait "$n" '.phase == "Running"' 420
    check_eq "$n: claimed by a" "$A" "$(sc_status "$n" .controller)"
done
u1=$(sc_status l1 .uid)
u2=$(sc_status l2 .uid)
sc_start b --lease-ttl 5s

# Control: a alive, b leaves a's invocations alone for 3 TTLs.
sleep 15
for n in l1 l2; do
    check_eq "$n: still Running under a while a lives (control)" \
        "Running $A" "$(sc_status "$n" '"\(.phase) \(.controller)"')"
done

sc_kill a
check "a's agents outlive it (Docker objects remain)" \
    test -n "$(labelled_objects "agentctl.dev/uid=$u1")"
for n in l1 l2; do
    sc_wait "$n" '.phase == "Failed"' 60
    check_eq "$n: stopReason node-lost" node-lost "$(sc_status "$n" .stopReason)"
    check_eq "$n: Ready reason NodeLost" NodeLost \
        "$(sc_status "$n" '.conditions[] | select(.type == "Ready") | .reason')"
    check_match "$n: NodeLost condition names a, seen by b" "$A.*seen by controller $B" \
        "$(sc_status "$n" '.conditions[] | select(.type == "NodeLost") | .message')"
    check_eq "$n: status.controller still a (its objects)" "$A" \
        "$(sc_status "$n" .controller)"
    check_match "$n: a NodeLost warning event" "NodeLost" "$(sctl describe "$n")"
done
sleep 5 # a few resyncs of b: nothing may rerun them
for u in "$u1" "$u2"; do
    check_eq "agent of $u started once, never rerun" 1 "$(sc_starts "$u")"
    check_eq "b made no object for $u" "" \
        "$(labelled_objects "agentctl.dev/uid=$u agentctl.dev/managed-by=$B")"
done
check_eq "l1: attempt stays used" '["1"]' "$(sc_status l1 .usedAttempts)"
check "a's leftovers are still there (b does not own them)" \
    test -n "$(labelled_objects "agentctl.dev/managed-by=$A")"

# The operator's way: start the lost controller again (same ID, same
# Docker host); it claims its invocations back and cleans them up.
sc_start a --lease-ttl 5s
check_no_objects "restarted a removed its leftovers" \
    "agentctl.dev/managed-by=$A" 90
for n in l1 l2; do
    sc_wait "$n" '.cleanedUp == true' 60
    check_eq "$n: still Failed node-lost after a's cleanup" "Failed node-lost" \
        "$(sc_status "$n" '"\(.phase) \(.stopReason)"')"
done
for u in "$u1" "$u2"; do
    check_eq "agent of $u still started only once" 1 "$(sc_starts "$u")"
done
check "b still running" sc_alive b
