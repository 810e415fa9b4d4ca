#!/usr/bin/python3
"""Runs a program under memcheck with XML output and judges each report by
where it happened: the first stack frame outside the C library, the dynamic
loader and valgrind's own preload (a memcmp or memcpy stitch calls is
stitch's doing). A secret-dependent branch or address in stitch.so, or in
the test program itself, fails; so does any other memcheck error anywhere.
Reports in OpenSSL's libcrypto are listed, not failed: EVP branches on the
verdict stitch returns from a decrypt (EVP_DecryptFinal_ex, EVP_Cipher),
which is public by design, and the ctgrind method cannot mark a value
public inside a library it does not build.

Usage: run_valgrind_provider.py VALGRIND LOG PROGRAM [ARGS...]"""

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

PASS_THROUGH = ("libc.so", "libc-", "ld-linux", "vgpreload_", "libstdc++", "libgcc_s")
SECRET_KINDS = {"UninitCondition", "UninitValue"}


def owner(error):
    """(object basename, 'fn file:line') of the first frame that is not libc & co."""
    frames = error.findall("./stack/frame")
    for f in frames:
        obj = Path(f.findtext("obj", "?")).name
        if not obj.startswith(PASS_THROUGH):
            where = f.findtext("fn", "?")
            if f.findtext("file"):
                where += f" ({f.findtext('file')}:{f.findtext('line')})"
            return obj, where
    f = frames[0] if frames else None
    return ("?", "?") if f is None else (Path(f.findtext("obj", "?")).name, f.findtext("fn", "?"))


def main():
    valgrind, log, program = sys.argv[1], sys.argv[2], sys.argv[3:]
    run = subprocess.run([valgrind, "--tool=memcheck", "--xml=yes", f"--xml-file={log}", "--track-origins=yes",
                          "--num-callers=40"] + program)
    errors = ET.parse(log).getroot().findall("error")
    allowed, failing = Counter(), []
    for e in errors:
        kind = e.findtext("kind")
        obj, where = owner(e)
        what = e.findtext("what") or e.findtext("./xwhat/text") or kind
        if kind in SECRET_KINDS and obj.startswith("libcrypto"):
            allowed[f"{obj}: {where}: {what}"] += 1
        else:
            failing.append(f"{obj}: {where}: {what}")
    for line, n in sorted(allowed.items()):
        print(f"allowed  {n:4d}x  {line}")
    for line in failing:
        print(f"FAILING  {line}")
    print(f"memcheck: {len(errors)} reports, {len(failing)} in stitch.so or the test (log: {log}); "
          f"program exit {run.returncode}")
    sys.exit(0 if run.returncode == 0 and not failing else 1)


if __name__ == "__main__":
    main()
