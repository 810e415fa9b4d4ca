"""Instructions a process executed inside one shared object, read from a
callgrind output file: the evidence that the TLS records really went through
stitch.so rather than through libcrypto's own ChaCha20-Poly1305."""

import re

# "ob=(3) /lib/x.so" defines id 3, "ob=(3)" reuses it; without name compression "ob=/lib/x.so".
_NAMED = re.compile(r"^(c?ob|c?fn|c?fl|f[ie])=(?:\((\d+)\))? ?(.*)$")


def self_cost_by_object(path):
    """Maps each object file to the instructions (Ir) executed in its own code."""
    names = {}  # (kind, id) -> name; callgrind writes a name once, then "(id)" alone
    cost = {}
    current_ob = None
    skip_next_cost = False  # the cost line after "calls=" is the callee's inclusive cost
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = _NAMED.match(line)
            if m:
                kind, ident, name = m.group(1), m.group(2), m.group(3)
                base = kind.lstrip("c")  # cob names share the ob table, cfn the fn table
                if ident is None:
                    ident = name
                if name:
                    names[(base, ident)] = name
                if kind == "ob":
                    current_ob = names.get(("ob", ident))
                continue
            if line.startswith("calls="):
                skip_next_cost = True
                continue
            if line and (line[0].isdigit() or line[0] in "+-*"):
                if skip_next_cost:
                    skip_next_cost = False
                    continue
                fields = line.split()
                if len(fields) >= 2 and current_ob is not None:
                    cost[current_ob] = cost.get(current_ob, 0) + int(fields[1])
    return cost


def cost_in(path, object_suffix):
    return sum(ir for ob, ir in self_cost_by_object(path).items() if ob.endswith(object_suffix))


def calls_to(path, function_substring):
    """Calls made to every function whose name contains `function_substring`,
    summed over their call sites (the "calls=" lines under each "cfn=")."""
    names = {}
    callee = None
    total = 0
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = _NAMED.match(line)
            if m:
                kind, ident, name = m.group(1), m.group(2), m.group(3)
                base = kind.lstrip("c")
                if ident is None:
                    ident = name
                if name:
                    names[(base, ident)] = name
                if kind == "cfn":
                    callee = names.get(("fn", ident), "")
                continue
            if line.startswith("calls=") and callee and function_substring in callee:
                total += int(line.split()[0][len("calls="):])
    return total
