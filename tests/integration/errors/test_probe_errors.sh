#!/usr/bin/env bash
# test_probe_errors.sh - the boundary probe's bad invocations (issue 34,
# item 2): no flags, every flag without its value and with an invalid one
# (not an IPv4 literal, a port out of range, a count that is not a whole
# number in range, a target with a space or a byte that is not text, one
# too long), an unknown flag, too many --direct, --allowed and --gateway
# together. The probe reads no file and resolves no name; its usage
# (images/probe_args.c): exit 4 on a bad command line, with the message
# naming the flag and the value, and the value shown as text (\xNN for a
# byte that is not printable: it echoed raw bytes before). Each row runs
# plain, under ASan/UBSan and under valgrind (lib_errors.sh). No row gets
# past the parser, so nothing is sent anywhere.
source "$(dirname "$0")/lib_errors.sh"
err_require images/probe
PR=@images/probe
OK=(--proxy 10.213.0.2:3128 --denied blocked.test:443)
LONG=$(head -c 300 /dev/zero | tr '\0' a):443

row "no flags" 4 "--proxy, --denied and one of --allowed or --gateway are needed" $PR
row "no --denied" 4 "--proxy, --denied and one of" \
    $PR --proxy 10.213.0.2:3128 --allowed vendor.test:443
row "neither --allowed nor --gateway" 4 "one of --allowed or --gateway" \
    $PR "${OK[@]}"
row "--allowed and --gateway" 4 "--allowed and --gateway exclude each other" \
    $PR "${OK[@]}" --allowed vendor.test:443 --gateway 10.213.0.3:8080
row "unknown flag" 4 "unknown argument: --bogus" \
    $PR "${OK[@]}" --bogus x
row "a stray argument" 4 "missing value for: stray" \
    $PR "${OK[@]}" --allowed vendor.test:443 stray

# ---- a flag without its value ----
for f in proxy allowed gateway denied direct timeout-ms proxy-timeout-ms \
    landlock; do
    row "--$f without a value" 4 "missing value for: --$f" \
        $PR "${OK[@]}" --allowed vendor.test:443 --$f
done

# ---- endpoints: IPv4 literals only, ports 1-65535 ----
for f in proxy gateway direct; do
    row "--$f a name" 4 "--$f needs IPv4:PORT: vendor\\.test:443" \
        $PR "${OK[@]}" --allowed vendor.test:443 --$f vendor.test:443
    row "--$f no port" 4 "--$f needs IPv4:PORT: 10\\.0\\.0\\.1\$" \
        $PR "${OK[@]}" --allowed vendor.test:443 --$f 10.0.0.1
    row "--$f port 70000" 4 "--$f needs IPv4:PORT: 10\\.0\\.0\\.1:70000" \
        $PR "${OK[@]}" --allowed vendor.test:443 --$f 10.0.0.1:70000
    row "--$f port 0" 4 "--$f needs IPv4:PORT: 10\\.0\\.0\\.1:0" \
        $PR "${OK[@]}" --allowed vendor.test:443 --$f 10.0.0.1:0
    row "--$f empty" 4 "--$f needs IPv4:PORT: \$" \
        $PR "${OK[@]}" --allowed vendor.test:443 --$f ""
    row "--$f IPv6" 4 "--$f needs IPv4:PORT: \\[::1\\]:443" \
        $PR "${OK[@]}" --allowed vendor.test:443 --$f "[::1]:443"
done
d=()
for i in $(seq 1 17); do d+=(--direct "10.0.0.$i:80"); done
row "17 --direct" 4 "too many --direct: 10\\.0\\.0\\.17:80" \
    $PR "${OK[@]}" --allowed vendor.test:443 "${d[@]}"

# ---- targets: host:port that fits one CONNECT line ----
for f in allowed denied; do
    row "--$f no port" 4 "--$f needs HOST:PORT: vendor\\.test\$" \
        $PR --proxy 10.213.0.2:3128 --allowed vendor.test:443 \
        --denied blocked.test:443 --$f vendor.test
    row "--$f a space" 4 "--$f needs HOST:PORT: a b:443" \
        $PR --proxy 10.213.0.2:3128 --allowed vendor.test:443 \
        --denied blocked.test:443 --$f "a b:443"
    row "--$f not text" 4 "--$f needs HOST:PORT: \\\\xff\\\\xfe:443" \
        $PR --proxy 10.213.0.2:3128 --allowed vendor.test:443 \
        --denied blocked.test:443 --$f "$(printf '\xff\xfe'):443"
    row "--$f too long" 4 "--$f needs HOST:PORT: a{64}\\.\\.\\.\$" \
        $PR --proxy 10.213.0.2:3128 --allowed vendor.test:443 \
        --denied blocked.test:443 --$f "$LONG"
    row "--$f port only" 4 "--$f needs HOST:PORT: :443" \
        $PR --proxy 10.213.0.2:3128 --allowed vendor.test:443 \
        --denied blocked.test:443 --$f ":443"
done

# ---- counts and the landlock mode ----
for f in timeout-ms proxy-timeout-ms; do
    for v in 0 60001 -5 abc 5s ""; do
        row "--$f '$v'" 4 "--$f needs 1\\.\\.60000: $(q "$v")\$" \
            $PR "${OK[@]}" --allowed vendor.test:443 --$f "$v"
    done
done
row "--landlock maybe" 4 "--landlock is required or optional: maybe" \
    $PR "${OK[@]}" --allowed vendor.test:443 --landlock maybe
rows_finish
