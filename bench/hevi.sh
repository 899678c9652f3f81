#!/usr/bin/env bash
# HEVI against explicit LSRK on one GPU, about 8 minutes, every run under timeout:
#   bench/hevi.sh BUILD_DIR OUTDIR      (PATH set for the CUDA PETSc's mpiexec)
# The baroclinic channel (options/baroclinic.opts, -dm_forest_initial_refinement 3: 12,288 elements, N = 4):
# 1. explicit LSRK (the options file's CFL step) for EXPLICIT_STEPS steps (default 300): time per step, the step;
# 2. HEVI ARKIMEX (options/hevi.opts) with -ts_arkimex_type 2c at 100, 50, 25 and 10 times that step, and the
#    tableaux 3 and 4 from 75 times down to their largest stable multiple, for SIM_TIME simulated seconds
#    (default 21600, 6 hours): wall time, steps, Newton and Krylov iterations per step,
#    the time in F_H, F_V (also the evaluations inside the Jacobian), the Jacobian and the PC (-log_view events),
#    stable or not (a failed or inadmissible run, NaN or max|w| above 50 m/s: unstable), and the 10-day wall time
#    extrapolated from it; a run that would start after BUDGET seconds (default 300) is recorded as skipped;
# 3. the baroclinic wave on the cubed-sphere shell (options/bwave.opts, about 2 degrees, 12,288 elements, N = 4):
#    explicit LSRK (its CFL 4 step) for BWAVE_STEPS steps (default 200), and ARKIMEX 2c at BWAVE_MULTS times
#    that step (default "25 16 12 10") for SIM_TIME, the same records as above, and the linearly implicit variant
#    (-snes_type ksponly) at BWAVE_LINEAR_MULTS times it (default "20 16");
# 4. the explicit and the HEVI (2c, 25x) step of the channel on the host's CPU cores (CPU_RANKS ranks, default 12, a divisor of
#    the channel's 24 trees so that columns stay whole on a rank) for CPU_STEPS steps (default 10).
# Writes OUTDIR/hevi.jsonl (first a record of the GPU, then one per run), the runs' output and -log_view next to it.
set -uo pipefail
b=${1:?build dir}; o=${2:?output dir}
nexp=${EXPLICIT_STEPS:-300}; tsim=${SIM_TIME:-21600}; budget=${BUDGET:-300}
cpun=${CPU_RANKS:-12}; cpusteps=${CPU_STEPS:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$o"
out="$o/hevi.jsonl"
python3 "$root/bench/device_record.py" hevi_device "$root" > "$out"

channel="-options_file $root/options/baroclinic.opts -dm_forest_initial_refinement 3 -esdg_order 4 -esdg_monitor 0 -esdg_wall_time"
# (-log_view_gpu_time: the events of GPU kernels get their times, which -log_view otherwise leaves n/a)
gpuopts="-dm_vec_type cuda -use_gpu_aware_mpi 0 -log_view_gpu_time"
hevi="-options_file $root/options/hevi.opts"
# one record from a run's output and its -log_view: KEY=VALUE pairs are added to it
record() {
  python3 - "$root/bench" "$@" <<'PY'
import json, math, sys
sys.path.insert(0, sys.argv[1])
from tutorial_log import parse, value
txt, logv, rc = sys.argv[2], sys.argv[3], int(sys.argv[4])
r = parse(txt)
r.update({k: value(v) for k, v in (a.split("=", 1) for a in sys.argv[5:])})
ev = {}
try:
    for line in open(logv):
        f = line.split()
        if len(f) > 4 and f[0] in ("SqESDGRHS", "SqESDGRHSHoriz", "SqESDGRHSVert", "SqColJacobian", "SqColValues", "SqColFactor", "SqColSolve", "TSStep"):
            ev[f[0]] = {"count": int(f[1]), "time_s": float(f[3]) if f[3] != "n/a" else None}
except OSError:
    pass
r["events"] = ev
w = r["max_w"]
r["stable"] = rc == 0 and r["steps"] is not None and w is not None and math.isfinite(w) and w < 50
if r["wall_s"] and r["t_final"]:
    r["projected_10day_s"] = r["wall_s"] * 864000 / r["t_final"]
print(json.dumps(r))
PY
}

# the mean step of the last record (an explicit run), empty if it made none
last_step() {
  python3 -c 'import json, sys; r = json.loads(open(sys.argv[1]).readlines()[-1]); print(r["t_final"] / r["steps"] if r["steps"] else "")' "$out"
}

timeout 120 "$b/tutorials/baroclinic" $channel $gpuopts -ts_max_time 1e9 -ts_max_steps $nexp -log_view :"$o/hevi-explicit-log.txt" > "$o/hevi-explicit.txt" 2>&1
record "$o/hevi-explicit.txt" "$o/hevi-explicit-log.txt" $? bench=hevi_explicit scheme=lsrk >> "$out"
dt=$(last_step)
[ -n "$dt" ] || { echo "bench/hevi.sh: the explicit run failed ($o/hevi-explicit.txt)" >&2; cat "$out"; exit 1; }

# 2c at every multiple of MULTS_2C (the cost per step against the step); the other tableaux (TABLEAUX) from the
# largest of SEARCH_MULTS down to the first stable one: the largest stable step of each
for tab in 2c ${TABLEAUX-3 4}; do
  mults=${SEARCH_MULTS:-75 50 25 10}; [ $tab = 2c ] && mults=${MULTS_2C:-100 50 25 10}
  for mult in $mults; do
    h=$(python3 -c "print($mult * $dt)")
    tag="hevi-$tab-x$mult"
    if [ $SECONDS -gt "$budget" ]; then
      echo "{\"bench\": \"hevi_arkimex\", \"scheme\": \"$tab\", \"dt_multiple\": $mult, \"skipped\": \"over the budget of $budget s\"}" >> "$out"
      continue
    fi
    timeout 60 "$b/tutorials/baroclinic" $channel $gpuopts $hevi -ts_arkimex_type $tab -ts_dt $h -ts_max_time $tsim -ts_max_steps 1000000 \
      -log_view :"$o/$tag-log.txt" > "$o/$tag.txt" 2>&1
    record "$o/$tag.txt" "$o/$tag-log.txt" $? bench=hevi_arkimex scheme=$tab dt_multiple=$mult dt=$h explicit_dt=$dt >> "$out"
    [ $tab != 2c ] && python3 -c 'import json, sys; sys.exit(0 if json.loads(open(sys.argv[1]).readlines()[-1])["stable"] else 1)' "$out" && break
  done
done

wave="-options_file $root/options/bwave.opts -esdg_monitor 0 -esdg_wall_time $gpuopts"
timeout 120 "$b/tutorials/baroclinic_wave" $wave -ts_max_time 1e9 -ts_max_steps ${BWAVE_STEPS:-200} -log_view :"$o/hevi-bwave-explicit-log.txt" > "$o/hevi-bwave-explicit.txt" 2>&1
record "$o/hevi-bwave-explicit.txt" "$o/hevi-bwave-explicit-log.txt" $? bench=hevi_bwave_explicit scheme=lsrk >> "$out"
wdt=$(last_step)
# one ARKIMEX 2c run of the wave: bwave_arkimex MULT TAG [RECORD_KEY=VALUE] -- [OPTIONS]
bwave_arkimex() {
  local mult=$1 tag=$2 h keys=(); shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do keys+=("$1"); shift; done
  shift
  h=$(python3 -c "print($mult * $wdt)")
  timeout 100 "$b/tutorials/baroclinic_wave" $wave $hevi "$@" -ts_arkimex_type 2c -ts_dt $h -ts_max_time $tsim -ts_max_steps 1000000 -log_view :"$o/$tag-log.txt" > "$o/$tag.txt" 2>&1
  record "$o/$tag.txt" "$o/$tag-log.txt" $? bench=hevi_bwave_arkimex scheme=2c "${keys[@]}" dt_multiple=$mult dt=$h explicit_dt=$wdt >> "$out"
}
if [ -n "$wdt" ]; then
  for mult in ${BWAVE_MULTS:-25 16 12 10}; do bwave_arkimex $mult hevi-bwave-2c-x$mult --; done
  # the linearly implicit variant (one Newton step per implicit stage, the lagged Jacobian): max|w| against the
  # Newton runs' at the same step says what it costs in accuracy
  for mult in ${BWAVE_LINEAR_MULTS:-20 16}; do bwave_arkimex $mult hevi-bwave-2c-lin-x$mult solver=ksponly -- -snes_type ksponly; done
fi

cpu="CPU $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $cpun ranks"
timeout 120 mpiexec -n $cpun "$b/tutorials/baroclinic" $channel -ts_max_time 1e9 -ts_max_steps $cpusteps -log_view :"$o/hevi-cpu-explicit-log.txt" > "$o/hevi-cpu-explicit.txt" 2>&1
record "$o/hevi-cpu-explicit.txt" "$o/hevi-cpu-explicit-log.txt" $? bench=hevi_cpu_explicit scheme=lsrk "device=$cpu" >> "$out"
h=$(python3 -c "print(25 * $dt)")
timeout 150 mpiexec -n $cpun "$b/tutorials/baroclinic" $channel $hevi -ts_arkimex_type 2c -ts_dt $h -ts_max_time 1e9 -ts_max_steps $cpusteps \
  -log_view :"$o/hevi-cpu-2c-x25-log.txt" > "$o/hevi-cpu-2c-x25.txt" 2>&1
record "$o/hevi-cpu-2c-x25.txt" "$o/hevi-cpu-2c-x25-log.txt" $? bench=hevi_cpu_arkimex scheme=2c dt_multiple=25 dt=$h explicit_dt=$dt "device=$cpu" >> "$out"
cat "$out"
