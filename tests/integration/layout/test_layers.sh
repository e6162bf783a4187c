#!/usr/bin/env bash
# test_layers.sh - the layering check (hack/check-layers.sh) passes on this
# tree and fails, naming the file, on scratch copies that break it: an
# upward include (model/ including the controller's header), an upward
# link (plan/ linking the Docker client, cli/ linking the controller, a
# set() list of libraries in docker/ naming plan/), an
# Engine API path written outside docker/, a header name used twice, a
# cycle between the controller's modules (the work queue calling the
# pass), one made through the shared types header, a function declared in
# a types-only header (ctl.h, ctl_record_types.h) and a module's header
# included by one; and between the controller's wings (its subfolders,
# docs/architecture.md): a wing including the header of a wing it may not
# use, two wings including each other with no module cycle between them,
# and a subfolder the check does not know. The wing controls run before
# the split too: they move the modules they need into wing folders of
# the scratch copy first.
set -euo pipefail
ROOT=${AGENTCTL_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}
CHECK=$ROOT/hack/check-layers.sh
fail() { echo "FAIL: $*"; exit 1; }

"$CHECK" "$ROOT" || fail "check-layers refuses the tree itself"

S=$(mktemp -d /tmp/agentctl-layers.XXXXXX)
trap 'rm -rf "$S"' EXIT
copy() { # a fresh scratch copy of the product folders
    rm -rf "$S/tree"
    mkdir -p "$S/tree"
    (cd "$ROOT" && tar -cf - common model store docker hostio plan proxy \
        images controller cli) | tar -xf - -C "$S/tree"
}
expect_refused() { # expect_refused WHAT PATTERN
    local out rc=0
    out=$("$CHECK" "$S/tree" 2>&1) || rc=$?
    [ "$rc" -eq 1 ] || fail "$1: check-layers exited $rc, expected 1"
    grep -q -- "$2" <<<"$out" || fail "$1: no line matching '$2' in: $out"
    echo "ok: $1 refused: $(grep -m1 -- "$2" <<<"$out")"
}

copy
"$CHECK" "$S/tree" >/dev/null || fail "the unchanged copy is refused"

copy
sed -i '0,/^#include "spec.h"/s//#include "spec.h"\n#include "ctl.h"/' \
    "$S/tree/model/spec_json.c"
expect_refused "upward include" \
    'model/spec_json.c:[0-9]*: includes controller/ctl.h'

copy
sed -i 's/^target_link_libraries(plan PUBLIC model common/& docker/' \
    "$S/tree/plan/CMakeLists.txt"
expect_refused "upward link" 'plan/CMakeLists.txt: links docker (docker/)'

copy
sed -i 's/^target_link_libraries(agentctl PRIVATE/& ctlmetrics/' \
    "$S/tree/cli/CMakeLists.txt"
expect_refused "cli linking the controller" \
    'cli/CMakeLists.txt: links ctlmetrics (controller/)'

copy
printf '%s\n' 'set(dk_libs plan)' >>"$S/tree/docker/CMakeLists.txt"
expect_refused "an upward set() list of libraries" \
    'docker/CMakeLists.txt: links plan (plan/)'

copy
printf '%s\n' 'static const char *const p = "/containers/json?all=1";' \
    >>"$S/tree/controller/loop/loop_gc.c"
expect_refused "an Engine API path in the controller" \
    'controller/loop/loop_gc.c:[0-9]*: an Engine API path outside docker/'

copy
cp "$S/tree/common/err.h" "$S/tree/plan/err.h"
expect_refused "a header name used twice" 'header name also used in'
copy
sed -i 's/^#include "inv_queue.h"$/&\n#include "pass_inv.h"/' \
    "$S/tree/controller/inv/inv_queue.c"
expect_refused "a cycle between controller modules" \
    'controller/: modules call each other in a cycle:.*queue.*inv'

copy
printf '%s\n' 'void ctl_sneak(struct ctl *c);' >>"$S/tree/controller/ctl.h"
expect_refused "a function in the controller's types header" \
    'controller/ctl.h:[0-9]*: a function declared in a types-only header'

# The cycle the check once missed: ctl.h, included by every module,
# brought the result interpreter's functions to the modules it calls.
# Counted through the header, the queue reaches the interpreter, which
# calls the queue.
copy
sed -i 's/^#include "ctl_record_types.h"$/&\n#include "try_result.h"/' \
    "$S/tree/controller/ctl.h"
sed -i 's/^#include "try_result.h"$//' "$S/tree/controller/out/out_egress.c"
expect_refused "a cycle through the shared types header" \
    'controller/: modules call each other in a cycle:.*result'
expect_refused "a module's header in the shared types header" \
    'controller/ctl.h: includes try_result.h: a types-only header'

# A types-only header of the record (model/ctl_record_types.h) is held to the
# same rule as ctl.h.
copy
printf '%s\n' 'void ctl_record_sneak(void);' >>"$S/tree/model/ctl_record_types.h"
expect_refused "a function in a module's types header" \
    'model/ctl_record_types.h:[0-9]*: a function declared in a types-only header'
# STYLE.md's two-line form, and a static inline one, are seen too
copy
printf '%s\n' 'int' 'ctl_record_sneak(void);' >>"$S/tree/model/ctl_record_types.h"
expect_refused "a two-line declaration in a types header" \
    'model/ctl_record_types.h:[0-9]*: a function declared in a types-only header'
copy
printf '%s\n' 'static inline int' 'sneak(int x)' '{' '    return x;' '}' \
    >>"$S/tree/controller/ctl.h"
expect_refused "a static inline function in ctl.h" \
    'controller/ctl.h:[0-9]*: a function declared in a types-only header'
# The wings, on modules of their own added to the copy (so the controls
# hold before and after the split): mod WING NAME INCLUDE... writes
# controller/WING/NAME.{c,h}, the .c including its header and the others.
mod() {
    local w=$1 m=$2 h
    shift 2
    mkdir -p "$S/tree/controller/$w"
    printf '#ifndef %s_H\n#define %s_H\nint %s(void);\n#endif\n' "$m" "$m" "$m" \
        >"$S/tree/controller/$w/$m.h"
    {
        printf '#include "%s.h"\n' "$m"
        for h in "$@"; do printf '#include "%s.h"\n' "$h"; done
        printf 'int %s(void) { return 0; }\n' "$m"
    } >"$S/tree/controller/$w/$m.c"
}
copy
mod obs obs_zza
mod inv inv_zzb obs_zza
mod inv inv_zzc
"$CHECK" "$S/tree" >/dev/null || fail "a copy with a wing using one below it is refused"
mod obs obs_zza inv_zzc
expect_refused "a wing using one above it" \
    'controller/obs/: obs_zza includes inv_zzc.s header (inv): wing obs may use core'
# no module cycle (inv_zzb -> obs_zza -> inv_zzc), but obs and inv use
# each other
expect_refused "two wings including each other" \
    'controller/: wings call each other in a cycle:.*\(inv\|obs\)'
grep -q 'modules call each other' <<<"$("$CHECK" "$S/tree" 2>&1)" &&
    fail "a module cycle reported where there is none"

copy
mod zzz zzz_a
expect_refused "a subfolder the check does not know" \
    'controller/zzz/: a wing hack/check-layers.sh does not know'
echo "PASS: layering check and its negative controls"
