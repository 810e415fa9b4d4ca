#!/bin/bash
# README "Try it": installs what is missing, builds stitch and its benchmark,
# then shows the main job: ChaCha20-Poly1305 TLS 1.3 records sealed and
# opened by stitch beside OpenSSL's default provider, and stitch taking over
# for programs that never name it once conf/stitch.cnf is in effect.
#   scripts/demo.sh [BUILD_DIR]    (default: build in the repository)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

"$root/scripts/setup-debian.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTITCH_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target stitch stitch_bench

echo
echo "=== 1. Throughput: stitch and the default provider in one process (bench/, --quick) ==="
"$build/bench/stitch_bench" --quick

export OPENSSL_CONF="$root/conf/stitch.cnf" OPENSSL_MODULES="$build/provider"
echo
echo "=== 2. stitch through conf/: OPENSSL_CONF=conf/stitch.cnf OPENSSL_MODULES=$build/provider ==="
echo "\$ openssl list -providers"
openssl list -providers
echo "\$ openssl list -cipher-algorithms | grep stitch"
openssl list -cipher-algorithms | grep "@ stitch"
echo
echo "A program that never names a provider (scripts/which-provider.py, EVP_chacha20_poly1305() etc.):"
/usr/bin/python3 "$root/scripts/which-provider.py" --require-stitch
