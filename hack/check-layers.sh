#!/usr/bin/env bash
# check-layers.sh - fail when a source folder includes a header of, or
# links a library of, a layer above it (docs/architecture.md draws them).
#
#   hack/check-layers.sh [ROOT]     (default: this checkout)
#
# Each product folder may use only the folders listed for it in LAYERS.
# An include is resolved to the folder holding the header's file name
# (header names are unique across the tree: checked too); a link is a word
# of a target_link_libraries() call that names a library another folder
# defines. tests/ and hack/ may use every layer and are not checked.
# It also fails on an Engine API request path written outside docker/,
# and inside controller/ on a cycle between its modules: a module (ctl_X.c
# with its header ctl_X.h) includes only the headers of modules under it,
# so the include graph is the call graph, and it must sort. Every include
# counts, also one made through another header; ctl.h (the shared types
# every module includes) and the *_types.h headers declare no function
# and include only types-only headers.
# Prints one line per violation ("model/spec_json.c:7: includes
# controller/ctl.h: model may use common") and exits 1 if there is any.
set -euo pipefail

ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$ROOT"

# folder: the folders it may depend on (besides itself), lowest first.
declare -A LAYERS=(
    [common]=""
    [model]="common"
    [store]="common model"
    [docker]="common"
    [hostio]="common model docker"
    [plan]="common model"
    [proxy]="common"
    [images]=""
    [controller]="common model store docker hostio plan images"
    [cli]="common model store hostio"
)

bad=0
report() {
    echo "$*"
    bad=1
}

allowed() { # allowed FROM TO
    [ "$1" = "$2" ] && return 0
    local d
    for d in ${LAYERS[$1]}; do
        [ "$d" = "$2" ] && return 0
    done
    return 1
}

# Which folder each header lives in.
declare -A HEADER_DIR=()
for dir in "${!LAYERS[@]}"; do
    [ -d "$dir" ] || continue
    for h in $(find "$dir" -name '*.h' | sort); do
        name=${h##*/}
        if [ -n "${HEADER_DIR[$name]:-}" ]; then
            report "$h: header name also used in ${HEADER_DIR[$name]}/"
        fi
        HEADER_DIR[$name]=$dir
    done
done

# Includes.
for dir in "${!LAYERS[@]}"; do
    [ -d "$dir" ] || continue
    for f in $(find "$dir" -name '*.[ch]' | sort); do
        while IFS=: read -r line header; do
            to=${HEADER_DIR[$header]:-}
            [ -n "$to" ] || continue # system, generated or third-party
            allowed "$dir" "$to" ||
                report "$f:$line: includes $to/$header: $dir may use" \
                    "${LAYERS[$dir]:-nothing of ours}"
        done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
            sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/')
    done
done

# Which folder defines each library target.
cmake_files() { # cmake_files DIR: the CMake files of a folder
    find "$1" -maxdepth 1 \( -name CMakeLists.txt -o -name '*.cmake' \) | sort
}
declare -A TARGET_DIR=()
for dir in "${!LAYERS[@]}"; do
    [ -d "$dir" ] || continue
    while read -r t; do
        TARGET_DIR[$t]=$dir
    done < <(cmake_files "$dir" | xargs -r cat |
        sed -n 's/^[[:space:]]*add_library(\([A-Za-z0-9_-]*\).*/\1/p')
done

# link_words FILE CALL FIRST: the words after the first of every
# CALL(...) in a CMake file (a call may span lines) whose first word
# matches the regex FIRST: the libraries a target links, or the values of
# a set() list of libraries.
link_words() {
    awk -v call="$2(" -v first="$3" '
        index($0, call) { on = 1; line = "" }
        on { line = line " " $0 }
        on && /\)/ { on = 0; sub(/\).*/, "", line)
                     line = substr(line, index(line, call) + length(call))
                     n = split(line, w, /[ \t]+/); k = (w[1] == "") ? 2 : 1
                     if (w[k] ~ first)
                         for (i = k + 1; i <= n; i++) print w[i] }
    ' "$1"
}

# Links: every word of a target_link_libraries() call, and of a set() list
# of libraries (controller/daemon.cmake ctl_libs), that names one of ours.
for dir in "${!LAYERS[@]}"; do
    [ -d "$dir" ] || continue
    while read -r file; do
        while read -r word; do
            to=${TARGET_DIR[$word]:-}
            [ -n "$to" ] || continue
            allowed "$dir" "$to" ||
                report "$file: links $word ($to/): $dir may use" \
                    "${LAYERS[$dir]:-nothing of ours}"
        done < <(link_words "$file" target_link_libraries '.'
            link_words "$file" set 'libs$')
    done < <(cmake_files "$dir")
done

# Engine API paths are written in docker/ only (dk_engine.c): a string
# literal that starts one anywhere else is a call around the typed API.
for dir in "${!LAYERS[@]}"; do
    [ -d "$dir" ] && [ "$dir" != docker ] || continue
    while IFS= read -r hit; do
        report "$hit: an Engine API path outside docker/ (use dk_engine.h)"
    done < <(grep -rnE --include='*.[ch]' \
        '"/(containers|networks|volumes|images|events|_ping|version)([/?"]|$)' \
        "$dir" 2>/dev/null | cut -d: -f1,2)
done

# The controller's wings (docs/architecture.md): each subfolder of
# controller/ is one concern with its own prefix; the files directly in
# controller/ are the core (ctl.h's shared types, the test hooks, the
# attempt record). A wing may include the headers of the wings listed for
# it (lowest first), so the wings sort and no two call each other.
declare -A WINGS=(
    [core]=""
    [obs]="core"
    [inv]="core obs"
    [try]="core obs inv"
    [drift]="core obs inv try"
    [box]="core obs inv try drift"
    [out]="core obs inv try"
    [pass]="core obs inv try drift box out"
    [loop]="core obs inv try drift box out pass"
)

# ctl_includes FILE: the controller headers FILE includes.
ctl_includes() {
    local known
    known=$(find controller -name '*.h' -printf '%f\n')
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\.h\)".*/\1/p' "$1" |
        grep -xF -f <(echo "$known") || true
}

# ctl_edges: "<module> <module>" for every controller module and every
# module whose header it reaches, through headers that include headers
# (an umbrella header is expanded, however deep), so a module cannot hide
# an edge behind a header it includes. One pass over the includes. A
# module is X.c with its header X.h, in any wing; X_json.c, X_http.c,
# X_process.c and X_int.h belong to module X (obs_metrics_http.c). ctl.h
# and the *_types.h headers are types only (checked below), so they are
# leaves; so is the attempt record (model/ctl_record.h), which is below
# the controller.
ctl_edges() {
    find controller -name '*.[ch]' | sort | xargs grep -H \
        '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]*\.h"' | awk '
        FNR == NR { hdr[$0] = 1; next }
        function module(f,   m, b) {
            m = f; sub(/.*\//, "", m); sub(/\.[ch]$/, "", m)
            if (m ~ /_(json|int|http|process)$/) {
                b = m; sub(/_[a-z]+$/, "", b)
                if ((b ".h") in hdr) m = b
            }
            return m
        }
        {
            f = $0; sub(/:.*/, "", f); sub(/.*\//, "", f)
            h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
            if (!(h in hdr)) next
            inc[f] = inc[f] " " h; files[f] = 1
        }
        END {
            for (f in files) {
                delete seen; n = split(inc[f], todo, " "); i = 1
                while (i <= n) {
                    h = todo[i++]
                    if (h == "" || (h in seen)) continue
                    seen[h] = 1
                    if (module(h) != module(f)) print module(f), module(h)
                    if (h in files) { k = split(inc[h], more, " ")
                        for (j = 1; j <= k; j++) todo[++n] = more[j] }
                }
            }
        }' <(find controller -name '*.h' -printf '%f\n') - | sort -u
}

# wing_of_module MODULE: the wing its header (or file) lives in.
wing_of_module() {
    local p
    p=$(find controller \( -name "$1.h" -o -name "$1.c" \) -print -quit)
    p=${p#controller/}
    case $p in
    */*) echo "${p%%/*}" ;;
    *) echo core ;;
    esac
}

# file_scope_functions HEADER: the line numbers of function declarations
# or definitions at file scope, however written (one line, or the type on
# the line before as STYLE.md has it, static inline too): a line at file
# scope (not indented, not inside a struct, enum or union body, not a
# typedef, a preprocessor line or a comment) with a '(' in it.
file_scope_functions() {
    awk '
        { line = $0 }
        incomment { if (sub(/.*\*\//, "", line)) incomment = 0; else next }
        { gsub(/\/\*.*\*\//, "", line)
          if (sub(/\/\*.*/, "", line)) incomment = 1 }
        line ~ /^[ \t]/ || line ~ /^#/ || line == "" { next }
        line ~ /^(struct|enum|union)[^;(]*\{/ { body = 1 }
        body { if (line ~ /^}/) body = 0; next }
        line ~ /^typedef/ { next }
        line ~ /\(/ { print NR }
    ' "$1"
}

if [ -d controller ]; then
    edges=$(ctl_edges)
    if ! loop=$(tsort <<<"$edges" 2>&1 >/dev/null) || [ -n "$loop" ]; then
        report "controller/: modules call each other in a cycle:" \
            $(awk '/input contains a loop/ { n++; next } n == 1' <<<"$loop" |
                sed 's/^tsort: //')
    fi
    for d in controller/*/; do
        [ -d "$d" ] || continue
        d=${d%/}
        [ -n "${WINGS[${d#controller/}]+set}" ] ||
            report "$d/: a wing hack/check-layers.sh does not know (add it to WINGS)"
    done
    declare -A MODULE_WING=()
    for m in $(tr ' ' '\n' <<<"$edges" | sort -u); do
        MODULE_WING[$m]=$(wing_of_module "$m")
    done
    wing_edges=""
    while read -r from to; do
        [ -n "$from" ] || continue
        wf=${MODULE_WING[$from]} wt=${MODULE_WING[$to]}
        [ "$wf" != "$wt" ] || continue
        wing_edges+="$wf $wt"$'\n'
        [ -n "${WINGS[$wf]+set}" ] || continue
        [[ " ${WINGS[$wf]} " == *" $wt "* ]] ||
            report "controller/$wf/: $from includes $to's header ($wt):" \
                "wing $wf may use ${WINGS[$wf]:-no other wing}"
    done <<<"$edges"
    if ! loop=$(sort -u <<<"$wing_edges" | tsort 2>&1 >/dev/null) || [ -n "$loop" ]; then
        report "controller/: wings call each other in a cycle:" \
            $(awk '/input contains a loop/ { n++; next } n == 1' <<<"$loop" |
                sed 's/^tsort: //')
    fi
    for h in controller/ctl.h $(find controller -name '*_types.h' | sort) model/*_types.h; do
        [ -e "$h" ] || continue
        while IFS= read -r hit; do
            report "$h:$hit: a function declared in a types-only header" \
                "(declare it in its module's header)"
        done < <(file_scope_functions "$h")
        for inc in $(ctl_includes "$h"); do
            case $inc in
            *_types.h) ;;
            *) report "$h: includes $inc: a types-only header includes only" \
                "other types-only headers" ;;
            esac
        done
    done
fi

if [ "$bad" -ne 0 ]; then
    echo "check-layers: upward dependencies found (docs/architecture.md)" >&2
    exit 1
fi
echo "check-layers: ${#HEADER_DIR[@]} headers, ${#TARGET_DIR[@]} libraries, every dependency points down"
