#!/usr/bin/env bash
# The baroclinic channel over 10 days, HEVI against explicit LSRK, on one GPU, about 6 minutes, every run
# under timeout:
#   bench/channel.sh BUILD_DIR OUTDIR      (PATH set for the CUDA PETSc's mpiexec)
# options/baroclinic.opts (N = 4) for 10 days at -dm_forest_initial_refinement L:
# 1. explicit LSRK 14s4 at -esdg_cfl EXPLICIT_CFL (default 4, as the sphere's options file; the channel's
#    options file has 1) at the levels EXPLICIT_LEVELS (default 2; refinement 3 takes about 9 minutes): the
#    reference for HEVI's day-10 fields;
# 2. ARKIMEX (options/hevi.opts) runs HEVI_RUNS, triples LEVEL:TABLEAU:STEPS_PER_DAY (default
#    "2:2c:480 2:3:960 3:2c:960": steps of 180, 90 and 90 s, 50, 25 and 50 times the CFL-1 explicit step).
# Each run records its wall time, steps, Newton and Krylov iterations per step, and the day-10 minimum surface
# pressure and max|w| (tutorials/esdg_run.h's summary). Each list may be set empty to leave its runs out.
# Writes OUTDIR/channel.jsonl (first a record of the GPU, then one per run) and each run's output next to it.
set -uo pipefail
b=${1:?build dir}; o=${2:?output dir}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$o"
out="$o/channel.jsonl"
python3 "$root/bench/device_record.py" channel_device "$root" > "$out"

channel="-options_file $root/options/baroclinic.opts -esdg_order 4 -esdg_monitor 0 -esdg_wall_time -dm_vec_type cuda -use_gpu_aware_mpi 0"
# one 10-day run: channel_run TAG LIMIT_S [KEY=VALUE ...] -- [OPTIONS]
channel_run() {
  local tag=$1 limit=$2 keys=() rc; shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do keys+=("$1"); shift; done
  shift
  timeout "$limit" "$b/tutorials/baroclinic" $channel "$@" -ts_max_time 864000 -ts_max_steps 100000000 > "$o/$tag.txt" 2>&1
  rc=$?
  python3 "$root/bench/tutorial_log.py" "$o/$tag.txt" bench=channel_day10 "${keys[@]}" exit_code=$rc >> "$out"
}

for L in ${EXPLICIT_LEVELS-2}; do
  channel_run channel-lsrk-L$L 240 refinement=$L scheme=lsrk cfl=${EXPLICIT_CFL:-4} -- -dm_forest_initial_refinement $L -esdg_cfl ${EXPLICIT_CFL:-4}
done
for run in ${HEVI_RUNS-2:2c:480 2:3:960 3:2c:960}; do
  IFS=: read -r L tab spd <<< "$run"
  dt=$(python3 -c "print(86400 / $spd)")
  channel_run channel-$tab-L$L 200 refinement=$L scheme=$tab dt=$dt -- -options_file "$root/options/hevi.opts" -ts_arkimex_type $tab -ts_dt $dt -dm_forest_initial_refinement $L
done
cat "$out"
