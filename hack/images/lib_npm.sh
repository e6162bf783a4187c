# lib_npm.sh - fetch a pinned vendor CLI from the npm registry for
# hack/images/build-claude-code.sh and build-codex.sh (source it after
# lib.sh).
#
# The tarball is fetched with `npm pack` (a download, never an install:
# no package scripts run), checked against the integrity pinned in
# vendor-clis.txt, and only the one binary is taken out of it. Tarballs
# are kept in $NPM_CACHE_DIR so a rebuild does not download again; a cached
# tarball is re-checked every time.

PINS=${AGENTCTL_CLI_PINS:-$ROOT/hack/images/vendor-clis.txt}
NPM_CACHE_DIR=${AGENTCTL_NPM_CACHE:-$ROOT/build-npm}

# pin_field IMAGE N: field N (1-based) of IMAGE's line in vendor-clis.txt.
pin_field() {
    awk -v img="$1" -v n="$2" '$1 == img && $0 !~ /^#/ { print $n }' "$PINS"
}

# skip_build WHO REASON: the image cannot be built here; say why and exit 0
# (an image build that cannot reach its source is skipped, not failed:
# the scenarios that need the image skip with the same reason).
skip_build() {
    echo "$1: skipped: $2" >&2
    exit 0
}

# tgz_integrity FILE: npm's integrity string of FILE (sha512, base64).
tgz_integrity() {
    printf 'sha512-%s' "$(openssl dgst -sha512 -binary "$1" | base64 -w0)"
}

# npm_fetch_binary WHO IMAGE DEST: download (or reuse) IMAGE's pinned
# tarball, verify it, and extract its binary to DEST (mode 0755).
npm_fetch_binary() {
    local who=$1 img=$2 dest=$3 pkg ver want member tgz got out
    pkg=$(pin_field "$img" 3)
    ver=$(pin_field "$img" 4)
    want=$(pin_field "$img" 5)
    member=$(pin_field "$img" 6)
    [ -n "$pkg" ] && [ -n "$want" ] && [ -n "$member" ] ||
        { echo "$who: no pin for $img in $PINS" >&2; exit 1; }
    mkdir -p "$NPM_CACHE_DIR"
    tgz=$NPM_CACHE_DIR/$(printf '%s' "${pkg#@}" | tr / -)-$ver.tgz
    if [ ! -s "$tgz" ] || [ "$(tgz_integrity "$tgz")" != "$want" ]; then
        command -v npm >/dev/null ||
            skip_build "$who" "npm is not installed (hack/setup.sh installs it)"
        rm -f "$tgz"
        if ! out=$(cd "$NPM_CACHE_DIR" && npm pack --loglevel=error --fetch-retries=1 \
            "$pkg@$ver" 2>&1 >/dev/null); then
            skip_build "$who" "the npm registry is not reachable ($(npm config \
                get registry 2>/dev/null)): $(grep -m 1 . <<<"$out")"
        fi
        [ -s "$tgz" ] || { echo "$who: npm pack left no $tgz" >&2; exit 1; }
    fi
    got=$(tgz_integrity "$tgz")
    if [ "$got" != "$want" ]; then
        echo "$who: $pkg@$ver: integrity $got, pinned $want; refusing it" >&2
        rm -f "$tgz"
        exit 1
    fi
    tar -xzf "$tgz" -O "$member" >"$dest"
    chmod 0755 "$dest"
    NPM_TGZ=$tgz
}

# npm_extract_member MEMBER DEST: one more file of the tarball the last
# npm_fetch_binary verified (mode 0755).
npm_extract_member() {
    tar -xzf "$NPM_TGZ" -O "$1" >"$2"
    chmod 0755 "$2"
}

# copy_ldd_libs WHO BINARY ROOT: every library `ldd BINARY` resolves, and
# its program interpreter, copied to the same absolute path under ROOT
# (a static binary has none: nothing is copied).
copy_ldd_libs() {
    local who=$1 bin=$2 root=$3 out lib
    if file -L "$bin" | grep -q 'static'; then
        return 0
    fi
    out=$(ldd "$bin") || { echo "$who: ldd $bin failed" >&2; exit 1; }
    if grep -q 'not found' <<<"$out"; then
        echo "$who: $bin needs libraries this machine lacks: $out" >&2
        exit 1
    fi
    for lib in $(awk '$2 == "=>" && $3 ~ /^\// { print $3 }
        $1 ~ /^\// { print $1 }' <<<"$out"); do
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
    done
}

# cli_recipe SCRIPT: a digest of what an image of SCRIPT is made from (the
# script, this file, the pins). The image carries it as the label
# agentctl.dev/recipe, so a test can tell an image of this checkout from
# one another checkout tagged with the same name on a shared daemon.
cli_recipe() {
    cat "$1" "${BASH_SOURCE[0]}" "$PINS" | sha256sum | cut -c1-16
}
