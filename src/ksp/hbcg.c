/* KSP "hbcg": preconditioned CG organised as in hipBone/NekBone, for any Mat. Per iteration:
     p = z + beta p;  w = A p with p.w from the same pass (SquallHBMultDot() for squall's operator);
     r -= alpha w, z = D^{-1} r and all dot products of r and z in one pass;
     x += alpha p, queued behind that pass so that it runs while the dot products are summed over
     the ranks; or, when nothing reads x during the solve (no monitor, the default convergence test),
     in the next iteration's pass over p that forms the new direction (and once more at the end).
   The vector work runs as fused loops on the host (VECSTANDARD), as fused CUDA kernels (VECCUDA;
   src/cuda/hbcg.cu), or through plain Vec operations for any other vector type or with
   -ksp_hbcg_fused 0. Jacobi is fused into the residual update; other preconditioners are applied
   through PCApply(). The iteration, norms and stopping tests are those of KSPCG, so both give the
   same residual history up to round-off.
   On one rank with squall's operator on the device (-ksp_hbcg_device_scalars), p.Ap stays on the device
   and alpha is formed there: the update is queued right behind the product, and p.Ap reaches the host
   with the update's dot products, where it passes KSPCG's tests; a p.Ap that fails them has made the
   device skip the update, so the solve stops in the state KSPCG stops in. */
#include <petsc/private/kspimpl.h>
#include "ksp/hbimpl.h"
#include "physics/sem.h"

typedef enum { HBCG_HOST, HBCG_CUDA, HBCG_VEC } HBCGBackend;
static const char *const HBCGBackends[] = {"fused host loops", "fused CUDA kernels", "Vec operations"};

typedef struct {
  PetscBool   fused;      /* -ksp_hbcg_fused */
  PetscBool   devscalars; /* -ksp_hbcg_device_scalars */
  HBCGBackend backend;    /* of the last solve */
  PetscBool   fusedpc;    /* Jacobi applied inside the residual update */
  PetscBool   devpap;     /* the last solve formed p.Ap and alpha on the device */
  PetscBool   lagx;       /* the last solve updated x in the next direction's pass */
  Vec         dinv;       /* the Jacobi scaling, taken from the PC itself */
} KSP_HBCG;

/* sum the local dot products over the ranks: one reduction per iteration for all of them */
static PetscErrorCode HBCGAllreduce(KSP ksp, PetscReal dots[])
{
  PetscReal g[SQUALL_HBCG_NDOTS];

  PetscFunctionBegin;
  PetscCallMPI(MPIU_Allreduce(dots, g, SQUALL_HBCG_NDOTS, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)ksp)));
  for (PetscInt d = 0; d < SQUALL_HBCG_NDOTS; d++) dots[d] = g[d];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = dinv r (if dinv) and (r.z, r.r, z.z); z == NULL means z is r (no preconditioner) */
static PetscErrorCode HBCGDots(KSP ksp, HBCGBackend be, Vec R, Vec dinv, Vec Z, PetscReal dots[])
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(R, &n));
  PetscCall(PetscLogEventBegin(SQUALL_HBCGDot, R, Z, 0, 0));
  if (be == HBCG_VEC) {
    PetscScalar d;

    if (dinv) PetscCall(VecPointwiseMult(Z, dinv, R));
    PetscCall(VecDot(R, R, &d));
    dots[SQUALL_HBCG_RR] = PetscRealPart(d);
    if (Z) {
      PetscCall(VecDot(Z, R, &d));
      dots[SQUALL_HBCG_RZ] = PetscRealPart(d);
      PetscCall(VecDot(Z, Z, &d));
      dots[SQUALL_HBCG_ZZ] = PetscRealPart(d);
    } else
      dots[SQUALL_HBCG_RZ] = dots[SQUALL_HBCG_ZZ] = dots[SQUALL_HBCG_RR];
  } else {
    if (be == HBCG_CUDA) {
      PetscCall(SquallHBCGDotsCUDA(R, dinv, Z, dots));
    } else {
      const PetscScalar *r, *di = NULL;
      PetscScalar       *z  = NULL;
      PetscReal          rz = 0, rr = 0, zz = 0;

      PetscCall(VecGetArrayRead(R, &r));
      if (dinv) {
        PetscCall(VecGetArrayRead(dinv, &di));
        PetscCall(VecGetArrayWrite(Z, &z));
        for (PetscInt i = 0; i < n; i++) z[i] = di[i] * r[i];
      } else if (Z)
        PetscCall(VecGetArray(Z, &z));
      if (z) {
        for (PetscInt i = 0; i < n; i++) {
          rz += r[i] * z[i];
          rr += r[i] * r[i];
          zz += z[i] * z[i];
        }
      } else {
        for (PetscInt i = 0; i < n; i++) rr += r[i] * r[i];
        rz = zz = rr;
      }
      if (dinv) {
        PetscCall(VecRestoreArrayWrite(Z, &z));
        PetscCall(VecRestoreArrayRead(dinv, &di));
      } else if (Z)
        PetscCall(VecRestoreArray(Z, &z));
      PetscCall(VecRestoreArrayRead(R, &r));
      dots[SQUALL_HBCG_RZ] = rz;
      dots[SQUALL_HBCG_RR] = rr;
      dots[SQUALL_HBCG_ZZ] = zz;
    }
    PetscCall(HBCGAllreduce(ksp, dots));
  }
  /* the flops of the host loops (Vec operations and the CUDA kernels log their own) */
  if (be == HBCG_HOST) PetscCall(PetscLogFlops((dinv ? 1.0 : 0.0) * n + (Z ? 6.0 : 2.0) * n));
  PetscCall(PetscLogEventEnd(SQUALL_HBCGDot, R, Z, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* p = z + beta p; the first direction is z itself (p holds garbage then). With X, first x += alpha p (the previous
   iteration's solution update, in the same pass over p) */
static PetscErrorCode HBCGDirection(HBCGBackend be, PetscBool first, PetscReal beta, Vec Z, Vec P, PetscReal alpha, Vec X)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(Z, &n));
  PetscCall(PetscLogEventBegin(SQUALL_HBCGDirection, Z, P, 0, 0));
  PetscCheck(!(first && X), PETSC_COMM_SELF, PETSC_ERR_PLIB, "The first direction has no solution update before it");
  if (be == HBCG_VEC) {
    if (X) PetscCall(VecAXPY(X, alpha, P));
    if (first)
      PetscCall(VecCopy(Z, P));
    else
      PetscCall(VecAYPX(P, beta, Z));
  } else if (be == HBCG_CUDA) {
    PetscCall(SquallHBCGDirectionCUDA(first, beta, Z, P, alpha, X));
  } else {
    const PetscScalar *z;
    PetscScalar       *p, *x = NULL;

    PetscCall(VecGetArrayRead(Z, &z));
    if (first) {
      PetscCall(VecGetArrayWrite(P, &p));
      PetscCall(PetscArraycpy(p, z, n));
      PetscCall(VecRestoreArrayWrite(P, &p));
    } else {
      PetscCall(VecGetArray(P, &p));
      if (X) {
        PetscCall(VecGetArray(X, &x));
        for (PetscInt i = 0; i < n; i++) {
          x[i] += alpha * p[i];
          p[i] = z[i] + beta * p[i];
        }
        PetscCall(VecRestoreArray(X, &x));
      } else
        for (PetscInt i = 0; i < n; i++) p[i] = z[i] + beta * p[i];
      PetscCall(VecRestoreArray(P, &p));
    }
    PetscCall(VecRestoreArrayRead(Z, &z));
  }
  if (be == HBCG_HOST && !first) PetscCall(PetscLogFlops((X ? 4.0 : 2.0) * n));
  PetscCall(PetscLogEventEnd(SQUALL_HBCGDirection, Z, P, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r -= alpha w, z = dinv r (if dinv), dots (as HBCGDots), and (X not NULL) x += alpha p; the AXPY of x is issued
   before the dot products are reduced over the ranks, so on the device it overlaps the reduction.
   pap (device only): alpha is the device's, and *pap returns the device's p.Ap */
static PetscErrorCode HBCGUpdate(KSP ksp, HBCGBackend be, PetscReal alpha, PetscReal *pap, Vec W, Vec R, Vec dinv, Vec Z, Vec P, Vec X, PetscReal dots[])
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(R, &n));
  if (be == HBCG_VEC) {
    if (X) {
      PetscCall(PetscLogEventBegin(SQUALL_HBCGSolution, X, P, 0, 0));
      PetscCall(VecAXPY(X, alpha, P));
      PetscCall(PetscLogEventEnd(SQUALL_HBCGSolution, X, P, 0, 0));
    }
    PetscCall(PetscLogEventBegin(SQUALL_HBCGUpdate, R, W, 0, 0));
    PetscCall(VecAXPY(R, -alpha, W));
    PetscCall(PetscLogEventEnd(SQUALL_HBCGUpdate, R, W, 0, 0));
    PetscCall(HBCGDots(ksp, be, R, dinv, dinv ? Z : NULL, dots));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(SQUALL_HBCGUpdate, R, W, 0, 0));
  if (be == HBCG_CUDA) {
    PetscCall(SquallHBCGUpdateCUDA(alpha, pap, W, R, dinv, dinv ? Z : NULL, P, X, SQUALL_HBCGSolution, dots));
  } else {
    const PetscScalar *w, *p, *di = NULL;
    PetscScalar       *r, *x, *z  = NULL;
    PetscReal          rz = 0, rr = 0, zz = 0;

    PetscCall(VecGetArrayRead(W, &w));
    PetscCall(VecGetArray(R, &r));
    if (dinv) {
      PetscCall(VecGetArrayRead(dinv, &di));
      PetscCall(VecGetArrayWrite(Z, &z));
      for (PetscInt i = 0; i < n; i++) {
        SquallSEMCGResidualUpdate(alpha, w[i], di[i], &r[i], &z[i]);
        rz += r[i] * z[i];
        rr += r[i] * r[i];
        zz += z[i] * z[i];
      }
      PetscCall(VecRestoreArrayWrite(Z, &z));
      PetscCall(VecRestoreArrayRead(dinv, &di));
    } else {
      for (PetscInt i = 0; i < n; i++) {
        r[i] -= alpha * w[i];
        rr += r[i] * r[i];
      }
      rz = zz = rr;
    }
    PetscCall(VecRestoreArray(R, &r));
    PetscCall(VecRestoreArrayRead(W, &w));
    if (X) {
      PetscCall(VecGetArrayRead(P, &p));
      PetscCall(VecGetArray(X, &x));
      for (PetscInt i = 0; i < n; i++) x[i] += alpha * p[i];
      PetscCall(VecRestoreArray(X, &x));
      PetscCall(VecRestoreArrayRead(P, &p));
    }
    dots[SQUALL_HBCG_RZ] = rz;
    dots[SQUALL_HBCG_RR] = rr;
    dots[SQUALL_HBCG_ZZ] = zz;
  }
  PetscCall(HBCGAllreduce(ksp, dots));
  if (be == HBCG_HOST) PetscCall(PetscLogFlops((dinv ? 9.0 : 4.0) * n + (X ? 2.0 * n : 0)));
  PetscCall(PetscLogEventEnd(SQUALL_HBCGUpdate, R, W, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBCGNaN(KSP ksp, PetscReal v, PetscBool *stop)
{
  PetscFunctionBegin;
  *stop = PETSC_FALSE;
  if (!PetscIsInfOrNanReal(v)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPSolve has not converged due to Nan or Inf inner product");
  ksp->reason = KSP_DIVERGED_NANORINF;
  *stop       = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal HBCGNorm(KSPNormType type, const PetscReal dots[])
{
  switch (type) {
    case KSP_NORM_PRECONDITIONED: return PetscSqrtReal(dots[SQUALL_HBCG_ZZ]);
    case KSP_NORM_UNPRECONDITIONED: return PetscSqrtReal(dots[SQUALL_HBCG_RR]);
    case KSP_NORM_NATURAL: return PetscSqrtReal(PetscAbsReal(dots[SQUALL_HBCG_RZ]));
    default: return 0;
  }
}

static PetscErrorCode HBCGChooseBackend(KSP ksp, HBCGBackend *be)
{
  KSP_HBCG *cg   = (KSP_HBCG *)ksp->data;
  Vec       v[6] = {ksp->vec_sol, ksp->vec_rhs, ksp->work[0], ksp->work[1], ksp->work[2], ksp->work[3]};
  PetscBool host = PETSC_TRUE, dev = PETSC_TRUE;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 6; i++) {
    PetscBool h, d;

    PetscCall(PetscObjectTypeCompareAny((PetscObject)v[i], &h, VECSEQ, VECMPI, ""));
    PetscCall(SquallHBIsDeviceVec(v[i], &d));
    host = (PetscBool)(host && h);
    dev  = (PetscBool)(dev && d);
  }
  *be = !cg->fused ? HBCG_VEC : (dev ? HBCG_CUDA : (host ? HBCG_HOST : HBCG_VEC));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPCG's test of a new direction: r.z = 0 has converged, a change of its sign means an indefinite preconditioner */
static PetscErrorCode HBCGCheckDirection(KSP ksp, PetscInt i, PetscReal beta, PetscReal betaold, PetscBool *stop)
{
  PetscFunctionBegin;
  *stop = PETSC_TRUE;
  if (beta == 0.0) {
    ksp->reason = KSP_CONVERGED_ATOL;
    PetscCall(PetscInfo(ksp, "converged due to beta = 0\n"));
  } else if (i > 0 && beta * betaold < 0.0) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "Diverged due to indefinite preconditioner, beta %g, betaold %g", (double)beta, (double)betaold);
    ksp->reason = KSP_DIVERGED_INDEFINITE_PC;
    PetscCall(PetscInfo(ksp, "diverging due to indefinite preconditioner\n"));
  } else
    *stop = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* KSPCG's test of p.Ap: not a number, zero, or a change of its sign stops the solve */
static PetscErrorCode HBCGCheckCurvature(KSP ksp, PetscInt i, PetscReal dpi, PetscReal dpiold, PetscBool *stop)
{
  PetscFunctionBegin;
  PetscCall(HBCGNaN(ksp, dpi, stop));
  if (*stop) PetscFunctionReturn(PETSC_SUCCESS);
  if (dpi == 0.0 || (i > 0 && PetscSign(dpi) * PetscSign(dpiold) < 0.0)) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "Diverged due to indefinite matrix, dpi %g, dpiold %g", (double)dpi, (double)dpiold);
    ksp->reason = KSP_DIVERGED_INDEFINITE_MAT;
    PetscCall(PetscInfo(ksp, "diverging due to indefinite or negative definite matrix\n"));
    *stop = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* p.Ap and alpha on the device: one rank, the CUDA backend, squall's operator, no PC or fused Jacobi, a plain solve */
static PetscErrorCode HBCGUseDeviceScalars(KSP ksp, HBCGBackend be, Mat A, PetscBool pcnone, PetscBool *use)
{
  KSP_HBCG   *cg = (KSP_HBCG *)ksp->data;
  PetscMPIInt size;
  PetscErrorCode (*f)(void) = NULL;

  PetscFunctionBegin;
  *use = PETSC_FALSE;
  if (!cg->devscalars || be != HBCG_CUDA || ksp->transpose_solve || !(pcnone || cg->fusedpc)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, SquallHBComposedName, &f));
  *use = (PetscBool)(size == 1 && f);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w = A p and p.Ap; with pap (device scalars) p.Ap stays on the device and alpha is formed there, and the update
   (of x too, unless X is NULL) is queued behind them (*updated) */
static PetscErrorCode HBCGProduct(KSP ksp, HBCGBackend be, Mat A, PetscInt i, PetscReal *pap, Vec dinv, Vec Zv, Vec X, PetscReal *dpi, PetscReal dots[], PetscBool *updated)
{
  Vec R = ksp->work[0], P = ksp->work[2], W = ksp->work[3];

  PetscFunctionBegin;
  *updated = PETSC_FALSE;
  if (pap) {
    PetscCall(SquallHBMatMultDotDevice(A, P, W, pap));
    PetscCall(SquallHBCGAlphaCUDA((PetscBool)(i == 0), (PetscBool) !!Zv));
    PetscCall(HBCGUpdate(ksp, be, 0, dpi, W, R, dinv, Zv, P, X, dots));
    *updated = PETSC_TRUE;
  } else if (ksp->transpose_solve) {
    PetscScalar d;

    PetscCall(KSP_MatMult(ksp, A, P, W));
    PetscCall(VecDot(W, P, &d));
    *dpi = PetscRealPart(d);
  } else
    PetscCall(SquallHBMultDot(A, P, W, dpi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the update with alpha from the host (x too, unless X is NULL); a preconditioner other than the fused Jacobi is
   applied after it, then the dots */
static PetscErrorCode HBCGUpdateWith(KSP ksp, HBCGBackend be, PetscReal alpha, Vec dinv, Vec Zv, Vec X, PetscReal dots[])
{
  Vec R = ksp->work[0], Z = ksp->work[1], P = ksp->work[2], W = ksp->work[3];

  PetscFunctionBegin;
  if (Zv && !dinv) {
    PetscCall(HBCGUpdate(ksp, be, alpha, NULL, W, R, NULL, NULL, P, X, dots));
    PetscCall(KSP_PCApply(ksp, R, Z));
    PetscCall(HBCGDots(ksp, be, R, NULL, Z, dots));
  } else
    PetscCall(HBCGUpdate(ksp, be, alpha, NULL, W, R, dinv, Zv, P, X, dots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the solution update may wait for the next direction's pass over p when nothing reads x during the solve: no
   monitor, and PETSc's default convergence test or none */
static PetscBool HBCGLagSolution(KSP ksp)
{
  return (PetscBool)(ksp->numbermonitors == 0 && (ksp->converged == KSPConvergedDefault || ksp->converged == KSPConvergedSkip));
}

static PetscErrorCode KSPSolve_HBCG(KSP ksp)
{
  KSP_HBCG    *cg = (KSP_HBCG *)ksp->data;
  Vec          X = ksp->vec_sol, B = ksp->vec_rhs, R = ksp->work[0], Z = ksp->work[1], P = ksp->work[2];
  Vec          Zv, dinv = NULL;
  Mat          Amat, Pmat;
  MatNullSpace nullsp = NULL;
  PetscBool    pcnone, jacobi, stop, lag, pending = PETSC_FALSE;
  HBCGBackend  be = HBCG_VEC;
  PetscReal    dots[SQUALL_HBCG_NDOTS], dp, beta, betaold = 0, dpi = 0, dpiold, alpha = 0, *pap = NULL;
  PetscInt     i;

  PetscFunctionBegin;
  PetscCall(PCGetOperators(ksp->pc, &Amat, &Pmat));
  PetscCall(HBCGChooseBackend(ksp, &be));
  cg->backend = be;
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp->pc, PCNONE, &pcnone));
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp->pc, PCJACOBI, &jacobi));
  PetscCall(MatGetNullSpace(Amat, &nullsp));
  /* a null space to project out or a transposed solve: every PCApply() goes through KSP_PCApply() */
  if (nullsp || ksp->transpose_solve) pcnone = jacobi = PETSC_FALSE;
  cg->fusedpc = (PetscBool)(jacobi && be != HBCG_VEC);
  if (cg->fusedpc) {
    /* the PC's own scaling (whatever -pc_jacobi_type, abs or zero-pivot fix it uses): D^{-1} 1 */
    if (!cg->dinv) PetscCall(VecDuplicate(X, &cg->dinv));
    PetscCall(VecSet(Z, 1.0));
    PetscCall(PCApply(ksp->pc, Z, cg->dinv));
    dinv = cg->dinv;
  }
  Zv = pcnone ? NULL : Z;
  PetscCall(HBCGUseDeviceScalars(ksp, be, Amat, pcnone, &cg->devpap));
  if (cg->devpap) PetscCall(SquallHBCGDeviceDot(&pap));
  lag = cg->lagx = HBCGLagSolution(ksp);

  ksp->its = 0;
  if (!ksp->guess_zero) {
    PetscCall(KSP_MatMult(ksp, Amat, X, R));
    PetscCall(VecAYPX(R, -1.0, B));
  } else
    PetscCall(VecCopy(B, R));
  if (Zv && !dinv) PetscCall(KSP_PCApply(ksp, R, Z));
  PetscCall(HBCGDots(ksp, be, R, dinv, Zv, dots));
  beta = dots[SQUALL_HBCG_RZ];
  PetscCall(HBCGNaN(ksp, beta + dots[SQUALL_HBCG_RR] + dots[SQUALL_HBCG_ZZ], &stop));
  if (stop) PetscFunctionReturn(PETSC_SUCCESS);
  dp = HBCGNorm(ksp->normtype, dots);
  PetscCall(KSPLogResidualHistory(ksp, dp));
  PetscCall(KSPMonitor(ksp, 0, dp));
  ksp->rnorm = dp;
  PetscCall((*ksp->converged)(ksp, 0, dp, &ksp->reason, ksp->cnvP));
  if (ksp->reason) PetscFunctionReturn(PETSC_SUCCESS);

  for (i = 0; i < ksp->max_it; i++) {
    PetscBool updated;

    ksp->its = i + 1;
    PetscCall(HBCGCheckDirection(ksp, i, beta, betaold, &stop));
    if (stop) break;
    /* with lag, the previous iteration's x += alpha p goes in the same pass as the new direction */
    PetscCall(HBCGDirection(be, (PetscBool)(i == 0), i ? beta / betaold : 0, Zv ? Zv : R, P, alpha, pending ? X : NULL));
    pending = PETSC_FALSE;
    dpiold  = dpi;
    PetscCall(HBCGProduct(ksp, be, Amat, i, pap, dinv, Zv, lag ? NULL : X, &dpi, dots, &updated));
    betaold = beta;
    PetscCall(HBCGCheckCurvature(ksp, i, dpi, dpiold, &stop));
    if (stop) break;
    alpha = beta / dpi; /* the device's alpha, bit for bit, when it formed it */
    if (!updated) PetscCall(HBCGUpdateWith(ksp, be, alpha, dinv, Zv, lag ? NULL : X, dots));
    pending = lag;
    beta    = dots[SQUALL_HBCG_RZ];
    PetscCall(HBCGNaN(ksp, beta + dots[SQUALL_HBCG_RR] + dots[SQUALL_HBCG_ZZ], &stop));
    if (stop) break;
    dp         = HBCGNorm(ksp->normtype, dots);
    ksp->rnorm = dp;
    PetscCall(KSPLogResidualHistory(ksp, dp));
    PetscCall(KSPMonitor(ksp, i + 1, dp));
    PetscCall((*ksp->converged)(ksp, i + 1, dp, &ksp->reason, ksp->cnvP));
    if (ksp->reason) break;
  }
  if (pending) PetscCall(VecAXPY(X, alpha, P));
  if (i >= ksp->max_it && !ksp->reason) ksp->reason = KSP_DIVERGED_ITS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetUp_HBCG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPSetWorkVecs(ksp, 4));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPReset_HBCG(KSP ksp)
{
  KSP_HBCG *cg = (KSP_HBCG *)ksp->data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&cg->dinv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPDestroy_HBCG(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPReset_HBCG(ksp));
  PetscCall(KSPDestroyDefault(ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPSetFromOptions_HBCG(KSP ksp, SquallOptionItems PetscOptionsObject)
{
  KSP_HBCG *cg = (KSP_HBCG *)ksp->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "hipBone-style CG options");
  PetscCall(PetscOptionsBool("-ksp_hbcg_fused", "Fused vector kernels (host loops or CUDA) instead of Vec operations", "KSPHBCG", cg->fused, &cg->fused, NULL));
  PetscCall(PetscOptionsBool("-ksp_hbcg_device_scalars", "On one rank, form p.Ap and alpha on the device (squall's operator, CUDA vectors)", "KSPHBCG", cg->devscalars, &cg->devscalars, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode KSPView_HBCG(KSP ksp, PetscViewer viewer)
{
  KSP_HBCG *cg = (KSP_HBCG *)ksp->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (isascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  vector work: %s%s\n", cg->fused ? "fused" : "Vec operations (-ksp_hbcg_fused 0)", ksp->its || ksp->reason ? "" : " (backend chosen at the first solve)"));
    if (ksp->its || ksp->reason)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  last solve: %s%s%s%s\n", HBCGBackends[cg->backend], cg->fusedpc ? ", Jacobi fused into the residual update" : "", cg->devpap ? ", p.Ap and alpha on the device" : "",
                                       cg->lagx ? ", x updated in the next direction's pass" : ""));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
  KSPHBCG "hbcg" - conjugate gradients as in hipBone/NekBone: fused vector kernels, the operator
  product fused with p.Ap (for squall's hipBone operator), one reduction for all dot products of an
  iteration, the solution update overlapping that reduction.

  Options Database Keys:
. -ksp_hbcg_fused <bool> - fused host loops / CUDA kernels (default) or plain Vec operations
. -ksp_hbcg_device_scalars <bool> - on one rank with squall's operator on CUDA vectors, p.Ap and alpha stay on the device (default true)

  Notes:
  Works with any Mat through MatMult(). Same iteration, norms (preconditioned, unpreconditioned,
  natural, none) and stopping tests as KSPCG, left preconditioning only; PCJACOBI is fused, any other
  PC is applied with PCApply().
M*/
PetscErrorCode KSPCreate_HBCG(KSP ksp)
{
  KSP_HBCG *cg;

  PetscFunctionBegin;
  PetscCall(SquallInitializePackage());
  PetscCall(PetscNew(&cg));
  cg->fused      = PETSC_TRUE;
  cg->devscalars = PETSC_TRUE;
  ksp->data      = (void *)cg;
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NATURAL, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));
  ksp->ops->setup          = KSPSetUp_HBCG;
  ksp->ops->solve          = KSPSolve_HBCG;
  ksp->ops->reset          = KSPReset_HBCG;
  ksp->ops->destroy        = KSPDestroy_HBCG;
  ksp->ops->setfromoptions = KSPSetFromOptions_HBCG;
  ksp->ops->view           = KSPView_HBCG;
  ksp->ops->buildsolution  = KSPBuildSolutionDefault;
  ksp->ops->buildresidual  = KSPBuildResidualDefault;
  PetscFunctionReturn(PETSC_SUCCESS);
}
