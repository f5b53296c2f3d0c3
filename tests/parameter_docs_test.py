#!/usr/bin/env python3
"""tools/parameter_docs.py gives a solver that docs/parameters.md has no section for one of its own:

    python3 tests/parameter_docs_test.py tools/parameter_docs.py PARASOL docs/parameters.md SOLVER

PARASOL knows SOLVER and the doc does not (the front end of tests/example_solver/ and its saxpy).
On a copy of the doc: --check fails naming the solver; a plain run appends `## SOLVER` with its
markers and table and keeps every line that was there; then --check passes.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    tool, parasol, doc, solver = sys.argv[1:5]
    problems = []
    with tempfile.TemporaryDirectory() as work:
        copy = os.path.join(work, "parameters.md")
        shutil.copy(doc, copy)
        before = open(copy, encoding="utf-8").read()
        if f"\n## {solver}\n" in before:
            problems.append(f"{doc} has a {solver} section already: nothing to add")

        def run(*extra):
            return subprocess.run([sys.executable, tool, parasol, copy, *extra],
                                  capture_output=True, text=True)
        r = run("--check")
        if r.returncode != 1 or f"## {solver}" not in r.stderr:
            problems.append(f"--check on a doc without {solver} exited {r.returncode}, "
                            f"saying: {r.stderr[-400:]}")
        if open(copy, encoding="utf-8").read() != before:
            problems.append("--check changed the file")
        r = run()
        after = open(copy, encoding="utf-8").read()
        if r.returncode != 0:
            problems.append(f"writing exited {r.returncode}: {r.stderr[-400:]}")
        if not after.startswith(before.rstrip("\n")):
            problems.append("writing changed what was there")
        section = after[after.find(f"\n## {solver}\n"):]
        for want in (f"\n## {solver}\n", f"<!-- keys {solver}: generated",
                     f"| `solver` | string | | required | `\"{solver}\"` |",
                     f"<!-- end keys {solver} -->"):
            if want not in section:
                problems.append(f"the added section lacks {want!r}:\n{section}")
        r = run("--check")
        if r.returncode != 0:
            problems.append(f"--check after writing exited {r.returncode}: {r.stderr[-400:]}")
    for p in problems:
        print("FAIL:", p)
    print(f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
