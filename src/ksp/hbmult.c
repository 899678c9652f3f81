/* Products of the hipBone operator: the host reference y = Z^T S_L Z x + lambda x (element loop, then the Z^T
   gather, which adds lambda x, with the halo exchanges overlapped), the dispatch to the CUDA kernels of
   src/cuda/hbop.cu for device vectors, x.Ax from the same pass, and the diagonal (Jacobi).
   hipBone applies lambda W per element node, W the inverse multiplicity; Z^T W Z = I, so the assembled
   lambda x is the same operator without reading W. */
#include "ksp/hbimpl.h"
#include "physics/sem.h"

const char SquallHBComposedName[] = "SquallHBMultDot_C";

/* host work arrays, made on first use so that a device-only run does not hold them */
PetscErrorCode SquallHBHostWork(Mat_HB *hb)
{
  PetscFunctionBegin;
  if (hb->yL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc5(PetscMax(hb->nelem * hb->Np, 1), &hb->yL, PetscMax(hb->nghost, 1), &hb->xghost, PetscMax(hb->nghost, 1), &hb->yghost, PetscMax(hb->nshared, 1), &hb->yshared, (4 + SQUALL_SEM_NGEO) * hb->Np, &hb->scratch));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y_L = S_L Z x on elements [e0, e1); x: owned values, xg: ghost values. The rows below ns, of one element copy,
   are written whole into y from the element's block while it is in cache (the gather then starts at row ns). */
static PetscErrorCode HBLocalOpHost(Mat_HB *hb, PetscInt e0, PetscInt e1, const PetscScalar *x, const PetscScalar *xg, PetscScalar *yL, PetscScalar *y, PetscInt ns)
{
  const PetscInt   Nq = hb->Nq, Np = hb->Np, nown = hb->nown;
  PetscScalar     *q  = (PetscScalar *)hb->scratch;
  PetscReal       *gr = hb->scratch + Np, *gs = gr + Np, *gt = gs + Np, *Gs = gt + Np;
  SquallHBGeometry g;

  PetscFunctionBegin;
  PetscCall(SquallHBResolveGeometry(hb, &g));
  PetscCall(SquallHBGeometryData(hb, g));
  PetscCall(PetscLogEventBegin(SQUALL_HBLocalOp, 0, 0, 0, 0));
  for (PetscInt e = e0; e < e1; e++) {
    const PetscInt  *gi = hb->gidx + e * Np;
    const PetscReal *Ge = hb->G + (size_t)SQUALL_SEM_NGEO * e * Np;

    for (PetscInt n = 0; n < Np; n++) q[n] = gi[n] < 0 ? 0 : (gi[n] < nown ? x[gi[n]] : xg[gi[n] - nown]);
    if (g != SQUALL_HB_GEOMETRY_STORED) {
      PetscCall(SquallHBElementFactors(hb, g, e, Gs));
      Ge = Gs;
    }
    SquallSEMElementApply(Nq, hb->D, Ge, q, gr, gs, gt, yL + e * Np);
    if (ns)
      for (PetscInt n = 0; n < Np; n++)
        if (gi[n] >= 0 && gi[n] < ns) y[gi[n]] = yL[e * Np + n] + hb->lambda * x[gi[n]];
  }
  PetscCall(PetscLogFlops((e1 - e0) * SquallSEMOperatorFlops(Nq)));
  PetscCall(PetscLogEventEnd(SQUALL_HBLocalOp, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscScalar HBRowSum(const Mat_HB *hb, const PetscScalar *yL, PetscInt l)
{
  PetscScalar s = 0;

  for (PetscInt c = hb->rowptr[l]; c < hb->rowptr[l + 1]; c++) s += yL[hb->col[c]];
  return s;
}

/* y = Z^T y_L summed over ranks, plus shift x (x NULL: plus shift), on the owned rows from r0 (those below are
   written already); with dot, also the local part of x.y over all owned rows. The ghost rows go out first, the
   owned rows are summed while they travel; the received sums land in the shared rows. */
PetscErrorCode SquallHBGatherHost(Mat_HB *hb, PetscInt r0, const PetscScalar *yL, PetscScalar *y, PetscReal shift, const PetscScalar *x, PetscReal *dot)
{
  const PetscInt nown = hb->nown, npriv = hb->nown - hb->nshared;
  PetscMPIInt    size;
  PetscReal      d = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  PetscCall(PetscLogEventBegin(SQUALL_HBGather, 0, 0, 0, 0));
  if (size > 1) {
    for (PetscInt g = 0; g < hb->nghost; g++) hb->yghost[g] = HBRowSum(hb, yL, nown + g);
    PetscCall(PetscArrayzero(hb->yshared, hb->nshared));
    PetscCall(PetscSFReduceWithMemTypeBegin(hb->num.sfy, MPIU_SCALAR, PETSC_MEMTYPE_HOST, hb->yghost, PETSC_MEMTYPE_HOST, hb->yshared, MPI_SUM));
  }
  for (PetscInt l = r0; l < nown; l++) y[l] = HBRowSum(hb, yL, l) + shift * (x ? x[l] : 1);
  if (size > 1) {
    PetscCall(PetscSFReduceEnd(hb->num.sfy, MPIU_SCALAR, hb->yghost, hb->yshared, MPI_SUM));
    for (PetscInt s = 0; s < hb->nshared; s++) y[npriv + s] += hb->yshared[s];
  }
  if (dot) {
    for (PetscInt l = 0; l < nown; l++) d += PetscRealPart(x[l] * y[l]);
    *dot = d;
  }
  PetscCall(PetscLogFlops(hb->rowptr[nown + hb->nghost] - hb->rowptr[r0] + 2.0 * (nown - r0) + (dot ? 2.0 * nown : 0)));
  PetscCall(PetscLogEventEnd(SQUALL_HBGather, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBMultHost(Mat_HB *hb, Vec x, Vec y, PetscBool wantdot, PetscReal *dot)
{
  const PetscScalar *xa;
  PetscScalar       *ya;
  PetscMPIInt        size;
  const PetscInt     ns = SquallHBSingleRows(hb, PETSC_FALSE);

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  PetscCall(SquallHBHostWork(hb));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  if (size > 1) PetscCall(PetscSFBcastWithMemTypeBegin(hb->num.sfx, MPIU_SCALAR, PETSC_MEMTYPE_HOST, xa, PETSC_MEMTYPE_HOST, hb->xghost, MPI_REPLACE));
  if (size > 1 && !hb->overlap) PetscCall(PetscSFBcastEnd(hb->num.sfx, MPIU_SCALAR, xa, hb->xghost, MPI_REPLACE));
  PetscCall(HBLocalOpHost(hb, 0, hb->nint, xa, NULL, hb->yL, ya, ns));
  if (size > 1 && hb->overlap) PetscCall(PetscSFBcastEnd(hb->num.sfx, MPIU_SCALAR, xa, hb->xghost, MPI_REPLACE));
  PetscCall(HBLocalOpHost(hb, hb->nint, hb->nelem, xa, hb->xghost, hb->yL, ya, ns));
  PetscCall(SquallHBGatherHost(hb, ns, hb->yL, ya, hb->lambda, xa, wantdot ? dot : NULL));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the descriptor the CUDA code reads: the operator's arrays, and the kernel as resolved now (options may
   change it between products) */
static PetscErrorCode HBFillDescriptor(Mat_HB *hb)
{
  SquallHBOpDesc *d = &hb->dev;

  PetscFunctionBegin;
  d->comm    = hb->comm;
  d->N       = hb->N;
  d->Nq      = hb->Nq;
  d->Np      = hb->Np;
  d->nelem   = hb->nelem;
  d->nint    = hb->nint;
  d->nown    = hb->nown;
  d->nshared = hb->nshared;
  d->nghost  = hb->nghost;
  d->gidx    = hb->gidx;
  d->rowptr  = hb->rowptr;
  d->col     = hb->col;
  PetscCall(SquallHBResolveGeometry(hb, &d->geometry));
  PetscCall(SquallHBGeometryData(hb, d->geometry));
  d->G          = hb->G;
  d->V          = hb->V;
  d->F          = hb->F;
  d->r          = hb->r;
  d->w          = hb->w;
  d->D          = hb->D;
  d->lambda     = hb->lambda;
  d->sfx        = hb->num.sfx;
  d->sfy        = hb->num.sfy;
  d->overlap    = hb->overlap;
  d->ev_localop = SQUALL_HBLocalOp;
  d->ev_gather  = SQUALL_HBGather;
  PetscCall(SquallHBResolveKernel(hb, &d->kernel, &d->layers, &d->elements));
  PetscCall(SquallHBResolveScatter(hb, d->kernel, &d->atomic));
  d->nsingle = SquallHBSingleRows(hb, d->atomic);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x and, with dot, the global x.y from the same pass (the CG's p.Ap); or, with ddot (one rank, device
   vectors), x.y left in device memory there */
static PetscErrorCode HBMult(Mat A, Vec x, Vec y, PetscBool wantdot, PetscReal *dot, PetscReal *ddot)
{
  Mat_HB     *hb;
  PetscBool   dev;
  PetscReal   ldot = 0;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &hb));
  PetscCall(SquallHBIsDeviceVec(x, &dev));
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  PetscCheck(!ddot || (size == 1 && dev), hb->comm, PETSC_ERR_ARG_WRONG, "p.Ap left on the device needs one rank and device vectors");
  PetscCall(PetscLogEventBegin(SQUALL_HBMult, A, x, y, 0));
  if (dev) {
    PetscCall(HBFillDescriptor(hb));
    PetscCall(SquallHBMultCUDA(&hb->dev, x, y, wantdot, &ldot, ddot));
  } else
    PetscCall(HBMultHost(hb, x, y, wantdot, &ldot));
  PetscCall(PetscLogEventEnd(SQUALL_HBMult, A, x, y, 0));
  if (wantdot && !ddot) PetscCallMPI(MPIU_Allreduce(&ldot, dot, 1, MPIU_REAL, MPIU_SUM, hb->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBMatMult(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(HBMult(A, x, y, PETSC_FALSE, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBMatMultDot(Mat A, Vec x, Vec y, PetscReal *dot)
{
  PetscFunctionBegin;
  PetscCall(HBMult(A, x, y, PETSC_TRUE, dot, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one rank, device vectors: y = A x with x.y left in device memory at ddot, for KSP hbcg to form alpha there */
PetscErrorCode SquallHBMatMultDotDevice(Mat A, Vec x, Vec y, PetscReal *ddot)
{
  PetscFunctionBegin;
  PetscCall(HBMult(A, x, y, PETSC_TRUE, NULL, ddot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBMultDot - y = A x and x.y in one pass over the vectors, for an operator of SquallHBCreateOperator()
  (any other Mat: MatMult() and VecDot()). Collective.
@*/
PetscErrorCode SquallHBMultDot(Mat A, Vec x, Vec y, PetscReal *dot)
{
  PetscErrorCode (*f)(Mat, Vec, Vec, PetscReal *) = NULL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(dot, 4);
  PetscCall(PetscObjectQueryFunction((PetscObject)A, SquallHBComposedName, &f));
  if (f)
    PetscCall((*f)(A, x, y, dot));
  else {
    PetscScalar d;

    PetscCall(MatMult(A, x, y));
    PetscCall(VecDot(y, x, &d));
    *dot = PetscRealPart(d);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the diagonal is formed on the host, element by element from the factors of the geometry in use, and
   gathered like A x (which adds lambda) */
PetscErrorCode SquallHBMatGetDiagonal(Mat A, Vec d)
{
  Mat_HB          *hb;
  PetscScalar     *da;
  SquallHBGeometry g;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &hb));
  PetscCall(SquallHBHostWork(hb));
  PetscCall(SquallHBResolveGeometry(hb, &g));
  PetscCall(SquallHBGeometryData(hb, g));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    PetscReal *Ge = hb->scratch + 4 * hb->Np;

    PetscCall(SquallHBElementFactors(hb, g, e, Ge));
    for (PetscInt k = 0; k < hb->Nq; k++)
      for (PetscInt j = 0; j < hb->Nq; j++)
        for (PetscInt i = 0; i < hb->Nq; i++) hb->yL[e * hb->Np + i + hb->Nq * (j + hb->Nq * k)] = SquallSEMNodeDiagonal(hb->Nq, hb->D, Ge, i, j, k);
  }
  PetscCall(VecGetArrayWrite(d, &da));
  PetscCall(SquallHBGatherHost(hb, 0, hb->yL, da, hb->lambda, NULL, NULL));
  PetscCall(VecRestoreArrayWrite(d, &da));
  PetscFunctionReturn(PETSC_SUCCESS);
}
