#!/usr/bin/env bash
# test_sibling_isolation.sh - two invocations at once share no mount, no
# network and no keeper, and neither agent can list, read or write the
# other's workspace or scratch, or reach its network.
#
# iso-a and iso-b run the same probe (sibling_probe.sh, copied into each
# workspace next to a marker file of its own), each in execute phase with
# its own tokens: the workspace marker, and a scratch marker each agent
# writes into /tmp. Once both run, the test reads the other's volume
# names, container IDs, host PIDs, subnet and addresses from Docker and
# hands them to each agent through the test vendor (the agent's only way
# out is its proxy); each agent then searches every mounted file system
# for the other's tokens, tries the other's paths by name
# (/var/lib/docker/volumes/<name>/_data, /var/lib/docker/containers/<id>,
# /proc/<pid>/root, /proc/*/root) and connects to the other's proxy, agent
# and gateway. Both stay up until both probes are done.
#
# Every probe can fail: inside each agent its own tokens must be found and
# its own proxy must answer (and refuse on a closed port); and the same
# probe, run by the test in containers of its own that mount iso-a's
# volumes, or Docker's volume directory, must report iso-a's markers.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
PROBE_SRC=$(dirname "$0")/sibling_probe.sh
DOCKER_ROOT=$(docker info -f '{{.DockerRootDir}}')
VENDOR=vendor-$CTL_RUN

rand() { head -c 12 /dev/urandom | sha256sum | cut -c1-16; }
declare -A TOK SCR
for x in a b; do
    TOK[$x]=ws-$x-$(rand)
    SCR[$x]=scratch-$x-$(rand)
    mkdir -p "$WS_ROOT/iso-$x"
    cp "$PROBE_SRC" "$WS_ROOT/iso-$x/probe.sh"
    echo "${TOK[$x]}" >"$WS_ROOT/iso-$x/marker-$x.txt"
done

ctl_start
for x in a b; do
    apply_spec "iso-$x" execute "image: $BOX_IMAGE" \
        "command: [sh, /work/probe.sh, $x]" \
        "workspace: {source: iso-$x, size: 4Mi, inodes: 1000}" \
        "env: {MY_TOKEN: ${TOK[$x]}, MY_SCRATCH: ${SCR[$x]}}"
done
wait_phase iso-a Running 240
wait_phase iso-b Running 240

# wait_output NAME TEXT TIMEOUT-S: the agent's live output holds TEXT.
wait_output() {
    local end=$((SECONDS + $3))
    while [ "$SECONDS" -lt "$end" ]; do
        grep -qF "$2" "$STATE/output/$1.log" 2>/dev/null && return 0
        [[ $(status_field "$1" .phase) =~ $TERMINAL_RE ]] && break
        sleep 0.5
    done
    fail "$1: no '$2' in its output: $(agent_output "$1" | tail -n 5)"
}
wait_output iso-a "SCRATCH-WRITTEN a" 60
wait_output iso-b "SCRATCH-WRITTEN b" 60

# What Docker says about each invocation.
declare -A UID_OF NET SUBNET VOLS IDS PIDS IPS AGENT KEEPER PROXY
ip_on() { docker inspect -f "{{(index .NetworkSettings.Networks \"$2\").IPAddress}}" "$1"; }
for x in a b; do
    n=iso-$x
    UID_OF[$x]=$(inv_uid "$n")
    AGENT[$x]=$(status_field "$n" .resources.agent.id)
    KEEPER[$x]=$(status_field "$n" .resources.keeper.id)
    PROXY[$x]=$(status_field "$n" .resources.proxy.id)
    NET[$x]=$(status_field "$n" .resources.network.id)
    check_match "$n: status records its agent by ID" '^[0-9a-f]{64}$' "${AGENT[$x]}"
    check_match "$n: and its keeper" '^[0-9a-f]{64}$' "${KEEPER[$x]}"
    check_match "$n: and its proxy" '^[0-9a-f]{64}$' "${PROXY[$x]}"
    check_match "$n: and its network" '^[0-9a-f]{64}$' "${NET[$x]}"
    netname=$(docker network inspect -f '{{.Name}}' "${NET[$x]}")
    SUBNET[$x]=$(docker network inspect -f \
        '{{range .IPAM.Config}}{{.Subnet}}{{end}}' "${NET[$x]}")
    VOLS[$x]=$(docker volume ls -q --filter "label=agentctl.dev/uid=${UID_OF[$x]}" |
        sort | tr '\n' ' ')
    IDS[$x]="${AGENT[$x]} ${KEEPER[$x]} ${PROXY[$x]} ${NET[$x]}"
    PIDS[$x]=$(for c in ${AGENT[$x]} ${KEEPER[$x]} ${PROXY[$x]}; do
        docker inspect -f '{{.State.Pid}}' "$c"
    done | tr '\n' ' ')
    gw=${SUBNET[$x]%/*}
    IPS[$x]="proxy=$(ip_on "${PROXY[$x]}" "$netname")
agent=$(ip_on "${AGENT[$x]}" "$netname") gateway=${gw%.*}.1
proxy-egress=$(ip_on "${PROXY[$x]}" "$EGRESS_NET")"
    IPS[$x]=$(echo ${IPS[$x]})
    kip=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}' \
        "${KEEPER[$x]}" | tr -s ' ')
    [ -z "${kip// /}" ] || IPS[$x]="${IPS[$x]} keeper=${kip// /}"
    echo "# $n: uid ${UID_OF[$x]} subnet ${SUBNET[$x]} volumes [${VOLS[$x]}]"
    echo "#   ids [${IDS[$x]}] pids [${PIDS[$x]}] addresses [${IPS[$x]}]"
    check_match "$n: has volumes of its own" '-ws' "${VOLS[$x]}"
done

# --- Docker's side: nothing shared ------------------------------------
# sources_of ID...: "volume:NAME" / "bind:PATH" of every mount.
sources_of() {
    local c
    for c in "$@"; do
        docker inspect -f '{{range .Mounts}}{{.Type}}:{{if .Name}}{{.Name}}{{else}}{{.Source}}{{end}}
{{end}}' "$c"
    done | grep . | sort -u
}
# nets_of ID...: the network IDs the containers are on.
nets_of() {
    local c
    for c in "$@"; do
        docker inspect -f '{{range .NetworkSettings.Networks}}{{.NetworkID}}
{{end}}' "$c"
    done | grep . | sort -u
}
declare -A SRC
for x in a b; do
    SRC[$x]=$(sources_of "${AGENT[$x]}" "${KEEPER[$x]}" "${PROXY[$x]}")
    echo "# mounts of iso-$x: $(tr '\n' ' ' <<<"${SRC[$x]}")"
    for v in ${VOLS[$x]}; do
        check "iso-$x: its volume $v is mounted by its own containers" \
            grep -qx "volume:$v" <<<"${SRC[$x]}"
    done
done
src_a=${SRC[a]}
src_b=${SRC[b]}
check_eq "no mount source shared by iso-a and iso-b" "" \
    "$(comm -12 <(echo "$src_a") <(echo "$src_b"))"
check_eq "no bind mounts at all" "" "$(grep '^bind:' <<<"$src_a$src_b" || true)"
check "the keepers differ" test "${KEEPER[a]}" != "${KEEPER[b]}"
check_eq "the agents share no network" "" \
    "$(comm -12 <(nets_of ${AGENT[a]}) <(nets_of ${AGENT[b]}))"
check "the internal networks differ" test "${NET[a]}" != "${NET[b]}"
check "the subnets differ" test "${SUBNET[a]}" != "${SUBNET[b]}"
for x in a b; do
    check_eq "iso-$x: its keeper has no network (NetworkMode none)" none \
        "$(docker inspect -f '{{.HostConfig.NetworkMode}}' "${KEEPER[$x]}")"
done
# "none" is no network (no interface but loopback): what counts is that
# the egress network is the only real one two of their containers share.
egress_id=$(docker network inspect -f '{{.Id}}' "$EGRESS_NET")
none_id=$(docker network inspect -f '{{.Id}}' none)
check_eq "the only network any of their containers share is the egress one" \
    "$egress_id" "$(comm -12 \
        <(nets_of ${AGENT[a]} ${KEEPER[a]} ${PROXY[a]}) \
        <(nets_of ${AGENT[b]} ${KEEPER[b]} ${PROXY[b]}) | grep -vx "$none_id" |
        tr -d '\n')"
check_eq "and on it, of theirs, only the proxies" \
    "$(printf '%s\n' "${PROXY[a]}" "${PROXY[b]}" | sort | tr '\n' ' ')" \
    "$(docker network inspect -f '{{range $k, $v := .Containers}}{{$k}}
{{end}}' "$EGRESS_NET" | grep -xF -e "${AGENT[a]}" -e "${KEEPER[a]}" \
        -e "${PROXY[a]}" -e "${AGENT[b]}" -e "${KEEPER[b]}" -e "${PROXY[b]}" |
        sort | tr '\n' ' ')"
for x in a b; do
    y=$([ $x = a ] && echo b || echo a)
    members=$(docker network inspect -f \
        '{{range $k, $v := .Containers}}{{$k}} {{end}}' "${NET[$x]}")
    for id in ${AGENT[$y]} ${KEEPER[$y]} ${PROXY[$y]}; do
        check "iso-$x's network has no container of iso-$y (${id:0:12})" \
            lacks "$members" "$id"
    done
done

# --- the targets each agent gets: the other's everything --------------
targets_about() { # X: what the other of X is told about X
    printf '%s\n' "OTHER=$1" "OTHER_TOKEN=${TOK[$1]}" "OTHER_SCRATCH=${SCR[$1]}" \
        "OTHER_VOLS='${VOLS[$1]}'" "OTHER_IDS='${IDS[$1]}'" \
        "OTHER_PIDS='${PIDS[$1]}'" "OTHER_SUBNET=${SUBNET[$1]}" \
        "OTHER_IPS='${IPS[$1]}'"
}

# --- hand each agent the other's targets; wait for both probes --------
publish() { # FILE TEXT: into the test vendor's document root
    docker exec -i "$VENDOR" sh -c "cat >/www/$1" <<<"$2" ||
        fail "cannot publish /www/$1 on the test vendor"
}
publish targets-a "$(targets_about b)"
publish targets-b "$(targets_about a)"
wait_output iso-a "PROBES-DONE a" 150
wait_output iso-b "PROBES-DONE b" 150
check_eq "iso-a still running when both probes were done" Running \
    "$(status_field iso-a .phase)"
check_eq "iso-b too" Running "$(status_field iso-b .phase)"

# --- negative controls, while both agents wait for the release: the same
# probe where iso-a's storage IS reachable. Docker's volume directory
# first; then a container that mounts iso-a's volumes, which the
# revalidation must catch as volume.foreign-mount and fail iso-a closed
# (so it comes last, and iso-a ends Failed instead of Succeeded).
AS_AGENT=(--rm --label "$TEST_LABEL" --user 1000:1000 --cap-drop ALL
    --read-only --security-opt no-new-privileges --network none
    -v "$(cd "$(dirname "$PROBE_SRC")" && pwd)/sibling_probe.sh:/probe.sh:ro")
ws_a=$(tr ' ' '\n' <<<"${VOLS[a]}" | grep -- '-ws$')
scr_a=$(tr ' ' '\n' <<<"${VOLS[a]}" | grep -- '-scratch$')
out=$(docker run "${AS_AGENT[@]}" -e TARGETS="$(targets_about a)" \
    -v "$DOCKER_ROOT/volumes:/var/lib/docker/volumes:ro" -e NO_SEARCH=1 \
    "$BOX_IMAGE" sh /probe.sh control-root 2>&1 || true)
echo "# control with Docker's volume directory mounted:"
grep -E '^(FOUND|TARGETS)' <<<"$out" | sed 's/^/#   /'
check_match "control: the named path /var/lib/docker/volumes/$ws_a/_data/marker-a.txt is read" \
    "FOUND other-named /var/lib/docker/volumes/$ws_a/_data/marker-a.txt" "$out"
check_match "control: and the scratch one" \
    "FOUND other-named /var/lib/docker/volumes/$scr_a/_data/scratch-marker-a.txt" "$out"
out=$(docker run "${AS_AGENT[@]}" -e TARGETS="$(targets_about a)" \
    -v "$ws_a:/peek/ws:ro" -v "$scr_a:/peek/scratch:ro" \
    "$BOX_IMAGE" sh /probe.sh control-mount 2>&1 || true)
echo "# control with iso-a's volumes mounted:"
grep -E '^(FOUND|TARGETS)' <<<"$out" | sed 's/^/#   /'
check_match "control: a container mounting iso-a's workspace finds its marker" \
    "FOUND other-workspace /peek/ws/marker-a.txt" "$out"
check_match "control: and iso-a's scratch marker" \
    "FOUND other-scratch /peek/scratch/scratch-marker-a.txt" "$out"
wait_phase iso-a Failed 120
check_eq "control: the mount of iso-a's volumes failed iso-a closed" \
    boundary-drift "$(status_field iso-a .stopReason)"
check_eq "control: named by the rule" volume.foreign-mount \
    "$(status_field iso-a '.conditions[] | select(.type=="Drifted") | .reason')"

publish release go
wait_phase iso-b Succeeded 120

# --- what each agent found --------------------------------------------
for x in a b; do
    y=$([ $x = a ] && echo b || echo a)
    n=iso-$x
    out=$(agent_output "$n")
    echo "# $n output (FOUND, WRITE, NET and a few TRY lines):"
    grep -E '^(FOUND|WRITE|NET|TARGETS|ROUTES|PIDS-SEEN)' <<<"$out" | sed 's/^/#   /'
    grep -E '^TRY /var/lib/docker/volumes/' <<<"$out" | head -n 4 | sed 's/^/#   /'
    check_match "$n: got iso-$y's targets" "TARGETS $x: other=$y " "$out"
    # in-situ controls
    check_match "$n: control: its own workspace marker is found" \
        "FOUND self-workspace /work/marker-$x.txt" "$out"
    check_match "$n: control: its own scratch marker is found" \
        "FOUND self-scratch /tmp/scratch-marker-$x.txt" "$out"
    check_match "$n: control: its own proxy answers" \
        "NET self-proxy [0-9.]+:3128 -> HTTP/1.1 200" "$out"
    check_match "$n: control: a closed port of its proxy refuses" \
        "NET self-proxy-closed [0-9.]+:1 -> .*refused" "$out"
    # the other's storage
    check_eq "$n: none of iso-$y's tokens found anywhere" "" \
        "$(grep '^FOUND other' <<<"$out" || true)"
    for v in ${VOLS[$y]}; do
        check_match "$n: tried /var/lib/docker/volumes/$v/_data" \
            "TRY /var/lib/docker/volumes/$v/_data -> absent" "$out"
        check_match "$n: could not write into it" \
            "WRITE /var/lib/docker/volumes/$v/_data/intruder-$x -> denied" "$out"
    done
    for id in ${IDS[$y]}; do
        check_match "$n: tried /var/lib/docker/containers/${id:0:12}..." \
            "TRY /var/lib/docker/containers/$id -> absent" "$out"
    done
    for p in ${PIDS[$y]}; do
        check_match "$n: tried /proc/$p/root (iso-$y's host pid)" \
            "TRY /proc/$p/root/work/marker-$y.txt -> " "$out"
    done
    pats=()
    for v in ${VOLS[$y]} ${IDS[$y]}; do
        pats+=(-e "$v")
    done
    check_eq "$n: no named path of iso-$y could be listed or read" "" \
        "$(grep -E '^TRY ' <<<"$out" | grep -F "${pats[@]}" |
            grep -E -- '-> (listed|read):' || true)"
    check_eq "$n: no write anywhere succeeded" "" \
        "$(grep -E '^WRITE .* -> ok' <<<"$out" || true)"
    # the other's network
    nets=$(grep -E "^NET other-" <<<"$out" || true)
    check "$n: tried iso-$y's addresses" test "$(grep -c . <<<"$nets")" -ge 4
    for a in ${IPS[$y]}; do
        check_match "$n: tried iso-$y's ${a%%=*} at ${a#*=}" \
            "NET other-${a%%=*} ${a#*=}:3128 -> " "$nets"
    done
    check_eq "$n: none of iso-$y's addresses answered or refused" "" \
        "$(grep -E -- '-> .*(HTTP/|refused)' <<<"$nets" || true)"
    # iso-a was failed closed by the mount control before the release
    [ $x = a ] || check_match "$n: exited 0 after the release" "EXIT $x" "$out"
done
for x in a b; do
    check_no_objects "iso-$x: its objects are gone" \
        "agentctl.dev/uid=${UID_OF[$x]}" 60
done
ctl_finish
