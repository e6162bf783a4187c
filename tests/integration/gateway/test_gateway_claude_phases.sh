#!/usr/bin/env bash
# test_gateway_claude_phases.sh - the real Claude Code CLI in all five
# phases through the credential gateway with the built-in profile's
# request policy (anthropic, nothing widened): every turn succeeds and
# the gateway refuses none of its requests (lib_gateway_ctl.sh
# gw_phases). That is what says the measured allowlist is right
# (docs/gateway.md "Request policy"). The control that the gateway does
# refuse what is off the list is in test_gateway_controller.sh (c-tools)
# and test_gateway_body_policy.sh.
source "$(dirname "$0")/lib_gateway_ctl.sh"
gw_init claude
ctl_start
GW_RO_CALLS=('CALL Read {"file_path":"/work/README.md"}')
GW_RW_CALLS=('CALL Write {"file_path":"/work/NEW.md","content":"x"}'
    'CALL mcp__agentctl__run {}')
gw_phases gc
ctl_finish
