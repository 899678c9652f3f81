static char help[] = "Spectral convergence of the hipBone operator: -Laplace(u) = 3 pi^2 u with u = sin(pi x) sin(pi y) sin(pi z)\n"
                     "on the unit cube, homogeneous Dirichlet conditions, lambda = 0, solved by hbcg + Jacobi for the orders\n"
                     "-orders on the mesh of -hb_elements. The nodal max error must fall by at least -min_factor from one\n"
                     "order to the next and end below -max_error. The nodal error cannot fall below the round-off of the\n"
                     "solution (|u| <= 1), taken as 20 machine epsilons: where the previous error divided by -min_factor is\n"
                     "below that floor (single precision), the error must only stay below it.\n";

#include <squall.h>
#include "squalltest.h"

static PetscErrorCode Exact(const PetscReal x[3], PetscScalar *u, void *ctx)
{
  *u = PetscSinReal(PETSC_PI * x[0]) * PetscSinReal(PETSC_PI * x[1]) * PetscSinReal(PETSC_PI * x[2]);
  return PETSC_SUCCESS;
}

static PetscErrorCode Source(const PetscReal x[3], PetscScalar *f, void *ctx)
{
  PetscCall(Exact(x, f, ctx));
  *f *= 3 * PETSC_PI * PETSC_PI;
  return PETSC_SUCCESS;
}

int main(int argc, char **argv)
{
  PetscInt        orders[16] = {2, 3, 4, 5, 6, 7, 8}, norders = 16;
  PetscReal       minfactor = 3, maxerror = 1e-7, prev = -1, err = 0;
  const PetscReal floor = 20 * PETSC_MACHINE_EPSILON;
  PetscBool       flg;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-orders", orders, &norders, &flg));
  if (!flg) norders = 7;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-min_factor", &minfactor, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-max_error", &maxerror, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-hb_dirichlet", "1"));
  PetscCall(PetscOptionsSetValue(NULL, "-hb_lambda", "0"));
  for (PetscInt o = 0; o < norders; o++) {
    Mat      A;
    Vec      b, u, ue;
    KSP      ksp;
    PC       pc;
    PetscInt its;
    char     val[16];

    PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, orders[o]));
    PetscCall(PetscOptionsSetValue(NULL, "-hb_order", val));
    PetscCall(SquallHBCreateSolver(PETSC_COMM_WORLD, PETSC_DECIDE, NULL, Source, NULL, 0, &A, &ksp, &u, &b));
    PetscCall(VecDuplicate(u, &ue));
    PetscCall(SquallHBInterpolate(A, Exact, NULL, ue));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetTolerances(ksp, SQUALL_TOL(1e-13, 1), 1e-30, PETSC_CURRENT, 2000));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, u));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(VecAXPY(u, -1, ue));
    PetscCall(VecNorm(u, NORM_INFINITY, &err));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "N=%2" PetscInt_FMT ": max nodal error %.3e (%" PetscInt_FMT " hbcg iterations)\n", orders[o], (double)err, its));
    if (prev >= 0 && prev / minfactor < floor)
      PetscCheck(err <= floor, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N=%" PetscInt_FMT ": error %g above the round-off floor %g", orders[o], (double)err, (double)floor);
    else
      PetscCheck(prev < 0 || err * minfactor <= prev, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "N=%" PetscInt_FMT ": error %g is not %g times smaller than %g at the previous order", orders[o], (double)err, (double)minfactor, (double)prev);
    prev = err;
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&ue));
    PetscCall(VecDestroy(&u));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
  }
  PetscCheck(err <= PetscMax(maxerror, floor), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "final error %g above %g", (double)err, (double)PetscMax(maxerror, floor));
  PetscCall(PetscFinalize());
  return 0;
}
