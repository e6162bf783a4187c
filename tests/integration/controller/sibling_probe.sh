# shellcheck shell=dash
# sibling_probe.sh ME - the probe test_sibling_isolation.sh copies into
# each workspace (as /work/probe.sh) and runs as invocation ME's agent
# (busybox sh in agentctl/testbox). It tries to reach the other
# invocation's storage and network, naming every path, ID and address it
# tries, and prints one line per try:
#   TRY <path> -> <what happened>      a read or list of a named path
#   WRITE <path> -> ok|denied          a write into a named path
#   FOUND <label> <file>               a file holding a searched token
#   NET <label> <ip>:<port> -> <text>  what a TCP connect got back
#
# What it knows of the other comes from the test through the only way out
# an agent has, its proxy to the test vendor (GET /targets-ME, shell
# assignments), or from $TARGETS when the test runs it in a container of
# its own (the negative control). Env: MY_TOKEN (in /work/marker-ME.txt),
# MY_SCRATCH (written to /tmp/scratch-marker-ME.txt here), HTTPS_PROXY,
# NO_SEARCH (see below).
me=$1
proxy=${HTTPS_PROXY#http://}
pip=${proxy%:*}
pport=${proxy##*:}

# fetch NAME: the body of the test vendor's /NAME, through the proxy.
fetch() {
    printf 'CONNECT vendor.test:443 HTTP/1.1\r\nHost: vendor.test:443\r\n\r\nGET /%s HTTP/1.0\r\nHost: vendor.test\r\n\r\n' "$1" |
        timeout 10 nc "$pip" "$pport" 2>/dev/null | tr -d '\r' |
        sed '1,/^$/d' | sed '1,/^$/d'
}

# search LABEL TOKEN: every regular file on every mounted file system
# (proc, sys and dev aside) whose content holds TOKEN.
search() {
    cut -d' ' -f2,3 /proc/mounts | while read -r mp fs; do
        case $fs in proc | sysfs | devpts | mqueue | cgroup | cgroup2) continue ;; esac
        case $mp in /proc | /proc/* | /sys | /sys/* | /dev | /dev/*) continue ;; esac
        find "$mp" -xdev -type f 2>/dev/null
    done | sort -u | while read -r f; do
        grep -qF "$2" "$f" 2>/dev/null && echo "FOUND $1 $f"
    done
}

# try PATH: list it (a directory) or read it (a file).
try() {
    local out
    if [ -d "$1" ]; then
        out=$(ls -a "$1" 2>&1) && out="listed: $(echo $out)" || out="$out"
    elif [ -e "$1" ]; then
        out=$(head -c 200 "$1" 2>&1) && out="read: $out" || out="$out"
    else
        out="absent"
    fi
    echo "TRY $1 -> $out" | tr '\n' ' '
    echo
    case $out in *"$OTHER_TOKEN"* | *"$OTHER_SCRATCH"*) echo "FOUND other-named $1" ;; esac
}

# trywrite DIR: create a file in it.
trywrite() {
    if (echo "intruder from $me" >"$1/intruder-$me") 2>/dev/null; then
        echo "WRITE $1/intruder-$me -> ok"
    else
        echo "WRITE $1/intruder-$me -> denied"
    fi
}

# net LABEL IP PORT: connect, send a CONNECT request, show what came back.
net() {
    local out
    out=$(printf 'CONNECT vendor.test:443 HTTP/1.1\r\nHost: vendor.test:443\r\n\r\n' |
        timeout 5 nc "$2" "$3" 2>&1 | head -c 200 | tr -d '\r' | tr '\n' ' ')
    echo "NET $1 $2:$3 -> ${out:-no answer}"
}

if [ -n "${MY_SCRATCH:-}" ]; then
    echo "$MY_SCRATCH" >"/tmp/scratch-marker-$me.txt"
    echo "SCRATCH-WRITTEN $me"
fi
if [ -n "${TARGETS:-}" ]; then
    t=$TARGETS
else
    t=
    i=0
    while [ "$i" -lt 180 ]; do
        i=$((i + 1))
        t=$(fetch "targets-$me")
        case $t in *OTHER=*) break ;; esac
        sleep 1
    done
fi
case $t in *OTHER=*) ;; *)
    echo "NO-TARGETS $me"
    exit 2
    ;;
esac
eval "$t"
echo "TARGETS $me: other=$OTHER vols=[$OTHER_VOLS] ids=[$OTHER_IDS]" \
    "pids=[$OTHER_PIDS] subnet=$OTHER_SUBNET ips=[$OTHER_IPS]"

# storage: by search (controls first: our own tokens must be found).
# NO_SEARCH: the control that mounts all of Docker's volumes names paths
# only (a search would read every volume on the host).
if [ -z "${NO_SEARCH:-}" ]; then
    [ -z "${MY_TOKEN:-}" ] || search self-workspace "$MY_TOKEN"
    [ -z "${MY_SCRATCH:-}" ] || search self-scratch "$MY_SCRATCH"
    search other-workspace "$OTHER_TOKEN"
    search other-scratch "$OTHER_SCRATCH"
fi
# storage: by name
for v in $OTHER_VOLS; do
    for p in "/var/lib/docker/volumes/$v/_data" "/var/lib/docker/volumes/$v" \
        "/var/lib/docker/volumes/$v/_data/marker-$OTHER.txt" \
        "/var/lib/docker/volumes/$v/_data/scratch-marker-$OTHER.txt"; do
        try "$p"
    done
    trywrite "/var/lib/docker/volumes/$v/_data"
done
try /var/lib/docker/volumes
for id in $OTHER_IDS; do
    for p in "/var/lib/docker/containers/$id" "/var/lib/docker/containers/$id/hostname" \
        "/run/docker/containerd/$id"; do
        try "$p"
    done
done
for pid in $OTHER_PIDS; do
    try "/proc/$pid/root/work/marker-$OTHER.txt"
    try "/proc/$pid/root/tmp/scratch-marker-$OTHER.txt"
    try "/proc/$pid/root/tmp"
done
for d in /proc/[0-9]*; do
    try "$d/root/work/marker-$OTHER.txt"
    try "$d/root/tmp/scratch-marker-$OTHER.txt"
done
echo "PIDS-SEEN $(echo /proc/[0-9]* | sed 's#/proc/##g')"
echo "MOUNTS $(cut -d' ' -f2 /proc/mounts | tr '\n' ' ')"
# network: controls first (our own proxy answers; a closed port of it
# refuses), then every address of the other's
if [ -n "$pip" ]; then
    net self-proxy "$pip" "$pport"
    net self-proxy-closed "$pip" 1
fi
# (port 3128: the proxy answers there, and any other host that can be
# reached refuses it)
for a in $OTHER_IPS; do
    net "other-${a%%=*}" "${a#*=}" 3128
done
echo "ROUTES $(ip route 2>&1 | tr '\n' ';')"
echo "PROBES-DONE $me"

# Stay until the test says so: the other probes us meanwhile.
if [ -z "${TARGETS:-}" ]; then
    i=0
    while [ "$i" -lt 180 ]; do
        i=$((i + 1))
        case $(fetch release) in *go*) break ;; esac
        sleep 1
    done
fi
echo "EXIT $me"
