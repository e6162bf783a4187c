#!/usr/bin/env bash
# test_helper_images_pinned.sh - the helper images (proxy, keeper, probe)
# are pinned to their IDs at capture like the agent's (docs/status.md
# helperImages, docs/security-defaults.md): a tag re-pointed after the
# capture does not change what runs in the box.
#
# The controller's config names TEST-LOCAL tags (agentctl-pin-test/*:<run>)
# made from the real images; the shared agentctl/*:<version> tags are never
# touched (other scenarios run against them). For each case: the test-hooks
# controller kills itself right after the capture is recorded
# (AGENTCTL_TEST_CRASH_AT=recorded:Preparing), nothing of the box exists
# yet, the test re-points the three test-local tags at an impostor (the
# testbox image), and a controller is started again.
#   pinned   the normal controller: every container is created from the
#            pinned ID (Docker's own create events name it), the
#            invocation Succeeds, status.helperImages holds the IDs
#   control  the same with AGENTCTL_TEST_DISABLE=helper-pin (the bodies use
#            the tags, as for an attempt captured before pinning): the
#            test's check must catch the impostor proxy
#   missing  a helper image not on the host (its tag removed) fails the
#            capture: ImageNotFound naming the tag and the config key
# container.image-pinned itself (a proxy whose Image is not the pinned ID
# is drift) is tested on the inspect fixtures: tests/unit/test_rc_drift.c
# test_image_pinned.
source "$(dirname "$0")/../controller/lib_controller.sh"
TESTHOOKS=$BUILD/controller/agent-controller-testhooks
[ -x "$TESTHOOKS" ] || skip "agent-controller-testhooks not built"
PROBE_IMAGE=agentctl/probe:$VERSION
IMPOSTOR=$BOX_IMAGE
PIN_REPO=agentctl-pin-test
TAG_PROXY=$PIN_REPO/proxy:$CTL_RUN
TAG_KEEPER=$PIN_REPO/keeper:$CTL_RUN
TAG_PROBE=$PIN_REPO/probe:$CTL_RUN

# Only this run's tags go; the images stay (the shared tags hold them).
untag_all() {
    docker image rm "$TAG_PROXY" "$TAG_KEEPER" "$TAG_PROBE" >/dev/null 2>&1 ||
        true
}
on_cleanup untag_all

image_id() { docker image inspect -f '{{.Id}}' "$1"; }

# tag_real / tag_impostor: the test-local tags at the real images, or all
# three at the impostor.
tag_real() {
    docker tag "$PROXY_IMAGE" "$TAG_PROXY" &&
        docker tag "$KEEPER_IMAGE" "$TAG_KEEPER" &&
        docker tag "$PROBE_IMAGE" "$TAG_PROBE"
}
tag_impostor() {
    docker tag "$IMPOSTOR" "$TAG_PROXY" &&
        docker tag "$IMPOSTOR" "$TAG_KEEPER" &&
        docker tag "$IMPOSTOR" "$TAG_PROBE"
}

ctl_init
# the controller's images are the test-local tags
sed -i "s|^images: .*|images: {proxy: \"$TAG_PROXY\", keeper: \"$TAG_KEEPER\", probe: \"$TAG_PROBE\"}|" \
    "$CONFIG"
check "the config names the test-local tags" grep -q "probe: \"$TAG_PROBE\"" \
    "$CONFIG"
PROXY_ID=$(image_id "$PROXY_IMAGE")
KEEPER_ID=$(image_id "$KEEPER_IMAGE")
PROBE_ID=$(image_id "$PROBE_IMAGE")
IMPOSTOR_ID=$(image_id "$IMPOSTOR")
echo "# proxy $PROXY_ID keeper $KEEPER_ID probe $PROBE_ID impostor $IMPOSTOR_ID"

# created_images UID SINCE: "role image" of every container Docker created
# for that invocation since SINCE (its own create events: the reference
# each body named, which for an ID is the image itself).
created_images() {
    docker events --since "$2" --until "$(($(date +%s) + 1))" \
        --filter "label=agentctl.dev/uid=$1" --filter type=container \
        --filter event=create \
        --format '{{index .Actor.Attributes "agentctl.dev/role"}} {{index .Actor.Attributes "image"}}' |
        sort -u
}

# live_image UID ROLE: .Image of the role's container, "" when none.
live_image() {
    local id
    id=$(docker ps -aq --no-trunc --filter "label=agentctl.dev/uid=$1" \
        --filter "label=agentctl.dev/role=$2" | head -n 1)
    [ -z "$id" ] || docker inspect -f '{{.Image}}' "$id"
}

# pinned_created NAME UID SINCE: the test's check - every helper container
# created since SINCE came from its pinned ID (and at least the proxy was
# created). Prints what it saw.
pinned_created() {
    local seen other
    seen=$(created_images "$2" "$3")
    echo "# $1 created: $(tr '\n' ';' <<<"$seen")"
    other=$(grep -E '^(proxy|keeper|probe) ' <<<"$seen" | grep -vxF \
        -e "proxy $PROXY_ID" -e "keeper $KEEPER_ID" -e "probe $PROBE_ID" ||
        true)
    [ -z "$other" ] && grep -qxF "proxy $PROXY_ID" <<<"$seen"
}

# captured_then_crash NAME: a fresh invocation, captured by the test-hooks
# controller with the real images behind the tags, which dies right after
# the capture is recorded; then the tags move to the impostor. Sets T0.
captured_then_crash() {
    check "$1: the test-local tags name the real images" tag_real
    T0=$(date +%s)
    apply_spec "$1" execute "command: [/demo-agent, --write-work]" \
        "workspace: {source: small, size: 16Mi, inodes: 1000}"
    ctl_crash_at recorded:Preparing "$1"
    check_eq "$1: captured (Preparing)" Preparing "$(status_field "$1" .phase)"
    check_eq "$1: status.helperImages pins the real images" \
        "$PROXY_ID $KEEPER_ID $PROBE_ID" \
        "$(status_field "$1" '.helperImages | "\(.proxy) \(.keeper) \(.probe)"')"
    check_eq "$1: no container of it exists yet" "" \
        "$(docker ps -aq --filter "label=agentctl.dev/uid=$(inv_uid "$1")")"
    check "$1: the test-local tags now name the impostor" tag_impostor
    check_eq "$1: the proxy tag is the impostor" "$IMPOSTOR_ID" \
        "$(image_id "$TAG_PROXY")"
}

# ---- pinned: the box is built from the IDs of the capture ----
captured_then_crash pinned
ctl_start
wait_phase pinned Succeeded 240
uid=$(status_field pinned .uid)
check "pinned: every helper was created from its pinned ID" \
    pinned_created pinned "$uid" "$T0"
seen=$(created_images "$uid" "$T0")
check_eq "pinned: the proxy, keeper, probe and agent were created" \
    "agent keeper probe proxy" "$(cut -d' ' -f1 <<<"$seen" | sort | xargs)"
check_eq "pinned: the agent from its pinned ID" \
    "agent $(status_field pinned .imageID)" "$(grep '^agent ' <<<"$seen")"
check_eq "pinned: status.helperImages still names the capture's IDs" \
    "$PROXY_ID $KEEPER_ID $PROBE_ID" \
    "$(status_field pinned '.helperImages | "\(.proxy) \(.keeper) \(.probe)"')"
check_match "pinned: the agent reached the vendor through the proxy" \
    "$VENDOR_TOKEN" "$(agent_output pinned)"
check_no_objects "pinned: nothing of it left" "agentctl.dev/uid=$uid" 60
ctl_stop

# ---- negative control: the bodies use the tags again ----
captured_then_crash control
CONTROLLER=$TESTHOOKS AGENTCTL_TEST_DISABLE=helper-pin ctl_start
uid=$(status_field control .uid)
for _ in $(seq 1 960); do # bounded wait for the proxy's create
    [ -n "$(live_image "$uid" proxy)" ] && break
    sleep 0.25
done
check_eq "control: the proxy runs the impostor" "$IMPOSTOR_ID" \
    "$(live_image "$uid" proxy)"
if pinned_created control "$uid" "$T0"; then
    fail "control: the check passed although the proxy runs the impostor"
fi
CHECKS=$((CHECKS + 1))
echo "ok - control: the check catches the impostor proxy"
ctl_stop
check "control: agentctl delete control" quiet actl delete control
docker_cleanup_label "agentctl.dev/uid=$uid"
check_no_objects "control: nothing of it left" "agentctl.dev/uid=$uid" 60

# ---- a helper image that is not there fails the capture ----
check "missing: the probe's test-local tag is gone" quiet \
    docker image rm "$TAG_PROBE"
ctl_start
apply_spec missing execute "command: [/demo-agent]"
wait_phase missing Failed 120
check_eq "missing: Ready=False ImageNotFound" ImageNotFound \
    "$(condition_field missing Ready reason)"
check_match "missing: the message names the tag and the config key" \
    "$TAG_PROBE \(config images\.probe\) is not on this Docker host" \
    "$(condition_field missing Ready message)"
check_eq "missing: no status.helperImages (nothing was captured)" "" \
    "$(status_field missing .helperImages)"
check_eq "missing: no container was created" "" \
    "$(docker ps -aq --filter "label=agentctl.dev/uid=$(inv_uid missing)")"
ctl_finish
echo "# $CHECKS checks passed"
