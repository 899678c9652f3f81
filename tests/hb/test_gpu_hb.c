static char help[] = "GPU hipBone CG: the CUDA operator (the kernel of -hb_kernel auto|sweep|layers|layers_tiled|mma) equals the CPU\n"
                     "reference for the orders -orders (default 1..15) to -tol (default 1e-13, relative), x.Ax from the fused\n"
                     "gather equals the host one, and KSP hbcg on device vectors reproduces the host residual history (PC none\n"
                     "and Jacobi) to -cg_tol (default 1e-11, relative to r0) plus 100 times the spread that round-off alone gives between\n"
                     "equivalent host variants at each iteration (-cg 0 skips it); on one rank, fused hbcg on the device forms p.Ap and\n"
                     "alpha there unless -ksp_hbcg_device_scalars 0. Exits with 200 (skipped) without CUDA or without a device.\n";

#include <squall.h>
#include "cuda/squallcuda.h"
#include "squalltest.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)
#define MAXHIST 500

static PetscErrorCode Source(const PetscReal x[3], PetscScalar *f, void *ctx)
{
  *f = PetscExpReal(x[0]) * PetscSinReal(3 * x[1] + 1) + x[2] * x[2];
  return PETSC_SUCCESS;
}

static PetscErrorCode CreateVec(Mat A, VecType type, Vec *v)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)A), v));
  PetscCall(VecSetSizes(*v, n, PETSC_DECIDE));
  PetscCall(VecSetType(*v, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max |a - b| / max |a| over all ranks, read on the host */
static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *d)
{
  const PetscScalar *x, *y;
  PetscInt           n;
  PetscReal          l[2] = {0, 0}, g[2];

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  for (PetscInt i = 0; i < n; i++) {
    l[0] = PetscMax(l[0], PetscAbsScalar(x[i] - y[i]));
    l[1] = PetscMax(l[1], PetscAbsScalar(x[i]));
  }
  PetscCall(VecRestoreArrayRead(b, &y));
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCallMPI(MPIU_Allreduce(l, g, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)a)));
  *d = g[0] / g[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* on one rank, whether hbcg's last solve formed p.Ap and alpha on the device, as its KSPView says */
static PetscErrorCode DeviceScalarsUsed(KSP ksp, PetscBool *used)
{
  char       *buf = NULL;
  size_t      len = 0;
  FILE       *fp  = open_memstream(&buf, &len);
  PetscViewer v;

  PetscFunctionBegin;
  CHECK(fp, "open_memstream failed");
  PetscCall(PetscViewerASCIIOpenWithFILE(PETSC_COMM_SELF, fp, &v));
  PetscCall(KSPView(ksp, v));
  PetscCall(PetscViewerDestroy(&v));
  CHECK(!fclose(fp), "fclose of the memory stream failed");
  *used = (PetscBool)(strstr(buf, "p.Ap and alpha on the device") != NULL);
  free(buf);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fused hbcg on device vectors on one rank forms p.Ap and alpha on the device unless -ksp_hbcg_device_scalars 0 */
static PetscErrorCode CheckDeviceScalars(KSP ksp, KSPType type, PetscBool fused, Vec x)
{
  PetscMPIInt size;
  PetscBool   dev, hbcg, expect = PETSC_TRUE, used;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  PetscCall(PetscObjectTypeCompare((PetscObject)x, VECSEQCUDA, &dev));
  PetscCall(PetscStrcmp(type, SQUALL_KSPHBCG, &hbcg));
  if (size > 1 || !hbcg) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-ksp_hbcg_device_scalars", &expect, NULL));
  expect = (PetscBool)(expect && dev && fused);
  PetscCall(DeviceScalarsUsed(ksp, &used));
  CHECK(used == expect, "hbcg %s p.Ap and alpha on the device (expected %s)", used ? "formed" : "did not form", expect ? "on the device" : "on the host");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* residual history and solution of KSP type (hbcg: fused or plain Vec operations) from x = 0 */
static PetscErrorCode History(Mat A, Vec b, KSPType type, PetscBool fused, PCType pctype, PetscReal h[], PetscInt *n, Vec x)
{
  KSP                ksp;
  PC                 pc;
  const PetscReal   *r;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(VecZeroEntries(x));
  PetscCall(PetscOptionsSetValue(NULL, "-ksp_hbcg_fused", fused ? "1" : "0"));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  /* a tolerance the precision can reach, so that the iteration counts compare (1e-10 in double) */
  PetscCall(KSPSetTolerances(ksp, SQUALL_TOL(1e-10, 100), PETSC_CURRENT, PETSC_CURRENT, MAXHIST - 1));
  PetscCall(KSPSetResidualHistory(ksp, NULL, MAXHIST, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscOptionsClearValue(NULL, "-ksp_hbcg_fused"));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  CHECK(reason > 0, "%s (%s) did not converge: %s", type, pctype, KSPConvergedReasons[reason]);
  PetscCall(CheckDeviceScalars(ksp, type, fused, x));
  PetscCall(KSPGetResidualHistory(ksp, &r, n));
  for (PetscInt i = 0; i < *n; i++) h[i] = r[i];
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckOrder(PetscInt N, PetscReal tol, PetscReal cgtol, PetscBool cg)
{
  Mat          A;
  Vec          xh, yh, xd, yd;
  PetscRandom  rnd;
  PetscReal    d, doth, dotd;
  char         val[16];
  SquallHBInfo info;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, N));
  PetscCall(PetscOptionsSetValue(NULL, "-hb_order", val));
  PetscCall(SquallHBCreateOperator(PETSC_COMM_WORLD, PETSC_DECIDE, NULL, &A));
  PetscCall(SquallHBGetInfo(A, &info));
  PetscCall(CreateVec(A, VECSTANDARD, &xh));
  PetscCall(CreateVec(A, VECSTANDARD, &yh));
  PetscCall(CreateVec(A, VECCUDA, &xd));
  PetscCall(CreateVec(A, VECCUDA, &yd));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(VecSetRandom(xh, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(SquallTestCopyValues(xh, xd));
  PetscCall(SquallHBMultDot(A, xh, yh, &doth));
  PetscCall(SquallHBMultDot(A, xd, yd, &dotd));
  PetscCall(RelDiff(yh, yd, &d));
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD, "N=%2" PetscInt_FMT " (%s kernel) N_G=%7" PetscInt_FMT ": |A_gpu x - A_cpu x|/|A_cpu x| = %.2e, x.Ax %.2e", N, info.kernel, info.ndof_global, (double)d, (double)(PetscAbsReal(doth - dotd) / PetscAbsReal(doth))));
  CHECK(d <= tol, "N=%" PetscInt_FMT ": the GPU operator differs from the CPU one by %g (relative)", N, (double)d);
  CHECK(PetscAbsReal(doth - dotd) <= tol * PetscAbsReal(doth), "N=%" PetscInt_FMT ": x.Ax on the GPU %.16g, on the CPU %.16g", N, (double)dotd, (double)doth);
  /* MatMult alone, into a vector holding garbage */
  PetscCall(VecSet(yd, 1e30));
  PetscCall(MatMult(A, xd, yd));
  PetscCall(RelDiff(yh, yd, &d));
  CHECK(d <= tol, "N=%" PetscInt_FMT ": MatMult on the GPU differs from the CPU by %g (relative)", N, (double)d);
  {
    /* -hb_scatter gather is reproducible bit for bit: the product and x.Ax again */
    PetscBool gather, same;
    Vec       y2;
    PetscReal dot2;

    PetscCall(PetscStrcmp(info.scatter, "gather", &gather));
    if (gather) {
      PetscCall(SquallHBMultDot(A, xd, yd, &dotd));
      PetscCall(VecDuplicate(yd, &y2));
      PetscCall(VecSet(y2, -1e30));
      PetscCall(SquallHBMultDot(A, xd, y2, &dot2));
      PetscCall(VecEqual(yd, y2, &same));
      CHECK(same && dot2 == dotd, "N=%" PetscInt_FMT ": two gather products differ (x.Ax %.17g and %.17g)", N, (double)dotd, (double)dot2);
      PetscCall(VecDestroy(&y2));
    }
  }

  if (cg) {
    const PCType pcs[2] = {PCNONE, PCJACOBI};
    Vec          xref, xalt, xdev;

    PetscCall(CreateVec(A, VECSTANDARD, &xref));
    PetscCall(CreateVec(A, VECSTANDARD, &xalt));
    PetscCall(CreateVec(A, VECCUDA, &xdev));
    for (PetscInt p = 0; p < 2; p++) {
      PetscReal hh[MAXHIST], hd[MAXHIST], ha[MAXHIST], s[MAXHIST], spread = 0, xspread = 0, dmax = 0, dx;
      PetscInt  nh, nd, na, nspread = 0, ntight = -1;

      /* CG in floating point amplifies round-off: once the iteration has found the extreme
         eigenvalues, loss of orthogonality makes the residual norm of an ill-conditioned problem
         (Dirichlet, lambda 0, high order: ~100+ iterations) depend on the summation order of the
         dot products and of the operator at the 1e-10 .. 1e-5 level (relative to r0), in bursts,
         while the first iterations agree to ~1e-15. The device sums in yet another order (block
         trees), so its history is held against what round-off alone produces on the host at every
         iteration: the reference (fused hbcg) against two equivalent host variants (hbcg with
         plain Vec operations; PETSc cg). s_i = max over the variants and over iterations <= i of
         |h_ref - h_var| / r0 (a non-decreasing envelope, as a perturbation never heals in CG's
         recurrences); the device must satisfy |h_ref - h_dev|_i / r0 <= cg_tol + 100 s_i. Where the
         host variants agree to round-off (the "tight" iterations, s_i <= cg_tol / 100) this is the
         fixed -cg_tol, which any real error of the device path (halo exchange, masking, owned-only
         dots, ordering of the queued AXPY) exceeds by orders of magnitude from its first iteration
         on. The iteration counts and the solutions are held against the host spread in the same way. */
      PetscCall(SquallHBComputeRHS(A, Source, NULL, yh));
      PetscCall(SquallTestCopyValues(yh, yd));
      PetscCall(History(A, yh, SQUALL_KSPHBCG, PETSC_TRUE, pcs[p], hh, &nh, xref));
      for (PetscInt i = 0; i < nh; i++) s[i] = 0;
      for (PetscInt v = 0; v < 2; v++) {
        PetscCall(History(A, yh, v ? KSPCG : SQUALL_KSPHBCG, PETSC_FALSE, pcs[p], ha, &na, xalt));
        nspread = PetscMax(nspread, PetscAbsInt(na - nh));
        for (PetscInt i = 0; i < PetscMin(na, nh); i++) s[i] = PetscMax(s[i], PetscAbsReal(hh[i] - ha[i]) / hh[0]);
        PetscCall(RelDiff(xref, xalt, &dx));
        xspread = PetscMax(xspread, dx);
      }
      PetscCall(History(A, yd, SQUALL_KSPHBCG, PETSC_TRUE, pcs[p], hd, &nd, xdev));
      CHECK(PetscAbsInt(nh - nd) <= nspread + 1, "N=%" PetscInt_FMT ", PC %s: hbcg took %" PetscInt_FMT " iterations on the host, %" PetscInt_FMT " on the device (host variants: +-%" PetscInt_FMT ")", N, pcs[p], nh - 1, nd - 1, nspread);
      for (PetscInt i = 0; i < PetscMin(nh, nd); i++) {
        const PetscReal d = PetscAbsReal(hh[i] - hd[i]) / hh[0];

        spread = PetscMax(spread, s[i]);
        if (ntight < 0 && spread > cgtol / 100) ntight = i;
        dmax = PetscMax(dmax, d);
        CHECK(d <= cgtol + 100 * spread, "N=%" PetscInt_FMT ", PC %s, iteration %" PetscInt_FMT ": device and host residual norms differ by %g (relative to r0), more than round-off allows (%g: the host variants differ by up to %g so far)", N, pcs[p],
              i, (double)d, (double)(cgtol + 100 * spread), (double)spread);
      }
      PetscCall(RelDiff(xref, xdev, &dx));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", hbcg/%s %" PetscInt_FMT " its %.1e (host spread %.1e, tight to it %" PetscInt_FMT ", x %.1e)", pcs[p], nh - 1, (double)dmax, (double)spread, ntight < 0 ? nh - 1 : ntight, (double)dx));
      CHECK(dx <= cgtol + 100 * xspread, "N=%" PetscInt_FMT ", PC %s: device and host solutions differ by %g (relative), the host variants by %g", N, pcs[p], (double)dx, (double)xspread);
    }
    PetscCall(VecDestroy(&xref));
    PetscCall(VecDestroy(&xalt));
    PetscCall(VecDestroy(&xdev));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&xd));
  PetscCall(VecDestroy(&yd));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt orders[16], norders = 16;
  /* 450 eps: A x sums O(100) terms per row in another order on the device; the CG history as in the note below */
  PetscReal tol = SQUALL_TOL(1e-13, 450), cgtol = SQUALL_TOL(1e-11, 45000);
  PetscBool flg, cg                             = PETSC_TRUE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  SQUALL_TEST_SKIP_WITHOUT_GPU();
  for (PetscInt o = 0; o < 15; o++) orders[o] = o + 1;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-orders", orders, &norders, &flg));
  if (!flg) norders = 15;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-cg_tol", &cgtol, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cg", &cg, NULL));
  for (PetscInt o = 0; o < norders; o++) PetscCall(CheckOrder(orders[o], tol, cgtol, cg));
  PetscCall(PetscFinalize());
  return 0;
}
