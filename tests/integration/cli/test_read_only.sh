#!/usr/bin/env bash
# test_read_only.sh - the reading commands (get, get pool, get -w,
# describe, logs, wait, changes, diff) need no write access: run as
# nobody against a specs and state directory nobody may only read, and
# against a specs directory with no state directory at all (nothing is
# created). Negative controls: apply as nobody still fails (a writer
# needs write access), and apply as root creates the state directory.
source "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root to run agentctl as nobody"
command -v setpriv >/dev/null || skip "setpriv (util-linux) missing"
A=$BUILD/cli/agentctl
chmod 755 "$TEST_TMP" # mktemp's 0700 would keep nobody out of everything
S=$TEST_TMP/specs
BARE=$TEST_TMP/bare # a hand-written spec, no state directory yet
mkdir -p "$S" "$BARE"
spec() {
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\nmetadata:\n  name: %s\n' "$1"
    printf 'spec:\n  vendor: fake\n  phase: execute\n  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent]\n  deadlineSeconds: 60\n'
}
spec web >"$TEST_TMP/web.yaml"
spec bare >"$BARE/bare.yaml"
"$A" --specs "$S" apply -f "$TEST_TMP/web.yaml" >/dev/null
printf '{"phase":"Succeeded","attempt":"a1"}' >"$S/.agentctl/status/web.json"
printf 'hello\n' >"$S/.agentctl/output/web.log"
rmdir "$S/.agentctl/pool" # as a state directory an older controller made
chmod -R a+rX,go-w "$TEST_TMP"
uid=$("$A" --specs "$S" get web -o jsonpath='{.metadata.uid}')
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$A" "$@"; }
check "control: nobody cannot write the state directory" \
    setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "! touch $S/.agentctl/status/x 2>/dev/null"

check_match "get as a reader" "^web +Succeeded " "$(nobody --specs "$S" get --no-headers)"
check_eq "get -o json: the recorded uid" "$uid" "$(nobody --specs "$S" get web -o jsonpath='{.metadata.uid}')"
check_match "describe as a reader" "Phase: +Succeeded" "$(nobody --specs "$S" describe web)"
check_eq "logs as a reader" "hello" "$(nobody --specs "$S" logs web)"
rc=0; nobody --specs "$S" wait web --for=phase=Succeeded --timeout=2s >/dev/null || rc=$?
check_eq "wait as a reader" 0 "$rc"
rc=0; out=$(nobody --specs "$S" changes web 2>&1) || rc=$?
check_match "changes as a reader: says there is no change set (no mkdir)" "web has no change set" "$out"
rc=0; out=$(nobody --specs "$S" get pool 2>&1) || rc=$?
check_eq "get pool with no pool folder: exit 0" 0 "$rc"
check_eq "get pool: none" "No resources found" "$out"
rc=0; out=$(timeout 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$A" --specs "$S" get -w 2>&1) || rc=$?
check_eq "get -w as a reader runs until interrupted" 124 "$rc"
check_match "get -w printed the table" "web +Succeeded" "$out"
rc=0; nobody --specs "$S" diff -f "$TEST_TMP/web.yaml" >/dev/null || rc=$?
check_eq "diff as a reader: nothing differs" 0 "$rc"

# no state directory at all: read as empty, nothing created
check_match "get without a state directory" "^bare +" "$(nobody --specs "$BARE" get --no-headers)"
check_match "describe without a state directory" "Name: +bare" "$(nobody --specs "$BARE" describe bare)"
rc=0; out=$(nobody --specs "$BARE" logs bare 2>&1) || rc=$?
check_match "logs without a state directory: no output yet" "bare has no output yet" "$out"
check "nothing was created" test ! -e "$BARE/.agentctl"

# controls: a writer needs write access, and creates the state directory
rc=0; out=$(nobody --specs "$S" apply -f "$TEST_TMP/web.yaml" 2>&1) || rc=$?
check_eq "control: apply as nobody fails" 1 "$rc"
check_match "control: and says why" "Permission denied" "$out"
"$A" --specs "$BARE" apply -f "$BARE/bare.yaml" >/dev/null
check "control: apply as root makes the state directory" test -d "$BARE/.agentctl/status"
