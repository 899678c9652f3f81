#!/usr/bin/env bash
# Build squall against the CUDA PETSc bundle and run the GPU tests (ctest label "gpu"), on a machine
# with an NVIDIA GPU. Results are only printed.
#   scripts/gpu-test.sh [bundle.tar.xz]      (default: .deps/squall-deps-cuda.tar.xz in the repo)
# Environment: OUT (write the logs there; default build-gpu), SQUALL_GPU_BUILD_DIR (default build-gpu),
#   SQUALL_GPU_TEST_TIMEOUT (seconds per test, default 300), SQUALL_JOBS (default nproc),
#   SQUALL_GPU_MEMCHECK (ctest names, e.g. "gpu_esdg_N4 gpu_hb_np1 gpu_p1_np1": also run each under
#   compute-sanitizer's memcheck, which fails on any device memory error or leak),
#   SQUALL_GPU_SKIP_CTEST=1 (build and memcheck only).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=${1:-$root/.deps/squall-deps-cuda.tar.xz}
prefix_root=/opt/squall-deps
petsc=$prefix_root/cuda
build=${SQUALL_GPU_BUILD_DIR:-$root/build-gpu}
logs=${OUT:-$build}
jobs=${SQUALL_JOBS:-$(nproc)}
mkdir -p "$logs"
log() { echo "[gpu-test] $*" >&2; }

log "GPU:"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv 2>&1 | tee "$logs/gpu-test-nvidia-smi.csv" || true
else
  log "nvidia-smi not found: the GPU tests will report skipped"
fi

if [ ! -f "$petsc/lib/libpetsc.so" ]; then
  [ -f "$bundle" ] || { log "$petsc/lib/libpetsc.so is missing and there is no bundle at $bundle"; exit 1; }
  if [ -f "$bundle.sha256" ]; then
    want=$(awk '{print $1}' "$bundle.sha256")
    got=$(sha256sum "$bundle" | awk '{print $1}')
    [ "$want" = "$got" ] || { log "checksum mismatch for $bundle"; exit 1; }
  fi
  log "unpacking $bundle into $prefix_root"
  mkdir -p "$prefix_root"
  tar -C "$prefix_root" -xJf "$bundle"
  [ -f "$petsc/lib/libpetsc.so" ] || { log "the bundle did not provide $petsc/lib/libpetsc.so"; exit 1; }
fi
grep -q '^#define PETSC_HAVE_CUDA 1' "$petsc/include/petscconf.h" || { log "$petsc is not a CUDA build of PETSc"; exit 1; }

export PATH=$petsc/bin:$PATH PETSC_DIR=$petsc PETSC_OPTIONS="-use_gpu_aware_mpi 0"
unset PETSC_ARCH
# The bundle's MPICH runs over UCX; on the lent GPU VMs its TCP transport made MPI_Finalize hang
# in 4 of 6 two-rank runs, while shared memory alone never did. One node needs no more.
export UCX_TLS=${UCX_TLS:-self,sm}
for tool in cmake nvcc g++ pkg-config; do command -v $tool >/dev/null 2>&1 || { log "$tool not found"; exit 1; }; done
log "nvcc: $(nvcc --version | tail -n 1)"

log "configuring $build"
cmake -S "$root" -B "$build" -DPETSC_DIR="$petsc" -DCMAKE_BUILD_TYPE=Release ${SQUALL_CMAKE_ARGS:-} 2>&1 | tee "$logs/gpu-test-configure.log"
grep -q 'CUDA: ON' "$logs/gpu-test-configure.log" || { log "squall was configured without CUDA"; exit 1; }
log "building with -j$jobs"
cmake --build "$build" -j"$jobs" 2>&1 | tee "$logs/gpu-test-build.log"
status=0
if [ "${SQUALL_GPU_SKIP_CTEST:-0}" != 1 ]; then
  log "running ctest -L gpu"
  (cd "$build" && ctest -L gpu --output-on-failure --timeout "${SQUALL_GPU_TEST_TIMEOUT:-300}") 2>&1 | tee "$logs/gpu-test-ctest.log" || status=$?
  # a GPU run where every test skipped is a failure of the set-up, not a pass
  if grep -qE '\(Skipped\)|Not Run' "$logs/gpu-test-ctest.log" && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    log "a GPU is present but GPU tests were skipped"
    status=1
  fi
fi
for t in ${SQUALL_GPU_MEMCHECK:-}; do
  # the test's command line as ctest runs it (mpiexec -n 1 exe args), under compute-sanitizer
  cmd=$(cd "$build" && ctest -R "^$t\$" --show-only=json-v1 | python3 -c 'import json, shlex, sys; t = json.load(sys.stdin)["tests"]; print(shlex.join(t[0]["command"]) if t else "")')
  [ -n "$cmd" ] || { log "memcheck: no test named $t"; status=1; continue; }
  log "compute-sanitizer memcheck: $t"
  (cd "$build" && eval "compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 --target-processes all $cmd") > "$logs/memcheck-$t.log" 2>&1 || { log "memcheck $t failed: $logs/memcheck-$t.log"; tail -20 "$logs/memcheck-$t.log" >&2; status=1; }
  grep -h "ERROR SUMMARY" "$logs/memcheck-$t.log" | tail -n 1 >&2
done
exit $status
