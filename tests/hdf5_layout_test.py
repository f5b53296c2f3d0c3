#!/usr/bin/env python3
"""docs/hdf5-layout.md against the files parasol writes: every group, dataset and attribute of a
result must have a row in one of the doc's layout tables, and every row that applies must be there.

    python3 tests/hdf5_layout_test.py docs/hdf5-layout.md PARASOL SOURCE_DIR ["MPIEXEC -np 2"]
            [--also MORE_TABLES.md] [--only SOLVER]

The layout tables are the doc's Markdown tables that follow a marker line

    <!-- layout SCOPE -->
    | path | kind | when | contents |

SCOPE is `every run`, `every sweep`, `SOLVER run` or `SOLVER sweep`, optionally followed by
`: CONDITION` (a table for one kind of problem: `montecarlo run: model.kind = "basket"`). A file
is judged by every table whose scope is its solver's (`/@solver`) or `every`, of its command (a
file with a `/sweep` group is a sweep) and whose condition holds. Each row names one object:

- path: `/group`, `/group/dataset`, `/object@attribute`; `*` stands for any name in one place
  (`/parameters@*`: every attribute of /parameters; `/*@compression`: that attribute anywhere);
- kind: `group`, `dataset` or `attribute`;
- when: empty for always, else a condition: terms joined by ` and ` (or ` or `, looser):
  `gpu`, `cpu` (the backend), `check` (`--check`), `ranks` (more than one), `compression`
  (`--compression`), `KEY = VALUE`, `KEY != VALUE`, `KEY > NUMBER` or `KEY` alone (true, or a
  number above 0), KEY a parameter as /parameters stores it, VALUE a TOML value. A key the file
  does not store makes its term false.

A row that applies must be in the file, a row that does not must not be (a pattern row is
allowed, never required), and nothing may be in the file that no row of its tables names. Each
miss is reported with the file, the object, and the doc's line or the table to add it to.

The files are every example under SOURCE_DIR/inputs/, run as tests/examples_test.cpp runs them
(`parasol run inputs/NAME.toml --backend cpu CUT -o results/NAME.h5`, in its order, the studies
cut by its table), then one small case of each solver (`parasol solvers`) run with `--check`,
with `--check` across two ranks (given a launcher, unless the solver runs on one rank only), and
as a CPU sweep: its first example, cut by SMALL below where that is too large for seconds. So a
new solver needs no line here; one without a layout table fails, and the message drafts the
table's rows from what its files hold. `--only SOLVER` runs that solver's files alone (a new
solver's author, or tests/example_solver/ with its tables in `--also`).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
try:
    import h5py
except ImportError as missing:
    print(f"hdf5_layout test skipped: {sys.executable} lacks h5py ({missing}); "
          "Debian: apt-get install python3-h5py")
    sys.exit(SKIP)

# One small case of each solver (example, overrides): run with --check and swept on the CPU, so
# the check's rows and each solver's sweep table are read from a real file in seconds. A solver
# not named here runs its first example (`parasol solvers`) as it is.
SMALL = {
    "laplace3d": ("laplace3d", "grid.nx=16 grid.ny=16 grid.nz=16 iteration.max_iterations=50"),
    "montecarlo": ("montecarlo", "paths.count=10000"),
    "coulomb": ("coulomb", "lattice.nx=16 lattice.ny=16 lattice.nz=4"),
    "tridiag": ("heat1d", "heat.grids=64"),
    "recurrence": ("recurrence", "ar1.length=65536"),
    "fftconv": ("fftconv", "signal.length=65536"),
    "poisson": ("poisson", "grid.nx=16 grid.ny=16 grid.nz=16 study.refinements=2"),
}

MARKER = re.compile(r"^<!-- layout (\w[\w-]*) (run|sweep)(?:: (.*))? -->$")
KINDS = {"group", "dataset", "attribute"}
WORDS = {"gpu", "cpu", "check", "ranks", "single", "restarted", "compression", "profile"}
TERM = re.compile(r'^([A-Za-z_][\w.]*)(?: (=|!=|>) (".*"|true|false|-?[\d.eE+-]+))?$')


class DocError(Exception):
    pass


def parse_condition(text, where):
    """A condition as a list of alternatives, each a list of terms; [] where always."""
    if not text:
        return []
    alternatives = []
    for alternative in text.split(" or "):
        terms = []
        for term in alternative.split(" and "):
            term = term.strip()
            m = TERM.match(term)
            if not m:
                raise DocError(f"{where}: condition term {term!r} is not `WORD`, `KEY = VALUE`, "
                               f"`KEY != VALUE`, `KEY > NUMBER` or `KEY`")
            key, op, value = m.groups()
            if op is None and key in WORDS:
                terms.append(("word", key, None))
            else:
                terms.append((op or "truthy", key, value))
        alternatives.append(terms)
    return alternatives


def cell(text):
    return text.strip().strip("`")


def parse_doc(path):
    """The layout tables: {(solver, command): [table]}, each table {condition, rows, line}."""
    tables = {}
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i].strip())
        i += 1
        if not m:
            if lines[i - 1].startswith("<!-- layout"):
                raise DocError(f"{path}:{i}: a layout marker is `<!-- layout SOLVER run|sweep"
                               f"[: CONDITION] -->`, got {lines[i - 1]!r}")
            continue
        solver, command, condition = m.groups()
        where = f"{path}:{i}"
        table = {"scope": f"{solver} {command}" + (f": {condition}" if condition else ""),
                 "condition": parse_condition(condition, where), "rows": [], "line": i}
        header = [cell(c) for c in lines[i].strip().strip("|").split("|")] if i < len(lines) else []
        if header != ["path", "kind", "when", "contents"]:
            raise DocError(f"{where}: a layout table's header is | path | kind | when | contents |")
        i += 2  # the header and its rule
        while i < len(lines) and lines[i].startswith("|"):
            # A "|" inside a cell is written "\|" (Markdown's own escape).
            cells = [cell(c) for c in re.split(r"(?<!\\)\|", lines[i].strip().strip("|"))]
            row_at = f"{path}:{i + 1}"
            if len(cells) != 4:
                raise DocError(f"{row_at}: expected 4 cells, got {len(cells)}")
            obj, kind, when, _ = cells
            if not obj.startswith("/") or kind not in KINDS or (kind == "attribute") != ("@" in obj):
                raise DocError(f"{row_at}: expected `/path` (group, dataset) or `/path@name` "
                               f"(attribute) and its kind, got {obj!r}, {kind!r}")
            table["rows"].append({"path": obj, "kind": kind, "line": i + 1,
                                  "when": when, "condition": parse_condition(when, row_at)})
            i += 1
        if not table["rows"]:
            raise DocError(f"{where}: the table for {table['scope']} has no rows")
        tables.setdefault((solver, command), []).append(table)
    return tables


def toml_value(text):
    if text.startswith('"'):
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    return float(text)


def holds(condition, facts):
    def term(t):
        op, key, value = t
        if op == "word":
            return facts["words"][key]
        if key not in facts["parameters"]:
            return False
        have = facts["parameters"][key]
        if isinstance(have, bytes):
            have = have.decode()
        if hasattr(have, "item"):
            have = have.item()
        if op == "truthy":
            return have is True or (not isinstance(have, (str, bool)) and have > 0)
        want = toml_value(value)
        if op == ">":
            return not isinstance(have, str) and have > want
        same = have == want
        return same if op == "=" else not same
    return not condition or any(all(term(t) for t in alt) for alt in condition)


def contents(path):
    """Every object of the file: {"/a/b": "group"|"dataset", "/a/b@name": "attribute"}."""
    found = {}
    with h5py.File(path, "r") as f:
        def add(name, obj):
            where = "/" + name if name else "/"
            found[where] = "dataset" if isinstance(obj, h5py.Dataset) else "group"
            for attribute in obj.attrs:
                found[f"{where}@{attribute}"] = "attribute"
        add("", f)
        f.visititems(add)
        parameters = dict(f["parameters"].attrs) if "parameters" in f else {}
        provenance = dict(f["provenance"].attrs) if "provenance" in f else {}
        solver = f.attrs.get("solver", "?")
    found.pop("/")  # the root is always there; its attributes are what the tables name
    return found, parameters, provenance, solver.decode() if isinstance(solver, bytes) else solver


def pattern(path):
    return re.compile("^" + "[^/@]+".join(re.escape(p) for p in path.split("*")) + "$")


def judge(doc, tables, path, check=False, compression=False):
    """What is wrong with the file at `path` against the doc's tables: a list of lines."""
    found, parameters, provenance, solver = contents(path)
    command = "sweep" if "/sweep" in found else "run"
    ranks = int(provenance.get("ranks", 1))
    backend = provenance.get("backend", "cpu")
    backend = backend.decode() if isinstance(backend, bytes) else backend
    facts = {"parameters": parameters,
             "words": {"gpu": backend == "gpu", "cpu": backend == "cpu", "check": check,
                       "ranks": ranks > 1, "single": ranks == 1, "restarted": False, "compression": compression, "profile": False}}
    name = os.path.basename(path)
    problems = []
    rows = []
    for scope in (("every", command), (solver, command)):
        for table in tables.get(scope, []):
            if holds(table["condition"], facts):
                rows += [(row, table) for row in table["rows"]]
    # A path two tables name (the every-sweep `threads` of a CPU sweep, tridiag's GPU `threads`)
    # is written when either row says so.
    wanted = {row["path"] for row, _ in rows if holds(row["condition"], facts)}
    covered = set()
    for row, table in rows:
        applies = holds(row["condition"], facts) or row["path"] in wanted
        when = f" (when {row['when']})" if row["when"] else ""
        if "*" in row["path"]:
            match = pattern(row["path"])
            hits = [p for p in found if match.match(p) and found[p] == row["kind"]]
            if applies:
                covered.update(hits)
            for p in hits if not applies else []:
                problems.append(f"{name}: {p} is there, but docs/hdf5-layout.md:{row['line']} "
                                f"says {row['path']} only{when}")
            continue
        there = found.get(row["path"])
        if applies and there is None:
            problems.append(f"{name}: no {row['kind']} {row['path']}, which "
                            f"docs/hdf5-layout.md:{row['line']} ({table['scope']}) says is "
                            f"written{when}")
        elif applies and there != row["kind"]:
            problems.append(f"{name}: {row['path']} is a {there}, docs/hdf5-layout.md:"
                            f"{row['line']} says a {row['kind']}")
        elif not applies and there is not None:
            problems.append(f"{name}: {row['path']} is there, but docs/hdf5-layout.md:"
                            f"{row['line']} says it is written only{when}")
        if applies:
            covered.add(row["path"])
    if (solver, command) not in tables:
        # What the file holds that the `every` tables do not name, as rows to fill in: the `when`
        # of each (written always, or only on some condition) and its contents are the author's.
        draft = [f"| `{p}` | {found[p]} | | |" for p in sorted(set(found) - covered)
                 if not any(r["path"] == p for r, _ in rows)]
        return [f"{name}: docs/hdf5-layout.md has no table for a {solver} {command}: add a line "
                f"`<!-- layout {solver} {command} -->` and a | path | kind | when | contents | "
                f"table under it; this file would need the rows\n" + "\n".join(draft)]
    scopes = " or ".join(f"`<!-- layout {s} {command} -->`" for s in (solver, "every"))
    for p in sorted(set(found) - covered):
        # An object written where its row says it is not was reported above.
        if any(r["path"] == p for r, _ in rows):
            continue
        problems.append(f"{name}: {found[p]} {p} is in the file but in no row of {scopes} "
                        f"in docs/hdf5-layout.md")
    return problems


def self_check(doc, tables, path):
    """The judge's own errors, on a real file (a coulomb run with --check) and tables changed in
    three ways: a row taken out, a row for what is not written, a solver's tables taken out."""
    problems = []
    coulomb = tables[("coulomb", "run")][0]

    def changed(rows):
        t = dict(tables)
        t[("coulomb", "run")] = [dict(coulomb, rows=rows)] + tables[("coulomb", "run")][1:]
        return t
    kept = [r for r in coulomb["rows"] if r["path"] != "/atoms@count"]
    said = judge(doc, changed(kept), path, check=True)
    if len(said) != 1 or "attribute /atoms@count is in the file but in no row" not in said[0]:
        problems.append(f"self-check: a row taken out gave {said}")
    extra = dict(coulomb["rows"][0], path="/atoms@mass", kind="attribute", when="", condition=[])
    said = judge(doc, changed(coulomb["rows"] + [extra]), path, check=True)
    if len(said) != 1 or "no attribute /atoms@mass" not in said[0]:
        problems.append(f"self-check: a row for what is not written gave {said}")
    said = judge(doc, {k: v for k, v in tables.items() if k[0] != "coulomb"}, path, check=True)
    if len(said) != 1 or "no table for a coulomb run" not in said[0]:
        problems.append(f"self-check: a solver without tables gave {said}")
    return problems


def examples(source_dir):
    """Every example under inputs/ as tests/examples_test.cpp runs them: [(name, overrides)], in
    order of name except that those whose results another reads (a quoted path ending
    `results/NAME.h5`) come first, each with the cut of that test's table, if any."""
    here = os.path.dirname(os.path.abspath(__file__))
    text = open(os.path.join(here, "examples_test.cpp"), encoding="utf-8").read()
    table = text[text.index("kCuts = {"):]
    table = table[:table.index("};")]
    cuts = dict(re.findall(r'\{"([\w.-]+)", "([^"]*)"\}', table))
    inputs = os.path.join(source_dir, "inputs")
    names = sorted(f[:-len(".toml")] for f in os.listdir(inputs) if f.endswith(".toml"))
    read = set()
    for name in names:
        with open(os.path.join(inputs, name + ".toml"), encoding="utf-8") as f:
            read.update(m for m in re.findall(r'"[^"\n]*results/([\w.-]+)\.h5"', f.read())
                        if m in names and m != name)
    ordered = [n for n in names if n in read] + [n for n in names if n not in read]
    return [(name, cuts.get(name, "")) for name in ordered]


def small_cases(parasol):
    """{solver: (example, overrides)} for every solver `parasol solvers` lists: SMALL's case, or
    its first example (the parenthesised list ending its line) as it is."""
    listing = subprocess.run([parasol, "solvers"], capture_output=True, text=True, check=True)
    cases = {}
    for line in listing.stdout.splitlines():
        if not line.strip():
            continue
        solver = line.split()[0]
        listed = re.search(r"\((inputs/[^()]*)\)\s*$", line)
        if solver in SMALL:
            cases[solver] = SMALL[solver]
        elif listed:
            first = listed.group(1).split(", ")[0]
            cases[solver] = (os.path.basename(first)[:-len(".toml")], "")
        else:
            cases[solver] = None
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("doc", help="docs/hdf5-layout.md")
    parser.add_argument("parasol", help="the parasol executable")
    parser.add_argument("source_dir", help="the tree whose inputs/ are run")
    parser.add_argument("launch", nargs="?", default="", help='"MPIEXEC -np 2", or nothing')
    parser.add_argument("--also", action="append", default=[],
                        help="another file of layout tables, read with the doc")
    parser.add_argument("--only", help="judge only this solver's examples and small case")
    args = parser.parse_args()
    doc, source_dir, launch = args.doc, args.source_dir, args.launch
    parasol = os.path.abspath(args.parasol)
    try:
        tables = parse_doc(doc)
        for extra in args.also:
            for scope, more in parse_doc(extra).items():
                tables.setdefault(scope, []).extend(more)
    except DocError as e:
        print(f"FAIL: {e}")
        return 1
    listed = examples(source_dir)
    if args.only:
        listed = [(name, cut) for name, cut in listed if re.search(
            rf'^solver = "{re.escape(args.only)}"', open(os.path.join(
                source_dir, "inputs", name + ".toml"), encoding="utf-8").read(), re.M)]
    else:
        assert len(listed) >= 10, f"found only {len(listed)} examples under inputs/"
        assert sum(1 for _, cut in listed if cut) >= 5, "read too few cuts from examples_test.cpp"
    cases = small_cases(parasol)
    if args.only:
        cases = {s: case for s, case in cases.items() if s == args.only}
        assert cases, f"parasol solvers does not list {args.only}"
    problems = [f"solver {s} lists no example (`parasol solvers`): its --check run and CPU sweep "
                f"are not judged" for s, case in sorted(cases.items()) if case is None]
    small = {s: case for s, case in cases.items() if case is not None}
    with tempfile.TemporaryDirectory() as work:
        shutil.copytree(os.path.join(source_dir, "inputs"), os.path.join(work, "inputs"))
        os.mkdir(os.path.join(work, "results"))
        runs = [(name, f"run inputs/{name}.toml --backend cpu {overrides}", False, "")
                for name, overrides in listed]
        for solver, (example, overrides) in small.items():
            runs.append((f"{solver}-check", f"run inputs/{example}.toml --backend cpu {overrides} "
                                            "--check", True, ""))
            if launch:
                runs.append((f"{solver}-ranks", f"run inputs/{example}.toml --backend cpu "
                                                f"{overrides} --check", True, launch))
            runs.append((f"{solver}-sweep", f"sweep inputs/{example}.toml --backend cpu "
                                            f"{overrides} sweep.repeats=1", False, ""))
        judged = 0
        for name, args, check, launcher in runs:
            out = f"results/{name}.h5"
            r = subprocess.run(f"{launcher} {parasol} {args} -o {out}", shell=True, cwd=work,
                               capture_output=True, text=True)
            if launcher and r.returncode == 2 and "runs on one rank" in r.stderr + r.stdout:
                # A solver that refuses a launcher (no ranks yet) writes no file across ranks.
                print(f"{name}: not judged, the solver runs on one rank")
                continue
            if r.returncode != 0:
                problems.append(f"{name}: `parasol {args}` exited {r.returncode}: "
                                f"{(r.stderr or r.stdout).strip()[-400:]}")
                continue
            problems += judge(doc, tables, os.path.join(work, out), check=check)
            judged += 1
        coulomb = os.path.join(work, "results", "coulomb-check.h5")
        if os.path.exists(coulomb):
            problems += self_check(doc, tables, coulomb)
    for p in problems:
        print("FAIL:", p)
    print(f"{judged} result files judged against {sum(len(t) for t in tables.values())} layout "
          f"tables; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
