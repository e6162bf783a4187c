#!/usr/bin/env bash
# spec-path.sh - issue 37's figure "files and folders a spec passes before
# its first Docker create": one spec applied to a controller run under
# valgrind's callgrind, which dumps its counts when dk_create() is first
# entered; the product source files with code run in that dump (from the
# process start: flags, config and store included, as a spec's first
# pass needs them), counted per folder. Needs Docker and the images the
# controller scenarios use (tests/integration/controller/lib_controller.sh
# sets them up and cleans up after, by its test label).
#
#   AGENTCTL_ROOT=$PWD AGENTCTL_BUILD=$PWD/build hack/spec-path.sh
set -euo pipefail
source "$(cd "$(dirname "$0")/.." && pwd)/tests/integration/controller/lib_controller.sh"
command -v callgrind_annotate >/dev/null || skip "valgrind not installed"
need_docker
ctl_init
apply_spec walk execute 'command: [/demo-agent, --sleep, "1"]'
OUT=$TEST_TMP/callgrind.out
valgrind --tool=callgrind --dump-before=dk_create --callgrind-out-file="$OUT" \
    "$CONTROLLER" --specs "$SPECS" --state "$STATE" --config "$CONFIG" \
    --resync 1s --controller-id "$CTL_ID" >>"$CTL_LOG" 2>&1 &
CTL_PID=$!
for _ in $(seq 1 1200); do # bounded wait for the first dump, not a timing
    [ -s "$OUT.1" ] && break
    kill -0 "$CTL_PID" 2>/dev/null || break
    sleep 0.5
done
[ -s "$OUT.1" ] || fail "no dump before dk_create: $(tail -n 20 "$CTL_LOG")"
sleep 1 # the dump is written whole before the process goes on
kill -TERM "$CTL_PID" 2>/dev/null || true
wait "$CTL_PID" 2>/dev/null || true
CTL_PID=
# fl=, fi=, fe= (and cfi= for a call's target) name the source file of
# code that ran;
# a name is given in full once, then by its number.
sed -nE 's/^c?f[lie]=\([0-9]+\) (.*)/\1/p' "$OUT.1" |
    sed -n "s|^$ROOT/||p" |
    grep -E '^(common|model|store|docker|hostio|plan|proxy|images|controller|cli)/.*\.[ch]$' |
    sort -u >"$TEST_TMP/files"
echo "files a spec passes before its first create: $(wc -l <"$TEST_TMP/files")" \
    "in $(sed -E 's|^(controller/[^/]+/\|[^/]+/).*|\1|' "$TEST_TMP/files" | sort -u | wc -l) folders"
sed -E 's|^(controller/[^/]+/\|[^/]+/).*|\1|' "$TEST_TMP/files" | sort | uniq -c |
    sed 's/^/  /'
[ -z "${SPEC_PATH_LIST:-}" ] || sed 's/^/    /' "$TEST_TMP/files"
