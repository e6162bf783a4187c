#!/usr/bin/env bash
# shape.sh - the code's shape in figures (issue 37's counts), and the
# 800-line rule.
#
#   hack/shape.sh [ROOT]          print the figures
#   hack/shape.sh --check [ROOT]  also exit 1 when a product source file
#                                 is over 800 lines, unless it is one of
#                                 OVER_800 below and no longer than it was
#                                 when it was listed (a ratchet: a listed
#                                 file may shrink, never grow; split it and
#                                 take it off the list), and when struct
#                                 ctl_inv has more than INV_MEMBERS members
#                                 or INV_BOOLS bools (issue 37 item 2: its
#                                 state lives in parts owned by modules),
#                                 or when a folder holds more than 30 .c files
#
# Figures: product files and lines per folder (and per subfolder: a controller wing, a store backend), the members (and bools) of
# struct ctl_inv and struct ctl, the controller's module graph (modules,
# edges, the longest cycle tsort reports: 0 when it sorts), the largest
# files.
set -euo pipefail

check=0
if [ "${1:-}" = --check ]; then
    check=1
    shift
fi
ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$ROOT"
FOLDERS=(common model store docker hostio plan proxy images controller cli)
LIMIT=800
INV_MEMBERS=40
INV_BOOLS=8
FOLDER_LIMIT=30 # .c files in one folder (a controller wing counts alone)

# The files over the limit when the rule came back (2026-12-07), with
# their length then: none may grow, none may join them. A file that
# came under the limit leaves the list (controller/pass/pass_inv.c did, at
# 750: issue 40's image pins moved out of it; plan/rc_desired.c did at
# 700, its agent body moved to rc_desired_agent.c). The list is empty
# now; a test may add a row to a copy of this script.
declare -A OVER_800=(
)

# members STRUCT FILE: "<members> <bools>" of the struct's definition
# (a declaration line with several declarators counts each).
members() {
    awk -v s="struct $1 {" '
        index($0, s) == 1 { on = 1; next }
        on && /^};/ { on = 0 }
        on && /^    [a-z].*;/ {
            line = $0; sub(/\/\*.*/, "", line)
            n = 1 + gsub(/,/, ",", line)
            total += n
            if (line ~ /^    bool /) bools += n
        }
        END { print total + 0, bools + 0 }' "$2"
}

folder_figures() {
    local d files lines all
    all=$(find "${FOLDERS[@]}" -name '*.[ch]' -print0 |
        xargs -0 cat | wc -l)
    for d in "${FOLDERS[@]}" $(find "${FOLDERS[@]}" -mindepth 1 -type d 2>/dev/null | sort); do
        [ -d "$d" ] || continue
        files=$(find "$d" -maxdepth 1 -name '*.c' | wc -l)
        lines=$(find "$d" -maxdepth 1 -name '*.[ch]' -print0 | xargs -0 cat | wc -l)
        printf '  %-18s %3d .c files %6d lines (%d%%)\n' "$d/" "$files" \
            "$lines" $((lines * 100 / all))
    done
    echo "  all                $all lines"
}

# graph_figures: the controller's module graph as hack/check-layers.sh
# counts it (every include, through headers too).
graph_figures() {
    local edges loop
    edges=$(source <(sed -n '/^ctl_edges()/,/^}/p' hack/check-layers.sh) &&
        ctl_edges)
    loop=$(tsort <<<"$edges" 2>&1 >/dev/null |
        awk '/input contains a loop/ { n++; next } n == 1' | grep -c . || true)
    echo "  controller modules: $(tr ' ' '\n' <<<"$edges" | sort -u | grep -c .)," \
        "include edges: $(grep -c . <<<"$edges"), longest cycle found: $loop modules"
    # the same graph between wings (a module's wing: its folder)
    local wings m from to
    declare -A wing=()
    for m in $(tr ' ' '\n' <<<"$edges" | sort -u); do
        wing[$m]=$(find controller \( -name "$m.h" -o -name "$m.c" \) -printf '%h\n' -quit)
    done
    wings=$(while read -r from to; do
        [ "${wing[$from]}" = "${wing[$to]}" ] || echo "${wing[$from]} ${wing[$to]}"
    done <<<"$edges" | sort -u)
    loop=$(tsort <<<"$wings" 2>&1 >/dev/null |
        awk '/input contains a loop/ { n++; next } n == 1' | grep -c . || true)
    echo "  controller wings: $(find controller -mindepth 1 -type d | grep -c . || true)" \
        "(and the core), wing edges: $(grep -c . <<<"$wings" || true)," \
        "longest cycle found: $loop wings"
}

# The folders over FOLDER_LIMIT, with their .c files when listed: none
# may grow (a ratchet, as OVER_800). Empty since controller/ was split
# into wings and store/ into its backends (dir/, etcd/, kube/).
declare -A OVER_FOLDER=(
)

# crowded_folders: "<folder> <.c files>" for each source folder (a
# controller wing too) holding more than FOLDER_LIMIT .c files and more
# than it had when listed in OVER_FOLDER.
crowded_folders() {
    find "${FOLDERS[@]}" -type d 2>/dev/null | sort | while read -r d; do
        n=$(find "$d" -maxdepth 1 -name '*.c' | wc -l)
        [ "$n" -le "${OVER_FOLDER[$d]:-$FOLDER_LIMIT}" ] || echo "$d $n"
    done
}

over_limit() {
    find "${FOLDERS[@]}" -name '*.[ch]' -print0 2>/dev/null | xargs -0 wc -l |
        awk -v l="$LIMIT" '$2 != "total" && $1 > l { print $2, $1 }' | sort
}

echo "folders:"
folder_figures
echo "struct ctl_inv: $(members ctl_inv controller/ctl.h | awk '{ print $1 " members, " $2 " bools" }')"
# its parts (struct ctl_inv_<part>), each counted on its own
for part in $(sed -n 's/^struct \(ctl_inv_[a-z]*\) {.*/\1/p' controller/ctl.h); do
    echo "  part $part: $(members "$part" controller/ctl.h | awk '{ print $1 " members, " $2 " bools" }')"
done
echo "struct ctl: $(members ctl controller/ctl.h | awk '{ print $1 " members, " $2 " bools" }')"
echo "module graph:"
graph_figures
echo "largest files:"
# (sed reads to the end: head would close the pipe under sort, and
# pipefail make the script exit 141)
find "${FOLDERS[@]}" -name '*.[ch]' -print0 | xargs -0 wc -l |
    grep -v ' total$' | sort -rn | sed -n '1,5s/^/  /p'

[ "$check" -eq 1 ] || exit 0
bad=0
while read -r f n; do
    was=${OVER_800[$f]:-}
    if [ -z "$was" ]; then
        echo "$f: $n lines, over the $LIMIT-line rule (split it)"
        bad=1
    elif [ "$n" -gt "$was" ]; then
        echo "$f: $n lines, grew past the $was it had when listed in hack/shape.sh (split it)"
        bad=1
    fi
done < <(over_limit)
read -r inv_members inv_bools < <(members ctl_inv controller/ctl.h)
if [ "$inv_members" -gt "$INV_MEMBERS" ] || [ "$inv_bools" -gt "$INV_BOOLS" ]; then
    echo "controller/ctl.h: struct ctl_inv has $inv_members members," \
        "$inv_bools bools, over $INV_MEMBERS and $INV_BOOLS (put the state" \
        "in the part of the module that owns it, struct ctl_inv_<part>)"
    bad=1
fi
while read -r d n; do
    echo "$d/: $n .c files, over the $FOLDER_LIMIT-file rule (split it into wings)"
    bad=1
done < <(crowded_folders)
[ "$bad" -eq 0 ] || exit 1
echo "shape: no file over $LIMIT lines but the ${#OVER_800[@]} listed, none grown;" \
    "struct ctl_inv within $INV_MEMBERS members and $INV_BOOLS bools;" \
    "no folder over $FOLDER_LIMIT .c files but the ${#OVER_FOLDER[@]} listed, none grown"
