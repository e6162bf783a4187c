#!/usr/bin/env bash
# run.sh - benchmark: load each hostile file of tests/specs/hostile/make.sh
# and two normal ones (one full spec; 1,000 specs in one file) with the
# spec loader of a base revision (BENCH_BASE, default the parser before
# the per-file budgets) and of this
# tree, side by side in one run: the two builds back to back on every
# file. Prints the median CPU time of a load (read + parse + validate) and
# the ratio, the median wall time, the peak RSS of each process, the first
# error each reports and, for the normal files, the instructions of one
# load counted by valgrind (exact, where times on a shared machine are
# not: the no-regression check). Not a test.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
# default base: the parser before this benchmark's change, i.e. the parent
# of the commit that added model/spec_yaml_keys.c
BASE=${BENCH_BASE:-$(git -C "$ROOT" log --diff-filter=A --format=%H -- \
    model/spec_yaml_keys.c | tail -n 1)^}
ROUNDS=${BENCH_ROUNDS:-3} # loads per process; the median is kept
REPS=${BENCH_REPS:-1}     # processes per build and file; the best is kept
B=$ROOT/build-bench-parse
W=$(mktemp -d /tmp/agentctl-bench-parse.XXXXXX)
trap 'rm -rf "$W"' EXIT

# build DIR SRC: libmodel from the tree SRC, and parsebench against it
build() {
    # a fresh directory: git archive gives files their commit's time, older
    # than the objects of the last run, so make would keep stale objects
    rm -rf "$1"
    # RelWithDebInfo: how the controller and agentctl are built (a Release
    # build of main trips -Werror=maybe-uninitialized in cfg_validate.c)
    cmake -S "$2" -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$1" -j "$(nproc)" --target model >/dev/null
    cc -O2 -D_GNU_SOURCE -I"$2/model" -I"$2/common" \
        "$ROOT/hack/bench/parse/parsebench.c" "$1/model/libmodel.a" \
        "$1/common/libcommon.a" -lyaml -lcjson -lcrypto -o "$1/parsebench"
}
# the base's sources stay at one path: its build directory remembers it
rm -rf "$B/base-src"
mkdir -p "$B/base-src"
git -C "$ROOT" archive "$BASE" | tar -x -C "$B/base-src"
build "$B/base" "$B/base-src"
build "$B/head" "$ROOT"

F=$W/files
bash "$ROOT/tests/specs/hostile/make.sh" "$F"
# Within every budget but invalid many times over: 2 documents of 8,000
# unknown 60-character keys (the error list fills at 50; the rest are
# counted).
awk 'BEGIN { for (d = 0; d < 2; d++) { printf "--- {"
    for (i = 0; i < 8000; i++) printf "%sk%059d", (i ? ", " : ""), d * 8000 + i
    print "}" } }' >"$F/long-unknown-keys.yaml"
cp "$ROOT/tests/specs/valid/full.yaml" "$F/normal-full.yaml"
for i in $(seq 1000); do
    echo "---"
    sed "s/^  name: .*/  name: spec-$i/" "$ROOT/tests/specs/valid/full.yaml"
done >"$F/normal-1000-specs.yaml"
cat "$F"/* >/dev/null # page cache warm for both

# field NAME LINE: the value of NAME=... in a parsebench line
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p; s/^$1=\([^ ]*\).*/\1/p" <<<"$2" | head -n 1; }
first() { sed 's/.* first=//' <<<"$1"; }
instructions() { # millions of instructions of one load, or "-"
    case $(basename "$2") in normal-*) ;; *) echo -; return ;; esac
    command -v valgrind >/dev/null || { echo -; return; }
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$B/$1/parsebench" "$2" 1 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p' |
        awk '{ printf "%.2f", $1 / 1e6 }'
}
best() { # best of REPS runs of build $1 on file $2 (lowest median CPU)
    for _ in $(seq "$REPS"); do
        "$B/$1/parsebench" "$2" "$ROUNDS"
    done | sort -t= -k2 -g | head -n 1
}

echo "base: $(git -C "$ROOT" rev-parse --short "$BASE"), this tree:" \
    "$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet || echo '+dirty')"
echo "rounds per process: $ROUNDS (median), processes per build: $REPS (best)"
echo
echo "| file | bytes | base CPU ms | this CPU ms | base/this | base wall ms | this wall ms | base peak RSS MiB | this peak RSS MiB | base M instr | this M instr | base: specs, errors, first error | this: specs, errors, first error |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for f in "$F"/*.yaml; do
    # the two builds back to back on each file, under the same load
    b=$(best base "$f")
    h=$(best head "$f")
    awk -v n="$(basename "$f" .yaml)" -v kib="$(stat -c %s "$f")" \
        -v bc="$(field cpu_ms "$b")" -v hc="$(field cpu_ms "$h")" \
        -v bm="$(field median_ms "$b")" -v hm="$(field median_ms "$h")" \
        -v br="$(field maxrss_kib "$b")" -v hr="$(field maxrss_kib "$h")" \
        -v bi="$(instructions base "$f")" -v hi="$(instructions head "$f")" \
        -v bs="$(field specs "$b"), $(field errors "$b"), $(first "$b")" \
        -v hs="$(field specs "$h"), $(field errors "$h"), $(first "$h")" \
        'BEGIN { printf "| %s | %d | %.2f | %.2f | %.1fx | %.2f | %.2f | %.1f | %.1f | %s | %s | %s | %s |\n",
                 n, kib, bc, hc, (hc > 0 ? bc / hc : 0), bm, hm, br / 1024, hr / 1024,
                 bi, hi, bs, hs }'
done
