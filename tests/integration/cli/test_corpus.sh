#!/usr/bin/env bash
# test_corpus.sh - agentctl validate over tests/specs: every valid file
# exits 0, every invalid file exits 1 and reports the exact position and
# field path of its first line's `# expect: LINE:COL FIELD.PATH` ("-" =
# an error with no field). Hostile inputs that should not be committed
# (a document over 1 MiB, deep nesting, bad UTF-8, zero bytes) are generated here.
# Valid files also round-trip: apply writes them back as YAML and a
# second apply finds every resource unchanged.
source "$(dirname "$0")/../lib.sh"

AGENTCTL=$BUILD/cli/agentctl
[ -x "$AGENTCTL" ] || fail "no agentctl at $AGENTCTL"
CORPUS=$ROOT/tests/specs

# expect_invalid FILE LINE:COL FIELD
expect_invalid() {
    local f=$1 pos=$2 field=$3 out rc=0
    out=$("$AGENTCTL" validate -f "$f" 2>&1) || rc=$?
    check_eq "$(basename "$f"): exit code" 1 "$rc"
    if [ "$field" = "-" ]; then
        check "$(basename "$f"): reports $pos" \
            grep -qF -- "$f:$pos: " <<<"$out"
        check "$(basename "$f"): $pos has no field path" \
            bash -c '! grep -qE -- "^$1:$2: [A-Za-z][A-Za-z0-9_.]*: " <<<"$3"' \
            _ "$f" "$pos" "$out"
    else
        check "$(basename "$f"): reports $pos: $field" \
            grep -qF -- "$f:$pos: $field: " <<<"$out"
    fi
}

n=0
for f in "$CORPUS"/invalid/*.yaml; do
    read -r _ _ pos field < <(head -n 1 "$f")
    [[ $pos =~ ^[0-9]+:[0-9]+$ ]] || fail "$f: first line is not '# expect: LINE:COL FIELD'"
    expect_invalid "$f" "$pos" "$field"
    n=$((n + 1))
done
check "the invalid corpus is not empty ($n files)" test "$n" -ge 20
# Negative control: a wrong expectation must fail the check.
if (expect_invalid "$CORPUS/invalid/wrong-kind.yaml" 3:8 kind) >/dev/null 2>&1 ||
    (expect_invalid "$CORPUS/invalid/wrong-kind.yaml" 3:7 apiVersion) >/dev/null 2>&1; then
    fail "expect_invalid accepted a wrong position or field"
fi
check "a wrong expectation is caught" true

for f in "$CORPUS"/valid/*.yaml; do
    rc=0
    "$AGENTCTL" validate -f "$f" >/dev/null 2>&1 || rc=$?
    check_eq "$(basename "$f"): valid" 0 "$rc"
done

# Generated hostile inputs.
G=$TEST_TMP/gen
mkdir -p "$G"
{
    echo "apiVersion: agentctl.dev/v1alpha1"
    head -c 1100000 /dev/zero | tr '\0' '#'
    echo
} >"$G/too-big.yaml"
out=$("$AGENTCTL" validate -f "$G/too-big.yaml" 2>&1) && fail "too-big.yaml passed"
check_match "a document over 1 MiB is refused" "too-big.yaml:1:1: document is [0-9]+ bytes, over the 1 MiB limit" "$out"

{
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n'
    printf 'metadata:\n  name: deep\nspec:\n  env: '
    for _ in $(seq 70); do printf '['; done
    for _ in $(seq 70); do printf ']'; done
    echo
} >"$G/deep.yaml"
expect_invalid "$G/deep.yaml" 6:70 -
check_match "deep nesting is named" "nesting deeper than 64" \
    "$("$AGENTCTL" validate -f "$G/deep.yaml" 2>&1 || true)"

printf 'apiVersion: agentctl.dev/v1alpha1\nkind: "Agent\xffInvocation"\n' \
    >"$G/bad-utf8.yaml"
expect_invalid "$G/bad-utf8.yaml" 2:13 -
check_match "bad UTF-8 is named" "invalid UTF-8" \
    "$("$AGENTCTL" validate -f "$G/bad-utf8.yaml" 2>&1 || true)"

: >"$G/zero-bytes.yaml"
expect_invalid "$G/zero-bytes.yaml" 1:1 -

# A raw NUL and a raw control character: refused where they are, not at
# 1:1 (the reader's own position).
printf 'apiVersion: agentctl.dev/v1alpha1\nkind: Agent\0Invocation\n' \
    >"$G/raw-nul.yaml"
expect_invalid "$G/raw-nul.yaml" 2:12 -
check_match "a raw NUL is named" "NUL characters are not allowed" \
    "$("$AGENTCTL" validate -f "$G/raw-nul.yaml" 2>&1 || true)"
printf 'apiVersion: agentctl.dev/v1alpha1\nkind: Agent\x07Invocation\n' \
    >"$G/raw-bel.yaml"
expect_invalid "$G/raw-bel.yaml" 2:12 -
# Negative control: the NUL is not reported at 1:1.
if (expect_invalid "$G/raw-nul.yaml" 1:1 -) >/dev/null 2>&1; then
    fail "the raw NUL was reported at 1:1"
fi
check "the raw NUL is not reported at 1:1" true

# The hostile files of tests/specs/hostile/make.sh (near 1 MiB each: the
# parser's per-file budgets): exactly one error, the one on its first line
# `# expect: LINE:COL - MESSAGE`.
expect_hostile() {
    local f=$1 pos=$2 msg=$3 out rc=0
    out=$("$AGENTCTL" validate -f "$f" 2>&1) || rc=$?
    check_eq "$(basename "$f"): exit code" 1 "$rc"
    check_eq "$(basename "$f"): the one error" "$f:$pos: $msg" \
        "$(grep -v '^1 file(s): ' <<<"$out")"
}
H=$TEST_TMP/hostile
bash "$ROOT/tests/specs/hostile/make.sh" "$H"
n=0
for f in "$H"/*.yaml; do
    read -r _ _ pos _ msg < <(head -n 1 "$f")
    expect_hostile "$f" "$pos" "$msg"
    n=$((n + 1))
done
check "the hostile set is complete ($n files)" test "$n" -ge 7
# Negative control: another file's expectation must fail the check.
if (expect_hostile "$H/docs-21x9999-keys.yaml" 2:40005 \
    "document has too many nodes (limit 20000)") >/dev/null 2>&1; then
    fail "expect_hostile accepted a wrong error"
fi
check "a wrong hostile expectation is caught" true

# A directory: all of it, and one invalid file makes the whole run fail.
rc=0
"$AGENTCTL" validate -f "$CORPUS/valid" >/dev/null 2>&1 || rc=$?
check_eq "validate of the valid directory" 0 "$rc"
rc=0
out=$("$AGENTCTL" validate -f "$CORPUS/valid" -f "$CORPUS/invalid/wrong-kind.yaml" 2>&1) || rc=$?
check_eq "one invalid file fails the run" 1 "$rc"
check_match "summary line" "invalid, 1 error" "$out"

# Round trip: what apply writes reads back as the same resources.
S=$TEST_TMP/specs
mkdir -p "$S"
out=$("$AGENTCTL" --specs "$S" apply -f "$CORPUS/valid")
check_eq "first apply creates all" 0 "$(grep -vc ' created$' <<<"$out" || true)"
out=$("$AGENTCTL" --specs "$S" apply -f "$CORPUS/valid")
check_eq "second apply: all unchanged" 0 "$(grep -vc ' unchanged$' <<<"$out" || true)"
rc=0
"$AGENTCTL" validate -f "$S" >/dev/null || rc=$?
check_eq "written files validate" 0 "$rc"
