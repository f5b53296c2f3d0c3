#!/usr/bin/env bash
# The scale-out runs of docs/journal/2026-11.md in one command: link facts, laplace3d strong and weak
# scaling with and without overlap, and the other five solvers' strong and weak scaling, for the
# rank counts given. Each table goes to OUTDIR as it is made, so a run cut short keeps what it did.
#
#   bench/scaling_suite.sh OUTDIR 2          # two GPUs (nvidia-h200-x2)
#   bench/scaling_suite.sh OUTDIR 2,4,8      # a node of eight
#   SCALING_SIZE=tiny bench/scaling_suite.sh /tmp/s 2   # small CPU runs: the script itself
#   SCALING_PARTS=solvers bench/scaling_suite.sh OUTDIR 2,4,8   # some parts only
#
# SCALING_PARTS lists the parts to run, from link (the link facts), laplace3d, solvers (strong),
# solvers-weak, poisson (strong and weak, the plain variant: the fused one runs on one rank) and
# long (one tridiagonal system of 2^28 rows cut among the ranks) (default: all six), so that where a job's time is limited the suite runs as
# several jobs. Weak scaling grows each solver's case with the ranks (the size of one rank's share
# is the strong case's whole problem) and compares each result with one rank's at the same size.
#
# Environment: PARASOL (default build/release/apps/parasol), COMM_BENCH (default
# build/release/bench/comm_bench), LAUNCHER (default "mpirun --allow-run-as-root -np {n}
# -x NCCL_NVLS_ENABLE"), PYTHON (default python3, with h5py and numpy).
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OUTDIR RANKS (e.g. 2 or 2,4,8)" >&2; exit 2; }
out=$1
ranks=$2
mkdir -p "$out" || exit 2
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
here=$(cd "$(dirname "$0")/.." && pwd)
parasol=${PARASOL:-$here/build/release/apps/parasol}
comm_bench=${COMM_BENCH:-$here/build/release/bench/comm_bench}
launcher=${LAUNCHER:-"mpirun --allow-run-as-root -np {n} -x NCCL_NVLS_ENABLE"}
python=${PYTHON:-python3}
largest=${ranks##*,}
parts=",${SCALING_PARTS:-link,laplace3d,solvers,solvers-weak,poisson,long},"
for part in ${parts//,/ }; do
  case $part in link | laplace3d | solvers | solvers-weak | poisson | long) ;; *) echo "$0: SCALING_PARTS: no part \"$part\" (link, laplace3d, solvers, solvers-weak, poisson, long)" >&2; exit 2 ;; esac
done
runs() { [[ $parts == *",$1,"* ]]; }
scaling() {
  "$python" "$here/bench/scaling.py" --parasol "$parasol" --launcher "$launcher" --ranks "$ranks" "$@"
}
inputs=$here/inputs
atoms=$out/atoms

if [ "${SCALING_SIZE:-full}" = tiny ]; then
  cpu="--backend cpu"
  small="grid.nx=24 grid.ny=24 grid.nz=16 iteration.max_iterations=8 $cpu"
  large="grid.nx=24 grid.ny=24 iteration.max_iterations=8 $cpu"  # its nz is "strong" or "weak"
  strong="grid.nz=32"
  weak="grid.nz={16*n}"
  mc="paths.count=20000 paths.steps=10 $cpu"
  lat2="lattice.nx=32 lattice.ny=32"; lat3="lattice.nx=8 lattice.ny=8 lattice.nz=8"; natoms=(20 40)
  tri=("heat.points=64 heat.grids=64 heat.steps=2 $cpu" "heat.points=16 heat.grids=256 heat.steps=2 $cpu")
  fft=("signal.batch=16 signal.length=256 filter.length=15 filter.sigma=0 $cpu")
  rec="ar1.series=4 ar1.length=4096 $cpu"
  weak_mc="paths.count={20000*n} paths.steps=10 $cpu"
  weak_lat2="lattice.nx=32 lattice.ny={32*n}"; weak_lat3="lattice.nx=8 lattice.ny=8 lattice.nz={8*n}"
  weak_tri="heat.points=64 heat.grids={64*n} heat.steps=2 $cpu"
  weak_fft="signal.batch={16*n} signal.length=256 filter.length=15 filter.sigma=0 $cpu"
  weak_rec="ar1.series={4*n} ar1.length=4096 $cpu"
  pois="grid.nx=32 grid.ny=32 grid.nz=32 $cpu"; weak_pois="grid.nx=32 grid.ny=32 grid.nz={32*n} $cpu"
  long="random.n=65536 $cpu"
else
  cpu=""
  small="grid.nx=512 grid.ny=512 grid.nz=512"
  large="grid.nx=1024 grid.ny=1024"
  strong="grid.nz=1024"
  weak="grid.nz={1024*n}"
  mc="paths.count=1600000000"
  lat2="lattice.nx=4096 lattice.ny=4096 lattice.spacing=0.1"
  lat3="lattice.nx=256 lattice.ny=256 lattice.nz=256 lattice.spacing=0.5"; natoms=(4000 20000)
  tri=("heat.points=16384 heat.grids=1024 heat.steps=20" "heat.points=16 heat.grids=1048576 heat.steps=20")
  fft=("signal.batch=4096 signal.length=4096 filter.length=63 filter.sigma=0"
       "signal.batch=65536 signal.length=4096 filter.length=63 filter.sigma=0")
  rec="ar1.series=16 ar1.length=67108864 method.mode=reproducible"
  weak_mc="paths.count={1600000000*n}"
  weak_lat2="lattice.nx=4096 lattice.ny={4096*n} lattice.spacing=0.1"
  weak_lat3="lattice.nx=256 lattice.ny=256 lattice.nz={256*n} lattice.spacing=0.5"
  weak_tri="heat.points=16384 heat.grids={1024*n} heat.steps=20"
  weak_fft="signal.batch={4096*n} signal.length=4096 filter.length=63 filter.sigma=0"
  weak_rec="ar1.series={4*n} ar1.length=67108864 method.mode=reproducible"  # 2^28 a rank
  pois=""; weak_pois="grid.nx=1024 grid.ny=1024 grid.nz={512*n}"  # 512^3; 1024 x 1024 x 512 a rank
  long=""
fi

# Link facts (GPU runs only).
if [ -z "$cpu" ] && runs link; then
  { nvidia-smi topo -m; echo; ${launcher//\{n\}/$largest} "$comm_bench"; } > "$out/link.txt" 2>&1
  echo "link facts: $out/link.txt"
fi

# laplace3d: zreg-vec and temporal, strong at two sizes, weak at the larger per GPU.
runs laplace3d && for v in "zreg-vec method.block=[32,4,1]" "temporal method.block=[64,8,1]"; do
  scaling --hidden "$inputs/laplace3d-512.toml method.variant=$v $small" >> "$out/laplace3d.txt" 2>&1
  scaling --hidden "$inputs/laplace3d-512.toml method.variant=$v $large $strong" >> "$out/laplace3d.txt" 2>&1
  scaling --hidden --weak "$inputs/laplace3d-512.toml method.variant=$v $large $weak" >> "$out/laplace3d.txt" 2>&1
  echo "laplace3d ${v%% *}: $out/laplace3d.txt"
done

if runs solvers || runs solvers-weak; then
# Random atoms for coulomb: a thin 2D box and a cube.
"$python" - "$atoms" "${natoms[@]}" <<'PY'
import sys
import numpy as np
folder, counts = sys.argv[1], [int(c) for c in sys.argv[2:]]
import os
os.makedirs(folder, exist_ok=True)
rng = np.random.default_rng(7)
for count, box in zip(counts, ((409.6, 409.6, 20.0), (128.0, 128.0, 128.0))):
    xyz = rng.uniform(0, 1, (count, 3)) * box
    q = rng.uniform(-1, 1, count)
    with open(os.path.join(folder, "atoms-%d.xyz" % count), "w") as f:
        f.write("%d\nrandom atoms\n" % count)
        for (x, y, z), c in zip(xyz, q):
            f.write("C %.4f %.4f %.4f %.4f\n" % (x, y, z, c))
PY
fi

if runs solvers; then
cases=("$inputs/montecarlo-9.6m.toml $mc"
       "$inputs/coulomb-bench.toml lattice.origin=[0.0,0.0,0.0] $lat2 atoms.file=$atoms/atoms-${natoms[0]}.xyz $cpu"
       "$inputs/coulomb-bench.toml lattice.origin=[0.0,0.0,0.0] $lat3 atoms.file=$atoms/atoms-${natoms[1]}.xyz $cpu")
for t in "${tri[@]}"; do cases+=("$inputs/tridiag-study.toml $t"); done
for f in "${fft[@]}"; do cases+=("$inputs/fftconv-study.toml $f"); done
cases+=("$inputs/recurrence-256m.toml $rec")
for c in "${cases[@]}"; do
  scaling "$c" >> "$out/solvers.txt" 2>&1
  echo "$(basename "${c%% *}"): $out/solvers.txt"
done
fi

if runs solvers-weak; then
cases=("$inputs/montecarlo-9.6m.toml $weak_mc"
       "$inputs/coulomb-bench.toml lattice.origin=[0.0,0.0,0.0] $weak_lat2 atoms.file=$atoms/atoms-${natoms[0]}.xyz $cpu"
       "$inputs/coulomb-bench.toml lattice.origin=[0.0,0.0,0.0] $weak_lat3 atoms.file=$atoms/atoms-${natoms[1]}.xyz $cpu"
       "$inputs/tridiag-study.toml $weak_tri"
       "$inputs/fftconv-study.toml $weak_fft"
       "$inputs/recurrence-256m.toml $weak_rec")
for c in "${cases[@]}"; do
  scaling --weak "$c" >> "$out/solvers-weak.txt" 2>&1
  echo "$(basename "${c%% *}") weak: $out/solvers-weak.txt"
done
fi
# poisson: the study input (FMG and two V-cycles), strong and weak, each smoother.
runs poisson && for smoother in rbgs chebyshev; do
  c="$inputs/poisson-512.toml study.refinements=1 method.variant=plain method.smoother=$smoother"
  scaling "$c $pois" >> "$out/poisson.txt" 2>&1
  scaling --weak "$c $weak_pois" >> "$out/poisson.txt" 2>&1
  echo "poisson $smoother: $out/poisson.txt"
done

# One long tridiagonal system cut among the ranks: the partition method's solve against one rank's.
runs long && { scaling "$inputs/tridiag-long.toml $long" >> "$out/long.txt" 2>&1; echo "tridiag long: $out/long.txt"; }

grep -h -v "^case" "$out/laplace3d.txt" "$out/solvers.txt" "$out/solvers-weak.txt" "$out/poisson.txt" \
  "$out/long.txt" 2>/dev/null || true
