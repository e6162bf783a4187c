#!/usr/bin/env bash
# test_kubectl_habits.sh - agentctl behaves as a kubectl user expects: one
# argument parser for every command (flags after the arguments, --,
# --x=v), get -o name|jsonpath|custom-columns, -l, --show-labels,
# --no-headers, -w, several names, delete NAME... | -f | -l | --all,
# apply -R and .json files, --prune refused without -l or --all,
# completion generated from the command table, explain from the CRD,
# --version, TYPE/NAME arguments (get -o name's form) for every verb,
# jsonpath filters and named syntax errors. Negative controls: a prune
# without --all deletes nothing; a
# flag no command has is refused; completion of a command that does not
# exist offers nothing.
source "$(dirname "$0")/../lib.sh"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
IN=$TEST_TMP/in
mkdir -p "$S" "$IN/team-web/nested"
ctl() { "$A" --specs "$S" "$@"; }
spec() { # NAME LABELS
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n'
    printf 'metadata:\n  name: %s\n  labels: %s\nspec:\n  vendor: fake\n  phase: execute\n' "$1" "$2"
    printf '  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent]\n'
    printf '  deadlineSeconds: 60\n'
}
spec web '{team: web, tier: front}' >"$IN/team-web/web.yaml"
spec api '{team: web}' >"$IN/team-web/nested/api.yaml"
spec ops '{team: ops}' >"$IN/ops.yaml"

# apply -R reads subdirectories; without -R only the directory itself
out=$(ctl apply -f "$IN")
check_eq "apply -f DIR: only its own files" "agentinvocation.agentctl.dev/ops created" "$out"
out=$(ctl apply -R -f "$IN")
check_match "apply -R: nested files too" "api created" "$out"
check_match "apply -R: and the first level" "web created" "$out"
# .json files in a directory are read (once silently skipped)
ctl get ops -o json >"$TEST_TMP/ops.json"
mkdir -p "$TEST_TMP/json" && cp "$TEST_TMP/ops.json" "$TEST_TMP/json/"
out=$("$A" validate "$TEST_TMP/json")
check_eq "a .json file in a directory is validated" "1 file(s), 1 document(s): valid" "$out"

# flags anywhere, --, and the global flags after the command
check_eq "flags after the arguments" "agentinvocation.agentctl.dev/web" "$("$A" get web -o name --specs "$S")"
check_eq "-oname glued" "agentinvocation.agentctl.dev/web" "$(ctl get -oname web)"
check_eq "--output=name" "agentinvocation.agentctl.dev/web" "$(ctl get --output=name web)"
check_eq "-- ends the flags" "agentinvocation.agentctl.dev/web" "$(ctl get -o name -- web)"
rc=0; out=$(ctl get --colour 2>&1) || rc=$?
check_eq "control: an unknown flag is a usage error" 2 "$rc"
check_match "control: kubectl's message" "unknown flag: --colour" "$out"

# several names, -o name, jsonpath, custom-columns
check_eq "get NAME NAME -o name, in the order named" \
    "$(printf 'agentinvocation.agentctl.dev/web\nagentinvocation.agentctl.dev/api')" \
    "$(ctl get web api -o name)"
rc=0; out=$(ctl get web nope -o name 2>&1) || rc=$?
check_eq "a missing name among several: exit 1" 1 "$rc"
check_match "the others are still printed" "agentinvocation.agentctl.dev/web" "$out"
check_match "the missing one is NotFound" 'agentinvocations.agentctl.dev "nope" not found' "$out"
check_eq "jsonpath on one" "web" "$(ctl get web -o jsonpath='{.metadata.name}')"
check_eq "jsonpath range over the List" "$(printf 'api=web\nops=ops\nweb=web')" \
    "$(ctl get -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.labels.team}{"\n"}{end}')"
out=$(ctl get -o custom-columns='NAME:.metadata.name,CPUS:.spec.resources.cpus,TIER:.metadata.labels.tier')
check_eq "custom-columns header" "NAME   CPUS   TIER" "$(head -n 1 <<<"$out")"
check_match "custom-columns <none> where nothing is found" "^api +1 +<none>$" "$(sed -n 2p <<<"$out")"
rc=0; ctl get -o jsonpath='{.a' >/dev/null 2>&1 || rc=$?
check_eq "a broken template: usage" 2 "$rc"
rc=0; ctl get -o table >/dev/null 2>&1 || rc=$?
check_eq "an unknown -o: usage" 2 "$rc"

# -l, --show-labels, --no-headers
check_eq "-l team=web" "$(printf 'agentinvocation.agentctl.dev/api\nagentinvocation.agentctl.dev/web')" \
    "$(ctl get -l team=web -o name)"
check_eq "-l 'team in (ops),!tier'" "agentinvocation.agentctl.dev/ops" "$(ctl get -l 'team in (ops),!tier' -o name)"
check_eq "-l matching nothing" "No resources found" "$(ctl get -l team=none 2>&1)"
rc=0; ctl get -l 'a b' >/dev/null 2>&1 || rc=$?
check_eq "a bad selector: usage" 2 "$rc"
out=$(ctl get --show-labels)
check_match "--show-labels adds LABELS" "LABELS$" "$(head -n 1 <<<"$out")"
check_match "--show-labels lists k=v" "team=web,tier=front$" "$(grep '^web' <<<"$out")"
out=$(ctl get --no-headers)
check_eq "--no-headers: only rows" 3 "$(wc -l <<<"$out")"
check "--no-headers: no NAME header" bash -c '! grep -q "^NAME" <<<"$1"' _ "$out"

# -w: a row each time an invocation changes
ctl get -w ops --no-headers >"$TEST_TMP/watch.out" 2>&1 &
watcher=$!
on_cleanup "kill $watcher 2>/dev/null || true"
for _ in $(seq 100); do [ -s "$TEST_TMP/watch.out" ] && break; sleep 0.1; done
mkdir -p "$S/.agentctl/status"
printf '{"phase":"Running"}' >"$S/.agentctl/status/ops.json"
for _ in $(seq 100); do grep -q Running "$TEST_TMP/watch.out" && break; sleep 0.1; done
kill "$watcher"
wait "$watcher" || true
check_match "-w: first the current row" "^ops +Pending" "$(head -n 1 "$TEST_TMP/watch.out")"
check_match "-w: then the change" "^ops +Running" "$(sed -n 2p "$TEST_TMP/watch.out")"
# no controller runs here to clean up after a delete: the hand-made status
# goes, or ops would stay Terminating (test_terminating.sh)
rm "$S/.agentctl/status/ops.json"

# prune needs -l or --all, as in kubectl
rm "$IN/team-web/nested/api.yaml"
rc=0; out=$(ctl apply -R -f "$IN" --prune 2>&1) || rc=$?
check_eq "--prune alone: usage" 2 "$rc"
check_match "--prune alone: kubectl's reason" "without explicitly passing --all" "$out"
check "control: nothing was pruned" test -e "$S/api.yaml"
out=$(ctl apply -R -f "$IN" --prune -l team=ops)
check "--prune -l team=ops leaves api (team=web)" test -e "$S/api.yaml"
out=$(ctl apply -R -f "$IN" --prune --all)
check_match "--prune --all prunes api" "api pruned" "$out"

# delete: names, -f, -l, --all
spec a1 '{team: x}' | ctl apply -f - >/dev/null
spec a2 '{team: x}' | ctl apply -f - >/dev/null
out=$(ctl delete a1 a2)
check_eq "delete NAME NAME" "$(printf 'agentinvocation.agentctl.dev "a1" deleted\nagentinvocation.agentctl.dev "a2" deleted')" "$out"
out=$(ctl delete -f "$IN/ops.yaml")
check_eq "delete -f" 'agentinvocation.agentctl.dev "ops" deleted' "$out"
rc=0; ctl delete ops >/dev/null 2>&1 || rc=$?
check_eq "delete of a missing name: 1" 1 "$rc"
rc=0; ctl delete ops --ignore-not-found >/dev/null 2>&1 || rc=$?
check_eq "--ignore-not-found: 0" 0 "$rc"
out=$(ctl delete -l tier=front)
check_eq "delete -l" 'agentinvocation.agentctl.dev "web" deleted' "$out"
spec b1 '{}' | ctl apply -f - >/dev/null
rc=0; ctl delete >/dev/null 2>&1 || rc=$?
check_eq "delete with nothing named: usage" 2 "$rc"
out=$(ctl delete --all)
check_eq "delete --all" 'agentinvocation.agentctl.dev "b1" deleted' "$out"

# completion, generated from the command table
"$A" completion bash >"$TEST_TMP/comp.bash"
check "completion bash parses" bash -n "$TEST_TMP/comp.bash"
"$A" completion zsh >"$TEST_TMP/comp.zsh"
check_match "completion zsh uses bashcompinit" "bashcompinit" "$(cat "$TEST_TMP/comp.zsh")"
spec web '{team: web}' | ctl apply -f - >/dev/null
complete_line() { # WORDS... : print what bash would offer for the last word
    bash -c 'source "$1"; shift; PATH=$(dirname "$AGENTCTL_BIN"):$PATH
             COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _agentctl
             printf "%s\n" "${COMPREPLY[@]}"' _ "$TEST_TMP/comp.bash" "$@"
}
export AGENTCTL_BIN=$A
offers() { grep -qx -- "$1" <<<"$2"; }
check "completes commands" offers wait "$(complete_line agentctl wa)"
check "completes a command's flags" offers --show-labels "$(complete_line agentctl get --sh)"
check "completes -o values" offers jsonpath= "$(complete_line agentctl get -o js)"
check "completes invocation names from the store" offers web \
    "$(complete_line agentctl --specs "$S" describe w)"
check_eq "control: an unknown command completes nothing" "" "$(complete_line agentctl frob --sh)"
for c in validate apply diff get describe delete cancel logs wait explain completion version; do
    out=$("$A" $c --help)
    check_match "$c --help lists its flags from the table" "Global options:" "$out"
done
# agentctl help [COMMAND] (issue 38); a command's help names the global
# options in one line instead of repeating their table
out=$("$A" help)
check_match "help lists the commands" "Commands:.*  wait " "$(tr '\n' ' ' <<<"$out")"
check_match "help lists the global options" "--etcd-cacert FILE" "$out"
check_eq "help get is get --help" "$("$A" get --help)" "$("$A" help get)"
check "get --help does not repeat the global options' table" \
    bash -c '! "$1" get --help | grep -q -- --etcd-cacert' _ "$A"
rc=0; "$A" help frob >/dev/null 2>&1 || rc=$?
check_eq "help of an unknown command: usage, 2" 2 "$rc"

# explain and --version
out=$("$A" explain agentinvocation.spec.resources.cpus)
check_match "explain: the field and type" "FIELD: cpus <int-or-string>" "$out"
check_match "explain: the description from the CRD" 'CPUs, e.g. "1.5" or "500m"' "$out"
check_match "explain: the CEL rule's message" "rule: must be at least 10m \(0.01\) and at most 256" "$out"
check_match "explain spec: required children" "vendor	<string> -required-" "$("$A" explain spec)"
rc=0; "$A" explain spec.nope >/dev/null 2>&1 || rc=$?
check_eq "explain of a missing field: 1" 1 "$rc"
check_eq "--version" "agentctl version 0.1.0" "$("$A" --version)"

# TYPE/NAME, as get -o name prints it, is taken by every verb that takes a
# name (once NotFound everywhere: `get -o name | xargs agentctl delete`
# failed, and `wait TYPE/NAME --for=delete` passed at once)
name=$(ctl get web -o name)
check_eq "describe TYPE/NAME" "Name:                   web" "$(ctl describe "$name" | head -n1)"
check_eq "get ai/NAME" "web" "$(ctl get ai/web -o jsonpath='{.metadata.name}')"
check_eq "get agentinvocations/NAME" "web" "$(ctl get agentinvocations/web -o jsonpath='{.metadata.name}')"
rc=0; ctl wait "$name" --for=delete --timeout=300ms >/dev/null 2>&1 || rc=$?
check_eq "wait TYPE/NAME --for=delete waits while it exists (times out)" 1 "$rc"
rc=0; out=$(ctl get pods/web 2>&1) || rc=$?
check_eq "another type: exit 1" 1 "$rc"
check_match "it names the type" 'agentctl has no resource type "pods"' "$out"
rc=0; out=$(ctl get ai/ 2>&1) || rc=$?
check_eq "TYPE/ without a name: usage" 2 "$rc"
spec gone '{team: gone}' | ctl apply -f - >/dev/null
spec front '{team: kept, tier: front}' | ctl apply -f - >/dev/null
ctl get -o name -l team=gone | xargs "$A" --specs "$S" delete >/dev/null
rc=0; ctl get gone >/dev/null 2>&1 || rc=$?
check_eq "get -o name | xargs delete deleted it" 1 "$rc"
check_eq "control: the others are still there" "front web" "$(ctl get -o jsonpath='{.items[*].metadata.name}')"

# jsonpath filters, and syntax errors named as kubectl names them
check_eq "jsonpath filter ==" "front" \
    "$(ctl get -o jsonpath='{.items[?(@.metadata.labels.tier=="front")].metadata.name}')"
check_eq "jsonpath filter, existence" "front" \
    "$(ctl get -o jsonpath='{.items[?(@.metadata.labels.tier)].metadata.name}')"
check_eq "control: a filter nothing passes prints nothing" "" \
    "$(ctl get -o jsonpath='{.items[?(@.metadata.labels.tier=="back")].metadata.name}')"
rc=0; out=$(ctl get -o 'jsonpath={.metadata.name' 2>&1) || rc=$?
check_eq "jsonpath syntax error: usage" 2 "$rc"
check_match "it is named as kubectl names it" 'error parsing jsonpath \{\.metadata\.name: unclosed action' "$out"
rc=0; out=$(ctl get -o 'jsonpath={.items[?(@.x=)]}' 2>&1) || rc=$?
check_match "a malformed filter is named" 'malformed filter "\?\(@\.x=\)"' "$out"
