#!/usr/bin/env bash
# test_codex_phases.sh - the real Codex CLI (agentctl/codex, pinned in
# hack/images/vendor-clis.txt) in the box, in all five phases at once,
# against the TLS test vendor through the egress proxy. Codex 0.171.0
# offers its tools in code mode: one freeform `exec` tool whose
# JavaScript calls tools.exec_command and the like; the vendor asks for
# that (tv_reply.h) and records the nested tool names as "tools.<name>".
#
#   every phase: codex finishes the turn, its final message (the vendor's
#     text) is in the captured output, exit code 0 in the status; only the
#     vendor's host was tunnelled; no web tool (web.*, tools.web__*) and no
#     MCP server tool (mcp__*) in any request although the worktree's
#     .codex/config.toml asks for live web search and an MCP server; the
#     key reached the vendor (authorization present) but not its record;
#   planning, questions: no command tool offered (tools.exec_command
#     absent); a command asked for anyway does not run;
#   review: the runner runs; codex cannot limit commands to it (measured:
#     the other command runs too, docs/vendor-clis.md), and its write to
#     /work is refused by the read-only mount;
#   execute, fix: commands run, the edit lands in /work, a write into
#     .git is refused, the .git digests are equal, and the edit comes
#     back in the change set (agentctl changes).
#
# Negative control: the "did not run" check is run on the review answer,
# where the other command did run, and must fail there.
source "$(dirname "$0")/lib_vendors.sh"
vd_init codex
ctl_start
vd_watch_proxies

# exec_js CMD...: the CALL line of one code-mode exec running each CMD
# with tools.exec_command and returning what each gave back.
exec_js() {
    local cmds
    cmds=$(printf '%s\n' "$@" | jq -Rsc 'split("\n") | map(select(. != ""))')
    printf 'CALL exec %s' "$(jq -cn --arg c "$cmds" '{input: ("for (const c of " + $c + ") { try { const r = await tools.exec_command({cmd: c}); text(c + \" => \" + JSON.stringify(r)); } catch (e) { text(c + \" => refused: \" + e); } }")}')"
}

# the marker it prints (OTHER-42) is not in the command's own text, which
# codex's answers quote
OTHER='echo OTHER-$((40 + 2)); touch /work/pwned'
for p in planning questions; do
    vd_spec "x-$p" "$p" "$(vd_prompt "x-$p" "$(exec_js "$OTHER")")"
done
vd_spec x-review review "$(vd_prompt x-review "$(exec_js 'sh check.sh' "$OTHER")")" \
    "runner: [sh, check.sh]"
for p in execute fix; do
    vd_spec "x-$p" "$p" "$(vd_prompt "x-$p" "$(exec_js 'sh check.sh' \
        'echo written-by-codex >/work/NEW.md && cat /work/NEW.md' \
        'touch /work/.git/evil')")" "runner: [sh, check.sh]"
done

for p in planning questions review execute fix; do
    n=x-$p
    check_eq "$n: Succeeded" Succeeded "$(wait_terminal "$n" 300)"
    check_eq "$n: the CLI's exit code is in the status" 0 \
        "$(status_field "$n" .exitCode)"
    a=$(vd_answer_of "$n")
    check_match "$n: the vendor ended the turn" '^VENDOR-DONE' "$a"
    check "$n: codex's final message is the captured output" \
        grep -qF "$(head -n 1 <<<"$a")" <<<"$(agent_output "$n")"
    tools=$(vd_tools_of "$n")
    echo "# $n offered: $tools"
    check "$n: no web tool in any request" \
        not grep -qiE '(^|,)(web[._][^,]*|tools\.web__[^,]*)(,|$)' <<<"$tools"
    check "$n: no MCP server tool in any request" \
        not grep -qE '(^|,)[^,]*mcp__' <<<"$tools"
done

for p in planning questions; do
    n=x-$p
    a=$(vd_answer_of "$n")
    check "$n: no command tool offered" \
        not grep -qE '(^|,)tools\.exec_command(,|$)' <<<"$(vd_tools_of "$n")"
    check "$n: the command asked for anyway did not run" lacks "$a" OTHER-42
done

a=$(vd_answer_of x-review)
check_match "x-review: the runner ran" "RUNNER-RAN proj-$CTL_RUN" "$a"
check_match "x-review: (codex cannot limit it) the other command ran too" \
    'OTHER-42' "$a"
check_match "x-review: its write to /work was refused by the mount" \
    'Read-only file system' "$a"
check "control: the did-not-run check fails where the command ran" \
    not lacks "$a" OTHER-42

for p in execute fix; do
    n=x-$p
    a=$(vd_answer_of "$n")
    check_match "$n: the command tool was offered" \
        '(^|,)tools\.exec_command(,|$)' "$(vd_tools_of "$n")"
    check_match "$n: the runner ran" "RUNNER-RAN proj-$CTL_RUN" "$a"
    check_match "$n: the edit landed in /work" 'written-by-codex' "$a"
    check_match "$n: the write into .git was refused" \
        'touch /work/.git/evil => .*Read-only file system' "$a"
    read -r before after <<<"$(ws_git_digests "$n")"
    check_match "$n: .git digest recorded" '^sha256:' "$before"
    check_eq "$n: .git unchanged" "$before" "$after"
    wait_changes "$n"
    check_match "$n: the edit came back (agentctl changes --stat)" \
        '(^|
) A NEW\.md' "$(actl changes "$n" --stat)"
    check_match "$n: and its diff holds the new line" '\+written-by-codex' \
        "$(actl changes "$n")"
done

tunnels=$(vd_agent_tunnels)
echo "# agent tunnels:"
sed 's/^/#   /' <<<"$tunnels"
check_eq "every agent connection went to the vendor's host, allowed" \
    "$VD_HOST:443 200" "$tunnels"
recs=$(vd_records)
check "the API key reached the vendor as authorization" \
    test -n "$(jq -r 'select(.headers.authorization == "<redacted>") | 1' \
        <<<"$recs")"
check "the API key is not in the vendor's record" lacks "$recs" "$CRED_TOKEN"
ctl_finish
