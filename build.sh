#!/usr/bin/env bash
# Parasol's one entry point for a fresh Debian machine with the CUDA toolkit:
#   ./build.sh example   install what is missing, build, run the default example
#   ./build.sh test      install what is missing, build, run the whole test suite (CI runs this)
#   ./build.sh python    install what is missing, pip install the Python package, run its tests
#   ./build.sh deps      only install what is missing
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages the build needs (the CUDA toolkit itself is expected at /usr/local/cuda);
# apbs gives the tests its multivalue tool, which reads coulomb's OpenDX maps back, and
# python3-h5py and python3-matplotlib run docs/plots/plot_sweep.py in its test; Open MPI starts
# runs of several ranks (comm/) and its mpiexec runs the comm tests with 1 to 4 ranks. The HDF5
# filter plugins are what --compression lz4, zstd (Blosc) and zfp write with and their tests read
# back; python3-hdf5plugin lets h5py read such files (docs/compression.md). The Python package
# (python/) builds against python3-dev in a python3-venv, and its tests use NumPy, SciPy and pytest.
packages=(cmake ninja-build g++ libhdf5-dev libcli11-dev libtomlplusplus-dev libgtest-dev
          libbenchmark-dev apbs python3-h5py python3-matplotlib libopenmpi-dev openmpi-bin
          hdf5-filter-plugin hdf5-filter-plugin-blosc-serial hdf5-filter-plugin-zfp-serial
          python3-hdf5plugin python3-dev python3-venv python3-numpy python3-scipy python3-pytest)

# NCCL carries device buffers between GPUs (comm/). Debian has no package of it: where neither
# the system nor the CUDA toolkit has nccl.h, NVIDIA's wheel from PyPI gives its header and
# library, unpacked into .deps/, which the CMake presets search first. Without it the build goes
# on with the MPI transport alone.
deps=.deps
nccl_wheel=nvidia-nccl-cu13

fetch_nccl() {
  if [ -f "$deps/include/nccl.h" ] || [ -f /usr/include/nccl.h ] ||
     [ -f /usr/local/cuda/include/nccl.h ]; then
    return
  fi
  echo "build.sh: fetching NCCL ($nccl_wheel) into $deps/"
  local tmp
  tmp=$(mktemp -d)
  if ! python3 -m pip download --quiet --no-deps --only-binary=:all: "$nccl_wheel" -d "$tmp" ||
     ! python3 -m zipfile -e "$tmp"/*.whl "$tmp/wheel"; then
    echo "build.sh: could not fetch $nccl_wheel; building without the NCCL transport" >&2
    rm -rf "$tmp"
    return
  fi
  local header library
  header=$(find "$tmp/wheel" -name nccl.h -path '*/include/*' | head -n 1)
  library=$(find "$tmp/wheel" -name 'libnccl.so*' | head -n 1)
  mkdir -p "$deps/include" "$deps/lib"
  cp -r "$(dirname "$header")"/. "$deps/include/"
  cp "$library" "$deps/lib/"
  # The wheel ships libnccl.so.2 alone; the linker looks for libnccl.so.
  [ -e "$deps/lib/libnccl.so" ] || ln -s "$(basename "$library")" "$deps/lib/libnccl.so"
  rm -rf "$tmp"
}

# cuFFTDx (NVIDIA's device FFTs, C++ headers) runs fftconv's fused variant: a block's forward
# transform, the multiply by the filter's spectrum and the inverse in one kernel. It comes in the
# nvidia-mathdx wheel from PyPI; only the headers it needs are unpacked, into .deps/mathdx/.
# Without it the build goes on and the fused variant says it is not compiled in.
mathdx_wheel=nvidia-mathdx

fetch_mathdx() {
  if [ -f "$deps/mathdx/include/cufftdx.hpp" ]; then
    return
  fi
  echo "build.sh: fetching cuFFTDx ($mathdx_wheel) into $deps/mathdx/"
  local tmp
  tmp=$(mktemp -d)
  if ! python3 -m pip download --quiet --no-deps --only-binary=:all: "$mathdx_wheel" -d "$tmp"; then
    echo "build.sh: could not fetch $mathdx_wheel; building without the fused fftconv variant" >&2
    rm -rf "$tmp"
    return
  fi
  local root=nvidia/mathdx
  mkdir -p "$tmp/wheel"
  if ! (cd "$tmp/wheel" && python3 - "$tmp"/*.whl "$root" <<'PY'
import sys, zipfile
wheel, root = sys.argv[1], sys.argv[2]
keep = (root + "/include/cufftdx", root + "/include/commondx", root + "/external/cutlass/include/")
with zipfile.ZipFile(wheel) as z:
    z.extractall(members=[n for n in z.namelist() if n.startswith(keep)])
PY
  ); then
    echo "build.sh: could not unpack $mathdx_wheel; building without the fused fftconv variant" >&2
    rm -rf "$tmp"
    return
  fi
  mkdir -p "$deps/mathdx"
  cp -r "$tmp/wheel/$root/include" "$deps/mathdx/"
  mkdir -p "$deps/mathdx/external/cutlass"
  cp -r "$tmp/wheel/$root/external/cutlass/include" "$deps/mathdx/external/cutlass/"
  rm -rf "$tmp"
}

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "build.sh: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
  if ! command -v nvcc >/dev/null; then
    if [ -x /usr/local/cuda/bin/nvcc ]; then
      export PATH="/usr/local/cuda/bin:$PATH"
    else
      echo "build.sh: nvcc not found: install the CUDA toolkit (/usr/local/cuda)" >&2
      exit 1
    fi
  fi
  fetch_nccl
  fetch_mathdx
}

# The Python package, as a user installs it (`pip install .`), into a virtual environment of
# Debian's python3 that sees Debian's NumPy, SciPy, h5py and pytest; pip brings the build's own
# tools (nanobind, scikit-build-core). Its build folder (build/python) is kept, so a second run
# recompiles only what changed. The tests compare run() with the ci preset's `parasol` where it
# is built (after `test`'s build it is), and skip that comparison otherwise.
venv=build/venv

python_package() {
  [ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check nanobind scikit-build-core
  "$venv/bin/python" -m pip install --disable-pip-version-check --no-build-isolation .
  "$venv/bin/python" -m pytest -q python/tests
}

build() {  # build PRESET [TARGET...]: every target, or only those named
  local preset=$1
  shift
  cmake --preset "$preset" >/dev/null
  if (($#)); then
    cmake --build --preset "$preset" --target "$@"
  else
    cmake --build --preset "$preset"
  fi
}

case "${1:-}" in
  deps)
    install_missing
    ;;
  example)
    install_missing
    # The example needs the front end alone: tests and benchmarks wait for `./build.sh test`.
    build release parasol
    mkdir -p results
    ./build/release/apps/parasol run inputs/laplace3d.toml -o results/laplace3d.h5 --force
    ;;
  test)
    install_missing
    build ci
    ctest --preset ci -j "$(nproc)"
    python_package
    ;;
  python)
    install_missing
    python_package
    ;;
  *)
    echo "usage: ./build.sh example | test | python | deps" >&2
    exit 2
    ;;
esac
