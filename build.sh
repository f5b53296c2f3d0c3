#!/usr/bin/env bash
# Parasol's one entry point for a fresh Debian machine with the CUDA toolkit:
#   ./build.sh example   install what is missing, build, run the default example
#   ./build.sh test      install what is missing, build, run the whole test suite (CI runs this)
#   ./build.sh deps      only install what is missing
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages the build needs (the CUDA toolkit itself is expected at /usr/local/cuda);
# apbs gives the tests its multivalue tool, which reads coulomb's OpenDX maps back, and
# python3-h5py and python3-matplotlib run docs/plots/plot_sweep.py in its test. The HDF5 filter
# plugins are what --compression lz4, zstd (Blosc) and zfp write with and their tests read back;
# python3-hdf5plugin lets h5py read such files (docs/compression.md).
packages=(cmake ninja-build g++ libhdf5-dev libcli11-dev libtomlplusplus-dev libgtest-dev
          libbenchmark-dev apbs python3-h5py python3-matplotlib
          hdf5-filter-plugin hdf5-filter-plugin-blosc-serial hdf5-filter-plugin-zfp-serial
          python3-hdf5plugin)

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
}

build() {  # build PRESET
  cmake --preset "$1" >/dev/null
  cmake --build --preset "$1"
}

case "${1:-}" in
  deps)
    install_missing
    ;;
  example)
    install_missing
    build release
    mkdir -p results
    ./build/release/apps/parasol run inputs/laplace3d.toml -o results/laplace3d.h5 --force
    ;;
  test)
    install_missing
    build ci
    ctest --preset ci -j "$(nproc)"
    ;;
  *)
    echo "usage: ./build.sh example | test | deps" >&2
    exit 2
    ;;
esac
