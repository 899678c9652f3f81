#!/usr/bin/env bash
# Single-precision accuracy of the ESDG formulations on the CPU (C reference), against double: the
# 64-element bubble (N=3, 100 s) and the coarse baroclinic channel (N=2, 600 s), plain, with the reference
# residual, in perturbation form without and with departures. One JSON line per run (bench/tutorial_log.py).
#   bench/run-precision-cpu.sh BUILD_DOUBLE BUILD_SINGLE > precision-cpu.jsonl
set -uo pipefail
bd=${1:?double build}; bs=${2:?single build}; root=$(cd "$(dirname "$0")/.." && pwd); t=$(mktemp -d)
bub="-options_file $root/options/rising_bubble.opts -dm_forest_initial_refinement 1 -esdg_order 3 -ts_max_time 100 -esdg_monitor 0 -bubble_profile smooth"
bar="-options_file $root/options/baroclinic.opts -dm_forest_initial_refinement 0 -esdg_order 2 -ts_max_time 600 -esdg_monitor 0"
run() { # precision build case form options...
  local p=$1 b=$2 c=$3 f=$4; shift 4
  local exe=rising_bubble args=$bub
  [ "$c" = baroclinic ] && exe=baroclinic && args=$bar
  timeout 300 "$b/tutorials/$exe" $args "$@" > "$t/out.txt" 2>&1
  python3 "$root/bench/tutorial_log.py" "$t/out.txt" case="$c" precision="$p" form="$f" commit="$(git -C "$root" rev-parse --short HEAD)" date="$(date -u +%F)"
}
for c in bubble baroclinic; do
  for p in double single; do
    b=$bd; [ $p = single ] && b=$bs
    run $p "$b" $c plain
    run $p "$b" $c reference_residual -esdg_reference_residual
    run $p "$b" $c perturbation -esdg_perturbation -esdg_perturbation_pressure 0
    run $p "$b" $c perturbation_departures -esdg_perturbation
  done
done
rm -rf "$t"
