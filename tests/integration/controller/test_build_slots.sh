#!/usr/bin/env bash
# test_build_slots.sh - boxes are built one at a time with --max-building 1
# (docs/design.md "Build slots"): three specs applied together, and each
# box's build - from its first container start (proxy or keeper) to its
# agent's start, as Docker's own start events order them - ends before the
# next begins (the two that waited say so: BuildQueued); all three
# Succeed, the slots are all let go
# (agentctl_boxes{state="building"|"waiting"} back at 0) and nothing is
# left. Negative control: the same three with --max-building 0 (no cap),
# and at least two builds overlap, so the ordering above is the slots'
# doing and not the test's.
source "$(dirname "$0")/lib_controller.sh"
ctl_init

# overlaps UID...: "<builds seen> <pairs that overlap>" of these
# invocations, from Docker's start events ("<time ns> <id> <uid> <role>",
# follow_starts).
overlaps() {
    sleep 1 # an event of this second has arrived
    awk -v uids="$*" '
        BEGIN { n = split(uids, u, " "); for (i = 1; i <= n; i++) want[u[i]] = 1 }
        !($3 in want) { next }
        ($4 == "proxy" || $4 == "keeper") && (!($3 in from) || $1 < from[$3]) { from[$3] = $1 }
        $4 == "agent" && (!($3 in to) || $1 < to[$3]) { to[$3] = $1 }
        END {
            k = 0; m = 0
            for (a in from) if (a in to) m++
            for (a in from) for (b in from)
                if (a < b && (a in to) && (b in to) && from[a] < to[b] && from[b] < to[a]) k++
            print m, k
        }' "$TEST_TMP/starts"
}

# three NAME-PREFIX: apply three specs in one file, wait for them all to
# Succeed; UIDS gets their uids.
three() {
    local f=$TEST_TMP/in/$1.yaml i
    UIDS=
    for i in 0 1 2; do
        printf '%s\n' "---" "apiVersion: agentctl.dev/v1alpha1" \
            "kind: AgentInvocation" "metadata: {name: $1-$i}" "spec:" \
            "  vendor: fake" "  phase: execute" "  image: $BOX_IMAGE" \
            "  command: [sh, -c, \"echo built-$1-$i\"]" \
            "  deadlineSeconds: $DEFAULT_DEADLINE"
    done >"$f"
    actl apply -f "$f" >/dev/null || fail "agentctl apply -f $f failed"
    for i in 0 1 2; do
        wait_phase "$1-$i" Succeeded 600
        UIDS+=" $(inv_uid "$1-$i")"
    done
}

metric() {
    curl -fsS "http://$CTL_METRICS/metrics" | awk -v k="$1" '$1 == k { print $2 }'
}

ctl_start --max-building 1
three one
check_eq "--max-building 1: three builds seen, no two overlap" "3 0" \
    "$(overlaps "$UIDS")"
check_match "one-2: its own output" "^built-one-2$" "$(agent_output one-2)"
queued=$(cat "$STATE"/events/one-[012].jsonl | grep -c \
    '"reason":"BuildQueued".*1 boxes are being built (--max-building 1)')
check_eq "two of them waited for the slot, and say so (BuildQueued)" 2 "$queued"
check_eq "no build slot is held at the end" 0 \
    "$(metric 'agentctl_boxes{state="building"}')"
check_eq "and nobody waits for one" 0 "$(metric 'agentctl_boxes{state="waiting"}')"
check_no_objects "the first three cleaned up" "$MANAGED" 60
ctl_stop

# the control: no cap, the same three
ctl_start --max-building 0
three nocap
read -r seen n <<<"$(overlaps "$UIDS")"
check "control: --max-building 0: of $seen builds, $n pairs overlap" \
    test "$seen" = 3 -a "$n" -gt 0
ctl_finish
