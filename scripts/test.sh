#!/bin/bash
# README "Test": installs what is missing, builds every target in a fresh
# build directory and runs the whole CTest suite, then the trust checks of
# README "Security": the suite again under ASan+UBSan with the provider
# load/unload leak check, 60 s of libFuzzer per fuzz target, and the thread
# test under TSan. .ci/run runs exactly this.
#   scripts/test.sh [BUILD_DIR]    (default: build-test in the repository)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-test}

"$root/scripts/setup-debian.sh"

# Fresh means fresh, but only a CMake build directory is ever deleted.
if [ -e "$build" ]; then
    if [ ! -f "$build/CMakeCache.txt" ]; then
        echo "test.sh: $build exists and is not a CMake build directory; not touching it" >&2
        exit 1
    fi
    rm -rf "$build"
fi

start=$(date +%s)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j"$(nproc)"
(cd "$build" && ctest --output-on-failure -j2)
echo "test.sh: build and tests took $(( $(date +%s) - start )) s"

"$root/scripts/test-sanitizers.sh"
"$root/scripts/test-fuzz.sh" 60
"$root/scripts/test-tsan.sh"
echo "test.sh: everything took $(( $(date +%s) - start )) s"
