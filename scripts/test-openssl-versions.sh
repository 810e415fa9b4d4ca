#!/bin/bash
# The tests that hold stitch to OpenSSL's default provider, run once against
# the installed libcrypto and once against each other OpenSSL given, which is
# placed inside the build tree and loaded with LD_LIBRARY_PATH: the system's
# libcrypto is never replaced (docs/openssl-3.0-semantics.md#patch-releases).
#
#   scripts/test-openssl-versions.sh [BUILD_DIR] [OTHER ...]
#
# BUILD_DIR (default build) is a configured build tree; the test binaries are
# built in it first. Each OTHER is either a Debian package version of libssl3
# and openssl that `apt-get download` can fetch (default: 3.0.20-1~deb12u2),
# unpacked with `dpkg -x` into BUILD_DIR/openssl-versions/VERSION, or a
# directory holding libcrypto.so.3 (and, to run the CLI tests with it, an
# `openssl` binary), e.g. a saved copy of a release no longer in the archive.
# Debian 12 carries 3.0.17, 3.0.20 and 3.0.22; 3.0.19 is gone from it.
#
# Per OpenSSL: the provider tests, the bad-input tables, the fuzz corpus
# replays and the exhaustive EVP walk (CTest, dispatched kernels only: which
# libcrypto is loaded does not change which kernels run), then the openssl
# command-line tests with that release's own `openssl`. Each run first checks
# that the test processes really load the libcrypto meant.
#
# Knobs (for a CI that has already run the whole suite on the installed one):
#   STITCH_VERSIONS_INSTALLED=0  skip the installed OpenSSL
#   STITCH_VERSIONS_CLI=0        skip the command-line tests (the slow part)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
others=("$@")
[ ${#others[@]} -gt 0 ] || others=(3.0.20-1~deb12u2)
build=$(cd "$build" && pwd)
[ -f "$build/CMakeCache.txt" ] || { echo "test-openssl-versions.sh: $build is not a configured build tree" >&2; exit 1; }
start=$(date +%s)

# What CTest runs against each OpenSSL: everything that compares with the
# default provider, without the .portable twins.
tests='^(provider_params_test|aead_differential_test|aead_tls_test|aead_bitflip_test|aead_finalise_test|empty_calls_test|chacha20_test|chacha20_cut_test|openssh_cipher_test|conf_test|provider_vectors_test|bad_input_table_test|provider_corners_test|poly1305_mac_test|kdf_provider_test|fuzz\.[a-z0-9_.]+)$'
exclude='\.portable$'
targets=(stitch provider_params_test aead_differential_test aead_tls_test aead_bitflip_test aead_finalise_test
         empty_calls_test chacha20_test chacha20_cut_test openssh_cipher_test conf_test provider_vectors_test
         bad_input_table_test provider_corners_test poly1305_mac_test kdf_provider_test evp_sequence_replay
         openssh_packet_replay kdf_params_replay evp_sequence_enumerate)
# The command-line tests run stitch-check too, where the tree builds it.
stitch_check=
if grep -q '^STITCH_BUILD_BENCH:BOOL=ON' "$build/CMakeCache.txt"; then
    targets+=(stitch-check)
    stitch_check=$build/tools/stitch-check/stitch-check
fi
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
built=$(date +%s)

# Unpacks a Debian version of libssl3 + openssl into the build tree (once).
fetch() {
    local version=$1 dir=$build/openssl-versions/$1
    if [ ! -f "$dir/usr/lib/x86_64-linux-gnu/libcrypto.so.3" ]; then
        mkdir -p "$dir/debs"
        (cd "$dir/debs" && apt-get download "libssl3=$version" "openssl=$version" >/dev/null)
        for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir"; done
    fi
    echo "$dir"
}

# The directory holding libcrypto.so.3 under an unpacked tree or a given one.
libdir_of() {
    if [ -f "$1/libcrypto.so.3" ]; then echo "$1"; else echo "$1/usr/lib/x86_64-linux-gnu"; fi
}
openssl_of() {
    for b in "$1/openssl" "$1/usr/bin/openssl"; do [ -x "$b" ] && { echo "$b"; return; }; done
    echo ""
}

# The release a process with this LD_LIBRARY_PATH loads, as libcrypto reports it.
loaded_release() {
    LD_LIBRARY_PATH=$1 /usr/bin/python3 -c '
import ctypes
c = ctypes.CDLL("libcrypto.so.3")
c.OpenSSL_version.restype = ctypes.c_char_p
print(c.OpenSSL_version(0).decode())'
}

failed=0
summary=()
run_one() {
    local name=$1 libdir=$2 openssl_bin=$3 t0 rc=0
    t0=$(date +%s)
    local release
    release=$(loaded_release "$libdir")
    echo "=== $name: $release (LD_LIBRARY_PATH=${libdir:-none})"
    # A test binary prints the release it compares with: it must be this one.
    local said
    said=$(LD_LIBRARY_PATH=$libdir "$build/tests/fuzz/evp_sequence_replay" "$root/tests/fuzz/corpus/evp_sequence" 2>&1 || true)
    if ! grep -q "reference is the default provider of $release" <<< "$said"; then
        echo "test-openssl-versions.sh: $name: the test binaries do not load $release" >&2
        summary+=("$name ($release): NOT RUN, the test binaries load another libcrypto")
        failed=1
        return
    fi
    LD_LIBRARY_PATH=$libdir ctest --test-dir "$build" -R "$tests" -E "$exclude" -j"$(nproc)" --output-on-failure \
        > "$build/openssl-versions-$name.log" 2>&1 || rc=1
    grep -E 'tests passed|tests failed|Total Test time' "$build/openssl-versions-$name.log" || tail -5 "$build/openssl-versions-$name.log"
    if [ "${STITCH_VERSIONS_CLI:-1}" = 0 ]; then
        echo "--- $name: command-line tests skipped (STITCH_VERSIONS_CLI=0)"
    elif [ -n "$openssl_bin" ]; then
        echo "--- $name: openssl command-line tests with $(LD_LIBRARY_PATH=$libdir "$openssl_bin" version)"
        (cd "$build/tests/openssl-cli" &&
            LD_LIBRARY_PATH=$libdir OPENSSL_MODULES="$build/provider" STITCH_CONF_DIR="$root/conf" PYTHONDONTWRITEBYTECODE=1 \
                /usr/bin/python3 -m pytest -q -p no:cacheprovider "$root/tests/openssl-cli" \
                --basetemp="$build/tests/openssl-cli/pytest-tmp-$name" --openssl "$openssl_bin" \
                --modules-dir "$build/provider" --conf-dir "$root/conf" --stitch-check="$stitch_check") \
            > "$build/openssl-versions-$name-cli.log" 2>&1 || rc=1
        tail -1 "$build/openssl-versions-$name-cli.log"
    else
        echo "--- $name: no openssl binary beside it: command-line tests not run"
    fi
    local secs=$(( $(date +%s) - t0 ))
    if [ $rc = 0 ]; then summary+=("$name ($release): passed in $secs s")
    else summary+=("$name ($release): FAILED in $secs s, see $build/openssl-versions-$name*.log"); failed=1; fi
}

[ "${STITCH_VERSIONS_INSTALLED:-1}" = 0 ] || run_one installed "" /usr/bin/openssl
for other in "${others[@]}"; do
    if [ -d "$other" ]; then
        dir=$(cd "$other" && pwd)
        name=$(basename "$dir")
    else
        dir=$(fetch "$other")
        name=$other
    fi
    run_one "$name" "$(libdir_of "$dir")" "$(openssl_of "$dir")"
done

echo "test-openssl-versions.sh: build $(( built - start )) s, tests $(( $(date +%s) - built )) s"
for line in "${summary[@]}"; do echo "  $line"; done
exit $failed
