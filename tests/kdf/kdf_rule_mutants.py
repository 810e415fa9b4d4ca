#!/usr/bin/python3
"""Mutants of the KDF params' rules (docs/tls13-kdf.md lists them): plants
each in turn in provider/kdfs, rebuilds stitch.so and the sequence
enumerator in BUILD_DIR, walks the sequences on SHA2-256 (as CTest does),
and restores the file. Every mutant must be caught; the report
names the first sequence that caught it. Not part of CTest (each one is a
rebuild and a walk of every sequence up to four calls on SHA2-256, ~40 s).

  tests/kdf/kdf_rule_mutants.py [BUILD_DIR] [INDEX...]     (default: build; all)
"""
import pathlib
import re
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import mutants as runner  # noqa: E402  (tests/mutants.py)

root = runner.root
build = runner.build_dir()
H, C, T = "provider/kdfs/hkdf.cpp", "provider/kdfs/kdf_ctx.cpp", "provider/kdfs/tls13_kdf.cpp"
mutants = [
    ("a refused salt stops EXPAND_ONLY", H,
     "if (c.salt_refused && c.mode != EVP_KDF_HKDF_MODE_EXPAND_ONLY)", "if (c.salt_refused)"),
    ("a refused param keeps the old value", C,
     "    clear_field(f);\n    if (p.data_type != OSSL_PARAM_OCTET_STRING || !p.data) return refuse(*c.prov, R_INVALID_PARAM);",
     "    if (p.data_type != OSSL_PARAM_OCTET_STRING || !p.data) return refuse(*c.prov, R_INVALID_PARAM);\n    clear_field(f);"),
    ("a valid salt leaves an earlier refusal standing", C,
     "        c.salt_refused = false;\n        if (!set_field", "        if (!set_field"),
    ("reset leaves a salt refusal standing", C,
     "    c.mode = EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND;\n    c.salt_refused = false;",
     "    c.mode = EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND;"),
    ("dup drops a salt refusal", C, "    c->salt_refused = src.salt_refused;\n", ""),
    ("TLS13-KDF keeps data across calls", T, "    clear_data(c);\n", ""),
    ("TLS13-KDF skips the mode check on calls with params", T,
     "    if (c.mode == EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND) return refuse(*c.prov, R_INVALID_MODE);\n    if (p.prefix", "    if (p.prefix"),
    ("an empty info keeps the old one", C,
     "    uint8_t* dst = make_room(c.info, total);", "    if (!total) return 1;\n    uint8_t* dst = make_room(c.info, total);"),
    ("a refused HKDF extract writes its output", H,
     "        if (out_len != hash_len) return refuse(*c.prov, R_EXTRACT_OUTPUT_SIZE);",
     "        if (out_len != hash_len) { std::memset(out, 0, out_len); return refuse(*c.prov, R_EXTRACT_OUTPUT_SIZE); }"),
    ("an unknown mode is stored", C,
     "        mode != EVP_KDF_HKDF_MODE_EXPAND_ONLY)\n        return refuse(*c.prov, R_INVALID_MODE);",
     "        mode != EVP_KDF_HKDF_MODE_EXPAND_ONLY) {\n        c.mode = mode;\n        return refuse(*c.prov, R_INVALID_MODE);\n    }"),
    ("size answers SIZE_MAX in EXTRACT_ONLY", C, "        if (c.mode == EVP_KDF_HKDF_MODE_EXTRACT_ONLY) {",
     "        if (false) {"),
    ("TLS13-KDF extract treats a refused key as an empty key", T,
     "c.salt.len, c.key.present, c.key.data(),", "c.salt.len, true, c.key.data(),"),
    ("a refused digest leaves the old digest", "provider/kdfs/digest.cpp",
     "    kdf_digest_clear(d);\n    if (!name) return refuse(prov, R_UNKNOWN_DIGEST);", "    if (!name) return refuse(prov, R_UNKNOWN_DIGEST);\n    kdf_digest_clear(d);"),
]


def check():
    r = subprocess.run(f"{build}/tests/kdf/kdf_sequence_enumerate --depth 4 --digest sha256",
                       shell=True, cwd=root, capture_output=True, text=True)
    m = re.search(r"enumerator: (.*?) failed", r.stderr)
    f = re.search(r"FUZZ FINDING: (.*)", r.stderr)
    return f"[{m.group(1) if m else '?'}]: {f.group(1) if f else ''}" if r.returncode else ""


runner.run(mutants, f"cmake --build {build} --target stitch kdf_sequence_enumerate -j2", check, exact=True)
