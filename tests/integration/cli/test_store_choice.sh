#!/usr/bin/env bash
# test_store_choice.sh - which store agentctl opens when the command line
# and the environment disagree: kubectl's order, flag > environment, so
# --etcd on the command line wins over AGENTCTL_SPECS and --specs over
# AGENTCTL_ETCD (before or after the command). Negative controls: both
# flags on the command line, or both variables and neither flag, stay a
# usage error. The same for --kubeconfig / AGENTCTL_KUBECONFIG (the API
# server store). No etcd runs: an etcd chosen is seen by its refused
# connection (exit 1, not the usage error's 2).
source "$(dirname "$0")/../lib.sh"

A=$BUILD/cli/agentctl
S=$TEST_TMP/specs
DEAD=http://127.0.0.1:1 # nothing listens: an etcd that refuses
mkdir -p "$S"
printf 'apiVersion: agentctl.dev/v1alpha1\nkind: AgentInvocation\nmetadata:\n  name: web\nspec:\n  vendor: fake\n  phase: execute\n  image: agentctl/demo-agent:0.1.0\n  command: [demo-agent]\n' >"$S/web.yaml"
unset AGENTCTL_SPECS AGENTCTL_ETCD AGENTCTL_STATE AGENTCTL_ETCD_PREFIX \
    AGENTCTL_KUBECONFIG AGENTCTL_KUBE_CONTEXT

# --etcd on the command line beats AGENTCTL_SPECS
rc=0; out=$(AGENTCTL_SPECS=$S "$A" --etcd "$DEAD" get -o name 2>&1) || rc=$?
check_eq "AGENTCTL_SPECS + --etcd: the etcd store is used (refused: exit 1)" 1 "$rc"
check_match "its error is the etcd's, not a usage error" "127.0.0.1:1: connection refused" "$out"
rc=0; out=$(AGENTCTL_SPECS=$S "$A" get -o name --etcd "$DEAD" 2>&1) || rc=$?
check_eq "--etcd after the command wins too" 1 "$rc"
check_match "after the command: the etcd's error" "connection refused" "$out"

# --specs on the command line beats AGENTCTL_ETCD
check_eq "AGENTCTL_ETCD + --specs: the directory is read" \
    "agentinvocation.agentctl.dev/web" "$(AGENTCTL_ETCD=$DEAD "$A" --specs "$S" get -o name)"
check_eq "--specs after the command wins too" \
    "agentinvocation.agentctl.dev/web" "$(AGENTCTL_ETCD=$DEAD "$A" get web -o name --specs "$S")"
check_eq "the environment alone still works" \
    "agentinvocation.agentctl.dev/web" "$(AGENTCTL_SPECS=$S "$A" get -o name)"

# controls: both on the command line, or both in the environment
rc=0; out=$("$A" --specs "$S" --etcd "$DEAD" get 2>&1) || rc=$?
check_eq "control: --specs and --etcd together: usage" 2 "$rc"
check_match "control: says one only" "pass one of --specs DIR, --etcd URL and --kubeconfig FILE" "$out"
rc=0; out=$(AGENTCTL_ETCD=$DEAD "$A" --specs "$S" get --etcd "$DEAD" 2>&1) || rc=$?
check_eq "control: both flags, one before and one after the command: usage" 2 "$rc"
rc=0; out=$(AGENTCTL_SPECS=$S AGENTCTL_ETCD=$DEAD "$A" get 2>&1) || rc=$?
check_eq "control: both variables and no flag: usage" 2 "$rc"
check_match "control: names the variables" "more than one of AGENTCTL_SPECS, AGENTCTL_ETCD and AGENTCTL_KUBECONFIG is set" "$out"

# --kubeconfig (the API server store) takes part the same way; a missing
# kubeconfig is that store's own error (exit 1), not a usage error
NOKC=$TEST_TMP/no-kubeconfig
rc=0; out=$(AGENTCTL_SPECS=$S "$A" --kubeconfig "$NOKC" get -o name 2>&1) || rc=$?
check_eq "AGENTCTL_SPECS + --kubeconfig: the API server store is used (exit 1)" 1 "$rc"
check_match "its error names the kubeconfig" "kubeconfig $NOKC" "$out"
check_eq "AGENTCTL_KUBECONFIG + --specs: the directory is read" \
    "agentinvocation.agentctl.dev/web" "$(AGENTCTL_KUBECONFIG=$NOKC "$A" --specs "$S" get -o name)"
rc=0; out=$(AGENTCTL_KUBECONFIG=$NOKC "$A" get -o name 2>&1) || rc=$?
check_match "AGENTCTL_KUBECONFIG alone: the API server store" "kubeconfig $NOKC" "$out"
rc=0; out=$("$A" --etcd "$DEAD" --kubeconfig "$NOKC" get 2>&1) || rc=$?
check_eq "control: --etcd and --kubeconfig together: usage" 2 "$rc"
rc=0; out=$(AGENTCTL_SPECS=$S AGENTCTL_KUBECONFIG=$NOKC "$A" get 2>&1) || rc=$?
check_eq "control: AGENTCTL_SPECS and AGENTCTL_KUBECONFIG, no flag: usage" 2 "$rc"
