#!/usr/bin/env bash
# test_phase_policy.sh - the phase policy's kernel layer (agent-launch:
# Landlock and our seccomp filter, docs/phase-policy.md), seen from inside
# the box. A prompt spec of an operator-defined vendor runs the fake CLI
# (agentctl/fakecli, tests/images/fake_confine.c) in each of the five
# phases; it tries what a CLI bug, a prompt injection or a hostile process
# in the CLI's place would try, and reports each errno:
#
#   every phase: exec /bin/sh EACCES; create in /dev/shm (writable by
#     mount) EACCES; in /tmp ok; in /work/.git EROFS; TCP connect to the
#     proxy ok, to another port of it EACCES; /proc/1/environ EACCES;
#     kill(1, 0) EPERM; io_uring_setup and userfaultfd EPERM;
#   planning, questions, review: create in /work EROFS (the read-only
#     mount; the launcher's policy has no "write /work" either);
#   execute, fix: create in /work ok;
#   review, execute, fix: the runner tool's socket answers, and the
#     runner (a shell, which the CLI itself may not execute) ran outside
#     the CLI's domain: exit 0, its output, its HOME in /dev/shm (not the
#     CLI's /tmp, where config files would run code through it), and in
#     execute and fix its write in /work landed.
#
# Negative control (test-hooks build, AGENTCTL_TEST_DISABLE=launcher: the
# agent runs the CLI without the launcher): the same probes in review and
# execute succeed (exec, /dev/shm, the other port answers ECONNREFUSED
# instead of EACCES, environ, the signal, io_uring, which Docker 20.10's
# default seccomp profile allows), so each check above can fail.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
FAKECLI=agentctl/fakecli:$VERSION
docker image inspect "$FAKECLI" >/dev/null 2>&1 ||
    skip "$FAKECLI not built (hack/images.sh)"
sed -i '/^vendors:/a\
  acme: {hosts: ["vendor.test:443"], allowPrivate: true}' "$CONFIG"
mkdir -p "$WS_ROOT/proj/.git"
echo "# proj $CTL_RUN" >"$WS_ROOT/proj/README.md"
echo "ref: refs/heads/main" >"$WS_ROOT/proj/.git/HEAD"
RUNNER='runner: [sh, -c, "echo RUNNER-RAN; echo HOME=$HOME; echo x >/work/runner-wrote && echo RUNNER-WROTE; exit 0"]'
PHASES=(planning questions review execute fix)

# specs PREFIX: one invocation per phase.
specs() {
    local p
    for p in "${PHASES[@]}"; do
        case $p in
        planning | questions) r= ;;
        *) r=$RUNNER ;;
        esac
        apply_spec "$1-$p" "$p" "vendor: acme" "image: $FAKECLI" \
            "prompt: probe the box" \
            "workspace: {source: proj, size: 4Mi, inodes: 1000}" ${r:+"$r"}
    done
}
# report NAME: the fake CLI's JSON report.
report() { agent_output "$1" | grep '^{"startedNs"' | tail -n 1; }
# confine NAME KEY: one probe's answer.
confine() { report "$1" | jq -r ".confine.$2"; }

ctl_start
specs pp
for p in "${PHASES[@]}"; do
    n=pp-$p
    check_eq "$n: Succeeded" Succeeded "$(wait_terminal "$n" 240)"
    r=$(report "$n")
    check "$n: the fake CLI reported" test -n "$r"
    echo "# $n: $(jq -c .confine <<<"$r")"
    check_eq "$n: status says the launcher ran it" true \
        "$(status_field "$n" .launcher)"
    check_eq "$n: exec /bin/sh refused" EACCES "$(confine "$n" execSh)"
    check_eq "$n: /dev/shm not writable" EACCES "$(confine "$n" writeShm)"
    check_eq "$n: /tmp writable" ok "$(confine "$n" writeTmp)"
    check_eq "$n: /work/.git read-only" EROFS "$(confine "$n" writeGit)"
    check_eq "$n: the proxy's port reachable" ok "$(confine "$n" connectProxy)"
    check_eq "$n: another port refused by the kernel" EACCES \
        "$(confine "$n" connectOther)"
    check_eq "$n: /proc/1/environ refused" EACCES \
        "$(confine "$n" environInit)"
    check_eq "$n: no signal out of the domain" EPERM \
        "$(confine "$n" signalInit)"
    check_eq "$n: io_uring refused" EPERM "$(confine "$n" ioUring)"
    check_eq "$n: userfaultfd refused" EPERM "$(confine "$n" userfaultfd)"
    case $p in
    execute | fix)
        check_eq "$n: /work writable" ok "$(confine "$n" writeWork)" ;;
    *)
        check_eq "$n: /work read-only" EROFS "$(confine "$n" writeWork)" ;;
    esac
    case $p in
    planning | questions)
        check_eq "$n: no runner tool" null "$(jq -r .runner <<<"$r")" ;;
    review)
        check_match "$n: the runner ran outside the domain" \
            '^exit=0 .*RUNNER-RAN' "$(jq -r .runner <<<"$r")"
        check_match "$n: with a home the CLI cannot write" \
            'HOME=/dev/shm/agentctl-runner-home' "$(jq -r .runner <<<"$r")"
        check "$n: its write in /work refused (read-only mount)" \
            lacks "$(jq -r .runner <<<"$r")" RUNNER-WROTE ;;
    *)
        check_match "$n: the runner ran outside the domain" \
            '^exit=0 .*RUNNER-RAN' "$(jq -r .runner <<<"$r")"
        check_match "$n: its write in /work landed" RUNNER-WROTE \
            "$(jq -r .runner <<<"$r")" ;;
    esac
done
d=$(actl describe pp-review)
check_match "describe shows the kernel layer" 'Landlock' "$d"
check_eq "describe: one Kernel line (the runner's ';' stay on its line)" 1 \
    "$(grep -c '^    Kernel:' <<<"$d")"
check "describe: the Runner line holds the whole runner" grep -qE \
    "^    Runner: +sh -c 'echo RUNNER-RAN; echo HOME=.*exit 0' \(exact argv" \
    <<<"$d"
ctl_stop

# The control: the same boxes without the launcher.
[ -x "$BUILD/controller/agent-controller-testhooks" ] ||
    skip "agent-controller-testhooks not built (the control needs it)"
CONTROLLER=$BUILD/controller/agent-controller-testhooks \
    AGENTCTL_TEST_DISABLE=launcher ctl_start
apply_spec ctl-review review "vendor: acme" "image: $FAKECLI" \
    "prompt: probe the box" \
    "workspace: {source: proj, size: 4Mi, inodes: 1000}" "$RUNNER"
apply_spec ctl-execute execute "vendor: acme" "image: $FAKECLI" \
    "prompt: probe the box" \
    "workspace: {source: proj, size: 4Mi, inodes: 1000}" "$RUNNER"
for n in ctl-review ctl-execute; do
    check_eq "$n: Succeeded" Succeeded "$(wait_terminal "$n" 240)"
    echo "# $n: $(report "$n" | jq -c .confine)"
    check_eq "control $n: exec /bin/sh runs" ok "$(confine "$n" execSh)"
    check_eq "control $n: /dev/shm writable" ok "$(confine "$n" writeShm)"
    check_eq "control $n: the other port answers" ECONNREFUSED \
        "$(confine "$n" connectOther)"
    check_eq "control $n: /proc/1/environ readable" ok \
        "$(confine "$n" environInit)"
    check_eq "control $n: kill(1, 0) allowed" ok "$(confine "$n" signalInit)"
    # Docker 20.10's default profile lets io_uring through: the launcher's
    # filter is the layer that refuses it
    check_eq "control $n: io_uring allowed by Docker's profile" ok \
        "$(confine "$n" ioUring)"
    check_eq "control $n: no runner tool without the launcher" null \
        "$(report "$n" | jq -r .runner)"
done
ctl_finish
