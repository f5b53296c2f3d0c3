#!/usr/bin/env python3
"""Scaling of `parasol run` across ranks, from one call.

Runs each case on one rank (no launcher) and under the launcher with each rank count asked for,
then prints one row per run: the solver's own rate (from /timings), the speedup over the one-rank
run of the same call, each rank's solving, waiting and exchanging seconds (/timings/*_by_rank_s),
and whether the result is the one-rank result bit for bit (every dataset under /fields and
/output, and /estimate's attributes). With --hidden, each run across ranks is made again with
--no-overlap, and the share of the exchange the overlap hid is printed: (compute without overlap -
compute with it) / exchange without it, from the slowest rank's /timings (laplace3d overlaps its
halo exchange with the interior sweep; for the other solvers there is nothing to hide).

    bench/scaling.py --ranks 2,4,8 "inputs/laplace3d-512.toml grid.nz=1024" \\
        "inputs/montecarlo-9.6m.toml paths.count=100000000"
    bench/scaling.py --parasol build/release/apps/parasol --launcher "srun -n {n}" ...
    bench/scaling.py --weak --ranks 2 "inputs/laplace3d-512.toml grid.nx=1024 grid.ny=1024 \
        grid.nz={1024*n}"

With --weak the problem grows with the ranks: each {expression} in a case is evaluated with n,
the number of ranks (1 for the one-rank run the speedup is taken from), and each run across ranks
is also made on one rank at its own size, for the bit-for-bit comparison.

Options after the case's file are `parasol run` overrides and flags (--transport, --no-overlap,
--backend). Needs h5py and numpy.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

import h5py
import numpy as np

RATES = ["gpoints_per_s", "munknowns_per_s", "path_steps_per_s", "atom_evaluations_per_s", "unknowns_per_s",
         "gsamples_per_s", "gelements_per_s"]
# Phases that are not the solve: the process's start and end, inputs and outputs, the waits and
# exchanges across ranks. The rest of /timings' phases (compute, the transfers between host and
# device, a solver's own such as poisson's refinements) add up to a rank's solving time.
NOT_SOLVING = {"startup", "setup", "read", "wait", "exchange", "check", "checkpoint", "write",
               "release"}


def run(parasol, launcher, ranks, case, output):
    words = shlex.split(case)
    command = [parasol, "run", words[0], "-o", output, "--force"] + words[1:]
    if ranks > 0:
        command = shlex.split(launcher.format(n=ranks)) + command
    env = dict(os.environ, NCCL_NVLS_ENABLE="0")
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (done.returncode, " ".join(command),
                                          (done.stdout + done.stderr)[-2000:]))


def timings(path):
    with h5py.File(path, "r") as f:
        t = dict(f["timings"].attrs)
    rate = next((float(t[r]) for r in RATES if r in t), float("nan"))
    phases = [k[:-len("_by_rank_s")] for k in t if k.endswith("_by_rank_s")]
    if not phases:  # one rank: the phases themselves
        phases = [k[:-2] for k in t if k.endswith("_s") and not k.endswith("_mean_s")
                  and not k.endswith("per_s") and k not in ("wall_s", "total_s", "solve_s")]
        by_rank = {p: np.array([float(t[p + "_s"])]) for p in phases}
    else:
        by_rank = {p: np.asarray(t[p + "_by_rank_s"], dtype=float) for p in phases}
    ranks = len(next(iter(by_rank.values())))
    zero = np.zeros(ranks)
    solve = sum((v for p, v in by_rank.items() if p not in NOT_SOLVING), zero)
    return rate, solve, by_rank.get("wait", zero), by_rank.get("exchange", zero), float(t["wall_s"])


def compute_and_exchange(path):
    with h5py.File(path, "r") as f:
        t = f["timings"].attrs
        return float(t.get("compute_s", np.nan)), float(t.get("exchange_s", np.nan))


def contents(path):
    """Every dataset under /fields and /output, and /estimate's attributes, as bytes."""
    found = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and name.split("/")[0] in ("fields", "output"):
                found[name] = obj[...].tobytes()
        f.visititems(visit)
        if "estimate" in f:
            for k, v in f["estimate"].attrs.items():
                found["estimate@" + k] = np.asarray(v).tobytes()
    return found


def sized(case, n):
    """The case with each {expression} evaluated for n ranks."""
    return re.sub(r"\{([^{}]*)\}", lambda m: str(eval(m.group(1), {"n": n})), case)


def label(case):
    """The case in 40 characters: its file's name first, the overrides' end last."""
    words = case.split(None, 1)
    name = " ".join([os.path.basename(words[0])] + words[1:])
    return name if len(name) <= 40 else name[:18] + "..." + name[-19:]


def cells(values):
    return " ".join("%.3g" % v for v in values)


def row(template, n, measured, base, bits, hidden):
    """One line of the table, printed as soon as its runs are done."""
    rate, solve, wait, exchange, wall = measured
    speedup = rate / base[0]
    print("%-40s %5d %11.4g %7.3f %6.1f%% %8.3g  %-24s %-24s %-24s %-6s %s" % (
        label(sized(template, n)), n, rate, speedup, 100 * speedup / n, wall, cells(solve),
        cells(wait), cells(exchange), bits, hidden), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="+", help='"FILE [overrides and flags]"')
    parser.add_argument("--ranks", default="2", help="rank counts beside one, e.g. 2,4,8")
    parser.add_argument("--parasol", default="build/release/apps/parasol")
    parser.add_argument("--launcher", default="mpirun --allow-run-as-root -np {n} -x NCCL_NVLS_ENABLE",
                        help="the command that starts {n} ranks")
    parser.add_argument("--hidden", action="store_true",
                        help="also run each case across ranks with --no-overlap: the share hidden")
    parser.add_argument("--weak", action="store_true",
                        help="weak scaling: {expressions} in a case are evaluated with n ranks")
    args = parser.parse_args()
    counts = [int(n) for n in args.ranks.split(",")]
    print("%-40s %5s %11s %7s %6s %8s  %-24s %-24s %-24s %-6s %s" % (
        "case", "ranks", "rate", "speedup", "eff", "wall s", "solve s by rank",
        "wait s by rank", "exchange s by rank", "bits", "hidden"))
    with tempfile.TemporaryDirectory() as scratch:
        for template in args.cases:
            case = sized(template, 1)
            one = os.path.join(scratch, "one.h5")
            run(args.parasol, args.launcher, 0, case, one)
            base = timings(one)
            reference = contents(one)
            row(template, 1, base, base, "-", "-")
            for n in counts:
                case = sized(template, n)
                out = os.path.join(scratch, "r%d.h5" % n)
                run(args.parasol, args.launcher, n, case, out)
                got = contents(out)
                if args.weak:  # the same problem on one rank
                    alone = os.path.join(scratch, "same.h5")
                    run(args.parasol, args.launcher, 0, case, alone)
                    reference = contents(alone)
                    os.remove(alone)
                same = got.keys() == reference.keys() and all(got[k] == reference[k] for k in got)
                hidden = "-"
                if args.hidden:
                    serial = os.path.join(scratch, "r%d-serial.h5" % n)
                    run(args.parasol, args.launcher, n, case + " --no-overlap", serial)
                    overlapped, _ = compute_and_exchange(out)
                    alone, exchanged = compute_and_exchange(serial)
                    if exchanged > 0 and np.isfinite(alone - overlapped):
                        hidden = "%.0f%%" % (100 * (alone - overlapped) / exchanged)
                row(template, n, timings(out), base, "same" if same else "DIFFER", hidden)
                del got


if __name__ == "__main__":
    main()
