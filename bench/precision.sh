#!/usr/bin/env bash
# Single-precision accuracy of the ESDG formulations against double: the 64-element bubble (N=3, 100 s)
# and the coarse baroclinic channel (N=2, 600 s), plain, with the reference residual, and in perturbation
# form without and with departures. Runs on the GPU when the builds have CUDA, else on the CPU.
#   bench/precision.sh BUILD_DOUBLE BUILD_SINGLE OUTDIR     writes OUTDIR/precision.jsonl (one line per run)
# PRECISION_CASES (default "bubble baroclinic") chooses the cases.
set -uo pipefail
bd=${1:?double build}; bs=${2:?single build}; out=${3:?output directory}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"; : > "$out/precision.jsonl"
device=cpu vec=""
if grep -q '^SQUALL_ENABLE_CUDA:BOOL=ON' "$bd/CMakeCache.txt" 2>/dev/null && grep -q '^SQUALL_ENABLE_CUDA:BOOL=ON' "$bs/CMakeCache.txt" 2>/dev/null; then
  device=gpu vec="-dm_vec_type cuda"
fi
bub="-options_file $root/options/rising_bubble.opts -dm_forest_initial_refinement 1 -esdg_order 3 -ts_max_time 100 -esdg_monitor 0 -bubble_profile smooth -esdg_wall_time"
bar="-options_file $root/options/baroclinic.opts -dm_forest_initial_refinement 0 -esdg_order 2 -ts_max_time 600 -esdg_monitor 0 -esdg_wall_time"
status=0
run() { # precision build case form options...
  local p=$1 b=$2 c=$3 f=$4 log; shift 4
  local exe=rising_bubble args=$bub
  [ "$c" = baroclinic ] && exe=baroclinic && args=$bar
  log=$out/precision-$c-$p-$f.log
  if ! timeout 300 "$b/tutorials/$exe" $args $vec "$@" > "$log" 2>&1; then
    echo "precision: $exe ($p, $f) failed, see $log" >&2
    status=1
  fi
  python3 "$root/bench/tutorial_log.py" "$log" case="$c" precision="$p" form="$f" device="$device" >> "$out/precision.jsonl"
}
for c in ${PRECISION_CASES:-bubble baroclinic}; do
  for p in double single; do
    b=$bd; [ $p = single ] && b=$bs
    run $p "$b" $c plain
    run $p "$b" $c reference_residual -esdg_reference_residual
    run $p "$b" $c perturbation -esdg_perturbation -esdg_perturbation_pressure 0
    run $p "$b" $c perturbation_departures -esdg_perturbation
  done
done
exit $status
