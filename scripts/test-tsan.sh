#!/bin/bash
# ThreadSanitizer run of tests/threads (issue 5 item 5): 2–8 threads
# fetching, sealing, opening and freeing through stitch at once, on the
# dispatched and the portable kernels. Any report fails the run.
#   scripts/test-tsan.sh [BUILD_DIR]    (default: build-tsan in the repository)
#
# gcc, -fsanitize=thread on every compile and link: kernels, stitch.so and the
# test are instrumented; gcc's TSan runtime is a shared library, so stitch.so
# links against it like the test does. libcrypto is not instrumented: TSan
# still sees its locks (pthread calls are intercepted) but not its plain
# memory accesses or its atomics. No suppression is needed today; if one
# ever is, it goes in tests/threads/tsan.supp with the reason, and only for
# frames inside libcrypto, never stitch's own code.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-tsan}
start=$(date +%s)

if [ -e "$build" ] && [ ! -f "$build/CMakeCache.txt" ]; then
    echo "test-tsan.sh: $build exists and is not a CMake build directory; not touching it" >&2
    exit 1
fi
# A fresh cache: changing the compiler on an old one makes CMake drop every
# other -D given with it. Object files stay, so the build is incremental.
rm -f "$build/CMakeCache.txt"

tsan="-fsanitize=thread -fno-omit-frame-pointer"
# The SIMDe build of the AVX-512 set only where the CPU cannot run the
# set natively (scripts/simde-build.sh says why): elsewhere it was four
# fifths of this build's time (~110 of ~135 s on a 2-vCPU Emerald Rapids).
emulated=$("$root/scripts/simde-build.sh")
echo "test-tsan.sh: the SIMDe build of the AVX-512 set: $emulated"
# Line tables only (-g1): a race report names file and line.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTITCH_TEST_EMULATED=$emulated \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ -DSTITCH_BUILD_BENCH=OFF \
    -DCMAKE_C_FLAGS="$tsan" -DCMAKE_CXX_FLAGS="$tsan" \
    -DCMAKE_EXE_LINKER_FLAGS="$tsan" -DCMAKE_MODULE_LINKER_FLAGS="$tsan" -DCMAKE_SHARED_LINKER_FLAGS="$tsan"
cmake --build "$build" -j"$(nproc)" --target concurrent_cipher_test
built=$(date +%s)

export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:second_deadlock_stack=1:history_size=4"
if [ -f "$root/tests/threads/tsan.supp" ]; then
    TSAN_OPTIONS="$TSAN_OPTIONS:suppressions=$root/tests/threads/tsan.supp:print_suppressions=1"
fi
cd "$build"
ctest --output-on-failure -R '^concurrent_cipher_test'
echo "test-tsan.sh: build $(( built - start )) s, tests $(( $(date +%s) - built )) s"
