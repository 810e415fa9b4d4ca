#!/usr/bin/python3
"""Mutants of the SHA-2 kernels (docs/tls13-kdf.md lists them): plants each in
turn in the source, rebuilds sha2_kernel_test and sha2_registers_test in BUILD_DIR, runs them, and
restores the file. Every mutant must be caught. Not part of CTest (each one
is a rebuild, ~20 s).

  tests/kdf/sha2_mutants.py [BUILD_DIR] [INDEX...]     (default: build; all)
"""
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import mutants as runner  # noqa: E402  (tests/mutants.py)

root = runner.root
build = runner.build_dir()
mutants = [
 ("sigma1 rotation 14->15", "kernels/sha512_avx2/sha512.cpp", "h += rotr(e, 14) ^", "h += rotr(e, 15) ^"),
 ("Sigma0 rotation 39->38", "kernels/sha512_avx2/sha512.cpp", "rotr(a, 39)", "rotr(a, 38)"),
 ("schedule word W[t-7] taken one pair late", "kernels/sha512_avx2/sha512.cpp", "const V w7 = straddle(w[((i) + 5) & 7], w[((i) + 4) & 7]);", "const V w7 = straddle(w[((i) + 6) & 7], w[((i) + 5) & 7]);"),
 ("schedule word W[t-15] unstraddled", "kernels/sha512_avx2/sha512.cpp", "const V w15 = straddle(w[((i) + 1) & 7], w[i]);", "const V w15 = w[((i) + 1) & 7];"),
 ("small sigma0 SHR7 -> SHR6", "kernels/sha512_avx2/sha512.cpp", "shr<7>(x)", "shr<6>(x)"),
 ("small sigma1 SHL45 -> SHL44", "kernels/sha512_avx2/sha512.cpp", "shl<45>(x)", "shl<44>(x)"),
 ("ROTR8 byte pattern off by one byte", "kernels/sha512_avx2/sha512.cpp", "_mm_set_epi64x(0x080f0e0d0c0b0a09, 0x0007060504030201)", "_mm_set_epi64x(0x080f0e0d0c0b0a09, 0x0007060504030102)"),
 ("feed-forward of h[7] dropped (first block)", "kernels/sha512_avx2/sha512.cpp", "    h_a[7] += hh;\n", "\n"),
 ("feed-forward of h[5] dropped (second block)", "kernels/sha512_avx2/sha512.cpp", "    h[5] += f;\n", "\n"),
 ("round constant of the schedule's words off by a pair", "kernels/sha512_avx2/sha512.cpp", "add(w[i], L::constants(t + 16 + 2 * (i)))", "add(w[i], L::constants(t + 14 + 2 * (i)))"),
 ("Maj's b^c carried from the wrong round", "kernels/sha512_avx2/sha512.cpp", "STITCH_SHA512_AVX2_ROUND(d, e, f, g, hh, a, b, c, wk[t + 5], x0, x1);", "STITCH_SHA512_AVX2_ROUND(d, e, f, g, hh, a, b, c, wk[t + 5], x1, x1);"),
 ("second block's schedule stored over the first's", "kernels/sha512_avx2/sha512.cpp", "_mm_store_si128(reinterpret_cast<__m128i*>(wk_b), _mm256_extracti128_si256(v, 1));", "_mm_store_si128(reinterpret_cast<__m128i*>(wk_b), _mm256_castsi256_si128(v));"),
 ("two-block loop stops one pair early", "kernels/sha512_avx2/sha512.cpp", "for (; nblocks >= 2; nblocks -= 2, in += 256)", "for (; nblocks > 2; nblocks -= 2, in += 256)"),
 ("Ch with f and g swapped", "kernels/sha512_avx2/sha512.cpp", "h += (e & f) ^ (~e & g);", "h += (e & g) ^ (~e & f);"),
 ("SHA-NI pair: second state fed forward from the first", "kernels/shani/sha256.cpp", "st[n].cdgh = _mm_add_epi32(st[n].cdgh, start[n].cdgh);", "st[n].cdgh = _mm_add_epi32(st[n].cdgh, start[0].cdgh);"),
 ("HMAC key setup: opad built from a wrong constant", "kernels/hmac.cpp", "opad[i] = ipad[i] ^ 0x5c5c5c5c5c5c5c5cull;", "opad[i] = ipad[i] ^ 0x5c5c5c5c5c5c5c5dull;"),
 ("AVX2 kernel leaves the schedule in ymm (no VZEROALL)", "kernels/sha512_avx2/sha512.cpp", "    _mm256_zeroall();\n", "\n"),
]


def check():
    r = subprocess.run(f"{build}/tests/kdf/sha2_kernel_test; k=$?; {build}/tests/kdf/sha2_registers_test || exit 1; exit $k",
                       shell=True, cwd=root, capture_output=True, text=True)
    failed = sorted({l.split()[3] for l in r.stdout.splitlines()
                     if l.startswith("[  FAILED  ]") and len(l.split()) > 3 and "." in l.split()[3]})
    return (", ".join(failed) or "a test") if r.returncode else ""


runner.run(mutants, f"cmake --build {build} --target sha2_kernel_test sha2_registers_test -j2", check)
