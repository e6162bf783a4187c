#!/usr/bin/env bash
# test_man_pages.sh - the man pages the build generates (packaging/
# genman.sh, target agentctl-docs) render without a groff warning, say
# what their sources say (every agent-controller flag of loop_flags.c,
# every agentctl command of the command table, every config key of the
# config parser's tables), and are what the current programs produce;
# a page with a roff mistake is caught (negative control).
source "$(dirname "$0")/../lib.sh"

command -v groff >/dev/null || skip "groff is not installed (hack/setup.sh)"
cmake --build "$BUILD" --target agentctl-docs >/dev/null ||
    fail "cannot build the man pages (target agentctl-docs in $BUILD)"
MAN=$BUILD/packaging/man

# groff -ww: every warning; -z: no output, only the diagnostics.
for page in agentctl.1 agent-controller.8 agent-controller.yaml.5; do
    check "$page exists" test -s "$MAN/$page"
    check_eq "$page renders without a groff warning" "" \
        "$(groff -man -ww -z "$MAN/$page" 2>&1)"
done

# The pages are the current programs' help: made again, nothing differs.
version=$("$BUILD/cli/agentctl" version | awk '{print $3}')
"$ROOT/packaging/genman.sh" "$BUILD/cli/agentctl" \
    "$BUILD/controller/agent-controller" "$ROOT/docs/config.md" \
    "$TEST_TMP/man" "$version" || fail "genman.sh failed"
check "the built pages are what genman.sh makes now" \
    diff -r "$MAN" "$TEST_TMP/man"

# plain PAGE: the page's text without roff's minus signs and font changes
plain() { sed -e 's/\\-/-/g' -e 's/\\f[BIR]//g' "$1"; }
ctl_page=$(plain "$MAN/agent-controller.8")

# Every flag of the table is in agent-controller(8), with its default.
flags=$(sed -n 's/^    { "\([a-z-]*\)", .*/\1/p' "$ROOT/controller/loop/loop_flags.c")
n=0
for f in $flags; do
    grep -q -- "^--$f\b" <<<"$ctl_page" || fail "--$f not in agent-controller.8"
    n=$((n + 1))
done
# (a count, so an extraction that found nothing cannot pass)
check_match "all ${n} controller flags of the table are in agent-controller.8" \
    '^[1-9][0-9]$' "$n"
# flag_means PAGE_TEXT FLAG TEXT: the line after the flag's tag holds TEXT
flag_means() { grep -A1 -x -- "$2" <<<"$1" | grep -q -- "$3"; }
check "agent-controller.8: --resync with its meaning and default" \
    flag_means "$ctl_page" "--resync D" \
    'period: 5s, 500ms, 2m, or seconds (default: 5s)'
check "agentctl.1: get's --watch with its meaning" \
    flag_means "$(plain "$MAN/agentctl.1")" "-w, --watch" \
    "print a row each time"

# Every command of agentctl has its section in agentctl(1).
cmds=$("$BUILD/cli/agentctl" --help |
    awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1; next }
         on { exit }')
n=0
for c in $cmds; do
    grep -q "^\.SS \"agentctl $c\"" "$MAN/agentctl.1" || fail "$c not in agentctl.1"
    n=$((n + 1))
done
check_match "every agentctl command has a section (${n})" '^[1-9][0-9]$' "$n"

# Every key the config parser knows is on the config page.
keys=$(sed -n 's/^    { "\([A-Za-z]*\)", .*/\1/p' "$ROOT"/model/cfg_validate.c \
    "$ROOT"/model/cfg_vendor.c | sort -u)
n=0
for k in $keys; do
    grep -q "$k" "$MAN/agent-controller.yaml.5" ||
        fail "config key $k is not in agent-controller.yaml.5 (docs/config.md)"
    n=$((n + 1))
done
check_match "every config key is on the page ($n)" '^[3-9][0-9]$' "$n"

# Negative control: the check sees a roff mistake.
printf '.TH X 1\n.SH NAME\nx \\- y\n.XX unknown macro\n\\fQbad font\n' \
    >"$TEST_TMP/bad.1"
check "groff -ww reports a page with mistakes" \
    test -n "$(groff -man -ww -z "$TEST_TMP/bad.1" 2>&1)"
