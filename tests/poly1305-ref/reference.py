"""An independent reference for Poly1305 and ChaCha20 (RFC 8439 §2.3, §2.5,
§2.8), in Python's unbounded integers: the tag is (Σ (m_i + 2^128) · r^k mod p
+ s) mod 2^128, computed the way the RFC states it, with no limbs and no
partial reduction. Nothing here calls stitch.

`KernelSim` is different: it mirrors the partial reduction of stitch's scalar
kernels (64-bit limbs, kernels/portable/poly1305.cpp, which the MULX code
matches bit for bit) so that the tests can *choose* message blocks that drive
those limbs to their edges. It only builds inputs; no result is ever checked
against it.
"""

import struct

P = (1 << 130) - 5
M64 = (1 << 64) - 1
M128 = (1 << 128) - 1
CLAMP = 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF


# ---- the reference -----------------------------------------------------------

def clamp(r):
    return r & CLAMP


def poly1305_value(r, h, blocks):
    """h after absorbing whole 16-byte blocks (each with the 2^128 bit), mod p."""
    for m in blocks:
        h = (h + int.from_bytes(m, "little") + (1 << 128)) * r % P
    return h


def poly1305_tag_from(h, s):
    return ((h % P + s) & M128).to_bytes(16, "little")


def poly1305(key, msg):
    """RFC 8439 §2.5.1: the last partial block is padded with 0x01, no 2^128 bit."""
    r = clamp(int.from_bytes(key[:16], "little"))
    s = int.from_bytes(key[16:32], "little")
    h = 0
    for i in range(0, len(msg), 16):
        block = msg[i:i + 16]
        h = (h + int.from_bytes(block + b"\x01", "little")) * r % P
    return poly1305_tag_from(h, s)


def _rotl(v, n):
    return ((v << n) | (v >> (32 - n))) & 0xFFFFFFFF


def _quarter(x, a, b, c, d):
    x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = _rotl(x[d] ^ x[a], 16)
    x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = _rotl(x[b] ^ x[c], 12)
    x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = _rotl(x[d] ^ x[a], 8)
    x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = _rotl(x[b] ^ x[c], 7)


def chacha20_block(key, ctr):
    """One block for counter words ctr[0..3] (RFC 8439 §2.3)."""
    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    state += list(struct.unpack("<8I", key)) + list(ctr)
    x = list(state)
    for _ in range(10):
        _quarter(x, 0, 4, 8, 12); _quarter(x, 1, 5, 9, 13)
        _quarter(x, 2, 6, 10, 14); _quarter(x, 3, 7, 11, 15)
        _quarter(x, 0, 5, 10, 15); _quarter(x, 1, 6, 11, 12)
        _quarter(x, 2, 7, 8, 13); _quarter(x, 3, 4, 9, 14)
    return struct.pack("<16I", *((a + b) & 0xFFFFFFFF for a, b in zip(x, state)))


def advance(ctr, blocks):
    """Counter words with words 0-1 as one 64-bit counter, as the kernels carry."""
    c = (ctr[0] | ctr[1] << 32) + blocks
    return [c & 0xFFFFFFFF, (c >> 32) & 0xFFFFFFFF, ctr[2], ctr[3]]


def keystream(key, ctr, n):
    out = bytearray()
    i = 0
    while len(out) < n:
        out += chacha20_block(key, advance(ctr, i))
        i += 1
    return bytes(out[:n])


def aead_mac_input(grid, aad, ct):
    if grid == "openssh":
        return aad + ct
    pad = lambda b: b + bytes(-len(b) % 16)
    return pad(aad) + pad(ct) + struct.pack("<QQ", len(aad), len(ct))


def aead_seal(grid, key, ctr, aad, pt):
    """(ct, tag) with the Poly1305 key from the block at ctr, text from ctr + 1."""
    poly_key = chacha20_block(key, ctr)[:32]
    ks = keystream(key, advance(ctr, 1), len(pt))
    ct = bytes(a ^ b for a, b in zip(pt, ks))
    return ct, poly1305(poly_key, aead_mac_input(grid, aad, ct))


# ---- building inputs: the scalar kernels' limbs ---------------------------------

class KernelSim:
    """h in stitch's limbs (h0, h1, h2), stepped as poly1305.cpp's block() does.
    `flags` records which carry chains a step went through."""

    def __init__(self, r, h=(0, 0, 0)):
        assert r == clamp(r)
        self.r0, self.r1 = r & M64, r >> 64
        self.s1 = self.r1 + (self.r1 >> 2)
        self.h = tuple(h)
        self.flags = set()

    def value(self):
        h0, h1, h2 = self.h
        return h0 | h1 << 64 | h2 << 128

    def step(self, m):
        """One whole block m (an int below 2^128)."""
        h0, h1, h2 = self.h
        t = h0 + (m & M64)
        a0 = t & M64
        t = h1 + (m >> 64) + (t >> 64)
        a1 = t & M64
        if t >> 64:
            self.flags.add("add carried into h2")
        a2 = h2 + 1 + (t >> 64)
        if a0 == M64 and a1 == M64:
            self.flags.add("sum limbs all ones")
        if a2 >= 5:
            self.flags.add("sum top limb >= 5")
        d0 = a0 * self.r0 + a1 * self.s1
        d1 = a0 * self.r1 + a1 * self.r0 + a2 * self.s1 + (d0 >> 64)
        d2 = (a2 * self.r0 + (d1 >> 64)) & M64
        fold = (d2 & ~3 & M64) + (d2 >> 2)
        t = (d0 & M64) + fold
        n0 = t & M64
        if t >> 64:
            self.flags.add("fold carried into h1")
        t = (d1 & M64) + (t >> 64)
        n1 = t & M64
        if t >> 64:
            self.flags.add("fold carried into h2")
        n2 = (d2 & 3) + (t >> 64)
        self.h = (n0, n1, n2)
        v = self.value()
        if n1 == M64 and n0 >= M64 - 0xFFFF:
            self.flags.add("h limbs near all ones")
        if v >= P:
            self.flags.add("h >= p")
        if n2 == 4:
            self.flags.add("h2 = 4")

    def block_for_sum(self, target):
        """The block m with h + m + 2^128 == target, or None if none fits."""
        m = target - self.value() - (1 << 128)
        return m if 0 <= m <= M128 else None

    def block_for_product(self, t):
        """The block m with (h + m + 2^128) * r ≡ t (mod p), or None."""
        r = self.r0 | self.r1 << 64
        if r % P == 0:
            return None
        x = t * pow(r, -1, P) % P
        lo = self.value() + (1 << 128)
        x += -(-(lo - x) // P) * P if x < lo else 0
        return self.block_for_sum(x)


# Sums (h + m + 2^128) and products' classes the builder aims at, in turn.
def _sum_targets(sim):
    v = sim.value()
    top = v >> 128
    return [
        (top + 1) << 128 | M128,             # limbs all ones: every add and fold carry
        (top + 2) << 128,                    # low limbs zero, carried out of both
        P, P + 1, P + 4, (1 << 130) - 1,     # at and just above p, before the fold
        (1 << 130) | M128,                   # the top limb at 4, limbs all ones
        (top + 1) << 128 | (M128 - 4),
        (top + 1) << 128 | M64,              # h1 zero, h0 all ones
    ]


_PRODUCT_TARGETS = [P - 1, 0, 1, 4, M128, (1 << 129) - 1, P - (1 << 64), M64]


def edge_blocks(r, count, rng, start=(0, 0, 0)):
    """`count` 16-byte blocks that walk the scalar kernels' h through its
    edges for key r, and the simulator after them (its flags say which)."""
    sim = KernelSim(r, start)
    blocks = []
    for i in range(count):
        m = None
        plan = i % 3
        if plan == 0:
            targets = _sum_targets(sim)
            for j in range(len(targets)):
                m = sim.block_for_sum(targets[(i // 3 + j) % len(targets)])
                if m is not None:
                    break
        elif plan == 1:
            for j in range(len(_PRODUCT_TARGETS)):
                m = sim.block_for_product(_PRODUCT_TARGETS[(i // 3 + j) % len(_PRODUCT_TARGETS)])
                if m is not None:
                    break
        if m is None:
            m = rng.getrandbits(128) if rng.random() < 0.5 else M128
        sim.step(m)
        blocks.append(m.to_bytes(16, "little"))
    return blocks, sim
