/* CPU stubs of the CUDA entry points in src/cuda/squallcuda.h, for builds without CUDA. */
#include "sys/squallimpl.h"
#include "cuda/squallcuda.h"

#if !defined(SQUALL_HAVE_CUDA)
PetscErrorCode SquallCUDADeviceCount(PetscInt *n)
{
  PetscFunctionBegin;
  PetscAssertPointer(n, 1);
  *n = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshCheckCoordinatesCUDA(SquallDGMesh m, Vec x, PetscReal *maxerr)
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)x), PETSC_ERR_SUP_SYS, "squall was built without CUDA (reconfigure with a CUDA-enabled PETSc)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallCUDAScaleCopy(Vec x, PetscReal alpha, Vec y)
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)x), PETSC_ERR_SUP_SYS, "squall was built without CUDA (reconfigure with a CUDA-enabled PETSc)");
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
