#!/usr/bin/env bash
# test.sh - build everything twice (plain and ASan/UBSan), the programs in
# Release with gcc and clang, and run every test:
# cmocka units in both builds, the units again under valgrind, the fuzz
# smoke runs, the image builds, and every integration scenario against the
# real Docker daemon (and etcd where a scenario needs it).
#
# Each stage and each scenario counts as one test; the last line is
# "N passed, N failed". Exit status is 0 only when nothing failed.
# Set AGENTCTL_TEST_ONLY=<regex> to run only the integration scenarios whose
# path matches.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
LOGDIR=${AGENTCTL_TEST_LOGS:-$ROOT/build/test-logs}
mkdir -p "$LOGDIR"
passed=0
failed=0
skipped=0
failures=()

# run_stage NAME CMD...: run CMD with its output in $LOGDIR/NAME.log; print
# the tail of the log when it fails. Exit 77 means skipped.
run_stage() {
    local name=$1 log="$LOGDIR/${1//\//_}.log" start rc
    shift
    start=$(date +%s)
    "$@" >"$log" 2>&1
    rc=$?
    local took=$(($(date +%s) - start))
    if [ $rc -eq 0 ]; then
        passed=$((passed + 1))
        printf 'ok      %-58s %4ss\n' "$name" "$took"
    elif [ $rc -eq 77 ]; then
        skipped=$((skipped + 1))
        printf 'skip    %-58s %4ss  (%s)\n' "$name" "$took" \
            "$(tail -n 1 "$log")"
    else
        failed=$((failed + 1))
        failures+=("$name")
        printf 'FAIL    %-58s %4ss  (exit %d, log %s)\n' "$name" "$took" \
            "$rc" "$log"
        # The scenario's own verdict first: a long dump after it would
        # push it out of the tail.
        grep -m 3 '^FAIL' "$log" | sed 's/^/        | /'
        tail -n 30 "$log" | sed 's/^/        | /'
    fi
    return 0
}

# Development builds: warnings are errors here (and in CI, which runs this
# script), not in a user's build (CMakeLists.txt AGENTCTL_WERROR).
build() {
    local dir=$1
    shift
    cmake -S "$ROOT" -B "$dir" -DAGENTCTL_WERROR=ON "$@" &&
        cmake --build "$dir" -j "$(nproc)"
}

# The Release build a packager makes, with gcc and with clang: -O3 finds
# warnings (maybe-uninitialized) that the other builds do not. Only the
# installed programs, not the tests: the stage is about the optimiser, and
# the units already ran twice. Configured as the package is
# (tests/integration/package/test_deb_install.sh reuses build-release-gcc).
PRODUCT_TARGETS=(agentctl agent-controller egress-proxy agent-gateway)
build_release() {
    local cc
    for cc in gcc clang; do
        echo "== Release with $cc"
        CC=$cc cmake -S "$ROOT" -B "$ROOT/build-release-$cc" \
            -DCMAKE_BUILD_TYPE=Release -DAGENTCTL_WERROR=ON \
            -DCMAKE_INSTALL_PREFIX=/usr &&
            cmake --build "$ROOT/build-release-$cc" -j "$(nproc)" \
                --target "${PRODUCT_TARGETS[@]}" || return 1
    done
}

valgrind_units() {
    local t rc=0
    while read -r t; do
        [ -n "$t" ] || continue
        echo "== valgrind $t"
        valgrind -q --error-exitcode=99 --leak-check=full \
            --errors-for-leak-kinds=definite,indirect \
            --show-leak-kinds=definite,indirect "$t" || rc=1
    done <"$ROOT/build/unit-tests.txt"
    return $rc
}

run_stage build build "$ROOT/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
run_stage build-asan build "$ROOT/build-asan" -DAGENTCTL_SANITIZE=ON \
    -DCMAKE_BUILD_TYPE=Debug
run_stage build-release build_release
run_stage unit ctest --test-dir "$ROOT/build" -L unit --output-on-failure
run_stage unit-asan ctest --test-dir "$ROOT/build-asan" -L unit \
    --output-on-failure
run_stage unit-valgrind valgrind_units
[ -x hack/fuzz/smoke.sh ] && run_stage fuzz-smoke hack/fuzz/smoke.sh
[ -x hack/images.sh ] && run_stage images hack/images.sh
# The Kubernetes API server of tests/integration/kube/: built once from
# Debian's kubernetes source (about 12 min on 2 cores) and cached under
# /var/cache/agentctl/kube by source version and patches, so a second
# run only checks the cache (0.25 s). Here, not in hack/setup.sh: the main
# job (README command (a)) does not need it. AGENTCTL_NO_KUBE=1 leaves it
# out (the kube scenarios then skip, saying so).
[ -n "${AGENTCTL_NO_KUBE:-}" ] ||
    run_stage kube-apiserver hack/kube/build-apiserver.sh

# test_objects: "<kind> <id>" of every object on the shared daemon that a
# scenario made: its own carry agentctl.test=<run>, its controllers'
# agentctl.dev/managed-by=test-<run>.
test_objects() {
    local kind labels
    for kind in container network volume; do
        labels=.Labels
        [ "$kind" != container ] || labels=.Config.Labels
        docker "$kind" ls -q --filter label=agentctl.test 2>/dev/null |
            sed "s/^/$kind /"
        docker "$kind" ls -q --filter label=agentctl.dev/managed-by 2>/dev/null |
            while read -r id; do
                docker "$kind" inspect -f \
                    "{{index $labels \"agentctl.dev/managed-by\"}}" \
                    "$id" 2>/dev/null | grep -q '^test-' && echo "$kind $id"
            done
    done
}

# left_behind NAME: what scenario NAME left on the daemon (every scenario
# removes what it made, also when it fails), named in the output and
# removed, so the next one starts clean. A network that will not go
# because of Docker 20.10's stale endpoint ("has active endpoints" with
# nothing attached; only a dockerd restart clears it, docs/docker-notes.md)
# is named as Docker's.
left_behind() {
    local objs kind id err
    objs=$(test_objects | sort -u)
    [ -n "$objs" ] || return 0
    leftovers+=("$1")
    while read -r kind id; do
        if [ "$kind" = container ]; then
            err=$(docker rm -f -v "$id" 2>&1 >/dev/null)
        else
            err=$(docker "$kind" rm "$id" 2>&1 >/dev/null)
        fi
        case $err in
        *"active endpoints"*) echo "        | left: $kind $id (Docker's stale endpoint: it stays until dockerd restarts)" ;;
        *) echo "        | left: $kind $id, removed${err:+ ($err)}" ;;
        esac
    done <<<"$objs"
}

export AGENTCTL_ROOT=$ROOT AGENTCTL_BUILD=$ROOT/build
leftovers=()
for t in $(find tests/integration -name 'test_*.sh' | sort); do
    if [ -n "${AGENTCTL_TEST_ONLY:-}" ] &&
        ! [[ $t =~ $AGENTCTL_TEST_ONLY ]]; then
        continue
    fi
    run_stage "${t#tests/integration/}" bash "$t"
    left_behind "${t#tests/integration/}"
done

echo
if [ ${#failures[@]} -gt 0 ]; then
    echo "failed: ${failures[*]}"
fi
if [ ${#leftovers[@]} -gt 0 ]; then
    echo "left objects behind (removed after them): ${leftovers[*]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
