#!/usr/bin/python3
"""The hot loops of the AVX2 kernels as built: size, instructions, stack
traffic per double round and per eight-block batch, and llvm-mca's model of
cycles per batch on several cores (docs/kernels.md, "Anatomy").

    scripts/kernel-anatomy.py [--mca=znver2,znver3,...] [--loops] PATH_TO_stitch.so_OR_.o ...

For each AVX2 entry point it finds the loops (backward branches) and picks:
  rounds loop  the asm loop of avx2/batch_rounds.hpp (16 VPSHUFBs, ymm12
               stored to its frame slot at 512); its stack accesses are every
               ymm load and store but the rip-relative masks
  batch loop   the innermost loop around a rounds loop that also writes the
               output (the code run once per eight-block batch)
and prints, per loop, bytes, instructions, double rounds per iteration,
ymm stack loads/stores per double round and per batch, MULX count (the
stitched Poly1305 blocks: 4 per block), and for the rounds loop llvm-mca's
cycles per iteration under each -mcpu, scaled to a batch. A model, not a
measurement: llvm-mca knows nothing of the other loops, of memory, or of
the out-of-order window across iterations of the batch loop.
"""
import argparse
import re
import shutil
import subprocess
import sys

ENTRIES = [
    "stitch::kern::chacha20_blocks_avx2",
    "stitch::kern::aead_text_avx2",
]
DEFAULT_MCPUS = "znver2,znver3,znver4,skylake,alderlake,icelake-server"

LINE = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
JUMP = re.compile(r"^(j[a-z]+)\s+([0-9a-f]+)\b")


def parse(lines, keep=lambda name: True):
    """[address, size, text] of each instruction under a symbol `keep` accepts."""
    insns, inside = [], True
    for line in lines:
        if line.endswith(">:"):
            inside = keep(line[line.index("<") + 1:-2])
            continue
        m = LINE.match(line)
        if m and inside:
            text = m.group(2).split("#")[0].split("<")[0].strip()
            insns.append([int(m.group(1), 16), 0, text])
    for i in range(len(insns) - 1):
        insns[i][1] = insns[i + 1][0] - insns[i][0]
    if insns:
        insns[-1][1] = 1  # unknown; a ret or a jump
    return insns


def disassemble(path, *args):
    # GNU objdump: "jne 1a2b <sym>", which JUMP reads.
    return subprocess.run(["objdump", "-d", "--no-show-raw-insn", *args, path], capture_output=True, text=True,
                          check=True).stdout.splitlines()


def objdump(path, symbol):
    """Every instruction of `symbol` (demangled name up to its parameters)."""
    return parse(disassemble(path, "-C"), lambda name: name.startswith(symbol + "("))


def objdump_all(path):
    """Every instruction of a (stripped) binary's .text, for --openssl."""
    return parse(disassemble(path, "-j", ".text"))


def openssl_8x(insns):
    """OpenSSL's ChaCha20_8x in libcrypto: the loop with 8 VBROADCASTI128
    mask loads and 16 VPSHUFBs (its double round), and the loop around it."""
    found = []
    for (s, e) in loops(insns):
        if e - s > 400:
            continue
        texts = [t for _, _, t in insns[s:e + 1]]
        if sum(t.startswith("vbroadcasti128") for t in texts) == 8 and sum(t.startswith("vpshufb") for t in texts) == 16:
            found.append((s, e))
    return found


def closes_loop(insns, index, s, e):
    """Whether the branch at e can be reached again from s without leaving
    s..e: a loop. A backward jmp can also be a merge, code that jumps back to
    a shared tail and never returns to the jump (g++ 12 put raw ChaCha20's
    tail before its batches)."""
    seen, todo = set(), [s]
    while todo:
        i = todo.pop()
        if i in seen or not s <= i <= e:
            continue
        seen.add(i)
        if i == e:
            return True
        t = insns[i][2]
        m = JUMP.match(t)
        if m and int(m.group(2), 16) in index:
            todo.append(index[int(m.group(2), 16)])
        if not (t.startswith("jmp") or t.startswith("ret")):
            todo.append(i + 1)
    return False


def loops(insns):
    """(start index, end index) of each loop: a backward branch's range
    that the branch closes."""
    index = {a: i for i, (a, _, _) in enumerate(insns)}
    found = []
    for i, (a, _, t) in enumerate(insns):
        m = JUMP.match(t)
        if m:
            target = int(m.group(2), 16)
            if target <= a and target in index and closes_loop(insns, index, index[target], i):
                found.append((index[target], i))
    return found


def is_stack_ymm(t):
    """A ymm load or store of state or spills: any ymm memory operand but the
    rip-relative masks, the input (VPXOR with memory) and the output and
    unaligned buffers (VMOVDQU); the batch frame is addressed off whatever
    register the compiler gave its base, so the base says nothing."""
    if "%ymm" not in t or "(" not in t or "(%rip)" in t:
        return False
    return t.startswith("vmovdqa") or t.startswith("vpaddd")


def is_batch_rounds(insns, s, e):
    """The asm rounds loop of avx2/batch_rounds.hpp: 16 VPSHUFBs and the
    store of ymm12 (word 8, or 15: it held the c pair's first word before
    2026-12-05) to its frame slot at offset 512 (0x200)."""
    c = count(insns, s, e)
    swap = any(t.startswith("vmovdqa %ymm12,0x200(") for _, _, t in insns[s:e + 1])
    return c["shuf"] == 16 and swap


def batch_loop(ls, rounds, r):
    """The batch loop of rounds loop r: the smallest loop around it, if that
    loop holds no other rounds loop. A loop around several is one over batch
    statements (clang 14 makes Pass::run's, whose body runs a few times a
    call, one 8.9 KB loop around a single batch's statement and the plain
    one's): returned as the second value, (start, end, rounds loops in it),
    with no batch loop."""
    s, e = r
    outer = [(s2, e2) for (s2, e2) in ls if s2 <= s and e2 >= e and (s2, e2) != (s, e)]
    if not outer:
        return None, None
    s2, e2 = min(outer, key=lambda x: x[1] - x[0])
    inside = [x for x in rounds if s2 <= x[0] and x[1] <= e2]
    if len(inside) > 1:
        return None, (s2, e2, len(inside))
    return (s2, e2), None


def count(insns, lo, hi, inner=()):
    """Counts over insns[lo..hi], skipping the ranges in inner."""
    c = dict(bytes=0, insns=0, shuf=0, mulx=0, rol=0, stack=0, stores=0)
    i = lo
    while i <= hi:
        skip = next((e for (s, e) in inner if s == i), None)
        if skip is not None:
            i = skip + 1
            continue
        _, size, t = insns[i]
        c["bytes"] += size
        c["insns"] += 1
        c["shuf"] += t.startswith("vpshufb")
        c["mulx"] += t.startswith("mulx")
        c["rol"] += t.startswith("rol ")  # a ninth block's 32-bit rotations, 32 a double round
        if is_stack_ymm(t):
            c["stack"] += 1
            c["stores"] += t.startswith("vmovdq") and t.rstrip().endswith(")")
        i += 1
    return c


def mca(insns, lo, hi, mcpu):
    tool = shutil.which("llvm-mca-16") or shutil.which("llvm-mca")
    if not tool:
        return None
    # llvm-mca charges a folded load's latency to the chain through the
    # instruction's register operand; the hardware does not (the mask's load
    # does not wait for the data). So the model reads the rip-relative
    # shuffle masks from registers no instruction here writes, ymm16 and up.
    body, masks = [], {}
    for _, _, t in insns[lo:hi]:  # the closing branch left out
        m = re.match(r"vpshufb (\S+\(%rip\)),(.*)$", t)
        if m:
            reg = masks.setdefault(m.group(1), f"%ymm{16 + len(masks)}")
            t = f"vpshufb {reg},{m.group(2)}"
        body.append(t)
    src = ".text\n" + "\n".join(body) + "\n"
    r = subprocess.run([tool, f"-mcpu={mcpu}", "-iterations=200", "-mtriple=x86_64-unknown-linux-gnu"],
                       input=src, capture_output=True, text=True)
    m = re.search(r"Total Cycles:\s+(\d+)", r.stdout)
    return int(m.group(1)) / 200 if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--mca", default=DEFAULT_MCPUS)
    ap.add_argument("--loops", action="store_true", help="list every loop found, not only the hot ones")
    ap.add_argument("--openssl", metavar="LIBCRYPTO", help="also OpenSSL's ChaCha20_8x in this libcrypto, for comparison")
    a = ap.parse_args()
    mcpus = [m for m in a.mca.split(",") if m]
    ok = True
    if a.openssl:
        insns = objdump_all(a.openssl)
        ls = loops(insns)
        for (s, e) in openssl_8x(insns):
            c = count(insns, s, e)
            print(f"OpenSSL ChaCha20_8x ({a.openssl}): rounds loop {c['bytes']} B, {c['insns']} insns, "
                  f"{c['stack']} ymm stack accesses per double round ({c['stores']} stores), "
                  f"8 mask loads (VBROADCASTI128)")
            outer = [(s2, e2) for (s2, e2) in ls if s2 <= s and e2 >= e and (s2, e2) != (s, e)]
            if outer:
                s2, e2 = min(outer, key=lambda r: r[1] - r[0])
                oc = count(insns, s2, e2, inner=[(s, e)])
                print(f"  batch loop: {oc['bytes'] + c['bytes']} B in all; outside the rounds {oc['insns']} insns, "
                      f"{oc['stack']} ymm stack accesses a batch; in all {oc['stack'] + c['stack'] * 10} a batch")
            est = [f"{m} {mca(insns, s, e, m):.1f}" for m in mcpus if mca(insns, s, e, m) is not None]
            if est:
                print("  llvm-mca cycles per double round: " + ", ".join(est))
    for path in a.paths:
        for sym in ENTRIES:
            insns = objdump(path, sym)
            if not insns:
                continue
            total = sum(s for _, s, _ in insns)
            print(f"{sym} ({path}): {total} bytes of code")
            ls = loops(insns)
            matches = [(s, e) for (s, e) in ls if is_batch_rounds(insns, s, e)]
            rounds = sorted({(s, e) for (s, e) in matches
                             if not any(s <= s2 and e2 <= e and (s2, e2) != (s, e) for (s2, e2) in matches)})
            if a.loops:
                for (s, e) in ls:
                    c = count(insns, s, e)
                    print(f"  loop {insns[s][0]:#x}..{insns[e][0]:#x}: {c['bytes']} B, {c['insns']} insns, "
                          f"{c['shuf']} vpshufb, {c['mulx']} mulx, {c['stack']} ymm stack accesses")
            if not rounds:
                print("  no rounds loop found")
                ok = False
                continue
            for (s, e) in rounds:
                c = count(insns, s, e)
                drs = c["shuf"] / 16
                # The nine-block batch (a seal's first: block 0 in general
                # registers beside eight text blocks) still makes 512 bytes of text.
                nine = c["rol"] >= 32 * drs
                print(f"  rounds loop {insns[s][0]:#x}..{insns[e][0]:#x}: {c['bytes']} B, {c['insns']} insns, "
                      f"{drs:g} double round(s) an iteration, {c['mulx']} MULX ({c['mulx'] / 4:g} Poly1305 blocks)"
                      + (", nine blocks (block 0 in general registers beside eight text blocks)" if nine else ""))
                print(f"    ymm stack accesses: {c['stack'] / drs:g} per double round "
                      f"({c['stores'] / drs:g} stores), {c['stack'] / drs * 10:g} per batch in the rounds")
                batch, spanning = batch_loop(ls, rounds, (s, e))
                if batch:
                    s2, e2 = batch
                    oc = count(insns, s2, e2, inner=[(s, e)])
                    print(f"    batch loop {insns[s2][0]:#x}..{insns[e2][0]:#x}: {oc['bytes'] + c['bytes']} B in all; "
                          f"outside the rounds {oc['insns']} insns, {oc['stack']} ymm stack accesses a batch; "
                          f"in all {oc['stack'] + c['stack'] / drs * 10:g} a batch")
                elif spanning:
                    s2, e2, n = spanning
                    print(f"    no batch loop: the loop around it, {insns[s2][0]:#x}..{insns[e2][0]:#x} "
                          f"({sum(size for _, size, _ in insns[s2:e2 + 1])} B), spans {n} rounds loops, "
                          "a loop over batch statements (Pass::run's), not one batch's code")
                est = []
                for m in mcpus:
                    cyc = mca(insns, s, e, m)
                    if cyc is not None:
                        est.append(f"{m} {cyc / drs:.1f} ({cyc / drs * 10 / 512:.2f} c/B)")
                if est:
                    print("    llvm-mca cycles per double round (rounds of a batch per byte): " + ", ".join(est))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
