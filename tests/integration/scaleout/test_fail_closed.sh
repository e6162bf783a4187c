#!/usr/bin/env bash
# test_fail_closed.sh - a live controller whose etcd lease is gone (revoked
# here, as etcd does when a controller was cut off or paused past its TTL)
# does not go on unclaimed: its next keepalive learns it, it marks its
# running invocation Failed, stopReason node-lost (its own fail-closed
# message), kills the agent and removes every object of it, takes a new
# lease and keeps running. Control: a second invocation started after the
# revocation is claimed under the new lease and runs.
source "$(dirname "$0")/lib_scaleout.sh"
sc_init
A=$(sc_id a)
sc_start a --lease-ttl 5s
sc_apply f1 "command: [/demo-agent, --sleep, \"600\"]"
sc_wait f1 '.phase == "Running"' 420
uid=$(sc_status f1 .uid)
check "f1: has Docker objects while it runs" \
    test -n "$(labelled_objects "agentctl.dev/uid=$uid")"
lease=$(curl -fsS "$ETCD_URL/v3/kv/range" -d "{\"key\":\"$(ekey claims/f1)\"}" |
    jq -r '.kvs[0].lease // empty')
check_match "f1's claim key is bound to a lease" '^[0-9]+$' "$lease"
curl -fsS "$ETCD_URL/v3/lease/revoke" -d "{\"ID\":\"$lease\"}" >/dev/null ||
    fail "cannot revoke lease $lease"

sc_wait f1 '.phase == "Failed"' 60
check_eq "f1: stopReason node-lost" node-lost "$(sc_status f1 .stopReason)"
check_match "f1: a says it stops its own agent" "$A lost its etcd lease.*fail closed" \
    "$(sc_status f1 '.conditions[] | select(.type == "NodeLost") | .message')"
check_no_objects "f1: every object of it removed" "agentctl.dev/uid=$uid" 90
sc_wait f1 '.cleanedUp == true' 60
check_eq "f1: its agent started once" 1 "$(sc_starts "$uid")"
check "a keeps running" sc_alive a

sc_apply f2 "command: [/demo-agent, --sleep, \"1\"]"
sc_wait f2 '.phase == "Succeeded"' 420
check_eq "f2 (control): run by a under its new lease" "$A" \
    "$(sc_status f2 .controller)"
check_eq "f1: still Failed, not rerun" "Failed 1" \
    "$(sc_status f1 '"\(.phase) \(.usedAttempts | length)"')"
check_no_objects "nothing of a left" "agentctl.dev/managed-by=$A" 60
