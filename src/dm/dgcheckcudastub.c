/* CPU stubs of the CUDA entry points in src/cuda/dgcheck.h, for builds without CUDA. */
#include "sys/squallimpl.h"
#include "cuda/dgcheck.h"

PetscErrorCode SquallCUDAMaxAbsDiff(Vec x, const PetscReal ref[], PetscInt n, PetscReal *maxerr)
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)x), PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallCUDAScaleCopy(Vec x, PetscReal alpha, Vec y)
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)x), PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}
