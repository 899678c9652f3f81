# Source this: sets PETSC_DIR (installing the dependencies if needed) and PATH for squall.
#   . scripts/env.sh
_squall_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PETSC_DIR=$(bash "$_squall_root/scripts/install-deps.sh" | tail -n 1) || return 1
export PETSC_DIR
# the relocatable CUDA bundle carries MPICH's wrappers and mpiexec
[ -x "$PETSC_DIR/bin/mpiexec" ] && export PATH="$PETSC_DIR/bin:$PATH"
if grep -q '^#define PETSC_HAVE_CUDA 1' "$PETSC_DIR/${PETSC_ARCH:-}/include/petscconf.h" 2>/dev/null || grep -q '^#define PETSC_HAVE_CUDA 1' "$PETSC_DIR/include/petscconf.h" 2>/dev/null; then
  export SQUALL_PETSC_CUDA=1
  # the bundle's MPICH is not CUDA-aware
  case " ${PETSC_OPTIONS:-} " in *use_gpu_aware_mpi*) ;; *) export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0" ;; esac
else
  export SQUALL_PETSC_CUDA=0
fi
