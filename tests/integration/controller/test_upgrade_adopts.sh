#!/usr/bin/env bash
# test_upgrade_adopts.sh - a state directory written by an older
# agent-controller is adopted by this one. The older controller is built
# from the repository's history at PREV_COMMIT (the last commit whose
# daemon kept the attempt as an untyped status document); it finishes one
# invocation and is killed with SIGKILL while a second one's agent runs.
# This controller then starts on the same specs and state: the running
# agent finishes without a second run, the finished invocation keeps its
# status (every field the older one wrote, same values) and is not run
# again, a new attempt ID on it runs once, and nothing leaks.
#
# Skipped (77) when the checkout has no git history holding PREV_COMMIT
# (e.g. a source tarball): the older binary cannot be built then.
source "$(dirname "$0")/lib_controller.sh"

PREV_COMMIT=8aa41abf61a7650db2dfa5cf083b968465630d20
PREV_BUILD=$BUILD/prev-controller-${PREV_COMMIT:0:12}
PREV_CONTROLLER=$PREV_BUILD/build/controller/agent-controller

# The older agent-controller, built once per build tree from the commit's
# own sources (only that target: its tests are not ours to run).
build_prev() {
    [ -x "$PREV_CONTROLLER" ] && return 0
    git -C "$ROOT" cat-file -e "$PREV_COMMIT^{commit}" 2>/dev/null ||
        skip "no git history with $PREV_COMMIT in $ROOT: cannot build the older controller"
    rm -rf "$PREV_BUILD"
    mkdir -p "$PREV_BUILD/src"
    git -C "$ROOT" archive "$PREV_COMMIT" | tar -x -C "$PREV_BUILD/src"
    cmake -S "$PREV_BUILD/src" -B "$PREV_BUILD/build" \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$PREV_BUILD/cmake.log" 2>&1 &&
        cmake --build "$PREV_BUILD/build" -j "$(nproc)" \
            --target agent-controller >>"$PREV_BUILD/cmake.log" 2>&1 ||
        fail "cannot build agent-controller at $PREV_COMMIT:" \
            "$(tail -n 20 "$PREV_BUILD/cmake.log")"
}

# same_fields OLD NEW: "" when every field of OLD that describes the
# finished attempt has the same value in NEW; else the differing paths.
same_fields() {
    jq -n -r --slurpfile a "$1" --slurpfile b "$2" '
        $a[0] as $old | $b[0] as $new
        | [$old | paths(scalars) | select(.[0] != "conditions"
              and .[0] != "observedGeneration")]
        | map(. as $p | select(($old | getpath($p)) != ($new | getpath($p))))
        | map(map(tostring) | join(".")) | join(" ")'
}

build_prev
ctl_init

# Negative control of the comparison: a changed field is named.
echo '{"phase":"Succeeded","exitCode":0,"resources":{"agent":{"id":"a"}}}' \
    >"$TEST_TMP/cmp-old.json"
echo '{"phase":"Succeeded","exitCode":1,"resources":{"agent":{"id":"b"}}}' \
    >"$TEST_TMP/cmp-new.json"
check_eq "control: same_fields names every changed field" \
    "exitCode resources.agent.id" \
    "$(same_fields "$TEST_TMP/cmp-old.json" "$TEST_TMP/cmp-new.json")"

CONTROLLER_NEW=$CONTROLLER
CONTROLLER=$PREV_CONTROLLER
# the older controller knows no credentialMode (env was its only mode);
# this one wants it said for a vendor with credentialEnv (docs/config.md)
cp "$CONFIG" "$TEST_TMP/config-new.yaml"
sed -i '/^    credentialMode: env$/d' "$CONFIG"
ctl_start
apply_spec finished execute "command: [/demo-agent]"
wait_phase finished Succeeded 240
apply_spec survivor execute "command: [/demo-agent, --sleep, \"20\"]"
wait_phase survivor Running 240
agent=$(status_field survivor .resources.agent.id)
check_match "survivor: the older controller recorded its agent" \
    '^[0-9a-f]{64}$' "$agent"
kill -KILL "$CTL_PID"
wait "$CTL_PID" 2>/dev/null || true
CTL_PID=
echo "# older controller ($PREV_COMMIT) killed with SIGKILL"
cp "$(status_file finished)" "$TEST_TMP/finished-old.json"
finished_uid=$(inv_uid finished)
# Docker's event times have whole seconds: the older controller's start
# of the survivor must fall before $since.
sleep 1
since=$(date +%s)

CONTROLLER=$CONTROLLER_NEW
cp "$TEST_TMP/config-new.yaml" "$CONFIG"
ctl_start
wait_phase survivor Succeeded 240
check_eq "survivor: exit code 0" 0 "$(status_field survivor .exitCode)"
check_eq "survivor: the agent ran once (one report in the output)" 1 \
    "$(agent_output survivor | grep -c '^demo-agent ')"
check_eq "survivor: no agent started after the upgrade" 0 \
    "$(agent_starts "$(inv_uid survivor)" "$since")"

# a few passes of the new controller over the finished invocation
sleep 3
check_eq "finished: still Succeeded" Succeeded \
    "$(status_field finished .phase)"
check_eq "finished: every field the older controller wrote is kept" "" \
    "$(same_fields "$TEST_TMP/finished-old.json" "$(status_file finished)")"
check_eq "finished: not run again" 0 "$(agent_starts "$finished_uid" "$since")"

apply_spec finished execute "command: [/demo-agent]" "attempt: a2"
wait_phase finished Succeeded 240
check_eq "finished: the new attempt is the one recorded" a2 \
    "$(status_field finished .attempt)"
check_eq "finished: the new attempt ran once" 1 \
    "$(agent_starts "$finished_uid" "$since")"
check_eq "finished: both attempt IDs are used" '["1","a2"]' \
    "$(status_field finished '.usedAttempts | sort')"
ctl_finish
