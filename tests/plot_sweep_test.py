#!/usr/bin/env python3
"""docs/plots/plot_sweep.py on synthetic sweep files written in the layout `parasol sweep` writes
(docs/hdf5-layout.md). Exits 77, which CTest reports as skipped, where this python3 lacks h5py,
matplotlib or numpy.

    python3 tests/plot_sweep_test.py docs/plots/plot_sweep.py
"""

import importlib
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

# The default compiled shapes, one failed row, and a variant this script has never heard of: the
# plots go by the names in the file, so variants added later need no change to it.
ROWS = ([("zmarch", b) for b in ("32x4x1", "32x8x1", "64x4x1", "128x2x1")] +
        [("block3d", b) for b in ("32x4x4", "32x8x2", "16x8x4")] +
        [("zreg", b) for b in ("32x4x1", "32x8x1", "64x4x1", "128x2x1")] +
        [("temporal", b) for b in ("32x8x1", "64x4x1")])


def write_sweep(path, solver="laplace3d", copy=True):
    utf8 = h5py.string_dtype("utf-8")
    rng = np.random.default_rng(20261121)
    gb = rng.uniform(1200.0, 2700.0, len(ROWS))
    gb[-1] = 6100.0  # several sweeps per pass: past the copy
    passed = np.ones(len(ROWS), dtype=np.int64)
    passed[2] = 0
    bytes_per_point = 8.0
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "parasol-result-1"
        f.attrs["solver"] = solver
        parameters = f.create_group("parameters")
        for key, n in (("grid.nx", 512), ("grid.ny", 512), ("grid.nz", 512)):
            parameters.attrs[key] = np.int64(n)
        parameters.attrs["method.precision"] = "float"
        f.create_group("provenance").attrs["device_name"] = "NVIDIA H100 80GB HBM3"
        sweep = f.create_group("sweep")
        sweep.create_dataset("variant", data=[v for v, _ in ROWS], dtype=utf8)
        sweep.create_dataset("block", data=[b for _, b in ROWS], dtype=utf8)
        points = 512.0 ** 3
        seconds = bytes_per_point * points / (gb * 1e9)
        sweep.create_dataset("median_s", data=seconds)
        sweep.create_dataset("gpoints_per_s", data=gb / bytes_per_point)
        sweep.create_dataset("gb_per_s", data=gb)
        sweep.create_dataset("percent_of_copy", data=100.0 * gb / 2990.0)
        sweep.create_dataset("max_abs_diff", data=np.zeros(len(ROWS)))
        sweep.create_dataset("passed", data=passed)
        if copy:
            sweep.attrs["copy_bandwidth_gb_per_s"] = 2990.0
        sweep.attrs["bytes_per_point"] = bytes_per_point
        sweep.attrs["check_tolerance"] = 1e-6


def run(script, *args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                          check=False)


def check(condition, message):
    if not condition:
        print(f"FAILED: {message}")
        sys.exit(1)


def expect_pngs(result, folder, stem):
    check(result.returncode == 0, f"exit status {result.returncode}: {result.stderr}")
    for kind in ("heatmap", "roofline"):
        path = os.path.join(folder, f"{stem}-{kind}.png")
        check(os.path.isfile(path), f"{path} was not written; stdout: {result.stdout}")
        with open(path, "rb") as png:
            head = png.read(8)
        check(head == PNG_SIGNATURE, f"{path} is not a PNG")
        check(os.path.getsize(path) > 10_000, f"{path} is suspiciously small")
    left = [n for n in os.listdir(folder) if n.startswith(".")]
    check(not left, f"temporaries left behind: {left}")


def expect_input_error(result, part):
    check(result.returncode == 2, f"exit status {result.returncode}, expected 2: {result.stderr}")
    check(part in result.stderr, f"{part!r} not in: {result.stderr}")
    check(result.stderr.count("\n") == 1, f"expected one line: {result.stderr}")


def main():
    script = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="parasol-plot-") as scratch:
        sweep = os.path.join(scratch, "laplace3d-512-sweep.h5")
        write_sweep(sweep)
        out = os.path.join(scratch, "plots", "new")  # made by the script
        expect_pngs(run(script, sweep, out), out, "laplace3d-512-sweep")

        # A sweep file without the copy bandwidth still plots, saying so.
        old = os.path.join(scratch, "old-sweep.h5")
        write_sweep(old, copy=False)
        expect_pngs(run(script, old, out), out, "old-sweep")

        other = os.path.join(scratch, "montecarlo-sweep.h5")
        write_sweep(other, solver="montecarlo")
        expect_input_error(run(script, other, out), "montecarlo-sweep.h5: solver is 'montecarlo'")
        missing = os.path.join(scratch, "none.h5")
        expect_input_error(run(script, missing, out), "none.h5: no such file")
        text = os.path.join(scratch, "not.h5")
        with open(text, "w") as f:
            f.write("not HDF5\n")
        expect_input_error(run(script, text, out), "not.h5: cannot read it as HDF5")
    print("plot_sweep.py: heatmap and roofline written for synthetic sweeps; bad inputs refused")


if __name__ == "__main__":
    main()
