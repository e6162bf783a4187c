#!/usr/bin/env bash
# test_dk_client.sh - the dk_ Docker client (docker/dk_*.c) against the
# real daemon, driven through the dk_smoke tool: version negotiation,
# volumes and networks (create, duplicate, inspect, list by label, delete
# by ID), the events stream, error messages, and a container's life with
# wait, start, followed and demultiplexed logs, exit code and removal.
source "$(dirname "$0")/../lib.sh"
need_docker

SMOKE=$(find "$BUILD" -type f -name dk_smoke -perm -u+x | head -n 1)
[ -n "$SMOKE" ] || fail "dk_smoke is not built under $BUILD"
LKEY=${TEST_LABEL%%=*}
LVAL=${TEST_LABEL#*=}
LABELS="{\"$LKEY\":\"$LVAL\"}"
NAME=$(echo "dk-$TEST_RUN_ID" | tr 'A-Z_' 'a-z-')
ERR=$TEST_TMP/stderr

# smoke ARGS...: run dk_smoke, stderr to $ERR; prints stdout.
smoke() {
    "$SMOKE" "$@" 2>"$ERR"
}

# --- version ----------------------------------------------------------
check_eq "API version negotiated" "1.41" "$(smoke version)"
check_match "a tcp DOCKER_HOST is refused" "only unix://" \
    "$(DOCKER_HOST=tcp://127.0.0.1:2375 "$SMOKE" version 2>&1 || true)"
check_match "an absent socket is unavailable" \
    "^error: unavailable: GET /version: cannot reach Docker at /nonexistent/d.sock" \
    "$("$SMOKE" --docker unix:///nonexistent/d.sock version 2>&1 || true)"

# --- events: label-filtered, followed (no until), replayed from T0 -----
# Container events carry labels; volume and network events do not (a
# label filter drops them), so volume events are filtered by name.
T0=$(date +%s)
VOL_EV="$NAME-ev"
smoke events --query since "$T0" \
    --filters "{\"type\":[\"volume\"],\"volume\":[\"$VOL_EV\"]}" \
    --count 2 >"$TEST_TMP/vol-events" &
EV_PID=$!
smoke req POST /volumes/create --json "{\"Name\":\"$VOL_EV\",\"Labels\":$LABELS}" \
    >/dev/null
smoke req DELETE "/volumes/$VOL_EV" >/dev/null
check "volume events stream ends after 2 events" wait $EV_PID
check_eq "volume create and destroy seen" \
    "volume create $VOL_EV|volume destroy $VOL_EV" \
    "$(paste -sd'|' "$TEST_TMP/vol-events")"
T1=$(($(date +%s) + 1))
check_eq "label filter drops volume events (daemon limitation)" "" \
    "$(smoke events --query since "$T0" --query until "$T1" \
        --filters "{\"label\":[\"$TEST_LABEL\"]}" --count 1 || true)"

# --- volume: tmpfs, labelled -------------------------------------------
VOL="$NAME-vol"
check_eq "volume created" "$VOL" "$(smoke req POST /volumes/create --json \
    "{\"Name\":\"$VOL\",\"Driver\":\"local\",\"Labels\":$LABELS,
      \"DriverOpts\":{\"type\":\"tmpfs\",\"device\":\"tmpfs\",\"o\":\"size=1m\"}}" \
    --field Name)"
check_eq "201 Created" "status 201" "$(cat "$ERR")"
check_eq "volume inspect shows tmpfs options" "tmpfs size=1m" \
    "$(smoke req GET "/volumes/$VOL" | jq -r '.Options.type + " " + .Options.o')"
check_eq "volume listed by label filter" "$VOL" \
    "$(smoke req GET /volumes --filters "{\"label\":[\"$TEST_LABEL\"]}" |
        jq -r '.Volumes[].Name')"

# --- network: internal, explicit subnet, CheckDuplicate ----------------
NET="$NAME-net"
# 10.213.251.0/24 first; other scenarios may hold it at the same moment
# (403 "Pool overlaps"), so fall back to a few neighbours.
NET_ID=
for SUBNET in 10.213.251.0/24 10.213.252.0/24 10.213.253.0/24 \
    10.213.254.0/24 10.213.249.0/24; do
    NET_BODY="{\"Name\":\"$NET\",\"Driver\":\"bridge\",\"Internal\":true,
      \"CheckDuplicate\":true,\"Labels\":$LABELS,
      \"IPAM\":{\"Driver\":\"default\",\"Config\":[{\"Subnet\":\"$SUBNET\"}]}}"
    if NET_ID=$(smoke req POST /networks/create --json "$NET_BODY" --field Id); then
        break
    fi
    grep -q 'Pool overlaps' "$ERR" || fail "network create: $(cat "$ERR")"
done
check_match "network created with an ID" '^[0-9a-f]{64}$' "$NET_ID"
if smoke req POST /networks/create --json "$NET_BODY" >/dev/null; then
    fail "a second network with the same name was created"
fi
check_match "duplicate network is a conflict with the daemon's message" \
    "^error: conflict: POST /networks/create: 409 Conflict: network with name $NET already exists" \
    "$(tail -n 1 "$ERR")"
check_eq "network inspect by ID" "true $SUBNET $LVAL" \
    "$(smoke req GET "/networks/$NET_ID" |
        jq -r "[.Internal, .IPAM.Config[0].Subnet, .Labels[\"$LKEY\"]] | join(\" \")")"
check_eq "network listed by label filter" "$NET_ID" \
    "$(smoke req GET /networks --filters "{\"label\":[\"$TEST_LABEL\"]}" |
        jq -r '.[].Id')"
smoke req DELETE "/networks/$NET_ID" >/dev/null
check_eq "network deleted by ID (204)" "status 204" "$(cat "$ERR")"
smoke req GET "/networks/$NET_ID" >/dev/null || true
check_match "deleted network is not found" "^error: not-found: " \
    "$(tail -n 1 "$ERR")"
smoke req DELETE "/volumes/$VOL" >/dev/null
check_eq "volume deleted (204)" "status 204" "$(cat "$ERR")"

# --- 404 with the daemon's message -------------------------------------
smoke req GET "/containers/$NAME-missing/json" >/dev/null || true
check_eq "missing container carries the daemon message" \
    "error: not-found: GET /containers/$NAME-missing/json: 404 Not Found: No such container: $NAME-missing" \
    "$(tail -n 1 "$ERR")"

# --- image FROM scratch with a static busybox --------------------------
IMG="$NAME:1"
mkdir -p "$TEST_TMP/img"
cp /bin/busybox "$TEST_TMP/img/busybox"
printf 'FROM scratch\nCOPY busybox /bin/busybox\n' >"$TEST_TMP/img/Dockerfile"
on_cleanup "docker rmi -f $IMG >/dev/null 2>&1"
docker build -q --label "$TEST_LABEL" -t "$IMG" "$TEST_TMP/img" \
    >/dev/null 2>"$TEST_TMP/build.log" || cat "$TEST_TMP/build.log" >&2
check "test image built" docker image inspect "$IMG" >/dev/null

# --- container: labelled events, wait + start, logs, exit code ---------
T0=$(date +%s)
# The image build's own labelled containers and tags fall in the same
# second: narrow to this container by name as well.
smoke events --query since "$T0" --filters \
    "{\"label\":[\"$TEST_LABEL\"],\"container\":[\"$NAME-ctr\"]}" \
    --count 4 >"$TEST_TMP/ctr-events" &
EV_PID=$!
CTR_BODY="{\"Image\":\"$IMG\",\"Labels\":$LABELS,\"Tty\":false,
  \"Cmd\":[\"/bin/busybox\",\"sh\",\"-c\",
    \"echo out1; echo err1 >&2; /bin/busybox sleep 1; echo out2; exit 3\"],
  \"HostConfig\":{\"NetworkMode\":\"none\"}}"
CID=$(smoke req POST "/containers/create" --query name "$NAME-ctr" \
    --json "$CTR_BODY" --field Id)
check_match "container created" '^[0-9a-f]{64}$' "$CID"
smoke run "$CID" >"$TEST_TMP/run"
check_eq "logs demultiplexed and exit code from wait" \
    "out: out1|out: out2|err: err1|exit: 3" "$(paste -sd'|' "$TEST_TMP/run")"
smoke req DELETE "/containers/$CID" >/dev/null
check_eq "container removed by ID (204)" "status 204" "$(cat "$ERR")"
check "label-filtered events stream ends after 4 events" wait $EV_PID
check_eq "container events seen in order" \
    "container create $CID|container start $CID|container die $CID|container destroy $CID" \
    "$(paste -sd'|' "$TEST_TMP/ctr-events")"
check_eq "nothing left with the test label" "0" \
    "$(docker_count_label "$TEST_LABEL")"
