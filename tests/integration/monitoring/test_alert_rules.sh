#!/usr/bin/env bash
# test_alert_rules.sh - manifests/monitoring/: `promtool check rules` on the
# alert rules and `promtool test rules` on their unit tests (each alert
# fires on a series that should fire it and stays silent on one that
# should not); the dashboard is JSON (jq); every metric the rules and the
# dashboard query is one the code exports (the CTL_M_ names of
# controller/obs/obs_metrics.h, a `# TYPE` in proxy/ sources, and `up`, which
# Prometheus adds), and promtool parses every dashboard query; with the
# Docker daemon here, every metric is also one that a controller started
# on an empty specs dir declares on /metrics, where a SIGHUP with a
# broken config turns agentctl_config_last_reload_successful to 0 and a
# good one back to 1. Negative controls: a reload rule that cannot fire
# fails its unit test, a rule or a dashboard query with a syntax error is
# refused, a dashboard panel and a rule on a metric that does not exist
# (scratch copies) are caught, and so is a dashboard that is not JSON.
source "$(dirname "$0")/../lib.sh"

MON=$ROOT/manifests/monitoring
RULES=$MON/agentctl-alerts.yaml
RULE_TESTS=$MON/agentctl-alerts.test.yaml
DASH=$MON/agentctl-dashboard.json
USED=$ROOT/hack/monitoring/used-metrics.py
CONTROLLER=$BUILD/controller/agent-controller
command -v promtool >/dev/null ||
    fail "promtool is needed (Debian package prometheus; hack/setup.sh)"
command -v jq >/dev/null || fail "jq is needed (hack/setup.sh)"
/usr/bin/python3 -c 'import yaml' 2>/dev/null ||
    fail "python3-yaml is needed (hack/setup.sh)"

# --- the rules ----------------------------------------------------------
out=$(promtool check rules "$RULES" 2>&1) || fail "promtool check rules: $out"
check_match "promtool check rules: the rules load" "SUCCESS: [0-9]+ rules found" "$out"
n_alerts=$(grep -c '^ *- alert: ' "$RULES")
check "there are alerts ($n_alerts)" test "$n_alerts" -ge 8
out=$(cd "$MON" && promtool test rules "$(basename "$RULE_TESTS")" 2>&1) ||
    fail "promtool test rules: $out"
check_match "promtool test rules: every unit test passes" "SUCCESS" "$out"
# every alert has a unit test that expects it to fire and one that
# expects silence
for a in $(sed -n 's/^ *- alert: *//p' "$RULES"); do
    fires=$(/usr/bin/python3 - "$RULE_TESTS" "$a" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
f = s = 0
for t in doc["tests"]:
    for r in t.get("alert_rule_test", []):
        if r["alertname"] == sys.argv[2]:
            if r.get("exp_alerts"):
                f += 1
            else:
                s += 1
print(f, s)
PY
)
    check "$a: unit-tested firing and silent" \
        awk -v x="$fires" 'BEGIN { split(x, v, " "); exit !(v[1] > 0 && v[2] > 0) }'
done

# negative control: the same unit tests against a rule that never fires
cp "$RULE_TESTS" "$TEST_TMP/"
sed 's/expr: agentctl_config_last_reload_successful == 0/expr: agentctl_config_last_reload_successful == 7/' \
    "$RULES" >"$TEST_TMP/agentctl-alerts.yaml"
check "negative control: the mutation took" \
    grep -q 'reload_successful == 7' "$TEST_TMP/agentctl-alerts.yaml"
out=$(cd "$TEST_TMP" && promtool test rules agentctl-alerts.test.yaml 2>&1) && rc=0 || rc=$?
check "negative control: a reload alert that cannot fire fails its unit test" \
    test "$rc" -ne 0
check_match "  and promtool names it" "AgentctlConfigReloadFailed" "$out"
printf 'groups:\n  - name: x\n    rules:\n      - alert: Bad\n        expr: agentctl_docker_up ==\n' \
    >"$TEST_TMP/bad-rules.yaml"
check "negative control: promtool check rules refuses a broken expression" \
    bash -c '! promtool check rules "$1" >/dev/null 2>&1' _ "$TEST_TMP/bad-rules.yaml"

# --- the dashboard ------------------------------------------------------
check "the dashboard is JSON" \
    bash -c 'jq -e "type == \"object\"" "$1" >/dev/null' _ "$DASH"
n_panels=$(jq '[.panels[] | select(.type != "row")] | length' "$DASH")
check "the dashboard has panels ($n_panels)" test "$n_panels" -ge 10
check_eq "every panel has a query" 0 \
    "$(jq '[.panels[] | select(.type != "row") | select((.targets // []) | length == 0)] | length' "$DASH")"
# dashboard_as_rules DASHBOARD OUT: every panel query as a recording rule,
# Grafana's variables replaced, so that promtool parses its PromQL
dashboard_as_rules() {
    jq '{groups: [{name: "dashboard", rules: ([.. | objects | select(has("expr"))]
            | to_entries | map({record: "dashboard:query_\(.key)", expr: (.value.expr
                | gsub("\\$__rate_interval|\\$__range"; "5m")
                | gsub("\\$job"; "agent-controller")
                | gsub("\\$instance"; ".*"))}))}]}' "$1" >"$2"
}
dashboard_as_rules "$DASH" "$TEST_TMP/dashboard-rules.json"
n_q=$(jq '.groups[0].rules | length' "$TEST_TMP/dashboard-rules.json")
out=$(promtool check rules "$TEST_TMP/dashboard-rules.json" 2>&1) ||
    fail "the dashboard's queries: $out"
check_match "promtool parses all $n_q queries of the dashboard" "SUCCESS: $n_q rules found" "$out"
jq '.panels[1].targets[0].expr = "sum by (phase (agentctl_invocations)"' "$DASH" \
    >"$TEST_TMP/badquery.json"
dashboard_as_rules "$TEST_TMP/badquery.json" "$TEST_TMP/badquery-rules.json"
out=$(promtool check rules "$TEST_TMP/badquery-rules.json" 2>&1) && rc=0 || rc=$?
check "negative control: a dashboard query that does not parse is refused" \
    test "$rc" -ne 0
check_match "  as that query's parse error, and only that one" \
    '^[^:]*: [0-9:]+ group "dashboard", rule 1, [^
]*parse error: unexpected "\(" in grouping opts[^
]*$' "$(grep 'parse error' <<<"$out")"
echo '{"panels": [' >"$TEST_TMP/notjson.json"
check "negative control: jq refuses a dashboard that is not JSON" \
    bash -c '! jq -e . "$1" >/dev/null 2>&1' _ "$TEST_TMP/notjson.json"

# --- every metric used is exported --------------------------------------
# What the code exports: the controller's names, and whatever the proxies
# declare with a `# TYPE` line (none today: egress-proxy and agent-gateway
# serve no /metrics; their view is the controller's canary and gateway
# families). Prometheus adds `up` to every target.
exported=$TEST_TMP/exported.txt
{
    sed -n 's/^#define CTL_M_[A-Z_]* *"\([a-zA-Z_:][a-zA-Z0-9_:]*\)".*/\1/p' \
        "$ROOT/controller/obs/obs_metrics.h"
    grep -rhoE '# TYPE [a-zA-Z_:][a-zA-Z0-9_:]*' "$ROOT/proxy" | awk '{ print $3 }' || true
    echo up
} | sort -u >"$exported"
n_exported=$(wc -l <"$exported")
check "the code's metric names were read ($n_exported)" test "$n_exported" -ge 25

# unknown_metrics FILE...: the names the files query that the code does
# not export (a histogram's _bucket, _sum, _count count as its family)
unknown_metrics() {
    local n
    "$USED" "$@" | while read -r n; do
        grep -qxF "$n" "$exported" && continue
        case $n in
        *_bucket | *_count | *_sum)
            grep -qxF "${n%_*}" "$exported" && continue
            ;;
        esac
        echo "$n"
    done
}
used_rules=$("$USED" "$RULES") || fail "reading the rules' queries"
used_dash=$("$USED" "$DASH") || fail "reading the dashboard's queries"
check "the rules query metrics ($(wc -l <<<"$used_rules"))" test -n "$used_rules"
check "the dashboard queries metrics ($(wc -l <<<"$used_dash"))" test -n "$used_dash"
check_eq "every metric the rules query is exported" "" "$(unknown_metrics "$RULES")"
check_eq "every metric the dashboard queries is exported" "" "$(unknown_metrics "$DASH")"

# negative control: a panel on a metric nobody exports, on a scratch copy
jq '.panels += [{"type": "timeseries", "title": "ghost",
      "targets": [{"refId": "A", "expr": "sum by (vendor) (rate(egress_proxy_connections_total{job=\"x\"}[5m]))"}]}]' \
    "$DASH" >"$TEST_TMP/dashboard.json"
check_eq "negative control: a panel on a metric that does not exist is caught" \
    "egress_proxy_connections_total" "$(unknown_metrics "$TEST_TMP/dashboard.json")"
sed 's/agentctl_docker_up == 0/agentctl_docker_reachable == 0/' "$RULES" >"$TEST_TMP/renamed.yaml"
check_eq "negative control: a rule on a renamed metric is caught" \
    "agentctl_docker_reachable" "$(unknown_metrics "$TEST_TMP/renamed.yaml")"

# --- at runtime ---------------------------------------------------------
# A controller on an empty specs dir, scraped once: the families the rules
# and the dashboard use are declared on /metrics (those whose series come
# with their first count are declared too: # TYPE lines).
if ! [ -S /var/run/docker.sock ]; then
    echo "# no Docker daemon: the runtime checks are left out"
    exit 0
fi
[ -x "$CONTROLLER" ] || fail "$CONTROLLER is not built"
mkdir -p "$TEST_TMP/specs"
echo '{}' >"$TEST_TMP/controller.yaml" # every default
ctl_log=$TEST_TMP/controller.log
metrics=
for _ in $(seq 1 10); do
    port=$((12000 + RANDOM % 20000))
    ss -tanH "sport = :$port" 2>/dev/null | grep -q . && continue
    "$CONTROLLER" --specs "$TEST_TMP/specs" --state "$TEST_TMP/state" \
        --config "$TEST_TMP/controller.yaml" --metrics "127.0.0.1:$port" --controller-id "mon-$$" \
        >"$ctl_log" 2>&1 &
    ctl_pid=$!
    on_cleanup "kill $ctl_pid 2>/dev/null; wait $ctl_pid 2>/dev/null"
    for _ in $(seq 1 50); do
        metrics=$(curl -fsS --max-time 2 "http://127.0.0.1:$port/metrics" 2>/dev/null) && break
        kill -0 "$ctl_pid" 2>/dev/null || break
        sleep 0.1
    done
    [ -n "$metrics" ] && break
done
[ -n "$metrics" ] || fail "no /metrics from the controller: $(tail -n 5 "$ctl_log")"
served=$(awk '$1 == "#" && $2 == "TYPE" { print $3 }' <<<"$metrics" | sort -u)
missing=
for n in $("$USED" "$RULES" "$DASH"); do
    [ "$n" = up ] && continue
    case $n in *_bucket | *_count | *_sum) grep -qxF "${n%_*}" <<<"$served" && continue ;; esac
    grep -qxF "$n" <<<"$served" || missing="$missing $n"
done
check_eq "a running controller declares every metric the rules and the dashboard use" "" "$missing"
check_match "  and reports its config as loaded" \
    $'\nagentctl_config_last_reload_successful 1\n' "$metrics"

# the reload gauge follows SIGHUP: a broken config 0, a good one 1 again
# reload_gauge: the value of agentctl_config_last_reload_successful once
# it equals $1 (or the last one seen, after 5 s)
reload_gauge() {
    local v
    for _ in $(seq 1 50); do
        v=$(curl -fsS --max-time 2 "http://127.0.0.1:$port/metrics" |
            awk '$1 == "agentctl_config_last_reload_successful" { print $2 }')
        [ "$v" = "$1" ] && break
        sleep 0.1
    done
    echo "$v"
}
echo 'vendors: [' >"$TEST_TMP/controller.yaml"
kill -HUP "$ctl_pid"
check_eq "a SIGHUP with a broken config sets the reload gauge to 0" 0 "$(reload_gauge 0)"
check "  and the controller says why" grep -q '"config reload failed' "$ctl_log"
echo '{}' >"$TEST_TMP/controller.yaml"
kill -HUP "$ctl_pid"
check_eq "a SIGHUP with a good config sets it back to 1" 1 "$(reload_gauge 1)"
