#!/usr/bin/env bash
# Runs on the GPU machine what scripts/device-pack.sh packed: unpacks the runtime libraries (and the
# single-precision ones over a copy), the snapshots, then bench/run-gpu-session.sh for each precision,
# double on GPU 0 and single on the last GPU, in parallel, each within BUDGET_S seconds. Results:
# $OUT/device-session.tgz (one folder per precision).
#   bash .deps/pack/device-run.sh .deps/pack [BUDGET_S=480]
set -uo pipefail
pack=$(cd "${1:?pack dir}" && pwd); budget=${2:-480}
out=${OUT:-/tmp/device-out}; mkdir -p "$out/run"
deps=/opt/squall-deps
mkdir -p $deps && tar -C $deps -xJf "$pack/cuda-runtime.tar.xz" && tar -C /tmp -xJf "$pack/snap.txz" || exit 1
if [ -f "$pack/snaps.txz" ]; then
  cp -a $deps/cuda $deps/cuda-single && tar -C $deps -xJf "$pack/single-delta.tar.xz" && tar -C /tmp -xJf "$pack/snaps.txz" || exit 1
fi
# the snapshots' ctest files name the python3 of the machine that built them
py=$(sed -n 's/^_\?Python3_EXECUTABLE:[A-Z]*=//p' /tmp/snap/b/CMakeCache.txt | head -1)
[ -n "$py" ] && [ ! -e "$py" ] && mkdir -p "$(dirname "$py")" && ln -sf "$(command -v python3)" "$py"
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
session() { # precision snapshot PETSC_DIR GPU
  export CUDA_VISIBLE_DEVICES=$4 PATH=$3/bin:$PATH PETSC_DIR=$3
  OUT="$out/run/$1" bash "/tmp/$2/bench/run-gpu-session.sh" "/tmp/$2/b" "$budget" > "$out/run/$1.log" 2>&1
}
session double snap $deps/cuda 0 &
pids=$!
if [ -f "$pack/snaps.txz" ]; then
  session single snaps $deps/cuda-single $((ngpu > 1 ? ngpu - 1 : 0)) &
  pids="$pids $!"
fi
wait $pids
cp "$pack/commit.txt" "$out/run/" 2>/dev/null
cat "$out"/run/*.log
tar -C "$out/run" -czf "$out/device-session.tgz" . && echo "results: $out/device-session.tgz"
