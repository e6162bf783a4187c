#!/usr/bin/env bash
# test_claude_phases.sh - the real Claude Code CLI (agentctl/claude-code,
# pinned in hack/images/vendor-clis.txt) in the box, in all five phases at
# once, against the TLS test vendor (tests/images/vendor/) through the
# egress proxy. The vendor asks for tool calls the phase allows and ones
# it does not (tv_reply.h scripts: CALL, then CALL2 to look at the result).
#
#   every phase: the CLI finishes the turn, its JSON envelope is the
#     captured output (result = the vendor's final text, is_error false),
#     exit code 0 in the status; it talked only to the vendor's host
#     through the proxy (tunnel log); no web or MCP tool was offered in any
#     request although the worktree's .claude/settings.json and .mcp.json
#     allow everything; the API key reached the vendor (x-api-key present)
#     but never its record;
#   planning, questions: offered exactly Read, Glob, Grep; Bash and Write
#     asked anyway are refused; the second round finds no file made;
#   review: Bash not offered, the runner tool (mcp__agentctl__run, served
#     by agent-launch outside the CLI's Landlock domain) is; the runner
#     ran through it; Bash asked for anyway, with a command Claude Code
#     would judge read-only (`echo PWNED-$((6*7))`, which ran through an
#     exact Bash rule before) or another, is refused; nothing written;
#   execute, fix: edit tools offered, Bash not; the Write landed (read
#     back in the second round), the runner ran through the runner tool,
#     Bash was refused, a write into .git was refused and the .git digests
#     before and after are equal; the Write came back in the change set
#     (agentctl changes).
#
# Negative controls: the checks that find "refused" and "no file" are run
# on the execute answer too, where the same calls succeed, and must fail
# there; the tunnel check must flag an invented denied line.
source "$(dirname "$0")/lib_vendors.sh"
vd_init claude
ctl_start
vd_watch_proxies

RO_CALLS=('CALL Read {"file_path":"/work/README.md"}'
    'CALL Bash {"command":"touch /work/pwned; echo OTHER-RAN"}'
    'CALL Write {"file_path":"/work/pwned","content":"x"}'
    'CALL WebFetch {"url":"https://example.com/","prompt":"x"}'
    'CALL2 Glob {"pattern":"pwned*","path":"/work"}')
REVIEW_CALLS=('CALL mcp__agentctl__run {}'
    'CALL Bash {"command":"touch /work/pwned; echo OTHER-RAN"}'
    'CALL Bash {"command":"echo PWNED-$((6*7))"}'
    'CALL2 Glob {"pattern":"pwned*","path":"/work"}')
RW_CALLS=('CALL Write {"file_path":"/work/NEW.md","content":"written-by-the-agent"}'
    'CALL mcp__agentctl__run {}'
    'CALL Bash {"command":"echo PWNED-$((6*7))"}'
    'CALL Write {"file_path":"/work/.git/evil","content":"x"}'
    'CALL2 Read {"file_path":"/work/NEW.md"}')
for p in planning questions; do
    vd_spec "c-$p" "$p" "$(vd_prompt "c-$p" "${RO_CALLS[@]}")"
done
vd_spec c-review review "$(vd_prompt c-review "${REVIEW_CALLS[@]}")" \
    "runner: [sh, check.sh]"
for p in execute fix; do
    vd_spec "c-$p" "$p" "$(vd_prompt "c-$p" "${RW_CALLS[@]}")" \
        "runner: [sh, check.sh]"
done

PHASES=(planning questions review execute fix)
for p in "${PHASES[@]}"; do
    n=c-$p
    check_eq "$n: Succeeded" Succeeded "$(wait_terminal "$n" 300)"
    check_eq "$n: the CLI's exit code is in the status" 0 \
        "$(status_field "$n" .exitCode)"
    env=$(agent_output "$n" | grep '^{' | tail -n 1 || true)
    [ -n "$env" ] || fail "$n: no JSON line in the output: $(agent_output "$n" |
        head -c 600)"
    check_eq "$n: the output is the JSON envelope of a successful turn" \
        "result success false" "$(jq -r '"\(.type) \(.subtype) \(.is_error)"' \
            <<<"$env")"
    check_eq "$n: its result is the vendor's final text" \
        "$(vd_answer_of "$n")" "$(jq -r .result <<<"$env")"
    tools=$(vd_tools_of "$n")
    echo "# $n offered: $tools"
    check "$n: no web tool and no MCP tool but the runner's in any request" \
        not grep -qE '(^|,)(WebFetch|WebSearch|mcp__[^,]*)(,|$)' \
        <<<"${tools//mcp__agentctl__run/}"
done

for p in planning questions; do
    n=c-$p
    a=$(vd_answer_of "$n")
    check_eq "$n: offered exactly Read, Glob, Grep" \
        "DeferredToolPlaceholder,Glob,Grep,Read" "$(vd_tools_of "$n")"
    check_match "$n: Read worked" "proj-$CTL_RUN" "$a"
    check "$n: the command asked for anyway did not run" lacks "$a" OTHER-RAN
    check_match "$n: Bash was refused" 'No such tool available: Bash' "$a"
    check_match "$n: Write was refused" 'No such tool available: Write' "$a"
    check_match "$n: nothing was made in /work" 'No files found' "$a"
done

a=$(vd_answer_of c-review)
check_eq "c-review: offered Read, Glob, Grep and the runner tool" \
    "DeferredToolPlaceholder,Glob,Grep,Read,mcp__agentctl__run" \
    "$(vd_tools_of c-review)"
check_match "c-review: the runner ran (the runner tool)" \
    "RUNNER-RAN proj-$CTL_RUN" "$a"
check "c-review: the other command did not" lacks "$a" OTHER-RAN
check "c-review: nor the one Claude Code judged read-only (PWNED-42)" \
    lacks "$a" PWNED-42
check_match "c-review: Bash was refused" 'No such tool available: Bash' "$a"
check_match "c-review: nothing was made in /work" 'No files found' "$a"

for p in execute fix; do
    n=c-$p
    a=$(vd_answer_of "$n")
    check_match "$n: the edit tools were offered" '(^|,)Write(,|$)' \
        "$(vd_tools_of "$n")"
    check "$n: Bash was not offered" \
        not grep -qE '(^|,)Bash(,|$)' <<<"$(vd_tools_of "$n")"
    check_match "$n: the Write landed in /work" 'written-by-the-agent' "$a"
    check_match "$n: the runner ran (the runner tool)" \
        "RUNNER-RAN proj-$CTL_RUN" "$a"
    check "$n: the other command did not (PWNED-42)" lacks "$a" PWNED-42
    # Claude Code's own rules refuse a write under .git before the
    # read-only mount would; the digests below are the hard layer
    check_match "$n: the write into .git was refused" \
        '\[error\] (Permission to use Write has been denied|[^-]*(EROFS|read-only))' "$a"
    read -r before after <<<"$(ws_git_digests "$n")"
    check_match "$n: .git digest recorded" '^sha256:' "$before"
    check_eq "$n: .git unchanged" "$before" "$after"
    wait_changes "$n"
    check_match "$n: the edit came back (agentctl changes --stat)" \
        '(^|
) A NEW\.md' "$(actl changes "$n" --stat)"
    check_match "$n: and its diff holds the new line" '\+written-by-the-agent' \
        "$(actl changes "$n")"
done
a=$(vd_answer_of c-execute)
check "control: the refusal checks fail where the calls succeed" \
    not grep -q 'No such tool available: Write' <<<"$a"

tunnels=$(vd_agent_tunnels)
echo "# agent tunnels:"
sed 's/^/#   /' <<<"$tunnels"
check_eq "every agent connection went to the vendor's host, allowed" \
    "$VD_HOST:443 200" "$tunnels"
check "control: a denied line would be seen" \
    not test "$(printf '%s\nx.invalid:443 403\n' "$tunnels" | sort -u)" == \
    "$VD_HOST:443 200"
recs=$(vd_records)
check "the API key reached the vendor as x-api-key" \
    test -n "$(jq -r 'select(.headers["x-api-key"] == "<redacted>") | 1' \
        <<<"$recs")"
check "the API key is not in the vendor's record" lacks "$recs" "$CRED_TOKEN"
check "control: the record does show header values" \
    grep -q 'claude-cli' <<<"$recs"
ctl_finish
