static char help[] = "KSP hbcg as a PETSc KSP on assembled matrices, against PETSc's cg in the cases the hipBone tests do not reach:\n"
                     "a nonzero initial guess, KSPSolveTranspose(), an indefinite matrix, an indefinite preconditioner, a NaN in the\n"
                     "right-hand side (same converged reason at the same iteration), KSPSetErrorIfNotConverged() (both raise\n"
                     "PETSC_ERR_NOT_CONVERGED). -n: rows of the 1D Laplacian (default 60).\n";

#include <math.h>
#include <squall.h>
#include "squalltest.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)
#define MAXHIST 1000

typedef struct {
  PetscReal          h[MAXHIST];
  PetscInt           n, its;
  KSPConvergedReason reason;
  Vec                x;
} Result;

/* diag(d) + shift * (the 1D Laplacian's off-diagonal -1s): SPD for d = 2, shift = 1 */
static PetscErrorCode Matrix(PetscInt n, PetscReal shift, PetscInt nneg, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBegin;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 2, NULL, A));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt i = rs; i < re; i++) {
    /* the last nneg rows get a large negative diagonal: an indefinite matrix */
    const PetscScalar d = i >= n - nneg ? -50.0 : 2.0 + 0.01 * i;

    PetscCall(MatSetValue(*A, i, i, d, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(*A, i, i - 1, -shift, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(*A, i, i + 1, -shift, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a diagonal preconditioner with a negative entry in every seventh row: indefinite */
static PetscReal IndefiniteScale(PetscInt r)
{
  return r % 7 == 3 ? -1.0 : 1.0;
}

static PetscErrorCode IndefinitePCApply(PC pc, Vec x, Vec y)
{
  return SquallTestScaleRows(x, y, IndefiniteScale);
}

typedef struct {
  PetscBool guess, transpose, indefinitepc, pcnone, erronfail;
} Case;

/* one solve; with erronfail the KSPSolve() error code is returned in *err instead of raised */
static PetscErrorCode Solve(Mat A, Vec b, Vec x0, KSPType type, Case c, Result *r, PetscErrorCode *err)
{
  KSP        ksp;
  PC         pc;
  PetscReal *h;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetPC(ksp, &pc));
  if (c.indefinitepc) {
    PetscCall(PCSetType(pc, PCSHELL));
    PetscCall(PCShellSetApply(pc, IndefinitePCApply));
    PetscCall(PCShellSetApplyTranspose(pc, IndefinitePCApply));
  } else
    PetscCall(PCSetType(pc, c.pcnone ? PCNONE : PCJACOBI)); /* Jacobi of an indefinite matrix would be an indefinite PC */
  /* rtol 1e-10, or 1000 eps where that is below what CG attains (single) */
  PetscCall(KSPSetTolerances(ksp, SQUALL_TOL(1e-10, 1000), PETSC_CURRENT, PETSC_CURRENT, 400));
  PetscCall(KSPSetResidualHistory(ksp, NULL, MAXHIST, PETSC_TRUE));
  PetscCall(KSPSetErrorIfNotConverged(ksp, c.erronfail));
  PetscCall(VecDuplicate(b, &r->x));
  if (c.guess) {
    PetscCall(VecCopy(x0, r->x));
    PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
  }
  if (c.erronfail) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    *err = c.transpose ? KSPSolveTranspose(ksp, b, r->x) : KSPSolve(ksp, b, r->x);
    PetscCall(PetscPopErrorHandler());
  } else if (c.transpose)
    PetscCall(KSPSolveTranspose(ksp, b, r->x));
  else
    PetscCall(KSPSolve(ksp, b, r->x));
  PetscCall(KSPGetResidualHistory(ksp, (const PetscReal **)&h, &r->n));
  for (PetscInt i = 0; i < r->n; i++) r->h[i] = h[i];
  PetscCall(KSPGetIterationNumber(ksp, &r->its));
  PetscCall(KSPGetConvergedReason(ksp, &r->reason));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(const char what[], const Result *a, const Result *b, PetscReal tol)
{
  PetscReal d = 0, dx, nx;
  Vec       e;

  PetscFunctionBegin;
  CHECK(a->reason == b->reason, "%s: cg stops with %s, hbcg with %s", what, KSPConvergedReasons[a->reason], KSPConvergedReasons[b->reason]);
  CHECK(a->its == b->its && a->n == b->n, "%s: cg %" PetscInt_FMT " iterations (%" PetscInt_FMT " norms), hbcg %" PetscInt_FMT " (%" PetscInt_FMT ")", what, a->its, a->n, b->its, b->n);
  for (PetscInt i = 0; i < a->n; i++) d = PetscMax(d, PetscAbsReal(a->h[i] - b->h[i]) / a->h[0]);
  PetscCall(VecDuplicate(a->x, &e));
  PetscCall(VecWAXPY(e, -1.0, a->x, b->x));
  PetscCall(VecNorm(e, NORM_INFINITY, &dx));
  PetscCall(VecNorm(a->x, NORM_INFINITY, &nx));
  PetscCall(VecDestroy(&e));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-44s %-28s %3" PetscInt_FMT " iterations, residuals differ by %.1e of r0, solutions by %.1e\n", what, KSPConvergedReasons[a->reason], a->its, (double)d, (double)(nx > 0 ? dx / nx : dx)));
  CHECK(d <= tol, "%s: residual histories differ by %g (relative to r0), more than %g", what, (double)d, (double)tol);
  CHECK(dx <= tol * PetscMax(nx, 1), "%s: solutions differ by %g, more than %g", what, (double)dx, (double)(tol * PetscMax(nx, 1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A, Aind;
  Vec         b, x0, bnan;
  PetscRandom rnd;
  Result      rc, rh;
  PetscInt    n   = 60;
  PetscReal   tol = SQUALL_TOL(1e-12, 1000); /* round-off of the residual norms and solutions (the condition of A ~ 1e3) */
  const struct {
    const char        *name;
    Case               c;
    PetscBool          indefinite, nan;
    KSPConvergedReason expect; /* what cg is expected to stop with: the case must reach its branch */
  } cases[] = {
    {"nonzero initial guess", {PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, PETSC_FALSE, PETSC_FALSE, KSP_CONVERGED_RTOL},
    {"KSPSolveTranspose, nonzero guess", {PETSC_TRUE, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, PETSC_FALSE, PETSC_FALSE, KSP_CONVERGED_RTOL},
    {"indefinite matrix", {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE}, PETSC_TRUE, PETSC_FALSE, KSP_DIVERGED_INDEFINITE_MAT},
    {"indefinite preconditioner", {PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE}, PETSC_FALSE, PETSC_FALSE, KSP_DIVERGED_INDEFINITE_PC},
    {"NaN in the right-hand side", {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, PETSC_FALSE, PETSC_TRUE, KSP_DIVERGED_NANORINF},
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SquallInitializePackage()); /* registers KSP hbcg */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(Matrix(n, 1.0, 0, &A));
  PetscCall(Matrix(n, 1.0, 3, &Aind));
  PetscCall(MatCreateVecs(A, &x0, &b));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 12345));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(b, rnd));
  PetscCall(VecSetRandom(x0, rnd));
  PetscCall(VecDuplicate(b, &bnan));
  PetscCall(VecCopy(b, bnan));
  PetscCall(VecSetValue(bnan, n / 2, (PetscScalar)NAN, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(bnan));
  PetscCall(VecAssemblyEnd(bnan));

  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(cases); k++) {
    Mat M   = cases[k].indefinite ? Aind : A;
    Vec rhs = cases[k].nan ? bnan : b;

    PetscCall(Solve(M, rhs, x0, KSPCG, cases[k].c, &rc, NULL));
    PetscCall(Solve(M, rhs, x0, SQUALL_KSPHBCG, cases[k].c, &rh, NULL));
    CHECK(rc.reason == cases[k].expect, "%s: PETSc's cg stops with %s, not %s: the case does not test what it says", cases[k].name, KSPConvergedReasons[rc.reason], KSPConvergedReasons[cases[k].expect]);
    if (cases[k].nan) {
      CHECK(rh.reason == rc.reason && rh.its == rc.its, "%s: cg stops with %s after %" PetscInt_FMT ", hbcg with %s after %" PetscInt_FMT, cases[k].name, KSPConvergedReasons[rc.reason], rc.its, KSPConvergedReasons[rh.reason], rh.its);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-44s %-28s %3" PetscInt_FMT " iterations\n", cases[k].name, KSPConvergedReasons[rc.reason], rc.its));
    } else
      PetscCall(Compare(cases[k].name, &rc, &rh, tol));
    PetscCall(VecDestroy(&rc.x));
    PetscCall(VecDestroy(&rh.x));
    if (rc.reason < 0) {
      /* the same failure with KSPSetErrorIfNotConverged(): both raise PETSC_ERR_NOT_CONVERGED */
      Case           c  = cases[k].c;
      PetscErrorCode ec = PETSC_SUCCESS, eh = PETSC_SUCCESS;

      c.erronfail = PETSC_TRUE;
      PetscCall(Solve(M, rhs, x0, KSPCG, c, &rc, &ec));
      PetscCall(Solve(M, rhs, x0, SQUALL_KSPHBCG, c, &rh, &eh));
      CHECK(ec == PETSC_ERR_NOT_CONVERGED && eh == PETSC_ERR_NOT_CONVERGED, "%s with KSPSetErrorIfNotConverged(): cg returns error %d, hbcg %d (expected %d)", cases[k].name, (int)ec, (int)eh, (int)PETSC_ERR_NOT_CONVERGED);
      PetscCall(VecDestroy(&rc.x));
      PetscCall(VecDestroy(&rh.x));
    }
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&bnan));
  PetscCall(VecDestroy(&x0));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&Aind));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
