#!/usr/bin/env bash
# test_agentctl_errors.sh - agentctl's bad invocations (issue 34, item 2):
# unknown commands and flags, every flag without its value and with an
# invalid one, a command without what it needs, names that are not there,
# -f files that are missing, a directory, a FIFO, a symlink loop, empty,
# garbage bytes, not YAML; a store that is missing, a file, a FIFO, a loop,
# cannot be made, read-only or on a full disk; etcd endpoints that are
# malformed or unreachable, and etcd files that are not files.
#
# docs/design.md "agentctl": exit 2 on usage (an unknown command or
# option, a missing value, no store, both stores), 1 on failure (invalid
# input, not found, a store that cannot be opened or reached); diff's 1
# means "different", so its errors are 2. Each row runs plain, under
# ASan/UBSan and under valgrind (lib_errors.sh). agentctl never talks to
# Docker; the only network is loopback (127.0.0.1:1, where nobody listens,
# and a port a listener of this test holds).
#
# Not here: an unreadable -f file or specs directory (chmod 000) - the
# suite runs as root, and root reads them anyway, so the case cannot be
# made without faking it.
source "$(dirname "$0")/lib_errors.sh"
err_require cli/agentctl proxy/egress-proxy
AC=@cli/agentctl
F=$TEST_TMP/f
err_fixtures "$F"
QF=$(q "$F")
QT=$(q "$TEST_TMP")
S=$TEST_TMP/specs # an empty store: nothing found in it
mkdir -p "$S" "$F/no-specs" "$F/fifo-dir"
mkfifo "$F/fifo-dir/x.yaml"
err_listener # $ERR_TAKEN_PORT
TAKEN=127.0.0.1:$ERR_TAKEN_PORT
cat >"$F/one.yaml" <<'EOF'
apiVersion: agentctl.dev/v1alpha1
kind: AgentInvocation
metadata:
  name: one
spec:
  vendor: claude
  phase: execute
  image: agentctl/demo-agent:0.1.0
  command: [/demo-agent]
  deadlineSeconds: 60
EOF

# ---- commands and flags that do not exist ----
row "no command" 2 "usage: agentctl" $AC
row "unknown command" 2 'unknown command "frob"' $AC --specs "$S" frob
row "unknown global flag" 2 "unknown flag: --bogus" $AC --bogus get
row "unknown flag after the command" 2 "unknown flag: --bogus" \
    $AC --specs "$S" get --bogus
row "unknown shorthand flag" 2 "unknown shorthand flag: 'Z' in -Z" \
    $AC --specs "$S" get -Z
row "a value for a flag that takes none" 2 \
    "flag takes no value: --watch=x" $AC --specs "$S" get --watch=x

# ---- a flag without its value ----
for f in specs state etcd etcd-prefix etcd-cacert etcd-cert etcd-key \
    etcd-user etcd-password-file; do
    row "--$f without a value" 2 "flag needs an argument: --$f" $AC --$f
done
for f in specs etcd; do
    row "--$f without a value, after the command" 2 \
        "flag needs an argument: --$f" $AC get --$f
done
while read -r cmd flag; do
    row "$cmd $flag without a value" 2 "flag needs an argument: $flag" \
        $AC --specs "$S" $cmd $flag
done <<'EOF'
validate -f
validate --filename
validate -o
apply -f
apply -l
apply -o
diff -f
diff --output
get -o
get --selector
get --sort-by
get --field-selector
describe -l
delete -f
delete -l
logs --tail
logs --since
logs --timeout
wait --for
wait --timeout
version -o
EOF

# ---- no store, two stores ----
row "no store" 2 "no store: pass --specs DIR, --etcd URL or --kubeconfig FILE" $AC get
row "both stores" 2 "pass one of --specs DIR, --etcd URL and --kubeconfig FILE" \
    $AC --specs "$S" --etcd http://127.0.0.1:1 get

# ---- a command without what it needs, or with too much ----
row "cancel without a name" 2 "cancel.*expected NAME|expected NAME" \
    $AC --specs "$S" cancel
row "logs without a name" 2 "expected one NAME" $AC --specs "$S" logs
row "logs with two names" 2 "expected one NAME" $AC --specs "$S" logs a b
row "wait without --for" 2 "--for is required" $AC --specs "$S" wait x
row "wait without a name" 2 "expected NAME" \
    $AC --specs "$S" wait --for=delete
row "explain without a field" 2 "expected one FIELD" $AC explain
row "delete without a target" 2 "expected NAME, -f PATH, -l SELECTOR" \
    $AC --specs "$S" delete
row "describe without a target" 2 "expected NAME or -l SELECTOR" \
    $AC --specs "$S" describe
row "completion without a shell" 2 "expected one shell: bash or zsh" \
    $AC completion
row "completion fish" 2 "expected one shell: bash or zsh" \
    $AC completion fish
row "version with an argument" 2 "version takes no arguments" \
    $AC version extra
for cmd in validate apply diff; do
    row "$cmd without -f" 2 "no input: pass -f PATH" $AC --specs "$S" $cmd
done
row "apply --prune without -l or --all" 2 \
    "prune without explicitly passing --all" \
    $AC --specs "$S" apply -f "$F/one.yaml" --prune
row "get pool with a name" 2 'pool takes no names .*"x"' \
    $AC --specs "$S" get pool x
row "get pool -l" 2 "pool boxes have no labels" \
    $AC --specs "$S" get pool -l a=b
row "get pool -w" 2 "-w is not supported for pool" \
    $AC --specs "$S" get pool -w
row "get pool -o name" 2 "not as -o name" $AC --specs "$S" get pool -o name
row "get pool --sort-by" 2 "--sort-by and --field-selector do not apply" \
    $AC --specs "$S" get pool --sort-by=.metadata.name

# ---- values that are not valid ----
while IFS=$'\t' read -r name re args; do
    read -ra argv <<<"$args"
    row "$name" 2 "$re" $AC --specs "$S" "${argv[@]//&/ }"
done <<'EOF'
get -o bogus	output format "bogus"	get -o bogus
get -o jsonpath=	output format "jsonpath="	get -o jsonpath=
get -o jsonpath={.bad	error parsing jsonpath \{\.bad: unclosed action	get -o jsonpath={.bad
get -o custom-columns=	output format "custom-columns="	get -o custom-columns=
get -l !!!	unable to parse selector "!!!"	get -l !!!
get -l a_in_(b	unable to parse selector "a in \(b"	get -l a&in&(b
describe -l !!!	unable to parse selector "!!!"	describe -l !!!
delete -l !!!	unable to parse selector "!!!"	delete -l !!!
logs --tail x	invalid --tail "x"	logs x --tail x
logs --tail -5	invalid --tail "-5"	logs x --tail -5
logs --since x	invalid --since "x"	logs x --since x
logs --since -1s	invalid --since "-1s"	logs x --since -1s
logs --timeout x	invalid --timeout "x"	logs x -f --timeout x
wait --for=bogus	unrecognized condition: "bogus"	wait x --for=bogus
wait --for=phase=	--for=phase=: no such phase	wait x --for=phase=
wait --for=phase=Bogus	--for=phase=Bogus: no such phase	wait x --for=phase=Bogus
get ai/	resource/name form must have a single resource and name	get ai/
get jsonpath filter	malformed filter	get -o jsonpath={.items[?(@.x=)]}
get --sort-by a wildcard	couldn't parse --sort-by "\{\.items\[\*\]\}"	get --sort-by={.items[*]}
get --sort-by empty segment	couldn't parse --sort-by "\.a\.\.b"	get --sort-by=.a..b
get --field-selector spec.vendor	field label not supported: spec\.vendor \(supported: metadata\.name, status\.phase\)	get --field-selector=spec.vendor=x
get --field-selector no operator	invalid field selector "metadata\.name"	get --field-selector=metadata.name
wait --timeout=x	invalid --timeout "x"	wait x --for=delete --timeout=x
wait --timeout=-1s	invalid --timeout "-1s"	wait x --for=delete --timeout=-1s
version -o xml	--output must be json or yaml	version -o xml
validate -o xml	--output must be json, got "xml"	validate -f /dev/null -o xml
diff -o xml	--output must be json, got "xml"	diff -f /dev/null -o xml
apply -o xml	--output must be name, json or yaml	apply -f /dev/null -o xml
apply --dry-run=server	--dry-run must be client or none	apply -f /dev/null --dry-run=server
EOF
# (the table's fields are tab-separated; '&' stands for a space)

# ---- names that are not there (exit 1) ----
for cmd in get describe delete cancel logs; do
    row "$cmd a name not there" 1 '"nope" not found' \
        $AC --specs "$S" $cmd nope
done
row "wait for a name not there" 1 '"nope" not found' \
    $AC --specs "$S" wait nope --for=phase=Running --timeout=2s
row "a TYPE/NAME of another type" 1 'agentctl has no resource type "pods"' \
    $AC --specs "$S" describe pods/x
row "explain a field not there" 1 'field "spec.nope" does not exist' \
    $AC explain spec.nope

# ---- -f files: validate, apply and delete exit 1, diff 2 ----
for cmd in validate apply diff delete; do
    want=1
    [ $cmd = diff ] && want=2
    row "$cmd -f missing" $want "$QF/missing: cannot read: No such file" \
        $AC --specs "$S" $cmd -f "$F/missing"
    row "$cmd -f a FIFO" $want "$QF/fifo:1:1: file holds no documents" \
        $AC --specs "$S" $cmd -f "$F/fifo"
    row "$cmd -f a symlink loop" $want "$QF/loop: cannot read: Too many levels" \
        $AC --specs "$S" $cmd -f "$F/loop"
    row "$cmd -f empty" $want "$QF/empty:1:1: file holds no documents" \
        $AC --specs "$S" $cmd -f "$F/empty"
    row "$cmd -f garbage bytes" $want "$QF/garbage:1:1: invalid UTF-8" \
        $AC --specs "$S" $cmd -f "$F/garbage"
    row "$cmd -f not YAML" $want "$QF/notyaml:[0-9]+:[0-9]+: " \
        $AC --specs "$S" $cmd -f "$F/notyaml"
    row "$cmd -f a list" $want "$QF/list:1:1: expected a mapping" \
        $AC --specs "$S" $cmd -f "$F/list"
done
row "validate a directory holding a FIFO" 1 \
    "$QF/fifo-dir/x\\.yaml:1:1: file holds no documents" \
    $AC validate "$F/fifo-dir"
row "validate a device (/dev/zero)" 1 "/dev/zero: input is over the 64 MiB limit" \
    $AC validate /dev/zero
row --stdin "$F/garbage" "validate -f - garbage on stdin" 1 \
    "<stdin>:1:1: invalid UTF-8" $AC validate -f -
row "apply -f a directory without spec files" 1 \
    "no objects passed to apply: .* $QF/no-specs" \
    $AC --specs "$S" apply -f "$F/no-specs"

# ---- the directory store ----
row "--specs missing" 1 "specs directory $QF/missing: No such file" \
    $AC --specs "$F/missing" get
row "--specs a file" 1 "$QF/empty is not a directory" \
    $AC --specs "$F/empty" get
row "--specs a FIFO" 1 "$QF/fifo is not a directory" \
    $AC --specs "$F/fifo" get
row "--specs a symlink loop" 1 "$QF/loop: Too many levels" \
    $AC --specs "$F/loop" get
# (a writer: get, a reader, creates nothing and reads a state it cannot
# make as empty, tests/integration/cli/test_read_only.sh)
row "--state cannot be made (under a file)" 1 \
    "mkdir $QF/under-file/state: Not a directory" \
    $AC --specs "$S" --state "$F/under-file/state" apply -f "$F/one.yaml"
row "--state a FIFO" 1 "$QF/fifo/status: Not a directory" \
    $AC --specs "$S" --state "$F/fifo" apply -f "$F/one.yaml"
row "--state a symlink loop" 1 "$QF/loop/status: Too many levels" \
    $AC --specs "$S" --state "$F/loop" apply -f "$F/one.yaml"
if err_tmpfs "$TEST_TMP/ro-empty" 64k ro; then
    row "--state on a read-only disk (empty)" 1 \
        "$QT/ro-empty/status: Read-only file system" \
        $AC --specs "$S" --state "$TEST_TMP/ro-empty" apply -f "$F/one.yaml"
fi
if ERR_TMPFS_DIRS="status meta applied pool events output" \
    err_tmpfs "$TEST_TMP/ro-made" 64k ro; then
    row "apply, --state on a read-only disk (layout made)" 1 \
        "$QT/ro-made/lock: Read-only file system" \
        $AC --specs "$S" --state "$TEST_TMP/ro-made" apply -f "$F/one.yaml"
    row "cancel, --state on a read-only disk (layout made)" 1 \
        "$QT/ro-made/lock: Read-only file system" \
        $AC --specs "$S" --state "$TEST_TMP/ro-made" cancel one
fi
if err_tmpfs "$TEST_TMP/full" 64k full; then
    # a specs directory on the full disk: the spec cannot be written
    mkdir -p "$TEST_TMP/full/specs"
    row "apply, the store on a full disk" 1 \
        "apply \"one\": write $QT/full/specs/[^ ]*: No space left on device" \
        $AC --specs "$TEST_TMP/full/specs" --state "$TEST_TMP/full/state" \
        apply -f "$F/one.yaml"
fi

# ---- etcd: malformed, unreachable, files that are not files ----
row "--etcd without a scheme" 1 \
    'etcd endpoint "127\.0\.0\.1:2379" is not an http:// or https:// URL' \
    $AC --etcd 127.0.0.1:2379 get
row "--etcd http://" 1 'etcd endpoint "http://" has no host' \
    $AC --etcd http:// get
row "--etcd ftp://" 1 'etcd endpoint "ftp://127\.0\.0\.1:1" is not an http' \
    $AC --etcd ftp://127.0.0.1:1 get
row "--etcd ," 1 'no etcd endpoint in ","' $AC --etcd , get
row "--etcd port out of range" 1 "etcd http://127\\.0\\.0\\.1:99999: " \
    $AC --etcd http://127.0.0.1:99999 get
row "--etcd nobody listens" 1 "etcd http://127\\.0\\.0\\.1:1: connection refused" \
    $AC --etcd http://127.0.0.1:1 get
row "diff, --etcd nobody listens" 2 \
    "etcd http://127\\.0\\.0\\.1:1: connection refused" \
    $AC --etcd http://127.0.0.1:1 diff -f "$F/one.yaml"
row "--etcd-cert without --etcd-key" 1 "--etcd-cert and --etcd-key go together" \
    $AC --etcd http://127.0.0.1:1 --etcd-cert "$F/empty" get
row "--etcd-password-file without --etcd-user" 1 \
    "an etcd password needs --etcd-user" \
    $AC --etcd http://127.0.0.1:1 --etcd-password-file "$F/empty" get
for kind in missing dir fifo loop; do
    row "--etcd-password-file $kind" 1 "etcd password file $QF/$kind: " \
        $AC --etcd http://127.0.0.1:1 --etcd-user u \
        --etcd-password-file "$F/$kind" get
done
# TLS files: the endpoint is a port this test's listener holds (it takes
# the connection, so libcurl would read the files)
for flag in etcd-cacert etcd-cert etcd-key; do
    for kind in missing dir fifo loop; do
        other=()
        [ $flag = etcd-cert ] && other=(--etcd-key "$F/empty")
        [ $flag = etcd-key ] && other=(--etcd-cert "$F/empty")
        row "--$flag $kind" 1 "--$flag $QF/$kind: " \
            $AC --etcd "https://$TAKEN" "${other[@]}" --$flag "$F/$kind" get
    done
done

rows_finish
