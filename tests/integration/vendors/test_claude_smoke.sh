#!/usr/bin/env bash
source "$(dirname "$0")/lib_vendors.sh"
vd_init claude
ctl_start
vd_spec c-plan planning "$(vd_prompt c-plan 'CALL Read {"file_path":"/work/README.md"}' 'CALL Bash {"command":"touch /work/pwned"}')"
wait_terminal c-plan 240
agent_output c-plan | tail -c 3000
status_field c-plan '{phase,exitCode,output}'
vd_records | jq -c '{path,task,tools,calls,results,status,answer:(.answer|tostring|.[0:200])}'
