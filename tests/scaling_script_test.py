#!/usr/bin/env python3
"""bench/scaling.py on small CPU runs of two solvers under the launcher: every row is printed, and
each run across ranks is the one-rank result bit for bit; with --weak, of one rank at its size. Exits 77 (skipped) where this python3
lacks h5py or numpy.

    python3 tests/scaling_script_test.py bench/scaling.py PARASOL "mpiexec -n {n}" INPUTS_DIR
"""

import subprocess
import sys

try:
    import h5py  # noqa: F401 (the script's)
    import numpy  # noqa: F401
except ImportError as missing:
    print(f"scaling script test skipped: {sys.executable} lacks a module ({missing}); "
          "Debian: apt-get install python3-h5py")
    sys.exit(77)

script, parasol, launcher, inputs = sys.argv[1:5]

# A rank's solving seconds are its solve's phases alone: not the process's start or end, its
# inputs or outputs, nor the waits and exchanges across ranks.
import importlib.util
import os
import tempfile

import numpy as np

spec = importlib.util.spec_from_file_location("scaling", script)
scaling = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scaling)
with tempfile.TemporaryDirectory() as scratch:
    made = os.path.join(scratch, "t.h5")
    phases = {"startup": 0.3, "setup": 0.5, "read": 0.05, "host_to_device": 0.01, "compute": 0.2,
              "refinements": 0.04, "exchange": 0.07, "wait": 0.02, "device_to_host": 0.03,
              "check": 0.1, "checkpoint": 0.06, "write": 0.2, "release": 0.1}
    with h5py.File(made, "w") as f:
        t = f.create_group("timings").attrs
        t["wall_s"] = sum(phases.values())
        t["gpoints_per_s"] = 1.0
        for name, seconds in phases.items():
            t[name + "_by_rank_s"] = np.array([seconds, 2 * seconds])
    rate, solve, wait, exchange, wall = scaling.timings(made)
    expected = phases["host_to_device"] + phases["compute"] + phases["refinements"] + \
        phases["device_to_host"]
    if not np.allclose(solve, [expected, 2 * expected]):
        sys.exit(f"solving seconds {solve}, expected {expected} and {2 * expected}")
    if not np.allclose(exchange, [0.07, 0.14]) or not np.allclose(wait, [0.02, 0.04]):
        sys.exit(f"wait {wait} or exchange {exchange} not as stored")
cases = [f"{inputs}/montecarlo.toml paths.count=4000 paths.steps=20 --backend cpu",
         f"{inputs}/laplace3d.toml grid.nz=9 iteration.max_iterations=5 --backend cpu"]
done = subprocess.run([sys.executable, script, "--parasol", parasol, "--launcher", launcher,
                       "--ranks", "2,3", "--hidden"] + cases, capture_output=True, text=True)
print(done.stdout + done.stderr)
if done.returncode != 0:
    sys.exit("the script failed")
rows = [line for line in done.stdout.splitlines()[1:] if line.strip()]
if len(rows) != 6:
    sys.exit(f"expected 6 rows (2 cases x 1, 2 and 3 ranks), got {len(rows)}")
for row in rows:
    ranks = int(row[40:47].split()[0])
    verdict, hidden = row.split()[-2:]
    if ranks > 1 and verdict != "same":
        sys.exit(f"a run across ranks differs from one rank: {row}")
    # laplace3d exchanges halos: with --hidden its runs across ranks say how much was hidden.
    if ranks > 1 and "laplace3d" in row and not hidden.endswith("%"):
        sys.exit(f"no hidden share for a run across ranks: {row}")
# Weak scaling: the grid grows with the ranks, each run checked against one rank of its size.
done = subprocess.run([sys.executable, script, "--parasol", parasol, "--launcher", launcher,
                       "--ranks", "2", "--weak",
                       f"{inputs}/laplace3d.toml iteration.max_iterations=5 --backend cpu "
                       "grid.nz={9*n}"], capture_output=True, text=True)
print(done.stdout + done.stderr)
if done.returncode != 0:
    sys.exit("the script failed with --weak")
rows = [line for line in done.stdout.splitlines()[1:] if line.strip()]
if len(rows) != 2 or "grid.nz=9 " not in rows[0] or "grid.nz=18 " not in rows[1]:
    sys.exit(f"expected a row at nz=9 on one rank and one at nz=18 on two, got {rows}")
if rows[1].split()[-2] != "same":
    sys.exit(f"the weak-scaling run differs from one rank of its size: {rows[1]}")
print("ok")
