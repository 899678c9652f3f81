#!/bin/sh
# Checkpoints by model time of a tutorial, and a restart from one:
#   ckpt-time.sh MPIEXEC TUTORIAL ARGS...
# to t = 5 s with -esdg_checkpoint_interval_time 1.5 -esdg_checkpoint_keep 2 on 2 ranks: one file at the first step
# reaching each of t = 1.5, 3, 4.5 (the step that wrote it started before that time and ended at or after it),
# the last two of them and the final file remain; a restart from the middle one on 1 rank ends in the same state
# as the run without a restart (the printed max|w|, minimum density and pressure, to 13 digits).
mpiexec=$1; exe=$2; shift 2
base=ckpt_time
rm -f $base.h5 $base.*.h5
run() { np=$1; shift; "$mpiexec" -n "$np" "$exe" "$@" -ts_max_time 5 -ts_max_steps 1000000 -options_left no 2>&1; }
out=$(run 2 "$@" -esdg_checkpoint $base.h5 -esdg_checkpoint_interval_time 1.5 -esdg_checkpoint_keep 2) || { printf '%s\n' "$out"; echo "ckpt-time: the run failed"; exit 1; }
printf '%s\n' "$out"
lines=$(printf '%s\n' "$out" | grep "^checkpoint $base\.")
[ "$(printf '%s\n' "$lines" | wc -l)" -eq 3 ] || { echo "ckpt-time: expected 3 checkpoints by model time"; exit 1; }
# each line: checkpoint FILE: step S, t = T (due at D; the step started at P)
check=$(printf '%s\n' "$lines" | awk '{ f = $2; sub(":", "", f); s = $4; sub(",", "", s); t = $7; d = $10; sub(";", "", d); p = $15; sub("[)]", "", p);
  k++; if (d + 0 != 1.5 * k || !(p + 0 < d + 0) || !(t + 0 >= d - 1e-9)) { print "bad: " $0; next }
  printf "%s ", f }')
case $check in *bad:*) echo "ckpt-time: a checkpoint is not at the first step reaching its time: $check"; exit 1 ;; esac
set -- $check "$@"
f2=$2; f3=$3; shift 3
files=$(ls $base.h5 $base.*.h5 2>/dev/null | tr '\n' ' ')
[ "$files" = "$f2 $f3 $base.h5 " ] || { echo "ckpt-time: files after the run: $files; expected $f2 $f3 $base.h5"; exit 1; }
want=$(printf '%s\n' "$out" | grep -E 'steps to t =|max[|]w[|]')
r=$(run 1 "$@" -esdg_restart "$f2") || { printf '%s\n' "$r"; echo "ckpt-time: the restart from $f2 failed"; exit 1; }
printf '%s\n' "$r"
got=$(printf '%s\n' "$r" | grep -E 'steps to t =|max[|]w[|]')
[ "$got" = "$want" ] || { printf 'ckpt-time: the restart from %s ends in\n%s\ninstead of\n%s\n' "$f2" "$got" "$want"; exit 1; }
echo "ckpt-time: checkpoints at the first steps reaching t = 1.5, 3, 4.5, the last two and the final file kept, the restart ends in the same state"
