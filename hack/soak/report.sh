# shellcheck shell=bash
# report.sh - the soak's table (sourced by run.sh): what ran, what was
# injected, what each invariant counted. Printed, and written to
# SOAK_REPORT when set (docs/reliability.md keeps the 60-minute one).

# tally FILE FIELD: "<value> <count>" of FIELD in FILE's lines, by value.
tally() {
    [ -s "$1" ] || return 0
    awk -v f="$2" '{ n[$f]++ } END { for (k in n) print k, n[k] }' "$1" | sort
}

# joined: "a 1, b 2" from "a 1" lines.
joined() { paste -sd, - | sed 's/,/, /g'; }

# healthz_quantiles: p50, p99 and the worst /healthz time of every sample
# that got an answer, in ms.
healthz_quantiles() {
    awk '$6 != "000" { print $7 * 1000 }' "$SOAK/samples" 2>/dev/null | sort -n |
        awk 'function at(q,   i) { i = int(NR * q); return v[i < 1 ? 1 : i] }
            { v[NR] = $1 }
            END { if (NR) printf "%.1f / %.1f / %.1f ms (%d samples)",
                at(0.5), at(0.99), v[NR], NR }'
}

report_rows() {
    local faults none
    faults=$(awk '$3 != "none" { print $2 }' "$SOAK/faults" 2>/dev/null | sort |
        uniq -c | awk '{ print $2, $1 }' | joined)
    none=$(awk '$3 == "none" { print $2 }' "$SOAK/faults" 2>/dev/null | sort |
        uniq -c | awk '{ print $2, $1 }' | joined)
    echo "| run | ${SOAK_SECONDS} s of load, a fault every ${SOAK_FAULT_EVERY} s, $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null), $(date -u +%Y-%m-%d) |"
    echo "| controllers | directory lane d and etcd's b: ${SAN_CONTROLLER#"$ROOT"/}; etcd's a: ${CONTROLLER#"$ROOT"/} |"
    echo "| faults injected | $(count_lines "$SOAK/faults"): ${faults:-none} |"
    [ -z "$none" ] || echo "| faults with nothing to hit | $none |"
    echo "| actions | $(tally "$SOAK/actions" 3 | joined) |"
    echo "| agents started (attempts) | $(awk '{ print $3 "/" $4 }' "$SOAK/starts" 2>/dev/null | sort -u | grep -c . || true) |"
    echo "| phases at the end of the load | $(tally "$SOAK/final-list" 3 | joined) |"
    echo "| lost (never settled) | ${LOST:-?} |"
    echo "| started twice | $(twice_started "$SOAK/starts" | grep -c . || true) |"
    echo "| leaked after every delete | ${LEAKED:-?} |"
    echo "| credential found | $(cat "$SOAK/violations" 2>/dev/null | awk '/credential/ { n++ } END { print n + 0 }') |"
    echo "| controller lives of 2 min or more: RSS kB (2nd fifth -> last fifth), fds | $(awk '{ printf "%s%s/%s: %s -> %s, %s -> %s %s", (NR > 1 ? "; " : ""), $1, $2, $4, $5, $6, $7, $8 }' "$SOAK/growth" 2>/dev/null) |"
    echo "| /healthz p50 / p99 / worst | $(healthz_quantiles) |"
    echo "| violations | $(count_lines "$SOAK/violations") |"
}

report() {
    {
        echo "| | |"
        echo "| --- | --- |"
        report_rows
        if [ -s "$SOAK/violations" ]; then
            echo
            sed 's/^/- /' "$SOAK/violations"
        fi
    } >"$SOAK/report.md"
    cat "$SOAK/report.md"
    [ -z "${SOAK_REPORT:-}" ] || cp "$SOAK/report.md" "$SOAK_REPORT"
}

# check_verdict: one check per invariant, so the runner's count says what
# held; any violation fails the soak.
check_verdict() {
    check_eq "no invocation lost" 0 "${LOST:-?}"
    check_eq "no attempt started twice" "" "$(twice_started "$SOAK/starts")"
    check_eq "nothing left on the daemon" 0 "${LEAKED:-?}"
    check_eq "no violation" 0 "$(count_lines "$SOAK/violations")"
}
