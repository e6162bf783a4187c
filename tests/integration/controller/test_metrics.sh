#!/usr/bin/env bash
# test_metrics.sh - /metrics after one invocation ran to Succeeded and one
# stayed Pending while the config's workspaceRoot was gone (a step
# error retried with backoff): the reconcile histogram is observed per pass, requeues and
# retries are counted, process_* are there, Docker request latency by
# operation, the attempt finished by phase and reason, the queue depth;
# /livez and /readyz answer; `promtool check metrics` finds nothing to
# say. Negative control: promtool does complain about an exposition with
# a counter that lacks _total, so its silence means something.
source "$(dirname "$0")/lib_controller.sh"
command -v promtool >/dev/null || fail "promtool is needed (Debian package prometheus; hack/setup.sh)"
ctl_init
ctl_start

apply_spec met-ok execute "command: [/demo-agent]" \
    "workspace: {source: small, size: 4Mi, inodes: 1000}"
wait_phase met-ok Succeeded 240
mv "$WS_ROOT" "$WS_ROOT.away"
on_cleanup "[ -d '$WS_ROOT.away' ] && mv '$WS_ROOT.away' '$WS_ROOT' || true"
apply_spec met-stuck execute "command: [/demo-agent]" \
    "workspace: {source: small, size: 4Mi, inodes: 1000}"

M=$(curl -fsS "http://$CTL_METRICS/metrics")
val() { awk -v k="$1" '$1 == k { print $2 }' <<<"$M"; }
gt0() { awk -v v="$1" 'BEGIN { exit !(v > 0) }'; }
count=$(val agentctl_reconcile_duration_seconds_count)
check "reconcile histogram observed per pass (_count $count)" gt0 "$count"
check "its +Inf bucket equals _count" test \
    "$(val 'agentctl_reconcile_duration_seconds_bucket{le="+Inf"}')" = "$count"
check "requeues (passes asked for while a request was in flight) are counted" \
    gt0 "$(val 'agentctl_reconciles_total{result="requeue"}')"
for _ in $(seq 60); do
    M=$(curl -fsS "http://$CTL_METRICS/metrics")
    gt0 "$(val agentctl_workqueue_retries_total)" && break
    sleep 1
done
check "the stuck one's retries are counted" gt0 "$(val agentctl_workqueue_retries_total)"
check "and it keeps a pass queued" gt0 "$(val agentctl_workqueue_depth)"
check_eq "the finished attempt by phase and reason" 1 \
    "$(val 'agentctl_attempts_finished_total{phase="Succeeded",reason="exit"}')"
check "Docker latency: container_create observed" \
    gt0 "$(val 'agentctl_docker_request_duration_seconds_count{operation="container_create"}')"
check "Docker latency: container_inspect observed" \
    gt0 "$(val 'agentctl_docker_request_duration_seconds_count{operation="container_inspect"}')"
check_eq "no Docker operation falls into other" "" \
    "$(val 'agentctl_docker_request_duration_seconds_count{operation="other"}')"
check "process_cpu_seconds_total" gt0 "$(val process_cpu_seconds_total)"
check "process_resident_memory_bytes" gt0 "$(val process_resident_memory_bytes)"
check "process_open_fds" gt0 "$(val process_open_fds)"
start=$(val process_start_time_seconds)
check "process_start_time_seconds is a time of today" \
    awk -v s="$start" -v now="$(date +%s)" 'BEGIN { exit !(s > now - 86400 && s <= now + 1) }'
check_match "drift and GC families are declared" \
    "# TYPE agentctl_gc_removals_total counter" "$M"

printf '%s\n' "$M" >"$TEST_TMP/metrics.txt"
out=$(promtool check metrics <"$TEST_TMP/metrics.txt" 2>&1) && rc=0 || rc=$?
echo "# promtool check metrics: rc=$rc ${out:-(nothing to say)}"
check_eq "promtool check metrics: clean" "0 " "$rc $out"
printf '# HELP agentctl_bad A counter without its suffix.\n# TYPE agentctl_bad counter\nagentctl_bad 1\n' \
    >"$TEST_TMP/bad.txt"
out=$(promtool check metrics <"$TEST_TMP/bad.txt" 2>&1) || true
check_match "control: promtool complains about a counter without _total" "_total" "$out"

check_eq "/livez" "ok" "$(curl -fsS "http://$CTL_METRICS/livez" | head -n 1)"
check_eq "/readyz" "ok" "$(curl -fsS "http://$CTL_METRICS/readyz" | head -n 1)"
mv "$WS_ROOT.away" "$WS_ROOT"
actl delete met-stuck >/dev/null
ctl_finish
