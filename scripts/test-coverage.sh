#!/bin/bash
# Branch coverage of the provider and the scalar kernels (docs/testing.md,
# "Branch coverage"): builds everything with gcc --coverage in its own
# directory, runs the part of the suite that drives provider/ and the
# portable kernels, and prints gcovr's branch report for provider/,
# kernels/portable/ and the shared kernels/*.cpp|hpp, with a total per area:
# provider/, the scalar kernels (portable/ and the shared files), and
# dispatch (kernels/dispatch.cpp and the CPU probe, kernels/cpu.cpp: their
# branches depend on the host).
#   scripts/test-coverage.sh [BUILD_DIR]    (default: build-coverage in the repository)
# STITCH_COVERAGE_FAIL_UNDER=N makes the run fail below N % of branches in
# provider/ or in the scalar kernels (docs/testing.md lists what stays
# untaken, and why).
#
# What is counted: -O1 (faithful enough to the source, and the AVX2 tests in
# the run stay quick) with -fprofile-update=atomic, so the threads of a test
# cannot tear a counter; no -g (gcov reads its own notes, not debug
# information) and no SIMDe build of the AVX-512 set (STITCH_TEST_EMULATED:
# it counts toward none of the areas below, and was the slowest code to
# build and run here). gcovr leaves out the branches the compiler adds for
# exceptions (--exclude-throw-branches: the provider is noexcept, a throwing
# call's unwind edge is not a decision in the source) and those on lines that
# hold no code of their own (--exclude-unreachable-branches: closing braces,
# a static's initialisation guard split over lines).
#
# What is not run, being no help to the count: ct.* (valgrind),
# concurrent_cipher_test (TSan's job), ssh_interop_* and openssl-cli (the
# same provider paths through other programs, minutes at -O1), and the
# *_registers_test and avx*_stack_test checks (they read what the compiler
# left in vector and mask registers and on the stack, which depends on -O2's
# code, not on the source); the EVP
# enumerator runs at depth 3 (4 keyed) instead of 4 (5), the KDF one at 3
# instead of 4. The objects of binaries not run are not counted (gcovr would
# count their copies of inline and template code as never taken).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-coverage}
start=$(date +%s)

if [ -e "$build" ] && [ ! -f "$build/CMakeCache.txt" ]; then
    echo "test-coverage.sh: $build exists and is not a CMake build directory; not touching it" >&2
    exit 1
fi
command -v gcovr >/dev/null || { echo "test-coverage.sh: gcovr not found (Debian: gcovr)" >&2; exit 1; }
rm -f "$build/CMakeCache.txt"
mkdir -p "$build"

cov="-O1 --coverage -fprofile-update=atomic"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Coverage \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DCMAKE_C_FLAGS_COVERAGE="$cov" -DCMAKE_CXX_FLAGS_COVERAGE="$cov" \
    -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage -DCMAKE_MODULE_LINKER_FLAGS=--coverage \
    -DSTITCH_BUILD_BENCH=OFF -DSTITCH_TEST_EMULATED=OFF -DSTITCH_ENUMERATE_DEPTH=3 -DSTITCH_ENUMERATE_KEYED_DEPTH=4 -DSTITCH_KDF_ENUMERATE_DEPTH=3
cmake --build "$build" -j"$(nproc)"
built=$(date +%s)

# Counts from this run only.
find "$build" -name '*.gcda' -delete
(cd "$build" && ctest --output-on-failure -j2 -E '^(ct\.|concurrent_cipher_test|ssh_interop_|openssl-cli|[a-z0-9]+_registers_test|avx(2|512)_stack_test)')

cd "$root"
gcovr_args=(--root "$root" --object-directory "$build" -j 2 --exclude-throw-branches --exclude-unreachable-branches)
# A target directory with notes (.gcno) but no counts (.gcda): its binary did not run.
while IFS= read -r dir; do
    gcovr_args+=(--exclude-directories "$(printf '%s' "$dir" | sed 's/[][\.^$*+?(){}|]/\\&/g')")
done < <(find "$build" -name '*.gcno' -printf '%h\n' | sort -u | while read -r d; do
             compgen -G "$d/*.gcda" >/dev/null || echo "$d"; done)
provider=(--filter 'provider/')
scalar=(--filter 'kernels/portable/' --filter 'kernels/[^/]*\.(cpp|hpp)$' --exclude 'kernels/(dispatch|cpu)\.cpp')
dispatch=(--filter 'kernels/(dispatch|cpu)\.cpp')
kdf=(--filter 'provider/kdfs/' --filter 'kernels/hkdf\.hpp' --filter 'kernels/hmac\.(cpp|hpp)' --filter 'kernels/sha2\.(cpp|hpp)')
gcovr "${gcovr_args[@]}" "${provider[@]}" --filter 'kernels/portable/' --filter 'kernels/[^/]*\.(cpp|hpp)$' --branches
# gcovr writes its report by replacing the output file, so the report it is
# not asked for goes to a scratch file: --output /dev/null replaced the
# device with a regular file, and every later redirection wrote into it.
scratch=$(mktemp)
trap 'rm -f "$scratch"' EXIT
summary() {  # area name, then filters: prints "branches: N% (t out of n)"
    local name=$1
    shift
    echo "test-coverage.sh: $name: $(gcovr "${gcovr_args[@]}" "$@" --print-summary --output "$scratch" | grep '^branches')"
}
summary "provider/" "${provider[@]}"
summary "scalar kernels (kernels/portable/, kernels/*.cpp|hpp but dispatch.cpp and cpu.cpp)" "${scalar[@]}"
summary "kernels/dispatch.cpp and cpu.cpp" "${dispatch[@]}"
summary "KDFs (provider/kdfs/, kernels/hkdf.hpp, hmac.*, sha2.*)" "${kdf[@]}"
echo "test-coverage.sh: build $(( built - start )) s, tests and report $(( $(date +%s) - built )) s"

if [ -n "${STITCH_COVERAGE_FAIL_UNDER:-}" ]; then
    gcovr "${gcovr_args[@]}" "${provider[@]}" --fail-under-branch "$STITCH_COVERAGE_FAIL_UNDER" --output "$scratch"
    gcovr "${gcovr_args[@]}" "${scalar[@]}" --fail-under-branch "$STITCH_COVERAGE_FAIL_UNDER" --output "$scratch"
fi
