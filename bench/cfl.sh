#!/usr/bin/env bash
# The largest stable -esdg_cfl of each LSRK scheme and order, measured on the rising bubble (8 elements,
# sharp profile, 100 s): a run is stable when it ends without a failed step and its max|w| is within 2% of
# a run at CFL 0.25; the limit is found by bisection between 0.5 and 8.5 (to CFL_TOL, default 0.25). Runs on the GPU when
# the build has CUDA. SquallESDG's CFL table (src/ts/esdg.c) holds these limits.
#   bench/cfl.sh BUILD_DIR OUTDIR      writes OUTDIR/cfl.jsonl: one line per scheme and order
# Environment: CFL_ORDERS (default "1 2 3 4 5 6 7 8"), CFL_SCHEMES (default "14s4 5s4"), CFL_JOBS (bisections
# run at once, default 8: each run is a few elements, bound by kernel launches, so runs side by side share
# the GPU, or the cores, without slowing each other much)
set -uo pipefail
build=${1:?build directory}; out=${2:?output directory}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"; : > "$out/cfl.jsonl"
vec=""; grep -q '^SQUALL_ENABLE_CUDA:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && vec="-dm_vec_type cuda"
base="-options_file $root/options/rising_bubble.opts -dm_forest_initial_refinement 0 -ts_max_time 100 -esdg_monitor 0 $vec"
maxw() { # scheme order cfl -> max|w|, or nothing when the run failed
  local log="$out/cfl-$1-N$2.log"
  timeout 300 "$build/tutorials/rising_bubble" $base -ts_lsrk_type "$1" -esdg_order "$2" -esdg_cfl "$3" > "$log" 2>&1 || return 0
  python3 "$root/bench/tutorial_log.py" "$log" | python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["max_w"] if r["max_w"] is not None else "")'
}
bisect() { # scheme order: writes OUTDIR/cfl-SCHEME-NORDER.json, or fails naming the run
  local scheme=$1 N=$2 ref lo=0.5 hi=8.5 w mid
  ref=$(maxw "$scheme" "$N" 0.25)
  [ -n "$ref" ] || { echo "cfl: the reference run ($scheme, N = $N, CFL 0.25) failed: $out/cfl-$scheme-N$N.log" >&2; return 1; }
  w=$(maxw "$scheme" "$N" $lo)
  if [ -z "$w" ] || ! python3 -c "import sys; sys.exit(abs($w - $ref) > 0.02 * $ref)"; then
    echo "cfl: $scheme at N = $N is not stable at CFL $lo" >&2; return 1
  fi
  while python3 -c "import sys; sys.exit(not ($hi - $lo > ${CFL_TOL:-0.25}))"; do
    mid=$(python3 -c "print(round(($lo + $hi) / 2, 4))")
    w=$(maxw "$scheme" "$N" "$mid")
    if [ -n "$w" ] && python3 -c "import sys; sys.exit(abs($w - $ref) > 0.02 * $ref)"; then lo=$mid; else hi=$mid; fi
  done
  echo "{\"bench\": \"cfl\", \"scheme\": \"$scheme\", \"N\": $N, \"cfl_stable\": $lo, \"cfl_unstable\": $hi, \"max_w_ref\": $ref, \"case\": \"rising bubble, 8 elements, 100 s\"}" > "$out/cfl-$scheme-N$N.json"
}
pairs=()
for scheme in ${CFL_SCHEMES:-14s4 5s4}; do for N in ${CFL_ORDERS:-1 2 3 4 5 6 7 8}; do pairs+=("$scheme $N"); done; done
pids=()
for p in "${pairs[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "${CFL_JOBS:-8}" ]; do wait -n; done
  rm -f "$out/cfl-${p/ /-N}.json"
  bisect $p & pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
# one line per scheme and order, in the order above, whatever order the bisections ended in
for p in "${pairs[@]}"; do [ -f "$out/cfl-${p/ /-N}.json" ] && cat "$out/cfl-${p/ /-N}.json" | tee -a "$out/cfl.jsonl"; done
exit $status
