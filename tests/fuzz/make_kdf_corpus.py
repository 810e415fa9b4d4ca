#!/usr/bin/python3
"""Writes the seed corpus of the kdf_params fuzz target,
tests/fuzz/corpus/kdf_params/: one small input per path a random input would
rarely find (TLS 1.3's two steps as libssl calls them, params spread over
calls, TLS13-KDF forgetting `data`, dup mid-sequence, every limit).

The encoders mirror KdfRun's decoders in kdf_params_fuzz.cpp; change them
together. Run: /usr/bin/python3 tests/fuzz/make_kdf_corpus.py

The enum_* files beside these seeds are the sequence enumerator's: for every
rule and event the target counts, the shortest call sequence that reached it
(tests/kdf/kdf_sequence_enumerate.cpp). --enumerator BIN rewrites them too:
  make_kdf_corpus.py --enumerator build/tests/kdf/kdf_sequence_enumerate
"""

import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "corpus" / "kdf_params"

# FuzzInput::length: < 96 literal, 96..223 index an edge table, 224+ a u16 follows.
EDGES = [15, 16, 17, 31, 32, 63, 64, 65, 127, 128, 129, 191, 192, 193,
         255, 256, 257, 447, 448, 449, 511, 512, 513, 1023, 1024, 1025]

DIGESTS = ["SHA2-256", "sha256", "SHA-384", "SHA2-512", "2.16.840.1.101.3.4.2.1",
           "SHA1", "SHA2-224", "SHA3-256", "SHAKE128", "MD5", "SHA-257", ""]
PROPS = ["provider=default", "", "provider=stitch", "?provider=default"]
SET, DERIVE, RESET, GET, DUP = 0, 2, 5, 6, 7
EXTRACT_AND_EXPAND, EXTRACT_ONLY, EXPAND_ONLY = 0, 1, 2


def u16(v):
    return [v & 0xFF, v >> 8]


def length(n):
    if n < 96:
        return [n]
    if n in EDGES:
        return [96 + EDGES.index(n)]
    return [224, n & 0xFF, n >> 8]


def stream(n, seed):  # `bytes(max)` with flag 1: a seeded stream of n bytes
    return length(n) + [1, seed]


def filled(n, value):  # `bytes(max)` with flag 0: n copies of one byte
    return length(n) + [0, value]


def params(digest=None, props=None, mode=None, key=None, salt=None, infos=None,
           tls13_prefix=False, label=None, data=None):
    """key/salt/label/data: encoded byte choices (stream()/filled()); infos: a list of them."""
    which = 0
    body = []
    if digest is not None:
        which |= 1
        body += u16(DIGESTS.index(digest))
    if props is not None:
        which |= 2
        body += u16(PROPS.index(props))
    if mode is not None:
        which |= 4
        body += [1, mode + 1]  # a number: u8 % 5 - 1
    if key is not None:
        which |= 8
        body += key
    if salt is not None:
        which |= 16
        body += salt
    if infos is not None:
        which |= 32
        body += u16(len(infos) - 1)
        for i in infos:
            body += [8] + i  # a u8 >= 8: an ordinary info
    if tls13_prefix:
        which |= 64
        body += [1]  # "tls13 "
    if label is not None:
        which |= 128
        body += label
    if data is not None:
        which |= 256
        body += data
    return u16(which) + body


def set_params(**kw):
    return [SET] + params(**kw)


def derive(out_len, **kw):
    # out_length(): a u8 >= 72 then FuzzInput::length(600)
    return derive_coded([200] + length(out_len), **kw)


def derive_coded(out_code, **kw):
    # out_code: out_length()'s bytes, e.g. [65] = 255 x 32, [69] = 255 x 32 + 1
    return [DERIVE, 1 if kw else 0] + (params(**kw) if kw else []) + out_code


def label(text):  # u8 >= 16: an ordinary label, given as filled bytes of its length
    return [16] + filled(len(text), ord(text[0]))


def data_(n, seed):  # u8 >= 16: ordinary data
    return [16] + stream(n, seed)


SEEDS = {
    "hkdf_rfc_shape": [0] + derive(42, digest="SHA2-256", mode=EXTRACT_AND_EXPAND, key=stream(22, 1),
                                   salt=filled(13, 2), infos=[stream(10, 3)]),
    "hkdf_expand_sha384_infos": [0] + derive(100, digest="SHA-384", mode=EXPAND_ONLY, key=stream(48, 4),
                                             infos=[stream(5, 5), filled(0, 0), stream(7, 6)]),
    "hkdf_extract_sha512": [0] + derive(64, digest="SHA2-512", mode=EXTRACT_ONLY, key=stream(64, 7),
                                        salt=stream(32, 8)),
    "hkdf_split_over_calls": [0] + set_params(digest="sha256") + set_params(mode=EXPAND_ONLY, key=stream(32, 9))
    + derive(32, infos=[stream(20, 10)]) + derive(33),
    "hkdf_sha1_fetched": [0] + derive(60, digest="SHA1", key=stream(20, 11), salt=stream(20, 12)),
    "hkdf_properties": [0] + derive(32, digest="SHA2-256", props="provider=default", key=stream(32, 13))
    + derive(32, digest="SHA2-256", props="provider=stitch", key=stream(32, 13)),
    "hkdf_output_limit": [0] + derive_coded([65], digest="SHA2-256", mode=EXPAND_ONLY, key=stream(32, 14))
    + derive_coded([69]),
    "tls13_expand_label": [1] + derive(32, digest="SHA2-256", mode=EXPAND_ONLY, key=stream(32, 15),
                                       tls13_prefix=True, label=label("c hs traffic"), data=data_(32, 16)),
    "tls13_extract_step": [1] + derive(48, digest="SHA-384", mode=EXTRACT_ONLY, key=stream(48, 17),
                                       salt=stream(48, 18), tls13_prefix=True, label=label("derived")),
    "tls13_early_secret": [1] + derive(32, digest="SHA2-256", mode=EXTRACT_ONLY, tls13_prefix=True,
                                       label=label("derived")),
    "tls13_data_forgotten": [1] + set_params(digest="SHA2-256", mode=EXPAND_ONLY, key=stream(32, 19),
                                             tls13_prefix=True, label=label("key"), data=data_(32, 20))
    + [DERIVE, 0, 200] + length(16) + [DERIVE, 1] + u16(0) + [200] + length(16),
    "tls13_long_label": [1] + derive(32, digest="SHA2-256", mode=EXPAND_ONLY, key=stream(32, 21),
                                     tls13_prefix=True, label=[0, 10]),  # u8 < 16: 240 + 10 bytes, 256 with the prefix
    "size_reset_dup": [0] + set_params(digest="SHA-384", mode=EXTRACT_ONLY, key=stream(32, 22))
    + [GET, 1] + [DUP] + derive(48) + [RESET, GET, 1] + derive(48),
    "get_info": [0] + set_params(infos=[stream(30, 23), stream(40, 24)]) + [GET, 0, 1] + [GET, 0, 0, 10],
}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in SEEDS.items():
        (OUT / name).write_bytes(bytes(data))
    print(f"wrote {len(SEEDS)} seeds to {OUT}")
    if len(sys.argv) == 3 and sys.argv[1] == "--enumerator":
        for old in OUT.glob("enum_*"):
            old.unlink()
        subprocess.run([sys.argv[2], "--depth", "4", "--corpus", str(OUT)], check=True, stdout=subprocess.DEVNULL)
        print(f"wrote {len(list(OUT.glob('enum_*')))} enumerated inputs to {OUT}")


if __name__ == "__main__":
    main()
