# shellcheck shell=bash
# lib_errors.sh - the row runner of the error-path suite (issue 34, item 2).
# Source it from tests/integration/errors/test_*.sh, after nothing else.
#
# A scenario is a table of bad invocations of one binary. Each row is
#
#   row [--stdin FILE] [--not REGEX] NAME EXIT REGEX CMD [ARGS...]
#
# where CMD is "@<path under the build dir>" (@controller/agent-controller)
# or any other command, run as is. Every row runs in every mode of
# $ERR_MODES (default: plain asan valgrind):
#
#   plain     $BUILD/<path>, under timeout $ERR_TIMEOUT (20 s)
#   asan      $AGENTCTL_ROOT/build-asan/<path> (ASan + UBSan), leak check
#             on, under timeout $ERR_TIMEOUT
#   valgrind  $BUILD/<path> under valgrind memcheck (leaks: definite and
#             indirect are errors), under timeout $ERR_VG_TIMEOUT (60 s)
#
# and in each mode it must hold that:
#
#   1. the exit status is EXIT (the documented 1 or 2): not 0, not a
#      timeout (124/137), not a signal (>128), not another code;
#   2. stdout+stderr match REGEX (grep -E): the message names the bad
#      input (the flag, the path or the value);
#   3. stdout and stderr are plain text: valid UTF-8, no control byte but
#      tab and newline (garbage from freed memory was a real bug);
#   4. no hang: the timeout did not fire;
#   5. asan: no AddressSanitizer, LeakSanitizer or UBSan report;
#      valgrind: exit not 99 and nothing in valgrind's own log (it goes to
#      a file of its own, so the program's output stays apart);
#   6. with --not REGEX: the output does not match it (a key never quoted).
#
# Rows run in the background, $ERR_JOBS at a time (each row's modes one
# after another), so give each row that writes somewhere its own
# directory. rows_finish waits for them, prints one line per row and fails
# the scenario when any row failed. A row that shows a bug not fixed yet
# may be listed with known_failure NAME REASON before rows_finish: it is
# then reported as a known failure (and fails the scenario if it passes,
# so the list cannot go stale). Every scenario prints its list, empty or
# not.
#
# Every row's stdin is /dev/null unless --stdin says otherwise. No row may
# reach Docker or any network but loopback: DOCKER_HOST points at a socket
# that does not exist, and the AGENTCTL_* variables are unset.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

ASAN_BUILD=${AGENTCTL_ASAN_BUILD:-$ROOT/build-asan}
ERR_TIMEOUT=${ERR_TIMEOUT:-20}
ERR_VG_TIMEOUT=${ERR_VG_TIMEOUT:-60}
ERR_MODES=${ERR_MODES:-plain asan valgrind}
ERR_JOBS=${ERR_JOBS:-$((2 * $(nproc)))}
# where "@path" is looked up: the plain build (plain, valgrind) and the
# sanitizer build (asan); the harness self-test points them elsewhere
ERR_PLAIN_ROOT=$BUILD
ERR_ASAN_ROOT=$ASAN_BUILD
ERR_OUT=$TEST_TMP/rows
ERR_ROW_DIRS=()
ERR_ROW_PIDS=()
ERR_START=$(date +%s)
declare -A ERR_KNOWN=()
mkdir -p "$ERR_OUT"

# No row talks to the shared Docker daemon or a store the environment
# names: the controller's default Docker URL is $DOCKER_HOST.
export DOCKER_HOST=unix://$TEST_TMP/no-docker.sock
unset AGENTCTL_SPECS AGENTCTL_STATE AGENTCTL_ETCD AGENTCTL_ETCD_PREFIX \
    AGENTCTL_ETCD_CACERT AGENTCTL_ETCD_CERT AGENTCTL_ETCD_KEY \
    AGENTCTL_ETCD_USER AGENTCTL_ETCD_PASSWORD AGENTCTL_LOG \
    ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS

# err_require PATH...: skip (77) unless each @path is built in both builds
# and valgrind is installed.
err_require() {
    local p
    command -v valgrind >/dev/null || skip "valgrind not installed"
    for p in "$@"; do
        [ -x "$BUILD/$p" ] || skip "$BUILD/$p not built"
        [ -x "$ASAN_BUILD/$p" ] ||
            skip "$ASAN_BUILD/$p not built (cmake -DAGENTCTL_SANITIZE=ON)"
    done
}

# err_fixtures DIR: the bad files every table uses, in DIR:
#   missing (not there), dir, fifo, loop (a symlink to itself), empty,
#   garbage (bytes that are not text), notyaml (an unclosed flow), list
#   (YAML, but a list where a mapping belongs), under-file/x (a path
#   under a regular file: cannot be made).
err_fixtures() {
    local d=$1
    mkdir -p "$d/dir"
    mkfifo "$d/fifo"
    ln -s loop "$d/loop"
    : >"$d/empty"
    printf '\xff\xfe\x00\x01garbage\x80\xc3(\n' >"$d/garbage"
    printf 'vendors: [\n  {bad\n' >"$d/notyaml"
    printf -- '- a\n- b\n' >"$d/list"
    : >"$d/under-file"
}

# err_listener: a loopback port that is taken (an egress-proxy of the
# plain build listens on it) in $ERR_TAKEN_PORT; stopped on exit.
err_listener() {
    local log=$TEST_TMP/listener.log pid
    "$BUILD/proxy/egress-proxy" --listen 127.0.0.1:0 --deny-all 2>"$log" &
    pid=$!
    disown "$pid"
    on_cleanup "kill $pid 2>/dev/null"
    for _ in $(seq 1 100); do
        ERR_TAKEN_PORT=$(sed -n 's/.*"addr":"127\.0\.0\.1:\([0-9]*\)".*/\1/p' \
            "$log" | head -n 1)
        [ -n "$ERR_TAKEN_PORT" ] && return 0
        sleep 0.05
    done
    fail "the listener holding a port never said where: $(cat "$log")"
}

# err_tmpfs DIR SIZE [ro|full]: a tmpfs of SIZE on DIR (made), unmounted on
# exit; "full" fills it, "ro" mounts it read-only (after making the
# subdirectories named in $ERR_TMPFS_DIRS, if any). Returns 1 (and says
# so) when it cannot be mounted: the caller leaves its rows out.
err_tmpfs() {
    local dir=$1 size=$2 how=${3:-} d
    mkdir -p "$dir"
    if ! mount -t tmpfs -o "size=$size,mode=0755" tmpfs "$dir" 2>/dev/null; then
        echo "# cannot mount a tmpfs on $dir (not root?): its rows are left out"
        return 1
    fi
    on_cleanup "umount -l '$dir' 2>/dev/null"
    case $how in
    full)
        dd if=/dev/zero of="$dir/fill" bs=4k 2>/dev/null || true
        ;;
    ro)
        for d in ${ERR_TMPFS_DIRS:-}; do
            mkdir -p "$dir/$d"
        done
        mount -o remount,ro "$dir" || fail "remount $dir read-only"
        ;;
    esac
    return 0
}

# q STRING: STRING as an extended regular expression that matches it.
q() {
    printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'
}

# known_failure NAME REASON: row NAME shows a bug not fixed yet.
known_failure() {
    ERR_KNOWN[$1]=$2
}

# err_plain_text FILE: valid UTF-8 without control bytes but tab and
# newline. Prints what is wrong, returns 1.
err_plain_text() {
    local f=$1 ctl
    ctl=$(LC_ALL=C tr -d '\t\n\040-\176\200-\377' <"$f" | wc -c)
    if [ "$ctl" -ne 0 ]; then
        echo "$ctl control byte(s), first: $(LC_ALL=C tr -d \
            '\t\n\040-\176\200-\377' <"$f" | head -c 1 | od -An -tx1 |
            tr -d ' ')"
        return 1
    fi
    if ! iconv -f UTF-8 -t UTF-8 <"$f" >/dev/null 2>&1; then
        echo "not valid UTF-8 (bytes over 0x7f: $(LC_ALL=C tr -d \
            '\000-\177' <"$f" | head -c 8 | od -An -tx1 | tr -d '\n'))"
        return 1
    fi
    return 0
}

# err_mode_cmd DIR MODE CMD...: the command line of one mode, in ERR_CMD.
err_mode_cmd() {
    local d=$1 mode=$2 first=$3 bin
    shift 3
    bin=$first
    if [[ $first == @* ]]; then
        if [ "$mode" = asan ]; then
            bin=$ERR_ASAN_ROOT/${first#@}
        else
            bin=$ERR_PLAIN_ROOT/${first#@}
        fi
    fi
    case $mode in
    plain)
        ERR_CMD=(timeout -k 5 "$ERR_TIMEOUT" "$bin" "$@")
        ;;
    asan)
        ERR_CMD=(env "ASAN_OPTIONS=detect_leaks=1:exitcode=97"
            "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=97"
            timeout -k 5 "$ERR_TIMEOUT" "$bin" "$@")
        ;;
    valgrind)
        # shellcheck disable=SC2054 # the commas are valgrind's
        ERR_CMD=(timeout -k 5 "$ERR_VG_TIMEOUT" valgrind -q
            --error-exitcode=99 --leak-check=full --read-inline-info=no
            --errors-for-leak-kinds=definite,indirect
            --show-leak-kinds=definite,indirect
            "--log-file=$d/valgrind.log.%p" "$bin" "$@")
        ;;
    *) fail "unknown mode $mode" ;;
    esac
}

# err_run_mode DIR MODE: run the row stored in DIR in one mode; append
# "ok MODE SECONDS" or "FAIL MODE: reason" lines to DIR/verdict.
err_run_mode() {
    local d=$1 mode=$2 want re not stdin rc=0 t0 t1 why=() w
    local out=$d/$mode.out err=$d/$mode.err
    local -a cmd
    want=$(cat "$d/exit")
    re=$(cat "$d/regex")
    not=$(cat "$d/not")
    stdin=$(cat "$d/stdin")
    mapfile -d '' -t cmd <"$d/cmd"
    err_mode_cmd "$d" "$mode" "${cmd[@]}"
    t0=$(date +%s.%N)
    "${ERR_CMD[@]}" <"$stdin" >"$out" 2>"$err" || rc=$?
    t1=$(date +%s.%N)
    echo "$rc" >"$d/$mode.rc"
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        why+=("hang: still running after the timeout (exit $rc)")
    elif [ "$rc" -gt 128 ]; then
        why+=("killed by signal $((rc - 128)) (exit $rc)")
    elif [ "$rc" -ne "$want" ]; then
        why+=("exit $rc, want $want")
    fi
    cat "$out" "$err" >"$d/$mode.all"
    if ! grep -aqE -- "$re" "$d/$mode.all"; then
        why+=("no message matching /$re/")
    fi
    if [ -n "$not" ] && grep -aqE -- "$not" "$d/$mode.all"; then
        why+=("the output matches /$not/, which it must not")
    fi
    if ! w=$(err_plain_text "$out"); then
        why+=("stdout is not plain text: $w")
    fi
    if ! w=$(err_plain_text "$err"); then
        why+=("stderr is not plain text: $w")
    fi
    case $mode in
    asan)
        if grep -aqE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer)' "$err"; then
            why+=("sanitizer report: $(grep -aE -m 1 'ERROR: |runtime error:' "$err")")
        fi
        ;;
    valgrind)
        [ "$rc" -ne 99 ] || why+=("valgrind found errors (exit 99)")
        if cat "$d"/valgrind.log.* 2>/dev/null | grep -av 'Warning:' |
            grep -aq .; then
            why+=("valgrind: $(cat "$d"/valgrind.log.* | grep -av 'Warning:' |
                grep -aE -m 1 '== [A-Z0-9]' || true)")
        fi
        ;;
    esac
    if [ ${#why[@]} -eq 0 ]; then
        awk -v m="$mode" -v a="$t0" -v b="$t1" \
            'BEGIN { printf "ok %s %.1f\n", m, b - a }' >>"$d/verdict"
    else
        for w in "${why[@]}"; do
            printf 'FAIL %s: %s\n' "$mode" "$w" >>"$d/verdict"
        done
    fi
}

# err_store_row DIR ARGS...: parse row's arguments into DIR.
err_store_row() {
    local d=$1 stdin=/dev/null not=""
    shift
    while :; do
        case $1 in
        --stdin) stdin=$2; shift 2 ;;
        --not) not=$2; shift 2 ;;
        *) break ;;
        esac
    done
    [ $# -ge 4 ] || fail "row: want NAME EXIT REGEX CMD..., got: $*"
    mkdir -p "$d"
    printf '%s' "$1" >"$d/name"
    printf '%s' "$2" >"$d/exit"
    printf '%s' "$3" >"$d/regex"
    printf '%s' "$not" >"$d/not"
    printf '%s' "$stdin" >"$d/stdin"
    shift 3
    printf '%s\0' "$@" >"$d/cmd"
    : >"$d/verdict"
}

# err_eval_row DIR: every mode, in order.
err_eval_row() {
    local m
    for m in $ERR_MODES; do
        err_run_mode "$1" "$m"
    done
}

# row_now ARGS...: one row at once, in the foreground (the self-test).
# Returns 0 when every mode held; the verdict lines are in $ERR_LAST/verdict.
row_now() {
    ERR_NOW=$((${ERR_NOW:-0} + 1))
    ERR_LAST=$ERR_OUT/now-$ERR_NOW
    err_store_row "$ERR_LAST" "$@"
    err_eval_row "$ERR_LAST"
    ! grep -q '^FAIL' "$ERR_LAST/verdict"
}

# row ARGS...: queue one row (see the top of this file).
row() {
    local d n
    n=$(printf '%03d' "${#ERR_ROW_DIRS[@]}")
    d=$ERR_OUT/$n
    err_store_row "$d" "$@"
    ERR_ROW_DIRS+=("$d")
    while [ "$(jobs -rp | wc -l)" -ge "$ERR_JOBS" ]; do
        wait -n 2>/dev/null || true
    done
    (err_eval_row "$d") &
    ERR_ROW_PIDS+=($!)
}

# err_show_row DIR: what a failed row ran and printed (made visible).
err_show_row() {
    local d=$1 m
    local -a cmd
    mapfile -d '' -t cmd <"$d/cmd"
    echo "#   command: ${cmd[*]}"
    echo "#   want: exit $(cat "$d/exit"), output matching /$(cat "$d/regex")/"
    for m in $ERR_MODES; do
        [ -f "$d/$m.all" ] || continue
        echo "#   $m: exit $(cat "$d/$m.rc"), output:"
        head -c 2000 "$d/$m.all" | cat -v | head -n 12 | sed 's/^/#     | /'
        if [ "$m" = valgrind ]; then
            cat "$d"/valgrind.log.* 2>/dev/null | head -n 20 |
                sed 's/^/#     vg| /'
        fi
    done
}

# rows_finish: wait for every row, report, fail when one failed.
rows_finish() {
    local d name verdict failed=0 known_seen=0 runs=0 times k
    local -a bad=()
    for d in "${ERR_ROW_PIDS[@]}"; do
        wait "$d" 2>/dev/null || true
    done
    for d in "${ERR_ROW_DIRS[@]}"; do
        name=$(cat "$d/name")
        verdict=$d/verdict
        runs=$((runs + $(grep -c '^ok' "$verdict" || true)))
        if ! grep -q '^FAIL' "$verdict"; then
            times=$(awk '{printf "%s%s %ss", (NR>1?", ":""), $2, $3}' "$verdict")
            if [ -n "${ERR_KNOWN[$name]+x}" ]; then
                echo "not ok - $name: listed as a known failure but passes" \
                    "($times): take it off the list"
                failed=$((failed + 1))
                bad+=("$name")
                continue
            fi
            CHECKS=$((CHECKS + $(grep -c '^ok' "$verdict")))
            echo "ok - $name ($times)"
            continue
        fi
        if [ -n "${ERR_KNOWN[$name]+x}" ]; then
            known_seen=$((known_seen + 1))
            echo "known failure - $name: ${ERR_KNOWN[$name]}"
            sed 's/^/#   /' "$verdict"
            continue
        fi
        failed=$((failed + 1))
        bad+=("$name")
        echo "not ok - $name"
        grep '^FAIL' "$verdict" | sed 's/^/#   /'
        err_show_row "$d"
    done
    echo "# ${#ERR_ROW_DIRS[@]} rows, $runs runs held (modes: $ERR_MODES)," \
        "$(($(date +%s) - ERR_START)) s"
    echo "# known failures listed: ${#ERR_KNOWN[@]}"
    for k in "${!ERR_KNOWN[@]}"; do
        echo "#   $k: ${ERR_KNOWN[$k]}"
    done
    [ "$failed" -eq 0 ] || fail "$failed row(s) failed: ${bad[*]}"
}
