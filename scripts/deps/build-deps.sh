#!/usr/bin/env bash
# Build the third-party stack that squall links against, from Debian source tarballs:
#   p4est 2.3.6 (with libsc), hypre 2.32.0, PETSc 3.22.5
# against Debian's MPICH, HDF5 (mpich flavour) and OpenBLAS (apt packages:
# libmpich-dev mpich libhdf5-mpich-dev libopenblas-dev pkg-config autoconf automake libtool zlib1g-dev).
#
# usage: build-deps.sh cpu|cuda PREFIX [SRCDIR [WORKDIR]]
#   cpu  : PETSc without GPU support (what CI and laptops use)
#   cuda : PETSc with CUDA (CUDA_ARCH, default 90 = Hopper) and hypre on the device
# PRECISION=single builds PETSc and hypre in 32-bit floating point (default: double).
# SRCDIR must hold p4est_2.3.6.orig.tar.xz, hypre_2.32.0.orig.tar.gz and
# petsc_3.22.5+dfsg1.orig.tar.xz (scripts/install-deps.sh fetches them: `apt-get source
# --download-only petsc/trixie hypre/trixie p4est/trixie`, sha256-checked).
# WORKDIR (default: a temporary folder) is where the sources are unpacked and built; a rerun with the
# same WORKDIR after a failure resumes at the failed step; it is deleted after a successful install.
set -euo pipefail
variant=${1:?cpu|cuda}; prefix=${2:?prefix}; src=${3:-$PWD/src}; work=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
jobs=${JOBS:-$(nproc)}
cuda_arch=${CUDA_ARCH:-90}
precision=${PRECISION:-double}
mkdir -p "$prefix"; prefix=$(cd "$prefix" && pwd); src=$(cd "$src" && pwd)
if [ -z "$work" ]; then work=$(mktemp -d); fi
mkdir -p "$work"; work=$(cd "$work" && pwd)
for f in p4est_2.3.6.orig.tar.xz hypre_2.32.0.orig.tar.gz petsc_3.22.5+dfsg1.orig.tar.xz; do
  [ -f "$src/$f" ] || { echo "missing $src/$f" >&2; exit 1; }
done
use_mpich_wrappers "$work"
export CC=$MPICC CXX=$MPICXX
log "building p4est 2.3.6, hypre 2.32.0, PETSc 3.22.5 ($variant, $precision) into $prefix, $jobs jobs; work folder $work"

# ---------------- p4est + libsc ----------------
build_p4est() {
  rm -rf "$work/p4est-2.3.6"
  tar -C "$work" -xf "$src/p4est_2.3.6.orig.tar.xz"
  cd "$work/p4est-2.3.6"
  echo 2.3.6 > .tarball-version; echo 2.3.6 > sc/.tarball-version
  ./bootstrap
  ./configure --prefix="$prefix" --enable-mpi --enable-shared --disable-static \
      --without-blas --disable-vtk-binary CFLAGS="-O2 -fPIC"
  make -j"$jobs"
  make install
}
step "$work" 1-p4est "p4est 2.3.6 (configure, make, install)" build_p4est

# ---------------- hypre ----------------
build_hypre() {
  rm -rf "$work/hypre-2.32.0"
  tar -C "$work" -xzf "$src/hypre_2.32.0.orig.tar.gz"
  cd "$work/hypre-2.32.0/src"
  extra=()
  if [ "$variant" = cuda ]; then
    # CUDA 13: cudaMemPrefetchAsync takes a cudaMemLocation; Thrust names removed in CCCL 3
    # come from cuda13/thrust_compat.h; make_reverse_iterator must be qualified (ADL ambiguity).
    python3 - <<'PY'
p = 'utilities/memory.c'
s = open(p).read()
for dev, loc in (("hypre_HandleDevice(hypre_handle())", "{cudaMemLocationTypeDevice, hypre_HandleDevice(hypre_handle())}"),
                 ("cudaCpuDeviceId", "{cudaMemLocationTypeHost, 0}")):
    old = ("      HYPRE_CUDA_CALL( cudaMemPrefetchAsync(ptr, size, %s,\n"
           "                                            hypre_HandleComputeStream(hypre_handle())) );" % dev)
    assert old in s, old
    new = ("#if CUDART_VERSION >= 13000\n      { struct cudaMemLocation loc = %s;\n"
           "        HYPRE_CUDA_CALL( cudaMemPrefetchAsync(ptr, size, loc, 0, hypre_HandleComputeStream(hypre_handle())) ); }\n"
           "#else\n%s\n#endif" % (loc, old))
    s = s.replace(old, new)
open(p, 'w').write(s)
PY
    grep -rl "make_reverse_iterator" --include=*.c --include=*.h --include=*.hpp . |
      xargs sed -i -E 's/([^:a-z_])make_reverse_iterator\(/\1thrust::make_reverse_iterator(/g'
    extra=(--with-cuda --with-gpu-arch="$cuda_arch" --with-cxxstandard=17 --with-cuda-home=/usr/local/cuda
           --with-extra-CUFLAGS="-include $here/thrust_compat.h")
  fi
  if [ "$precision" = single ]; then extra+=(--enable-single); fi
  ./configure --prefix="$prefix" --enable-shared --with-MPI \
      --with-blas-lib="-lopenblas" --with-lapack-lib="-lopenblas" \
      CFLAGS="-O2" CXXFLAGS="-O2" "${extra[@]}"
  make -j"$jobs"
  make install
}
step "$work" 2-hypre "hypre 2.32.0 (configure, make, install)" build_hypre

# ---------------- PETSc ----------------
unpack_petsc() {
  rm -rf "$work"/petsc-3.22.5*
  tar -C "$work" -xf "$src/petsc_3.22.5+dfsg1.orig.tar.xz"
  cd "$work"/petsc-3.22.5*
  # CUDA 13 (CCCL 3) removed cudaDeviceProp::clockRate/memoryClockRate, thrust::unary_function
  # and thrust::identity, which PETSc 3.22 still uses: adapt those few lines.
  sed -i '/dprop_.clockRate\|dprop_.memoryClockRate/d' src/sys/objects/device/impls/cupm/cupmdevice.cxx
  sed -i 's/ : public thrust::unary_function<.*> {/ {/' src/sys/classes/random/impls/curand/curand2.cu
  sed -i 's/thrust::identity<int>()/PetscThrustIdentityInt()/' src/mat/impls/aij/seq/seqcusparse/aijcusparse.cu
  sed -i '0,/^#include/s//struct PetscThrustIdentityInt { __host__ __device__ int operator()(int x) const { return x; } };\n#include/' src/mat/impls/aij/seq/seqcusparse/aijcusparse.cu
  # CUDA 13 also dropped libnvToolsExt (NVTX 3 is header-only)
  sed -i "s/\['libcudart.a','libnvToolsExt.a'\]/['libcudart.a']/; s/\['cudart.lib','nvToolsExt.lib'\]/['cudart.lib']/" config/BuildSystem/config/packages/cuda.py
  sed -i 's#<nvToolsExt.h>#<nvtx3/nvToolsExt.h>#' src/sys/logging/handler/impls/nvtx/lognvtx.c
  # ... and three cufftResult codes
  sed -i '/case CUFFT_INCOMPLETE_PARAMETER_LIST:/,+1d; /case CUFFT_PARSE_ERROR:/,+1d; /case CUFFT_LICENSE_ERROR:/,+1d' src/sys/error/err.c
  # ... and thrust/async (only included, its use is compiled out)
  sed -i '/#include <thrust\/async\/for_each.h>/d' src/mat/impls/aij/seq/seqcusparse/aijcusparse.cu
}
configure_petsc() {
  cd "$work"/petsc-3.22.5*
  extra=()
  if [ "$variant" = cuda ]; then
    extra=(--with-cuda=1 --with-cuda-dir=/usr/local/cuda --with-cuda-arch="$cuda_arch")
  fi
  if [ "$precision" = single ]; then extra+=(--with-precision=single); fi
  ./configure --prefix="$prefix" --with-debugging=0 \
      COPTFLAGS="-O2" CXXOPTFLAGS="-O2" CUDAOPTFLAGS="-O2" \
      --with-cc="$MPICC" --with-cxx="$MPICXX" --with-fc=0 --with-cxx-dialect=17 \
      --with-shared-libraries=1 --with-x=0 \
      --with-blaslapack-lib=-lopenblas \
      --with-p4est-dir="$prefix" --with-zlib=1 \
      --with-hypre-dir="$prefix" \
      --with-hdf5-include=/usr/include/hdf5/mpich \
      --with-hdf5-lib="-L/usr/lib/x86_64-linux-gnu/hdf5/mpich -lhdf5_hl -lhdf5" \
      "${extra[@]}"
}
make_petsc() { cd "$work"/petsc-3.22.5* && make PETSC_DIR="$PWD" PETSC_ARCH=arch-linux-c-opt MAKE_NP="$jobs" all; }
install_petsc() { cd "$work"/petsc-3.22.5* && make PETSC_DIR="$PWD" PETSC_ARCH=arch-linux-c-opt install; }
step "$work" 3-petsc-unpack "PETSc 3.22.5: unpack, CUDA 13 adaptations" unpack_petsc
step "$work" 4-petsc-configure "PETSc configure" configure_petsc
step "$work" 5-petsc-make "PETSc make" make_petsc
step "$work" 6-petsc-install "PETSc make install" install_petsc
check_petsc() { cd "$work"/petsc-3.22.5* && make PETSC_DIR="$prefix" PETSC_ARCH= check; }
if [ "$variant" = cpu ] || { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; }; then
  step "$work" 7-petsc-check "PETSc make check (its example runs)" check_petsc
fi
mkdir -p "$prefix/share/squall-deps"
cp "$work"/logs/*.log "$prefix/share/squall-deps/" 2>/dev/null || true
rm -rf "$work"
log "deps ($variant) installed in $prefix"
