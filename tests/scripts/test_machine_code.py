"""The built stitch.so's machine code, where a compiler's choice of
instruction is known to cost speed on some core and the source guards
against it (docs/kernels.md, "What the compilers may not choose").

VPMULLQ: clang 14 folds a sum of two shifts of a 64-bit lane ((x << 12) +
(x << 10), x times 5·2^10) into one VPMULLQ. On Intel Emerald Rapids that
takes 15-16 cycles against 2 for the shifts and the add, on the serial chain
of every IFMA Poly1305 step. avx512/poly1305_ifma.hpp's times5_shl keeps
the shifts; this fails if any VPMULLQ comes back.

Run by ctest with STITCH_SO set to the built module; needs objdump
(binutils, which scripts/setup-debian.sh installs)."""
import os
import re
import subprocess

SO = os.environ.get("STITCH_SO", "")


def functions_with(mnemonic):
    """{function: count} of the instructions named `mnemonic` in SO."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", SO], capture_output=True, text=True,
                          check=True).stdout
    found, function = {}, None
    for line in text.splitlines():
        head = re.match(r"[0-9a-f]+ <(.+)>:$", line)
        if head:
            function = head.group(1)
        elif re.match(rf"\s+[0-9a-f]+:\s+{mnemonic}\b", line):
            found[function] = found.get(function, 0) + 1
    return found


def test_the_ifma_poly1305_is_in_the_module():
    # Else the check below would pass on a module without the code it guards.
    assert SO, "STITCH_SO is not set"
    assert any("ifma" in f and "poly1305_blocks" in f for f in functions_with("vpmadd52luq"))


def test_no_vpmullq():
    assert functions_with("vpmullq") == {}
