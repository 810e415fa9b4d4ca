"""What the mutant scripts share (tests/kernels/avx2_mutants.py,
avx512_mutants.py, tests/kdf/kdf_rule_mutants.py, sha2_mutants.py): their
command line, and planting each mutant in turn (a replacement of one
string in one source file), rebuilding, asking the script's check whether
the tests caught it, and restoring the file, also when the run is stopped
(SIGTERM or Ctrl-C), so no mutant stays behind in the tree.

  script [BUILD_DIR] [INDEX...]     (default: build; all)
"""
import pathlib
import signal
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parents[1]


def build_dir():
    """BUILD_DIR from the command line, or "build"."""
    return sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].isdigit() else "build"


def _stop(signum, frame):
    raise KeyboardInterrupt  # unwinds through run()'s finally, which restores the file


def run(mutants, build_cmd, check, exact=False):
    """Plants each selected mutant (name, path, old, new), runs build_cmd in
    the repository root, then check(), which returns what caught it (a
    non-empty string) or "" if nothing did; restores the file; prints each
    result and a summary, rebuilds the clean tree and exits 1 if any mutant
    survived or failed to build. exact: `old` must occur exactly once."""
    signal.signal(signal.SIGTERM, _stop)
    sel = [a for a in sys.argv[1:] if a.isdigit()]
    results = []
    for idx, (name, path, old, new) in enumerate(mutants):
        if sel and str(idx) not in sel:
            continue
        p = root / path
        src = p.read_text()
        count = src.count(old)
        assert count == 1 if exact else count >= 1, (name, old)
        p.write_text(src.replace(old, new, 1))
        try:
            b = subprocess.run(build_cmd, shell=True, cwd=root, capture_output=True, text=True)
            if b.returncode:
                results.append((name, "BUILD FAILED"))
                print(b.stdout[-3000:], b.stderr[-3000:])
                continue
            caught = check()
            results.append((name, f"caught by {caught}" if caught else "SURVIVED"))
        finally:
            p.write_text(src)
        print(f"{results[-1][0]}: {results[-1][1]}", flush=True)
    subprocess.run(build_cmd, shell=True, cwd=root, capture_output=True)
    print("\n".join(f"{n}: {r}" for n, r in results))
    sys.exit(1 if any(r in ("SURVIVED", "BUILD FAILED") for _, r in results) else 0)
