#!/usr/bin/env bash
# Every benchmark of squall on one GPU, in a time budget of about 55 minutes, into bench/results:
#
#   bench/run.sh [BUILD_DIR [SINGLE_BUILD_DIR]]
#
# BUILD_DIR (default build) is a CUDA build of squall (scripts/gpu-test.sh makes one in build-gpu); the
# benchmark targets are brought up to date first. SINGLE_BUILD_DIR, a build against a single-precision
# PETSc, adds the precision benchmark. In order it runs
#   bench/limits         the FMA throughput (FP64, FP32), the FP64 tensor cores' rate and the streaming rates of this GPU, this run
#   bench/esdg.sh        ESDG: rising-bubble time per step, kernel throughput per order
#   bench/cfl.sh         ESDG: the largest stable -esdg_cfl per LSRK scheme and order
#   bench/hb.sh          hipBone: operator against its roofline per order, CG figure of merit
#   bench/p1.sh          P1: matrix assembly times against PETSc's COO path and the host
#   bench/hevi.sh        HEVI: the baroclinic channel by ARKIMEX against explicit LSRK, GPU and CPU
#   bench/channel.sh     the baroclinic channel over 10 days: HEVI's day-10 fields against explicit LSRK
#   bench/bwave.sh       the baroclinic wave on the sphere over 10 days: balance, minimum surface pressure
#   bench/schaer.sh      Schaer's mountain wave against Long's model and linear theory
#   bench/precision.sh   single against double precision on the bubble and the channel
# and then bench/report.py collect, which writes bench/results/<capability>-<gpu>.json (date, GPU, clocks,
# driver, PETSc version, commit, precision, the limits above and the records), replacing the previous
# file: the history of the figures is git's. A capability whose script fails keeps its previous file, and
# run.sh exits non-zero. Raw logs stay in $OUT (default BUILD_DIR/bench-out).
# Environment: OUT, SQUALL_BENCH_ONLY (e.g. "hb p1"), SQUALL_JOBS (build parallelism). On a machine
# without a GPU, `SQUALL_BENCH_ONLY=precision bench/run.sh build build-single` measures the precision of
# the C reference into bench/results/precision-cpu.json.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" 2>/dev/null && pwd) || { echo "bench/run.sh: build directory ${1:-$root/build} does not exist (configure and build squall first: README, Set-up)" >&2; exit 2; }
single=${2:-}
out=${OUT:-$build/bench-out}
only=${SQUALL_BENCH_ONLY:-esdg hb p1 hevi channel bwave schaer precision}
mkdir -p "$out"
log() { echo "[bench] $*" >&2; }

# without a GPU only the precision benchmark runs (on the CPU, into precision-cpu.json)
gpu_here=0; nvidia-smi -L 2>/dev/null | grep -q GPU && gpu_here=1
if [ $gpu_here = 1 ]; then
  grep -q '^SQUALL_ENABLE_CUDA:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null || { log "$build is not a CUDA build of squall (SQUALL_ENABLE_CUDA=ON)"; exit 2; }
elif [ "$only" != precision ]; then
  log "no GPU visible (nvidia-smi -L): on a CPU machine only SQUALL_BENCH_ONLY=precision runs"; exit 2
fi
# the programs of the chosen capabilities only (SQUALL_BENCH_ONLY=hb needs the library and hb_bench)
targets=""; [ $gpu_here = 1 ] && targets=limits
for cap in $only; do
  case $cap in
    esdg) targets="$targets esdg_bench rising_bubble" ;;
    hb) targets="$targets hb_bench" ;;
    p1) targets="$targets p1_assembly" ;;
    hevi) targets="$targets baroclinic baroclinic_wave" ;;
    channel | precision) targets="$targets baroclinic rising_bubble" ;;
    bwave) targets="$targets baroclinic_wave" ;;
    schaer) targets="$targets mountain_wave" ;;
  esac
done
log "building the benchmarks in $build:$targets"
cmake --build "$build" -j"${SQUALL_JOBS:-$(nproc)}" --target $targets > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
if [ -n "$single" ] && [[ " $only " == *" precision "* ]]; then
  cmake --build "$single" -j"${SQUALL_JOBS:-$(nproc)}" --target rising_bubble baroclinic > "$out/build-single.log" 2>&1 || { tail -30 "$out/build-single.log"; exit 1; }
fi

# what the records are measured on: written once, copied into every results file
incs=$(sed -n 's/^PETSC_INCLUDE_DIRS:INTERNAL=//p' "$build/CMakeCache.txt" | tr ';' ' ')
petsc_version=$(cat $(for d in $incs; do ls "$d/petscversion.h" 2>/dev/null; done) /dev/null | awk '/define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR)/ {v = v (v ? "." : "") $3} END {print v}')
precision=double
cat $(for d in $incs; do ls "$d/petscconf.h" 2>/dev/null; done) /dev/null | grep -q '^#define PETSC_USE_REAL_SINGLE 1' && precision=single
# SQUALL_COMMIT names the commit where the tree is a copy without its git history
commit=${SQUALL_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
[ -z "${SQUALL_COMMIT:-}" ] && [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] && commit="$commit+changes"
if [ $gpu_here = 1 ]; then
  IFS=, read -r gpu sm sm_max mem driver < <(nvidia-smi -i 0 --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv,noheader,nounits | sed 's/, /,/g')
else
  gpu="CPU $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) cores)" sm=0 sm_max=0 mem=0 driver=none
fi
log "$gpu (SM $sm of $sm_max MHz, memory $mem MHz, driver $driver), PETSc $petsc_version ($precision), squall $commit"
python3 - "$out/meta.json" <<EOF
import json, sys, datetime
json.dump({"date": datetime.date.today().isoformat(), "gpu": "$gpu", "gpus": $gpu_here, "clocks_sm_mhz_at_start": int("$sm"), "clocks_max_sm_mhz": int("$sm_max"),
           "clocks_mem_mhz": int("$mem"), "clocks_note": "as found, not locked", "driver": "$driver", "petsc_version": "$petsc_version",
           "precision": "$precision", "commit": "$commit"}, open(sys.argv[1], "w"), indent=1)
EOF

status=0
if [ $gpu_here = 1 ]; then
  log "hardware limits (bench/limits)"
  timeout 120 "$build/bench/limits" > "$out/limits.json" 2> "$out/limits.log" || { log "bench/limits failed: $out/limits.log"; exit 1; }
  cat "$out/limits.json" >&2
else
  echo '{}' > "$out/limits.json"
fi
export PETSC_OPTIONS="${PETSC_OPTIONS:--use_gpu_aware_mpi 0}"
done_caps=""
for cap in $only; do
  start=$SECONDS
  case $cap in
    esdg)
      log "esdg (bench/esdg.sh, bench/cfl.sh)"
      timeout 420 bash "$root/bench/esdg.sh" "$build" "$out" > "$out/esdg.log" 2>&1 && timeout 420 bash "$root/bench/cfl.sh" "$build" "$out" >> "$out/esdg.log" 2>&1 ;;
    hevi) log "hevi (bench/hevi.sh)"; timeout 600 bash "$root/bench/hevi.sh" "$build" "$out" > "$out/hevi.log" 2>&1 ;;
    channel | bwave | schaer) log "$cap (bench/$cap.sh)"; timeout 600 bash "$root/bench/$cap.sh" "$build" "$out" > "$out/$cap.log" 2>&1 ;;
    hb) log "hb (bench/hb.sh)"; timeout 960 bash "$root/bench/hb.sh" "$build" "$out" > "$out/hb.log" 2>&1 ;;
    p1) log "p1 (bench/p1.sh)"; timeout 480 bash "$root/bench/p1.sh" "$build" "$out" > "$out/p1.log" 2>&1 ;;
    precision)
      [ -n "$single" ] || { log "precision: skipped (no SINGLE_BUILD_DIR given)"; continue; }
      log "precision (bench/precision.sh)"; timeout 600 bash "$root/bench/precision.sh" "$build" "$single" "$out" > "$out/$cap.log" 2>&1 ;;
    *) log "unknown capability $cap in SQUALL_BENCH_ONLY (esdg, hb, p1, hevi, channel, bwave, schaer, precision)"; status=2; continue ;;
  esac
  rc=$?
  log "$cap: exit $rc after $((SECONDS - start)) s (log $out/$cap.log)"
  if [ $rc -eq 0 ]; then done_caps="$done_caps $cap"; else status=1; tail -20 "$out/$cap.log" >&2; fi
done
[ -n "$done_caps" ] && python3 "$root/bench/report.py" collect "$out" $done_caps || status=1
exit $status
