# lib.sh - shared helpers for integration scenarios (source it).
#
# A scenario is one bash file tests/integration/<area>/test_*.sh. It exits 0
# when every check held, 77 to skip (with the reason on its last line), and
# anything else on failure. Every Docker object a scenario creates carries
# the label in $TEST_LABEL, and test_cleanup (run on EXIT) removes all of
# them, also when the scenario fails.
set -euo pipefail

ROOT=${AGENTCTL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${AGENTCTL_BUILD:-$ROOT/build}
TEST_NAME=$(basename "${0%.sh}")
TEST_RUN_ID="${TEST_NAME}-$$-$(date +%s)"
TEST_LABEL="agentctl.test=${TEST_RUN_ID}"
TEST_TMP=$(mktemp -d "/tmp/agentctl-${TEST_NAME}.XXXXXX")
CHECKS=0
TEST_CLEANUP_HOOKS=()

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# check DESCRIPTION CMD...: CMD must succeed.
check() {
    local what=$1
    shift
    if "$@"; then
        CHECKS=$((CHECKS + 1))
        echo "ok - $what"
    else
        fail "$what (command: $*)"
    fi
}

# check_eq DESCRIPTION EXPECTED ACTUAL
check_eq() {
    if [ "$2" == "$3" ]; then
        CHECKS=$((CHECKS + 1))
        echo "ok - $1"
    else
        fail "$1: expected [$2], got [$3]"
    fi
}

# check_match DESCRIPTION REGEX ACTUAL
check_match() {
    if [[ $3 =~ $2 ]]; then
        CHECKS=$((CHECKS + 1))
        echo "ok - $1"
    else
        fail "$1: [$3] does not match /$2/"
    fi
}

skip() {
    echo "$*"
    exit 77
}

need_docker() {
    curl -fsS --max-time 3 --unix-socket /var/run/docker.sock \
        http://localhost/_ping >/dev/null 2>&1 ||
        skip "no Docker daemon on /var/run/docker.sock"
}

# make_test_ca DIR HOST NAME: a CA (DIR/ca.pem, ca.key) named NAME and a
# server certificate for HOST signed by it (DIR/vendor.pem, vendor.key,
# both readable by a container's user: test keys only).
make_test_ca() {
    mkdir -p "$1"
    (
        cd "$1"
        openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem \
            -days 2 -subj "/CN=$3" \
            -addext "basicConstraints=critical,CA:TRUE" \
            -addext "keyUsage=critical,keyCertSign,cRLSign"
        openssl req -newkey rsa:2048 -nodes -keyout vendor.key \
            -out vendor.csr -subj "/CN=$2"
        printf '%s\n' "subjectAltName=DNS:$2" "basicConstraints=CA:FALSE" \
            "extendedKeyUsage=serverAuth" >ext
        openssl x509 -req -in vendor.csr -CA ca.pem -CAkey ca.key \
            -CAcreateserial -out vendor.pem -days 2 -extfile ext
        chmod 0644 vendor.key ca.pem
    ) >/dev/null 2>&1 || fail "openssl could not make the test CA $3"
}

on_cleanup() {
    TEST_CLEANUP_HOOKS+=("$*")
}

# Remove every Docker object carrying this run's label (and the
# controller-level label value given, if any), by ID.
docker_cleanup_label() {
    local label=$1 ids
    ids=$(docker ps -aq --filter "label=$label" 2>/dev/null || true)
    [ -z "$ids" ] || docker rm -f -v $ids >/dev/null 2>&1 || true
    ids=$(docker network ls -q --filter "label=$label" 2>/dev/null || true)
    [ -z "$ids" ] || docker network rm $ids >/dev/null 2>&1 || true
    ids=$(docker volume ls -q --filter "label=$label" 2>/dev/null || true)
    [ -z "$ids" ] || docker volume rm -f $ids >/dev/null 2>&1 || true
}

# Count Docker objects still carrying a label: containers+networks+volumes.
docker_count_label() {
    local label=$1
    {
        docker ps -aq --filter "label=$label"
        docker network ls -q --filter "label=$label"
        docker volume ls -q --filter "label=$label"
    } 2>/dev/null | grep -c . || true
}

test_cleanup() {
    local rc=$? h
    set +e
    for h in "${TEST_CLEANUP_HOOKS[@]}"; do
        eval "$h"
    done
    if command -v docker >/dev/null 2>&1 && [ -S /var/run/docker.sock ]; then
        docker_cleanup_label "$TEST_LABEL"
    fi
    rm -rf "$TEST_TMP"
    # a benchmark borrows the clean-up and has no checks to report
    if [ $rc -eq 0 ] && [ -z "${LIB_NO_CHECKS:-}" ]; then
        echo "passed: $CHECKS checks"
    fi
    exit $rc
}
trap test_cleanup EXIT
