# lib_kube.sh - a private Kubernetes API server on loopback for a scenario
# of tests/integration/kube/ (source after lib.sh): Debian's etcd and the
# kube-apiserver that hack/kube/build-apiserver.sh built from Debian's
# kubernetes source (1.20.2), behind a throwaway CA. start_kube sets
#   KUBE_URL         https://127.0.0.1:<port>
#   KUBECONFIG_FILE  a kubeconfig with the CA and a client certificate of
#                    O=system:masters (every verb), context "test"
#   KUBE_PKI         the CA (ca.crt, ca.key) and certificates, to sign more
# and kubectl_t runs kubectl against it. Both processes are killed and
# their data removed on exit. One API server per scenario (ready in about
# 5-8 s, 300-400 MB of RSS). Skips when etcd, kubectl or the cached API
# server binary is missing: hack/test.sh's kube-apiserver stage builds it
# (hack/kube/build-apiserver.sh, about 12 min once).

source "$(dirname "${BASH_SOURCE[0]}")/store/etcd_lib.sh"

# The binary build-apiserver.sh caches, found without running it: its
# cache key is the script's own hash (any source version of that key).
kube_apiserver_bin() {
    local cache=${AGENTCTL_KUBE_CACHE:-/var/cache/agentctl/kube} key b
    [ -z "${AGENTCTL_KUBE_APISERVER:-}" ] || { echo "$AGENTCTL_KUBE_APISERVER"; return; }
    key=$(sha256sum "$ROOT/hack/kube/build-apiserver.sh" | cut -c1-12)
    for b in "$cache"/kube-apiserver-*-"$key"/kube-apiserver; do
        [ -x "$b" ] && { echo "$b"; return; }
    done
}

# kube_cert NAME SUBJECT EXT: a key and a certificate signed by the CA.
kube_cert() {
    openssl req -newkey rsa:2048 -nodes -subj "$2" \
        -keyout "$KUBE_PKI/$1.key" -out "$KUBE_PKI/$1.csr" 2>/dev/null &&
        printf '%s\n' "$3" >"$KUBE_PKI/$1.ext" &&
        openssl x509 -req -in "$KUBE_PKI/$1.csr" -CA "$KUBE_PKI/ca.crt" \
            -CAkey "$KUBE_PKI/ca.key" -CAcreateserial -days 1 \
            -extfile "$KUBE_PKI/$1.ext" -out "$KUBE_PKI/$1.crt" 2>/dev/null ||
        fail "openssl could not make the certificate $1"
}

# kube_kubeconfig FILE CERT: a kubeconfig for the client certificate CERT
# (KUBE_PKI/CERT.crt and .key), with file paths as kubectl writes them.
kube_kubeconfig() {
    cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
  - name: test
    cluster:
      server: $KUBE_URL
      certificate-authority: $KUBE_PKI/ca.crt
users:
  - name: $2
    user:
      client-certificate: $KUBE_PKI/$2.crt
      client-key: $KUBE_PKI/$2.key
contexts:
  - name: test
    context: {cluster: test, user: $2}
current-context: test
EOF
}

kube_pki() {
    KUBE_PKI=$TEST_TMP/kube-pki
    mkdir -p "$KUBE_PKI"
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=test-kube-ca \
        -keyout "$KUBE_PKI/ca.key" -out "$KUBE_PKI/ca.crt" 2>/dev/null ||
        fail "openssl could not make the test CA"
    kube_cert apiserver /CN=kube-apiserver \
        "$(printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth')"
    kube_cert admin "/O=system:masters/CN=test-admin" "extendedKeyUsage=clientAuth"
    # the service-account token signer 1.20 requires
    openssl genrsa -out "$KUBE_PKI/sa.key" 2048 2>/dev/null &&
        openssl rsa -in "$KUBE_PKI/sa.key" -pubout -out "$KUBE_PKI/sa.pub" 2>/dev/null ||
        fail "openssl could not make the service-account key"
}

run_kube_apiserver() {
    # 1.20 serves HTTPS only (insecure port 0); the endpoint reconciler
    # would complain about a loopback address on every sync
    "$KUBE_APISERVER" --etcd-servers "$ETCD_URL" \
        --bind-address 127.0.0.1 --secure-port "$KUBE_PORT" --insecure-port 0 \
        --tls-cert-file "$KUBE_PKI/apiserver.crt" \
        --tls-private-key-file "$KUBE_PKI/apiserver.key" \
        --client-ca-file "$KUBE_PKI/ca.crt" \
        --service-account-issuer https://kubernetes.default.svc \
        --service-account-key-file "$KUBE_PKI/sa.pub" \
        --service-account-signing-key-file "$KUBE_PKI/sa.key" \
        --service-cluster-ip-range 10.96.0.0/24 \
        --authorization-mode RBAC --endpoint-reconciler-type none \
        --cert-dir "$TEST_TMP/kube-certs" ${KUBE_AUDIT:+"${KUBE_AUDIT_ARGS[@]}"} \
        >>"$TEST_TMP/kube-apiserver.log" 2>&1 &
    KUBE_PID=$!
    local i
    for i in $(seq 300); do
        if [ "$(curl -sS --max-time 1 --cacert "$KUBE_PKI/ca.crt" \
            --cert "$KUBE_PKI/admin.crt" --key "$KUBE_PKI/admin.key" \
            "$KUBE_URL/readyz" 2>/dev/null)" = ok ]; then
            return 0
        fi
        kill -0 "$KUBE_PID" 2>/dev/null || break
        sleep 0.1
    done
    tail -n 20 "$TEST_TMP/kube-apiserver.log" >&2
    fail "kube-apiserver did not become ready on $KUBE_URL"
}

start_kube() {
    command -v kubectl >/dev/null 2>&1 || skip "kubectl is not installed"
    command -v etcd >/dev/null 2>&1 || skip "etcd is not installed (Debian etcd-server)"
    KUBE_APISERVER=$(kube_apiserver_bin)
    [ -n "$KUBE_APISERVER" ] ||
        skip "no cached kube-apiserver: run hack/kube/build-apiserver.sh (hack/test.sh does)"
    start_etcd
    kube_pki
    free_port
    KUBE_PORT=$FREE_PORT
    KUBE_URL=https://127.0.0.1:$KUBE_PORT
    KUBECONFIG_FILE=$TEST_TMP/kubeconfig
    kube_kubeconfig "$KUBECONFIG_FILE" admin
    on_cleanup 'kill_kube'
    local t0=$SECONDS
    run_kube_apiserver
    echo "# kube-apiserver ready in $((SECONDS - t0)) s"
}

kill_kube() {
    [ -n "${KUBE_PID:-}" ] || return 0
    kill -9 "$KUBE_PID" 2>/dev/null || true
    wait "$KUBE_PID" 2>/dev/null || true
    KUBE_PID=
}

restart_kube() {
    kill_kube
    run_kube_apiserver
}

# kube_sa_kubeconfig FILE: the shipped overlay applied (the controller's
# service account and exactly its RBAC) and a kubeconfig with a token of
# that account in FILE: the controller runs with it, not as admin.
kube_sa_kubeconfig() {
    local token
    kubectl_t apply --validate=false -k "$ROOT/manifests/kubernetes-apiserver" >/dev/null ||
        fail "kubectl apply -k manifests/kubernetes-apiserver failed"
    token=$(kubectl_t create token agent-controller -n agentctl) ||
        fail "no token for the controller's service account (TokenRequest)"
    cat >"$1" <<KC
apiVersion: v1
kind: Config
clusters:
  - name: test
    cluster: {server: "$KUBE_URL", certificate-authority: "$KUBE_PKI/ca.crt"}
users:
  - name: sa
    user: {token: "$token"}
contexts:
  - name: test
    context: {cluster: test, user: sa, namespace: agentctl}
current-context: test
KC
}

# kube_demo_controller PREFIX: lib_demo.sh's demo_setup PREFIX, the API
# server with the CRD, and agent-controller on the service account's kubeconfig
# (kube_sa_kubeconfig) with the demo's config and --resync 2s, its pid in
# CP, its log controller.log; agentctl's environment on the API server
# (as admin) and the controller's state directory.
kube_demo_controller() {
    demo_setup "$1"
    start_kube
    install_crd
    kube_sa_kubeconfig "$TEST_TMP/controller.kubeconfig"
    unset AGENTCTL_SPECS AGENTCTL_ETCD AGENTCTL_KUBE_CONTEXT
    export AGENTCTL_KUBECONFIG=$KUBECONFIG_FILE AGENTCTL_STATE=$TEST_TMP/state
    "$BUILD/controller/agent-controller" --kubeconfig "$TEST_TMP/controller.kubeconfig" \
        --state "$AGENTCTL_STATE" --config "$TEST_TMP/controller.yaml" \
        --controller-id "$ID" --resync 2s >"$TEST_TMP/controller.log" 2>&1 &
    CP=$!
}

# kube_audit: before start_kube, has the API server write one JSON line
# per request (who, verb, resource, code) to KUBE_AUDIT: requests counted
# per client by kube_requests.
kube_audit() {
    KUBE_AUDIT=$TEST_TMP/kube-audit.log
    cat >"$TEST_TMP/kube-audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
EOF
    KUBE_AUDIT_ARGS=(--audit-policy-file "$TEST_TMP/kube-audit-policy.yaml"
        --audit-log-path "$KUBE_AUDIT" --audit-log-mode blocking)
}

# kube_requests USER [JQ-TEST]: requests of USER so far (a watch's
# ResponseStarted stage not counted twice), narrowed by a jq test on the
# audit event (e.g. '.objectRef.subresource == "status"').
kube_requests() {
    jq -c --arg u "$1" "select(.user.username == \$u and .stage != \"ResponseStarted\") |
        select(${2:-true})" "$KUBE_AUDIT" 2>/dev/null | wc -l
}

# kubectl against the private API server.
kubectl_t() {
    kubectl --kubeconfig "$KUBECONFIG_FILE" "$@"
}

# The shipped CRD, installed and Established. kubectl 1.32's client-side
# check refuses it against a 1.20 server (x-kubernetes-validations is
# unknown there): --validate=false (docs/store-kube.md "Limits of 1.20").
install_crd() {
    kubectl_t apply --validate=false -f "$ROOT/crds/agentinvocations.agentctl.dev.yaml" >/dev/null ||
        fail "the CRD was not admitted"
    kubectl_t wait --for condition=Established --timeout 30s \
        crd/agentinvocations.agentctl.dev >/dev/null ||
        fail "the CRD did not become Established"
}

