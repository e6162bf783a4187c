#!/usr/bin/env bash
# test_terminating.sh - a deleted invocation whose cleanup is pending is
# Terminating (docs/cli.md "Terminating"), on the real controller with the
# directory store and with etcd: with the controller stopped while the
# agent runs, `delete` leaves its status (the controller removes it last,
# after every Docker object), so `get` shows it with PHASE Terminating,
# `describe` says so, `apply` of the name is refused as kubectl refuses
# a name being deleted, and `wait --for=delete` waits (times out). The
# controller back, `wait --for=delete` returns once the cleanup is done:
# no Docker object of its uid is left at that moment. The name applied
# again is a new object: a new uid and creationTimestamp; so is a name
# deleted before the controller ever wrote its status.
# Controls: a name that is not being deleted is applied as usual, and a
# name applied again without a delete keeps its uid.
source "$(dirname "$0")/../scaleout/lib_scaleout.sh"
sc_init

# on STORE: the functions of one store - start, stop, a (agentctl)
on() {
    STORE=$1
    if [ "$STORE" == dir ]; then
        start() { ctl_start; }
        stop() { ctl_stop; }
        a() { actl "$@"; }
    else
        start() { sc_start a; }
        stop() { sc_stop a; }
        a() { sctl "$@"; }
    fi
}

spec_file() {
    printf '%s\n' "apiVersion: agentctl.dev/v1alpha1" "kind: AgentInvocation" \
        "metadata: {name: $1}" "spec:" "  vendor: fake" "  phase: execute" \
        "  image: $BOX_IMAGE" "  command: [sh, -c, \"sleep 600\"]" \
        "  deadlineSeconds: 900" >"$TEST_TMP/in/$1.yaml"
    echo "$TEST_TMP/in/$1.yaml"
}

field() { a get "$1" -o "jsonpath={$2}" 2>/dev/null || true; }

wait_field() {
    for _ in $(seq 1 480); do
        [ "$(field "$1" "$2")" == "$3" ] && return 0
        sleep 0.5
    done
    fail "$STORE: $1: $2 never became $3 (it is [$(field "$1" "$2")])"
}

objects_of() {
    docker ps -aq --filter "label=agentctl.dev/uid=$1" | wc -l
}

scenario() {
    local n=$1-run uid ct out rc
    on "$1"
    start
    a apply -f "$(spec_file "$n")" >/dev/null
    wait_field "$n" .status.phase Running
    uid=$(field "$n" .metadata.uid)
    ct=$(field "$n" .metadata.creationTimestamp)
    check "$STORE: the running agent's objects exist (control)" \
        test "$(objects_of "$uid")" -gt 0
    stop
    a delete "$n" >/dev/null
    check_match "$STORE: get shows it Terminating" "^$n +Terminating " \
        "$(a get --no-headers)"
    check_eq "$STORE: --field-selector status.phase=Terminating selects it" "$n" \
        "$(a get --field-selector status.phase=Terminating -o name | sed 's|.*/||')"
    check_match "$STORE: describe says Terminating" \
        'Terminating: +deleted; the controller removes its Docker objects' \
        "$(a describe "$n")"
    rc=0
    out=$(a apply -f "$TEST_TMP/in/$n.yaml" 2>&1) || rc=$?
    check_eq "$STORE: apply of a name being deleted exits 1" 1 "$rc"
    check_match "$STORE: ... as kubectl says it" \
        "object is being deleted: agentinvocations.agentctl.dev \"$n\" already exists" "$out"
    check "$STORE: delete again while Terminating: done (exit 0), as kubectl" \
        quiet a delete "$n"
    check "$STORE: control: another name applies as usual" \
        quiet a apply -f "$(spec_file "$1-other")"
    rc=0
    a wait "$n" --for=delete --timeout=2s >/dev/null 2>&1 || rc=$?
    check_eq "$STORE: wait --for=delete waits while it is Terminating" 1 "$rc"

    start
    a wait "$n" --for=delete --timeout=300s >/dev/null
    check_eq "$STORE: wait --for=delete returned after the cleanup: no object of its uid" \
        0 "$(objects_of "$uid")"
    rc=0
    a get "$n" >/dev/null 2>&1 || rc=$?
    check_eq "$STORE: then get says NotFound" 1 "$rc"
    sleep 1 # a creationTimestamp has whole seconds
    a apply -f "$TEST_TMP/in/$n.yaml" >/dev/null
    check "$STORE: applied again: a new uid" not test "$(field "$n" .metadata.uid)" == "$uid"
    check "$STORE: applied again: a new creationTimestamp" \
        not test "$(field "$n" .metadata.creationTimestamp)" == "$ct"
    a delete "$n" "$1-other" >/dev/null
    a wait "$n" "$1-other" --for=delete --timeout=300s >/dev/null
    stop

    # deleted before the controller wrote a status: nothing to clean up
    a apply -f "$(spec_file "$1-early")" >/dev/null
    uid=$(field "$1-early" .metadata.uid)
    a apply -f "$TEST_TMP/in/$1-early.yaml" >/dev/null
    check_eq "$STORE: control: applied again without a delete, the same uid" \
        "$uid" "$(field "$1-early" .metadata.uid)"
    a delete "$1-early" >/dev/null
    a apply -f "$TEST_TMP/in/$1-early.yaml" >/dev/null
    check "$STORE: deleted before any status, applied again: a new uid" \
        not test "$(field "$1-early" .metadata.uid)" == "$uid"
    a delete "$1-early" >/dev/null
}

scenario dir
scenario etcd
echo "PASS: $CHECKS checks"
