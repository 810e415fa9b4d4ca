#!/bin/bash
# AddressSanitizer + UndefinedBehaviorSanitizer run of the whole test suite,
# and the provider load/use/unload leak check under LeakSanitizer
# (docs/security.md; issue 5 item 3). Any sanitizer report fails the run.
#   scripts/test-sanitizers.sh [BUILD_DIR]    (default: build-asan in the repository)
#
# How it is built: gcc, with -fsanitize=address,undefined
# -fno-sanitize-recover=all in CMAKE_C/CXX_FLAGS and on every link, so the
# kernels, stitch.so and every test binary are instrumented. gcc links the
# sanitizer runtimes as shared libraries (clang would link ASan statically into
# executables only, and stitch.so's -Wl,--no-undefined would then fail).
#
# stitch.so is a module an uninstrumented libcrypto dlopens. In the test
# binaries that is fine: they are instrumented, so the ASan runtime is loaded
# first. The system `openssl` binary is not: the pytest CLI tests run it
# through a wrapper, written below, that sets LD_PRELOAD to gcc's libasan so
# the runtime comes first and stitch.so runs checked inside `openssl`.
#
# What cannot run here, and why (printed again when it is skipped):
#   ct.valgrind (and its .avx2_key_lane, _gpr), ct.valgrind_kdf, ct.provider
#                 valgrind cannot host an ASan process (ASan maps its shadow
#                 memory at fixed addresses valgrind will not give it); the
#                 constant-time check runs in the plain build (scripts/test.sh).
#   openssl-cli's test_tls_records_are_processed_inside_stitch and
#   test_tls13_key_schedule_runs_inside_stitch
#                 run `openssl` under callgrind: valgrind again.
#   openssl-cli's test_conf_moves_implicit_fetches_to_stitch
#                 loads stitch.so into a Python interpreter (ctypes), which is
#                 not instrumented; preloading ASan into Python would have
#                 LeakSanitizer report the interpreter's own allocations.
#                 The rest of the CLI tests run.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-asan}
start=$(date +%s)

if [ -e "$build" ] && [ ! -f "$build/CMakeCache.txt" ]; then
    echo "test-sanitizers.sh: $build exists and is not a CMake build directory; not touching it" >&2
    exit 1
fi
# A fresh cache: changing the compiler on an old one makes CMake drop every
# other -D given with it. Object files stay, so the build is incremental.
rm -f "$build/CMakeCache.txt"
mkdir -p "$build"

libasan=$(readlink -f "$(gcc -print-file-name=libasan.so)")
[ -f "$libasan" ] || { echo "test-sanitizers.sh: gcc's libasan not found (Debian: libasan8)" >&2; exit 1; }
openssl_bin=$(command -v openssl) || { echo "test-sanitizers.sh: openssl not found" >&2; exit 1; }
cat > "$build/openssl-asan" <<EOF
#!/bin/sh
# The system openssl with the ASan runtime loaded first (test-sanitizers.sh).
LD_PRELOAD=$libasan exec $openssl_bin "\$@"
EOF
chmod +x "$build/openssl-asan"

# Build type "Sanitize": -O1 (what ASan is tuned for) and line tables only,
# which halves the compile time of -O2 -g; reports still name file and line.
# The EVP enumerator (fuzz.evp_sequence.enumerate) walks keyed sequences to 4
# calls here rather than 5: ASan makes each run ~6x dearer (40 s against 6 s),
# and the plain build walks 5. The KDF enumerator (kdf.enumerate.*) walks 3
# calls rather than 4 (every sequence of 3, 0.34 M) for the same reason.
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# The SIMDe build of the AVX-512 set only where the CPU cannot run the
# set natively (scripts/simde-build.sh says why): it was the slowest part
# of this build and run.
emulated=$("$root/scripts/simde-build.sh")
echo "test-sanitizers.sh: the SIMDe build of the AVX-512 set: $emulated"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Sanitize -DSTITCH_TEST_EMULATED=$emulated \
    -DCMAKE_C_FLAGS_SANITIZE="-O1 -g1" -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -g1" \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san" \
    -DCMAKE_EXE_LINKER_FLAGS="$san" -DCMAKE_MODULE_LINKER_FLAGS="$san" -DCMAKE_SHARED_LINKER_FLAGS="$san" \
    -DSTITCH_OPENSSL_BIN="$build/openssl-asan" -DSTITCH_ENUMERATE_KEYED_DEPTH=4 -DSTITCH_KDF_ENUMERATE_DEPTH=3
cmake --build "$build" -j"$(nproc)"
built=$(date +%s)

# Every report is fatal: halt on the first, abort (so CTest sees a crash), leaks on.
# Not detect_stack_use_after_return: its fake stack frames are poisoned with
# vector stores right after a call returns, which the tests that read the
# vector registers after an AVX2 kernel (no key left in them) would see.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:print_summary=1"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:report_error_type=1"
export LSAN_OPTIONS="print_suppressions=0"
export PYTEST_ADDOPTS="-k 'not test_tls_records_are_processed_inside_stitch and not test_tls13_key_schedule_runs_inside_stitch and not test_conf_moves_implicit_fetches_to_stitch'"

echo "test-sanitizers.sh: not run under ASan:"
echo "  ct.valgrind (and .avx2_key_*), ct.valgrind_kdf, ct.provider: valgrind cannot host an ASan process; they run in the plain build"
echo "  openssl-cli: test_tls_records_are_processed_inside_stitch, test_tls13_key_schedule_runs_inside_stitch"
echo "               (callgrind, valgrind again)"
echo "  openssl-cli: test_conf_moves_implicit_fetches_to_stitch (stitch.so inside Python via ctypes;"
echo "               the interpreter is not instrumented). The rest of openssl-cli runs."
cd "$build"
ctest --output-on-failure -j2 -E '^ct\.(valgrind(_kdf|\.avx2_key_(lane|gpr))?|provider(\.portable)?)$'

# Once more on its own, with full stacks through libcrypto (slower mallocs),
# so a leak report names the stitch call that made the block.
echo "test-sanitizers.sh: leak check, provider load/use/unload x100 under LeakSanitizer:"
ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0" ctest --output-on-failure -R '^provider_cycle_leak_test'
echo "test-sanitizers.sh: build $(( built - start )) s, tests $(( $(date +%s) - built )) s"
