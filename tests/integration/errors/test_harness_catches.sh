#!/usr/bin/env bash
# test_harness_catches.sh - the error-path suite's negative controls: the
# row runner of lib_errors.sh must be able to fail. Fed a command that
#
#   - segfaults (sh -c 'kill -SEGV $$'),
#   - hangs (sleep 600, under a 2 s / 5 s timeout here),
#   - prints garbage bytes (printf '\xff\xfe'),
#   - exits 0 where 2 is documented,
#   - exits 2 with a message that does not name the bad input,
#   - prints what --not forbids (a key),
#
# it flags the row as failing in every mode (plain, asan, valgrind), for
# the right reason. A tiny C program that reads past a heap block, leaks,
# or overflows a signed int, built plain and with ASan/UBSan, passes in
# plain mode (exit, message and text are right) and is flagged in asan
# and valgrind mode: those modes see what plain mode cannot. A well-behaved
# command passes in every mode (positive control).
source "$(dirname "$0")/lib_errors.sh"
command -v valgrind >/dev/null || skip "valgrind not installed"
command -v cc >/dev/null || skip "no C compiler for the sanitizer controls"
ERR_TIMEOUT=2
ERR_VG_TIMEOUT=5

# expect_flagged WHAT REASON-REGEX ROW-ARGS...: the row fails in every
# mode, each for a reason matching REASON-REGEX.
expect_flagged() {
    local what=$1 reason=$2 m
    shift 2
    if row_now "$@"; then
        fail "$what: the runner let it pass: $(cat "$ERR_LAST/verdict")"
    fi
    for m in $ERR_MODES; do
        check "$what: flagged in $m mode" \
            grep -qE "^FAIL $m: .*($reason)" "$ERR_LAST/verdict"
    done
}

# ---- positive control: a right refusal passes everywhere ----
check "positive control: exit 2 naming --flag passes in every mode" \
    row_now "good" 2 "--flag x: " \
    sh -c 'echo "error: --flag x: not a number" >&2; exit 2'

# ---- each way a binary can go wrong ----
expect_flagged "segfault" "killed by signal 11" \
    "segv" 2 "--flag x" \
    sh -c 'echo "error: --flag x: bad" >&2; kill -SEGV $$'
expect_flagged "hang" "hang: still running after the timeout" \
    "hang" 2 "." sleep 600
expect_flagged "garbage bytes" "not plain text" \
    "garbage" 2 "--flag x" \
    sh -c 'echo "error: --flag x: bad" >&2; printf "\377\376\n"; exit 2'
expect_flagged "garbage control bytes" "not plain text: 1 control byte" \
    "control" 2 "--flag x" \
    sh -c 'printf "error: --flag x: bad\033[0m\n" >&2; exit 2'
expect_flagged "exit 0" "exit 0, want 2" \
    "exit0" 2 "--flag x" \
    sh -c 'echo "error: --flag x: bad" >&2; exit 0'
expect_flagged "exit 1 where 2 is documented" "exit 1, want 2" \
    "exit1" 2 "--flag x" \
    sh -c 'echo "error: --flag x: bad" >&2; exit 1'
expect_flagged "a message not naming the input" "no message matching" \
    "unnamed" 2 "--flag x" \
    sh -c 'echo "error: something went wrong" >&2; exit 2'
expect_flagged "--not: a key in the output" "must not" \
    --not "sk-secret" "leak" 2 "--key-file" \
    sh -c 'echo "error: --key-file k: sk-secret-123 is bad" >&2; exit 2'

# ---- the sanitizer and valgrind modes see what plain mode cannot ----
mkdir -p "$TEST_TMP/plain" "$TEST_TMP/asan"
cat >"$TEST_TMP/bad.c" <<'EOF'
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int
main(int argc, char **argv)
{
    volatile char sink;
    char *p = malloc(8);
    volatile int big = INT_MAX;

    fprintf(stderr, "error: --flag %s: bad\n", argv[1]);
    if (strcmp(argv[1], "oob") == 0)
        sink = p[argc + 10]; /* a read past the block */
    if (strcmp(argv[1], "leak") == 0)
        p = malloc(32);      /* the first block is lost */
    if (strcmp(argv[1], "ub") == 0)
        big += argc;         /* signed overflow */
    (void)sink;
    free(p);
    return 2;
}
EOF
cc -g -O0 -o "$TEST_TMP/plain/bad" "$TEST_TMP/bad.c"
cc -g -O0 -fsanitize=address,undefined -fno-sanitize-recover=all \
    -o "$TEST_TMP/asan/bad" "$TEST_TMP/bad.c"
ERR_PLAIN_ROOT=$TEST_TMP/plain
ERR_ASAN_ROOT=$TEST_TMP/asan
check "control: the program without a fault passes in every mode" \
    row_now "bad-none" 2 "--flag none" @bad none
for kind in oob leak ub; do
    if row_now "bad-$kind" 2 "--flag $kind" @bad "$kind"; then
        fail "$kind: the runner let it pass: $(cat "$ERR_LAST/verdict")"
    fi
    check "$kind: plain mode alone cannot see it (it passes)" \
        grep -q '^ok plain' "$ERR_LAST/verdict"
    check "$kind: asan mode reports the sanitizer" \
        grep -qE '^FAIL asan: sanitizer report' "$ERR_LAST/verdict"
    if [ "$kind" = ub ]; then
        # memcheck does not look at integer arithmetic
        check "$kind: valgrind mode has nothing to say (not its job)" \
            grep -q '^ok valgrind' "$ERR_LAST/verdict"
    else
        check "$kind: valgrind mode reports it" \
            grep -qE '^FAIL valgrind: valgrind' "$ERR_LAST/verdict"
    fi
done

# ---- the background table: a failing row fails rows_finish ----
ERR_PLAIN_ROOT=$BUILD
ERR_ASAN_ROOT=$ASAN_BUILD
out=$(
    row "table-good" 2 "--flag x" sh -c 'echo "--flag x" >&2; exit 2'
    row "table-segv" 2 "--flag x" sh -c 'echo "--flag x" >&2; kill -SEGV $$'
    rows_finish 2>&1
) && fail "rows_finish passed a table with a segfaulting row: $out"
check_match "rows_finish names the failing row" "not ok - table-segv" "$out"
check_match "rows_finish passes the good row" "ok - table-good" "$out"
