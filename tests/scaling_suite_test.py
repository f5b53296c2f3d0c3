#!/usr/bin/env python3
"""bench/scaling_suite.sh with SCALING_SIZE=tiny: every case of the scale-out runs, small, on the
CPU backend under the launcher. Each table is written, every case has its one-rank and two-rank
rows, and every run across ranks is the one-rank result bit for bit. Exits 77 (skipped) where
this python3 lacks h5py or numpy.

    python3 tests/scaling_suite_test.py bench/scaling_suite.sh PARASOL "mpiexec -n {n}"
"""

import os
import subprocess
import sys
import tempfile

try:
    import h5py  # noqa: F401 (the script's)
    import numpy  # noqa: F401
except ImportError as missing:
    print(f"scaling suite test skipped: {sys.executable} lacks a module ({missing}); "
          "Debian: apt-get install python3-h5py")
    sys.exit(77)

script, parasol, launcher = sys.argv[1:4]
with tempfile.TemporaryDirectory() as out:
    env = dict(os.environ, SCALING_SIZE="tiny", PARASOL=parasol, LAUNCHER=launcher,
               PYTHON=sys.executable)
    done = subprocess.run(["bash", script, out, "2"], capture_output=True, text=True, env=env)
    print(done.stdout + done.stderr)
    if done.returncode != 0:
        sys.exit("the suite failed")
    rows = {}
    for table in ("laplace3d.txt", "solvers.txt", "solvers-weak.txt"):
        with open(os.path.join(out, table)) as f:
            rows[table] = [r for r in f.read().splitlines() if r.strip() and not r.startswith("case")]
# laplace3d: two variants x (two strong sizes + weak), one- and two-rank rows each; the others:
# montecarlo, two coulomb lattices, two tridiag batches, one fftconv batch, recurrence; weak:
# montecarlo, two coulomb lattices, one tridiag batch, one fftconv batch, recurrence.
expected = {"laplace3d.txt": 2 * 3 * 2, "solvers.txt": 7 * 2, "solvers-weak.txt": 6 * 2}
for table, count in expected.items():
    if len(rows[table]) != count:
        sys.exit(f"{table}: expected {count} rows, got {len(rows[table])}: {rows[table]}")
    for row in rows[table]:
        ranks = int(row[40:47].split()[0])
        if ranks == 2 and row.split()[-2] != "same":
            sys.exit(f"a run across ranks differs from one rank: {row}")
# SCALING_PARTS runs the parts listed and no others, and refuses a part it does not know.
with tempfile.TemporaryDirectory() as out:
    env = dict(os.environ, SCALING_SIZE="tiny", SCALING_PARTS="link", PARASOL=parasol,
               LAUNCHER=launcher, PYTHON=sys.executable)
    done = subprocess.run(["bash", script, out, "2"], capture_output=True, text=True, env=env)
    if done.returncode != 0 or os.listdir(out):
        sys.exit(f"SCALING_PARTS=link ran something on the CPU: {os.listdir(out)} "
                 f"{done.stdout}{done.stderr}")
    env["SCALING_PARTS"] = "laplace3d,solver"
    done = subprocess.run(["bash", script, out, "2"], capture_output=True, text=True, env=env)
    if done.returncode != 2 or 'no part "solver"' not in done.stderr or os.listdir(out):
        sys.exit(f"a part misspelt was not refused: {done.returncode} {done.stderr}")
print("ok")
