#!/usr/bin/env bash
# The baroclinic wave of Ullrich et al. (2014) on the cubed-sphere shell over 10 days, on one GPU, about
# 9 minutes, every run under timeout:
#   bench/bwave.sh BUILD_DIR OUTDIR      (PATH set for the CUDA PETSc's mpiexec)
# options/bwave.opts (N = 4) with options/hevi.opts, ARKIMEX 2c at STEPS_PER_DAY steps a day at refinement 3
# (default 750: 115.2 s, 16 times the explicit CFL 4 step), half as many at refinement 2:
# 1. the balanced state (-bwave_perturbation 0) for 5 days at refinements 1, 2, 3 (BALANCED_LEVELS): the L2
#    error of the wind against it at day 5;
# 2. the perturbed wave for 10 days at refinements 2 and 3 (WAVE_LEVELS): the minimum surface pressure and
#    its place at days 8 and 10, wall time, Newton and Krylov iterations per step;
# 3. the same at refinement 2 by explicit LSRK 14s4 (the options file's CFL 4 step): the reference for HEVI's
#    time error at days 8 and 10 (EXPLICIT_LEVELS, default 2; refinement 3 takes 12 minutes);
# 4. the linearly implicit variant (-snes_type ksponly: one Newton step per stage with the lagged Jacobian) at
#    refinement 3 (LINEAR_LEVELS);
# 5. the same variant at refinement 3 of higher orders (HIGH_ORDERS, pairs ORDER:STEPS_PER_DAY, default 5:1152,
#    the step shrinking with the smallest LGL spacing; 6:1500 takes about 7 minutes more): the finest resolutions.
# Each list may be set empty to leave its runs out.
# Writes OUTDIR/bwave.jsonl (first a record of the GPU, then one per run), each run's output and its day-8 and
# day-10 surface levels (bwave-*.day08.csv, bwave-*.day10.csv) next to it.
set -uo pipefail
b=${1:?build dir}; o=${2:?output dir}
spd=${STEPS_PER_DAY:-750}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$o"
out="$o/bwave.jsonl"
python3 "$root/bench/device_record.py" bwave_device "$root" > "$out"

wave="-options_file $root/options/bwave.opts -esdg_monitor 0 -esdg_wall_time -dm_vec_type cuda -use_gpu_aware_mpi 0"
hevi="-options_file $root/options/hevi.opts -ts_arkimex_type 2c"
# one record from a run's output and its surface levels: bwave_record TXT RC SURFACE_BASE [KEY=VALUE ...]
bwave_record() {
  python3 - "$root/bench" "$@" <<'PY'
import csv, json, math, os, re, sys
sys.path.insert(0, sys.argv[1])
from tutorial_log import parse, value
txt, rc, base = sys.argv[2], int(sys.argv[3]), sys.argv[4]
r = parse(txt)
r.update({k: value(v) for k, v in (a.split("=", 1) for a in sys.argv[5:])})
t = open(txt).read()
# the wind error of the balanced state, by day
r["wind_error"] = [{"day": float(d), "rms_m_s": float(a), "relative": float(b)}
                   for d, a, b in re.findall(r"day ([0-9.eE+-]+): L2 error of the wind against the balanced state ([0-9.eE+-]+) m/s \(relative ([0-9.eE+-]+)\)", t)]
# the minimum surface pressure and its node, by output day
r["surface_minimum"] = []
for day in (8, 10):
    f = f"{base}.day{day:02d}.csv"
    if not os.path.exists(f):
        continue
    rows = list(csv.DictReader(open(f)))
    m = min(rows, key=lambda x: float(x["p"]))
    r["surface_minimum"].append({"day": day, "ps_hpa": float(m["p"]) / 100, "lon": float(m["lon"]) % 360, "lat": float(m["lat"]), "nodes": len(rows)})
w = r["max_w"]
r["stable"] = rc == 0 and r["steps"] is not None and w is not None and math.isfinite(w)
if r["wall_s"] and r["t_final"]:
    r["projected_10day_s"] = r["wall_s"] * 864000 / r["t_final"]
print(json.dumps(r))
PY
}
# one run: bwave_run TAG LIMIT_S DAYS [KEY=VALUE ...] -- [OPTIONS]
bwave_run() {
  local tag=$1 limit=$2 days=$3 keys=(); shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do keys+=("$1"); shift; done
  shift
  timeout "$limit" "$b/tutorials/baroclinic_wave" $wave "$@" -ts_max_time $((days * 86400)) -ts_max_steps 100000000 \
    -bwave_output_days 8,10 -bwave_surface "$o/$tag.csv" > "$o/$tag.txt" 2>&1
  bwave_record "$o/$tag.txt" $? "$o/$tag" "${keys[@]}" days=$days >> "$out"
}
# the HEVI step at refinement L: 86400 / (STEPS_PER_DAY / 2^(3 - L)) s
hevi_dt() { python3 -c "print(86400 / ($spd / 2 ** (3 - $1)))"; }

for L in ${BALANCED_LEVELS-1 2 3}; do
  dt=$(hevi_dt $L)
  bwave_run bwave-balanced-L$L 150 5 bench=bwave_balanced refinement=$L scheme=2c dt=$dt -- $hevi -ts_dt $dt -dm_forest_initial_refinement $L -bwave_perturbation 0
done
for L in ${WAVE_LEVELS-2 3}; do
  dt=$(hevi_dt $L)
  bwave_run bwave-2c-L$L 200 10 bench=bwave_wave refinement=$L scheme=2c solver=newton dt=$dt -- $hevi -ts_dt $dt -dm_forest_initial_refinement $L
done
for L in ${EXPLICIT_LEVELS-2}; do
  bwave_run bwave-lsrk-L$L 240 10 bench=bwave_wave refinement=$L scheme=lsrk -- -dm_forest_initial_refinement $L
done
for L in ${LINEAR_LEVELS-3}; do
  dt=$(hevi_dt $L)
  bwave_run bwave-2c-lin-L$L 150 10 bench=bwave_wave refinement=$L scheme=2c solver=ksponly dt=$dt -- $hevi -ts_dt $dt -dm_forest_initial_refinement $L -snes_type ksponly
done
for pair in ${HIGH_ORDERS-5:1152}; do
  n=${pair%%:*}
  dt=$(python3 -c "print(86400 / ${pair##*:})")
  bwave_run bwave-2c-lin-L3-N$n 480 10 bench=bwave_wave refinement=3 order=$n scheme=2c solver=ksponly dt=$dt -- $hevi -ts_dt $dt -esdg_order $n -snes_type ksponly
done
cat "$out"
