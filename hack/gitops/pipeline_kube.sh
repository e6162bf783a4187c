# shellcheck shell=bash
# pipeline_kube.sh - steps 3 and 4 of hack/gitops/pipeline.sh on a
# Kubernetes API server (--kubeconfig), sourced by it: what Argo CD or
# Flux do, with kubectl. The commit's specs are applied with server-side
# apply (field manager agentctl-gitops: the API server records who owns
# which field, and a field another manager owns is a conflict, not an
# overwrite) and pruned through an ApplySet: kubectl labels each object
# as part of the set whose parent is the Secret APPLYSET in KUBE_NS, and
# deletes the set's members the commit no longer has. (kubectl's older
# --prune --all refuses objects made by server-side apply; an ApplySet
# needs nothing of the API server that 1.20 lacks. kubectl 1.27+ with
# KUBECTL_APPLYSET=true.) Only objects of this set are ever pruned: one
# made by hand or by another pipeline's set is not touched.
#
# The counts: created = names absent before; of the others, configured
# when the apply changed the object's spec, labels or annotations,
# unchanged if not.
# A pruned object is deleted by the API server only once the controller
# has removed its Docker objects (its finalizer).

kctl() { kubectl --kubeconfig "$KUBE" "$@"; }
kapply() {
    KUBECTL_APPLYSET=true kctl apply -n "$KUBE_NS" --server-side \
        --field-manager agentctl-gitops --applyset="$APPLYSET" --prune -f "$DIR" "$@"
}
# versions: "NAME GENERATION LABELS ANNOTATIONS" of every AgentInvocation:
# what an apply changes (the generation counts spec changes), not the
# resourceVersion, which every status write of the controller moves
versions() {
    kctl get agentinvocations.agentctl.dev -o json | jq -r '.items[] | .metadata |
        "\(.name) \(.generation) \(.labels // {} | tojson) \(.annotations // {} | tojson)"'
}

deploy_kube() {
    local before after n out arc
    command -v kubectl >/dev/null || die 2 "kubectl is not installed (--kubeconfig)"
    before=$(versions) || { summary error && exit 3; }
    # 3. the server's dry run: what the apply would do and prune
    out=$(kapply --dry-run=server 2>&1) || {
        printf '%s\n' "$out" >&2
        summary error
        exit 3
    }
    N_PRUNED=$(grep -c ' pruned (server dry run)$' <<<"$out")
    sed -n 's|^agentinvocation[^/]*/\(.*\) pruned (server dry run)$|pipeline: will prune \1|p' <<<"$out"
    N_CREATE=0
    for n in "${NAMES[@]}"; do
        grep -q "^$n " <<<"$before" || N_CREATE=$((N_CREATE + 1))
    done
    if [ "$DRY" -eq 1 ]; then
        summary dry-run
        exit 0
    fi
    # 4. apply, and prune the set's members the commit no longer has
    OUT=$(kapply 2>&1)
    arc=$?
    printf '%s\n' "$OUT"
    N_PRUNED=$(grep -c ' pruned$' <<<"$OUT")
    [ "$arc" -eq 0 ] || { summary apply-failed && exit 3; }
    after=$(versions) || { summary error && exit 3; }
    N_UPDATE=0 N_SAME=0
    for n in "${NAMES[@]}"; do
        grep -q "^$n " <<<"$before" || continue
        if [ "$(grep "^$n " <<<"$before")" = "$(grep "^$n " <<<"$after")" ]; then
            N_SAME=$((N_SAME + 1))
        else
            N_UPDATE=$((N_UPDATE + 1))
        fi
    done
}
