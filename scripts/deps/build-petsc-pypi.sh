#!/usr/bin/env bash
# Build PETSc from its PyPI source distribution, with p4est 2.3.6 and hypre 2.32.0 from Debian's
# orig tarballs built by PETSc's configure (--download-p4est=FILE --download-hypre=FILE, offline),
# against Debian's MPICH, HDF5 (mpich flavour) and OpenBLAS
# (apt packages: libmpich-dev mpich libhdf5-mpich-dev libopenblas-dev autoconf automake libtool zlib1g-dev).
#
# usage: build-petsc-pypi.sh cpu|cuda PREFIX SRCDIR WORKDIR
#   SRCDIR holds petsc-$PETSC_VERSION.tar.gz, p4est_2.3.6.orig.tar.xz, hypre_2.32.0.orig.tar.gz
#     (install-deps.sh downloads and checks them).
#   WORKDIR is where PETSc is unpacked and built; a rerun after a failure resumes there at the
#     failed step; it is deleted after a successful install (SQUALL_DEPS_KEEP_BUILD=1 keeps it).
#   cuda: PETSc with CUDA (CUDA_ARCH, default 90 = Hopper) and hypre on the device.
# PETSC_VERSION (default 3.26.1), PRECISION=single|double (default double), JOBS (default nproc).
set -euo pipefail
variant=${1:?cpu|cuda}; prefix=${2:?prefix}; src=${3:?srcdir}; work=${4:?workdir}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
version=${PETSC_VERSION:-3.26.1}
jobs=${JOBS:-$(nproc)}
cuda_arch=${CUDA_ARCH:-90}
precision=${PRECISION:-double}
cuda_dir=${CUDA_DIR:-/usr/local/cuda}
mkdir -p "$prefix" "$work"
prefix=$(cd "$prefix" && pwd); src=$(cd "$src" && pwd); work=$(cd "$work" && pwd)
for f in "petsc-$version.tar.gz" p4est_2.3.6.orig.tar.xz hypre_2.32.0.orig.tar.gz; do
  [ -f "$src/$f" ] || die "missing $src/$f"
done
use_mpich_wrappers "$work"
petsc_arch=arch-squall-$variant-$precision
pdir=$work/petsc-$version

unpack_petsc() {
  rm -rf "$pdir"
  tar -C "$work" -xzf "$src/petsc-$version.tar.gz"
  [ -x "$pdir/configure" ]
}

# p4est's version comes from git-version-gen, which reads .tarball-version (absent from Debian's
# orig tarball, and there is no git here): without it PETSc's configure misreports p4est's version.
repack_p4est() {
  rm -rf "$work/p4est-pack" && mkdir -p "$work/p4est-pack"
  tar -C "$work/p4est-pack" -xJf "$src/p4est_2.3.6.orig.tar.xz"
  echo 2.3.6 > "$work/p4est-pack/p4est-2.3.6/.tarball-version"
  echo 2.3.6 > "$work/p4est-pack/p4est-2.3.6/sc/.tarball-version"
  tar -C "$work/p4est-pack" -czf "$work/p4est-2.3.6.tar.gz" p4est-2.3.6
  rm -rf "$work/p4est-pack"
}

# hypre 2.32.0 on CUDA 13: cudaMemPrefetchAsync takes a cudaMemLocation; the Thrust names CCCL 3
# removed come from thrust_compat.h (force-included into every nvcc compile of hypre);
# make_reverse_iterator must be qualified (ADL ambiguity). The same fixes as build-deps.sh.
repack_hypre_cuda() {
  rm -rf "$work/hypre-pack" && mkdir -p "$work/hypre-pack"
  tar -C "$work/hypre-pack" -xzf "$src/hypre_2.32.0.orig.tar.gz"
  (
    cd "$work/hypre-pack/hypre-2.32.0/src"
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
p = 'config/Makefile.config.in'
s = open(p).read()
old = 'CUFLAGS   = @CUFLAGS@'
assert old in s
s = s.replace(old, 'CUFLAGS   = -include ${HYPRE_SRC_TOP_DIR}/utilities/hypre_thrust_compat.h @CUFLAGS@')
open(p, 'w').write(s)
PY
    cp "$here/thrust_compat.h" utilities/hypre_thrust_compat.h
    grep -rl "make_reverse_iterator" --include=*.c --include=*.h --include=*.hpp . |
      xargs sed -i -E 's/([^:a-z_])make_reverse_iterator\(/\1thrust::make_reverse_iterator(/g'
  )
  tar -C "$work/hypre-pack" -czf "$work/hypre-2.32.0-cuda13.tar.gz" hypre-2.32.0
  rm -rf "$work/hypre-pack"
}

configure_petsc() {
  cd "$pdir"
  local hypre_tgz=$src/hypre_2.32.0.orig.tar.gz extra=()
  if [ "$variant" = cuda ]; then
    hypre_tgz=$work/hypre-2.32.0-cuda13.tar.gz
    extra+=(--with-cuda=1 --with-cuda-dir="$cuda_dir" --with-cuda-arch="$cuda_arch" CUDAOPTFLAGS=-O2)
  fi
  [ "$precision" = single ] && extra+=(--with-precision=single)
  ./configure PETSC_ARCH="$petsc_arch" --prefix="$prefix" --with-debugging=0 \
    COPTFLAGS=-O2 CXXOPTFLAGS=-O2 \
    --with-cc="$MPICC" --with-cxx="$MPICXX" --with-fc=0 --with-cxx-dialect=17 \
    --with-shared-libraries=1 --with-x=0 --with-make-np="$jobs" \
    --with-blaslapack-lib=-lopenblas --with-zlib=1 \
    --with-hdf5-include=/usr/include/hdf5/mpich \
    --with-hdf5-lib="-L/usr/lib/x86_64-linux-gnu/hdf5/mpich -lhdf5_hl -lhdf5" \
    --download-p4est="$work/p4est-2.3.6.tar.gz" \
    --download-hypre="$hypre_tgz" \
    "${extra[@]}"
}

make_petsc() { cd "$pdir" && make PETSC_DIR="$pdir" PETSC_ARCH="$petsc_arch" MAKE_NP="$jobs" all; }
install_petsc() { cd "$pdir" && make PETSC_DIR="$pdir" PETSC_ARCH="$petsc_arch" install; }
check_petsc() { cd "$pdir" && make PETSC_DIR="$prefix" PETSC_ARCH= check; }

log "building PETSc $version ($variant, $precision) into $prefix, $jobs jobs; work folder $work"
step "$work" 1-unpack "PETSc $version: unpack the source distribution" unpack_petsc
step "$work" 2-p4est "p4est 2.3.6: repack Debian's orig tarball with its version" repack_p4est
[ "$variant" = cuda ] && step "$work" 3-hypre "hypre 2.32.0: CUDA 13 fixes" repack_hypre_cuda
step "$work" 4-configure "PETSc configure (builds p4est and hypre too; the longest step)" configure_petsc
step "$work" 5-make "PETSc make" make_petsc
step "$work" 6-install "PETSc make install" install_petsc
if [ "$variant" = cpu ] || { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; }; then
  step "$work" 7-check "PETSc make check (its example runs)" check_petsc
fi
mkdir -p "$prefix/share/squall-deps"
cp "$work"/logs/*.log "$prefix/share/squall-deps/" 2>/dev/null || true
cp "$pdir/$petsc_arch/lib/petsc/conf/configure.log" "$prefix/share/squall-deps/" 2>/dev/null || true
if [ "${SQUALL_DEPS_KEEP_BUILD:-0}" != 1 ]; then rm -rf "$work"; fi
log "PETSc $version ($variant, $precision) installed in $prefix"
