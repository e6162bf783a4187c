#!/usr/bin/env bash
# floor.sh - the floor of the controller benchmark: one invocation's Engine
# API calls issued back to back with curl over the unix socket, with the
# same bodies agent-controller sends (taken from an strace of it and from
# plan/rc_desired.c), in the controller's order:
#   image inspect, egress network inspect, network create, proxy create,
#   egress connect, proxy start, volume create x2, keeper create + start,
#   archive PUT, agent create, [the boundary probe and the pre-start
#   re-inspection, unless FLOOR_PROBE=0], agent start, logs (follow)
#   alongside wait,
#   then removal: containers (force) x3, volume inspect + delete x2,
#   network delete.
# Prints one line: "<t_running> <t_done> <t_cleaned> <exit>" (epoch
# seconds with microseconds; t_running = the agent's start returned,
# t_done = wait and logs returned). Exit 1 when a call failed.
#
# FLOOR_PROBE: noop (default) runs the probe step with a probe that does
# no work (FLOOR_NOOP_IMAGE, default agentctl/probe:bench-noop, built by
# probe-images.sh noop): the floor counts the probe container's create,
# start, wait, logs and delete, not its checks. 1 runs the real probe
# (agentctl/probe:0.1.0, with the sysctl rc_probe_body sets); 0 leaves the
# step out.
#
# Usage: floor.sh LABEL NAME SUBNET_INDEX_B IMAGE_ID EGRESS TARFILE
#   LABEL labels every object (agentctl.bench=LABEL); NAME prefixes names;
#   the internal network is 10.217.<SUBNET_INDEX_B>.0/24.
set -uo pipefail
LABEL=$1 NAME=$2 NB=$3 IMAGE=$4 EGRESS=$5 TAR=$6
SOCK=${DOCKER_SOCK:-/var/run/docker.sock}
API=http://localhost/v1.41
NET=10.217.$NB
RESP= CODE=

# api METHOD PATH [BODY]: RESP = body, CODE = HTTP status.
api() {
    local out data=() t=$EPOCHREALTIME
    [ $# -ge 3 ] && data=(-H 'Content-Type: application/json' --data-binary "$3")
    out=$(curl -sS --unix-socket "$SOCK" -X "$1" -w '\n%{http_code}' \
        "${data[@]}" "$API$2") || { CODE=000; return 1; }
    CODE=${out##*$'\n'}
    RESP=${out%$'\n'*}
    [ -z "${FLOOR_TRACE:-}" ] || echo "$1 $2 $CODE $t $EPOCHREALTIME" >&2
    [ "${CODE:0:1}" = 2 ] || {
        echo "floor $NAME: $1 $2: $CODE $RESP" >&2
        return 1
    }
}
id_of() { [[ $RESP =~ \"Id\":\"([0-9a-f]+)\" ]] && echo "${BASH_REMATCH[1]}"; }

labels() { # ROLE
    printf '{"agentctl.bench":"%s","agentctl.dev/invocation":"%s","agentctl.dev/uid":"00000000-0000-0000-0000-000000000000","agentctl.dev/attempt":"1","agentctl.dev/role":"%s"}' \
        "$LABEL" "$NAME" "$1"
}
hardening() { # MEMORY PIDS LOGSIZE LOGFILES
    printf '"Init":true,"Privileged":false,"CapDrop":["ALL"],"ReadonlyRootfs":true,"SecurityOpt":["no-new-privileges"],"RestartPolicy":{"Name":"no","MaximumRetryCount":0},"IpcMode":"private","PortBindings":{},"PublishAllPorts":false,"Memory":%s,"MemorySwap":%s,"PidsLimit":%s,"LogConfig":{"Type":"json-file","Config":{"max-size":"%s","max-file":"%s"}}' \
        "$1" "$1" "$2" "$3" "$4"
}
COMMON='"Tty":false,"OpenStdin":false,"AttachStdin":false,"StdinOnce":false,"StopTimeout":2'
MOUNTS="\"Mounts\":[{\"Type\":\"volume\",\"Source\":\"$NAME-ws\",\"Target\":\"/work\",\"ReadOnly\":false,\"VolumeOptions\":{\"NoCopy\":true}},{\"Type\":\"volume\",\"Source\":\"$NAME-scratch\",\"Target\":\"/tmp\",\"ReadOnly\":false,\"VolumeOptions\":{\"NoCopy\":true}}]"

up() {
    api GET "/images/agentctl%2Fdemo-agent%3A0.1.0/json" || return 1
    api GET "/networks/$EGRESS" || return 1
    api POST /networks/create "{\"Name\":\"$NAME-net\",\"Driver\":\"bridge\",\"Internal\":true,\"CheckDuplicate\":true,\"EnableIPv6\":false,\"Labels\":$(labels network),\"IPAM\":{\"Driver\":\"default\",\"Config\":[{\"Subnet\":\"$NET.0/24\",\"Gateway\":\"$NET.1\"}]},\"Options\":{\"com.docker.network.bridge.inhibit_ipv4\":\"true\"}}" || return 1
    NET_ID=$(id_of)
    api POST "/containers/create?name=$NAME-proxy" "{\"Image\":\"agentctl/egress-proxy:0.1.0\",\"Cmd\":[\"--listen\",\"$NET.2:3128\",\"--allow\",\"vendor.test:443\",\"--allow-private\"],\"User\":\"65534:65534\",\"Labels\":$(labels proxy),$COMMON,\"HostConfig\":{\"NetworkMode\":\"$NAME-net\",$(hardening 67108864 128 10m 2)},\"NetworkingConfig\":{\"EndpointsConfig\":{\"$NAME-net\":{\"IPAMConfig\":{\"IPv4Address\":\"$NET.2\"}}}}}" || return 1
    PROXY=$(id_of)
    api POST "/networks/$EGRESS/connect" "{\"Container\":\"$PROXY\",\"EndpointConfig\":{}}" || return 1
    api POST "/containers/$PROXY/start" || return 1
    api POST /volumes/create "{\"Name\":\"$NAME-ws\",\"Driver\":\"local\",\"DriverOpts\":{\"type\":\"tmpfs\",\"device\":\"tmpfs\",\"o\":\"size=1048576,nr_inodes=100,uid=1000,gid=1000,mode=0700\"},\"Labels\":$(labels workspace)}" || return 1
    api POST /volumes/create "{\"Name\":\"$NAME-scratch\",\"Driver\":\"local\",\"DriverOpts\":{\"type\":\"tmpfs\",\"device\":\"tmpfs\",\"o\":\"size=67108864,nr_inodes=10000,uid=1000,gid=1000,mode=0700\"},\"Labels\":$(labels scratch)}" || return 1
    api POST "/containers/create?name=$NAME-keeper" "{\"Image\":\"agentctl/keeper:0.1.0\",\"User\":\"1000:1000\",\"Labels\":$(labels keeper),$COMMON,\"HostConfig\":{\"NetworkMode\":\"none\",$(hardening 16777216 16 1m 1),$MOUNTS}}" || return 1
    KEEPER=$(id_of)
    api POST "/containers/$KEEPER/start" || return 1
    CODE=$(curl -sS --unix-socket "$SOCK" -X PUT -o /dev/null -w '%{http_code}' \
        -H 'Content-Type: application/x-tar' --data-binary "@$TAR" \
        "$API/containers/$KEEPER/archive?path=/work") || return 1
    [ "$CODE" = 200 ] || { echo "floor $NAME: archive PUT: $CODE" >&2; return 1; }
    api POST "/containers/create?name=$NAME-agent" "{\"Image\":\"$IMAGE\",\"Entrypoint\":[\"/demo-agent\"],\"User\":\"1000:1000\",\"Env\":[\"AGENT_PHASE=execute\",\"HOME=/tmp\",\"HTTPS_PROXY=http://$NET.2:3128\",\"https_proxy=http://$NET.2:3128\"],\"WorkingDir\":\"/work\",\"Labels\":$(labels agent),$COMMON,\"HostConfig\":{\"NetworkMode\":\"$NAME-net\",$(hardening 1073741824 256 4096k 2),\"NanoCpus\":1000000000,\"Dns\":[\"0.0.0.0\"],\"DnsOptions\":[\"timeout:1\",\"attempts:1\"],\"DnsSearch\":[],\"ExtraHosts\":[],\"PidMode\":\"\",$MOUNTS},\"NetworkingConfig\":{\"EndpointsConfig\":{\"$NAME-net\":{\"IPAMConfig\":{\"IPv4Address\":\"$NET.3\"}}}}}" || return 1
    AGENT=$(id_of)
    [ "${FLOOR_PROBE:-noop}" = 0 ] || probe || return 1
    api POST "/containers/$AGENT/start" || return 1
    T_RUN=$EPOCHREALTIME
    curl -sS --unix-socket "$SOCK" -o /dev/null \
        "$API/containers/$AGENT/logs?stdout=1&stderr=1&follow=1" &
    local logs=$!
    api POST "/containers/$AGENT/wait" || return 1
    [[ $RESP =~ \"StatusCode\":([0-9]+) ]] && EXIT=${BASH_REMATCH[1]}
    wait "$logs" || return 1
    T_DONE=$EPOCHREALTIME
}

# The controller's boundary probe (controller/box/box_probe.c, rc_probe.c), or
# a probe that does no work in its place (FLOOR_PROBE), and the controller's
# re-inspection of every object before the agent starts: proxy
# inspect (for its egress address), probe create/start/wait/logs/delete,
# then one GET per object.
probe() {
    local rest eip direct probe_id c img sysctl=
    img=${FLOOR_NOOP_IMAGE:-agentctl/probe:bench-noop}
    if [ "${FLOOR_PROBE:-noop}" = 1 ]; then
        img=agentctl/probe:0.1.0
        sysctl=',"Sysctls":{"net.ipv4.neigh.eth0.retrans_time_ms":"50"}'
    fi
    api GET "/containers/$PROXY/json" || return 1
    rest=${RESP#*\"$EGRESS\":}
    [[ $rest =~ \"IPAddress\":\"([0-9.]+)\" ]] && eip=${BASH_REMATCH[1]}
    direct="\"--direct\",\"$NET.1:443\",\"--direct\",\"$NET.1:80\""
    [ -z "${eip:-}" ] || direct="$direct,\"--direct\",\"$eip:3128\""
    api POST "/containers/create?name=$NAME-probe" "{\"Image\":\"$img\",\"Entrypoint\":[\"/probe\",\"--proxy\",\"$NET.2:3128\",\"--allowed\",\"vendor.test:443\",\"--denied\",\"agentctl-probe-denied.invalid:443\",$direct],\"Env\":[],\"WorkingDir\":\"/\",\"Labels\":$(labels probe),\"User\":\"1000:1000\",$COMMON,\"HostConfig\":{\"NetworkMode\":\"$NAME-net\",$(hardening 16777216 16 1m 1),\"NanoCpus\":250000000,\"Dns\":[\"0.0.0.0\"],\"DnsOptions\":[\"timeout:1\",\"attempts:1\"],\"DnsSearch\":[],\"ExtraHosts\":[],\"PidMode\":\"\",\"Mounts\":[]$sysctl},\"NetworkingConfig\":{\"EndpointsConfig\":{\"$NAME-net\":{\"IPAMConfig\":{\"IPv4Address\":\"$NET.4\"}}}}}" || return 1
    probe_id=$(id_of)
    api POST "/containers/$probe_id/start" || return 1
    api POST "/containers/$probe_id/wait" || return 1
    [[ $RESP =~ \"StatusCode\":0 ]] || echo "floor $NAME: probe: $RESP" >&2
    curl -sS --unix-socket "$SOCK" -o /dev/null \
        "$API/containers/$probe_id/logs?stdout=1&stderr=1" || return 1
    api DELETE "/containers/$probe_id?force=1" || return 1
    for c in "$PROXY" "$KEEPER" "$AGENT"; do
        api GET "/containers/$c/json" || return 1
    done
    api GET "/networks/$NET_ID" || return 1
    api GET "/volumes/$NAME-ws" || return 1
    api GET "/volumes/$NAME-scratch" || return 1
}

down() {
    local c v ok=0
    for c in ${AGENT:-} ${KEEPER:-} ${PROXY:-}; do
        api DELETE "/containers/$c?force=1" || ok=1
    done
    for v in ws scratch; do
        api GET "/volumes/$NAME-$v" && { api DELETE "/volumes/$NAME-$v" || ok=1; }
    done
    [ -n "${NET_ID:-}" ] && { api DELETE "/networks/$NET_ID" || ok=1; }
    T_CLEAN=$EPOCHREALTIME
    return $ok
}

T_RUN=- T_DONE=- T_CLEAN=- EXIT=-
rc=0
up || rc=1
down || rc=1
echo "$T_RUN $T_DONE $T_CLEAN $EXIT"
exit $rc
