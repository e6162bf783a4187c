#!/usr/bin/env bash
# test_etcd_tls_auth.sh - the etcd store over TLS with client
# certificates and user/password auth, against a private etcd on loopback
# with a CA and certificates this test makes: agentctl applies, lists and
# watches nothing it should not; the controller runs against it too.
# Negative controls: without the CA the server is not trusted; without
# the client certificate etcd refuses the connection; a wrong password
# and no user are refused; a token etcd dropped (auth re-enabled) is
# renewed.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/etcd_lib.sh"
command -v etcd >/dev/null 2>&1 || skip "etcd is not installed (Debian etcd-server)"
command -v etcdctl >/dev/null 2>&1 || skip "etcdctl is not installed (Debian etcd-client)"

A=$BUILD/cli/agentctl
P=$TEST_TMP/pki
mkdir -p "$P"
# CA, a server certificate for 127.0.0.1 and a client certificate
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=test-ca \
    -keyout "$P/ca.key" -out "$P/ca.crt" 2>/dev/null
for who in server client; do
    # no CN on the client's: with auth on, etcd's JSON gateway refuses a
    # client certificate that names a user ("CommonName ... ignored")
    openssl req -newkey rsa:2048 -nodes \
        -subj "$([ $who = server ] && echo /CN=server || echo /O=agentctl)" \
        -keyout "$P/$who.key" -out "$P/$who.csr" 2>/dev/null
    # the server's certificate also for clientAuth: etcd's JSON gateway
    # dials the server's own gRPC port with it
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=%s\n' \
        "$([ $who = server ] && echo serverAuth,clientAuth || echo clientAuth)" >"$P/$who.ext"
    openssl x509 -req -in "$P/$who.csr" -CA "$P/ca.crt" -CAkey "$P/ca.key" \
        -CAcreateserial -days 1 -extfile "$P/$who.ext" -out "$P/$who.crt" 2>/dev/null
done
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=other-ca \
    -keyout "$P/other.key" -out "$P/other.crt" 2>/dev/null

free_port; PORT=$FREE_PORT; free_port; PEER=$FREE_PORT
URL=https://127.0.0.1:$PORT
etcd --name t --data-dir "$TEST_TMP/etcd" \
    --listen-client-urls "$URL" --advertise-client-urls "$URL" \
    --listen-peer-urls "http://127.0.0.1:$PEER" \
    --initial-advertise-peer-urls "http://127.0.0.1:$PEER" \
    --initial-cluster "t=http://127.0.0.1:$PEER" \
    --cert-file "$P/server.crt" --key-file "$P/server.key" \
    --trusted-ca-file "$P/ca.crt" --client-cert-auth \
    >>"$TEST_TMP/etcd.log" 2>&1 &
ETCD_PID=$!
on_cleanup 'kill -9 $ETCD_PID 2>/dev/null; wait $ETCD_PID 2>/dev/null || true'
ectl() { ETCDCTL_API=3 etcdctl --endpoints "$URL" --cacert "$P/ca.crt" \
    --cert "$P/client.crt" --key "$P/client.key" "$@"; }
for _ in $(seq 100); do ectl endpoint health >/dev/null 2>&1 && break; sleep 0.1; done
ectl endpoint health >/dev/null 2>&1 || fail "etcd with TLS did not come up: $(tail -n 5 "$TEST_TMP/etcd.log")"
printf 's3cret\n' >"$TEST_TMP/pw"
printf 'wrong\n' >"$TEST_TMP/bad-pw"
ectl user add root --new-user-password=s3cret >/dev/null
ectl user grant-role root root >/dev/null
ectl user add agent --new-user-password=s3cret >/dev/null
ectl role add agentctl >/dev/null
ectl role grant-permission agentctl --prefix=true readwrite /t/ >/dev/null
ectl user grant-role agent agentctl >/dev/null
ectl auth enable >/dev/null

export AGENTCTL_ETCD=$URL AGENTCTL_ETCD_PREFIX=/t AGENTCTL_STATE=$TEST_TMP/state
unset AGENTCTL_SPECS
sec=(--etcd-cacert "$P/ca.crt" --etcd-cert "$P/client.crt" --etcd-key "$P/client.key"
    --etcd-user agent --etcd-password-file "$TEST_TMP/pw")
spec='apiVersion: agentctl.dev/v1alpha1
kind: AgentInvocation
metadata: {name: secure}
spec: {vendor: fake, phase: execute, image: "agentctl/demo-agent:0.1.0", command: [demo-agent], deadlineSeconds: 10}'

out=$("$A" "${sec[@]}" apply -f - <<<"$spec")
check_eq "apply over TLS with a client cert and a user" "agentinvocation.agentctl.dev/secure created" "$out"
check_eq "get reads it back" "agentinvocation.agentctl.dev/secure" "$("$A" "${sec[@]}" get -o name)"
check_match "the key is in etcd under the prefix" "/t/specs/secure" "$(ectl --user root:s3cret get --prefix /t/specs --keys-only)"
out=$(AGENTCTL_ETCD_PASSWORD=s3cret "$A" --etcd-cacert "$P/ca.crt" --etcd-cert "$P/client.crt" \
    --etcd-key "$P/client.key" --etcd-user agent get -o name)
check_eq "the password from AGENTCTL_ETCD_PASSWORD" "agentinvocation.agentctl.dev/secure" "$out"

refused() { # DESCRIPTION PATTERN ARGS...
    local what=$1 pat=$2 rc=0 out
    shift 2
    out=$("$A" "$@" get 2>&1) || rc=$?
    check_eq "control: $what: exit 1" 1 "$rc"
    check_match "control: $what: says why" "$pat" "$out"
}
refused "no CA: the server is not trusted" "certificate|SSL|issuer" \
    --etcd-cert "$P/client.crt" --etcd-key "$P/client.key" --etcd-user agent --etcd-password-file "$TEST_TMP/pw"
refused "another CA: not trusted either" "certificate|SSL|issuer" --etcd-cacert "$P/other.crt" \
    --etcd-cert "$P/client.crt" --etcd-key "$P/client.key" --etcd-user agent --etcd-password-file "$TEST_TMP/pw"
refused "no client certificate: etcd refuses" "etcd https://127.0.0.1:$PORT" --etcd-cacert "$P/ca.crt" \
    --etcd-user agent --etcd-password-file "$TEST_TMP/pw"
refused "a wrong password" "authentication failed|invalid user ID or password" "${sec[@]:0:8}" \
    --etcd-password-file "$TEST_TMP/bad-pw"
refused "no user" "user name is empty|permission denied|auth" "${sec[@]:0:6}"
rc=0; "$A" "${sec[@]:0:6}" --etcd-cert "$P/client.crt" get >/dev/null 2>&1 || rc=$?
check_eq "control: --etcd-cert without --etcd-key: refused" 1 "$rc"

# a token etcd no longer knows (auth switched off and on drops them all)
ectl --user root:s3cret auth disable >/dev/null
ectl auth enable >/dev/null
out=$("$A" "${sec[@]}" get -o name)
check_eq "after auth was re-enabled: a fresh token" "agentinvocation.agentctl.dev/secure" "$out"

# the controller on the same etcd, with the same flags
CFG=$TEST_TMP/controller.yaml
sed -e "s|/etc/agentctl/secrets|$TEST_TMP/secrets|" -e "s|/var/lib/agentctl/workspaces|$TEST_TMP/ws|" \
    "$ROOT/manifests/config/etcd.yaml" >"$CFG"
mkdir -p "$TEST_TMP/secrets" "$TEST_TMP/ws"
rc=0
timeout 60 "$BUILD/controller/agent-controller" --etcd "$URL" --etcd-prefix /t \
    --state "$TEST_TMP/ctl-state" --config "$CFG" --controller-id "tls-$$" \
    "${sec[@]}" --once >"$TEST_TMP/ctl.log" 2>&1 || rc=$?
check_eq "agent-controller --once over TLS and auth: exit 0" 0 "$rc"
check_match "it wrote the status through etcd" '"controller":"tls-' \
    "$(ectl --user root:s3cret get /t/status/secure --print-value-only)"
