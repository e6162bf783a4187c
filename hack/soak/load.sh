# shellcheck shell=bash
# load.sh - the soak's mixed load (sourced by run.sh). One tick per lane
# and second: the lane's invocations are listed once, then one action is
# drawn - apply a new command spec (while fewer than SOAK_LIVE run),
# re-apply one with a changed spec, cancel one, delete one, or drop a
# hostile or half-written spec into the store. Every action is one line of
# $SOAK/actions ("<epoch> <lane> <action> <name>"); every delete one of
# $SOAK/deleted ("<epoch> <lane> <name> <uid>") for the leak check.
SOAK_LIVE=${SOAK_LIVE:-4}
SOAK_PHASES=(planning questions review execute fix)
SOAK_SEQ=0

# lane_ctl LANE ARGS...: agentctl on the lane's store, bounded (etcd may
# be paused: the CLI's own timeout is what we measure elsewhere).
lane_ctl() {
    local lane=$1
    shift
    case $lane in
    d) timeout 30 "$AGENTCTL" --specs "$SPECS" --state "$STATE" "$@" ;;
    e) timeout 30 "$AGENTCTL" --etcd "$ETCD_URL" --etcd-prefix "$PFX" \
        --state "$TEST_TMP/cli-state" "$@" ;;
    esac
}

# lane_list LANE: "<name> <uid> <phase>" of the lane's soak invocations
# (nothing when the store cannot be read this second).
lane_list() {
    lane_ctl "$1" get -o json 2>/dev/null | jq -r '.items[]? |
        select(.metadata.name | startswith("s-")) |
        "\(.metadata.name) \(.metadata.uid // "-") \(.status.phase // "Pending")"' \
        2>/dev/null || true
}

note_action() { echo "$(date +%s) $*" >>"$SOAK/actions"; }

# soak_spec NAME: a command spec of a random phase: the demo agent asks the
# vendor through the proxy and sleeps 1-20 s; one in four uploads a
# workspace, one in four carries the credential, one in eight fails.
soak_spec() {
    local sleep_s=$((1 + RANDOM % 20)) exit_code=0
    [ $((RANDOM % 8)) -ne 0 ] || exit_code=3
    cat <<EOF
apiVersion: agentctl.dev/v1alpha1
kind: AgentInvocation
metadata:
  name: $1
spec:
  vendor: fake
  phase: ${SOAK_PHASES[RANDOM % ${#SOAK_PHASES[@]}]}
  image: $DEMO_IMAGE
  deadlineSeconds: 120
  command: [/demo-agent, --print, "$((RANDOM % 4096))", --sleep, "$sleep_s", --exit, "$exit_code"]
EOF
    [ $((RANDOM % 4)) -ne 0 ] ||
        echo "  workspace: {source: small, size: 4Mi, inodes: 1000}"
    [ $((RANDOM % 4)) -ne 0 ] ||
        printf '  credential: %s\n  env: {DEMO_CREDENTIAL_ENV: FAKE_API_KEY}\n' \
            "$CRED_NAME"
}

# act_apply LANE NAME ACTION: write NAME's spec and apply it.
act_apply() {
    local f=$SOAK/in/$2.yaml
    mkdir -p "$SOAK/in"
    soak_spec "$2" >"$f"
    if lane_ctl "$1" apply -f "$f" >/dev/null 2>>"$SOAK/cli-errors"; then
        note_action "$1" "$3" "$2"
    else
        note_action "$1" "$3-refused" "$2"
    fi
}

# act_delete LANE NAME UID
act_delete() {
    lane_ctl "$1" delete "$2" >/dev/null 2>>"$SOAK/cli-errors" || return 0
    note_action "$1" delete "$2"
    echo "$(date +%s) $1 $2 $3" >>"$SOAK/deleted"
}

act_cancel() {
    lane_ctl "$1" cancel "$2" >/dev/null 2>>"$SOAK/cli-errors" &&
        note_action "$1" cancel "$2"
    return 0
}

# act_hostile LANE: a spec the store must survive: on the directory lane a
# ~1 MiB hostile file or a half-written one (cut mid-line), on etcd raw
# garbage under a spec key. Each is taken away again on the lane's next
# hostile draw.
act_hostile() {
    local n=$((SOAK_SEQ % 3)) f
    case $1 in
    d)
        rm -f "$SPECS"/s-hostile-*.yaml
        case $n in
        0) cp "$SOAK/hostile/docs-21x9999-keys.yaml" "$SPECS/s-hostile-big.yaml" ;;
        1) soak_spec s-hostile-half | head -c 150 >"$SPECS/s-hostile-half.yaml" ;;
        2) head -c 4096 /dev/urandom >"$SPECS/s-hostile-bytes.yaml" ;;
        esac
        ;;
    e)
        f=$(head -c 4096 /dev/urandom | base64 -w0)
        curl -fsS --max-time 5 "$ETCD_URL/v3/kv/put" -d "{\"key\":\"$(ekey \
            specs/s-hostile-$n)\",\"value\":\"$f\"}" >/dev/null 2>&1 || return 0
        ;;
    esac
    note_action "$1" hostile "s-hostile-$n"
}

# load_tick LANE: one action on the lane.
load_tick() {
    local lane=$1 list live names pick name uid phase r
    SOAK_SEQ=$((SOAK_SEQ + 1))
    list=$(lane_list "$lane")
    live=$(awk '$3 !~ /^(Succeeded|Failed|Cancelled)$/' <<<"$list" | grep -c . || true)
    r=$((RANDOM % 100))
    if [ "$r" -lt 45 ] && [ "$live" -lt "$SOAK_LIVE" ]; then
        act_apply "$lane" "s-$lane-$SOAK_SEQ" apply
        return 0
    fi
    [ -n "$list" ] || return 0
    names=$(grep -c . <<<"$list")
    pick=$(sed -n "$((1 + RANDOM % names))p" <<<"$list")
    read -r name uid phase <<<"$pick"
    case $name in s-hostile-*) return 0 ;; esac
    if [ "$r" -lt 55 ]; then
        act_apply "$lane" "$name" reapply
    elif [ "$r" -lt 65 ]; then
        [[ $phase =~ $TERMINAL_RE ]] || act_cancel "$lane" "$name"
    elif [ "$r" -lt 95 ]; then
        # mostly finished ones (the store stays small), now and then a
        # live one (a delete mid-run)
        [[ $phase =~ $TERMINAL_RE ]] || [ $((RANDOM % 4)) -eq 0 ] ||
            return 0
        act_delete "$lane" "$name" "$uid"
    else
        act_hostile "$lane"
    fi
}
