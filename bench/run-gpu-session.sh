#!/usr/bin/env bash
# Everything a GPU session measures, in one command, within a time budget: the GPU tests, the ESDG kernel
# benchmark (all orders, ablation at N=4), the time to solution, the scaling runs for every GPU of the
# machine, the P1 and hipBone benchmarks. Each step has its own timeout and runs only while the budget
# lasts; results go to $OUT (one folder per step) and a tarball $OUT/gpu-session.tgz.
#   PATH=$PETSC_DIR/bin:$PATH PETSC_DIR=... bench/run-gpu-session.sh BUILD_DIR [BUDGET_S=540]
# Then bench/record_esdg.py (and the P1/hipBone records) turn the raw output into bench/results/.
set -uo pipefail
b=${1:?build dir}; budget=${2:-540}; o=${OUT:-$PWD/gpu-session}; root=$(cd "$(dirname "$0")/.." && pwd)
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0" UCX_TLS=${UCX_TLS:-self,sm}
mkdir -p "$o"; t0=$(date +%s); left() { echo $(( budget - ($(date +%s) - t0) )); }
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l); counts=$(seq -s ' ' 1 "${ngpu:-1}")
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv,noheader > "$o/smi.txt" 2>&1
step() { # name timeout command...
  local name=$1 to=$2; shift 2
  [ "$(left)" -lt 20 ] && { echo "== $name skipped (budget)"; return; }
  [ "$to" -gt "$(left)" ] && to=$(left)
  echo "== $name (t=$(( $(date +%s) - t0 ))s, limit ${to}s)"; mkdir -p "$o/$name"
  (cd "$o/$name" && OUT="$o/$name" timeout "$to" "$@" > "$o/$name/stdout.txt" 2>&1); echo "   rc $?"
}
step tests 150 bash -c "cd '$b' && ctest -L gpu --timeout 90 -j6 --output-on-failure"
grep -E "tests passed|\(Failed\)" "$o/tests/stdout.txt"
step esdg 200 bash "$root/bench/run-esdg-gpu.sh" "$b"
step tts 200 bash "$root/bench/run-esdg-tts.sh" "$b" 1000 3 "$(nproc)"
[ "${ngpu:-1}" -gt 1 ] && step esdg-scaling 200 bash "$root/bench/run-esdg-scaling.sh" "$b" "$counts" 30
[ "${ngpu:-1}" -gt 1 ] && step hb-scaling 150 bash "$root/bench/run-hb-scaling.sh" "$b" "$counts" "7 15"
step p1 170 "$b/bench/p1_assembly" -bench_json p1.jsonl
tar -C "$o" -czf "$o/gpu-session.tgz" --exclude=gpu-session.tgz . && echo "results: $o/gpu-session.tgz"
