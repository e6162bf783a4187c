#!/usr/bin/env bash
# test_controller_errors.sh - agent-controller's bad invocations (issue 34,
# item 2): every flag without a value and with an invalid one, unknown
# flags, files that are missing, a directory, a FIFO, a symlink loop, not
# YAML; Docker and etcd endpoints that are malformed or unreachable; a
# metrics address that is malformed, out of range, not local or taken; a
# state directory that cannot be made, is read-only or is on a full disk.
#
# docs/design.md "CLI contract": exit 2 on usage (a flag, its value), 1
# when it cannot start (bad config, store or Docker URL, metrics address)
# or, with --once, when Docker or the store stays away for three resync
# periods (--resync 1s here: three seconds). Each row runs plain, under
# ASan/UBSan and under valgrind (lib_errors.sh). No row reaches Docker:
# --docker (and DOCKER_HOST) name a socket that does not exist; the only
# network is loopback (127.0.0.1:1, where nobody listens; a port a
# listener of this test holds; 1.2.3.4:80 fails at bind and sends nothing).
#
# Not here: an unreadable --config (chmod 000) - the suite runs as root,
# and root reads a file of mode 000, so the case cannot be made without
# faking it. An empty --config is the built-in defaults (docs/config.md),
# not an error.
source "$(dirname "$0")/lib_errors.sh"
err_require controller/agent-controller proxy/egress-proxy
CTL=@controller/agent-controller
F=$TEST_TMP/f
err_fixtures "$F"
QF=$(q "$F")          # the paths as regular expressions
QT=$(q "$TEST_TMP")
NODOCKER=unix://$TEST_TMP/no-docker.sock
err_listener # $ERR_TAKEN_PORT
TAKEN=127.0.0.1:$ERR_TAKEN_PORT
SPEC='apiVersion: agentctl.dev/v1alpha1
kind: AgentInvocation
metadata:
  name: one
spec:
  vendor: claude
  phase: execute
  image: agentctl/demo-agent:0.1.0
  command: [/demo-agent]
  deadlineSeconds: 60'

# specs: a new specs directory holding one valid invocation (so --once has
# work pending); state: a state directory not made yet. Each row that gets
# as far as the store has its own.
specs() {
    local d
    d=$(mktemp -d "$TEST_TMP/specs.XXXXXX")
    printf '%s\n' "$SPEC" >"$d/one.yaml"
    echo "$d"
}
state() {
    echo "$(mktemp -d "$TEST_TMP/state.XXXXXX")/state"
}
ONCE=(--docker "$NODOCKER" --resync 1s --once)

# ---- a flag without its value (getopt names it) ----
for f in specs state config docker resync metrics controller-id etcd \
    etcd-prefix etcd-cacert etcd-cert etcd-key etcd-user \
    etcd-password-file max-running lease-ttl max-building; do
    row "--$f without a value" 2 "'--$f' requires an argument" \
        $CTL --once --$f
done

# ---- a flag with an empty value ----
for f in specs state config docker resync metrics controller-id etcd \
    etcd-prefix etcd-cacert etcd-cert etcd-key etcd-user \
    etcd-password-file max-running lease-ttl max-building; do
    row "--$f ''" 2 "--$f.*(empty|got \"\")" \
        $CTL --specs "$F/dir" "${ONCE[@]}" --$f ""
done

# ---- unknown flags, stray arguments, the store named twice or not ----
row "unknown flag --bogus" 2 "unrecognized option '--bogus'" \
    $CTL --specs "$F/dir" --bogus
row "unknown short flag -x" 2 "invalid option -- 'x'" \
    $CTL --specs "$F/dir" -x
row "a stray argument" 2 'unexpected argument "stray"' \
    $CTL --specs "$F/dir" stray
row "--once with a value" 2 "'--once' doesn't allow an argument" \
    $CTL --specs "$F/dir" --once=yes
row "neither --specs nor --etcd" 2 "one of --specs, --etcd and --kubeconfig" \
    $CTL --once
row "both --specs and --etcd" 2 "one of --specs, --etcd and --kubeconfig" \
    $CTL --specs "$F/dir" --etcd http://127.0.0.1:1 --once

# ---- values out of their range or form ----
for v in x 0 -1s 5parsecs; do
    row "--resync $v" 2 "--resync: .*got \"$(q "$v")\"" \
        $CTL --specs "$F/dir" --resync "$v"
done
for v in 'Bad!' "$(printf 'a%.0s' $(seq 1 64))" 'UPPER'; do
    row "--controller-id ${v:0:12}" 2 "--controller-id: .*got \"$(q "$v")\"" \
        $CTL --specs "$F/dir" --controller-id "$v"
done
for f in max-running max-building; do
    for v in -1 abc 100001 1.5; do
        row "--$f $v" 2 "--$f: .*got \"$(q "$v")\"" \
            $CTL --specs "$F/dir" --$f "$v"
    done
done
for v in 1s 2h abc; do
    row "--lease-ttl $v" 2 "--lease-ttl: .*got \"$(q "$v")\"" \
        $CTL --specs "$F/dir" --lease-ttl "$v"
done

# ---- --config: every kind of bad file (exit 1: cannot start) ----
printf 'vendorz: {}\n' >"$F/unknown-key.yaml"
printf 'vendors: 3\n' >"$F/wrong-type.yaml"
row "--config missing" 1 "$QF/missing: cannot read: No such file" \
    $CTL --specs "$(specs)" "${ONCE[@]}" --config "$F/missing"
row "--config a directory" 1 "$QF/dir: cannot read: a directory" \
    $CTL --specs "$(specs)" "${ONCE[@]}" --config "$F/dir"
row "--config a FIFO" 1 "$QF/fifo: cannot read: a FIFO" \
    $CTL --specs "$(specs)" "${ONCE[@]}" --config "$F/fifo"
row "--config a symlink loop" 1 "$QF/loop: cannot read: Too many levels" \
    $CTL --specs "$(specs)" "${ONCE[@]}" --config "$F/loop"
row "--config garbage bytes" 1 "$QF/garbage:1:1: invalid UTF-8" \
    $CTL --specs "$(specs)" "${ONCE[@]}" --config "$F/garbage"
row "--config not YAML" 1 "$QF/notyaml:[0-9]+:[0-9]+: " \
    $CTL --specs "$(specs)" "${ONCE[@]}" --config "$F/notyaml"
row "--config a list" 1 "$QF/list:1:1: .*mapping" \
    $CTL --specs "$(specs)" "${ONCE[@]}" --config "$F/list"
row "--config an unknown key" 1 \
    "$QF/unknown-key\\.yaml:1:1: .*vendorz.*did you mean .*vendors" \
    $CTL --specs "$(specs)" "${ONCE[@]}" --config "$F/unknown-key.yaml"
row "--config a key of the wrong type" 1 \
    "$QF/wrong-type\\.yaml:1:[0-9]+: vendors: " \
    $CTL --specs "$(specs)" "${ONCE[@]}" --config "$F/wrong-type.yaml"

# ---- --specs ----
row "--specs missing" 1 "specs directory $QF/missing: No such file" \
    $CTL --specs "$F/missing" "${ONCE[@]}"
row "--specs a file" 1 "$QF/empty is not a directory" \
    $CTL --specs "$F/empty" "${ONCE[@]}"
row "--specs a FIFO" 1 "$QF/fifo is not a directory" \
    $CTL --specs "$F/fifo" "${ONCE[@]}"
row "--specs a symlink loop" 1 "$QF/loop: Too many levels" \
    $CTL --specs "$F/loop" "${ONCE[@]}"

# ---- --state ----
row "--state cannot be made (under a file)" 1 \
    "mkdir $QF/under-file/state: Not a directory" \
    $CTL --specs "$(specs)" "${ONCE[@]}" --state "$F/under-file/state"
row "--state a FIFO" 1 "$QF/fifo/status: Not a directory" \
    $CTL --specs "$(specs)" "${ONCE[@]}" --state "$F/fifo"
row "--state a symlink loop" 1 "$QF/loop/status: Too many levels" \
    $CTL --specs "$(specs)" "${ONCE[@]}" --state "$F/loop"
if err_tmpfs "$TEST_TMP/ro-empty" 64k ro; then
    row "--state on a read-only disk (empty)" 1 \
        "$QT/ro-empty/status: Read-only file system" \
        $CTL --specs "$(specs)" "${ONCE[@]}" --state "$TEST_TMP/ro-empty"
fi
# the layout is there (an earlier run made it), the disk went read-only:
# the controller starts, every write fails naming the file, --once gives up
if ERR_TMPFS_DIRS="status meta applied pool events output" \
    err_tmpfs "$TEST_TMP/ro-made" 64k ro; then
    row "--state on a read-only disk (layout made)" 1 \
        "$QT/ro-made/meta: Read-only file system" \
        $CTL --specs "$(specs)" "${ONCE[@]}" --state "$TEST_TMP/ro-made"
fi
if err_tmpfs "$TEST_TMP/full" 64k full; then
    row "--state on a full disk" 1 \
        "write $QT/full/st1/meta/[^ ]*: No space left on device" \
        $CTL --specs "$(specs)" "${ONCE[@]}" --state "$TEST_TMP/full/st1"
fi

# ---- --docker: malformed, and unreachable with work to do ----
row "--docker tcp://" 1 "Docker URL tcp://127\\.0\\.0\\.1:1: only unix://" \
    $CTL --specs "$(specs)" --resync 1s --once --docker tcp://127.0.0.1:1
row "--docker without a scheme" 1 \
    "Docker URL $QT/no-docker\\.sock: only unix://" \
    $CTL --specs "$(specs)" --resync 1s --once \
    --docker "$TEST_TMP/no-docker.sock"
row "--docker unix:// without a path" 1 "Docker URL unix://: .*absolute" \
    $CTL --specs "$(specs)" --resync 1s --once --docker unix://
row "--docker socket missing (--once)" 1 \
    "giving up .*cannot reach Docker at $QT/no-docker\\.sock" \
    $CTL --specs "$(specs)" "${ONCE[@]}"
row "--docker socket a FIFO (--once)" 1 \
    "giving up .*cannot reach Docker at $QF/fifo" \
    $CTL --specs "$(specs)" --resync 1s --once --docker "unix://$F/fifo"

# ---- --etcd: malformed, unreachable ----
for v in 127.0.0.1:2379 ftp://127.0.0.1:1 'http://127.0.0.1:1,,x'; do
    row "--etcd $v" 1 "etcd endpoint \\\\\"$(q "${v##*,}")\\\\\" is not an http" \
        $CTL --etcd "$v" --state "$(state)" "${ONCE[@]}"
done
row "--etcd http://" 1 'etcd endpoint \\"http://\\" has no host' \
    $CTL --etcd http:// --state "$(state)" "${ONCE[@]}"
row "--etcd ," 1 'no etcd endpoint in \\",\\"' \
    $CTL --etcd , --state "$(state)" "${ONCE[@]}"
row "--etcd nobody listens (--once)" 1 \
    "giving up .*store.*|etcd http://127.0.0.1:1: connection refused" \
    $CTL --etcd http://127.0.0.1:1 --state "$(state)" "${ONCE[@]}"
row "--etcd-cert without --etcd-key" 1 "--etcd-cert and --etcd-key" \
    $CTL --etcd http://127.0.0.1:1 --state "$(state)" "${ONCE[@]}" \
    --etcd-cert "$F/empty"
row "--etcd-password-file without --etcd-user" 1 "needs --etcd-user" \
    $CTL --etcd http://127.0.0.1:1 --state "$(state)" "${ONCE[@]}" \
    --etcd-password-file "$F/empty"
for kind in missing dir fifo loop; do
    row "--etcd-password-file $kind" 1 "password file $QF/$kind: " \
        $CTL --etcd http://127.0.0.1:1 --state "$(state)" "${ONCE[@]}" \
        --etcd-user u --etcd-password-file "$F/$kind"
done
# TLS files: the endpoint is a port this test's listener holds (it takes
# the connection, so the TLS set-up reads the files)
for flag in etcd-cacert etcd-cert etcd-key; do
    for kind in missing dir fifo loop; do
        other=()
        [ $flag = etcd-cert ] && other=(--etcd-key "$F/empty")
        [ $flag = etcd-key ] && other=(--etcd-cert "$F/empty")
        row "--$flag $kind" 1 "--$flag $QF/$kind: " \
            $CTL --etcd "https://$TAKEN" --state "$(state)" "${ONCE[@]}" \
            "${other[@]}" --$flag "$F/$kind"
    done
done

# ---- --metrics ----
for v in foo 127.0.0.1: :9464 127.0.0.1:99999 127.0.0.1:-1 localhost:9464 \
    '[::1' 1.2.3.4; do
    row "--metrics $v" 1 "--metrics $(q "$v"): " \
        $CTL --specs "$(specs)" "${ONCE[@]}" --metrics "$v"
done
row "--metrics not local (1.2.3.4:80)" 1 \
    "--metrics 1\\.2\\.3\\.4:80: .*cannot listen on 1\\.2\\.3\\.4:80" \
    $CTL --specs "$(specs)" "${ONCE[@]}" --metrics 1.2.3.4:80
row "--metrics port taken" 1 "--metrics $(q "$TAKEN"): .*cannot listen on $(q "$TAKEN")" \
    $CTL --specs "$(specs)" "${ONCE[@]}" --metrics "$TAKEN"

rows_finish
