#!/usr/bin/env bash
# test_keeper_errors.sh - the storage keeper's bad invocations (issue 34,
# item 2). The keeper takes no argument, reads no file and opens no
# socket: it waits for SIGTERM or SIGINT and exits 0 (images/keeper.c).
# Any argument is a mistake (an image CMD, a hand-run test): exit 2 with a
# message that names it, shown as text (\xNN for a byte that is not
# printable), never a keeper that waits forever for a stop nobody sends
# (it ignored its arguments and ran on before). Each row runs plain,
# under ASan/UBSan and under valgrind (lib_errors.sh).
source "$(dirname "$0")/lib_errors.sh"
err_require images/keeper
K=@images/keeper

row "a flag" 2 'keeper: takes no arguments \(got "--bogus"\)' $K --bogus
row "--help" 2 'takes no arguments \(got "--help"\)' $K --help
row "a word" 2 'takes no arguments \(got "sleep"\)' $K sleep 3600
row "an empty argument" 2 'takes no arguments \(got ""\)' $K ""
row "bytes that are not text" 2 \
    'takes no arguments \(got "a\\xff\\x22b"\)' $K "$(printf 'a\xff"b')"
row "a long argument" 2 'takes no arguments \(got "x{64}\.\.\."\)' \
    $K "$(head -c 5000 /dev/zero | tr '\0' x)"
rows_finish
