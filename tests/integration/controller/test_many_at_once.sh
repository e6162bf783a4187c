#!/usr/bin/env bash
# test_many_at_once.sh - twelve invocations applied at once (more than the
# pool's first few subnets, fewer than its sixteen /24s) all converge: each
# Succeeds, each output is its own (a per-invocation marker) and the demo
# agents all reached the vendor, and nothing is left in Docker.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

PH=(planning questions review execute fix execute)
names=()
for i in $(seq 0 5); do
    apply_spec "demo-$i" "${PH[$i]}" "command: [/demo-agent]"
    apply_spec "box-$i" execute "image: $BOX_IMAGE" \
        "command: [sh, -c, \"echo marker-box-$i; sleep 2\"]"
    names+=("demo-$i" "box-$i")
done
for n in "${names[@]}"; do
    wait_phase "$n" Succeeded 600
done
for i in $(seq 0 5); do
    out=$(agent_output "box-$i")
    check_match "box-$i: its own marker" "^marker-box-$i$" "$out"
    check_match "demo-$i: reached the vendor" "vendor_body: $VENDOR_TOKEN" \
        "$(agent_output "demo-$i")"
done
ctl_finish
