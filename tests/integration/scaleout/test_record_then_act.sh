#!/usr/bin/env bash
# test_record_then_act.sh - on etcd the controller's status writes do not
# block its loop (controller/try/try_write.h), and with etcd frozen nothing is
# built ahead of its record.
#
# The controller pauses right after an invocation's first status
# (Pending) is on etcd (AGENTCTL_TEST_PAUSE_AT=recorded:Pending); the test
# freezes etcd (SIGSTOP) and lets the controller go on. While etcd is
# frozen: /healthz answers, naming the store as unreachable and not
# blaming Docker (a failed status write is the store's trouble), and no
# Docker object of the invocation exists (its captured attempt, the
# record every object is named from, waits for etcd). Then etcd thaws and
# the same controller takes the invocation to Succeeded, its agent
# started once.
#
# The hold that keeps a request behind the status write of its own pass
# is shown with its negative control in tests/unit/test_ctl_write.c (a
# pass that records and acts at once is what it guards; the controller's
# steps record first and act on the next pass, so no scenario here can
# tell it apart).
source "$(dirname "$0")/lib_scaleout.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
sc_init

stopped() { [[ "$(ps -o stat= -p "${SC_PID[a]}" 2>/dev/null)" == T* ]]; }

CONTROLLER=$TESTHOOKS AGENTCTL_TEST_PAUSE_AT=recorded:Pending sc_start a
sc_apply frozen "command: [/demo-agent, --sleep, \"1\"]"
for _ in $(seq 1 600); do stopped && break; sleep 0.1; done
stopped || fail "the controller never paused at recorded:Pending"
uid=$(sc_status frozen .uid)
check_match "frozen: a uid recorded before the freeze" '^[0-9a-f-]{36}$' "$uid"

kill -STOP "$ETCD_PID"
kill -CONT "${SC_PID[a]}"
sleep 4 # as far as it goes without etcd (a write's timeout is 2 s)
healthz=$(curl -sS --max-time 3 "http://${SC_METRICS[a]}/healthz" 2>&1)
objects=$(labelled_objects "agentctl.dev/uid=$uid" | grep . || true)
kill -CONT "$ETCD_PID"

check_match "/healthz answered while etcd was frozen, naming the store" \
    "^unhealthy store: unreachable" "$(tr '\n' ' ' <<<"$healthz")"
check_eq "/healthz did not blame Docker (only failing checks are listed)" "" \
    "$(grep '^docker:' <<<"$healthz")"
check_eq "frozen: no Docker object while its attempt's record waited" "" \
    "${objects//$'\n'/;}"
check "the controller is still running" sc_alive a

sc_wait frozen '.phase == "Succeeded"' 300
check_eq "frozen: Succeeded once etcd was back" Succeeded \
    "$(sc_status frozen .phase)"
check_eq "frozen: its agent started once" 1 "$(sc_starts "$uid")"
check_match "/healthz is ok again" "^ok" \
    "$(curl -sS --max-time 3 "http://${SC_METRICS[a]}/healthz" 2>&1)"
sc_wait frozen '.cleanedUp == true' 120
check_no_objects "frozen: every object of it removed" "agentctl.dev/uid=$uid" 60
sc_stop a
