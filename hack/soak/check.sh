# shellcheck shell=bash
# check.sh - the soak's invariants, samples and report (sourced by run.sh).
# Each invariant is a function over data (the start events, the object
# list, the files, the samples), so check_selftest can run it on planted
# violations first: a check that cannot fail is no check.
LEAK_GRACE=${SOAK_LEAK_GRACE:-180} # s after a delete before objects are leaks
SOAK_DRAIN=${SOAK_DRAIN:-300}

count_lines() { if [ -s "$1" ]; then grep -c . "$1"; else echo 0; fi; }

violation() {
    echo "VIOLATION: $*" >&2
    echo "$(date +%s) $*" >>"$SOAK/violations"
}

# follow_agent_starts: every agent start on the daemon, one line each
# ("<time ns> <container id> <uid> <attempt>") in $SOAK/starts; a stream
# that ends (the daemon restarted) is opened again with an overlapping
# --since, so a start may be written twice and counts once.
follow_agent_starts() {
    local since=$(($(date +%s) - 1))
    while :; do
        docker events --since "$since" --filter type=container \
            --filter event=start --filter label=agentctl.dev/role=agent \
            --format '{{.TimeNano}} {{.ID}} {{index .Actor.Attributes
            "agentctl.dev/uid"}} {{index .Actor.Attributes
            "agentctl.dev/attempt"}}' >>"$SOAK/starts" 2>/dev/null
        since=$(($(date +%s) - 2))
        sleep 0.5
    done
}

# starts_of_uid UID: how many distinct agent starts UID had so far.
starts_of_uid() {
    [ -n "$1" ] || { echo 0 && return 0; }
    awk -v u="$1" '$3 == u { print $1, $2 }' "$SOAK/starts" 2>/dev/null |
        sort -u | grep -c . || true
}

# twice_started STARTS-FILE: "<uid>/<attempt> <starts>" of every attempt
# whose agent started more than once (nothing when the invariant holds).
# Attempt IDs count per invocation (1, 2, ...): the uid makes them one.
twice_started() {
    awk '{ print $3 "/" $4, $1, $2 }' "$1" 2>/dev/null | sort -u |
        awk '{ n[$1]++ } END { for (a in n) if (n[a] > 1) print a, n[a] }'
}

# key_files PATH...: the files under PATH that hold the credential.
key_files() {
    grep -rlF -- "$CRED_TOKEN" "$@" 2>/dev/null || true
}

# etcd_key_values: the etcd keys of the lane's prefix whose value holds
# the credential.
etcd_key_values() {
    curl -fsS --max-time 10 "$ETCD_URL/v3/kv/range" -d "{\"key\":\"$(ekey \
        '')\",\"range_end\":\"$(printf '%s0' "$PFX" | base64 -w0)\"}" \
        2>/dev/null | jq -r '.kvs[]? | "\(.key) \(.value)"' |
        while read -r k v; do
            base64 -d <<<"$v" 2>/dev/null | grep -qF -- "$CRED_TOKEN" &&
                base64 -d <<<"$k"
        done
    return 0
}

# daemon_objects: "<kind> <id> <uid>" of every invocation object on the
# (private) daemon.
daemon_objects() {
    {
        docker ps -a --filter label=agentctl.dev/uid --format \
            'container {{.ID}} {{index .Labels "agentctl.dev/uid"}}'
        docker network ls --filter label=agentctl.dev/uid -q |
            xargs -r docker network inspect -f \
                'network {{.Id}} {{index .Labels "agentctl.dev/uid"}}'
        docker volume ls --filter label=agentctl.dev/uid -q |
            xargs -r docker volume inspect -f \
                'volume {{.Name}} {{index .Labels "agentctl.dev/uid"}}'
    } 2>/dev/null
}

# leaked OBJECTS DELETED-FILE NOW: the objects (daemon_objects lines) of
# invocations deleted more than LEAK_GRACE s before NOW (a name applied
# again gets a new uid, so its new objects are not counted).
leaked() {
    [ -s "$2" ] && [ -n "$1" ] || return 0
    awk -v now="$3" -v grace="$LEAK_GRACE" '
        NR == FNR { if (now - $1 > grace) gone[$4] = 1; next }
        $3 in gone
    ' "$2" <(printf '%s\n' "$1")
}

# sample_controllers: every 5 s, "<epoch> <lane> <pid> <rss kB> <fds>
# <healthz code> <healthz s>" of each controller that runs.
sample_controllers() {
    local n pid addr rss fds hz
    while sleep 5; do
        for n in d a b; do
            read -r pid addr <"$SOAK/pid-$n" 2>/dev/null || continue
            [ -d "/proc/$pid" ] || continue
            rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
            fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | grep -c .)
            hz=$(curl -s -o /dev/null --max-time 30 -w '%{http_code} %{time_total}' \
                "http://$addr/healthz" 2>/dev/null)
            echo "$(date +%s) $n $pid ${rss:-0} $fds ${hz:-000 30}" >>"$SOAK/samples"
        done
    done
}

# growth SAMPLES [RSS-LANES]: "<lane> <pid> <n> <rss first> <rss last>
# <fds first> <fds last> GROWS|ok" for each controller life of at least
# 24 samples (2 min): the medians of its second fifth and its last fifth
# (the first fifth is start-up). RSS grows when the last is over 1.5x the
# first plus 8 MiB (judged for the lanes in RSS-LANES, default all: a
# sanitized build's quarantine grows by design), fds when over the first
# plus 64.
growth() {
    local rss_lanes=${2:-all} judge
    awk '{ k = $2 " " $3; n[k]++ } END { for (k in n) print k, n[k] }' "$1" |
        while read -r lane pid cnt; do
        [ "$cnt" -ge 24 ] || continue
        judge=0
        if [ "$rss_lanes" = all ] || [[ " $rss_lanes " == *" $lane "* ]]; then
            judge=1
        fi
        awk -v l="$lane" -v p="$pid" -v c="$cnt" -v judge="$judge" '
            function med(a, lo, hi,   m, i, j, t, v) {
                m = 0
                for (i = lo; i < hi; i++) v[m++] = a[i]
                for (i = 1; i < m; i++) for (j = i; j > 0 && v[j-1] > v[j]; j--) {
                    t = v[j]; v[j] = v[j-1]; v[j-1] = t }
                return v[int(m / 2)]
            }
            $2 == l && $3 == p { i++; r[i] = $4; f[i] = $5 }
            END {
                a = int(c / 5) + 1; b = int(2 * c / 5) + 1; z = int(4 * c / 5) + 1
                r1 = med(r, a, b); r2 = med(r, z, c + 1)
                f1 = med(f, a, b); f2 = med(f, z, c + 1)
                v = ((judge && r2 > 1.5 * r1 + 8192) || f2 > f1 + 64) ? "GROWS" : "ok"
                print l, p, c, r1, r2, f1, f2, v
            }' "$1"
    done
}

# stalls SAMPLES: the samples whose /healthz took 10 s or more, or got no
# answer at all (the loop stalled).
stalls() {
    awk '$6 == "000" || $7 >= 10' "$1" 2>/dev/null
}

# check_selftest: each check above finds a violation planted in data of
# the shape it reads, and stays quiet on clean data.
check_selftest() {
    local t=$TEST_TMP/selftest
    mkdir -p "$t/dir"
    printf '%s\n' "1 c1 u1 a1" "1 c1 u1 a1" "2 c2 u2 a1" >"$t/starts"
    check_eq "selftest: a start seen twice by the follower counts once" "" \
        "$(twice_started "$t/starts")"
    echo "9 c1 u1 a1" >>"$t/starts"
    check_eq "selftest: an attempt started twice is found" "u1/a1 2" \
        "$(twice_started "$t/starts")"
    echo "status: ok" >"$t/dir/clean.json"
    check_eq "selftest: no key, no finding" "" "$(key_files "$t/dir")"
    echo "{\"x\":\"$CRED_TOKEN\"}" >"$t/dir/status.json"
    check_eq "selftest: a key in a file is found" "$t/dir/status.json" \
        "$(key_files "$t/dir")"
    echo "100 d s-d-1 u1" >"$t/deleted"
    check_eq "selftest: objects of a recent delete are no leak yet" "" \
        "$(leaked "container c1 u1" "$t/deleted" 150)"
    check_eq "selftest: objects of an old delete are a leak" "container c1 u1" \
        "$(leaked $'container c1 u1\ncontainer c2 u2' "$t/deleted" $((101 + LEAK_GRACE)))"
    for i in $(seq 1 30); do echo "$i d 7 $((20000 + i * 2000)) 20 200 0.01"; done >"$t/grow"
    for i in $(seq 1 30); do echo "$i d 8 20000 20 200 0.01"; done >"$t/flat"
    check_match "selftest: a growing RSS is found" "GROWS$" "$(growth "$t/grow")"
    check_match "selftest: a flat RSS is not" " ok$" "$(growth "$t/flat")"
    check_match "selftest: a sanitized lane's RSS is not judged" " ok$" \
        "$(growth "$t/grow" a)"
    check_match "selftest: the plain lane's is" "GROWS$" "$(growth "$t/grow" d)"
    echo '{"msg":"phase"}' >"$t/clean.log"
    check_eq "selftest: a clean log has no sanitizer report" "" \
        "$(sanitized_logs "$t/clean.log")"
    echo "==1==ERROR: AddressSanitizer: heap-use-after-free" >"$t/asan.log"
    check_eq "selftest: an ASan report is found" "$t/asan.log" \
        "$(sanitized_logs "$t/clean.log" "$t/asan.log")"
    echo "1 d 8 20000 20 000 30.0" >>"$t/flat"
    check_eq "selftest: a /healthz without answer is a stall" 1 \
        "$(stalls "$t/flat" | grep -c .)"
}

# ctl_lives: 0 when each of the three controllers still runs; a dead one
# is a violation, and it is started again so the soak goes on.
ctl_lives() {
    if ! ctl_alive; then
        violation "the directory lane's controller died: $(tail -n 5 "$CTL_LOG")"
        start_d
    fi
    for n in a b; do
        sc_alive "$n" && continue
        violation "etcd controller $n died: $(tail -n 5 "$TEST_TMP/ctl-$n.log")"
        start_e "$n"
    done
}

# sanitizer_reports: a report of ASan, LeakSanitizer or UBSan in a
# controller's log is a violation (the controller died of it, or leaked).
sanitizer_reports() {
    local hits
    hits=$(sanitized_logs "$CTL_LOG" "$TEST_TMP"/ctl-*.log)
    [ -z "$hits" ] || violation "sanitizer report in $(tr '\n' ' ' <<<"$hits")"
}

# sanitized_logs FILE...: the files that hold a sanitizer's report.
sanitized_logs() {
    grep -l -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$@" 2>/dev/null
    return 0
}

# check_round WHAT: the invariants that must hold at any moment.
check_round() {
    local twice keys left
    sanitizer_reports
    ctl_lives
    twice=$(twice_started "$SOAK/starts")
    [ -z "$twice" ] || violation "$1: started twice: $twice"
    keys=$(key_files "$STATE" "$TEST_TMP"/state-* "$CTL_LOG" "$TEST_TMP"/ctl-*.log)
    [ -z "$keys" ] || violation "$1: the credential is in $keys"
    left=$(leaked "$(daemon_objects)" "$SOAK/deleted" "$(date +%s)")
    [ -z "$left" ] || violation "$1: objects of deleted invocations: $left"
    echo "# $1: $(count_lines "$SOAK/actions") actions," \
        "$(count_lines "$SOAK/violations") violations"
}

# lane_unsettled LANE: the lane's invocations that are neither terminal
# nor running with a live agent ("<name> <phase>").
lane_unsettled() {
    local name uid phase
    lane_list "$1" | while read -r name uid phase; do
        [[ $phase =~ $TERMINAL_RE ]] && continue
        if [ "$phase" = Running ] && [ -n "$(docker ps -q --filter \
            "label=agentctl.dev/uid=$uid" --filter label=agentctl.dev/role=agent)" ]; then
            continue
        fi
        echo "$1/$name $phase"
    done
}

# lane_open LANE: the lane's invocations not in a terminal phase.
lane_open() {
    lane_list "$1" | awk -v l="$1" -v re="$TERMINAL_RE" '$3 !~ re { print l "/" $1, $3 }'
}

# check_final: the load stops; every invocation must end (bounded by
# SOAK_DRAIN: deadlines are 120 s); one still running then must have a
# live agent, anything else is lost. Then all are deleted and nothing
# may be left on the daemon.
check_final() {
    local end=$((SECONDS + SOAK_DRAIN)) left
    while [ -n "$( (lane_open d; lane_open e))" ] && [ "$SECONDS" -lt "$end" ]; do
        sleep 2
    done
    (lane_list d; lane_list e) >"$SOAK/final-list"
    for lane in d e; do # an empty list must be one the store gave
        lane_ctl "$lane" get -o name >/dev/null 2>&1 ||
            violation "lane $lane: the store could not be listed at the end"
    done
    LOST=$( (lane_unsettled d; lane_unsettled e) | tee "$SOAK/lost" | grep -c . || true)
    [ "$LOST" -eq 0 ] || violation "never settled: $(tr '\n' ';' <"$SOAK/lost")"
    check_round "end of load"
    for lane in d e; do
        lane_list "$lane" | while read -r name _; do
            lane_ctl "$lane" delete "$name" >/dev/null 2>&1
        done
    done
    rm -f "$SPECS"/s-hostile-*.yaml
    for n in 0 1 2; do
        curl -fsS --max-time 5 "$ETCD_URL/v3/kv/deleterange" \
            -d "{\"key\":\"$(ekey specs/s-hostile-$n)\"}" >/dev/null 2>&1 || true
    done
    end=$((SECONDS + 300))
    while left=$(daemon_objects) && [ -n "$left" ] && [ "$SECONDS" -lt "$end" ]; do
        sleep 2
    done
    LEAKED=$(grep -c . <<<"$left" || true)
    [ -z "$left" ] || violation "left on the daemon after every delete: $(tr '\n' ';' <<<"$left")"
    KEYS_ETCD=$(etcd_key_values)
    [ -z "$KEYS_ETCD" ] || violation "the credential is in etcd: $KEYS_ETCD"
    check_round "after the deletes"
    growth "$SOAK/samples" "$RSS_LANES" >"$SOAK/growth"
    grep -q GROWS "$SOAK/growth" &&
        violation "a controller grows: $(grep GROWS "$SOAK/growth" | tr '\n' ';')"
    stalls "$SOAK/samples" >"$SOAK/stalls"
    [ ! -s "$SOAK/stalls" ] ||
        violation "/healthz stalled: $(tr '\n' ';' <"$SOAK/stalls")"
    return 0
}
