#!/usr/bin/env bash
# test_pipeline.sh - hack/gitops/pipeline.sh end to end with a real git
# repository made here and a running agent-controller, first on a
# directory store, then (when etcd is installed) on a private etcd:
#   C1  specs a, b          -> both created, run to Succeeded (--wait)
#   C2  b removed, c added  -> b pruned; c (a long sleep) runs
#   C3  c removed           -> c pruned, every Docker object of its uid gone
#   C4  a changed + bad.yaml (invalid) -> exit 1, nothing changed in the
#       store (get -o json before/after; a's spec file untouched)
#   C5  bad.yaml fixed      -> applied: the control that C4's change of a
#       was a real change the pipeline would have made
# Each half replays the same commits by --rev, so both stores see the same
# history. The etcd half does not --wait on C1 (b may be pruned while it
# runs: still a prune); it waits only for what its checks need.
source "$(dirname "$0")/../controller/lib_controller.sh"
source "$(dirname "$0")/../store/etcd_lib.sh"
PIPELINE=$ROOT/hack/gitops/pipeline.sh
command -v git >/dev/null || skip "git is not installed"
ctl_init
export AGENTCTL=$AGENTCTL

REPO=$TEST_TMP/repo
git init -q "$REPO"
mkdir -p "$REPO/specs"
git -C "$REPO" config user.email test@agentctl.invalid
git -C "$REPO" config user.name test

# gen_spec NAME COMMAND-FLOW: an execute spec of the demo agent.
gen_spec() {
    printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\n'
    printf 'metadata:\n  name: %s\nspec:\n  vendor: fake\n' "$1"
    printf '  phase: execute\n  image: %s\n  deadlineSeconds: %s\n' \
        "$DEMO_IMAGE" 1800 # generous: a loaded daemon prepares slowly
    printf '  command: %s\n' "$2"
    printf '  workspace: {source: small, size: 4Mi, inodes: 1000}\n'
}
commit() { # MESSAGE: commit everything under specs/, echo the commit ID
    git -C "$REPO" add -A specs
    git -C "$REPO" commit -q -m "$1"
    git -C "$REPO" rev-parse HEAD
}
gen_spec gitops-a '[/demo-agent]' >"$REPO/specs/a.yaml"
gen_spec gitops-b '[/demo-agent, --write-work]' >"$REPO/specs/b.yaml"
echo "not a spec" >"$REPO/README.txt" # only specs/*.yaml are read
C1=$(commit "a and b")
git -C "$REPO" rm -q specs/b.yaml
gen_spec gitops-c '[/demo-agent, --sleep, "600"]' >"$REPO/specs/c.yaml"
C2=$(commit "b removed, c added")
git -C "$REPO" rm -q specs/c.yaml
C3=$(commit "c removed")
gen_spec gitops-a '[/demo-agent, --write-work]' >"$REPO/specs/a.yaml"
gen_spec gitops-bad '[/demo-agent]' | sed 's/phase: execute/phase: deploy/' \
    >"$REPO/specs/bad.yaml"
C4=$(commit "a changed, bad added")
gen_spec gitops-bad '[/demo-agent]' >"$REPO/specs/bad.yaml"
C5=$(commit "bad fixed")

# pipe REV [ARGS...]: run the pipeline on this half's store; sets PRC and
# PLAST (its summary line).
pipe() {
    local rev=$1
    shift
    PRC=0
    "$PIPELINE" --rev "$rev" --path specs "${STORE_ARGS[@]}" "$@" "$REPO" \
        >"$TEST_TMP/pipe.out" 2>"$TEST_TMP/pipe.err" || PRC=$?
    PLAST=$(tail -n 1 "$TEST_TMP/pipe.out")
    echo "# pipeline $rev (t=${SECONDS}s): exit $PRC: $PLAST"
    [ "$PRC" -eq 0 ] || sed 's/^/#   stderr: /' "$TEST_TMP/pipe.err"
}
sget() { "$AGENTCTL" "${STORE_ARGS[@]}" get "$@"; }
phase_of() { sget "$1" -o json 2>/dev/null | jq -r '.status.phase // ""'; }
uid_of() { sget "$1" -o json 2>/dev/null | jq -r '.metadata.uid // ""'; }
# until_phase NAME PHASE TIMEOUT-S: bounded poll through agentctl get.
until_phase() {
    local end=$((SECONDS + $3)) p=""
    while [ "$SECONDS" -lt "$end" ]; do
        p=$(phase_of "$1")
        [ "$p" == "$2" ] && return 0
        [[ ! $p =~ $TERMINAL_RE ]] || fail "$1 ended $p, not $2"
        ctl_alive || fail "agent-controller exited while waiting for $1"
        sleep 0.25
    done
    fail "$1 did not reach $2 within ${3}s (last: ${p:-none})"
}

# half NAME [full]: the five commits against the store in STORE_ARGS;
# "full" waits for C1's runs to succeed.
half() {
    local h=$1 uid_c before after a_before
    if [ "${2:-}" == full ]; then
        pipe "$C1" --wait 600s
        check_match "$h C1: summary" \
            "^gitops: commit ${C1:0:12} specs=2 created=2 configured=0 unchanged=0 pruned=0 succeeded=2 failed=0 running=0 result=ok$" \
            "$PLAST"
        check_eq "$h C1: gitops-a Succeeded" Succeeded "$(phase_of gitops-a)"
        check_eq "$h C1: gitops-b Succeeded" Succeeded "$(phase_of gitops-b)"
    else
        pipe "$C1"
        check_match "$h C1: summary" \
            "^gitops: commit ${C1:0:12} specs=2 created=2 configured=0 unchanged=0 pruned=0 result=ok$" \
            "$PLAST"
    fi
    check_eq "$h C1: exit 0" 0 "$PRC"

    pipe "$C2"
    check_eq "$h C2: exit 0" 0 "$PRC"
    check_match "$h C2: summary" \
        "specs=2 created=1 configured=0 unchanged=1 pruned=1 result=ok$" \
        "$PLAST"
    check "$h C2: the plan named what it would prune" \
        grep -qx 'pipeline: will prune gitops-b' "$TEST_TMP/pipe.out"
    # Terminating until the controller has cleaned it up (design.md)
    check "$h C2: gitops-b deleted: wait --for=delete sees its cleanup end" \
        quiet "$AGENTCTL" "${STORE_ARGS[@]}" wait gitops-b --for=delete --timeout=300s
    check "$h C2: gitops-b is gone from the store" not quiet sget gitops-b
    until_phase gitops-c Running 400
    uid_c=$(uid_of gitops-c)
    check_match "$h C2: gitops-c has a uid" '^[0-9a-f-]{36}$' "$uid_c"
    check "$h C2: gitops-c has Docker objects (control)" \
        test -n "$(labelled_objects "agentctl.dev/uid=$uid_c")"

    pipe "$C3"
    check_eq "$h C3: exit 0" 0 "$PRC"
    check_match "$h C3: c pruned" "specs=1 .* pruned=1 result=ok$" "$PLAST"
    # Terminating until the controller has cleaned it up (design.md)
    check "$h C3: gitops-c deleted: wait --for=delete sees its cleanup end" \
        quiet "$AGENTCTL" "${STORE_ARGS[@]}" wait gitops-c --for=delete --timeout=300s
    check "$h C3: gitops-c is gone from the store" not quiet sget gitops-c
    check_no_objects "$h C3: every Docker object of gitops-c's uid is gone" \
        "agentctl.dev/uid=$uid_c" 240
    until_phase gitops-a Succeeded 400 # a final status: nothing moves now

    before=$(sget -o json)
    a_before=$(sget gitops-a -o yaml)
    pipe "$C4" --wait 60s
    check_eq "$h C4: an invalid spec: exit 1" 1 "$PRC"
    check_match "$h C4: summary says invalid" "result=invalid$" "$PLAST"
    check_match "$h C4: the error names the file and field" \
        'bad.yaml:7:10: spec.phase' "$(cat "$TEST_TMP/pipe.err")"
    after=$(sget -o json)
    check_eq "$h C4: the store is unchanged (get -o json)" "$before" "$after"
    check_eq "$h C4: gitops-a keeps its spec" "$a_before" \
        "$(sget gitops-a -o yaml)"

    pipe "$C5"
    check_eq "$h C5: fixed: exit 0" 0 "$PRC"
    check_match "$h C5: a configured, bad created" \
        "specs=2 created=1 configured=1 unchanged=0 pruned=0 result=ok$" \
        "$PLAST"
    check "$h C5: control: now the store differs" \
        test "$before" != "$(sget -o json)"
    # the next controller starts clean: nothing of this half keeps running
    "$AGENTCTL" "${STORE_ARGS[@]}" delete gitops-a >/dev/null
    "$AGENTCTL" "${STORE_ARGS[@]}" delete gitops-bad >/dev/null
    check_no_objects "$h: deleted, no Docker object labelled $MANAGED left" \
        "$MANAGED" 240
}

# --- directory store ---
ctl_start
STORE_ARGS=(--specs "$SPECS" --state "$STATE")
half dir full
check "dir: agent-controller still running" ctl_alive
ctl_stop
echo "# directory half done at t=${SECONDS}s"

# --- etcd ---
if ! command -v etcd >/dev/null 2>&1; then
    echo "# etcd is not installed: the etcd half is skipped"
    exit 0
fi
start_etcd
STORE_ARGS=(--etcd "$ETCD_URL" --etcd-prefix "/gitops-$CTL_RUN"
    --state "$TEST_TMP/cli-state")
"$CONTROLLER" "${STORE_ARGS[@]:0:4}" --state "$TEST_TMP/etcd-state" \
    --config "$CONFIG" --resync 1s --metrics "$CTL_METRICS" \
    --controller-id "$CTL_ID" >>"$CTL_LOG" 2>&1 &
CTL_PID=$!
for _ in $(seq 1 120); do # readiness, not a timed assertion
    ctl_alive || fail "agent-controller --etcd exited: $(tail -n 20 "$CTL_LOG")"
    curl -fsS --max-time 2 -o /dev/null "http://$CTL_METRICS/healthz" \
        2>/dev/null && break
    sleep 0.25
done
echo "# agent-controller --etcd pid $CTL_PID on $ETCD_URL"
half etcd
ctl_finish
