/* CPU stub of the device query in src/cuda/squallcuda.h, for builds without CUDA. */
#include "sys/squallimpl.h"
#include "cuda/squallcuda.h"

PetscErrorCode SquallCUDADeviceCount(PetscInt *n)
{
  PetscFunctionBegin;
  PetscAssertPointer(n, 1);
  *n = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
