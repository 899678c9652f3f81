#pragma once
/* Test tolerances that follow the precision PETSc was built with, the GPU tests' skip, and helpers the tests share.

   SQUALL_TOL(d, k): the double-precision tolerance d of a test, or k machine epsilons where that is larger.
   k * PETSC_MACHINE_EPSILON is the round-off bound of the checked quantity (k counts the operations, or the
   condition of the problem, that the comment next to each use names); every use keeps k * 2.2e-16 <= d, so in
   double the test is exactly as strict as d says, and in single (eps = 1.2e-7), where d is below round-off,
   the bound is k eps. */
#include <squall.h>

#define SQUALL_TOL(d, k) PetscMax((PetscReal)(d), (PetscReal)(k)*PETSC_MACHINE_EPSILON)

/* In main(), after PetscInitialize(): where no rank sees a CUDA device the test ends here as skipped (exit code
   200, the tests' SKIP_RETURN_CODE), saying why */
#define SQUALL_TEST_SKIP_WITHOUT_GPU()                                                                                                               \
  do {                                                                                                                                               \
    PetscBool gpu_;                                                                                                                                  \
    PetscCall(SquallCUDAAvailable(PETSC_COMM_WORLD, &gpu_));                                                                                         \
    if (!gpu_) {                                                                                                                                     \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "no GPU: skipped (%s)\n", SquallHaveCUDA() ? "no CUDA device visible" : "squall built without CUDA")); \
      PetscCall(PetscFinalize());                                                                                                                    \
      return 200;                                                                                                                                    \
    }                                                                                                                                                \
  } while (0)

/* y = diag(s(r)) x over the global rows r of x: the body of the diagonal PCShell applies of the CG tests */
static inline PetscErrorCode SquallTestScaleRows(Vec x, Vec y, PetscReal (*s)(PetscInt))
{
  PetscInt           n, rstart;
  const PetscScalar *xa;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetOwnershipRange(x, &rstart, NULL));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  for (PetscInt i = 0; i < n; i++) ya[i] = s(rstart + i) * xa[i];
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = x between vectors of the same layout in different memory spaces (host and device), through the host arrays */
static inline PetscErrorCode SquallTestCopyValues(Vec x, Vec y)
{
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  PetscCall(PetscArraycpy(ya, xa, n));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}
