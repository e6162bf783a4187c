#!/usr/bin/env bash
# test_manifests.sh - the deployment manifests parse and say what they
# should: the Kubernetes set renders with `kubectl kustomize` into exactly
# Namespace, ServiceAccount, ConfigMap, DaemonSet and Service, and no CRD:
# the controller reads etcd, so a CRD there would admit AgentInvocations
# nothing watches (negative control: the same set with the CRD added is
# caught), the ConfigMap holds
# manifests/kubernetes/controller.yaml, the DaemonSet runs on the node's
# Docker socket with --etcd, the node name as controller ID, /livez as
# liveness and /readyz as readiness probe (negative control: /healthz as
# liveness is caught), a headless metrics Service over its pods; the systemd unit and its etcd drop-in pass
# `systemd-analyze verify` (with a bogus key as negative control). Each
# part is skipped when its tool is missing; the controller configs are
# loaded by tests/unit/test_cfg.c.
source "$(dirname "$0")/../lib.sh"
M=$ROOT/manifests
ran=0

py_yaml() { python3 -c 'import yaml' 2>/dev/null; }

if command -v kubectl >/dev/null && py_yaml && command -v jq >/dev/null; then
    ran=1
    kubectl kustomize "$M/kubernetes" >"$TEST_TMP/k8s.yaml" ||
        fail "kubectl kustomize manifests/kubernetes failed"
    python3 -c 'import json,sys,yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))' \
        "$TEST_TMP/k8s.yaml" >"$TEST_TMP/k8s.json"
    K=$TEST_TMP/k8s.json
    check_eq "kustomize: the five kinds" \
        "ConfigMap DaemonSet Namespace Service ServiceAccount" \
        "$(jq -r '[.[].kind] | sort | join(" ")' "$K")"
    # crds RENDERED-JSON: the CRDs a render installs
    crds() { jq -r '[.[] | select(.kind=="CustomResourceDefinition") | .metadata.name] | join(" ")' "$1"; }
    check_eq "kustomize: no CRD (nothing in the cluster would watch it)" "" "$(crds "$K")"
    cp -r "$M/kubernetes" "$TEST_TMP/with-crd"
    cp "$ROOT/crds/agentinvocations.agentctl.dev.yaml" "$TEST_TMP/with-crd/"
    sed -i 's|^resources:$|resources:\n  - agentinvocations.agentctl.dev.yaml|' \
        "$TEST_TMP/with-crd/kustomization.yaml"
    kubectl kustomize "$TEST_TMP/with-crd" | python3 -c 'import json,sys,yaml; print(json.dumps(list(yaml.safe_load_all(sys.stdin))))' \
        >"$TEST_TMP/with-crd.json"
    check_eq "control: the same set with the CRD added is caught" \
        agentinvocations.agentctl.dev "$(crds "$TEST_TMP/with-crd.json")"
    check_eq "no copy of the CRD under manifests/" "" \
        "$(grep -rl 'kind: CustomResourceDefinition' "$M" || true)"
    check_eq "ConfigMap: holds kubernetes/controller.yaml" \
        "$(cat "$M/kubernetes/controller.yaml")" \
        "$(jq -r '.[] | select(.kind=="ConfigMap") | .data["controller.yaml"]' "$K")"
    ds='.[] | select(.kind=="DaemonSet") | .spec.template.spec'
    c="$ds | .containers[0]"
    check_eq "DaemonSet: the ConfigMap it mounts is the generated one" \
        "$(jq -r '.[] | select(.kind=="ConfigMap") | .metadata.name' "$K")" \
        "$(jq -r "$ds | .volumes[] | select(.name==\"config\") | .configMap.name" "$K")"
    check_eq "DaemonSet: the node's Docker socket" /var/run/docker.sock \
        "$(jq -r "$ds | .volumes[] | select(.name==\"docker-sock\") | .hostPath.path" "$K")"
    check_match "DaemonSet: --etcd at a Service URL" \
        '--etcd http://[a-z0-9.-]+\.svc:2379 ' "$(jq -r "$c | .args | join(\" \")" "$K") "
    check_match "DaemonSet: --controller-id from the node name" \
        '--controller-id \$\(NODE_NAME\)' "$(jq -r "$c | .args | join(\" \")" "$K")"
    check_eq "DaemonSet: NODE_NAME is spec.nodeName" spec.nodeName \
        "$(jq -r "$c | .env[] | select(.name==\"NODE_NAME\") | .valueFrom.fieldRef.fieldPath" "$K")"
    # probes FILE: "liveness-path readiness-path port port" of the DaemonSet
    probes() {
        jq -r ".[] | select(.kind==\"DaemonSet\") | .spec.template.spec.containers[0] |
            \"\(.livenessProbe.httpGet.path) \(.readinessProbe.httpGet.path) \(.livenessProbe.httpGet.port) \(.readinessProbe.httpGet.port)\"" "$1"
    }
    check_eq "DaemonSet: liveness /livez (the loop), readiness /readyz (Docker, etcd)" \
        "/livez /readyz metrics metrics" "$(probes "$K")"
    sed 's|"/livez"|"/healthz"|' "$K" >"$TEST_TMP/old-probes.json"
    check "control: liveness on /healthz (503 when Docker is down) is caught" \
        test "$(probes "$TEST_TMP/old-probes.json")" != "/livez /readyz metrics metrics"
    svc='.[] | select(.kind=="Service")'
    check_eq "Service: headless, selects the DaemonSet's pods" \
        "None $(jq -c '.[] | select(.kind=="DaemonSet") | .spec.selector.matchLabels' "$K")" \
        "$(jq -r "$svc | .spec.clusterIP" "$K") $(jq -c "$svc | .spec.selector" "$K")"
    check_eq "Service: the metrics port, scraped at /metrics" "9464 metrics /metrics" \
        "$(jq -r "$svc | \"\(.spec.ports[0].port) \(.spec.ports[0].targetPort) \(.metadata.annotations[\"prometheus.io/path\"])\"" "$K")"
    check_match "DaemonSet: --metrics on the port the probe uses" \
        '--metrics 0\.0\.0\.0:9464' "$(jq -r "$c | .args | join(\" \")" "$K")"
    check_eq "DaemonSet: no capabilities, read-only root" "[\"ALL\"] true false" \
        "$(jq -c "$c | .securityContext | \"\(.capabilities.drop) \(.readOnlyRootFilesystem) \(.allowPrivilegeEscalation)\"" "$K" | jq -r .)"
    check_eq "everything in namespace agentctl (but the cluster-scoped)" \
        "agentctl agentctl agentctl agentctl" \
        "$(jq -r '[.[] | select(.kind!="Namespace") | .metadata.namespace] | join(" ")' "$K")"
else
    echo "# kubectl, python3 yaml or jq missing: Kubernetes part skipped"
fi

if command -v systemd-analyze >/dev/null && [ -x "$BUILD/controller/agent-controller" ]; then
    ran=1
    U=$TEST_TMP/units
    mkdir -p "$U/agent-controller.service.d"
    cp "$M/systemd/agent-controller.service" "$U/"
    cp "$M/systemd/agent-controller.service.d/etcd.conf" "$U/agent-controller.service.d/"
    # verify wants ExecStart's binary to exist: point it at the build
    sed -i "s|/usr/local/bin/agent-controller|$BUILD/controller/agent-controller|" \
        "$U/agent-controller.service" "$U/agent-controller.service.d/etcd.conf"
    out=$(systemd-analyze verify "$U/agent-controller.service" 2>&1 |
        grep -F "$U" || true)
    check_eq "systemd-analyze verify: unit and drop-in, no complaint" "" "$out"
    echo "Bogus=1" >>"$U/agent-controller.service.d/etcd.conf"
    out=$(systemd-analyze verify "$U/agent-controller.service" 2>&1 || true)
    check_match "control: a bad key in the drop-in is reported" \
        "etcd.conf:[0-9]+: Unknown key 'Bogus'" "$out"
else
    echo "# systemd-analyze or agent-controller missing: systemd part skipped"
fi
[ "$ran" -eq 1 ] || skip "no tool to check the manifests with"
