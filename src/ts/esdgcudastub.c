/* CPU stubs of the CUDA entry points in src/cuda/esdgkernels.h, for builds without CUDA. */
#include "sys/squallimpl.h"
#include "cuda/esdgkernels.h"

PetscErrorCode SquallESDGKernelsCreate(MPI_Comm comm, const SquallESDGKernelsSetup *in, SquallESDGKernels *k)
{
  PetscFunctionBegin;
  SETERRQ(comm, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG ": -dm_vec_type cuda is not available");
}

PetscErrorCode SquallESDGKernelsDestroy(SquallESDGKernels *k)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGKernelsFaces(SquallESDGKernels k, const SquallESDGKernelArgs *a, PetscInt first, PetscInt count)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallESDGKernelsVolume(SquallESDGKernels k, const SquallESDGKernelArgs *a, PetscInt first, PetscInt count)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallESDGKernelsReduce(SquallESDGKernels k, const SquallESDGKernelArgs *a, PetscReal *lmax, PetscInt *nbad)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallESDGKernelsGetFlags(SquallESDGKernels k, PetscInt flags[2])
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}
