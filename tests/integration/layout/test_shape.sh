#!/usr/bin/env bash
# test_shape.sh - the 800-line rule (hack/shape.sh --check) holds on this
# tree and is refused, naming the file, on scratch copies that break it: a
# new file over 800 lines, and a listed one that grew. Likewise the size of
# struct ctl_inv (at most 40 members and 8 bools, issue 37 item 2): refused
# on a copy grown to 41 members, and on one with 9 bools; and the
# 30-file rule for folders (a controller wing counts alone): a folder with
# 31 .c files more is refused.
set -euo pipefail
ROOT=${AGENTCTL_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}
SHAPE=$ROOT/hack/shape.sh
fail() { echo "FAIL: $*"; exit 1; }

"$SHAPE" --check "$ROOT" || fail "hack/shape.sh --check refuses the tree itself"

S=$(mktemp -d /tmp/agentctl-shape.XXXXXX)
trap 'rm -rf "$S"' EXIT
copy() {
    rm -rf "$S/tree"
    mkdir -p "$S/tree/hack"
    cp "$ROOT/hack/check-layers.sh" "$S/tree/hack/"
    (cd "$ROOT" && tar -cf - common model store docker hostio plan proxy \
        images controller cli) | tar -xf - -C "$S/tree"
}
expect_refused() { # expect_refused WHAT PATTERN
    local out rc=0
    out=$("$SHAPE" --check "$S/tree" 2>&1) || rc=$?
    [ "$rc" -eq 1 ] || fail "$1: exited $rc, expected 1"
    grep -q -- "$2" <<<"$out" || fail "$1: no line matching '$2' in: $out"
    echo "ok: $1 refused: $(grep -m1 -- "$2" <<<"$out")"
}

copy
"$SHAPE" --check "$S/tree" >/dev/null || fail "the unchanged copy is refused"
printf '/* filler %s */\n' $(seq 801) >>"$S/tree/common/err.c"
expect_refused "a file over 800 lines" 'common/err.c: [0-9]* lines, over the 800-line rule'

# The list is empty on this tree: a copy of the script lists a file at
# 850 lines, the file is padded to that (accepted), then grows by one.
copy
n=$(wc -l <"$ROOT/plan/rc_desired.c")
printf '/* filler %s */\n' $(seq $((850 - n))) >>"$S/tree/plan/rc_desired.c"
sed 's|^declare -A OVER_800=(|&\n    [plan/rc_desired.c]=850|' "$SHAPE" >"$S/shape.sh"
chmod +x "$S/shape.sh"
"$S/shape.sh" --check "$S/tree" >/dev/null ||
    fail "the copy with a listed file at its listed length is refused"
echo '/* one line more */' >>"$S/tree/plan/rc_desired.c"
SHAPE=$S/shape.sh
expect_refused "a listed file that grew" 'plan/rc_desired.c: [0-9]* lines, grew past'
# struct ctl_inv's limits: figures as the check counts them
read -r members bools < <(awk '/^struct ctl_inv \{/ { on = 1; next } on && /^\};/ { exit }
    on && /^    [a-z].*;/ { l = $0; sub(/\/\*.*/, "", l); n = 1 + gsub(/,/, ",", l)
        m += n; if (l ~ /^    bool /) b += n } END { print m, b }' "$ROOT/controller/ctl.h")
[ "$members" -le 40 ] && [ "$bools" -le 8 ] ||
    fail "struct ctl_inv: $members members, $bools bools on this tree"
copy
more=$(seq -s ', ' -f 'extra_m%g' $((41 - members)) | sed 's/, $//')
sed -i "/^struct ctl_inv {/a\\    int $more;" "$S/tree/controller/ctl.h"
expect_refused "struct ctl_inv with members past 40" 'struct ctl_inv has [0-9]* members'
copy
extra=$(seq -s ', ' -f 'extra_%g' $((9 - bools)) | sed 's/, $//')
sed -i "/^    struct ctl_inv_build build;/c\\    bool $extra;" "$S/tree/controller/ctl.h"
expect_refused "struct ctl_inv with bools past 8" 'struct ctl_inv has [0-9]* members, 9 bools'
copy
for i in $(seq 31); do
    printf '/* filler */\n' >"$S/tree/plan/zz_filler_$i.c"
done
expect_refused "a folder over 30 .c files" 'plan/: [0-9]* .c files, over the 30-file rule'

echo "PASS: the 800-line rule, struct ctl_inv's limits, the 30-file rule and their negative controls"
