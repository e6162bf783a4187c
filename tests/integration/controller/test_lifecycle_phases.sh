#!/usr/bin/env bash
# test_lifecycle_phases.sh - one demo-agent invocation per phase, all at
# once: each reaches Succeeded; the agent ran as uid 1000 with no
# capabilities, a read-only root and no_new_privs; /work is read-only in
# planning, questions and review and writable in execute and fix; the
# vendor's page came back through the proxy; the attempt's status says who
# ran it and with what; the workspace source on the host is untouched; and
# the controller removed every object it created.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

PHASES=(planning questions review execute fix)
ZERO=0000000000000000
for p in "${PHASES[@]}"; do
    apply_spec "life-$p" "$p" \
        "command: [/demo-agent, --write-work]" \
        "workspace: {source: small, size: 4Mi, inodes: 1000}"
done

for p in "${PHASES[@]}"; do
    n=life-$p
    wait_phase "$n" Succeeded 240
    out=$(agent_output "$n")
    echo "# $n output:"
    sed 's/^/#   /' <<<"$out"
    check_eq "$n: exit code 0" 0 "$(status_field "$n" .exitCode)"
    check_eq "$n: no stopReason (it finished on its own)" "" \
        "$(status_field "$n" .stopReason)"
    check_eq "$n: status names this controller" "$CTL_ID" \
        "$(status_field "$n" .controller)"
    check_eq "$n: attempt defaults to 1" 1 "$(status_field "$n" .attempt)"
    check_match "$n: image pinned to an ID" '^sha256:[0-9a-f]{64}$' \
        "$(status_field "$n" .imageID)"
    check_eq "$n: BoundaryVerified=True" True \
        "$(condition_field "$n" BoundaryVerified status)"
    check_match "$n: uid 1000" $'(^|\n)uid: 1000\ngid: 1000' "$out"
    check_match "$n: no effective capabilities" "cap_eff: $ZERO" "$out"
    check_match "$n: empty bounding set" "cap_bnd: $ZERO" "$out"
    check_match "$n: no_new_privs" "no_new_privs: 1" "$out"
    check_match "$n: root file system read-only" "root_writable: no" "$out"
    check_match "$n: AGENT_PHASE=$p" "agent_phase: $p" "$out"
    case $p in
    planning | questions | review)
        check_match "$n: /work read-only" "work_writable: no" "$out"
        check_match "$n: write to /work refused" "write_work: failed" "$out"
        ;;
    *)
        check_match "$n: /work writable" "work_writable: yes" "$out"
        check_match "$n: write to /work works" "write_work: ok" "$out"
        ;;
    esac
    check_match "$n: CONNECT through the proxy admitted" \
        "connect: HTTP/1.1 200" "$out"
    check_match "$n: the vendor's page came back" \
        "vendor_body: $VENDOR_TOKEN" "$out"
    check_eq "$n: status.output.bytes = size of the output file" \
        "$(stat -c %s "$STATE/output/$n.log")" \
        "$(status_field "$n" .output.bytes)"
    check_eq "$n: output not truncated" false \
        "$(status_field "$n" .output.truncated)"
    check_eq "$n: status.output.sha256 = sha256 of the output file" \
        "$(sha256sum <"$STATE/output/$n.log" | cut -d' ' -f1)" \
        "$(status_field "$n" .output.sha256)"
    uid=$(inv_uid "$n")
    check_match "$n: has a uid" '^[0-9a-f-]{36}$' "$uid"
    check_no_objects "$n: its objects are gone" \
        "agentctl.dev/uid=$uid" 60
done

check "workspace is copied, not mounted: host source untouched" \
    test ! -e "$WS_ROOT/small/demo.txt"
check_eq "agentctl wait agrees" 0 \
    "$(actl wait life-fix --for=phase=Succeeded --timeout=10s >/dev/null \
        2>&1; echo $?)"
ctl_finish
