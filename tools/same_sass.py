#!/usr/bin/env python3
"""Whether two builds of a library hold the same GPU kernels, instruction for instruction.

    tools/same_sass.py OLD.a NEW.a [LABEL]

Disassembles both with `cuobjdump -sass` and compares each kernel both hold, by its SASS with the
instruction addresses left out; kernels in anonymous namespaces are matched by name with the
namespace's per-build hash left out. Prints one line (kernels in each, in both, identical, that
differ) and, for up to eight that differ, their registers before and after (`cuobjdump
-res-usage`). Exits 0. For a change whose benchmark rows cannot all run again: identical SASS
runs the same.
"""
import collections
import hashlib
import re
import subprocess
import sys

ANONYMOUS = re.compile(r"_GLOBAL__N__[0-9A-Za-z_]+?_[0-9a-f]{8}")


def dump(library, what):
    # cuobjdump exits 1 when an archive holds members with no device code: its output is whole.
    return subprocess.run(["cuobjdump", what, library], capture_output=True, text=True).stdout


def kernels(library):
    """name -> the sorted hashes of its SASS (one per architecture it is built for)."""
    found = collections.defaultdict(list)
    name = None
    for line in dump(library, "-sass").splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = ANONYMOUS.sub("ANON", m.group(1))
            found[name].append("")
        elif name and line.strip().startswith("/*"):
            found[name][-1] += re.sub(r"^\s*/\*[0-9a-f]{4,}\*/", "", line).strip() + "\n"
    return {k: sorted(hashlib.md5(t.encode()).hexdigest() for t in v) for k, v in found.items()}


def registers(library):
    found = {}
    name = None
    for line in dump(library, "-res-usage").splitlines():
        m = re.match(r"\s*Function (\S+):", line)
        if m:
            name = ANONYMOUS.sub("ANON", m.group(1))
            continue
        m = re.search(r"REG:(\d+)", line)
        if m and name:
            found.setdefault(name, []).append(int(m.group(1)))
    return found


def main():
    old, new = sys.argv[1], sys.argv[2]
    label = sys.argv[3] if len(sys.argv) > 3 else new
    a, b = kernels(old), kernels(new)
    if not a and not b:
        print(f"{label:<14} no SASS read (cuobjdump and nvdisasm on PATH? device code in them?)")
        return 0
    both = [k for k in a if k in b]
    differ = [k for k in both if a[k] != b[k]]
    print(f"{label:<14} kernels {len(a)} before, {len(b)} after, {len(both)} in both: "
          f"{len(both) - len(differ)} identical, {len(differ)} differ")
    if differ:
        ra, rb = registers(old), registers(new)
        for k in differ[:8]:
            print(f"  differs: {k[:80]}  registers {ra.get(k)} -> {rb.get(k)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
