#!/usr/bin/env bash
# test_soak.sh - the chaos soak for 5 minutes (hack/soak/run.sh: a mixed
# load on the directory store and on etcd with two controllers, a fault
# every 25 s, the invariants after each fault and at the end; its checks
# are first run on planted violations). The 60-minute run's table is in
# docs/reliability.md.
exec bash "$(dirname "$0")/../../../hack/soak/run.sh" "${SOAK_SECONDS:-300}"
