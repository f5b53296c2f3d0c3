#!/usr/bin/env python3
"""Plots of any solver's `parasol sweep` result file.

    python3 tools/plot_sweep.py SWEEP.h5 [FOLDER | -o FOLDER]

writes PNG files into FOLDER (default: the current folder; made if need be), named after the
sweep file. A GPU sweep (variants, block shapes, ...):
  <name>-heatmap.png    the rate of every configuration (Gpoints/s, G path-steps/s, ...), one panel
                        per variant: a heatmap over the first two axes that vary within the
                        variant (further axes folded into the rows; each cell says the spread of
                        its timed repeats, ±%), or bars with the repeats' fastest and slowest as
                        error bars where only one axis varies; a block shape axis ("32x8x1")
                        alone is laid out as block x across, block y down when only those two
                        vary. One colour scale for all panels, so colours compare across variants;
                        the best configuration of each variant is in bold.
  <name>-roofline.png   every configuration's percent of the ceiling measured in the same sweep
                        (the copy bandwidth, the rsqrt throughput, ...), with the repeats' spread
                        as error bars; only where the solver has a roofline.
  <name>-occupancy.png  where the sweep has occupancy (every GPU sweep records its main kernel's,
                        `occupancy_percent`, with the resource that limits it, `limiter`):
                        theoretical occupancy against rate, one colour per variant, one marker
                        per limiting resource.
A CPU sweep (`parasol sweep --backend cpu`: the CPU solver at 1, 2, 4, ... threads):
  <name>-threads.png    the rate against threads, and the speedup over one thread against
                        threads beside the ideal (speedup = threads), each point with the timed
                        repeats' fastest and slowest as error bars and its parallel efficiency.
Configurations that failed (no timing) and those whose check against the gold failed are drawn
hatched, in grey and red, and never count as best; cells of a heatmap that the sweep did not time
are left blank. Each figure names the solver, the problem's size, the rate's unit and the device.

The table is read by the roles the `/sweep` attributes give its columns (`axis_columns`,
`rate_column`, `roofline_column`, `throughput_column`, `check_column`, `extra_columns`), so every
solver's sweep plots alike; a sweep file from before those attributes is read by its column names.
Where a file records no rate (a CPU sweep of a solver that does not count its work), runs per
second (1 / median_s) are plotted and the figures say so.

Needs h5py and matplotlib (Debian: python3-h5py python3-matplotlib). The file layout is
docs/hdf5-layout.md. Exit status: 0 done, 2 bad input (one line naming the file), 1 otherwise.
"""

import argparse
import importlib
import math
import os
import sys

PROG = "plot_sweep.py"

# Rate and throughput columns whose unit the generic rule ("g<thing>_per_s" -> "G <thing>/s")
# would spell badly.
UNITS = {"gpoints_per_s": "Gpoints/s", "gb_per_s": "GB/s"}
# The ceilings of the roofline columns ("percent_of_<ceiling>"), in words.
CEILINGS = {"copy": "device-to-device copy bandwidth", "rsqrt": "rsqrtf throughput"}
# Axis and rate columns of sweep files written before the role attributes (laplace3d's).
LEGACY_AXES = ("variant", "block", "ordering", "threads", "chunk", "coarsening", "mode")
OCCUPANCY = ("occupancy_percent", "occupancy", "theoretical_occupancy")
# One marker per limiting resource in the occupancy scatter.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

# How each configuration came out, drawn alike in every figure.
GOOD, CHECK_FAILED, FAILED, NO_RATE = "good", "check failed", "failed", "no rate"
STYLE = {
    CHECK_FAILED: dict(facecolor="#f4a6a6", edgecolor="tab:red", hatch="//",
                       label="check against the gold failed (timed, not counted)"),
    FAILED: dict(facecolor="0.8", edgecolor="0.35", hatch="xx",
                 label="failed: no timing (did not launch or run)"),
    NO_RATE: dict(facecolor="0.92", edgecolor="0.5", hatch="..",
                  label="timed, but no rate recorded"),
}
UNTIMED = dict(facecolor="white", edgecolor="0.6", label="blank: not in the sweep (untimed)")


class InputError(Exception):
    """A file that is not a sweep: reported on one line, exit status 2."""


def unit(column):
    """'gpath_steps_per_s' -> 'G path-steps/s'"""
    if column in UNITS:
        return UNITS[column]
    stem = column[:-len("_per_s")] if column.endswith("_per_s") else column
    if stem.startswith("g") and column.endswith("_per_s"):
        return "G " + stem[1:].replace("_", "-") + "/s"
    return stem.replace("_", " ") + ("/s" if column.endswith("_per_s") else "")


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def names(attribute):
    """A role attribute as a list: 'variant, block' (as written) or an array of names."""
    if attribute is None:
        return None
    if isinstance(attribute, (str, bytes)):
        return [n.strip() for n in text(attribute).split(",") if n.strip()]
    return [text(n).strip() for n in attribute if text(n).strip()]


def shape(value):
    """'32x8x1' -> (32, 8, 1); None for anything else ('-', 256)."""
    if not isinstance(value, str) or "x" not in value:
        return None
    try:
        dims = tuple(int(d) for d in value.split("x"))
    except ValueError:
        return None
    return dims if dims and min(dims) >= 1 else None


def number(v):
    """A rate for a cell: three significant figures, no exponent below 10^5."""
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 0.01:
        return f"{v:.2f}"
    return f"{v:.2g}"


class Sweep:
    """The /sweep table read by its columns' roles, and what the plots' titles need."""

    def __init__(self, path):
        import h5py  # here, not at the top, so that --help works without it
        import numpy as np

        try:
            f = h5py.File(path, "r")
        except (OSError, ValueError) as e:
            raise InputError(f"{path}: cannot read it as HDF5 ({e})") from None
        with f:
            table = f.get("sweep")
            if not isinstance(table, h5py.Group) or not len(table):
                raise InputError(f"{path}: no /sweep table: not a file written by `parasol sweep`")
            self.solver = text(f.attrs.get("solver", "unknown solver"))
            attrs = table.attrs
            self.attrs = {k: attrs[k] for k in attrs}
            columns = {}
            for key, dataset in table.items():
                if not isinstance(dataset, h5py.Dataset) or dataset.ndim != 1:
                    continue
                if h5py.check_string_dtype(dataset.dtype) or dataset.dtype.kind in "SO":
                    columns[key] = [text(v) for v in dataset[...]]
                elif dataset.dtype.kind in "iu":
                    columns[key] = [int(v) for v in dataset[...]]
                elif dataset.dtype.kind == "f":
                    columns[key] = [float(v) for v in dataset[...]]
            self.columns = columns

            # The roles: from the attributes, else (files from before them) from the names.
            self.axes = names(attrs.get("axis_columns"))
            if self.axes is None:
                self.axes = [c for c in LEGACY_AXES if c in columns]
            self.rate = text(attrs["rate_column"]) if "rate_column" in attrs else next(
                (c for c in ("gpoints_per_s", "gb_per_s") if c in columns), None)
            self.roofline = text(attrs["roofline_column"]) if "roofline_column" in attrs else (
                "percent_of_copy" if "rate_column" not in attrs and "percent_of_copy" in columns
                else None)
            self.throughput = (text(attrs["throughput_column"]) if "throughput_column" in attrs
                               else None)
            self.check = text(attrs["check_column"]) if "check_column" in attrs else None
            self.extras = names(attrs.get("extra_columns")) or []
            self.kernel_columns = names(attrs.get("kernel_columns")) or []
            needed = self.axes + [c for c in (self.rate, self.roofline) if c]
            missing = [c for c in needed if c not in columns]
            if not self.axes or not self.rate or missing:
                what = (f"column {missing[0]!r} named by its attributes is missing" if missing
                        else "no axis or rate column")
                raise InputError(f"{path}: /sweep: {what}: not a table written by `parasol sweep`")
            rows = len(columns[self.axes[0]])
            lengths = {len(columns[c]) for c in needed + ["median_s", "passed"] if c in columns}
            if not rows or lengths != {rows}:
                raise InputError(f"{path}: /sweep columns are empty or of different lengths")
            self.rows = rows

            provenance = f["provenance"].attrs if "provenance" in f else {}
            parameters = f["parameters"].attrs if "parameters" in f else {}
            self.device = text(provenance.get("device_name", "unknown device"))
            backend = self.attrs.get("backend", provenance.get("backend", "gpu"))
            self.backend = text(backend)
            self.problem = self.describe(parameters)
            threads = columns.get("threads")
            self.cpu = self.backend == "cpu" and threads is not None and self.axes[-1] == "threads"

        nan = float("nan")
        rate = columns[self.rate]
        median = columns.get("median_s", [nan if not math.isfinite(r) else 1.0 for r in rate])
        passed = columns.get("passed", [1] * rows)
        # A file with no rate at all (a CPU sweep of a solver that does not count its work):
        # runs per second, from the median.
        self.rate_missing = not any(math.isfinite(r) for r in rate) and any(
            math.isfinite(m) and m > 0 for m in median)
        if self.rate_missing:
            self.value = [1.0 / m if math.isfinite(m) and m > 0 else nan for m in median]
            self.unit = "runs/s"
            self.note = f" (the file records no {unit(self.rate)}: runs/s = 1 / median time)"
        else:
            self.value = list(rate)
            self.unit = unit(self.rate)
            self.note = ""
        self.state = []
        for i in range(rows):
            if not math.isfinite(median[i]):
                self.state.append(FAILED)
            elif not passed[i]:
                self.state.append(CHECK_FAILED)
            elif not math.isfinite(self.value[i]):
                self.state.append(NO_RATE)
            else:
                self.state.append(GOOD)
        self.percent = columns[self.roofline] if self.roofline else None
        # Each row's rate at its fastest and slowest timed repeat (a rate scales as 1 / time);
        # from the spread about the median where the file has no min_s, max_s.
        fastest, slowest = columns.get("min_s"), columns.get("max_s")
        spread = columns.get("spread_percent")
        self.low, self.high = [], []
        for i in range(rows):
            v, m = self.value[i], median[i]
            if fastest and slowest and math.isfinite(m) and fastest[i] > 0 and slowest[i] > 0:
                self.low.append(v * m / slowest[i])
                self.high.append(v * m / fastest[i])
            elif spread and math.isfinite(spread[i]):
                self.low.append(v * (1 - spread[i] / 200))
                self.high.append(v * (1 + spread[i] / 200))
            else:
                self.low.append(v)
                self.high.append(v)
        self.spread = spread
        # Axes with one value over the whole sweep (`backend` of a CPU sweep) go to the title.
        self.fixed = {a: columns[a][0] for a in self.axes
                      if a != "variant" and len(set(columns[a])) == 1}
        self.free = [a for a in self.axes if a != "variant" and a not in self.fixed]
        self.np = np

    def describe(self, parameters):
        """The problem's size in words, from the parameters and the sweep's attributes:
        '512x512x512 grid, float', '2048x2048x1 lattice, 1673 atoms', '64 systems of 1024'."""
        p = {k: (text(v) if isinstance(v, bytes) else v) for k, v in parameters.items()}
        a = self.attrs
        words = []
        for group, noun in (("grid", "grid"), ("lattice", "lattice")):
            if all(f"{group}.{k}" in p for k in ("nx", "ny", "nz")):
                words.append("x".join(str(p[f"{group}.{k}"]) for k in ("nx", "ny", "nz")) +
                             f" {noun}")
        if "atoms" in a:
            words.append(f"{int(a['atoms'])} atoms")
        kind = p.get("problem.kind", p.get("model.kind"))
        if kind == "heat" and "heat.grids" in p:
            words.append(f"{p['heat.grids']} systems of {p.get('heat.points', '?')}, "
                         f"{p.get('heat.steps', '?')} steps")
        elif "systems" in a and "n" in a:
            words.append(f"{int(a['systems'])} systems of {int(a['n'])}")
        if kind == "ar1" and "ar1.length" in p:
            series = int(p.get("ar1.series", 1))
            words.append(f"{series} x {p['ar1.length']} elements" if series > 1
                         else f"{p['ar1.length']} elements")
        elif "elements" in a:
            words.append(f"{int(a['elements'])} elements")
        if "signal.length" in p or "signal.rows" in p:
            batch = int(p.get("signal.batch", 1))
            rows = int(p.get("signal.rows", 1))
            extent = (f"{rows}x{p.get('signal.cols', '?')}" if rows > 1
                      else str(p.get("signal.length", "?")))
            words.append((f"{batch} x " if batch > 1 else "") + f"{extent} samples")
        if "paths.count" in p:
            words.append(f"{p['paths.count']} paths x {p.get('paths.steps', '?')} steps")
        if "assets" in a:
            words.append(f"{int(a['assets'])} assets")
        for key in sorted(p):
            if key.endswith(".precision"):
                words.append(text(p[key]))
                break
        return ", ".join(words)

    def variant_names(self):
        """Variants in the order the sweep ran them; [None] where the sweep has no variant axis."""
        if "variant" not in self.axes:
            return [None]
        return list(dict.fromkeys(self.columns["variant"]))

    def rows_of(self, variant):
        if variant is None:
            return list(range(self.rows))
        return [i for i, v in enumerate(self.columns["variant"]) if v == variant]

    def best(self, rows):
        good = [i for i in rows if self.state[i] == GOOD]
        return max(good, key=lambda i: self.value[i]) if good else None

    def label(self, i, axes=None, variant=True):
        """A configuration in words: 'zreg 32x8x1', 'pcr-shared threads 256, chunk 4'."""
        parts = []
        for a in (self.free if axes is None else axes):
            v = self.columns[a][i]
            if v == "-":
                continue
            parts.append(str(v) if isinstance(v, str) else f"{a} {v}")
        words = ", ".join(parts)
        if variant and "variant" in self.axes:
            words = f"{self.columns['variant'][i]} {words}".strip()
        return words or "(one configuration)"

    def title(self, what):
        where = [self.device] if self.device.lower() != "cpu" else []
        if self.backend == "cpu":
            where.insert(0, "CPU backend")
        problem = f", {self.problem}" if self.problem else ""
        fixed = "".join(f", {a} {v}" for a, v in self.fixed.items() if a != "backend")
        return f"{self.solver} sweep{problem}{fixed} ({', '.join(where)}): {what}"

    def ceiling(self):
        """'device-to-device copy bandwidth, 2990 GB/s' for the roofline column, in words."""
        name = self.roofline[len("percent_of_"):] if self.roofline.startswith("percent_of_") else (
            self.roofline)
        words = CEILINGS.get(name, name.replace("_", " "))
        for key, value in self.attrs.items():
            if key.startswith(name) and key.endswith("_per_s"):
                value = float(value)
                if key.endswith("_gb_per_s"):
                    return f"{words}, {value:.0f} GB/s"
                return f"{words}, {number(value * 1e-9)} G/s"
        return words


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


def legend_handles(states, blank=False, extra=()):
    from matplotlib.patches import Patch

    handles = [Patch(**STYLE[s]) for s in (CHECK_FAILED, FAILED, NO_RATE) if s in states]
    if blank:
        handles.append(Patch(**UNTIMED))
    return list(extra) + handles


def ordered(values):
    """Distinct values in sweep order, numbers and shapes sorted."""
    distinct = list(dict.fromkeys(values))
    if all(isinstance(v, (int, float)) for v in distinct):
        return sorted(distinct)
    if all(shape(v) for v in distinct):
        return sorted(distinct, key=lambda v: shape(v)[::-1])
    return distinct


def layout(sweep, rows, by_variant):
    """How one panel lays out its rows: (kind, x labels, y labels, cell of each row, x name,
    y name). kind is 'grid' (a heatmap) or 'bars'."""
    varying = [a for a in sweep.free if len({sweep.columns[a][i] for i in rows}) > 1]
    if len(varying) == 1:
        a = varying[0]
        shapes = [shape(sweep.columns[a][i]) for i in rows]
        if all(shapes) and len({len(s) for s in shapes}) == 1:
            dims = [d for d in range(len(shapes[0])) if len({s[d] for s in shapes}) > 1]
            if len(dims) == 2:  # a block shape in a plane: block x across, block y down
                dx, dy = dims
                xs = sorted({s[dx] for s in shapes})
                ys = sorted({s[dy] for s in shapes})
                cells = {i: (ys.index(s[dy]), xs.index(s[dx])) for i, s in zip(rows, shapes)}
                return ("grid", [str(x) for x in xs], [str(y) for y in ys], cells,
                        f"{a} {'xyzw'[dx]}", f"{a} {'xyzw'[dy]}")
    if len(varying) >= 2:
        across, down = varying[0], varying[1:]
        xs = ordered([sweep.columns[across][i] for i in rows])
        key = lambda i: tuple(sweep.columns[a][i] for a in down)  # noqa: E731
        ys = list(dict.fromkeys(sorted((key(i) for i in rows),
                                       key=lambda k: tuple(ordered_key(v) for v in k))))
        cells = {i: (ys.index(key(i)), xs.index(sweep.columns[across][i])) for i in rows}
        return ("grid", [str(x) for x in xs], [", ".join(map(str, y)) for y in ys], cells,
                across, ", ".join(down))
    if varying:
        a = varying[0]
        xs = ordered([sweep.columns[a][i] for i in rows])
        cells = {i: (0, xs.index(sweep.columns[a][i])) for i in rows}
        return "bars", [str(x) for x in xs], None, cells, a, None
    # Nothing varies within the panel: one bar per row (a sweep with variants alone: all of them).
    cells = {i: (0, k) for k, i in enumerate(rows)}
    return ("bars", [sweep.label(i, variant=not by_variant) for i in rows], None, cells,
            "configuration", None)


def ordered_key(v):
    s = shape(v)
    if s:
        return (1, s[::-1], "")
    if isinstance(v, (int, float)):
        return (0, (v,), "")
    return (2, (), str(v))


def hatched(ax, x, y, width, height, state):
    from matplotlib.patches import Rectangle

    ax.add_patch(Rectangle((x, y), width, height, linewidth=0.8,
                           **{k: v for k, v in STYLE[state].items() if k != "label"}))


def heatmap(sweep, path):
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize

    np = sweep.np
    variants = sweep.variant_names()
    panels = [(v, sweep.rows_of(v)) for v in variants]
    if variants != [None] and not sweep.free:
        panels = [(None, list(range(sweep.rows)))]  # variants alone: one panel of them all
    columns = min(3, len(panels))
    rows = math.ceil(len(panels) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.8 * columns, 3.9 * rows), squeeze=False,
                                constrained_layout=True)
    good = [sweep.value[i] for i in range(sweep.rows) if sweep.state[i] == GOOD]
    top = max(good) if good else 1.0
    norm = Normalize(vmin=0, vmax=top)
    colours = plt.get_cmap("viridis")
    blank = False
    for ax, (variant, shown) in zip(axes.flat, panels):
        kind, xs, ys, cells, xname, yname = layout(sweep, shown, variant is not None)
        best = sweep.best(shown)
        if kind == "grid":
            values = np.full((len(ys), len(xs)), np.nan)
            for i, (r, c) in cells.items():
                if sweep.state[i] == GOOD:
                    values[r, c] = sweep.value[i]
            ax.imshow(np.ma.masked_invalid(values), cmap=colours, norm=norm, origin="lower",
                      aspect="auto")
            ax.set_facecolor("white")
            blank = blank or len(cells) < len(xs) * len(ys)
            for i, (r, c) in cells.items():
                state = sweep.state[i]
                if state != GOOD:
                    hatched(ax, c - 0.5, r - 0.5, 1, 1, state)
                    words, colour = state.replace(" ", "\n"), "black"
                else:
                    words = number(sweep.value[i])
                    if sweep.percent is not None:
                        words += f"\n{sweep.percent[i]:.0f}%"
                    if sweep.spread and math.isfinite(sweep.spread[i]):
                        words += f"\n±{sweep.spread[i] / 2:.1f}%"
                    colour = "black" if sweep.value[i] > 0.6 * top else "white"
                ax.text(c, r, words, ha="center", va="center", color=colour, fontsize=7.5,
                        fontweight="bold" if i == best else "normal")
            ax.set_xticks(range(len(xs)), xs, rotation=30 if len(xs) > 5 else 0)
            ax.set_yticks(range(len(ys)), ys)
            ax.set_xlim(-0.5, len(xs) - 0.5)
            ax.set_ylim(-0.5, len(ys) - 0.5)
            ax.set_xlabel(xname)
            ax.set_ylabel(yname)
        else:
            lowest = 0.04 * top
            for i, (_, c) in cells.items():
                state = sweep.state[i]
                if state == GOOD:
                    height = sweep.value[i]
                    ax.bar(c, height, color=colours(norm(height)), width=0.8,
                           yerr=[[max(0.0, height - sweep.low[i])],
                                 [max(0.0, sweep.high[i] - height)]],
                           error_kw=dict(ecolor="0.2", capsize=3, linewidth=0.8))
                    words = number(height)
                    if sweep.percent is not None:
                        words += f"\n{sweep.percent[i]:.0f}%"
                else:
                    finite = math.isfinite(sweep.value[i]) and state == CHECK_FAILED
                    height = sweep.value[i] if finite else lowest
                    hatched(ax, c - 0.4, 0, 0.8, height, state)
                    words = state
                ax.annotate(words, (c, height), ha="center", va="bottom", fontsize=7.5,
                            xytext=(0, 2), textcoords="offset points",
                            fontweight="bold" if i == best else "normal")
            ax.set_xticks(range(len(xs)), xs, rotation=30 if len(xs) > 4 else 0)
            ax.set_xlim(-0.6, len(xs) - 0.4)
            ax.set_ylim(0, 1.22 * max([top] + [sweep.high[i] for i in shown
                                               if sweep.state[i] == GOOD] +
                                              [sweep.value[i] for i in shown
                                               if sweep.state[i] == CHECK_FAILED
                                               and math.isfinite(sweep.value[i])]))
            ax.set_xlabel(xname)
            ax.set_ylabel(sweep.unit)
        ax.set_title(variant if variant is not None else f"{sweep.unit} by {xname}", fontsize=10)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    mappable = plt.cm.ScalarMappable(norm=norm, cmap=colours)
    label = f"{sweep.unit} (best in bold)"
    if sweep.percent:
        label += f"\nbelow it: % of the {sweep.ceiling().split(',')[0]}"
    if sweep.spread:
        label += "\n±: half the spread of the timed repeats"
    bar = figure.colorbar(mappable, ax=axes.ravel().tolist(), shrink=0.9)
    bar.set_label(label, fontsize=8)
    handles = legend_handles(set(sweep.state), blank)
    if handles:
        # Below the panels: bbox_inches="tight" takes it into the PNG.
        figure.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                      ncol=min(3, len(handles)), fontsize=8, frameon=False)
    figure.suptitle(sweep.title(f"{sweep.unit} of each configuration{sweep.note}"), fontsize=10)
    save(figure, path)
    plt.close(figure)


def roofline(sweep, path):
    """Each configuration's share of the ceiling measured in the same sweep (a sweep with a
    roofline column only)."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    order = [i for v in sweep.variant_names() for i in sweep.rows_of(v)]
    variants = sweep.variant_names()
    palette = plt.get_cmap("tab10")
    colour_of = {v: palette(k % 10) for k, v in enumerate(variants)}
    variant = (lambda i: sweep.columns["variant"][i]) if variants != [None] else (lambda i: None)
    value = sweep.percent
    finite = [value[i] for i in order if sweep.state[i] != FAILED and math.isfinite(value[i])]
    top = max(finite + [100.0])
    n = len(order)
    figure, ax = plt.subplots(figsize=(8.5, max(3.2, 0.28 * n + 1.8)), constrained_layout=True)
    best = {v: sweep.best(sweep.rows_of(v)) for v in variants}
    for y, i in enumerate(order):
        state = sweep.state[i]
        v = value[i]
        if state == GOOD or (state == CHECK_FAILED and math.isfinite(v)):
            if state == GOOD:
                # The percent scales with the rate: the repeats' fastest and slowest, alike.
                scale = v / sweep.value[i] if sweep.value[i] else 0.0
                ax.barh(y, v, color=colour_of[variant(i)], height=0.75,
                        xerr=[[max(0.0, v - scale * sweep.low[i])],
                              [max(0.0, scale * sweep.high[i] - v)]],
                        error_kw=dict(ecolor="0.2", capsize=2, linewidth=0.7))
            else:
                hatched(ax, 0, y - 0.375, v, 0.75, state)
            words = f"{v:.1f}%"
            if state == GOOD:
                words += f"  ({number(sweep.value[i])} {sweep.unit})"
            if state != GOOD:
                words += f"  {state}"
        else:
            v = 0.03 * top
            hatched(ax, 0, y - 0.375, v, 0.75, state)
            words = state
        ax.annotate(words, (v, y), va="center", fontsize=7, xytext=(3, 0),
                    textcoords="offset points",
                    fontweight="bold" if i == best[variant(i)] else "normal")
    ax.set_yticks(range(n), [sweep.label(i) for i in order], fontsize=7 if n > 30 else 8)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlim(0, 1.3 * top)
    handles = [Patch(color=colour_of[v], label=v) for v in variants if v is not None]
    ceiling = sweep.ceiling()
    ax.axvline(100, color="0.3", linestyle="--", linewidth=1)
    ax.set_xlabel(f"% of the {ceiling}, measured in the same sweep (error bars: the fastest and "
                  "slowest timed repeat)")
    what = f"each configuration as a % of the sweep's own ceiling, the {ceiling.split(',')[0]}"
    handles.append(Line2D([], [], color="0.3", linestyle="--", label=f"100%: {ceiling}"))
    ax.grid(axis="x", color="0.9")
    ax.set_axisbelow(True)
    handles = legend_handles(set(sweep.state), extra=handles)
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7,
                  frameon=False)
    bold = "best of each variant in bold" if variants != [None] else "best in bold"
    ax.set_title(f"{sweep.title(what)}\n({bold})", fontsize=9)
    save(figure, path)
    plt.close(figure)


def occupancy(sweep, path, column):
    import matplotlib.pyplot as plt

    from matplotlib.lines import Line2D

    variants = sweep.variant_names()
    palette = plt.get_cmap("tab10")
    x = sweep.columns[column]
    # The resource that limits each row's main kernel, where the sweep records it.
    limiter = sweep.columns.get("limiter") if column == "occupancy_percent" else None
    limiters = list(dict.fromkeys(n for n in limiter if n and n != "-")) if limiter else []
    marker = {name: MARKERS[k % len(MARKERS)] for k, name in enumerate(limiters)}
    figure, ax = plt.subplots(figsize=(6.4, 4.6), constrained_layout=True)
    for k, v in enumerate(variants):
        rows = [i for i in sweep.rows_of(v) if math.isfinite(x[i]) if
                math.isfinite(sweep.value[i]) and sweep.state[i] in (GOOD, CHECK_FAILED)]
        colour = palette(k % 10)
        for name in limiters or [None]:
            mine = [i for i in rows if name is None or limiter[i] == name]
            good = [i for i in mine if sweep.state[i] == GOOD]
            if good:
                ax.scatter([x[i] for i in good], [sweep.value[i] for i in good], color=colour,
                           marker=marker.get(name, "o"), s=28)
        bad = [i for i in rows if sweep.state[i] == CHECK_FAILED]
        if bad:
            ax.scatter([x[i] for i in bad], [sweep.value[i] for i in bad], color=colour,
                       marker="x", s=36)
    handles = [Line2D([], [], color=palette(k % 10), marker="o", linestyle="",
                      label=v or sweep.solver) for k, v in enumerate(variants)]
    handles += [Line2D([], [], color="0.3", marker=marker[name], linestyle="",
                       label=f"limited by {name}") for name in limiters]
    if any(s == CHECK_FAILED for s in sweep.state):
        handles.append(Line2D([], [], color="0.3", marker="x", linestyle="",
                              label="check against the gold failed"))
    failed = sum(1 for s in sweep.state if s == FAILED)
    ax.set_xlabel("theoretical occupancy of the row's main kernel, % of the SM's warps"
                  if column == "occupancy_percent" else column.replace("_", " "))
    ax.set_ylabel(sweep.unit)
    ax.set_ylim(bottom=0)
    if column == "occupancy_percent":
        ax.set_xlim(0, 105)
    ax.grid(color="0.9")
    ax.legend(handles=handles, loc="best", fontsize=7, frameon=False,
              title=(f"{failed} failed configuration{'s' if failed > 1 else ''} (no timing) "
                     "not shown") if failed else None,
              title_fontsize=7)
    ax.set_title(sweep.title(f"occupancy against {sweep.unit}"), fontsize=9)
    save(figure, path)
    plt.close(figure)


def threads(sweep, path):
    """A CPU sweep: the rate and the speedup over one thread against threads, error bars from
    the timed repeats' fastest and slowest, the ideal speedup as a line."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    count = sweep.columns["threads"]
    rows = sorted((i for i in range(sweep.rows) if sweep.state[i] != FAILED),
                  key=lambda i: count[i])
    figure, (rate_ax, speed_ax) = plt.subplots(1, 2, figsize=(10.5, 4.2), constrained_layout=True)
    bar = dict(capsize=3, linewidth=1.0, markersize=5)
    good = [i for i in rows if sweep.state[i] == GOOD]
    bad = [i for i in rows if sweep.state[i] != GOOD and math.isfinite(sweep.value[i])]
    n = [count[i] for i in good]
    v = [sweep.value[i] for i in good]
    below = [max(0.0, sweep.value[i] - sweep.low[i]) for i in good]
    above = [max(0.0, sweep.high[i] - sweep.value[i]) for i in good]
    rate_ax.errorbar(n, v, yerr=[below, above],
                     marker="o", color="tab:blue", **bar)
    if bad:
        rate_ax.scatter([count[i] for i in bad], [sweep.value[i] for i in bad], marker="x",
                        color="tab:red", s=40, zorder=3)
    rate_ax.set_xlabel("threads")
    rate_ax.set_ylabel(sweep.unit)
    rate_ax.set_ylim(bottom=0)
    rate_ax.set_title(f"{sweep.unit}{sweep.note}", fontsize=9)
    # The speedup of each count over the one-thread median; its bars are that count's repeats.
    one = next((i for i in good if count[i] == 1), None)
    if one is not None:
        base = sweep.value[one]
        s = [sweep.value[i] / base for i in good]
        speed_ax.errorbar(n, s, yerr=[[b / base for b in below], [a / base for a in above]],
                          marker="o", color="tab:green", **bar)
        for k, i in enumerate(good):
            speed_ax.annotate(f"{100 * s[k] / count[i]:.0f}%", (count[i], s[k]), fontsize=7,
                              xytext=(4, -10), textcoords="offset points")
        most = max(n)
        speed_ax.plot([1, most], [1, most], linestyle="--", color="0.4", linewidth=1)
        speed_ax.set_ylim(0, 1.15 * max(most, max(s)))
        handles = [Line2D([], [], color="tab:green", marker="o", label="measured (efficiency: "
                          "speedup / threads)"),
                   Line2D([], [], color="0.4", linestyle="--", label="ideal: speedup = threads")]
        speed_ax.legend(handles=handles, loc="upper left", fontsize=7, frameon=False)
    else:
        speed_ax.text(0.5, 0.5, "no one-thread row that agreed with the gold:\nno speedup to "
                      "measure", ha="center", va="center", transform=speed_ax.transAxes)
    speed_ax.set_xlabel("threads")
    speed_ax.set_ylabel("speedup over one thread")
    speed_ax.set_title("speedup (error bars: fastest and slowest timed repeat)", fontsize=9)
    for ax in (rate_ax, speed_ax):
        ax.set_xticks(sorted(set(count[i] for i in rows)))
        ax.grid(color="0.9")
        ax.set_axisbelow(True)
    handles = legend_handles({sweep.state[i] for i in bad})
    if handles:
        figure.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2,
                      fontsize=8, frameon=False)
    figure.suptitle(sweep.title("rate and speedup against threads"), fontsize=10)
    save(figure, path)
    plt.close(figure)


def main(argv):
    parser = argparse.ArgumentParser(
        prog=PROG, description="PNGs of any solver's `parasol sweep` file: a GPU sweep's heatmap, "
                               "roofline and occupancy, a CPU sweep's rate and speedup against "
                               "threads.")
    parser.add_argument("sweep", help="the sweep's HDF5 result, e.g. laplace3d-512-sweep.h5")
    parser.add_argument("folder", nargs="?", help="where the PNG files go (made if need be); "
                                                  "default: the current folder")
    parser.add_argument("-o", "--output", metavar="FOLDER", help="the same as FOLDER")
    args = parser.parse_args(argv)
    if args.folder and args.output and args.folder != args.output:
        parser.error("give the folder once: FOLDER or -o FOLDER")
    folder = args.output or args.folder or "."
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
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise InputError(f"{folder}: not a folder")
    except InputError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    os.makedirs(folder, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.sweep))[0]
    written = []

    def target(kind):
        written.append(os.path.join(folder, f"{stem}-{kind}.png"))
        return written[-1]

    if sweep.cpu:
        threads(sweep, target("threads"))
        for path in written:
            print(f"wrote {path}")
        return 0
    heatmap(sweep, target("heatmap"))
    if sweep.percent is not None:
        roofline(sweep, target("roofline"))
    column = next((c for c in OCCUPANCY
                   if c in sweep.extras + sweep.kernel_columns and c in sweep.columns), None)
    if column:
        occupancy(sweep, target("occupancy"), column)
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
