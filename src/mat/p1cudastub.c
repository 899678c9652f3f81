/* CPU stubs of the P1 CUDA entry points in src/cuda/p1cuda.h, for builds without CUDA. */
#include "cuda/p1cuda.h"

#if !defined(SQUALL_HAVE_CUDA)
#  define P1_NO_CUDA SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "squall was built without CUDA (reconfigure with a CUDA-enabled PETSc), so -p1_backend cuda is not available")

PetscErrorCode SquallP1CUDASetUp(SquallP1 p1)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDADestroy(SquallP1 p1)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAComputeGeometry(SquallP1 p1)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDAAssembleOperator(SquallP1 p1, PetscInt bs, const PetscReal coef[], Mat A)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDAElementValuesCOO(SquallP1 p1, PetscInt bs, const PetscReal coef[])
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDAAssembleRHS(SquallP1 p1, PetscInt bs, const PetscReal coef[], Vec floc, Vec b, PetscBool coo)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDAComputeElementMetric(SquallP1 p1, PetscReal scale, Vec L, Vec h, PetscInt *nbad)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDAGetGeometry(SquallP1 p1, PetscReal *geom)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDATimerCreate(SquallP1CUDATimer *t)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDATimerStart(SquallP1CUDATimer t)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDATimerStop(SquallP1CUDATimer t, PetscLogDouble *ms)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDATimerDestroy(SquallP1CUDATimer *t)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDASynchronize(void)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode SquallP1CUDACopyToHost(PetscScalar *host, const PetscScalar *device, PetscInt n)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "squall was built without CUDA");
  PetscFunctionReturn(PETSC_SUCCESS);
}
PetscErrorCode SquallP1CUDAAtomicProbe(PetscInt n, PetscInt updates, PetscInt reps, PetscLogDouble rates[])
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}
#endif
