#!/usr/bin/env bash
# test_apply.sh - agentctl apply against a specs directory: created /
# configured / unchanged lines, atomic writes (no temp files left), all-or-
# nothing on invalid input, names held by hand-dropped files, --dry-run and
# -o name|json|yaml.
source "$(dirname "$0")/../lib.sh"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
IN=$TEST_TMP/in
mkdir -p "$S" "$IN"
ctl() { "$A" --specs "$S" "$@"; }

spec() { # spec NAME DEADLINE
    cat <<YAML
apiVersion: agentctl.dev/v1alpha1
kind: AgentInvocation
metadata:
  name: $1
spec:
  vendor: fake
  phase: execute
  image: agentctl/demo-agent:0.1.0
  command: [demo-agent]
  deadlineSeconds: $2
YAML
}

rc=0
"$A" validate -f "$ROOT/manifests/examples" >/dev/null || rc=$?
check_eq "manifests/examples validate" 0 "$rc"

spec web 60 >"$IN/web.yaml"
{ spec api 30; echo '---'; spec db 30; } >"$IN/two.yaml"
out=$(ctl apply -f "$IN")
check_eq "created lines" "agentinvocation.agentctl.dev/api created
agentinvocation.agentctl.dev/db created
agentinvocation.agentctl.dev/web created" "$out"
check "each invocation has its own file" test -f "$S/api.yaml" -a -f "$S/db.yaml" -a -f "$S/web.yaml"
check_eq "no temp files left" "" "$(find "$S" -maxdepth 1 -name '.*tmp*')"
check "written file validates" "$A" validate -f "$S/web.yaml"

out=$(ctl apply -f "$IN/web.yaml")
check_eq "unchanged" "agentinvocation.agentctl.dev/web unchanged" "$out"
# same meaning, other spelling: still unchanged
{ spec web 60; echo "  attempt: \"1\""; echo "  cancel: false"; } >"$IN/web.yaml"
out=$(ctl apply -f "$IN/web.yaml")
check_eq "defaults spelled out: unchanged" "agentinvocation.agentctl.dev/web unchanged" "$out"
spec web 90 >"$IN/web.yaml"
out=$(ctl apply -f "$IN/web.yaml")
check_eq "configured" "agentinvocation.agentctl.dev/web configured" "$out"
check "new deadline on disk" grep -q 'deadlineSeconds: 90' "$S/web.yaml"
# labels count as a change
{ spec web 90 | sed 's/^  name: web/  name: web\n  labels: {team: a}/'; } >"$IN/web.yaml"
check_eq "label change: configured" "agentinvocation.agentctl.dev/web configured" "$(ctl apply -f "$IN/web.yaml")"
check_match "generation counts spec changes only" '"generation": *2' "$(ctl get web -o json)"

# One invalid document anywhere: nothing is written.
before=$(cat "$S"/*.yaml | sha256sum)
{ spec web 120; echo '---'; spec new 5 | sed 's/deadlineSeconds: 5/deadlineSeconds: 0/'; } >"$TEST_TMP/bad.yaml"
rc=0
out=$(ctl apply -f "$TEST_TMP/bad.yaml" 2>&1) || rc=$?
check_eq "invalid input: exit 1" 1 "$rc"
check_match "error names file:line:col" "bad.yaml:[0-9]+:[0-9]+: spec.deadlineSeconds" "$out"
check_eq "invalid input: nothing written" "$before" "$(cat "$S"/*.yaml | sha256sum)"
check "invalid input: no new file" test ! -e "$S/new.yaml"

# A name held by a hand-dropped file elsewhere: refused, nothing written.
spec held 10 >"$S/hand.yaml"
spec held 20 >"$IN/held.yaml"
rc=0
out=$(ctl apply -f "$IN/held.yaml" 2>&1) || rc=$?
check_eq "name in another file: exit 1" 1 "$rc"
check_match "says where" "already defined in .*hand.yaml" "$out"
check "no held.yaml written" test ! -e "$S/held.yaml"
check "hand file untouched" grep -q 'deadlineSeconds: 10' "$S/hand.yaml"
rm "$S/hand.yaml"

# <name>.yaml written by hand with another invocation in it: refused.
spec other 10 >"$S/taken.yaml"
spec taken 20 >"$IN/taken.yaml"
rc=0
out=$(ctl apply -f "$IN/taken.yaml" 2>&1) || rc=$?
check_eq "file holding another name: exit 1" 1 "$rc"
check_match "says which file holds what" 'taken.yaml already holds another invocation \("other"\)' "$out"
check "that file untouched" grep -q 'name: other' "$S/taken.yaml"
rm "$S/taken.yaml" "$IN/taken.yaml"

# One name in two input files: refused, both places named, nothing written.
mkdir -p "$TEST_TMP/dup"
spec twice 10 >"$TEST_TMP/dup/a.yaml"
{ spec once 10; echo '---'; spec twice 20; } >"$TEST_TMP/dup/b.yaml"
rc=0
out=$(ctl apply -f "$TEST_TMP/dup" 2>&1) || rc=$?
check_eq "a name twice in the input: exit 1" 1 "$rc"
check_match "names the later place and the earlier" \
    'dup/b.yaml:[0-9]+:1: metadata.name: duplicate name "twice" \(also in .*dup/a.yaml:[0-9]+\)' "$out"
check "a name twice: nothing written" test ! -e "$S/once.yaml" -a ! -e "$S/twice.yaml"

# --dry-run writes nothing
spec dry 10 >"$IN/dry.yaml"
out=$(ctl apply --dry-run -f "$IN/dry.yaml")
check_eq "dry run line" "agentinvocation.agentctl.dev/dry created (dry run)" "$out"
check "dry run wrote nothing" test ! -e "$S/dry.yaml"

# -o name | json | yaml
check_eq "-o name" "agentinvocation.agentctl.dev/dry" "$(ctl apply -f "$IN/dry.yaml" -o name)"
out=$(ctl apply -f "$IN/dry.yaml" -o json)
check_match "-o json has uid" '"uid": *"[0-9a-f-]{36}"' "$out"
out=$(ctl apply -f "$IN/dry.yaml" -o yaml)
check_match "-o yaml" "kind: AgentInvocation" "$out"
rc=0
ctl apply -f "$IN/dry.yaml" -o table >/dev/null 2>&1 || rc=$?
check_eq "-o table is a usage error" 2 "$rc"
rc=0
ctl apply >/dev/null 2>&1 || rc=$?
check_eq "apply without -f: usage" 2 "$rc"

# stdin
out=$(spec stdin 10 | ctl apply -f -)
check_eq "apply -f -" "agentinvocation.agentctl.dev/stdin created" "$out"

# A directory is read whole or not at all: 300 files are 300 (the old
# 256-entry listing kept 256 and applied them without a word), and a
# directory that cannot be listed is an error that applies nothing.
mkdir -p "$IN/many"
for i in $(seq 1 300); do spec "many$i" 10 >"$IN/many/many$i.yaml"; done
out=$(ctl apply -f "$IN/many" | grep -c ' created$')
check_eq "a directory of 300 files: 300 created" 300 "$out"
check_eq "all 300 in the store" 300 "$(find "$S" -maxdepth 1 -name 'many*.yaml' | wc -l)"
mkdir -p "$IN/locked" && spec locked 10 >"$IN/locked/locked.yaml"
chmod 0300 "$IN/locked" # listing refused (root reads anyway: run as nobody)
chmod 0755 "$TEST_TMP" "$IN"
rc=0
out=$(su nobody -s /bin/sh -c "'$A' validate -f '$IN/locked'" 2>&1) || rc=$?
check_eq "an unreadable directory: validate fails" 1 "$rc"
check_match "... and says which and why" \
    "^error: .*/locked: cannot read the directory: Permission denied \(nothing was read\)$" "$out"
