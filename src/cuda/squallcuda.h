/* squall's CUDA device query. A private header (not installed), but the symbol is public so the tests
   and benchmarks can call it. Without CUDA its CPU stub (src/sys/cudastub.c) reports 0. The kernels'
   own interfaces are src/cuda/<capability>kernels.h (or .h) with stubs in src/<layer>/<capability>cudastub.c. */
#pragma once

#include <petscsys.h>

/* number of visible CUDA devices; 0 without CUDA, without a device, or when the query fails */
PETSC_EXTERN PetscErrorCode SquallCUDADeviceCount(PetscInt *);
