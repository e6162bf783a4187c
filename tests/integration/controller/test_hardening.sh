#!/usr/bin/env bash
# test_hardening.sh - what one invocation becomes in Docker (docs/design.md),
# read back from the daemon while the agent runs: an Internal network of
# its own with inhibit_ipv4 and a subnet from the configured pool; a proxy
# on it and on the egress network, non-root, no capabilities, read-only,
# no-new-privileges, restart no, no mounts, no ports; an agent on the
# internal network only, DNS disabled, HTTPS_PROXY = the proxy's address,
# non-root, no capabilities, read-only root, no-new-privileges, Init,
# restart no, no host paths, no ports, the spec's limits, stdin closed,
# /work read-only in review; and every object carries the five labels and
# a name starting agentctl-<name>-<uid8>. Docker's defaults are stated and
# read back too: masked and read-only /proc paths, ulimits, ShmSize, CPU
# limits on the helpers, IPv6 off in the agent (no inet6 address in its
# namespace), ip_forward off in the proxy's (read from the namespace; the
# control: a container without the sysctl forwards), nosuid,nodev on the
# read-write volume mounts, and the live seccomp filter and
# no-new-privileges of each process (/proc/<pid>/status).
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

apply_spec boxed review "command: [/demo-agent, --sleep, \"600\"]" \
    "workspace: {source: small, size: 4Mi, inodes: 1000}" \
    "resources: {memory: 128Mi, cpus: \"0.5\", pids: 64}" \
    "attempt: h1"
wait_phase boxed Running 240
uid=$(inv_uid boxed)
agent=$(object_of boxed agent)
proxy=$(object_of boxed proxy)
net=$(object_of boxed network network)
check_match "agent container found" '^[0-9a-f]{64}$' "$agent"
check_match "proxy container found" '^[0-9a-f]{64}$' "$proxy"
check_match "internal network found" '^[0-9a-f]{64}$' "$net"

# every object: five labels, name prefix
while read -r kind id name; do
    case $kind in
    container) labels=$(docker inspect -f '{{json .Config.Labels}}' "$id") ;;
    network) labels=$(docker network inspect -f '{{json .Labels}}' "$id") ;;
    volume) labels=$(docker volume inspect -f '{{json .Labels}}' "$id") ;;
    esac
    for kv in "agentctl.dev/managed-by=$CTL_ID" agentctl.dev/invocation=boxed \
        "agentctl.dev/uid=$uid" agentctl.dev/attempt=h1; do
        check_eq "$kind $name: label ${kv%%=*}" "${kv#*=}" \
            "$(jq -r --arg k "${kv%%=*}" '.[$k] // ""' <<<"$labels")"
    done
    check_match "$kind $name: has a role label" '.' \
        "$(jq -r '.["agentctl.dev/role"] // ""' <<<"$labels")"
    [ "$kind" != volume ] || name=$id # a volume's ID is its name
    check_match "$kind $name: name starts agentctl-boxed-${uid:0:8}" \
        "^agentctl-boxed-${uid:0:8}" "$name"
done < <(labelled_objects "agentctl.dev/uid=$uid")

# the network
n() { docker network inspect -f "$1" "$net"; }
check_eq "network: Internal" true "$(n '{{.Internal}}')"
check_eq "network: inhibit_ipv4" true \
    "$(n '{{index .Options "com.docker.network.bridge.inhibit_ipv4"}}')"
subnet=$(n '{{range .IPAM.Config}}{{.Subnet}}{{end}}')
pool_lo=$(ip4_int "${SUBNET_POOL%/*}")
pool_hi=$((pool_lo + (1 << (32 - ${SUBNET_POOL#*/})) - 1))
sub_lo=$(ip4_int "${subnet%/*}")
check "network: $subnet lies inside $SUBNET_POOL" \
    test "$sub_lo" -ge "$pool_lo" -a "$sub_lo" -le "$pool_hi"
members=$(docker network inspect -f \
    '{{range $k, $v := .Containers}}{{$k}} {{end}}' "$net")
for id in $members; do
    role=$(docker inspect -f '{{index .Config.Labels "agentctl.dev/role"}}' "$id")
    check_match "network member ${id:0:12} is the agent, proxy or probe" \
        '^(agent|proxy|probe)$' "$role"
done

# common hardening of proxy and agent
c() { docker inspect -f "$2" "$1"; }
for pair in "proxy $proxy" "agent $agent"; do
    read -r r id <<<"$pair"
    check_match "$r: non-root user" '^[1-9][0-9]*(:[0-9]+)?$' "$(c "$id" '{{.Config.User}}')"
    check_eq "$r: CapDrop ALL" '["ALL"]' "$(c "$id" '{{json .HostConfig.CapDrop}}')"
    check_match "$r: no CapAdd" '^(null|\[\])$' "$(c "$id" '{{json .HostConfig.CapAdd}}')"
    check_eq "$r: read-only root" true "$(c "$id" '{{.HostConfig.ReadonlyRootfs}}')"
    check_match "$r: no-new-privileges" 'no-new-privileges' \
        "$(c "$id" '{{json .HostConfig.SecurityOpt}}')"
    check_eq "$r: not privileged" false "$(c "$id" '{{.HostConfig.Privileged}}')"
    check_eq "$r: restart policy no" no "$(c "$id" '{{.HostConfig.RestartPolicy.Name}}')"
    check_match "$r: no host binds" '^(null|\[\])$' "$(c "$id" '{{json .HostConfig.Binds}}')"
    check_match "$r: no port bindings" '^(null|\{\})$' \
        "$(c "$id" '{{json .HostConfig.PortBindings}}')"
    check_eq "$r: no publish-all" false "$(c "$id" '{{.HostConfig.PublishAllPorts}}')"
    check_eq "$r: Init" true "$(c "$id" '{{.HostConfig.Init}}')"
    check_eq "$r: no bind mounts" 0 \
        "$(c "$id" '{{json .Mounts}}' | jq '[.[] | select(.Type == "bind")] | length')"
done
check_eq "proxy: no mounts at all" '[]' "$(c "$proxy" '{{json .Mounts}}')"
check_eq "proxy: on the internal and the egress network" \
    "$(printf '%s\n' "$net" "$(docker network inspect -f '{{.Id}}' "$EGRESS_NET")" | sort | tr '\n' ' ')" \
    "$(c "$proxy" '{{range .NetworkSettings.Networks}}{{.NetworkID}}
{{end}}' | grep . | sort | tr '\n' ' ')"

# dual-homed, the proxy routes nothing: a namespace dockerd makes
# inherits the host's ip_forward=1 (the control: a container made here
# without the sysctl has it on)
ppid=$(c "$proxy" '{{.State.Pid}}')
check_eq "proxy: net.ipv4.ip_forward is 0 in its namespace" 0 \
    "$(nsenter -t "$ppid" -n cat /proc/sys/net/ipv4/ip_forward)"
ctrl=$(docker run -d --label "$TEST_LABEL" "$BOX_IMAGE" sleep 60)
check_eq "control: a container made without it forwards" 1 \
    "$(nsenter -t "$(c "$ctrl" '{{.State.Pid}}')" -n cat /proc/sys/net/ipv4/ip_forward)"
docker rm -f "$ctrl" >/dev/null

# the agent
check_eq "agent: only the internal network" "$net" \
    "$(c "$agent" '{{range .NetworkSettings.Networks}}{{.NetworkID}}{{end}}')"
check_eq "agent: user 1000:1000" 1000:1000 "$(c "$agent" '{{.Config.User}}')"
check_eq "agent: stdin closed" false "$(c "$agent" '{{.Config.OpenStdin}}')"
check_eq "agent: no tty" false "$(c "$agent" '{{.Config.Tty}}')"
check_eq "agent: memory 128Mi" $((128 * 1024 * 1024)) \
    "$(c "$agent" '{{.HostConfig.Memory}}')"
check_eq "agent: cpus 0.5" 500000000 "$(c "$agent" '{{.HostConfig.NanoCpus}}')"
check_eq "agent: pids 64" 64 "$(c "$agent" '{{.HostConfig.PidsLimit}}')"
check_match "agent: no extra hosts" '^(null|\[\])$' \
    "$(c "$agent" '{{json .HostConfig.ExtraHosts}}')"
check_eq "agent: DNS disabled (upstream 0.0.0.0, docs/docker-notes.md section 4)" \
    '["0.0.0.0"]' "$(c "$agent" '{{json .HostConfig.Dns}}')"
proxy_ip=$(c "$proxy" "{{(index .NetworkSettings.Networks \"$(n '{{.Name}}')\").IPAddress}}")
env=$(c "$agent" '{{json .Config.Env}}')
check "agent: HTTPS_PROXY is the proxy's address" \
    grep -qF "\"HTTPS_PROXY=http://$proxy_ip:3128\"" <<<"$env"
check "agent: https_proxy too" \
    grep -qF "\"https_proxy=http://$proxy_ip:3128\"" <<<"$env"
check "agent: AGENT_PHASE=review" grep -qF '"AGENT_PHASE=review"' <<<"$env"
work=$(c "$agent" '{{json .Mounts}}' | jq -c '.[] | select(.Destination == "/work")')
check_eq "agent: /work is a volume" volume "$(jq -r .Type <<<"$work")"
check_eq "agent: /work read-only in review" false "$(jq -r .RW <<<"$work")"

# Docker's defaults, stated in the bodies and read back (plan/rc_harden.c)
keeper=$(object_of boxed keeper)
for pair in "proxy $proxy 1048576 1000000000" "keeper $keeper 1048576 100000000" \
    "agent $agent 16777216 500000000"; do
    read -r r id shm cpus <<<"$pair"
    check "$r: /proc/kcore masked" \
        grep -qF '"/proc/kcore"' <<<"$(c "$id" '{{json .HostConfig.MaskedPaths}}')"
    check "$r: /proc/sys read-only" \
        grep -qF '"/proc/sys"' <<<"$(c "$id" '{{json .HostConfig.ReadonlyPaths}}')"
    check_eq "$r: ulimits nofile and nproc" '8192/8192 16384/16384' \
        "$(c "$id" '{{json .HostConfig.Ulimits}}' | jq -r 'map("\(.Soft)/\(.Hard)") | join(" ")')"
    check_eq "$r: ShmSize" "$shm" "$(c "$id" '{{.HostConfig.ShmSize}}')"
    check_eq "$r: NanoCpus" "$cpus" "$(c "$id" '{{.HostConfig.NanoCpus}}')"
    check_eq "$r: AppArmorProfile as the host allows (none here)" \
        "$(curl -fsS --unix-socket /var/run/docker.sock http://d/info |
            jq -r 'if any(.SecurityOptions[]; startswith("name=apparmor"))
                   then "docker-default" else "" end')" \
        "$(c "$id" '{{.AppArmorProfile}}')"
    pid=$(c "$id" '{{.State.Pid}}')
    check_eq "$r: seccomp filter live (Seccomp: 2)" 2 \
        "$(awk '/^Seccomp:/ {print $2}' "/proc/$pid/status")"
    check_eq "$r: no-new-privileges live" 1 \
        "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$pid/status")"
done
check_eq "agent: Sysctls switch IPv6 off" '{"net.ipv6.conf.all.disable_ipv6":"1","net.ipv6.conf.default.disable_ipv6":"1"}' \
    "$(c "$agent" '{{json .HostConfig.Sysctls}}' | jq -cS .)"
apid=$(c "$agent" '{{.State.Pid}}')
check_eq "agent: no inet6 address in its namespace" "" \
    "$(cat "/proc/$apid/net/if_inet6" 2>/dev/null)"
# (a read-only mount loses them: runc's read-only remount resets the flags,
# docs/security-defaults.md; no-new-privileges and CapDrop ALL cover it)
check_match "agent: /tmp (read-write) mounted nosuid,nodev" '^rw,nosuid,nodev,' \
    "$(awk '$2 == "/tmp" {print $4}' "/proc/$apid/mounts")"
kpid=$(c "$keeper" '{{.State.Pid}}')
check_match "keeper: /work (read-write) mounted nosuid,nodev" '^rw,nosuid,nodev,' \
    "$(awk '$2 == "/work" {print $4}' "/proc/$kpid/mounts")"
check_match "workspace volume: o has nosuid,nodev" ',nosuid,nodev$' \
    "$(docker volume inspect -f '{{index .Options "o"}}' "$(object_of boxed workspace volume)")"

check "agentctl cancel boxed" quiet actl cancel boxed
wait_phase boxed Cancelled 120
ctl_finish
