#!/usr/bin/env bash
# P1 tetrahedral CG on a GPU machine: builds what it needs, runs the P1 tests (the GPU ones and the CPU
# ones, whose default backend is then CUDA), then the assembly benchmark and the tutorials with -log_view.
#   PATH and PETSC_DIR set by the caller to a CUDA-enabled PETSc (e.g. /opt/squall-deps/cuda)
#   usage: bench/run-p1-gpu.sh BUILD_DIR        output: into $OUT if set, else the current directory
# Each step has its own timeout; the whole run takes about 3-5 minutes on one H200 (build excluded).
set -u
BUILD=${1:?usage: bench/run-p1-gpu.sh BUILD_DIR}
SRC=$(cd "$(dirname "$0")/.." && pwd)
DEST=${OUT:-$PWD}
mkdir -p "$DEST"
log() { echo "[run-p1-gpu] $*" | tee -a "$DEST/p1-run.log"; }

log "source $SRC, build $BUILD, PETSC_DIR ${PETSC_DIR:-unset}, output $DEST"
nvidia-smi > "$DEST/p1-nvidia-smi.txt" 2>&1 || log "nvidia-smi failed"
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  timeout 300 cmake -S "$SRC" -B "$BUILD" ${PETSC_DIR:+-DPETSC_DIR="$PETSC_DIR"} > "$DEST/p1-configure.log" 2>&1 || { log "configure failed"; tail -30 "$DEST/p1-configure.log"; exit 1; }
fi
timeout 900 cmake --build "$BUILD" -j "$(nproc)" --target squall test_gpu_p1 test_p1_element test_p1_assembly test_p1_poisson test_p1_badmesh \
  mountain_advdiff mountain_helmholtz p1_assembly > "$DEST/p1-build.log" 2>&1 || { log "build failed"; tail -40 "$DEST/p1-build.log"; exit 1; }
log "built"

# tests: the GPU ones (label gpu) and all other P1 ones (on the GPU through the default backend)
(cd "$BUILD" && timeout 420 ctest -R '^(gpu_p1|p1_|tutorial_mountain)' --output-on-failure) > "$DEST/p1-tests.log" 2>&1
log "tests: $(grep -E 'tests passed|tests failed' "$DEST/p1-tests.log" | tail -1)"
grep -E '^(bs|element kernel|metric kernel)' "$DEST/p1-tests.log" | head -20 | tee -a "$DEST/p1-run.log"

# benchmark: JSON lines (flushed one by one, each with wall_s, the seconds since the start): the atomic modes
# (search, slots, reduce with its kernels affine_shared (the default), affine_xyz, affine, staged and plain) next to COO, at
# 0.56 M tetrahedra and at 21.1 M (the large sweep's level: >= 20 M), where the scalar matrix is assembled by
# all of them, COO included (-bench_coo_max_mtets 25). The host set-up is what takes time (the 21.1 M level:
# ~13 s mesh and set-up, ~8 s slot map, ~19 s reduce map, ~43 s COO pattern; one run took 133 s with every
# variant), so the intermediate meshes (2.2, 5.2, 10.4 M: bench/p1_assembly's default sweep) are left out, the
# gather mode runs at 0.56 M only, the host MatSetValues once. Meant to take about 130 s; a 170 s timeout keeps
# the lines written so far. The table at the end of stdout summarises it (not printed if killed).
# No -log_view here: its GPU timers synchronize inside the timed calls
SECONDS=0
timeout 170 "$BUILD/bench/p1_assembly" -bench_cells 46,46,44,154,154,148 -bench_coo_max_mtets 25 -bench_gather_max_mtets 0.6 \
  -bench_reduce_variants affine_shared,affine_xyz,affine,staged,plain -bench_host_repeats 1 -bench_json "$DEST/p1_assembly.jsonl" > "$DEST/p1_assembly.out" 2> "$DEST/p1_assembly.err"
log "benchmark exit $? in ${SECONDS} s ($(grep -c '"method"' "$DEST/p1_assembly.jsonl") lines; 124: timed out)"
grep '"done"' "$DEST/p1_assembly.jsonl" | tee -a "$DEST/p1-run.log"
grep -E '"(byte_model|speedup|speedup_reduce_variant|gpu_atomic_search|gpu_atomic_slots|gpu_coo|gpu_reduce|gpu_reduce_affine|gpu_reduce_affine_xyz|reduce_map)"' "$DEST/p1_assembly.jsonl" | head -80 | tee -a "$DEST/p1-run.log"
tail -14 "$DEST/p1_assembly.out" | tee -a "$DEST/p1-run.log"

# the tutorials at full size on the GPU, with PETSc's profile
timeout 300 "$BUILD/tutorials/mountain_advdiff" -options_file "$SRC/options/mountain_advdiff.opts" -p1_view -log_view ":$DEST/mountain_advdiff-logview.txt" \
  > "$DEST/mountain_advdiff.log" 2>&1
log "mountain_advdiff exit $?"
timeout 300 "$BUILD/tutorials/mountain_helmholtz" -options_file "$SRC/options/mountain_helmholtz.opts" -p1_view -ksp_converged_reason -log_view ":$DEST/mountain_helmholtz-logview.txt" \
  > "$DEST/mountain_helmholtz.log" 2>&1
log "mountain_helmholtz exit $?"
tail -3 "$DEST/mountain_advdiff.log" "$DEST/mountain_helmholtz.log" | tee -a "$DEST/p1-run.log"
