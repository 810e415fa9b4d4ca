#!/usr/bin/python3
"""Writes the seed corpora in tests/fuzz/corpus/<target>/: a handful of small
inputs that each walk one path a random input would rarely find (a sealed
message opened on the other pair, a TLS record round trip, dupctx mid-stream,
a counter carry, an OpenSSH packet opened, flipped, replayed).

The encoders below mirror the decoders in evp_sequence_fuzz.cpp,
evp_sequence_ops.hpp and openssh_packet_fuzz.cpp; change them together.
Run: /usr/bin/python3 tests/fuzz/make_corpus.py
"""

from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"

# FuzzInput::length: < 96 literal, 96..223 index an edge table, 224+ a u16 follows.
EDGES = [15, 16, 17, 31, 32, 63, 64, 65, 127, 128, 129, 191, 192, 193,
         255, 256, 257, 447, 448, 449, 511, 512, 513, 1023, 1024, 1025]


def length(n):
    if n < 96:
        return [n]
    if n in EDGES:
        return [96 + EDGES.index(n)]
    return [224, n & 0xFF, n >> 8]


def u16(v):
    return [v & 0xFF, v >> 8]


def u64(v):
    return [(v >> (8 * i)) & 0xFF for i in range(8)]


# ---- evp_sequence ----------------------------------------------------------
# Op bytes: positions in evp_sequence_ops.hpp's table.
FRESH, INIT, SET_TAG, GET_TAG, GET_LEN, SET_LEN = 0, 1, 4, 6, 7, 8
AAD, DATA, FINAL, CIPHER_FINAL, TLS_AAD, TLS_IV_FIXED = 9, 12, 18, 20, 21, 23
DUP, FLIP, OVERLAP, REPLAY = 24, 26, 28, 29
ENC, DEC, KEEP = 2, 1, 0  # mode byte: enc = mode % 3 - 1
KEY, IV, FROM_TRANSCRIPT, RECORD = 1, 2, 4, 8


def init(pair, mode, src, seed=7, cipher=False):
    return [INIT, pair, mode | (0x80 if cipher else 0), src, seed, seed + 1]


def aad(pair, n, seed=3, via_cipher=False):
    return [AAD, pair] + length(n) + [4 if via_cipher else 0, seed]


def aad_from_message(pair, n):
    return [AAD, pair] + length(n) + [1]


def data(pair, n, seed=5, in_place=False, via_cipher=False):
    how = (1 if in_place else 0) | (2 if via_cipher else 0)
    return [DATA, pair] + length(n) + [how, seed]


def data_from_message(pair, n, in_place=False):
    return [DATA, pair] + length(n) + [(1 if in_place else 0) | (1 << 2)]


def data_from_record(pair, n=16):
    return [DATA, pair] + length(n) + [(3 << 2)]


def set_tag_from_message(pair):
    return [SET_TAG, pair, 16, 1 | 2, 0]


def set_tag_of_message_so_far(pair):
    """The tag the message on this pair has now (the default provider's
    ChaCha20 + POLY1305): right for a final now, stale for anything later."""
    return [SET_TAG, pair, 16, 1 | 8, 0]


def final(pair):
    return [FINAL, pair]


def evp_seeds():
    aead, chacha = [0], [1]
    s = {}
    # A message sealed on pair 0 and opened on pair 1, cut differently.
    seal = init(0, ENC, KEY | IV) + aad(0, 13) + data(0, 700) + final(0) + [GET_TAG, 0, 16]
    open_ = (init(1, DEC, KEY | IV | FROM_TRANSCRIPT) + set_tag_from_message(1) + aad_from_message(1, 5) +
             aad_from_message(1, 8) + data_from_message(1, 1) + data_from_message(1, 511, True) +
             data_from_message(1, 188) + final(1))
    s["aead_seal_open"] = aead + seal + open_
    # The sealed message replayed whole: AAD in two pieces, the text in five
    # (a zero-length one among them, in place, through EVP_Cipher), tag first.
    pieces = length(5) + length(8)  # AAD
    for size, way in [(1, 0), (0, 1), (511, 1), (127, 2), (61, 3)]:  # text; way: 1 in place, 2 EVP_Cipher
        pieces += length(size) + [way]
    s["aead_replay_pieces"] = aead + seal + [REPLAY, 1, 0x02] + u16(0) + pieces
    # Replayed with a tag bit flipped, tag last, ended by EVP_Cipher(ctx, NULL, NULL, 0): refused.
    s["aead_replay_flipped_tag"] = aead + seal + [REPLAY, 0, 0x04 | 0x20 | 0x40] + u16(77) + length(13) + length(700) + [0]
    # The same with a ciphertext bit flipped: the open must fail.
    s["aead_seal_flip_open"] = aead + seal + [FLIP, 0, 0, 1] + open_
    # EVP_Cipher throughout, ending with EVP_Cipher(ctx, NULL, NULL, 0).
    s["aead_evp_cipher"] = (aead + init(0, ENC, KEY | IV) + data(0, 64, via_cipher=True) + [CIPHER_FINAL, 0] +
                            init(1, DEC, KEY | IV | FROM_TRANSCRIPT) + set_tag_from_message(1) +
                            [DATA, 1] + length(64) + [2 | (1 << 2)] + [CIPHER_FINAL, 1])
    # dupctx mid-message, both copies finished.
    s["aead_dup_midstream"] = (aead + init(0, ENC, KEY | IV) + aad(0, 3) + data(0, 100) + [DUP, 0 | (1 << 1)] +
                               data(0, 30) + data(1, 30) + final(0) + final(1) + [GET_TAG, 0, 16, GET_TAG, 1, 16])
    # A TLS 1.2 record sealed, then opened through its announced header.
    s["aead_tls_record"] = (aead + init(0, ENC, KEY | IV) + [TLS_AAD, 0, 0, 9] + length(300) + data(0, 316, in_place=True) +
                            init(1, DEC, KEY | IV | FROM_TRANSCRIPT | RECORD) + [TLS_AAD, 1, 2, 9] +
                            data_from_record(1) + [GET_TAG, 0, 16])
    # The unsafe corners of 3.0 stitch refuses, one after another.
    # Each one ends comparing on its pair, so each starts on fresh contexts.
    s["aead_refusals"] = (aead + init(0, DEC, KEY | IV) + data(0, 20) + aad(0, 4) +
                          [FRESH, 0, 0] + init(0, DEC, KEY | IV) + final(0) +
                          [FRESH, 0, 1] + init(0, ENC, IV) + data(0, 10) +
                          [FRESH, 0, 1] + init(0, ENC, KEY | IV) + [GET_TAG, 0, 16, GET_LEN, 0, 0] + data(0, 10) +
                          final(0) + final(0) +
                          [FRESH, 0, 0] + init(0, DEC, KEY | IV) + [SET_TAG, 0, 8, 1, 4] +
                          [OVERLAP, 1] + length(100) + [1] + u16(7) + [3])
    # tlsivfixed, key-only and IV-only re-inits, wrong lengths.
    s["aead_reinit"] = (aead + [FRESH, 1, 1] + [SET_LEN, 1, 0, 0, SET_LEN, 1, 5, 0] + init(1, KEEP, KEY) +
                        [TLS_IV_FIXED, 1, 1, 9] + data(1, 33) + final(1) + init(1, KEEP, IV, seed=40) + aad(1, 0) +
                        data(1, 0) + data(1, 5) + [SET_TAG, 1, 16, 1, 6] + final(1))
    # Raw ChaCha20: the block counter carries out of its first word.
    s["chacha_counter_carry"] = (chacha + init(0, ENC, KEY | IV | RECORD | (0xE << 4)) + data(0, 129) + data(0, 63) +
                                 data(0, 1000, in_place=True) + final(0))
    # Raw ChaCha20: splits, EVP_Cipher, dupctx, key-only and IV-only re-init.
    s["chacha_reinit"] = (chacha + init(1, ENC, KEY | IV) + data(1, 7) + [DUP, 1] + data(0, 57) + data(1, 50) +
                          init(1, KEEP, KEY, seed=20) + data(1, 100, via_cipher=True) + init(1, KEEP, IV, seed=30) +
                          data(1, 64) + [CIPHER_FINAL, 1] + final(1))
    # Raw ChaCha20: a key-only re-init right after a call that used up a partial
    # block exactly: 3.0 restarts that block (a divergence the fuzzer found).
    s["chacha_rekey_at_block_end"] = (chacha + init(0, ENC, KEY | IV) + data(0, 65) + data(0, 63) +
                                      init(0, KEEP, KEY, seed=50) + data(0, 16))
    # A decrypt tag is used up by a change of direction: decrypt, the right
    # tag for the (empty) message, encrypt, decrypt again, final: stitch
    # refuses (no tag for this message), where a stale tag would pass.
    s["aead_stale_tag_after_direction_change"] = (aead + init(0, DEC, KEY | IV) + set_tag_of_message_so_far(0) +
                                                  init(0, ENC, KEY | IV) + init(0, DEC, KEY | IV) + final(0))
    # A message opened without a transcript: AAD, text, then its own tag.
    s["aead_open_with_its_own_tag"] = (aead + init(0, DEC, KEY | IV) + aad(0, 13) + data(0, 17) +
                                       set_tag_of_message_so_far(0) + final(0) +
                                       init(0, DEC, KEY | IV) + set_tag_of_message_so_far(0) + data(0, 1) + final(0))
    # Raw ChaCha20: a key-only re-init right after the counter wrapped out of
    # word 0 on a partly used block: stepping back borrows from word 1.
    s["chacha_rekey_at_counter_wrap"] = (chacha + init(0, ENC, KEY | IV | RECORD) + data(0, 1) + init(0, KEEP, KEY) +
                                         data(0, 1) + data(0, 64))
    # Raw ChaCha20: a block used up exactly after a partial one, then an
    # IV-only and a key-only re-init: the IV starts a clean stream.
    s["chacha_iv_then_key_after_block_ran_out"] = (chacha + init(0, ENC, KEY | IV) + data(0, 1) + data(0, 63) +
                                                   init(0, KEEP, IV | RECORD, seed=30) + init(0, KEEP, KEY, seed=31) +
                                                   data(0, 65))
    # Issue 19: a zero-length EVP_Cipher(ctx, out, in, 0) between two AAD
    # pieces, the first ending inside a 16-byte block. stitch's tag stays
    # RFC 8439's; 3.0.22 pads the AAD early (openssl#32752), so there the pair
    # diverges and stitch's tag is checked against the composed reference.
    s["aead_empty_cipher_splits_aad"] = (aead + init(0, ENC, KEY | IV) + aad(0, 5) + data(0, 0, via_cipher=True) +
                                         aad(0, 8) + data(0, 100) + final(0) + [GET_TAG, 0, 16])
    # The same pad reopened by an empty AAD call through EVP_Cipher, then text:
    # 3.0.22 pads twice, so its tag is not RFC 8439's even with no AAD after.
    s["aead_empty_cipher_then_empty_aad"] = (aead + init(0, ENC, KEY | IV) + aad(0, 5) + data(0, 0, via_cipher=True) +
                                             aad(0, 0, via_cipher=True) + data(0, 40) + final(0) + [GET_TAG, 0, 16])
    # The AAD through EVP_Cipher(ctx, NULL, in, n), an empty piece among them.
    s["aead_aad_via_evp_cipher"] = (aead + init(0, ENC, KEY | IV) + aad(0, 7, via_cipher=True) +
                                    aad(0, 0, via_cipher=True) + aad(0, 9, via_cipher=True) + data(0, 40) +
                                    final(0) + [GET_TAG, 0, 16])
    # Issue 19: zero-length EVP_Cipher calls while a TLS record is announced,
    # sealing and opening, with and without an output buffer: refused (3.0.22
    # refuses the first kind), and the record still goes through.
    s["aead_tls_empty_evp_cipher"] = (aead + init(0, ENC, KEY | IV) + [TLS_AAD, 0, 0, 9] + length(20) +
                                      data(0, 0, via_cipher=True) + data(0, 0) + data(0, 36, in_place=True) +
                                      init(1, DEC, KEY | IV | FROM_TRANSCRIPT | RECORD) + [TLS_AAD, 1, 2, 9] +
                                      data(1, 0, via_cipher=True) + data_from_record(1) +
                                      init(0, ENC, KEY | IV) + [TLS_AAD, 0, 0, 9] + length(20) +
                                      aad(0, 0, via_cipher=True) + data(0, 36))
    return s


# ---- openssh_packet --------------------------------------------------------
PACKET, OPEN_LAST, LENGTH, BAD_LENGTH, SEQ, REKEY, TURN, PFINAL, COPY, EMPTY = 0, 3, 5, 6, 7, 8, 9, 10, 11, 12


def packet(side, n, seed=9, real_length=True, in_place=False, via_cipher=False):
    how = (1 if in_place else 0) | (2 if via_cipher else 0)
    return [PACKET, side] + length(n) + [seed, 1 if real_length else 0, how]


def open_last(side, own_seq=True, flip=None, rekey=False, in_place=False):
    """flip: the index of the byte to flip (bit index % 8 of the same value)."""
    how = (1 if flip is not None else 0) | (2 if own_seq else 0) | (4 if rekey else 0)
    return [OPEN_LAST, side, how] + u16(flip or 0) + [1 if in_place else 0]


def ssh_seeds():
    head = [11, 0, 5]  # key seed, small sequence number 5
    s = {}
    s["ssh_seal_open"] = head + packet(0, 100) + open_last(1) + [PFINAL, 1]
    s["ssh_flip_tag"] = head + packet(0, 64) + open_last(1, flip=4 + 64 + 2)
    s["ssh_flip_length"] = head + packet(0, 64) + open_last(1, flip=1)
    s["ssh_wrong_seq"] = head + packet(0, 16) + open_last(1, own_seq=False)
    s["ssh_length_first"] = head + packet(0, 513) + [LENGTH, 1, 1, 0] + open_last(1, in_place=True)
    s["ssh_next_seq"] = (head + packet(0, 32) + packet(0, 32) + [SEQ, 0, 2] + packet(0, 0, via_cipher=True) +
                         open_last(1, rekey=True) + [SEQ, 1, 1] + u64(2**64 - 1) + packet(1, 20))
    s["ssh_bad_lengths"] = (head + [BAD_LENGTH, 0, 1, 3, 0, BAD_LENGTH, 1, 30, 4, 0] + [COPY, 0 | 2 | 4] +
                            packet(0, 10) + [LENGTH, 0, 6, 0] + [TURN, 1, 1] + packet(1, 48))
    s["ssh_large_in_place"] = head + packet(0, 32768, in_place=True, via_cipher=True) + open_last(1, in_place=True)
    # Zero-length calls through every door, between the length and the packet
    # and before a key: no-ops that use up nothing.
    s["ssh_empty_calls"] = (head + [EMPTY, 0, 0, EMPTY, 0, 2] + [LENGTH, 0, 0] + [EMPTY, 0, 3, EMPTY, 0, 1] +
                            packet(0, 30) + [EMPTY, 1, 2] + open_last(1) + [COPY, 2] + [EMPTY, 0, 0, EMPTY, 0, 3])
    s["ssh_copy_rekey"] = head + [COPY, 1] + [REKEY, 0, 44] + packet(0, 200) + [COPY, 1] + [TURN, 1, 0] + open_last(1)
    return s


def write(target, seeds):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    for name, data_ in seeds.items():
        (d / name).write_bytes(bytes(b & 0xFF for b in data_))
    print(f"{target}: {len(seeds)} seeds in {d}")


if __name__ == "__main__":
    write("evp_sequence", evp_seeds())
    write("openssh_packet", ssh_seeds())
