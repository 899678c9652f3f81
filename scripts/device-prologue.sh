# Sourced by the script of a device call (bench/results/raw/*/run*-script.sh): unpacks the pack $P that
# scripts/device-pack.sh made (the CUDA runtime to /opt/squall-deps, the snapshots to /tmp/snap and
# /tmp/snaps) and defines
#   dbl, sgl          the environment of the double / single snapshot, and cd into its build
#   san TOOL TEST     ctest's TEST under compute-sanitizer TOOL (one rank), logged to $O/sanitizer.log
#   finish NAME       stop the watchdog and tar $O into $OUT/NAME.tgz
# and starts a watchdog that tars $O into $OUT after WATCH seconds (default 560), so that a call that
# runs into the tool's limit still brings its logs back. Needs P, O (created here) and OUT.
set -o pipefail
T0=$(date +%s)
mkdir -p "$O" /opt/squall-deps
tar -C /opt/squall-deps -xJf "$P/cuda-runtime.tar.xz" || exit 1
if [ -f "$P/single-delta.tar.xz" ]; then cp -a /opt/squall-deps/cuda /opt/squall-deps/cuda-single && tar -C /opt/squall-deps -xJf "$P/single-delta.tar.xz" || exit 1; fi
for f in snap snaps; do [ -f "$P/$f.txz" ] && { tar -C /tmp -xJf "$P/$f.txz" || exit 1; }; done
echo "unpacked t=$(($(date +%s) - T0))s"
cp "$P/commit.txt" "$O/"
cc=/tmp/snap/b/CMakeCache.txt; [ -f $cc ] || cc=/tmp/snaps/b/CMakeCache.txt
py=$(sed -n 's/^_\?Python3_EXECUTABLE:[A-Z]*=//p' $cc | head -1) # ctest's tests run the build machine's python path
[ -n "$py" ] && [ ! -e "$py" ] && mkdir -p "$(dirname "$py")" && ln -sf "$(command -v python3)" "$py"
P0=$PATH
export PETSC_OPTIONS="-use_gpu_aware_mpi 0" UCX_TLS=self,sm
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv,noheader | tee "$O/smi.txt"
dbl() { OPTS=/tmp/snap/options; export PATH=/opt/squall-deps/cuda/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda; cd /tmp/snap/b; }
sgl() { OPTS=/tmp/snaps/options; export PATH=/opt/squall-deps/cuda-single/bin:$P0 PETSC_DIR=/opt/squall-deps/cuda-single; cd /tmp/snaps/b; }
el() { echo "t=$(($(date +%s) - T0))s"; }
san() {
  local cmd
  cmd=$(ctest -R "^$2\$" -N -V | sed -n 's/.*Test command: //p' | tr -d '"' | sed 's|^[^ ]*mpiexec -n [0-9]* ||')
  echo "== $1 $2: $cmd" >> "$O/sanitizer.log"
  timeout 120 compute-sanitizer --tool "$1" --error-exitcode 9 $cmd >> "$O/sanitizer.log" 2>&1
  echo "$1 $2 rc $?" | tee -a "$O/sanitizer-summary.txt"
}
(sleep "${WATCH:-560}" && tar -C "$(dirname "$O")" -czf "$OUT/$(basename "$O")-watchdog.tgz" "$(basename "$O")") > /dev/null 2>&1 &
WD=$!
finish() {
  kill $WD 2> /dev/null
  tar -C "$(dirname "$O")" -czf "$OUT/$1.tgz" "$(basename "$O")" && echo "packed $1"
}
