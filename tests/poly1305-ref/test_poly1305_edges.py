"""Poly1305 on every kernel set, and through stitch's EVP interfaces, against
an independent big-integer reference (reference.py), at the edges of the
kernels' arithmetic: r = 0, 1, 2, 3, small, the largest clamped value and
random; accumulators with all-ones limbs, the top limb at its maximum, h at
and just above 2^130 - 5; messages built block by block to drive the limbs
there (reference.KernelSim), chained across calls of every size class (the
scalar MULX path below 20 blocks, the 4-way vector path from 20).

The tool (poly1305_edge_tool.cpp) only runs what is asked and prints what
came out; every verdict is made here, with Python's integers."""

import random

import pytest

import reference as ref
from reference import M64, M128, P

SEED = 0x9017_1305
RNG = random.Random(SEED)

R_VALUES = {
    "r=0": 0,
    "r=1": 1,
    "r=2": 2,
    "r=3": 3,
    "r small": ref.clamp(RNG.getrandbits(20)),
    "r clamped max": ref.CLAMP,
    "r random": ref.clamp(RNG.getrandbits(128)),
}

# Accumulators the kernels may be handed (h2 <= 4: what every kernel leaves).
EDGE_LIMBS = [0, 1, M64 - 5, M64 - 4, M64 - 1, M64]
EDGE_STATES = [(h0, h1, h2) for h2 in range(5) for h1 in (0, M64) for h0 in EDGE_LIMBS]
# The ones the block tests start from: zero, all-ones limbs at every top
# value, p - 1, p, p + 4, and the top limb at 4 beside all-ones limbs.
START_STATES = [(0, 0, 0)] + [(M64, M64, h2) for h2 in range(5)] + [
    (M64 - 5, M64, 3), (M64 - 4, M64, 3), (M64, M64, 3), (M64 - 1, 0, 4), (0, M64, 4), (M64, 0, 4)]

CALL_SPLITS = ["1", "3,17", "19", "20", "21", "24,40", "64"]  # blocks per poly1305_blocks call


def hex64(v):
    return f"{v:016x}"


def value(limbs):
    h0, h1, h2 = (int(x, 16) for x in limbs)
    return h0 | h1 << 64 | h2 << 128, h2


def key_of(r, s):
    return r.to_bytes(16, "little") + s.to_bytes(16, "little")


def test_reference_matches_rfc8439():
    """The reference itself, on RFC 8439's own examples (§2.5.2, §2.3.2)."""
    key = bytes.fromhex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
    assert ref.poly1305(key, b"Cryptographic Forum Research Group").hex() == "a8061dc1305136c6c22b8baf0c0127a9"
    block = ref.chacha20_block(bytes(range(32)), [1, 0x09000000, 0x4A000000, 0])
    assert block.hex().startswith("10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e")


def test_the_tool_runs_every_kernel_set(tool):
    sets = tool.ask("sets")["sets"]
    assert sets and sets[0].startswith("0:portable"), sets


@pytest.mark.parametrize("s", [0, M128, RNG.getrandbits(128)], ids=["s=0", "s=max", "s random"])
def test_final_on_edge_states(tool, s):
    """poly1305_final from every edge accumulator: the fold of the top limb,
    the conditional subtraction of p, the carry of adding s."""
    for h in EDGE_STATES:
        got = tool.ask("blocks", key_of(1, 0)[:16].hex(), s.to_bytes(16, "little").hex(), *map(hex64, h), "", "")
        want = ref.poly1305_tag_from(h[0] | h[1] << 64 | h[2] << 128, s).hex()
        for name, result in got["sets"].items():
            assert result["tag"] == want, f"{name}: final from h = {h}"


@pytest.mark.parametrize("rname", list(R_VALUES))
def test_blocks_chained_from_edge_states(tool, rname):
    """Impl::poly1305_blocks on every set, from every start state, over
    all-ones, zero, random and edge-driving blocks, chained through the
    state in calls of every size class. After each call h must be the
    reference's value mod p with h2 <= 4; the tag must be the reference's."""
    r = R_VALUES[rname]
    s = RNG.getrandbits(128)
    for start in START_STATES:
        edge, _ = ref.edge_blocks(r, 64, RNG, start)
        patterns = {
            "all ones": [bytes([0xFF] * 16)] * 64,
            "zeros": [bytes(16)] * 64,
            "random": [RNG.getrandbits(128).to_bytes(16, "little") for _ in range(64)],
            "edge-driving": edge,
        }
        for pname, blocks in patterns.items():
            for split in CALL_SPLITS:
                got = tool.ask("blocks", r.to_bytes(16, "little").hex(), s.to_bytes(16, "little").hex(),
                               *map(hex64, start), b"".join(blocks).hex(), split)
                sizes = [int(x) for x in split.split(",")]
                where = f"{rname}, start {tuple(map(hex, start))}, {pname} blocks, calls of {split}"
                h = start[0] | start[1] << 64 | start[2] << 128
                want_states, done, i = [], 0, 0
                while done < 64:
                    n = min(sizes[i % len(sizes)], 64 - done)
                    h = ref.poly1305_value(r, h, blocks[done:done + n])
                    want_states.append(h)
                    done += n
                    i += 1
                want_tag = ref.poly1305_tag_from(h, s).hex()
                for name, result in got["sets"].items():
                    assert len(result["states"]) == len(want_states), f"{name}: {where}"
                    for call, (limbs, want) in enumerate(zip(result["states"], want_states)):
                        v, h2 = value(limbs)
                        assert h2 <= 4 and v % P == want, f"{name}: {where}: h after call {call} is {limbs}"
                    assert result["tag"] == want_tag, f"{name}: {where}: tag"


MAC_SPLITS = ["", "1", "16", "17", "15,33", "304", "320", "7,320"]  # bytes per update
# Carry chains the edge-driving messages must reach for these keys (the
# simulator's flags): they are what a lost carry would go wrong on.
MUST_REACH = {"sum limbs all ones", "add carried into h2", "fold carried into h1", "fold carried into h2",
              "h limbs near all ones", "h >= p"}


@pytest.mark.parametrize("rname", list(R_VALUES))
def test_mac_through_evp_at_the_edges(tool, rname):
    """The POLY1305 EVP_MAC (stitch's and, as a check on the reference, the
    default provider's) and poly1305_update on every set, over messages that
    drive h to the edges, in updates of every size class, with and without a
    partial last block."""
    r = R_VALUES[rname]
    reached = set()
    for s in (M128, RNG.getrandbits(128)):
        key = key_of(r, s)
        for tail in (0, 5, 15):
            blocks, sim = ref.edge_blocks(r, 48, RNG)
            reached |= sim.flags
            msg = b"".join(blocks) + bytes(RNG.getrandbits(8) for _ in range(tail))
            want = ref.poly1305(key, msg).hex()
            for split in MAC_SPLITS:
                got = tool.ask("mac", key.hex(), msg.hex(), split)
                where = f"{rname}, s {s:x}, {len(msg)} bytes, updates of {split or 'all'}"
                assert got["evp_default"] == want, f"the default provider disagrees with the reference: {where}"
                assert got["evp_stitch"] == want, f"stitch's POLY1305 ({got['active']}): {where}"
                for name, tag in got["sets"].items():
                    assert tag == want, f"{name}: {where}"
    if r in (1, 2, 3):
        assert MUST_REACH <= reached, f"the edge builder missed {MUST_REACH - reached} for {rname}"


def aead_case(grid, key, ctr, aad_len, ct_blocks, tail):
    """AAD and ciphertext whose MAC input walks h through its edges for this
    message's Poly1305 key, and the plaintext that seals to that ciphertext."""
    r = ref.clamp(int.from_bytes(ref.chacha20_block(key, ctr)[:16], "little"))
    if grid == "openssh":
        blocks, _ = ref.edge_blocks(r, ct_blocks, RNG)
        mac_in = b"".join(blocks)
        aad, ct = mac_in[:4], mac_in[4:]
    else:
        aad_blocks = (aad_len + 15) // 16
        if aad_len % 16 == 0:
            blocks, sim = ref.edge_blocks(r, aad_blocks + ct_blocks, RNG)
            aad = b"".join(blocks[:aad_blocks])
        else:
            aad = bytes(RNG.getrandbits(8) for _ in range(aad_len))
            sim = ref.KernelSim(r)
            for i in range(aad_blocks):
                sim.step(int.from_bytes(aad[16 * i:16 * i + 16].ljust(16, b"\0"), "little"))
            blocks, _ = ref.edge_blocks(r, ct_blocks, RNG, sim.h)
            blocks = [b""] * aad_blocks + blocks
        ct = b"".join(blocks[aad_blocks:])
    ct += bytes(RNG.getrandbits(8) for _ in range(tail))
    ks = ref.keystream(key, ref.advance(ctr, 1), len(ct))
    pt = bytes(a ^ b for a, b in zip(ct, ks))
    return aad, ct, pt


@pytest.mark.parametrize("grid", ["rfc8439", "openssh"])
def test_aead_mac_at_the_edges(tool, grid):
    """The AEAD on every set (the stitched pass, the short path, the
    whole-record open, MULX and vector Poly1305 inside them) and stitch's
    ChaCha20-Poly1305 EVP cipher, on ciphertext chosen so that the MAC's
    accumulator walks its edges for the key block's r. Open and seal must
    give the reference's tag and bytes."""
    for trial, (ct_blocks, ctr0) in enumerate([(1, 0), (3, 0), (8, 0), (12, 0x7FFFFFFE), (24, 0), (25, 0xFFFFFF80),
                                               (40, 0), (64, 0x7FFFFFC0), (64, 0)]):
        key = RNG.getrandbits(256).to_bytes(32, "little")
        ctr = [ctr0] + [RNG.getrandbits(32) for _ in range(3)]
        aad_len = [0, 13, 16, 32, 48][trial % 5]
        for tail in (0, 7):
            aad, ct, pt = aead_case(grid, key, ctr, aad_len, ct_blocks, tail)
            want_ct, want_tag = ref.aead_seal(grid, key, ctr, aad, pt)
            assert want_ct == ct
            for split in ["", "1", "64", "13,100", "200"]:
                got = tool.ask("aead", grid, key.hex(), ":".join(f"{w:08x}" for w in ctr), aad.hex(), ct.hex(),
                               pt.hex(), split)
                where = f"{grid}, {len(aad)} AAD, {len(ct)} bytes, counter {ctr0:#x}, calls of {split or 'all'}"
                for name, res in got["sets"].items():
                    assert res["open_ok"] and res["open_tag"] == want_tag.hex(), f"{name}: open tag, {where}"
                    assert res["open_pt"] == (pt.hex() or "-"), f"{name}: open plaintext, {where}"
                    assert res["seal_ok"] and res["seal_tag"] == want_tag.hex(), f"{name}: seal tag, {where}"
                    assert res["seal_ct"] == (ct.hex() or "-"), f"{name}: seal ciphertext, {where}"
                    assert res["record_ok"] and res["record_pt"] == (pt.hex() or "-"), f"{name}: whole open, {where}"
                if "evp" in got:
                    e = got["evp"]
                    assert e["seal_ok"] and e["seal_tag"] == want_tag.hex(), f"EVP seal, {where}"
                    assert e["seal_ct"] == (ct.hex() or "-") and e["open_ok"] and e["open_pt"] == (pt.hex() or "-"), \
                        f"EVP open, {where}"
