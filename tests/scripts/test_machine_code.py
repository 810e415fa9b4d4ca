"""The built stitch.so's machine code, where a compiler's choice of
instruction is known to cost speed on some core and the source guards
against it (docs/kernels.md, "What the compilers may not choose").

VPMULLQ: clang 14 folds a sum of two shifts of a 64-bit lane ((x << 12) +
(x << 10), x times 5·2^10) into one VPMULLQ. On Intel Emerald Rapids that
takes 15-16 cycles against 2 for the shifts and the add, on the serial chain
of every IFMA Poly1305 step. avx512/poly1305_ifma.hpp's times5_shl keeps
the shifts; this fails if any VPMULLQ comes back.

Register copies in the AVX-512 rounds loops: g++ 12 at -O2 merges a rounds
loop's state words into shared variables before register allocation and
then copies 10-16 of them from register to register on every double
round's back edge, spilling some as well; -fno-tree-coalesce-vars
(kernels/CMakeLists.txt) leaves 0-6 and no spill, and clang 14 makes none.
This fails if a build brings them back.

Run by ctest with STITCH_SO set to the built module; needs objdump
(binutils, which scripts/setup-debian.sh installs)."""
import os
import re
import subprocess

SO = os.environ.get("STITCH_SO", "")


def instructions():
    """[(function, address, mnemonic, operands)] of SO's code."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", SO], capture_output=True, text=True,
                          check=True).stdout
    found, function = [], None
    for line in text.splitlines():
        head = re.match(r"[0-9a-f]+ <(.+)>:$", line)
        if head:
            function = head.group(1)
            continue
        insn = re.match(r"\s+([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if insn:
            found.append((function, int(insn.group(1), 16), insn.group(2), insn.group(3)))
    return found


def functions_with(mnemonic):
    """{function: count} of the instructions named `mnemonic` in SO."""
    found = {}
    for function, _, name, _ in instructions():
        if name == mnemonic:
            found[function] = found.get(function, 0) + 1
    return found


def avx512_rounds_loops():
    """The AVX-512 set's rounds loops: innermost loops (a backward branch
    with no other loop inside) of its functions with 16-32 VPROLDs, one
    batch's double round (a zmm or ymm batch, two or three zmm row sets),
    and no MULX. [(function, bytes, register copies, vector stack accesses)]."""
    code = instructions()
    at = {insn[1]: i for i, insn in enumerate(code)}
    loops = []
    for i, (function, address, mnemonic, operands) in enumerate(code):
        target = re.match(r"([0-9a-f]+) <", operands)
        if (mnemonic.startswith("j") and target and "avx512::" in (function or "")
                and int(target.group(1), 16) < address and int(target.group(1), 16) in at):
            loops.append((at[int(target.group(1), 16)], i))
    found = []
    for first, last in loops:
        if any((f, l) != (first, last) and first <= f and l <= last for f, l in loops):
            continue
        body = code[first:last + 1]
        rotations = sum(1 for insn in body if insn[2].startswith("vprold"))
        if not 16 <= rotations <= 32 or any(insn[2] == "mulx" for insn in body):
            continue
        copies = sum(1 for insn in body if re.match(r"vmov(dqa|dqu|aps|ups)", insn[2]) and "(" not in insn[3])
        stack = sum(1 for insn in body if "mm" in insn[3] and re.search(r"\(%r[sb]p", insn[3]))
        found.append((body[0][0], body[-1][1] - body[0][1], copies, stack))
    return found


def test_avx512_rounds_loops_copy_few_words_and_spill_none():
    loops = avx512_rounds_loops()
    # Else the checks below would pass on a module without those loops.
    for entry in ("ifma::stitched_text", "ifma::chacha20_blocks", "base::stitched_text"):
        assert any(entry in function for function, _, _, _ in loops), entry
    assert [loop for loop in loops if loop[2] > 6] == []
    assert [loop for loop in loops if loop[3] > 0] == []


def test_the_ifma_poly1305_is_in_the_module():
    # Else the check below would pass on a module without the code it guards.
    assert SO, "STITCH_SO is not set"
    assert any("ifma" in f and "poly1305_blocks" in f for f in functions_with("vpmadd52luq"))


def test_no_vpmullq():
    assert functions_with("vpmullq") == {}
