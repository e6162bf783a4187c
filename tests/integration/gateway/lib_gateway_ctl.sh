# shellcheck shell=bash
# lib_gateway_ctl.sh - the controller with its vendors in credentialMode
# gateway against the TLS test vendor (source it from
# tests/integration/gateway/test_gateway_*.sh; it sources lib_vendors.sh).
#
#   gw_init CLI   vd_init CLI, then this checkout's agent-gateway image
#                 with this run's CA as its bundle (images.gateway), and
#                 the claude and codex profiles in gateway mode pointed at
#                 the test vendor; limits.maxVendorRequests 100;
#                 probeInterval 2s (the canary runs in gateway mode too)
#   holds_key F   the run's credential is somewhere in file F
#   inspect_loop NAME FILE
#                 every container of NAME inspected every 0.2 s into FILE
#                 until the attempt is terminal (run it in the background)
source "$(dirname "${BASH_SOURCE[0]}")/../vendors/lib_vendors.sh"

GW_TEST_IMAGE=

gw_build_image() {
    local ctx=$TEST_TMP/gwimage
    bash "$ROOT/hack/images/build-agent-gateway.sh" >/dev/null 2>&1 ||
        fail "cannot build agentctl/agent-gateway:$VERSION"
    mkdir -p "$ctx/root/etc/ssl/certs"
    cp "$VD_TLS/ca.pem" "$ctx/root/etc/ssl/certs/ca-certificates.crt"
    printf 'FROM agentctl/agent-gateway:%s\nCOPY root/ /\n' "$VERSION" \
        >"$ctx/Dockerfile"
    GW_TEST_IMAGE=agentctl-test/agent-gateway:$CTL_RUN
    docker build -q --label "$TEST_LABEL" -t "$GW_TEST_IMAGE" "$ctx" \
        >/dev/null || fail "cannot build $GW_TEST_IMAGE"
    on_cleanup "docker rmi -f $GW_TEST_IMAGE >/dev/null 2>&1"
}

# the two profiles of docs/config.md's gateway example, with the test
# vendor as their one host (allowPrivate: its address is on this run's
# egress network)
gw_write_vendors() {
    sed -i -e '/^  claude: /d' -e '/^  codex: /d' \
        -e "s|^images: {\(.*\)}|images: {\1, gateway: \"$GW_TEST_IMAGE\"}|" \
        -e 's|^limits: {\(.*\)}|limits: {\1, maxVendorRequests: 100}|' \
        -e '/^vendors:/a\
  claude:\
    hosts: ["'"$VD_HOST"':443"]\
    credentialEnv: ANTHROPIC_API_KEY\
    allowPrivate: true\
    credentialMode: gateway\
    gateway: {authHeader: x-api-key, allow: ["POST /v1/messages"], baseUrlEnv: ANTHROPIC_BASE_URL}\
  codex:\
    hosts: ["'"$VD_HOST"':443"]\
    credentialEnv: CODEX_API_KEY\
    allowPrivate: true\
    credentialMode: gateway\
    gateway: {authHeader: bearer, allow: ["POST /v1/responses"]}' "$CONFIG"
    echo "probeInterval: 2s" >>"$CONFIG"
}

gw_init() {
    vd_init "$1"
    gw_build_image
    gw_write_vendors
}

holds_key() { grep -qF "$CRED_TOKEN" "$1"; }

# check_no_key_kept NAME: the key is in none of what the controller keeps
# of NAME (status, events, output, its own log); then, once the box is
# removed, NAME's egress audit holds forwarded requests to PATH ($2) and
# no key either.
check_no_key_kept() {
    local f
    for f in "$(status_file "$1")" "$STATE/events/$1.jsonl" \
        "$STATE/output/$1.log" "$CTL_LOG"; do
        check "$1: no key in $(basename "$f")" not holds_key "$f"
    done
    wait_no_objects "agentctl.dev/invocation=$1 $MANAGED" 60 >/dev/null
    check_match "$1: the egress audit holds its requests, forwarded" \
        "\"source\":\"gateway\".*\"method\":\"POST\",\"path\":\"$2\",\"status\":200" \
        "$(actl logs --egress "$1")"
    check "$1: no key in the egress audit" \
        not holds_key "$STATE/output/$1.egress.jsonl"
}

inspect_loop() {
    local ids
    while :; do
        ids=$(docker ps -aq --filter "label=agentctl.dev/invocation=$1" \
            --filter "label=$MANAGED" 2>/dev/null)
        # (a container removed since the listing fails the inspect)
        [ -z "$ids" ] || docker inspect $ids >>"$2" 2>/dev/null || true
        [[ $(status_field "$1" .phase) =~ $TERMINAL_RE ]] && return 0
        sleep 0.2
    done
}

# gw_phases PREFIX: the proof that the default request policy is right
# (issue 35): this run's CLI in every phase through the gateway with the
# profile's default body policy (no widening), each a full turn. The
# planning and questions turns get GW_RO_CALLS, the others GW_RW_CALLS
# (vd_prompt script lines; the runner is `sh check.sh`). Each must
# succeed with exit code 0 and a vendor answer, and every request the
# gateway saw from the CLI was forwarded (200): not one refused.
GW_RO_CALLS=()
GW_RW_CALLS=()
gw_phases() {
    local pfx=$1 p n calls runner audit
    for p in planning questions review execute fix; do
        n=$pfx-$p
        calls=("${GW_RW_CALLS[@]}")
        runner=("runner: [sh, check.sh]")
        if [ "$p" = planning ] || [ "$p" = questions ]; then
            calls=("${GW_RO_CALLS[@]}")
            runner=()
        fi
        apply_spec "$n" "$p" "vendor: $VD_CLI" "image: $VD_TEST_IMAGE" \
            "prompt: $(jq -Rs . <<<"$(vd_prompt "$n" "${calls[@]}")")" \
            "credential: $CRED_NAME" "${runner[@]}" \
            "workspace: {source: proj, size: 16Mi, inodes: 1000}" \
            "scratch: {size: 256Mi, inodes: 20000}" \
            "resources: {memory: 2Gi, cpus: \"1\", pids: 512}" \
            "deadlineSeconds: 240"
    done
    for p in planning questions review execute fix; do
        n=$pfx-$p
        check_eq "$n: Succeeded" Succeeded "$(wait_terminal "$n" 300)"
        check_eq "$n: the CLI's exit code" 0 "$(status_field "$n" .exitCode)"
        check_match "$n: the vendor ended the turn" '^VENDOR-(DONE|OK)' \
            "$(vd_answer_of "$n")"
        wait_no_objects "agentctl.dev/invocation=$n $MANAGED" 90 >/dev/null
        audit=$(actl logs --egress "$n" | jq -c 'select(.source == "gateway"
            and (.path | startswith("/agentctl-probe/") | not))')
        echo "# $n: $(wc -l <<<"$audit") requests through the gateway"
        check "$n: the gateway forwarded its requests" \
            grep -q '"status":200' <<<"$audit"
        check_eq "$n: the gateway refused none of them" "" \
            "$(jq -c 'select(.status != 200)' <<<"$audit")"
    done
}
