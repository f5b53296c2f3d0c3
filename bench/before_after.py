#!/usr/bin/env python3
"""bench/before_after.sh's arithmetic on Google Benchmark's JSON files in OUT.

    before_after.py slower OUT PROGRAM...   rows over 2 % slower: "PROGRAM ROW-REGEX" a line
    before_after.py table OUT PROGRAM...    per program: rows, median and worst after/before;
                                            then every row still over 2 % slower once run again
"""
import glob
import json
import os
import re
import statistics
import sys

LIMIT = 1.02
UNIT = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def parsed(text):
    """Google Benchmark's JSON, or as much of it as a program stopped part way wrote: the
    benchmarks finished before the stop (the file cut after the last whole row and closed)."""
    start = text.find("{")
    if start < 0:
        return {}
    text = text[start:]
    try:
        return json.loads(text)
    except ValueError:
        pass
    end = text.rfind("\n    }")
    if end < 0:
        return {}
    try:
        return json.loads(text[:end + 6] + "\n  ]\n}")
    except ValueError:
        return {}


def rows(path):
    """name -> real time in ns, of the iteration rows that ran."""
    if not os.path.exists(path):
        return {}
    data = parsed(open(path, errors="replace").read())
    found = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
            continue
        found[b["name"]] = b["real_time"] * UNIT[b.get("time_unit", "ns")]
    return found


def ratios(out, program):
    old, new = rows(f"{out}/{program}-old.json"), rows(f"{out}/{program}-new.json")
    return {n: new[n] / old[n] for n in old if n in new and old[n] > 0}


def again(out, program, name):
    """The re-runs' medians, after over before, or None when there were none."""
    times = {"old": [], "new": []}
    for side in times:
        for path in glob.glob(f"{out}/again-{program}-{side}-*.json"):
            t = rows(path).get(name)
            if t is not None:
                times[side].append(t)
    if not times["old"] or not times["new"]:
        return None
    return statistics.median(times["new"]) / statistics.median(times["old"])


def filter_escaped(name):
    """A row's name as a --benchmark_filter matching it alone. Only the characters special to both
    of Google Benchmark's regex engines (std::regex, POSIX extended) are escaped: re.escape's
    "\\-" is an error to them, and the row then never runs again."""
    return re.sub(r"([.^$|()\[\]{}*+?\\])", r"\\\1", name)


def main():
    what, out, programs = sys.argv[1], sys.argv[2], sys.argv[3:]
    if what == "slower":
        for program in programs:
            for name, r in ratios(out, program).items():
                if r > LIMIT:
                    print(program, "^" + filter_escaped(name) + "$")
        return 0
    still = []
    print(f"{'program':<20} {'rows':>5} {'median':>7} {'worst':>7}  worst row (after/before, first pass)")
    for program in programs:
        r = ratios(out, program)
        if not r:
            print(f"{program:<20} {'-':>5}  no rows in both builds")
            continue
        worst = max(r, key=r.get)
        print(f"{program:<20} {len(r):>5} {statistics.median(r.values()):7.3f} {r[worst]:7.3f}  {worst[:60]}")
        for name, x in r.items():
            if x > LIMIT:
                y = again(out, program, name)
                if y is None or y > LIMIT:
                    still.append((program, name, x, y))
    print(f"rows over {100 * (LIMIT - 1):.0f} % slower after five alternating re-runs: {len(still)}")
    for program, name, x, y in still:
        print(f"  {program} {name[:70]}  {x:.3f} then {'-' if y is None else f'{y:.3f}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
