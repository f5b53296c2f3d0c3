#!/usr/bin/env python3
"""Whether two Parasol result files hold the same results, bit for bit.

    tools/same_results.py A.h5 B.h5 [--ignore GROUP ...]

Compares every group, dataset (type, shape and bytes) and attribute of the two files, leaving out
/provenance and /timings (when and where a run was made, and how long it took) and any group
named with --ignore. Prints what differs and exits 1 when anything does, 0 when nothing does.
Needs h5py and numpy (Debian: /usr/bin/python3 with python3-h5py).
"""
import argparse
import sys

import h5py
import numpy as np

UNTIMED = ("provenance", "timings")


def same_value(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "OSU":  # strings: compare as values
        return bool(np.all(a == b))
    return a.tobytes() == b.tobytes()


def attribute_differences(name, a, b):
    out = []
    for key in sorted(set(a.attrs) | set(b.attrs)):
        if key not in a.attrs or key not in b.attrs:
            out.append(f"{name}: attribute {key} only in {'the second' if key in b.attrs else 'the first'}")
        elif not same_value(a.attrs[key], b.attrs[key]):
            out.append(f"{name}: attribute {key}: {a.attrs[key]!r} against {b.attrs[key]!r}")
    return out


def differences(a, b, ignored):
    out = attribute_differences("/", a, b)
    names = {}
    for f, which in ((a, 0), (b, 1)):
        f.visititems(lambda n, o, which=which: names.setdefault(n, [None, None]).__setitem__(which, o))
    for name in sorted(names):
        if name.split("/")[0] in ignored:
            continue
        x, y = names[name]
        if x is None or y is None:
            out.append(f"/{name}: only in the {'second' if x is None else 'first'} file")
            continue
        if isinstance(x, h5py.Dataset) != isinstance(y, h5py.Dataset):
            out.append(f"/{name}: a dataset in one file and a group in the other")
            continue
        if isinstance(x, h5py.Dataset):
            if x.dtype != y.dtype or x.shape != y.shape:
                out.append(f"/{name}: {x.dtype}{x.shape} against {y.dtype}{y.shape}")
            elif not same_value(x[()], y[()]):
                out.append(f"/{name}: values differ")
        out.extend(attribute_differences("/" + name, x, y))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--ignore", action="append", default=[], metavar="GROUP",
                        help="a top-level group to leave out, besides provenance and timings")
    args = parser.parse_args()
    with h5py.File(args.first, "r") as a, h5py.File(args.second, "r") as b:
        found = differences(a, b, set(UNTIMED) | set(args.ignore))
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
