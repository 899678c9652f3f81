/* CPU stubs of the hipBone CUDA entry points (src/cuda/hbop.cu, src/cuda/hbcg.cu), compiled only in
   builds without CUDA. They are unreachable there (no vector is ever of a CUDA type), so each one only
   reports the build; the destroy function succeeds, and there is no GPU to run mma. */
#include "ksp/hbimpl.h"

PetscErrorCode SquallHBMultCUDA(SquallHBOpDesc *d, Vec x, Vec y, PetscBool wantdot, PetscReal *dot, PetscReal *ddot)
{
  PetscFunctionBegin;
  SETERRQ(d->comm, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG " (hipBone operator on device vectors)");
}

PetscErrorCode SquallHBDestroyCUDA(SquallHBOpDesc *d)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBMmaUsableCUDA(PetscInt N, PetscBool *usable)
{
  PetscFunctionBegin;
  *usable = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBCGUpdateCUDA(PetscReal alpha, PetscReal *pap, Vec W, Vec R, Vec dinv, Vec Z, Vec P, Vec X, PetscLogEvent ev_solution, PetscReal dots[])
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)R), PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG " (hbcg on device vectors)");
}

PetscErrorCode SquallHBCGDotsCUDA(Vec R, Vec dinv, Vec Z, PetscReal dots[])
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)R), PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG " (hbcg on device vectors)");
}

PetscErrorCode SquallHBCGDirectionCUDA(PetscBool first, PetscReal beta, Vec Z, Vec P, PetscReal alpha, Vec X)
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)Z), PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG " (hbcg on device vectors)");
}

PetscErrorCode SquallHBCGDeviceDot(PetscReal **pap)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG " (hbcg on device vectors)");
}

PetscErrorCode SquallHBCGAlphaCUDA(PetscBool first, PetscBool pc)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG " (hbcg on device vectors)");
}
