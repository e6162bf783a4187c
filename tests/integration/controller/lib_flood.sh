# shellcheck shell=bash
# lib_flood.sh - the egress audit scenarios' agent (source it after
# lib_controller.sh): tests/images/connect_flood.c built static by the
# test (cc -static) into a test image FROM the testbox, and helpers that
# read an invocation's audit.
#
#   flood_image            FLOOD_IMAGE=agentctl-test/flood:<run>, removed
#                          at the end; its /connect-flood N PREFIX
#                          [WORKERS [PAUSE_MS]] sends N refused CONNECTs
#                          (target i: <PREFIX><i>.test:443)
#   egress_file NAME       the invocation's egress.jsonl
#   wait_egress_read NAME  cleanup kept the audit (progress.egressRead)
#   flood_lines NAME PFX   lines of NAME's audit whose target starts PFX
#   flood_unique NAME PFX  the distinct targets among them
#   ctl_rss_kib            the running controller's VmRSS (KiB)

FLOOD_IMAGE=

flood_image() {
    local ctx=$TEST_TMP/flood
    command -v cc >/dev/null || skip "no C compiler for connect-flood"
    mkdir -p "$ctx"
    cc -static -O2 -o "$ctx/connect-flood" \
        "$ROOT/tests/images/connect_flood.c" ||
        fail "cannot build connect-flood (static)"
    printf 'FROM %s\nCOPY connect-flood /connect-flood\n' "$BOX_IMAGE" \
        >"$ctx/Dockerfile"
    FLOOD_IMAGE=agentctl-test/flood:$CTL_RUN
    docker build -q --label "$TEST_LABEL" -t "$FLOOD_IMAGE" "$ctx" \
        >/dev/null || fail "cannot build $FLOOD_IMAGE"
    on_cleanup "docker rmi -f $FLOOD_IMAGE >/dev/null 2>&1"
}

egress_file() { echo "$STATE/output/$1.egress.jsonl"; }

wait_egress_read() {
    wait_progress "$1" egressRead "the egress audit was never finished"
}

# flood_targets NAME PREFIX: the flood's targets in NAME's egress file,
# one per line (none while there is no file)
flood_targets() {
    local f
    f=$(egress_file "$1")
    [ -e "$f" ] || return 0
    grep -o "\"target\":\"$2[0-9]*\\.test:443\"" "$f" || true
}

flood_lines() { flood_targets "$@" | grep -c . || true; }

flood_unique() { flood_targets "$@" | sort -u | grep -c . || true; }

ctl_rss_kib() {
    awk '/^VmRSS:/ { print $2 }' "/proc/$CTL_PID/status" 2>/dev/null ||
        echo 0
}
