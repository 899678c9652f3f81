#!/bin/sh
# Periodic checkpoints of a tutorial and restarts from them on other rank counts:
#   ckpt-series.sh MPIEXEC TUTORIAL ARGS...
# 7 steps on 3 ranks with a checkpoint every 2 steps, keeping 2: the files of steps 4 and 6 and the final one
# remain (step 2's is removed); restarts from step 4 on 2 ranks and from step 6 on 1 rank end in the same state
# as the run without a restart (the printed max|w|, minimum density and pressure, to 13 digits).
mpiexec=$1; exe=$2; shift 2
base=ckpt_series
rm -f $base.h5 $base.*.h5
run() { np=$1; shift; "$mpiexec" -n "$np" "$exe" "$@" -ts_max_steps 7 -ts_max_time 1e6 -options_left no 2>&1; }
out=$(run 3 "$@" -esdg_checkpoint $base.h5 -esdg_checkpoint_interval 2 -esdg_checkpoint_keep 2) || { printf '%s\n' "$out"; echo "ckpt-series: the run failed"; exit 1; }
printf '%s\n' "$out"
files=$(ls $base.h5 $base.*.h5 2>/dev/null | tr '\n' ' ')
[ "$files" = "$base.00000004.h5 $base.00000006.h5 $base.h5 " ] || { echo "ckpt-series: files after the run: $files; expected $base.00000004.h5 $base.00000006.h5 $base.h5"; exit 1; }
want=$(printf '%s\n' "$out" | grep -E 'steps to t =|max[|]w[|]')
for spec in "2 4" "1 6"; do
  np=${spec% *}; step=${spec#* }
  r=$(run "$np" "$@" -esdg_restart $base.0000000$step.h5) || { printf '%s\n' "$r"; echo "ckpt-series: the restart from step $step failed"; exit 1; }
  printf '%s\n' "$r"
  printf '%s\n' "$r" | grep -q "restarted from $base.0000000$step.h5 at step $step" || { echo "ckpt-series: no restart line"; exit 1; }
  got=$(printf '%s\n' "$r" | grep -E 'steps to t =|max[|]w[|]')
  [ "$got" = "$want" ] || { printf 'ckpt-series: the restart from step %s on %s ranks ends in\n%s\ninstead of\n%s\n' "$step" "$np" "$got" "$want"; exit 1; }
done
echo "ckpt-series: steps 4, 6 and the final file kept, restarts on 2 and 1 ranks end in the same state"
