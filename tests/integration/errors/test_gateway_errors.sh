#!/usr/bin/env bash
# test_gateway_errors.sh - agent-gateway's bad invocations (issue 34, item
# 2): no flags, every flag without its value and with an invalid one
# (--organization and --project too: IDs only, nothing that could end a
# header line),
# unknown flags, a value for a flag that takes none, a stray argument, the
# flags it needs missing or doubled; --key-file and --ca-file missing, a
# directory, a FIFO, a symlink, a symlink loop, empty, garbage, a key of
# the wrong mode or size; a --listen address that is not this host's or
# whose port is taken.
#
# docs/gateway.md "Flags": exit 2 on bad flags, 1 on a start-up failure
# (key file, CA file, socket). A message never quotes the key: the key
# rows check that the key's text is nowhere in the output. Each row runs
# plain, under ASan/UBSan and under valgrind (lib_errors.sh). The only
# network is loopback (a port a listener of this test holds); 1.2.3.4:80
# fails at bind and sends nothing; the upstream is never dialled (nothing
# gets as far as a request).
#
# Not here: a key file the gateway cannot read (chmod 000) - the suite
# runs as root, and root reads it anyway, so the case cannot be made
# without faking it; the mode check (group or others may read) is here.
source "$(dirname "$0")/lib_errors.sh"
err_require proxy/agent-gateway proxy/egress-proxy
GW=@proxy/agent-gateway
F=$TEST_TMP/f
err_fixtures "$F"
QF=$(q "$F")
err_listener # $ERR_TAKEN_PORT
TAKEN=127.0.0.1:$ERR_TAKEN_PORT
UP=(--upstream api.example.com:443)
ALLOW=(--allow 'POST /v1/')
BASE=(--listen 127.0.0.1:0 "${UP[@]}" "${ALLOW[@]}")
NC=(--no-credential)
# one certificate of the system bundle: a CA file that loads (the whole
# bundle takes valgrind two seconds a row)
CA=$TEST_TMP/ca.pem
sed -n '1,/-----END CERTIFICATE-----/p' /etc/ssl/certs/ca-certificates.crt \
    >"$CA" 2>/dev/null || true
grep -q 'END CERTIFICATE' "$CA" || CA=/etc/ssl/certs/ca-certificates.crt

# key files: every one holds the text "sk-secret", which no message may show
KEY=sk-secret-0123456789
K=$TEST_TMP/keys
mkdir -p "$K"
printf '%s\n' "$KEY" >"$K/good"
printf '%s\n' "$KEY" >"$K/mode644"
printf '%s\x01\xff\n' "$KEY" >"$K/garbage"
printf '%s with spaces\n' "$KEY" >"$K/spaces"
printf '%s\r\nX-Injected: 1\n' "$KEY" >"$K/crlf"
{
    printf '%s' "$KEY"
    head -c 5000 /dev/zero | tr '\0' a
} >"$K/big"
: >"$K/empty"
printf '\n \t\n' >"$K/blank"
ln -s good "$K/link"
chmod 600 "$K"/good "$K"/garbage "$K"/spaces "$K"/crlf "$K"/big "$K"/empty \
    "$K"/blank
chmod 644 "$K/mode644"

# ---- what the gateway needs, and flags it does not know ----
row "no flags" 2 "--listen, --upstream and --allow are required" $GW
row "no --allow" 2 "--listen, --upstream and --allow are required" \
    $GW --listen 127.0.0.1:0 "${UP[@]}" "${NC[@]}"
row "no --upstream" 2 "--listen, --upstream and --allow are required" \
    $GW --listen 127.0.0.1:0 "${ALLOW[@]}" "${NC[@]}"
row "no --listen" 2 "--listen, --upstream and --allow are required" \
    $GW "${UP[@]}" "${ALLOW[@]}" "${NC[@]}"
row "neither --key-file nor --no-credential" 2 \
    "give exactly one of --key-file and --no-credential" $GW "${BASE[@]}"
row "both --key-file and --no-credential" 2 \
    "give exactly one of --key-file and --no-credential" \
    $GW "${BASE[@]}" "${NC[@]}" --key-file "$K/good"
many=()
for i in $(seq 1 65); do
    many+=(--allow "GET /p$i")
done
row "more than 64 --allow" 2 "more than 64 --allow rules" \
    $GW --listen 127.0.0.1:0 "${UP[@]}" "${NC[@]}" "${many[@]}"
row "unknown flag" 2 "unknown flag --bogus" $GW "${BASE[@]}" "${NC[@]}" --bogus
row "unknown short flag" 2 "unknown flag -x" $GW "${BASE[@]}" "${NC[@]}" -x
row "a stray argument" 2 'unexpected argument \\"stray\\"' \
    $GW "${BASE[@]}" "${NC[@]}" stray
for f in no-credential allow-private; do
    row "a value for --$f" 2 "--$f=yes: the flag takes no value" \
        $GW "${BASE[@]}" "${NC[@]}" --$f=yes
done

# ---- a flag without its value ----
for f in listen upstream connect-to ca-file key-file auth-header allow \
    max-requests max-bytes max-body header-limit header-timeout \
    idle-timeout connect-timeout drain-timeout max-conns body-policy \
    allow-field allow-tool-type allow-beta organization project; do
    row "--$f without a value" 2 "--$f: missing value" \
        $GW "${BASE[@]}" "${NC[@]}" --$f
done

# ---- values that are not valid ----
for v in '' foo 127.0.0.1 127.0.0.1:99999 localhost:80 '[::1'; do
    row "--listen '$v'" 2 "--listen $(q "$v"): " \
        $GW --listen "$v" "${UP[@]}" "${ALLOW[@]}" "${NC[@]}"
done
for v in '' nocolon api.example.com:0 api.example.com:99999 \
    https://api.example.com:443 user@api.example.com:443; do
    row "--upstream '$v'" 2 "--upstream $(q "$v"): " \
        $GW --listen 127.0.0.1:0 --upstream "$v" "${ALLOW[@]}" "${NC[@]}"
done
for v in bad api.example.com:443 other.example.com:443=127.0.0.1:1; do
    row "--connect-to '$v'" 2 "--connect-to $(q "$v"): " \
        $GW "${BASE[@]}" "${NC[@]}" --connect-to "$v"
done
row "--connect-to to a name" 2 "--connect-to host:1: .*numeric" \
    $GW "${BASE[@]}" "${NC[@]}" --connect-to api.example.com:443=host:1
row "--connect-to port out of range" 2 \
    "--connect-to 127\\.0\\.0\\.1:99999: the port" \
    $GW "${BASE[@]}" "${NC[@]}" --connect-to api.example.com:443=127.0.0.1:99999
for v in basic '' X-API-KEY; do
    row "--auth-header '$v'" 2 "--auth-header $(q "$v"): want x-api-key" \
        $GW "${BASE[@]}" --key-file "$K/good" --auth-header "$v"
done
for v in '' GET 'get /' 'POST nope' 'POST /a?b' 'POST /a/../b'; do
    row "--allow '$v'" 2 "--allow \\\\\"$(q "$v")\\\\\": " \
        $GW --listen 127.0.0.1:0 "${UP[@]}" "${NC[@]}" --allow "$v"
done
while read -r f vals; do
    for v in $vals; do
        row "--$f $v" 2 "--$f $(q "$v"): must be a (whole )?number from" \
            $GW "${BASE[@]}" "${NC[@]}" --$f "$v"
    done
done <<'EOF'
max-requests -1 x 2.5 1e16
max-bytes -1 x 1.5
max-body -1 x 1.5
header-limit 255 65537 300.5
header-timeout 0 x 3601
idle-timeout 0 x
connect-timeout 0 3601
drain-timeout -1 x
max-conns 0 100001 1.5
EOF

# ---- the request policy's flags ----
row "--body-policy gemini" 2 "--body-policy gemini: want anthropic or openai" \
    $GW "${BASE[@]}" "${NC[@]}" --body-policy gemini
for f in allow-field allow-tool-type allow-beta; do
    row "--$f 'a b'" 2 "--$f: \\\\\"a b\\\\\": printable ASCII without spaces" \
        $GW "${BASE[@]}" "${NC[@]}" --body-policy anthropic --$f "a b"
    row "--$f without --body-policy" 2 "need --body-policy" \
        $GW "${BASE[@]}" "${NC[@]}" --$f x
done

# ---- the operator's organization and project: IDs only ----
for f in organization project; do
    for v in '' 'org a' 'org,b' "$(printf 'org\r\nX-Api-Key: k')" \
        "$(head -c 129 /dev/zero | tr '\0' a)"; do
        row "--$f $(q "$v")" 2 "--$f .*: (1 to 128 characters|letters, digits)" \
            $GW "${BASE[@]}" "${NC[@]}" --$f "$v"
    done
done

# ---- --key-file: every kind of bad file (exit 1), the key never shown ----
keyrow() { # NAME REGEX FILE
    row --not "sk-secret" "--key-file $1" 1 "--key-file $(q "$3"):? $2" \
        $GW "${BASE[@]}" --ca-file "$CA" --key-file "$3"
}
keyrow missing "No such file" "$F/missing"
keyrow "a directory" "a directory, not a regular file" "$F/dir"
keyrow "a FIFO" "a FIFO, not a regular file" "$F/fifo"
keyrow "a symlink loop" "a symbolic link, not a regular file" "$F/loop"
keyrow "a symlink to a good key" "a symbolic link, not a regular file" \
    "$K/link"
keyrow "mode 0644" "has mode 0644: group or others may use it" "$K/mode644"
keyrow "empty" "is empty" "$K/empty"
keyrow "blank" "is empty" "$K/blank"
keyrow "garbage bytes" "the key has a byte that cannot go into a header" \
    "$K/garbage"
keyrow "a key with spaces" "the key has a byte that cannot go into a header" \
    "$K/spaces"
keyrow "a key with CR LF and a header" "the key has a byte" "$K/crlf"
keyrow "over 2048 bytes" "is larger than 2048 bytes" "$K/big"

# ---- --ca-file: every kind of bad file (exit 1) ----
for kind in missing dir fifo loop empty garbage notyaml; do
    case $kind in
    missing) why="No such file" ;;
    dir) why="a directory, not a regular file" ;;
    fifo) why="a FIFO, not a regular file" ;;
    loop) why="Too many levels of symbolic links" ;;
    *) why="cannot load a CA bundle" ;;
    esac
    row "--ca-file $kind" 1 "--ca-file $QF/$kind: $why" \
        $GW "${BASE[@]}" "${NC[@]}" --ca-file "$F/$kind"
done

# ---- runtime: the address cannot be listened on (exit 1) ----
row "--listen not local (1.2.3.4:80)" 1 \
    "--listen 1\\.2\\.3\\.4:80: cannot listen: Cannot assign" \
    $GW --listen 1.2.3.4:80 "${UP[@]}" "${ALLOW[@]}" "${NC[@]}" --ca-file "$CA"
row --not "sk-secret" "--listen port taken, with a key" 1 \
    "--listen $(q "$TAKEN"): cannot listen: Address already in use" \
    $GW --listen "$TAKEN" "${UP[@]}" "${ALLOW[@]}" --key-file "$K/good" \
    --ca-file "$CA"

rows_finish
