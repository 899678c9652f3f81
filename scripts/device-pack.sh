#!/usr/bin/env bash
# Packs what a GPU machine without network needs to run squall's GPU tests and benchmarks in BOTH
# precisions in one call, within the device tool's 64 MiB carry limit:
#   DEST/cuda-runtime.tar.xz   the CUDA bundle's shared libraries and bin/ (no headers: ~37 MB of 40)
#   DEST/single-delta.tar.xz   the libraries the single-precision bundle has different (PETSc, hypre, p4est)
#   DEST/snap.txz, snaps.txz   this checkout's HEAD built against each (Release, sm_90 machine code only: no PTX,
#                              which halves the library and keeps the carry under the limit), object files left out
# and copies scripts/device-run.sh and device-prologue.sh (sourced by a call's own script) next to them. On the device (carry DEST): bash DEST/device-run.sh DEST [BUDGET_S].
#   scripts/device-pack.sh [DEST=.deps/pack] [single: 1 to pack it, 0 for double only] [double: 1 to pack it, 0 for single only]
# (both snapshots together no longer fit the carry limit: pack one precision per call)
# Needs /opt/squall-deps/cuda and cuda-single (scripts/install-deps.sh) and nvcc on this machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$(mkdir -p "${1:-$root/.deps/pack}" && cd "${1:-$root/.deps/pack}" && pwd)
single=${2:-1}
double=${3:-1}
deps=/opt/squall-deps
work=$(mktemp -d /tmp/squall-pack.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ ! -f "$dest/cuda-runtime.tar.xz" ]; then
  # a single-only pack leaves out the double-precision PETSc, hypre and p4est (single-delta brings its own): 16 MB less,
  # which the single pack needs to stay under the carry limit beside the checkout
  skip=(); [ "$double" = 1 ] || skip=(--exclude='cuda/lib/libpetsc.so*' --exclude='cuda/lib/libHYPRE*' --exclude='cuda/lib/libp4est.so*')
  (cd $deps && tar --exclude='cuda/lib/petsc' --exclude='cuda/lib/pkgconfig' --exclude='*.a' "${skip[@]}" -cf - cuda/lib cuda/bin | xz -9e -T0 > "$dest/cuda-runtime.tar.xz") # -9e: 0.9 MB under -6, which the carry limit needs
fi
if [ "$single" = 1 ] && [ ! -f "$dest/single-delta.tar.xz" ]; then
  files=$(cd $deps && for f in cuda-single/lib/*; do b=${f#cuda-single/}; [ -e "cuda/$b" ] && cmp -s "cuda/$b" "$f" && continue; echo "$f"; done)
  (cd $deps && tar -cf - $files | xz -6 -T0 > "$dest/single-delta.tar.xz")
fi
build() { # name PETSC_DIR: the snapshot is built at /tmp/<name>, where device-run.sh unpacks it
  local name=$1 pd=$2 src=/tmp/$1
  rm -rf "$src" && mkdir -p "$src" && git -C "$root" archive HEAD | tar -C "$src" -x
  PATH=$pd/bin:/usr/local/cuda/bin:$PATH cmake -S "$src" -B "$src/b" -DPETSC_DIR="$pd" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real > "$work/$name-cfg.log"
  PATH=$pd/bin:/usr/local/cuda/bin:$PATH cmake --build "$src/b" -j"$(nproc)" > "$work/$name-build.log" || { tail -30 "$work/$name-build.log"; exit 1; }
  (cd /tmp && tar --exclude='*.o' --exclude="$name/b/CMakeFiles" --exclude="$name/bench/results" --exclude='*/CMakeFiles/*.dir' --exclude="$name/b/Testing" -cf - "$name" | xz -6 -T0 > "$dest/$name.txz")
}
[ "$double" = 1 ] && build snap $deps/cuda
[ "$single" = 1 ] && build snaps $deps/cuda-single
cp "$root/scripts/device-run.sh" "$root/scripts/device-prologue.sh" "$dest/"
git -C "$root" rev-parse --short HEAD > "$dest/commit.txt"
size=$(du -sb "$dest" | cut -f1)
echo "packed $(cat "$dest/commit.txt") into $dest: $((size / 1048576)) MiB (the carry limit is 64 MiB, with the checkout's files)"
