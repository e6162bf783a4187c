#!/usr/bin/env bash
# test_gitops_kube.sh - the GitOps pipeline (hack/gitops/pipeline.sh
# --kubeconfig) against a real kube-apiserver, with the controller on it
# (its service account) and this machine's Docker (issue 41): a commit of
# two specs is applied by server-side apply (field manager
# agentctl-gitops, operation Apply in managedFields) into an ApplySet;
# one runs to Succeeded, the other runs; the next commit removes the
# running one: the server's dry run names it, the apply prunes it, the
# controller stops it and removes every Docker object of it, then the
# object is gone; the kept one is unchanged. Control: an invocation made
# by hand (not in the set) outlives the prune.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../lib_kube.sh"
source "$(dirname "$0")/../lib_demo.sh"

command -v jq >/dev/null || skip "jq not installed"
command -v git >/dev/null || skip "git not installed"
A=$BUILD/cli/agentctl
kube_demo_controller kubegitops

REPO=$TEST_TMP/repo
git init -q "$REPO"
commit() { git -C "$REPO" add -A && git -C "$REPO" -c user.name=t -c user.email=t@t commit -qm "$1"; }
pipeline() {
    AGENTCTL=$A bash "$ROOT/hack/gitops/pipeline.sh" --kubeconfig "$KUBECONFIG_FILE" "$@" "$REPO" \
        2>>"$TEST_TMP/pipeline.err"
}
wait_phase() {
    "$A" wait "$1-$RUN" --for=phase="$2" --timeout=300s >/dev/null ||
        fail "$1-$RUN did not reach $2: $(tail -n 5 "$TEST_TMP/controller.log")"
}

demo_named keep --write-work >"$REPO/keep.yaml"
demo_named gone --sleep 300 >"$REPO/gone.yaml"
commit "two specs"
out=$(pipeline)
check_match "commit 1: both created by the pipeline" 'specs=2 created=2 configured=0 unchanged=0 pruned=0 result=ok$' "$out"
check_eq "server-side apply: the field manager agentctl-gitops, operation Apply" Apply \
    "$(kubectl_t get ai "keep-$RUN" -o json --show-managed-fields |
        jq -r '.metadata.managedFields[] | select(.manager == "agentctl-gitops") | .operation')"
demo_named hand --write-work | kubectl_t create -f - >/dev/null || fail "kubectl create of hand failed"
wait_phase keep Succeeded
wait_phase gone Running
wait_phase hand Succeeded

git -C "$REPO" rm -q gone.yaml
commit "gone is gone"
check_match "commit 2, dry run: the server's dry run names what would be pruned" \
    "will prune gone-$RUN" "$(pipeline --dry-run)"
check_eq "... and prunes nothing" Running "$(kubectl_t get ai "gone-$RUN" -o jsonpath='{.status.phase}')"
out=$(pipeline --wait 120s)
check_match "commit 2: kept unchanged, the removed one pruned, the commit's run Succeeded" \
    'specs=1 created=0 configured=0 unchanged=1 pruned=1 succeeded=1 failed=0 running=0 result=ok$' "$out"
kubectl_t wait --for=delete "ai/gone-$RUN" --timeout=180s >/dev/null ||
    fail "gone-$RUN was not released: $(tail -n 5 "$TEST_TMP/controller.log")"
check_eq "the pruned invocation: its object and every Docker object of it gone" "0 0" \
    "$(kubectl_t get ai --no-headers 2>/dev/null | grep -c "^gone-$RUN " || true) $(docker_count_label "agentctl.dev/invocation=gone-$RUN")"
check_eq "control: the one made by hand (not in the set) is not pruned" Succeeded \
    "$(kubectl_t get ai "hand-$RUN" -o jsonpath='{.status.phase}')"
check_eq "the kept one still Succeeded, attempt a1" Succeeded/a1 \
    "$(kubectl_t get ai "keep-$RUN" -o jsonpath='{.status.phase}/{.spec.attempt}')"
check "the controller is still running" kill -0 "$CP"
echo "# $SECONDS s in all"
