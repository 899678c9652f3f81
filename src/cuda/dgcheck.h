/* Vector kernels of the DG mesh's GPU check (src/cuda/dgcheck.cu). A private header (not installed);
   the symbols are public so that the tests can call them. Without CUDA each has a CPU stub
   (src/dm/dgcheckcudastub.c). */
#pragma once

#include <petscvec.h>

/* max |x_i - ref_i| over the n local entries of the VECCUDA x, with ref a host array (uploaded
   separately from x for the comparison); collective: the max over x's communicator */
PETSC_EXTERN PetscErrorCode SquallCUDAMaxAbsDiff(Vec x, const PetscReal ref[], PetscInt n, PetscReal *maxerr);
/* y = alpha*x by a CUDA kernel; x and y are VECCUDA of the same local size */
PETSC_EXTERN PetscErrorCode SquallCUDAScaleCopy(Vec x, PetscReal alpha, Vec y);
