#!/usr/bin/env bash
# genman.sh - write the manual pages from the sources --help and the docs
# are made of, so the pages cannot drift from them (issue 38):
#
#   agentctl.1                 agentctl --help and every COMMAND --help
#                              (the command table, cli/cli_commands.c)
#   agent-controller.8         agent-controller --help (the flag table,
#                              controller/loop/loop_flags.c)
#   agent-controller.yaml.5    docs/config.md (its key table is the one
#                              place the keys are described)
#
#   packaging/genman.sh AGENTCTL AGENT_CONTROLLER CONFIG_MD OUTDIR VERSION
#
# The build runs it (packaging/CMakeLists.txt); the pages render without a
# groff warning (tests/integration/package/test_man_pages.sh checks that
# and that every config key is on the page).
set -euo pipefail

[ $# -eq 5 ] || {
    echo "usage: genman.sh AGENTCTL AGENT_CONTROLLER CONFIG_MD OUTDIR VERSION" >&2
    exit 2
}
agentctl=$1 controller=$2 config_md=$3 out=$4 version=$5
mkdir -p "$out"
# No date in the header: the same sources make the same page (a package
# build stays reproducible).
LC_ALL=C
export LC_ALL

# help_roff: a --help text as man(7): "Heading:" lines bold, flag and
# command rows (agentctl's "  -o, --output FORMAT   what", the
# controller's "  --resync D" over an indented meaning, "  get   what")
# as tagged paragraphs, the rest as filled text; roff's escape character
# and a leading control character made literal, dashes as minus signs.
help_roff() {
    awk '
function esc(s) {
    gsub(/\\/, "\\e", s)
    gsub(/-/, "\\-", s)
    if (s ~ /^[.\047]/)
        s = "\\&" s
    return s
}
/^$/ { print ".PP"; tp = 0; next }
/^[A-Z][A-Za-z ]*:$/ { print ".PP"; print "\\fB" esc($0) "\\fR"; tp = 0; next }
# a row: a flag at indent 2, a flag at 6 with its meaning beside it (a
# line of a meaning may start with a flag too, but has no wide gap), or
# a command and its summary
/^  (-[a-zA-Z], )?--[a-z]/ || /^      --[a-z][^ ]*( [^ ]+)?  +[^ ]/ ||
/^  [a-z][a-z-]*  +[^ ]/ {
    row = $0
    sub(/^ +/, "", row)
    if (match(row, /  +/)) {            # the meaning on the same line
        tag = substr(row, 1, RSTART - 1)
        what = substr(row, RSTART + RLENGTH)
    } else {                            # the meaning on the lines below
        tag = row
        what = ""
    }
    print ".TP"
    print "\\fB" esc(tag) "\\fR"
    if (what != "")
        print esc(what)
    tp = 1
    next
}
# the meaning of a flag row above, on lines of its own: filled with it
tp && /^      [^ ]/ { sub(/^ +/, ""); print esc($0); next }
# other indented lines (under "Exit codes:", say) keep their line breaks
/^  / { sub(/^ +/, ""); print ".br"; print esc($0); tp = 0; next }
{ tp = 0; print esc($0) }
'
}

# help_body: a --help output without its "usage:" lines (the page has its
# own SYNOPSIS).
help_body() {
    awk 'NR == 1 && /^usage:/ { skip = 1; next }
         skip && /^ +[a-z]/ { next }
         { skip = 0; print }'
}

{
    echo ".TH AGENTCTL 1 \"\" \"agentctl $version\" \"User Commands\""
    echo ".SH NAME"
    echo "agentctl \\- declare, inspect and follow AgentInvocation resources"
    echo ".SH SYNOPSIS"
    echo ".B agentctl"
    echo "[\\fIGLOBAL FLAGS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR] [\\fIFLAGS\\fR]"
    echo ".SH DESCRIPTION"
    echo "agentctl reads and writes the store of agent-controller(8): a"
    echo "directory of spec files (\\fB\\-\\-specs\\fR) or etcd"
    echo "(\\fB\\-\\-etcd\\fR). It never talks to Docker. Exit codes: 0"
    echo "success, 1 failure (invalid, not found, timed out), 2 usage."
    echo ".PP"
    "$agentctl" --help | help_body | help_roff
    echo ".SH COMMANDS"
    # the command names: the lines under "Commands:" in the help
    for cmd in $("$agentctl" --help |
        awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1; next }
             on { exit }'); do
        echo ".SS \"agentctl $cmd\""
        "$agentctl" "$cmd" --help | help_roff
    done
    echo ".SH ENVIRONMENT"
    echo "AGENTCTL_SPECS, AGENTCTL_STATE, AGENTCTL_ETCD, AGENTCTL_ETCD_PREFIX,"
    echo "AGENTCTL_ETCD_CACERT, AGENTCTL_ETCD_CERT, AGENTCTL_ETCD_KEY,"
    echo "AGENTCTL_ETCD_USER and AGENTCTL_ETCD_PASSWORD give the global flags"
    echo "of the same name."
    echo ".SH SEE ALSO"
    echo "agent-controller(8), agent-controller.yaml(5)"
} >"$out/agentctl.1"

{
    echo ".TH AGENT-CONTROLLER 8 \"\" \"agentctl $version\" \"System Administration\""
    echo ".SH NAME"
    echo "agent-controller \\- run AI coding agents boxed in Docker"
    echo ".SH SYNOPSIS"
    echo ".B agent-controller"
    echo "\\fB\\-\\-specs\\fR \\fIDIR\\fR | \\fB\\-\\-etcd\\fR \\fIURL\\fR[,\\fIURL\\fR] [\\fIFLAGS\\fR]"
    echo ".SH DESCRIPTION"
    "$controller" --help | help_body | help_roff
    echo ".SH FILES"
    echo "/etc/agentctl/controller.yaml, the configuration (agent-controller.yaml(5));"
    echo "/etc/agentctl/secrets, the credential files;"
    echo "/var/lib/agentctl, the specs, state and workspaces of the systemd unit"
    echo "agent-controller.service."
    echo ".SH SEE ALSO"
    echo "agentctl(1), agent-controller.yaml(5)"
} >"$out/agent-controller.8"

# The config page from docs/config.md: headings, paragraphs, lists, code
# blocks and the key table (one .TP per key), links and backquotes made
# plain or bold.
{
    echo ".TH AGENT-CONTROLLER.YAML 5 \"\" \"agentctl $version\" \"File Formats\""
    echo ".SH NAME"
    echo "agent-controller.yaml \\- the configuration of agent-controller(8)"
    awk -f - "$config_md" <<'AWK'
function inline(s) {
    gsub(/\\\|/, "\001", s)           # a table's escaped pipe
    gsub(/\\/, "\\e", s)
    while (match(s, /\[[^]]*\]\([^)]*\)/)) {
        t = substr(s, RSTART + 1, RLENGTH - 1)
        sub(/\]\(.*/, "", t)
        s = substr(s, 1, RSTART - 1) t substr(s, RSTART + RLENGTH)
    }
    while (match(s, /\*\*[^*]+\*\*/))
        s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 2, RLENGTH - 4) \
            "\\fR" substr(s, RSTART + RLENGTH)
    while (match(s, /`[^`]*`/))
        s = substr(s, 1, RSTART - 1) "\\fB" substr(s, RSTART + 1, RLENGTH - 2) \
            "\\fR" substr(s, RSTART + RLENGTH)
    gsub(/→/, "->", s)
    return s
}
function text(s) {
    s = inline(s)
    if (s ~ /^[.']/)
        s = "\\&" s
    print s
}
function cell(s) { gsub(/^ +| +$/, "", s); gsub(/\001/, "|", s); return s }
BEGIN { first = 1 }
NR == 1 { next }                       # the title: the page's NAME
/^```/ { if (code) { print ".fi"; print ".RE"; code = 0 }
         else { print ".RS"; print ".nf"; code = 1 }
         next }
code { gsub(/\\/, "\\e"); if ($0 ~ /^[.']/) $0 = "\\&" $0; print; next }
/^## / { sub(/^## /, ""); print ".SH \"" toupper($0) "\""; first = 1; next }
/^### / { sub(/^### /, ""); print ".SS \"" $0 "\""; next }
/^\| *---/ { next }
/^\| key / { next }
/^\|/ {
    row = $0
    gsub(/\\\|/, "\001", row)
    n = split(row, c, "|")
    print ".TP"
    text(cell(c[2]))
    text("(" cell(c[3]) "; default: " cell(c[4]) ")")
    text(cell(c[5]))
    next
}
/^- / { sub(/^- /, ""); print ".IP \\(bu 2"; text($0); next }
/^$/ { if (!first) print ".PP"; first = 0; next }
{ if (NR == 3 && !started) { print ".SH DESCRIPTION"; started = 1 }
  text($0) }
AWK
    echo ".SH SEE ALSO"
    echo "agent-controller(8), agentctl(1)"
} >"$out/agent-controller.yaml.5"
