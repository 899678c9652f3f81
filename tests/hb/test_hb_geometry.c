static char help[] = "Geometry modes of the hipBone operator (-hb_geometry) on the mesh of the -hb_* options, for the orders\n"
                     "-orders (default 1..15): every mode the mesh allows (-modes, default all of stored, trilinear, affine that\n"
                     "it allows) gives the stored-factor operator's A x on random x and its diagonal to -tol (default 1e-13,\n"
                     "relative); the same operator on the brick moved by -shift (default 1e4) gives the same A x and diagonal\n"
                     "to -tol in every mode (translation invariance); auto picks -expect_auto; hbcg's residual history equals\n"
                     "PETSc cg's in each mode (-cg_orders, default 3).\n";

#include <squall.h>
#include "squalltest.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)

static PetscErrorCode Source(const PetscReal x[3], PetscScalar *f, void *ctx)
{
  *f = PetscExpReal(x[0] - 1e4 * PetscFloorReal(x[0] / 1e4)) * PetscSinReal(3 * x[1] + 1) + x[2];
  return PETSC_SUCCESS;
}

static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *d)
{
  Vec       t;
  PetscReal n, m;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &t));
  PetscCall(VecWAXPY(t, -1, a, b));
  PetscCall(VecNorm(t, NORM_INFINITY, &n));
  PetscCall(VecNorm(a, NORM_INFINITY, &m));
  *d = n / m;
  PetscCall(VecDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A x and diag(A) of the operator made with the options set now */
static PetscErrorCode Apply(PetscInt N, const char *mode, const char *bounds, Vec x0, Vec *y, Vec *d, Mat *Aout, char got[])
{
  Mat          A;
  SquallHBInfo info;
  char         val[16];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, N));
  PetscCall(PetscOptionsSetValue(NULL, "-hb_order", val));
  PetscCall(PetscOptionsSetValue(NULL, "-hb_geometry", mode));
  if (bounds) PetscCall(PetscOptionsSetValue(NULL, "-hb_bounds", bounds));
  PetscCall(SquallHBCreateOperator(PETSC_COMM_WORLD, PETSC_DECIDE, NULL, &A));
  PetscCall(PetscOptionsClearValue(NULL, "-hb_bounds"));
  PetscCall(SquallHBGetInfo(A, &info));
  if (got) PetscCall(PetscStrncpy(got, info.geometry, 16));
  PetscCall(MatCreateVecs(A, NULL, y));
  PetscCall(VecDuplicate(*y, d));
  PetscCall(MatMult(A, x0, *y));
  PetscCall(MatGetDiagonal(A, *d));
  if (Aout)
    *Aout = A;
  else
    PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode History(Mat A, Vec b, KSPType type, PetscReal h[], PetscInt *n)
{
  KSP              ksp;
  PC               pc;
  Vec              x;
  const PetscReal *r;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, SQUALL_TOL(1e-10, 1000), PETSC_CURRENT, PETSC_CURRENT, 400));
  PetscCall(KSPSetResidualHistory(ksp, NULL, 500, PETSC_TRUE));
  PetscCall(MatCreateVecs(A, &x, NULL));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetResidualHistory(ksp, &r, n));
  for (PetscInt i = 0; i < *n; i++) h[i] = r[i];
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    orders[16], norders = 16, cgorders[16] = {3}, ncg = 16;
  PetscReal   tol = SQUALL_TOL(1e-13, 100), cgtol = SQUALL_TOL(1e-10, 1000), shift = 1e4;
  char        expect[16] = "", modes[3][16] = {"stored", "trilinear", "affine"}, *mlist[3];
  PetscInt    nmodes = 3;
  PetscBool   flg, tolset, allowed[3] = {PETSC_TRUE, PETSC_TRUE, PETSC_TRUE};
  PetscReal   b[6] = {0, 1, 0, 1, 0, 1};
  PetscInt    nb   = 6;
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  for (PetscInt o = 0; o < 15; o++) orders[o] = o + 1;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-orders", orders, &norders, &flg));
  if (!flg) norders = 15;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-cg_orders", cgorders, &ncg, &flg));
  if (!flg) ncg = 1;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, &tolset));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-shift", &shift, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-expect_auto", expect, sizeof(expect), NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-modes", mlist, &nmodes, &flg));
  if (flg) {
    for (PetscInt m = 0; m < nmodes; m++) {
      PetscCall(PetscStrncpy(modes[m], mlist[m], sizeof(modes[m])));
      PetscCall(PetscFree(mlist[m]));
    }
  } else
    nmodes = 3;
  PetscCall(PetscOptionsGetRealArray(NULL, NULL, "-hb_bounds", b, &nb, NULL));
  PetscCall(PetscOptionsClearValue(NULL, "-hb_bounds"));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  for (PetscInt o = 0; o < norders; o++) {
    const PetscInt N = orders[o];
    /* single precision: the stored factors differentiate coordinates with D (entries ~ N^2), the other modes do not */
    const PetscReal tolN = tolset || sizeof(PetscReal) > 4 ? tol : SQUALL_TOL(1e-13, 10.0 * (N + 1) * (N + 1));
    char            bnd[256], bsh[256], got[16];
    Vec             x, yref, dref;
    Mat             A;

    PetscCall(PetscSNPrintf(bnd, sizeof(bnd), "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", b[0], b[1], b[2], b[3], b[4], b[5]));
    PetscCall(PetscSNPrintf(bsh, sizeof(bsh), "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", b[0] + shift, b[1] + shift, b[2] + shift, b[3] + shift, b[4] + shift, b[5] + shift));
    /* the reference: stored factors; x random */
    {
      char val[16];

      PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, N));
      PetscCall(PetscOptionsSetValue(NULL, "-hb_order", val));
      PetscCall(PetscOptionsSetValue(NULL, "-hb_geometry", "stored"));
      PetscCall(PetscOptionsSetValue(NULL, "-hb_bounds", bnd));
      PetscCall(SquallHBCreateOperator(PETSC_COMM_WORLD, PETSC_DECIDE, NULL, &A));
      PetscCall(MatCreateVecs(A, &x, NULL));
      PetscCall(VecSetRandom(x, rnd));
      PetscCall(MatDestroy(&A));
    }
    PetscCall(Apply(N, "auto", bnd, x, &yref, &dref, NULL, got)); /* what auto picks; vectors replaced below */
    PetscCall(VecDestroy(&yref));
    PetscCall(VecDestroy(&dref));
    if (expect[0]) {
      PetscBool same;

      PetscCall(PetscStrcmp(got, expect, &same));
      CHECK(same, "N=%" PetscInt_FMT ": -hb_geometry auto picked %s, expected %s", N, got, expect);
    }
    /* the modes this mesh allows: those cheaper than auto's pick are not */
    {
      PetscBool isstored, istri;

      PetscCall(PetscStrcmp(got, "stored", &isstored));
      PetscCall(PetscStrcmp(got, "trilinear", &istri));
      allowed[1] = (PetscBool)!isstored;
      allowed[2] = (PetscBool)(!isstored && !istri);
    }
    PetscCall(Apply(N, "stored", bnd, x, &yref, &dref, NULL, NULL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "N=%2" PetscInt_FMT " auto: %-9s", N, got));
    for (PetscInt m = 0; m < nmodes; m++) {
      const PetscInt mi = modes[m][0] == 's' ? 0 : (modes[m][0] == 't' ? 1 : 2);
      Vec            y, d, ys, ds;
      PetscReal      ey, ed, ty, td;

      if (!allowed[mi]) continue;
      PetscCall(Apply(N, modes[m], bnd, x, &y, &d, &A, NULL));
      PetscCall(RelDiff(yref, y, &ey));
      PetscCall(RelDiff(dref, d, &ed));
      PetscCall(Apply(N, modes[m], bsh, x, &ys, &ds, NULL, NULL));
      PetscCall(RelDiff(y, ys, &ty));
      PetscCall(RelDiff(d, ds, &td));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, " | %s: Ax %.1e diag %.1e, shifted %.1e %.1e", modes[m], (double)ey, (double)ed, (double)ty, (double)td));
      CHECK(ey <= tolN && ed <= tolN, "N=%" PetscInt_FMT ", -hb_geometry %s: A x differs from the stored factors' by %g, the diagonal by %g (relative)", N, modes[m], (double)ey, (double)ed);
      CHECK(ty <= tolN && td <= tolN, "N=%" PetscInt_FMT ", -hb_geometry %s: moving the mesh by %g changes A x by %g, the diagonal by %g (relative)", N, modes[m], (double)shift, (double)ty, (double)td);
      for (PetscInt c = 0; c < ncg; c++) {
        if (cgorders[c] != N) continue;
        {
          PetscReal hh[500], hc[500], dmax = 0;
          PetscInt  nh, nc;
          Vec       rhs;

          PetscCall(MatCreateVecs(A, NULL, &rhs));
          PetscCall(SquallHBComputeRHS(A, Source, NULL, rhs));
          PetscCall(History(A, rhs, SQUALL_KSPHBCG, hh, &nh));
          PetscCall(History(A, rhs, KSPCG, hc, &nc));
          CHECK(nh == nc, "N=%" PetscInt_FMT ", -hb_geometry %s: hbcg took %" PetscInt_FMT " iterations, cg %" PetscInt_FMT, N, modes[m], nh - 1, nc - 1);
          for (PetscInt i = 0; i < nh; i++) dmax = PetscMax(dmax, PetscAbsReal(hh[i] - hc[i]) / hh[0]);
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", hbcg=cg %" PetscInt_FMT " its %.1e", nh - 1, (double)dmax));
          CHECK(dmax <= cgtol, "N=%" PetscInt_FMT ", -hb_geometry %s: hbcg and cg residual histories differ by %g (relative to r0)", N, modes[m], (double)dmax);
          PetscCall(VecDestroy(&rhs));
        }
      }
      PetscCall(MatDestroy(&A));
      PetscCall(VecDestroy(&y));
      PetscCall(VecDestroy(&d));
      PetscCall(VecDestroy(&ys));
      PetscCall(VecDestroy(&ds));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&yref));
    PetscCall(VecDestroy(&dref));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
