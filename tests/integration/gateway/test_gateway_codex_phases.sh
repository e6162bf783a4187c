#!/usr/bin/env bash
# test_gateway_codex_phases.sh - the real Codex CLI in all five phases
# through the credential gateway with the built-in profile's request
# policy (openai, nothing widened): every turn succeeds and the gateway
# refuses none of its requests (lib_gateway_ctl.sh gw_phases). The
# control that the gateway does refuse what is off the list is in
# test_gateway_body_policy.sh.
source "$(dirname "$0")/lib_gateway_ctl.sh"
gw_init codex
ctl_start
# codex's code-mode exec: the runner tool in the phases that have one
GW_RO_CALLS=()
GW_RW_CALLS=("$(printf 'CALL exec %s' "$(jq -cn '{input: "const r = await tools.mcp__agentctl__run({}); text(JSON.stringify(r));"}')")")
gw_phases gx
ctl_finish
