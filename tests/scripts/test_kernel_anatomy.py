"""scripts/kernel-anatomy.py's loop finder on hand-made instruction lists:
a backward branch is a loop only if its target can reach it again inside
its range (g++ 12 also jumps back to shared tails). No objdump or llvm-mca
needed."""
import importlib.util
import pathlib

_path = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "kernel-anatomy.py"
_spec = importlib.util.spec_from_file_location("kernel_anatomy", _path)
anatomy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(anatomy)


def insns(*texts_at):
    """[address, size, text] rows from (address, text) pairs."""
    rows = [[a, 0, t] for a, t in texts_at]
    for i in range(len(rows) - 1):
        rows[i][1] = rows[i + 1][0] - rows[i][0]
    rows[-1][1] = 1
    return rows


def test_a_loop_closed_at_the_bottom():
    code = insns((0x10, "add %eax,%ebx"), (0x12, "dec %ecx"), (0x14, "jne 10"), (0x16, "ret"))
    assert anatomy.loops(code) == [(0, 2)]


def test_a_loop_with_its_test_at_the_top_and_a_backward_jmp():
    code = insns((0x10, "test %ecx,%ecx"), (0x12, "je 30"), (0x14, "add %eax,%ebx"), (0x16, "jmp 10"),
                 (0x30, "ret"))
    assert anatomy.loops(code) == [(0, 3)]


def test_a_jump_back_to_a_shared_tail_is_not_a_loop():
    # 0x10..0x14: the tail, entered from above and from 0x24; it returns.
    code = insns((0x10, "test %rdx,%rdx"), (0x12, "je 14"), (0x14, "ret"),
                 (0x20, "add %eax,%ebx"), (0x22, "jne 20"), (0x24, "jmp 10"))
    assert anatomy.loops(code) == [(3, 4)]


def test_a_tail_that_leaves_its_range_is_not_a_loop():
    code = insns((0x10, "cmp $1,%rdx"), (0x12, "ja 40"), (0x14, "mov %eax,%ebx"), (0x16, "jmp 10"),
                 (0x40, "ret"))
    # From 0x10 the fall-through reaches 0x16 again: this one is a loop.
    assert anatomy.loops(code) == [(0, 3)]
    code = insns((0x10, "cmp $1,%rdx"), (0x12, "jmp 40"), (0x14, "mov %eax,%ebx"), (0x16, "jmp 10"),
                 (0x40, "ret"))
    assert anatomy.loops(code) == []


def test_a_loop_around_two_rounds_loops_is_no_batch_loop():
    # Rounds loops at (1, 2) and (4, 5), a loop around both (0, 6), and a
    # batch loop (8, 10) around a third at (9, 9).
    ls = [(1, 2), (4, 5), (0, 6), (9, 9), (8, 10)]
    rounds = [(1, 2), (4, 5), (9, 9)]
    assert anatomy.batch_loop(ls, rounds, (1, 2)) == (None, (0, 6, 2))
    assert anatomy.batch_loop(ls, rounds, (4, 5)) == (None, (0, 6, 2))
    assert anatomy.batch_loop(ls, rounds, (9, 9)) == ((8, 10), None)
    assert anatomy.batch_loop([(1, 2)], [(1, 2)], (1, 2)) == (None, None)
