#!/usr/bin/env bash
# test_get_pool.sh - agentctl get pool against pool documents written by
# hand into a directory store's state dir (<state>/pool/<controller-id>.json,
# as the controller will write them): the table (one row per box, sorted
# by name across documents, AGE from createdAt), -o wide, --no-headers,
# -o json|yaml|jsonpath, the empty cases, a broken document (named on
# stderr, the others still printed, exit 1), an invocation called "pool"
# (reached as `get agentinvocation pool`), usage errors and completion.
# No Docker.
source "$(dirname "$0")/../lib.sh"
command -v jq >/dev/null || skip "jq not installed"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
P=$S/.agentctl/pool # the directory store's default state dir
mkdir -p "$S"
ctl() { "$A" --specs "$S" "$@"; }
# run CMD...: stdout in $out, stderr in $err, exit status in $rc
run() {
    rc=0
    "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
    out=$(cat "$TEST_TMP/out")
    err=$(cat "$TEST_TMP/err")
}
ago() { date -u -d "-$1" +%Y-%m-%dT%H:%M:%SZ; }
# box NAME VENDOR STATE SUBNET CREATED: one box object (CREATED "" = none)
box() {
    printf '{"name":"%s","vendor":"%s","state":"%s","subnet":"%s",' "$1" "$2" "$3" "$4"
    [ -z "$5" ] || printf '"createdAt":"%s",' "$5"
    printf '"network":"net-%s","proxy":"px-%s"}' "$1" "$1"
}
# pool ID BOX...: write pool/ID.json atomically, as the store does
pool() {
    local id=$1 boxes
    shift
    boxes=$(IFS=,; echo "$*")
    printf '{"controller":"%s","updatedAt":"%s","boxes":[%s]}\n' \
        "$id" "$(ago '0 seconds')" "$boxes" >"$P/.$id.tmp"
    mv "$P/.$id.tmp" "$P/$id.json"
}
spec() {
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n'
    printf 'metadata:\n  name: %s\nspec:\n  vendor: fake\n  phase: execute\n' "$1"
    printf '  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent]\n'
    printf '  deadlineSeconds: 60\n'
}

# --- no pool document: what get prints for no resources, exit 0
run ctl get pool
check_eq "empty: exit 0" 0 "$rc"
check_eq "empty: No resources found (stderr)" "No resources found" "$err"
check_eq "empty: nothing on stdout" "" "$out"
check "a reader (get) creates no pool directory" test ! -e "$P"
mkdir -p "$P" # as the controller makes it
run ctl get pool -o json
check_eq "empty json: exit 0" 0 "$rc"
check_eq "empty json: an empty List" "List 0" "$(jq -r '"\(.kind) \(.items | length)"' <<<"$out")"

# --- a controller whose pool has no box yet
pool agentctl-0
run ctl get pool
check_eq "no box: exit 0" 0 "$rc"
check_eq "no box: No resources found" "No resources found" "$err"

# --- two controllers: agentctl-1 with two boxes (written out of order),
# Node.B_2 (a controller ID with capitals, '.' and '_') with one
pool agentctl-1 \
    "$(box agentctl-pool.fake-2b2b2b2b fake Building 10.213.6.0/24 "$(ago '3 days')")" \
    "$(box agentctl-pool.claude-1a1a1a1a claude Ready 10.213.5.0/24 "$(ago '5 minutes')")"
pool Node.B_2 "$(box agentctl-pool.fake-0c0c0c0c fake Ready 10.213.7.0/24 '')"
run ctl get pool
check_eq "table: exit 0" 0 "$rc"
check_eq "table: nothing on stderr" "" "$err"
check_match "table: header" "^NAME +VENDOR +STATE +SUBNET +AGE$" "$(head -1 <<<"$out")"
check_eq "table: a row per box (header + 3)" 4 "$(wc -l <<<"$out")"
check_eq "table: rows sorted by name across documents" \
    "agentctl-pool.claude-1a1a1a1a agentctl-pool.fake-0c0c0c0c agentctl-pool.fake-2b2b2b2b" \
    "$(tail -n +2 <<<"$out" | awk '{print $1}' | xargs)"
check_match "table: columns and AGE in minutes" \
    $'\nagentctl-pool.claude-1a1a1a1a +claude +Ready +10.213.5.0/24 +[56]m\n' "$out"
check_match "table: AGE in days" \
    $'\nagentctl-pool.fake-2b2b2b2b +fake +Building +10.213.6.0/24 +3d$' "$out"
check_match "table: no createdAt is <unknown>" \
    $'\nagentctl-pool.fake-0c0c0c0c +fake +Ready +10.213.7.0/24 +<unknown>\n' "$out"
check "table: no CONTROLLER without -o wide" eval '! grep -q CONTROLLER <<<"$out"'
# negative control: the document with two boxes shows exactly two rows
run ctl get pool -o wide
check_match "wide: CONTROLLER column" "^NAME +VENDOR +STATE +SUBNET +AGE +CONTROLLER$" "$(head -1 <<<"$out")"
check_eq "wide: agentctl-1's two boxes are two rows" 2 "$(grep -c ' agentctl-1$' <<<"$out")"
check_eq "wide: Node.B_2's one box is one row" 1 "$(grep -c ' Node.B_2$' <<<"$out")"
run ctl get pool --no-headers
check_eq "--no-headers: rows only" 3 "$(wc -l <<<"$out")"
check_match "--no-headers: the first row is a box" "^agentctl-pool.claude-1a1a1a1a " "$out"

# --- the documents as a List
run ctl get pool -o json
check_eq "json: exit 0" 0 "$rc"
check_eq "json: a List" "v1 List" "$(jq -r '"\(.apiVersion) \(.kind)"' <<<"$out")"
check_eq "json: every document, in name order" "Node.B_2 agentctl-0 agentctl-1" \
    "$(jq -r '[.items[].controller] | join(" ")' <<<"$out")"
check_eq "json: the boxes as written" 3 "$(jq '[.items[].boxes[]] | length' <<<"$out")"
check_eq "json: a box's ids" "net-agentctl-pool.fake-0c0c0c0c px-agentctl-pool.fake-0c0c0c0c" \
    "$(jq -r '.items[0].boxes[0] | "\(.network) \(.proxy)"' <<<"$out")"
run ctl get pool -o yaml
check_match "yaml: a List" $'^apiVersion: v1\nkind: List\nitems:\n' "$out"
run ctl get pool -o 'jsonpath={.items[*].boxes[*].state}'
check_eq "jsonpath over the List (documents and boxes as stored)" "Ready Building Ready" "$out"

# --- an invocation called pool: get pool stays the pool
spec pool | ctl apply -f - >/dev/null
run ctl get pool
check_match "with an invocation called pool: get pool is the pool" \
    "^NAME +VENDOR +STATE +SUBNET +AGE$" "$(head -1 <<<"$out")"
check "control: no invocation row in get pool" eval '! grep -q Pending <<<"$out"'
run ctl get agentinvocation pool
check_eq "get agentinvocation pool: exit 0" 0 "$rc"
check_match "get agentinvocation pool: the invocation" \
    $'^NAME +PHASE +ATTEMPT +STOP +AGE\npool +Pending ' "$out"
run ctl get ai pool -o json
check_eq "get ai pool -o json: the one resource" "AgentInvocation pool" \
    "$(jq -r '"\(.kind) \(.metadata.name)"' <<<"$out")"
run ctl get
check_match "get lists the invocation called pool" $'\npool +Pending ' "$out"

# --- usage errors
for args in "pool web" "pool -l a=b" "pool -w" "pool -o name" "pool --show-labels"; do
    run ctl get $args
    check_eq "get $args: usage (2)" 2 "$rc"
done
check_match "names the way to an invocation" "agentctl get agentinvocation web" \
    "$(ctl get pool web 2>&1 || true)"

# --- a broken document: named on stderr, the others printed, exit 1
# (each kind alone, so either one must fail the command by itself)
printf '{"controller":"broken-1","boxes":[' >"$P/broken-1.json"
run ctl get pool
check_eq "not JSON: exit 1" 1 "$rc"
check_eq "not JSON: named on stderr" \
    'error: pool document "broken-1": not a JSON object' "$err"
check_eq "not JSON: the other boxes still printed" 3 "$(tail -n +2 <<<"$out" | wc -l)"
run ctl get pool -o json
check_eq "not JSON, -o json: exit 1" 1 "$rc"
check_eq "not JSON, -o json: stdout is still one List of the good ones" \
    "Node.B_2 agentctl-0 agentctl-1" "$(jq -r '[.items[].controller] | join(" ")' <<<"$out")"
mv "$P/broken-1.json" "$P/.broken-1.hidden" # a dot-file is no document
printf '{"controller":"broken-2","boxes":{"name":"x"}}' >"$P/broken-2.json"
run ctl get pool
check_eq "boxes no list: exit 1" 1 "$rc"
check_eq "boxes no list: named on stderr" \
    'error: pool document "broken-2": boxes is not an array' "$err"
check_eq "boxes no list: the other boxes still printed" 3 "$(tail -n +2 <<<"$out" | wc -l)"
check "boxes no list: nothing of it on stdout" eval '! grep -q broken <<<"$out"'
rm "$P/broken-2.json"
run ctl get pool
check_eq "control: without the broken documents, exit 0" 0 "$rc"
check_eq "control: and nothing on stderr" "" "$err"
rm "$P/.broken-1.hidden"

# --- the boxes gone: no resources again
pool agentctl-1
pool Node.B_2
run ctl get pool
check_eq "emptied: exit 0" 0 "$rc"
check_eq "emptied: No resources found" "No resources found" "$err"

# --- completion offers pool after get (the type, not a name: the
# invocation called pool is gone first)
ctl delete pool >/dev/null
"$A" completion bash >"$TEST_TMP/comp.bash"
complete_line() { # WORDS... : what bash would offer for the last word
    bash -c 'source "$1"; shift; PATH=$(dirname "$AGENTCTL_BIN"):$PATH
             COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _agentctl
             printf "%s\n" "${COMPREPLY[@]}"' _ "$TEST_TMP/comp.bash" "$@"
}
export AGENTCTL_BIN=$A
check_eq "completion: get po -> pool" "pool" "$(complete_line agentctl --specs "$S" get po)"
check_eq "control: describe po offers nothing (no such invocation)" "" \
    "$(complete_line agentctl --specs "$S" describe po)"
check_eq "completion: get a -> agentinvocation" "agentinvocation" \
    "$(complete_line agentctl --specs "$S" get a)"
