#!/usr/bin/env python3
"""Plots of a laplace3d `parasol sweep` result file.

    python3 docs/plots/plot_sweep.py SWEEP.h5 FOLDER

writes two PNG files into FOLDER (made if need be), named after the sweep file:
  <name>-heatmap.png   GB/s of every block shape, one panel per variant: bx across, by down
                       when every shape of the variant is one plane thick (z = 1), else the
                       shapes in a row; one colour scale for all panels, topped by the copy
                       bandwidth, so colours compare across variants;
  <name>-roofline.png  the best GB/s of each variant (its block shape and % of the copy above
                       the bar) beside the device-to-device copy measured in the same sweep,
                       which bounds a single sweep; a kernel that does several iterations per
                       pass over memory can pass it.
Rows that failed their check against the gold are shown as failed and never count as best.

Needs h5py and matplotlib (Debian: python3-h5py python3-matplotlib). The file layout is
docs/hdf5-layout.md. Exit status: 0 done, 2 bad input (one line naming the file), 1 otherwise.
"""

import argparse
import importlib
import math
import os
import sys

PROG = "plot_sweep.py"


class InputError(Exception):
    """A file that is not a laplace3d sweep: reported on one line, exit status 2."""


def parse_shape(text):
    """'32x8x1' -> (32, 8, 1)"""
    try:
        dims = tuple(int(d) for d in text.split("x"))
    except ValueError:
        dims = ()
    if len(dims) != 3 or min(dims) < 1:
        raise InputError(f"block {text!r} is not a shape like 32x8x1")
    return dims


class Sweep:
    """The /sweep table and what the plots' titles need."""

    def __init__(self, path):
        import h5py  # here, not at the top, so that --help works without it

        try:
            f = h5py.File(path, "r")
        except (OSError, ValueError) as e:
            raise InputError(f"{path}: cannot read it as HDF5 ({e})") from None
        with f:
            solver = f.attrs.get("solver")
            if solver != "laplace3d":
                raise InputError(f"{path}: solver is {solver!r}: this plots laplace3d sweeps")
            table = f.get("sweep")
            columns = ("variant", "block", "gb_per_s")
            if not isinstance(table, h5py.Group) or any(c not in table for c in columns):
                raise InputError(f"{path}: no /sweep table with variant, block and gb_per_s: "
                                 "not written by `parasol sweep`")
            self.variants = [str(v) for v in table["variant"].asstr()[...]]
            try:
                self.blocks = [parse_shape(b) for b in table["block"].asstr()[...]]
            except InputError as e:
                raise InputError(f"{path}: /sweep/block: {e}") from None
            self.gb_per_s = [float(g) for g in table["gb_per_s"][...]]
            rows = len(self.variants)
            self.passed = ([bool(p) for p in table["passed"][...]] if "passed" in table
                           else [True] * rows)
            if not (len(self.blocks) == len(self.gb_per_s) == len(self.passed) == rows) or not rows:
                raise InputError(f"{path}: /sweep columns are empty or of different lengths")
            copy = table.attrs.get("copy_bandwidth_gb_per_s")
            self.copy = float(copy) if copy is not None else None
            bytes_per_point = table.attrs.get("bytes_per_point")
            self.bytes_per_point = float(bytes_per_point) if bytes_per_point is not None else None
            provenance = f["provenance"].attrs if "provenance" in f else {}
            parameters = f["parameters"].attrs if "parameters" in f else {}
            self.device = str(provenance.get("device_name", "unknown device"))
            self.grid = "x".join(str(parameters.get(f"grid.{k}", "?")) for k in ("nx", "ny", "nz"))
            self.precision = str(parameters.get("method.precision", "?"))

    def variant_names(self):
        """Variants in the order the sweep ran them."""
        return list(dict.fromkeys(self.variants))

    def rows_of(self, variant):
        return [i for i, v in enumerate(self.variants) if v == variant]

    def best(self, variant):
        """The row of the variant's highest GB/s among those that passed, or None."""
        rows = [i for i in self.rows_of(variant)
                if self.passed[i] and math.isfinite(self.gb_per_s[i])]
        return max(rows, key=lambda i: self.gb_per_s[i]) if rows else None

    def title(self, what):
        return f"laplace3d sweep, {self.grid} {self.precision}, {self.device}: {what}"


def save(figure, path):
    """Written under a temporary name and renamed, so a failed run leaves no half-written PNG."""
    folder, name = os.path.split(path)
    temporary = os.path.join(folder or ".", f".{name}.tmp-{os.getpid()}")
    try:
        figure.savefig(temporary, format="png", dpi=150, bbox_inches="tight")
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def heatmap(sweep, path):
    import matplotlib.pyplot as plt
    import numpy as np

    names = sweep.variant_names()
    columns = min(3, len(names))
    rows = math.ceil(len(names) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.6 * columns, 3.6 * rows), squeeze=False,
                                constrained_layout=True)
    # One scale for every panel, from 0 to the copy (or the fastest row, if that is higher).
    top = max([g for g, p in zip(sweep.gb_per_s, sweep.passed) if p and math.isfinite(g)] +
              [sweep.copy or 0.0, 1.0])
    colours = plt.get_cmap("viridis")
    image = None
    for ax, variant in zip(axes.flat, names):
        shown = sweep.rows_of(variant)
        blocks = [sweep.blocks[i] for i in shown]
        if all(b[2] == 1 for b in blocks):
            xs = sorted({b[0] for b in blocks})
            ys = sorted({b[1] for b in blocks})
            cell = {i: (ys.index(sweep.blocks[i][1]), xs.index(sweep.blocks[i][0])) for i in shown}
            ax.set_xticks(range(len(xs)), [str(x) for x in xs])
            ax.set_yticks(range(len(ys)), [str(y) for y in ys])
            ax.set_xlabel("block x")
            ax.set_ylabel("block y")
            shape = (len(ys), len(xs))
        else:
            # Shapes in three dimensions: no plane to lay them out on, so one row in sweep order.
            cell = {i: (0, k) for k, i in enumerate(shown)}
            ax.set_xticks(range(len(shown)), ["x".join(map(str, b)) for b in blocks],
                          rotation=30 if len(shown) > 4 else 0)
            ax.set_yticks([])
            ax.set_xlabel("block")
            shape = (1, len(shown))
        values = np.full(shape, np.nan)
        for i, (r, c) in cell.items():
            if sweep.passed[i]:
                values[r, c] = sweep.gb_per_s[i]
        image = ax.imshow(np.ma.masked_invalid(values), cmap=colours, vmin=0, vmax=top,
                          origin="lower", aspect="auto")
        ax.set_facecolor("0.85")  # not compiled, not listed, or failed
        best = sweep.best(variant)
        for i, (r, c) in cell.items():
            if not sweep.passed[i]:
                text, colour = "failed", "black"
            else:
                text = f"{sweep.gb_per_s[i]:.0f}"
                if sweep.copy:
                    text += f"\n{100 * sweep.gb_per_s[i] / sweep.copy:.0f}%"
                colour = "black" if sweep.gb_per_s[i] > 0.6 * top else "white"
            weight = "bold" if i == best else "normal"
            ax.text(c, r, text, ha="center", va="center", color=colour, fontsize=8,
                    fontweight=weight)
        ax.set_title(variant)
    for ax in list(axes.flat)[len(names):]:
        ax.set_visible(False)
    label = "GB/s (% of copy below; best in bold)" if sweep.copy else "GB/s (best in bold)"
    figure.colorbar(image, ax=axes.ravel().tolist(), label=label, shrink=0.9)
    figure.suptitle(sweep.title("GB/s by block shape"), fontsize=10)
    save(figure, path)
    plt.close(figure)


def roofline(sweep, path):
    import matplotlib.pyplot as plt

    names = sweep.variant_names()
    best = {v: sweep.best(v) for v in names}
    labels = names + (["copy"] if sweep.copy else [])
    heights = [sweep.gb_per_s[best[v]] if best[v] is not None else 0.0 for v in names]
    if sweep.copy:
        heights.append(sweep.copy)
    colours = ["tab:blue"] * len(names) + (["tab:gray"] if sweep.copy else [])
    figure, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(labels) + 2.0), 4.2),
                              constrained_layout=True)
    bars = ax.bar(range(len(labels)), heights, color=colours)
    ax.set_xticks(range(len(labels)), labels)
    for bar, v in zip(bars, names):
        i = best[v]
        if i is None:
            note = "none\npassed"
        else:
            block = "x".join(map(str, sweep.blocks[i]))
            note = block + (f"\n{100 * sweep.gb_per_s[i] / sweep.copy:.1f}%" if sweep.copy else "")
        ax.annotate(note, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center",
                    va="bottom", fontsize=8, xytext=(0, 2), textcoords="offset points")
    if sweep.copy:
        ax.axhline(sweep.copy, color="tab:gray", linestyle="--", linewidth=1,
                   label=f"copy, {sweep.copy:.0f} GB/s: the roofline of a single sweep")
        ax.legend(loc="upper left", fontsize=8, frameon=False)
        what = "best GB/s per variant beside the copy bandwidth"
    else:
        what = "best GB/s per variant (no copy bandwidth in the file)"
    ax.set_ylabel("GB/s (bytes read + written per sweep / time)")
    ax.set_ylim(0, 1.18 * max(heights + [1.0]))
    if sweep.bytes_per_point:
        per_point = sweep.bytes_per_point
        secondary = ax.secondary_yaxis("right", functions=(lambda g: g / per_point,
                                                           lambda p: p * per_point))
        secondary.set_ylabel(f"Gpoints/s (at {per_point:g} bytes/point)")
    ax.set_title(sweep.title(what), fontsize=10)
    save(figure, path)
    plt.close(figure)


def main(argv):
    parser = argparse.ArgumentParser(
        prog=PROG, description="Heatmap and roofline PNGs of a laplace3d `parasol sweep` file.")
    parser.add_argument("sweep", help="the sweep's HDF5 result, e.g. laplace3d-512-sweep.h5")
    parser.add_argument("folder", help="where the PNG files go (made if need be)")
    args = parser.parse_args(argv)
    try:
        for module in ("h5py", "matplotlib", "numpy"):
            importlib.import_module(module)
    except ImportError as e:
        print(f"{PROG}: needs h5py and matplotlib (Debian: python3-h5py python3-matplotlib): {e}",
              file=sys.stderr)
        return 1
    import matplotlib

    matplotlib.use("Agg")  # files only: no display is needed or wanted
    try:
        if not os.path.isfile(args.sweep):
            raise InputError(f"{args.sweep}: no such file")
        sweep = Sweep(args.sweep)
        if os.path.exists(args.folder) and not os.path.isdir(args.folder):
            raise InputError(f"{args.folder}: not a folder")
    except InputError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.folder, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.sweep))[0]
    written = [os.path.join(args.folder, f"{stem}-heatmap.png"),
               os.path.join(args.folder, f"{stem}-roofline.png")]
    heatmap(sweep, written[0])
    roofline(sweep, written[1])
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
