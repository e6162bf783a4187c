#!/usr/bin/env bash
# test_gc_orphans.sh - objects with this controller's managed-by label and
# no live invocation are removed at start (and on resync): a container, a
# network and a volume labelled for an invocation that does not exist.
# Controls: the same objects labelled for another controller ID, and
# unlabelled ones, are left alone.
source "$(dirname "$0")/lib_controller.sh"
ctl_init

ghost_uid=$(cat /proc/sys/kernel/random/uuid)
OTHER_ID=test-other-$CTL_RUN
# labels CONTROLLER-ID: the full agentctl label set for invocation "ghost"
labels() {
    local l
    for l in "agentctl.dev/managed-by=$1" agentctl.dev/invocation=ghost \
        "agentctl.dev/uid=$ghost_uid" agentctl.dev/attempt=1; do
        printf -- '--label\n%s\n' "$l"
    done
}
mapfile -t MINE < <(labels "$CTL_ID")
mapfile -t THEIRS < <(labels "$OTHER_ID")
T=(--label "$TEST_LABEL")

docker network create "${T[@]}" "${MINE[@]}" --label agentctl.dev/role=network \
    --internal "agentctl-ghost-${ghost_uid:0:8}-net" >/dev/null
docker volume create "${T[@]}" "${MINE[@]}" --label agentctl.dev/role=workspace \
    "agentctl-ghost-${ghost_uid:0:8}-ws" >/dev/null
docker run -d "${T[@]}" "${MINE[@]}" --label agentctl.dev/role=agent \
    --name "agentctl-ghost-${ghost_uid:0:8}-agent" --network none \
    "$BOX_IMAGE" sleep 600 >/dev/null
docker run -d "${T[@]}" "${THEIRS[@]}" --label agentctl.dev/role=agent \
    --name "other-ghost-$CTL_RUN" --network none "$BOX_IMAGE" sleep 600 \
    >/dev/null
docker volume create "${T[@]}" "${THEIRS[@]}" --label agentctl.dev/role=workspace \
    "other-ghost-ws-$CTL_RUN" >/dev/null
docker run -d "${T[@]}" --name "plain-$CTL_RUN" --network none \
    "$BOX_IMAGE" sleep 600 >/dev/null
check_eq "before start: 3 orphans with our label" 3 \
    "$(labelled_objects "$MANAGED" | grep -c .)"

ctl_start
check_no_objects "the orphans with our label are removed" "$MANAGED" 60
check_eq "another controller's container is left alone" running \
    "$(docker inspect -f '{{.State.Status}}' "other-ghost-$CTL_RUN")"
check "another controller's volume is left alone" \
    quiet docker volume inspect "other-ghost-ws-$CTL_RUN"
check_eq "an unlabelled container is left alone" running \
    "$(docker inspect -f '{{.State.Status}}' "plain-$CTL_RUN")"

# and on resync, not only at start
docker run -d "${T[@]}" "${MINE[@]}" --label agentctl.dev/role=agent \
    --network none "$BOX_IMAGE" sleep 600 >/dev/null
check_no_objects "an orphan that appears later is removed too" "$MANAGED" 60

# a live invocation beside them is not an orphan
apply_spec alive execute "command: [/demo-agent]"
wait_phase alive Succeeded 240
ctl_finish
