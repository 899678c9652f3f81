/* CPU stubs of the hipBone CUDA entry points (src/cuda/hb*.cu), for builds without CUDA. They are
   unreachable there (no vector is ever of a CUDA type), so each one only reports the build. */
#include "ksp/hbimpl.h"

#if !defined(SQUALL_HAVE_CUDA)
#  define HB_NO_CUDA SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "squall was built without CUDA (reconfigure with a CUDA-enabled PETSc)")

PetscErrorCode SquallHBMultCUDA(Mat_HB *hb, Vec x, Vec y, PetscBool wantdot, PetscReal *dot)
{
  PetscFunctionBegin;
  HB_NO_CUDA;
}

PetscErrorCode SquallHBDestroyCUDA(Mat_HB *hb)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBBenchmarkCUDA(Mat_HB *hb, Vec x, Vec y, PetscInt reps, SquallHBBenchResult *res)
{
  PetscFunctionBegin;
  HB_NO_CUDA;
}

PetscErrorCode SquallHBCGUpdateCUDA(PetscReal alpha, Vec W, Vec R, Vec dinv, Vec Z, Vec P, Vec X, PetscReal dots[])
{
  PetscFunctionBegin;
  HB_NO_CUDA;
}

PetscErrorCode SquallHBCGDotsCUDA(Vec R, Vec dinv, Vec Z, PetscReal dots[])
{
  PetscFunctionBegin;
  HB_NO_CUDA;
}

PetscErrorCode SquallHBCGDirectionCUDA(PetscBool first, PetscReal beta, Vec Z, Vec P)
{
  PetscFunctionBegin;
  HB_NO_CUDA;
}
#endif
