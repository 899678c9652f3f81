#!/usr/bin/env bash
# Configure and build squall into ${SQUALL_BUILD_DIR:-build} against the PETSc from scripts/env.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/env.sh"
build=${SQUALL_BUILD_DIR:-$root/build}
jobs=${SQUALL_JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -DPETSC_DIR="$PETSC_DIR" ${PETSC_ARCH:+-DPETSC_ARCH=$PETSC_ARCH} -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$jobs"
