#!/usr/bin/env bash
# test_etcd_restart.sh - etcd killed (SIGKILL) and restarted on the same
# ports and data while two controllers have agents running: /healthz says
# the store is unreachable while it is down (and ok again after), the
# leases survive (etcd renews them on restart), nothing is marked
# NodeLost, and every invocation converges to Succeeded with its status,
# events and claim owner intact; every agent started exactly once.
source "$(dirname "$0")/lib_scaleout.sh"
sc_init
A=$(sc_id a)
B=$(sc_id b)
sc_start a --lease-ttl 10s --max-running 2
sc_start b --lease-ttl 10s --max-running 2
names="r1 r2 r3 r4"
for n in $names; do
    sc_apply "$n" "command: [/demo-agent, --sleep, \"90\"]"
done
for n in $names; do # a busy daemon can take minutes to prepare four
    sc_wait "$n" '.phase == "Running"' 480
done
check_match "a healthy before (control)" 'store: ok \(etcd\)' \
    "$(sc_health a)"

kill_etcd
down=
for _ in $(seq 1 60); do # the keepalive runs every TTL/3
    if grep -q 'unreachable (etcd)' <<<"$(sc_health a)"; then
        down=yes
        break
    fi
    sleep 0.25
done
check_eq "a's /healthz says etcd is unreachable" yes "$down"
check "a survives etcd down" sc_alive a
check "b survives etcd down" sc_alive b
sleep 2
run_etcd

for n in $names; do
    sc_wait "$n" '.phase == "Succeeded" and .cleanedUp == true' 420
    check_match "$n: owner is a or b" "^($A|$B)\$" "$(sc_status "$n" .controller)"
    check_eq "$n: no stopReason (not NodeLost)" "" "$(sc_status "$n" .stopReason)"
    check_eq "$n: its agent started exactly once" 1 \
        "$(sc_starts "$(sc_status "$n" .uid)")"
    check_match "$n: events kept (Captured, CleanedUp)" "Captured.*CleanedUp" \
        "$(sctl describe "$n" | tr '\n' ' ')"
done
ok=
for _ in $(seq 1 60); do
    if grep -q 'ok (etcd)' <<<"$(sc_health a)"; then ok=yes; break; fi
    sleep 0.25
done
check_eq "a's /healthz says etcd is ok again" yes "$ok"
check_no_objects "nothing of a left" "agentctl.dev/managed-by=$A" 60
check_no_objects "nothing of b left" "agentctl.dev/managed-by=$B" 60
