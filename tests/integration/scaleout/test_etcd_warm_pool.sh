#!/usr/bin/env bash
# test_etcd_warm_pool.sh - the warm pool on etcd (docs/design.md "Warm
# pool"): the controller's pool document is in etcd, `agentctl --etcd get
# pool` shows its ready box; an invocation applied with agentctl --etcd
# takes that box (WarmBoxTaken, BoundaryVerified reason WarmBox,
# status.box names it), runs to Succeeded and cleans the box up with its
# attempt; the pool makes a new box. A stop removes the document.
# Negative control: an invocation of a vendor without a pool builds its
# own box (no status.box, its own probe's verdict).
source "$(dirname "$0")/lib_scaleout.sh"
sc_init
# a second vendor, "plain", with no pool (the control)
sed -i '/^vendors:/a\  plain: {hosts: ["vendor.test:443"], allowPrivate: true}' "$CONFIG"
echo "warmPool: {fake: 1}" >>"$CONFIG"
sc_start a

# ready_row: the first Ready row of `get pool` (bounded wait).
ready_row() {
    local row
    for _ in $(seq 1 600); do
        row=$(sctl get pool --no-headers 2>/dev/null | awk '$3 == "Ready"' |
            grep -v "^${1:-^$} " | head -n 1)
        [ -n "$row" ] && echo "$row" && return 0
        sleep 0.1
    done
    fail "no Ready box in agentctl --etcd get pool${1:+ other than $1}: $(sctl get pool 2>&1)"
}

row=$(ready_row)
box=${row%% *}
check_match "get pool --etcd: a Ready box of vendor fake" \
    "^agentctl-pool\.fake-[0-9a-f]{8} +fake +Ready " "$row"

sc_apply warm "command: [/demo-agent]"
sc_wait warm '.phase == "Succeeded" and .cleanedUp == true' 420
check_eq "warm: status.box names the ready box" "$box" "$(sc_status warm .box.name)"
check_eq "warm: BoundaryVerified from the warm box" WarmBox \
    "$(sc_status warm '.conditions[] | select(.type == "BoundaryVerified") | .reason')"
check_match "warm: WarmBoxTaken in its events in etcd" "WarmBoxTaken" \
    "$(sctl describe warm | sed -n '/^Events:/,$p')"
check_no_objects "warm: its box went with its cleanup" \
    "agentctl.dev/invocation=pool.fake agentctl.dev/uid=$(sc_status warm .box.uid)" 60
row=$(ready_row "$box")
check "the pool made a new box" test "${row%% *}" != "$box"

# control: a vendor without a pool builds its own
sed 's/^  vendor: fake$/  vendor: plain/; s/name: warm$/name: cold/' \
    "$TEST_TMP/in/warm.yaml" >"$TEST_TMP/in/cold.yaml"
sctl apply -f "$TEST_TMP/in/cold.yaml" >/dev/null || fail "apply cold failed"
sc_wait cold '.phase == "Succeeded" and .cleanedUp == true' 420
check_eq "control: cold took no box" "" "$(sc_status cold .box)"
check_eq "control: cold ran its own probe" Verified \
    "$(sc_status cold '.conditions[] | select(.type == "BoundaryVerified") | .reason')"

sc_stop a
check_match "a stop removes the pool document" "No resources found" \
    "$(sctl get pool 2>&1)"
