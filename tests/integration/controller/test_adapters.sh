#!/usr/bin/env bash
# test_adapters.sh - prompt specs on real Docker: the vendor's
# adapter builds the agent's argv, env and config files, and a fake vendor
# CLI (image agentctl/fakecli: tests/images/fake_vendor_cli.c, installed
# as claude, codex and /agent) reports exactly what it was given.
#
# For claude, codex and the generic adapter (vendor "acme"), in planning
# (no command tool, no runner) and execute (runner `make test`): the argv,
# the adapter's env and the config files' paths, modes and contents equal
# the reviewed golden files of the unit tests
# (tests/unit/golden/adapter/<adapter>-<phase>.json) byte for byte - so
# the tool policy, web search/fetch off and "no MCP servers" that those
# files spell out are what the CLI gets; stdin is closed; the config
# directory is read-only to the agent; `agentctl describe` shows the phase
# policy. Then an option-like prompt ("--help" and a newline then
# "-p x") in review: it arrives as the prompt (last argument, right after
# the only "--", for claude and codex; in AGENT_PROMPT for generic).
#
# Negative control: the golden comparison is shown to bite by comparing
# the planning run against the execute golden file (it must differ).
source "$(dirname "$0")/lib_controller.sh"
ctl_init
FAKECLI=agentctl/fakecli:$VERSION
GOLDEN=$ROOT/tests/unit/golden/adapter
# The built-in claude and codex vendors would point the proxy at public
# hosts; the test's own vendor stands in for all three.
sed -i '/^vendors:/a\
  claude: {hosts: ["vendor.test:443"], allowPrivate: true}\
  codex: {hosts: ["vendor.test:443"], allowPrivate: true}\
  acme: {hosts: ["vendor.test:443"], allowPrivate: true}' "$CONFIG"
ctl_start

declare -A ADAPTER=([claude]=claude [codex]=codex [acme]=generic)
for v in claude codex acme; do
    apply_spec "ad-$v-planning" planning "vendor: $v" "image: $FAKECLI" \
        "prompt: fix the login bug"
    apply_spec "ad-$v-execute" execute "vendor: $v" "image: $FAKECLI" \
        "prompt: fix the login bug" "runner: [make, test]"
    apply_spec "ad-$v-odd" review "vendor: $v" "image: $FAKECLI" \
        'prompt: "--help\n-p x"'
done

# report NAME: the fake CLI's JSON report.
report() { agent_output "$1" | grep '^{"startedNs"' | tail -n 1; }

# seen NAME: the report in the golden file's shape (files sorted by path;
# AGENT_PHASE is the controller's own variable, not the adapter's; the
# launcher's executable is no text file of the golden's).
seen() {
    report "$1" | jq -S '{argv: ([.prog] + .argv),
        env: (.env | map(select(startswith("AGENT_PHASE=") | not))),
        files: (.files | map(select(.path | startswith("/etc/agentctl/agent/bin/")
            | not)) | sort_by(.path))}'
}
# golden ADAPTER PHASE: the golden file's argv after the launcher's four
# (agent-launch --policy FILE --: the launcher execs the rest, so that is
# what the CLI sees), env and files; these specs have no workspace, so the
# launcher's policy runs a runner in /tmp (the golden's box has /work).
golden() {
    jq -S '{argv: .argv[4:], env, files: (.files | sort_by(.path)
        | map(.content |= sub("\nrunner-dir /work\n"; "\nrunner-dir /tmp\n")))}' \
        "$GOLDEN/$1-$2.json"
}

for v in claude codex acme; do
    a=${ADAPTER[$v]}
    for p in planning execute; do
        n=ad-$v-$p
        wait_phase "$n" Succeeded 240
        r=$(report "$n")
        check "$n: the fake CLI reported" test -n "$r"
        check_eq "$n: argv, env and config files equal the golden $a-$p" \
            "$(golden "$a" "$p")" "$(seen "$n")"
        check_eq "$n: stdin is closed" eof "$(jq -r .stdin <<<"$r")"
        check_eq "$n: the config directory is read-only to the agent" \
            refused "$(jq -r .configWrite <<<"$r")"
        check_eq "$n: the launcher is there, read-only and executable" 0555 \
            "$(jq -r '.files[] | select(.path == "/etc/agentctl/agent/bin/agent-launch")
                | .mode' <<<"$r")"
        d=$(actl describe "$n")
        check "$n: describe shows the phase's tools on a line" grep -qE \
            "^    Tools: +$(jq -r .policy.summary "$GOLDEN/$a-$p.json" |
                sed 's/;.*//; s/^tools: //; s/[][().*+?^$|\\]/\\&/g')\$" <<<"$d"
        check "$n: and the kernel's layer on another" grep -qE \
            '^    Kernel: +Landlock \(exec: the CLI[,;].*write: .*\), seccomp$' <<<"$d"
    done
done
check "control: planning differs from the execute golden file" \
    not test "$(golden claude execute)" == "$(seen ad-claude-planning)"

odd=$'--help\n-p x'
for v in claude codex; do
    n=ad-$v-odd
    wait_phase "$n" Succeeded 240
    r=$(report "$n")
    check_eq "$n: the option-like prompt is the last argument" "$odd" \
        "$(jq -r '.argv[-1]' <<<"$r")"
    check_eq "$n: right after the end-of-options marker" -- \
        "$(jq -r '.argv[-2]' <<<"$r")"
    check_eq "$n: it is the only \"--\" and appears once" "1 1" \
        "$(jq -r --arg p "$odd" '[(.argv | map(select(. == "--")) | length),
            (.argv | map(select(. == $p)) | length)] | join(" ")' <<<"$r")"
done
wait_phase ad-acme-odd Succeeded 240
r=$(report ad-acme-odd)
check_eq "ad-acme-odd: generic gets no arguments" 0 "$(jq '.argv | length' <<<"$r")"
check_eq "ad-acme-odd: and is /agent, exec'd by the launcher" /agent \
    "$(jq -r .prog <<<"$r")"
check_eq "ad-acme-odd: the prompt is AGENT_PROMPT, intact" "AGENT_PROMPT=$odd" \
    "$(jq -r '.env[] | select(startswith("AGENT_PROMPT="))' <<<"$r")"
for n in $(actl get -o json | jq -r '.items[].metadata.name' 2>/dev/null ||
    true); do
    actl delete "$n" >/dev/null 2>&1 || true
done
ctl_finish
