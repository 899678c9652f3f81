#!/usr/bin/env bash
# Schaer's mountain wave against Long's model and linear theory, on one GPU, about 5 minutes, every run under
# timeout:
#   bench/schaer.sh BUILD_DIR OUTDIR      (PATH set for the CUDA PETSc's mpiexec)
# options/schaer.opts (2 km x 1.5 km elements, 5 h of model time) at the orders ORDERS (default "4 5 6"): the
# relative L2 error of w for |x| <= 15 km, z <= 12 km (below the sponges) against Long's model
# (scripts/schaer_linear.py --lower-boundary exact: the boundary condition on the terrain) and against linear
# theory (the boundary condition at z = 0), wall time and steps.
# Writes OUTDIR/schaer.jsonl (first a record of the GPU, then one per order) and each run's output and slice next to it.
set -uo pipefail
b=${1:?build dir}; o=${2:?output dir}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$o"
out="$o/schaer.jsonl"
python3 "$root/bench/device_record.py" schaer_device "$root" > "$out"

for n in ${ORDERS-4 5 6}; do
  tag="schaer-o$n"
  timeout 240 "$b/tutorials/mountain_wave" -options_file "$root/options/schaer.opts" -esdg_order $n -dm_vec_type cuda -use_gpu_aware_mpi 0 \
    -esdg_wall_time -esdg_monitor 0 -esdg_slice_y "$o/$tag.csv" > "$o/$tag.txt" 2>&1
  rc=$?
  cmp="--compare $o/$tag.csv --zmax 12000 --xmax 15000"
  long=$(python3 "$root/scripts/schaer_linear.py" $cmp --lower-boundary exact 2>&1 | sed -n 's/^relative L2 error of w against linear theory: \([0-9.]*\).*/\1/p')
  lin=$(python3 "$root/scripts/schaer_linear.py" $cmp 2>&1 | sed -n 's/^relative L2 error of w against linear theory: \([0-9.]*\).*/\1/p')
  python3 "$root/bench/tutorial_log.py" "$o/$tag.txt" bench=schaer order=$n exit_code=$rc "error_long=${long:-null}" "error_linear=${lin:-null}" >> "$out"
done
cat "$out"
