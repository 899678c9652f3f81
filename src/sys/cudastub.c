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
PetscErrorCode SquallLSRKStageUpdateCUDA(Vec Q, Vec K, Vec F, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b)
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)Q), PETSC_ERR_SUP_SYS, "squall was built without CUDA (reconfigure with a CUDA-enabled PETSc)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGSetUpCUDA(SquallESDG s)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "squall was built without CUDA: -dm_vec_type cuda is not available");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGDestroyCUDA(SquallESDG s)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGComputeRHS_CUDA(SquallESDG s, PetscReal t, Vec Q, Vec F)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "squall was built without CUDA");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGStage_CUDA(SquallESDG s, PetscReal t, Vec Q, Vec K, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b, PetscBool *done)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "squall was built without CUDA");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGNodeReduceCUDA(SquallESDG s, Vec Q, PetscReal *lmax, PetscInt *nbad)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "squall was built without CUDA");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGStageVerdictCUDA(SquallESDG s, Vec X, PetscBool *known, PetscBool *bad)
{
  PetscFunctionBegin;
  (void)s;
  (void)X;
  *known = PETSC_FALSE;
  *bad   = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGTimeKernelCUDA(SquallESDG s, Vec Q, Vec F, const char *which, PetscInt reps, PetscReal *ms)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "squall was built without CUDA");
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
