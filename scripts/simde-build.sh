#!/bin/bash
# Prints ON or OFF: whether a checking build (ASan, TSan) should compile the
# SIMDe build of the AVX-512 set (tests/emulated). OFF where this CPU runs
# the AVX-512 set natively (AVX512F, VL, BW and DQ): the checked build then
# runs that code as it is, and the SIMDe build would add only SIMDe, the
# slowest part of those builds. ON elsewhere, where it is the AVX-512
# logic's only checked run. Used by test-sanitizers.sh and test-tsan.sh.
set -euo pipefail
for flag in avx512f avx512vl avx512bw avx512dq; do
    grep -qw "$flag" /proc/cpuinfo || { echo ON; exit 0; }
done
echo OFF
