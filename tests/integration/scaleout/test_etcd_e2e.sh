#!/usr/bin/env bash
# test_etcd_e2e.sh - one controller on etcd, end to end: an invocation
# applied with agentctl --etcd runs to Succeeded (status, events and the
# controller's ID in etcd, its claim released once it is cleaned up); a
# running one deleted with agentctl --etcd is stopped and every Docker
# object of it removed; the status and claim keys go with it.
source "$(dirname "$0")/lib_scaleout.sh"
sc_init
sc_start a

# event_rev REASON: the mod_revision of done's first event of that reason
event_rev() {
    curl -fsS "$ETCD_URL/v3/kv/range" -d "{\"key\":\"$(ekey events/done/)\",\
\"range_end\":\"$(ekey events/done0)\"}" | jq -r --arg r "$1" \
        '[.kvs[] | select((.value | @base64d | fromjson | .reason) == $r) |
          .mod_revision][0] // empty'
}
# status_rev_at REV: the mod_revision done's status key had at REV
status_rev_at() {
    curl -fsS "$ETCD_URL/v3/kv/range" -d "{\"key\":\"$(ekey status/done)\",\
\"revision\":\"$1\"}" | jq -r '.kvs[0].mod_revision // empty'
}

claim_count() { # claim keys under the prefix
    curl -fsS "$ETCD_URL/v3/kv/range" -d "{\"key\":\"$(ekey claims/)\",\
\"range_end\":\"$(ekey claims0)\",\"count_only\":true}" | jq -r '.count // "0"'
}

sc_apply done "command: [/demo-agent, --sleep, \"1\"]"
sc_apply doomed "command: [/demo-agent, --sleep, \"600\"]"
sc_wait done '.phase == "Succeeded" and .cleanedUp == true' 420
check_eq "done: controller in status" "$(sc_id a)" "$(sc_status done .controller)"
check_eq "done: exit code 0" 0 "$(sc_status done .exitCode)"
check_match "done: agentctl get shows Succeeded" "Succeeded" "$(sctl get done)"
# BoundaryVerified, Started and EgressAudit are made in a step's answer,
# outside a pass: they join the iteration's group write (inv_status.c)
reasons=$(sctl describe done | sed -n '/^Events:/,$p' | awk 'NR > 3 {print $2}' |
    tr '\n' ' ')
echo "# done: events: $reasons"
check_match "done: every event in etcd, in order" \
    'Captured .*BoundaryVerified .*Started .*Completed .*EgressAudit .*CleanedUp' \
    "$reasons"
# ... and each went in one txn with the status (same mod_revision), not
# in a request of its own: the status at the event's revision was
# written at that revision
for r in BoundaryVerified Started EgressAudit; do
    rev=$(event_rev "$r")
    check_match "done: $r event has a revision" '^[0-9]+$' "$rev"
    check_eq "done: $r went in one txn with the status" "$rev" \
        "$(status_rev_at "$rev")"
done
sc_wait doomed '.phase == "Running"' 420
check_eq "doomed: claimed by a" "$(sc_id a)" "$(sc_status doomed .controller)"
uid=$(sc_status doomed .uid)
check "doomed: has Docker objects while it runs" \
    test -n "$(labelled_objects "agentctl.dev/uid=$uid")"
for _ in $(seq 40); do [ "$(claim_count)" == 1 ] && break; sleep 0.25; done
check_eq "one claim key left (doomed's; done's released)" 1 "$(claim_count)"

check "agentctl --etcd delete doomed" quiet sctl delete doomed
check_no_objects "doomed: every object with its uid is gone" \
    "agentctl.dev/uid=$uid" 60
for _ in $(seq 40); do [ -z "$(sc_status doomed .phase)" ] && break; sleep 0.25; done
check_eq "doomed: status key removed" "" "$(sc_status doomed .phase)"
check_eq "doomed: metadata key removed with it" 0 \
    "$(curl -fsS "$ETCD_URL/v3/kv/range" \
        -d "{\"key\":\"$(ekey meta/doomed)\",\"count_only\":true}" |
        jq -r '.count // 0')"
check_eq "no claim key left" 0 "$(claim_count)"
check_eq "doomed: one agent start" 1 "$(sc_starts "$uid")"
check "controller a still running" sc_alive a
check_no_objects "nothing of $(sc_id a) left but done's cleaned attempt" \
    "agentctl.dev/managed-by=$(sc_id a)" 30
