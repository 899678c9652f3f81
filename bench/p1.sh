#!/usr/bin/env bash
# The P1 assembly benchmark on a GPU machine: bench/p1_assembly at 0.56 M and 21.1 M tetrahedra, every kept path
# (the direct assembly's reduce, slots and gather modes, PETSc's COO, host MatSetValues, right-hand sides).
#   usage: bench/p1.sh BUILD_DIR OUTDIR      (BUILD_DIR: a CUDA build of squall; built here if p1_assembly is missing)
#   output: OUTDIR/p1.jsonl (JSON lines, flushed one by one), OUTDIR/p1.out (stdout, ending with the summary table),
#           OUTDIR/p1.err, OUTDIR/p1.log (what ran, exit codes), OUTDIR/p1-nvidia-smi.txt
# Every step runs under timeout; the benchmark takes about 2 minutes on one H200 (the host set-up of the 21.1 M mesh,
# its maps and its COO pattern dominate; the device work is a few seconds). The gather mode and the other element
# orders run at 0.56 M only (their host maps would push the run past its budget), host MatSetValues once.
set -u
BUILD=${1:?usage: bench/p1.sh BUILD_DIR OUTDIR}
DEST=${2:?usage: bench/p1.sh BUILD_DIR OUTDIR}
mkdir -p "$DEST"
log() { echo "[p1.sh] $*" | tee -a "$DEST/p1.log"; }

log "build $BUILD, output $DEST"
timeout 30 nvidia-smi > "$DEST/p1-nvidia-smi.txt" 2>&1 || log "nvidia-smi failed"
if [ ! -x "$BUILD/bench/p1_assembly" ]; then
  timeout 900 cmake --build "$BUILD" -j "$(nproc)" --target p1_assembly > "$DEST/p1-build.log" 2>&1 || { log "build failed"; tail -40 "$DEST/p1-build.log"; exit 1; }
fi
SECONDS=0
timeout 170 "$BUILD/bench/p1_assembly" -bench_require_gpu -bench_cells 46,46,44,154,154,148 -bench_coo_max_mtets 25 -bench_gather_max_mtets 0.6 \
  -bench_host_repeats 1 -bench_json "$DEST/p1.jsonl" > "$DEST/p1.out" 2> "$DEST/p1.err"
rc=$?
log "p1_assembly exit $rc in ${SECONDS} s ($(grep -c '"method"' "$DEST/p1.jsonl" 2>/dev/null || echo 0) lines; 124: timed out, 200: no GPU)"
grep -E '"method": "(speedup|reduce_map|done)"' "$DEST/p1.jsonl" 2>/dev/null | tee -a "$DEST/p1.log"
tail -8 "$DEST/p1.out" | tee -a "$DEST/p1.log"
exit $rc
