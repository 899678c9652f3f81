static char help[] = "A plain PETSc program that knows nothing of squall: with -ts_type lsrk -dll_append <libsquall> it must get TS lsrk\n"
                     "and solve u' = -u to t = 1; without -dll_append PETSc must report the type as unknown.\n"
                     "With -expect_ksp hbcg (and -ksp_type hbcg) it also solves a small SPD system with squall's KSP.\n";

/* Deliberately not linked to libsquall and without squall.h: the only way in is PETSc's dynamic loading. */
#include <petscts.h>
#include <petscksp.h>

/* a 1D Laplacian plus identity solved by the KSP chosen on the command line */
static PetscErrorCode ProbeKSP(const char expect[])
{
  Mat       A;
  Vec       x, b;
  KSP       ksp;
  KSPType   type;
  PetscBool match;
  PetscInt  n = 50, rs, re, its;
  PetscReal rnorm;

  PetscFunctionBeginUser;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 2, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, i, i, 3.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPGetType(ksp, &type));
  PetscCall(PetscStrcmp(type, expect, &match));
  PetscCheck(match, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "KSPGetType() returned %s, expected %s", type, expect);
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  PetscCheck(rnorm < 1e-8, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "KSP %s did not converge: residual %g", type, (double)rnorm);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP type %s loaded with -dll_append: %" PetscInt_FMT " iterations, residual %.2e\n", type, its, (double)rnorm));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RHS(TS ts, PetscReal t, Vec U, Vec F, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(VecAXPBY(F, -1.0, 0.0, U));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  TS        ts;
  Vec       U;
  TSType    type;
  PetscBool match;
  PetscReal err;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, 1, PETSC_DECIDE, &U));
  PetscCall(VecSet(U, 1.0));
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetRHSFunction(ts, NULL, RHS, NULL));
  PetscCall(TSSetTimeStep(ts, 0.1));
  PetscCall(TSSetMaxTime(ts, 1.0));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSGetType(ts, &type));
  PetscCall(PetscStrcmp(type, "lsrk", &match));
  PetscCheck(match, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "TSGetType() returned %s, expected lsrk (run with -ts_type lsrk -dll_append <libsquall>)", type);
  PetscCall(TSSolve(ts, U));
  PetscCall(TSView(ts, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(VecShift(U, -PetscExpReal(-1.0)));
  PetscCall(VecNorm(U, NORM_INFINITY, &err));
  PetscCheck(err < 1e-6, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "u(1) is off exp(-1) by %g", (double)err);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TS type %s loaded with -dll_append, error at t = 1: %.2e\n", type, (double)err));
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&U));
  {
    char      expect[64];
    PetscBool flg;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-expect_ksp", expect, sizeof(expect), &flg));
    if (flg) PetscCall(ProbeKSP(expect));
  }
  PetscCall(PetscFinalize());
  return 0;
}
