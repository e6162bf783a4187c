# shellcheck shell=bash
# lib_wsupload.sh - one big workspace upload watched from outside the
# controller: its peak RSS (VmHWM of /proc/<pid>/status) and how /healthz
# answers while the workspace is checked, packed and sent. Shared by
# test_workspace_stream.sh (asserts the RSS bound) and
# hack/bench/workspace/run.sh (main against this branch). Needs
# lib_controller.sh sourced and ctl_init run.

# ws_make_large DIR MIB: MIB MiB of file data in 8 MiB files, a few small
# files and a .git with a packfile (so the git volume and its digest are
# part of the upload).
ws_make_large() {
    local dir=$1 mib=$2 i
    mkdir -p "$dir/src" "$dir/.git/objects/pack" "$dir/.git/refs/heads"
    for i in $(seq 1 $((mib / 8 - 1))); do
        head -c $((8 * 1024 * 1024)) /dev/zero >"$dir/src/blob$i.bin"
    done
    head -c $((8 * 1024 * 1024)) /dev/urandom >"$dir/.git/objects/pack/pack-1.pack"
    echo "ref: refs/heads/main" >"$dir/.git/HEAD"
    echo "0123456789abcdef0123456789abcdef01234567" >"$dir/.git/refs/heads/main"
    printf '[core]\n\tbare = false\n' >"$dir/.git/config"
    for i in $(seq 1 200); do
        echo "line $i" >"$dir/src/small$i.txt"
    done
}

# ws_upload_run NAME SOURCE SIZE: apply an invocation of SOURCE (workspace
# size SIZE) on the running controller and sample, every 0.1 s until it
# is terminal: VmHWM, and one /healthz request (5 s cap). Sets
# UP_PHASE, UP_HWM_KB (peak RSS, kB), UP_HZ_N (answers), UP_HZ_FAIL (no
# answer within the cap), UP_HZ_MAX and UP_HZ_P50 (seconds), UP_SECONDS
# (apply to terminal), UP_PUT_S (seconds in PUT archive requests, from
# /metrics: the workspace's and the config's; the streamed one includes
# the walk and packing it overlaps) and UP_GIT (condition GitIntact's
# reason: DigestsEqual when the digest the upload took equals the one
# read back after the run).
ws_upload_run() {
    local name=$1 src=$2 size=$3 t0 hwm lat code f
    f=$TEST_TMP/healthz-$name.txt
    : >"$f"
    UP_HZ_FAIL=0
    UP_HWM_KB=0
    t0=$(date +%s.%N)
    apply_spec "$name" execute "command: [/demo-agent, --write-work]" \
        "workspace: {source: $src, size: $size, inodes: 10000}"
    for _ in $(seq 1 6000); do # bounded: 10 minutes of samples at most
        ctl_alive || fail "agent-controller exited during the upload"
        hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$CTL_PID/status" 2>/dev/null)
        [ -n "$hwm" ] && [ "$hwm" -gt "$UP_HWM_KB" ] && UP_HWM_KB=$hwm
        read -r code lat < <(curl -s -o /dev/null --max-time 5 \
            -w '%{http_code} %{time_total}\n' "http://$CTL_METRICS/healthz" ||
            true)
        if [ "${code:-000}" = 200 ] || [ "${code:-000}" = 503 ]; then
            echo "$lat" >>"$f"
        else
            UP_HZ_FAIL=$((UP_HZ_FAIL + 1))
        fi
        UP_PHASE=$(status_field "$name" .phase)
        [[ $UP_PHASE =~ $TERMINAL_RE ]] && break
        sleep 0.1
    done
    UP_SECONDS=$(echo "$(date +%s.%N) - $t0" | bc)
    # the digest after is read back during the cleanup, after the phase
    # turned terminal (bounded wait, not timed)
    for _ in $(seq 1 480); do
        UP_GIT=$(condition_field "$name" GitIntact reason)
        [ -n "$UP_GIT" ] && break
        ctl_alive || break
        sleep 0.25
    done
    UP_PUT_S=$(curl -s --max-time 5 "http://$CTL_METRICS/metrics" |
        awk '/^agentctl_docker_request_duration_seconds_sum\{operation="container_put_archive"\}/ { printf "%.2f", $2 }')
    UP_HZ_N=$(wc -l <"$f")
    UP_HZ_MAX=$(sort -g "$f" | tail -n 1)
    UP_HZ_P50=$(sort -g "$f" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    echo "# $name: phase $UP_PHASE in ${UP_SECONDS}s, VmHWM ${UP_HWM_KB} kB," \
        "/healthz $UP_HZ_N answers (p50 ${UP_HZ_P50}s, max ${UP_HZ_MAX}s)," \
        "$UP_HZ_FAIL without an answer within 5 s, PUT archive ${UP_PUT_S}s"
}
