#!/usr/bin/env bash
# smoke.sh - build every libFuzzer target with clang and run each one for a
# short while (FUZZ_SECONDS, default 12: the CI budget; set it higher for
# a real campaign) from its seed corpus in
# hack/fuzz/seeds/<target>/ (if any). A crash, leak or sanitizer report
# fails the run and leaves the reproducer in build-fuzz/crash-<target>-*.
# Every target agentctl_fuzz_target() registers runs (fuzz-targets.txt),
# agent-launch's wait-mode order (fuzz_launch_order) among them.
# The target's own stdout and stderr are closed (-close_fd_mask=3): the
# loop targets (fuzz_px_conn, fuzz_gw_conn) log a line per connection or
# request as the daemons do; libFuzzer's lines and the sanitizers'
# reports still reach the log.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build-fuzz
SECS=${FUZZ_SECONDS:-12}

CC=clang cmake -S "$ROOT" -B "$B" -DAGENTCTL_FUZZ=ON -DAGENTCTL_WERROR=ON \
    -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$B" -j "$(nproc)"
[ -s "$B/fuzz-targets.txt" ] || { echo "no fuzz targets"; exit 77; }

rc=0
while read -r t; do
    [ -n "$t" ] || continue
    name=$(basename "$t")
    corpus=$B/corpus-$name
    mkdir -p "$corpus"
    seeds=()
    [ -d "$ROOT/hack/fuzz/seeds/$name" ] && seeds=("$ROOT/hack/fuzz/seeds/$name")
    echo "== $name for ${SECS}s"
    if ! "$t" -max_total_time="$SECS" -rss_limit_mb=1024 -timeout=10 \
        -close_fd_mask=3 \
        -artifact_prefix="$B/crash-$name-" "$corpus" "${seeds[@]}" \
        2>"$B/$name.log"; then
        tail -n 30 "$B/$name.log"
        rc=1
    else
        grep -E '^#[0-9]+.*DONE' "$B/$name.log" | tail -n 1 || true
    fi
done <"$B/fuzz-targets.txt"
exit $rc
