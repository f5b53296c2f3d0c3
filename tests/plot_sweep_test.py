#!/usr/bin/env python3
"""tools/plot_sweep.py on synthetic sweep files of every solver, written in the layout
`parasol sweep` writes (docs/hdf5-layout.md, apps/driver.cpp's SweepTable and each binding's
columns()), and, given the parasol binary, on real CPU sweeps it makes: a GPU sweep gets its
heatmap, a roofline only where the solver has one, and its occupancy; a CPU sweep its rate and
speedup against threads; every title names the problem's size. Exits 77, which CTest reports as
skipped, where this python3 lacks h5py, matplotlib or numpy.

    python3 tests/plot_sweep_test.py tools/plot_sweep.py [PARASOL]
"""

import importlib
import importlib.util
import os
import subprocess
import sys
import tempfile

SKIP = 77

try:
    import h5py
    import numpy as np
    importlib.import_module("matplotlib")  # the script's, imported here only to skip without it
except ImportError as missing:
    print(f"plot_sweep test skipped: {sys.executable} lacks a module ({missing}); "
          "Debian: apt-get install python3-h5py python3-matplotlib")
    sys.exit(SKIP)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
NAN = float("nan")
DEVICE = "NVIDIA H100 80GB HBM3"

# Each solver's GPU sweep as its binding declares it: axes, rate, roofline (throughput, percent),
# check, extras; and its configurations. Every one has a row that failed to run (no timing) and
# one whose check failed, and the grids have cells the sweep did not time.
LAPLACE_ROWS = ([("zmarch", b) for b in ("32x4x1", "32x8x1", "64x4x1", "128x2x1")] +
                [("block3d", b) for b in ("32x4x4", "32x8x2", "16x8x4")] +
                [("zreg", b) for b in ("32x4x1", "32x8x1", "64x4x1", "128x2x1")] +
                [("temporal", b) for b in ("32x8x1", "64x4x1")])

SOLVERS = {
    "laplace3d": dict(
        axes=["variant", "block"], rate="gpoints_per_s",
        roofline=("gb_per_s", "percent_of_copy"), check="max_abs_diff", extras=[],
        rows=LAPLACE_ROWS,
        attrs={"copy_bandwidth_gb_per_s": 2990.0, "bytes_per_point": 8.0},
        parameters={"grid.nx": 512, "grid.ny": 512, "grid.nz": 512, "method.precision": "float"},
        size="512x512x512 grid"),
    "montecarlo": dict(
        axes=["variant", "block", "ordering"], rate="gpath_steps_per_s", roofline=None,
        check="difference_in_standard_errors", extras=["price", "standard_error"],
        rows=([("device-rng", b, "-") for b in (64, 128, 256, 512)] +
              [("host-rng", b, o) for b in (64, 128, 256, 512)
               for o in ("step-major", "path-major") if (b, o) != (512, "path-major")]),
        attrs={"path_steps": 96_000_000, "check_tolerance": 3.0},
        parameters={"paths.count": 960000, "paths.steps": 100}, size="960000 paths x 100 steps"),
    "tridiag": dict(
        axes=["variant", "threads", "chunk"], rate="gunknowns_per_s",
        roofline=("gb_per_s", "percent_of_copy"), check="max_relative_difference",
        # An occupancy extra of the solver's own; the main kernel's occupancy_percent (written
        # for every GPU sweep) is the one plotted.
        extras=["theoretical_occupancy"],
        rows=([("pcr-shared", t, 1) for t in (64, 128, 256, 512, 1024)] +
              [("thomas-pcr", t, c) for t in (64, 128, 256) for c in (2, 4, 8)
               if (t, c) != (256, 8)] +
              [("thomas", t, 1) for t in (64, 128, 256)]),
        attrs={"copy_bandwidth_gb_per_s": 3000.0, "n": 1024, "systems": 65536},
        parameters={"problem.precision": "double"}, size="65536 systems of 1024"),
    "coulomb": dict(
        axes=["variant", "block", "coarsening"], rate="gatom_evals_per_s",
        roofline=("grsqrt_per_s", "percent_of_rsqrt"), check="max_relative_to_scale", extras=[],
        rows=([("gather", b, c) for b in ("16x8x1", "32x4x1", "32x8x1") for c in (1, 2, 4, 8)] +
              [("gather-tiled", b, c) for b in ("32x8x1", "64x4x1") for c in (1, 4)] +
              [("scatter", "-", 1)]),
        attrs={"rsqrt_per_s": 2.5e13, "points": 2_000_000, "atoms": 5000},
        parameters={"lattice.nx": 2048, "lattice.ny": 2048, "lattice.nz": 1},
        size="2048x2048x1 lattice, 5000 atoms"),
    "recurrence": dict(
        axes=["mode"], rate="gelements_per_s", roofline=("gb_per_s", "percent_of_copy"),
        check="max_relative_error", extras=["repeatable"],
        # Two hypothetical modes beside the real two, so that one row can fail to run and one
        # fail its check while a good row of each real mode remains.
        rows=[("fast",), ("reproducible",), ("mode-c",), ("mode-d",)],
        attrs={"copy_bandwidth_gb_per_s": 2900.0},
        parameters={"problem.kind": "ar1", "ar1.length": 1 << 28, "ar1.series": 1,
                    "problem.precision": "float"}, size="268435456 elements"),
    "fftconv": dict(
        axes=["variant"], rate="gsamples_per_s", roofline=None,
        check="max_relative_difference", extras=["ran"],
        rows=[("c2c",), ("r2c",), ("overlap-save",), ("direct",), ("auto",)],
        attrs={"batch": 1, "filters": 1},
        parameters={"signal.batch": 64, "signal.length": 65536, "problem.precision": "float"},
        size="64 x 65536 samples"),
}


def write_synthetic(path, solver):
    """A GPU sweep of `solver` in the layout SweepTable writes: one 1D dataset per column, the
    role attributes as comma-separated strings; row 1 failed to run (NaN numbers, passed 0) and
    row 2 failed its check (timed, passed 0)."""
    spec = SOLVERS[solver]
    rows = spec["rows"]
    n = len(rows)
    rng = np.random.default_rng(sum(map(ord, solver)))
    utf8 = h5py.string_dtype("utf-8")
    median = rng.uniform(1e-3, 4e-3, n)
    median[1] = NAN
    passed = np.ones(n, dtype=np.int64)
    passed[1] = passed[2] = 0
    rate = 1.0 / median
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "parasol-result-1"
        f.attrs["solver"] = solver
        parameters = f.create_group("parameters")
        for key, value in spec["parameters"].items():
            parameters.attrs[key] = value
        provenance = f.create_group("provenance")
        provenance.attrs["device_name"] = DEVICE
        provenance.attrs["backend"] = "gpu"
        sweep = f.create_group("sweep")
        for k, name in enumerate(spec["axes"]):
            values = [r[k] for r in rows]
            if isinstance(values[0], str):
                sweep.create_dataset(name, data=values, dtype=utf8)
            else:
                sweep.create_dataset(name, data=np.array(values, dtype=np.int64))
        sweep.create_dataset("median_s", data=median)
        spread = rng.uniform(0.5, 5.0, n)
        spread[1] = NAN
        sweep.create_dataset("spread_percent", data=spread)
        sweep.create_dataset(spec["rate"], data=rate)
        if spec["roofline"]:
            throughput, percent = spec["roofline"]
            sweep.create_dataset(throughput, data=8.0 * rate)
            share = rng.uniform(20.0, 95.0, n)
            share[1] = NAN
            share[-1] = 104.0  # past the ceiling (several sweeps per pass): still drawn
            sweep.create_dataset(percent, data=share)
        check = rng.uniform(0.0, 1e-7, n)
        check[1] = NAN
        check[2] = 0.5
        sweep.create_dataset(spec["check"], data=check)
        for name in spec["extras"]:
            if name in ("ran", "repeatable"):
                sweep.create_dataset(name, data=["-"] * n, dtype=utf8)
            else:
                values = rng.uniform(0.25, 1.0, n)
                values[1] = NAN
                sweep.create_dataset(name, data=values)
        # The main kernel of each row, as every GPU sweep records it, and the per-kernel group
        # beside the columns (not a column itself).
        sweep.create_dataset("kernel", data=["some_kernel"] * n, dtype=utf8)
        occupancy = rng.choice([25.0, 50.0, 75.0, 100.0], n)
        occupancy[1] = NAN
        sweep.create_dataset("occupancy_percent", data=occupancy)
        limiters = ["registers", "shared memory", "warps", "blocks per SM"]
        sweep.create_dataset("limiter", data=[limiters[i % 4] for i in range(n)], dtype=utf8)
        sweep.attrs["kernel_columns"] = "kernel, occupancy_percent, limiter"
        kernels = sweep.create_group("kernels")
        kernels.create_dataset("row", data=np.arange(n, dtype=np.int64))
        kernels.create_dataset("occupancy", data=occupancy / 100.0)
        sweep.create_dataset("passed", data=passed)
        sweep.create_dataset("min_s", data=0.98 * median)
        sweep.create_dataset("max_s", data=1.02 * median)
        sweep.attrs["axis_columns"] = ", ".join(spec["axes"])
        sweep.attrs["rate_column"] = spec["rate"]
        if spec["roofline"]:
            sweep.attrs["throughput_column"] = spec["roofline"][0]
            sweep.attrs["roofline_column"] = spec["roofline"][1]
        sweep.attrs["check_column"] = spec["check"]
        sweep.attrs["extra_columns"] = ", ".join(spec["extras"])
        sweep.attrs["check_tolerance"] = 1e-6
        for key, value in spec["attrs"].items():
            sweep.attrs[key] = value


def write_legacy(path, copy=True):
    """A laplace3d sweep from before the role attributes: the columns alone."""
    utf8 = h5py.string_dtype("utf-8")
    rng = np.random.default_rng(20261121)
    gb = rng.uniform(1200.0, 2700.0, len(LAPLACE_ROWS))
    gb[-1] = 6100.0
    passed = np.ones(len(LAPLACE_ROWS), dtype=np.int64)
    passed[2] = 0
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "parasol-result-1"
        f.attrs["solver"] = "laplace3d"
        f.create_group("provenance").attrs["device_name"] = DEVICE
        sweep = f.create_group("sweep")
        sweep.create_dataset("variant", data=[v for v, _ in LAPLACE_ROWS], dtype=utf8)
        sweep.create_dataset("block", data=[b for _, b in LAPLACE_ROWS], dtype=utf8)
        sweep.create_dataset("median_s", data=8.0 * 512.0 ** 3 / (gb * 1e9))
        sweep.create_dataset("gpoints_per_s", data=gb / 8.0)
        sweep.create_dataset("gb_per_s", data=gb)
        sweep.create_dataset("percent_of_copy", data=100.0 * gb / 2990.0)
        sweep.create_dataset("max_abs_diff", data=np.zeros(len(LAPLACE_ROWS)))
        sweep.create_dataset("passed", data=passed)
        if copy:
            sweep.attrs["copy_bandwidth_gb_per_s"] = 2990.0


def run(script, *args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                          check=False)


def check(condition, message):
    if not condition:
        print(f"FAILED: {message}")
        sys.exit(1)


def expect_pngs(result, folder, stem, kinds=("heatmap", "roofline"), absent=("occupancy",)):
    check(result.returncode == 0, f"{stem}: exit status {result.returncode}: {result.stderr}")
    for kind in kinds:
        path = os.path.join(folder, f"{stem}-{kind}.png")
        check(os.path.isfile(path), f"{path} was not written; stdout: {result.stdout}")
        with open(path, "rb") as png:
            head = png.read(8)
        check(head == PNG_SIGNATURE, f"{path} is not a PNG")
        check(os.path.getsize(path) > 20_000, f"{path} is suspiciously small")
        check(f"wrote {path}" in result.stdout, f"{path} not reported: {result.stdout}")
    for kind in absent:
        path = os.path.join(folder, f"{stem}-{kind}.png")
        check(not os.path.exists(path), f"{path} written for a sweep without its column")
    left = [n for n in os.listdir(folder) if n.startswith(".")]
    check(not left, f"temporaries left behind: {left}")


def expect_input_error(result, part):
    check(result.returncode == 2, f"exit status {result.returncode}, expected 2: {result.stderr}")
    check(part in result.stderr, f"{part!r} not in: {result.stderr}")
    check(result.stderr.count("\n") == 1, f"expected one line: {result.stderr}")


def real_cpu_sweeps(script, parasol, scratch, out):
    """CPU sweeps made by the binary: laplace3d (with a rate) and tridiag from a file (whose CPU
    sweep records no rate: runs per second are plotted instead)."""
    inputs = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "inputs")
    cases = [("laplace3d-cpu-sweep", "laplace3d.toml",
              ["grid.nx=32", "grid.ny=32", "grid.nz=32", "iteration.max_iterations=200"]),
             ("tridiag-cpu-sweep", "tridiag-file.toml", [])]
    for stem, toml, overrides in cases:
        path = os.path.join(scratch, f"{stem}.h5")
        made = subprocess.run([parasol, "sweep", os.path.join(inputs, toml), "--backend", "cpu",
                               "--threads", "2", "-o", path, "--force", *overrides],
                              capture_output=True, text=True, check=False)
        check(made.returncode == 0 and os.path.isfile(path),
              f"parasol sweep {toml} --backend cpu: status {made.returncode}: {made.stderr}")
        with h5py.File(path, "r") as f:
            check(f["sweep"].attrs["axis_columns"] == "backend, threads",
                  f"{stem}: axis_columns {f['sweep'].attrs['axis_columns']!r}")
        # Rate and speedup against threads; no heatmap of a single axis, no empty roofline.
        expect_pngs(run(script, path, "-o", out), out, stem, ("threads",),
                    absent=("heatmap", "roofline", "occupancy"))
    return len(cases)


def load(script):
    """The plot script as a module, to read the titles it would draw."""
    spec = importlib.util.spec_from_file_location("plot_sweep", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    script = sys.argv[1]
    parasol = sys.argv[2] if len(sys.argv) > 2 else None
    plots = load(script)
    with tempfile.TemporaryDirectory(prefix="parasol-plot-") as scratch:
        out = os.path.join(scratch, "plots", "new")  # made by the script
        for solver in SOLVERS:
            path = os.path.join(scratch, f"{solver}-sweep.h5")
            write_synthetic(path, solver)
            # Every GPU sweep records its main kernel's occupancy: every one has the scatter.
            result = run(script, path, "-o", out)
            # A roofline figure only where the solver measures a ceiling.
            with_roofline = SOLVERS[solver]["roofline"] is not None
            expect_pngs(result, out, f"{solver}-sweep",
                        ("heatmap", "occupancy") + (("roofline",) if with_roofline else ()),
                        absent=() if with_roofline else ("roofline",))
            title = plots.Sweep(path).title("x")
            check(SOLVERS[solver]["size"] in title, f"{solver}: no problem size in {title!r}")

        # The folder as a positional argument too, as before -o.
        legacy = os.path.join(scratch, "laplace3d-512-sweep.h5")
        write_legacy(legacy)
        positional = os.path.join(scratch, "positional")
        expect_pngs(run(script, legacy, positional), positional, "laplace3d-512-sweep")
        # Without the copy bandwidth it still plots.
        old = os.path.join(scratch, "old-sweep.h5")
        write_legacy(old, copy=False)
        expect_pngs(run(script, old, "-o", out), out, "old-sweep")

        real = real_cpu_sweeps(script, parasol, scratch, out) if parasol else 0

        # A result file with no /sweep (a `parasol run` result) is refused on one line.
        plain = os.path.join(scratch, "run.h5")
        with h5py.File(plain, "w") as f:
            f.attrs["solver"] = "laplace3d"
            f.create_group("parameters")
        expect_input_error(run(script, plain, "-o", out), "run.h5: no /sweep table")
        # A /sweep whose attributes name a column it lacks.
        broken = os.path.join(scratch, "broken-sweep.h5")
        write_synthetic(broken, "tridiag")
        with h5py.File(broken, "a") as f:
            del f["sweep/gunknowns_per_s"]
        expect_input_error(run(script, broken, "-o", out), "'gunknowns_per_s'")
        missing = os.path.join(scratch, "none.h5")
        expect_input_error(run(script, missing, out), "none.h5: no such file")
        text = os.path.join(scratch, "not.h5")
        with open(text, "w") as f:
            f.write("not HDF5\n")
        expect_input_error(run(script, text, out), "not.h5: cannot read it as HDF5")
    print(f"plot_sweep.py: PNGs written for synthetic sweeps of {len(SOLVERS)} solvers, "
          f"2 older laplace3d sweeps and {real} real CPU sweeps"
          f"{'' if parasol else ' (no parasol binary given)'}; bad inputs refused")


if __name__ == "__main__":
    main()
