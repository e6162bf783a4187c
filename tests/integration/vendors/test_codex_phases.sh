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
#   every phase: codex's shell tool is off (tools.exec_command absent, a
#     command asked for anyway does not run: "not a function");
#   planning, questions: no runner tool either (tools.mcp__agentctl__run
#     absent);
#   review: the runner tool (agent-launch --mcp-runner, its one MCP
#     server, approved ahead) runs the runner outside codex's Landlock
#     domain; the other command does not run (before agent-launch codex
#     ran any command here);
#   execute, fix: the runner ran through the tool, apply_patch wrote
#     NEW.md in /work (codex's sandbox mode danger-full-access decides only
#     that: its shell is off and the launcher's domain is the sandbox), a
#     patch into .git was refused, the .git digests are equal, and the
#     edit comes back in the change set (agentctl changes).
#
# Negative control: the "did not run" check is run on a text where the
# marker is present and must fail there.
source "$(dirname "$0")/lib_vendors.sh"
vd_init codex
ctl_start
vd_watch_proxies

# js_cmd CMD: JavaScript for codex's code-mode exec tool running CMD with
# tools.exec_command (the shell tool) and printing what it gave back.
js_cmd() {
    jq -rn --arg c "$1" '"try { const r = await tools.exec_command({cmd: \($c | tojson)}); text(\($c | tojson) + \" => \" + JSON.stringify(r)); } catch (e) { text(\($c | tojson) + \" => refused: \" + e); }"'
}
# JS_RUN: the runner tool, without arguments.
JS_RUN='try { const r = await tools.mcp__agentctl__run({}); text("RUN => " + JSON.stringify(r)); } catch (e) { text("RUN refused: " + e); }'
# js_patch PATH TEXT: apply_patch adding PATH (relative to /work) with TEXT.
js_patch() {
    jq -rn --arg p "$1" --arg t "$2" '"try { const r = await tools.apply_patch(\("*** Begin Patch\n*** Add File: \($p)\n+\($t)\n*** End Patch\n" | tojson)); text(\("PATCH \($p) => " | tojson) + JSON.stringify(r)); } catch (e) { text(\("PATCH \($p) refused: " | tojson) + e); }"'
}
# exec_call JS...: the CALL line of one code-mode exec running each JS.
exec_call() {
    printf 'CALL exec %s' "$(jq -cn --arg j "$(printf '%s\n' "$@")" '{input: $j}')"
}

# the marker it prints (OTHER-42) is not in the command's own text, which
# codex's answers quote
OTHER='echo OTHER-$((40 + 2)); touch /work/pwned'
for p in planning questions; do
    vd_spec "x-$p" "$p" "$(vd_prompt "x-$p" \
        "$(exec_call "$(js_cmd "$OTHER")" "$JS_RUN")")"
done
vd_spec x-review review "$(vd_prompt x-review \
    "$(exec_call "$JS_RUN" "$(js_cmd "$OTHER")")")" "runner: [sh, check.sh]"
for p in execute fix; do
    vd_spec "x-$p" "$p" "$(vd_prompt "x-$p" "$(exec_call "$JS_RUN" \
        "$(js_patch NEW.md written-by-codex)" "$(js_patch .git/evil x)" \
        "$(js_cmd "$OTHER")")")" "runner: [sh, check.sh]"
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
    check "$n: no MCP server tool but the runner's in any request" \
        not grep -qE '(^|,)[^,]*mcp__' <<<"${tools//tools.mcp__agentctl__run/}"
done

for p in planning questions review execute fix; do
    n=x-$p
    a=$(vd_answer_of "$n")
    check "$n: no shell tool offered" \
        not grep -qE '(^|,)tools\.exec_command(,|$)' <<<"$(vd_tools_of "$n")"
    check_match "$n: a command asked for anyway was refused" \
        'OTHER-\$\(\(40 \+ 2\)\).* => refused: .*not a function' "$a"
    check "$n: and did not run" lacks "$a" OTHER-42
done
check "control: the did-not-run check fails where the marker is" \
    not lacks "echo => OTHER-42" OTHER-42

for p in planning questions; do
    n=x-$p
    check_match "$n: no runner tool: asked for anyway, it is not there" \
        'RUN refused: .*not a function' "$(vd_answer_of "$n")"
done

for p in review execute fix; do
    n=x-$p
    a=$(vd_answer_of "$n")
    # (code mode keeps MCP tools out of the nested tool catalogue the
    # vendor records: measured on 0.171.0; the call is the proof)
    check_match "$n: the runner ran through the runner tool" \
        "RUN => .*exit code 0.*RUNNER-RAN proj-$CTL_RUN" "$a"
done

for p in execute fix; do
    n=x-$p
    a=$(vd_answer_of "$n")
    check_match "$n: apply_patch wrote NEW.md" 'PATCH NEW.md => ' "$a"
    check_match "$n: the patch into .git was refused" \
        'PATCH .git/evil refused: .*Failed to write file /work/\.git/evil' "$a"
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
