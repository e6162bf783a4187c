# shellcheck shell=bash
# lib_drift.sh - the drift mutations of test_drift_rules.sh (source it after
# lib_controller.sh). Each mutation takes an invocation name, changes one
# thing of it behind the controller's back through Docker, and is paired in
# DRIFT_CASES with the rule ID (docs/drift-rules.md) and the object role the
# controller must name when it fails the attempt closed.
#
# A mutation that takes several Docker calls (a network or a container
# removed and recreated) runs while the controller is stopped (SIGSTOP), so
# the controller sees only the end state: otherwise whether it sees the gap
# (the object gone) or the stand-in depends on timing. The one-call
# mutations run with the controller live.

# case name | rule expected | role named in the message | mutation | paused
# A change seen from two objects is caught by whichever check the pass
# reaches first: a proxy taken off the internal network by the network's
# endpoints or the proxy's own networks, a stand-in proxy by its endpoint
# on the network or by its ID behind the proxy's name (when a pass was past
# the network as the change came, or as the controller was stopped). Such
# a case lists both, rule and role in the same order, comma-separated. A
# same-named stand-in is caught by the ID rule (the recorded ID answers
# 404, the name answers with another Id), not as object.gone.
DRIFT_CASES=(
    "rp-proxy|container.restart-policy|proxy|mut_restart proxy|"
    "rp-keeper|container.restart-policy|keeper|mut_restart keeper|"
    "rp-agent|container.restart-policy|agent|mut_restart agent|"
    "extra-ep|network.endpoint-extra|network|mut_extra_endpoint|"
    "agent-off|container.networks|agent|mut_agent_disconnect|"
    "agent-egress|container.networks|agent|mut_agent_egress|"
    "proxy-off|network.endpoint-missing,container.networks|network,proxy|mut_proxy_disconnect|"
    "rename|container.name|proxy|mut_rename_proxy|"
    "memory|container.memory|agent|mut_update agent --memory 96m|"
    "swap|container.memory-swap|agent|mut_update agent --memory-swap 2g|"
    "cpus|container.nano-cpus|agent|mut_update agent --cpus 0.25|"
    "pids|container.pids-limit|agent|mut_update agent --pids-limit 77|"
    "net-twin|network.id|network|mut_network_twin|paused"
    "proxy-twin|network.endpoint-extra,container.id|network,proxy|mut_proxy_twin|paused"
    "keeper-twin|container.id|keeper|mut_keeper_twin|paused"
)

# IDs of what the mutations created (a file: mutations run in subshells)
DRIFT_STANDINS=$TEST_TMP/standins

dk_api() { # METHOD PATH [JSON]: the Docker API on the shared daemon
    if [ $# -ge 3 ]; then
        curl -fsS --unix-socket /var/run/docker.sock -X "$1" \
            -H 'Content-Type: application/json' -d "$3" "http://docker$2"
    else
        curl -fsS --unix-socket /var/run/docker.sock -X "$1" "http://docker$2"
    fi
}

# ip_on CONTAINER NETWORK: the container's address on that network.
ip_on() {
    docker inspect -f "{{(index .NetworkSettings.Networks \"$2\").IPAddress}}" \
        "$1"
}

net_name() { docker network inspect -f '{{.Name}}' "$1"; }

mut_restart() { # ROLE NAME
    docker update --restart=always "$(object_of "$2" "$1")" >/dev/null
}

mut_update() { # ROLE FLAGS... NAME
    local role=$1 name=${*: -1}
    docker update "${@:2:$#-2}" "$(object_of "$name" "$role")" >/dev/null
}

mut_extra_endpoint() {
    local id
    id=$(docker create --label "$TEST_LABEL" \
        --network "$(object_of "$1" network network)" "$BOX_IMAGE" sleep 600)
    echo "$id" >>"$DRIFT_STANDINS"
    docker start "$id" >/dev/null
}

mut_agent_disconnect() {
    docker network disconnect "$(object_of "$1" network network)" \
        "$(object_of "$1" agent)"
}

# The most direct bypass: the agent joins the egress network itself.
mut_agent_egress() {
    docker network connect "$EGRESS_NET" "$(object_of "$1" agent)"
}

mut_proxy_disconnect() {
    docker network disconnect "$(object_of "$1" network network)" \
        "$(object_of "$1" proxy)"
}

mut_rename_proxy() {
    local p
    p=$(object_of "$1" proxy)
    docker rename "$p" "$(docker inspect -f '{{.Name}}' "$p" | tr -d /)-moved"
}

# A same-named internal network with identical attributes (labels too):
# proxy and agent (when there is one yet) are taken off the old one (a
# network with endpoints cannot be removed), the old one removed, the twin
# created and both joined again at their old addresses.
mut_network_twin() {
    local net proxy agent pip aip name body twin
    net=$(object_of "$1" network network)
    proxy=$(object_of "$1" proxy)
    agent=$(object_of "$1" agent)
    name=$(net_name "$net")
    pip=$(ip_on "$proxy" "$name")
    [ -z "$agent" ] || aip=$(ip_on "$agent" "$name")
    body=$(docker network inspect "$net" | jq -c '.[0] | {Name, Driver,
        Internal, Attachable, EnableIPv6, Labels, Options,
        IPAM: {Driver: .IPAM.Driver, Config: .IPAM.Config,
               Options: .IPAM.Options}, CheckDuplicate: false}')
    docker network disconnect -f "$net" "$proxy"
    [ -z "$agent" ] || docker network disconnect -f "$net" "$agent"
    docker network rm "$net" >/dev/null
    twin=$(dk_api POST /networks/create "$body" | jq -r .Id)
    echo "net:$twin" >>"$DRIFT_STANDINS"
    docker network connect --ip "$pip" "$twin" "$proxy"
    [ -z "$agent" ] || docker network connect --ip "$aip" "$twin" "$agent"
}

# create_like INSPECT-JSON NAME JQ-EDIT: a container created from another's
# inspect (Config, HostConfig, its first network but the egress one, and
# its address there), edited by JQ-EDIT; echoes the new ID.
create_like() {
    local body
    body=$(jq -c ".[0] | {Config: .Config, HostConfig: .HostConfig,
        Net: (.NetworkSettings.Networks | to_entries | map(select(.key
              != \"$EGRESS_NET\")) | .[0])}
        | .Config + {HostConfig: .HostConfig, NetworkingConfig:
          (if .Net == null or .Net.key == \"none\" then null else
           {EndpointsConfig: {(.Net.key): {IPAMConfig:
            {IPv4Address: .Net.value.IPAddress}}}} end)}
        | del(.Hostname) | $3" <<<"$1") || return 1
    dk_api POST "/containers/create?name=$2" "$body" | jq -r .Id
}

# standin ROLE NAME JQ-EDIT: NAME's ROLE container removed and a
# same-named stand-in made from its own inspect, edited, started.
standin() {
    local c js name twin
    c=$(object_of "$2" "$1")
    js=$(docker inspect "$c")
    name=$(jq -r '.[0].Name | ltrimstr("/")' <<<"$js")
    docker rm -f "$c" >/dev/null
    twin=$(create_like "$js" "$name" "$3") || return 1
    [ -n "$twin" ] || return 1
    echo "$twin" >>"$DRIFT_STANDINS"
    echo "$twin"
}

# The proxy replaced by a stand-in identical to it: same image, command,
# labels, address, both networks.
mut_proxy_twin() {
    local twin
    twin=$(standin proxy "$1" .) || return 1
    docker network connect "$EGRESS_NET" "$twin"
    docker start "$twin" >/dev/null
}

# The keeper replaced by a stand-in with an upstream resolver and a hosts
# entry: create-time fields, only a new container can have them.
mut_keeper_twin() {
    local twin
    twin=$(standin keeper "$1" '.HostConfig.Dns = ["127.0.0.53"]
        | .HostConfig.ExtraHosts = ["vendor.test:127.0.0.1"]') || return 1
    docker start "$twin" >/dev/null
}

# remove_standins: what the mutations created, containers first (a
# network cannot go while one is attached).
remove_standins() {
    local id
    [ -s "$DRIFT_STANDINS" ] || return 0
    grep -v '^net:' "$DRIFT_STANDINS" | while read -r id; do
        docker rm -f -v "$id" >/dev/null 2>&1 || true
    done || true
    grep '^net:' "$DRIFT_STANDINS" | while read -r id; do
        docker network inspect -f '{{range $k, $v := .Containers}}{{$k}} {{end}}' \
            "${id#net:}" 2>/dev/null | tr ' ' '\n' | while read -r c; do
            [ -z "$c" ] || docker network disconnect -f "${id#net:}" "$c" \
                >/dev/null 2>&1 || true
        done
        docker network rm "${id#net:}" >/dev/null 2>&1 || true
    done || true
    : >"$DRIFT_STANDINS"
}
