/* SquallP1's nodal and element vectors, coefficient fields, element metric and integrals. */
#include "mat/p1impl.h"
#include <petscdmplex.h>

/* ---- vectors and fields */

static PetscErrorCode P1CheckBlockSize(SquallP1 p1, PetscInt bs)
{
  PetscFunctionBegin;
  PetscCheck(bs == 1 || bs == 3 || bs == 9, p1->comm, PETSC_ERR_ARG_OUTOFRANGE, "Block size %" PetscInt_FMT " is not supported: nodal fields have 1 (scalar), 3 (vector) or 9 (tensor) values per node", bs);
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a clone of the plex with bs dofs per vertex: its global vectors are the nodal vectors, so PETSc's
   viewers (VTK, HDF5) and DMGlobalToLocal work on them */
PetscErrorCode SquallP1GetVertexDM(SquallP1 p1, PetscInt bs, DM *vdm)
{
  PetscFunctionBegin;
  if (!p1->vdm[bs]) {
    PetscSection s;
    PetscInt     pStart, pEnd, vStart, vEnd;

    PetscCall(DMPlexGetChart(p1->dm, &pStart, &pEnd));
    PetscCall(DMPlexGetDepthStratum(p1->dm, 0, &vStart, &vEnd));
    PetscCall(PetscSectionCreate(p1->comm, &s)); /* the global section numbers across this communicator */
    /* one field with bs components, which PETSc's VTK and HDF5 viewers need */
    PetscCall(PetscSectionSetNumFields(s, 1));
    PetscCall(PetscSectionSetFieldComponents(s, 0, bs));
    PetscCall(PetscSectionSetChart(s, pStart, pEnd));
    for (PetscInt v = vStart; v < vEnd; v++) {
      PetscCall(PetscSectionSetDof(s, v, bs));
      PetscCall(PetscSectionSetFieldDof(s, v, 0, bs));
    }
    PetscCall(PetscSectionSetUp(s));
    PetscCall(DMClone(p1->dm, &p1->vdm[bs]));
    PetscCall(DMSetLocalSection(p1->vdm[bs], s));
    PetscCall(PetscSectionDestroy(&s));
  }
  PetscCall(DMSetVecType(p1->vdm[bs], p1->backend == SQUALL_P1_CUDA ? VECCUDA : VECSTANDARD));
  *vdm = p1->vdm[bs];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1CreateVector - a nodal vector with bs = 1, 3 or 9 values per owned node (interleaved), of
  type VECCUDA with the CUDA backend. Global index of node n, component i: bs*n + i.
@*/
PetscErrorCode SquallP1CreateVector(SquallP1 p1, PetscInt bs, Vec *v)
{
  DM vdm = NULL;

  PetscFunctionBegin;
  PetscCall(P1CheckBlockSize(p1, bs));
  PetscCall(SquallP1GetVertexDM(p1, bs, &vdm));
  PetscCall(DMCreateGlobalVector(vdm, v));
  PetscCall(VecSetBlockSize(*v, bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1CreateElementVector - a sequential vector with bs values per local element (element-major),
  in the backend's memory; e.g. per-element diffusivity tensors (bs = 9) for SquallP1SetDiffusivity().
@*/
PetscErrorCode SquallP1CreateElementVector(SquallP1 p1, PetscInt bs, Vec *v)
{
  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  PetscCheck(bs >= 1 && bs <= 9, p1->comm, PETSC_ERR_ARG_OUTOFRANGE, "Element vectors have 1 to 9 values per element, not %" PetscInt_FMT, bs);
  PetscCall(VecCreate(PETSC_COMM_SELF, v));
  PetscCall(VecSetSizes(*v, bs * p1->ne, bs * p1->ne));
  PetscCall(VecSetBlockSize(*v, bs));
  PetscCall(VecSetType(*v, p1->backend == SQUALL_P1_CUDA ? VECSEQCUDA : VECSEQ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the scatter of nodal vectors with bs values per node to the local vertices, and a local work vector */
PetscErrorCode SquallP1GetLocalWork(SquallP1 p1, PetscInt bs, Vec *l)
{
  PetscFunctionBegin;
  PetscCall(P1CheckBlockSize(p1, bs));
  if (!p1->g2l[bs]) {
    IS  is;
    Vec gt;

    PetscCall(SquallP1CreateVector(p1, bs, &gt));
    PetscCall(VecCreate(PETSC_COMM_SELF, &p1->lwork[bs]));
    PetscCall(VecSetSizes(p1->lwork[bs], bs * p1->nv, bs * p1->nv));
    PetscCall(VecSetBlockSize(p1->lwork[bs], bs));
    PetscCall(VecSetType(p1->lwork[bs], p1->backend == SQUALL_P1_CUDA ? VECSEQCUDA : VECSEQ));
    PetscCall(ISCreateBlock(PETSC_COMM_SELF, bs, p1->nv, p1->gidx, PETSC_COPY_VALUES, &is));
    PetscCall(VecScatterCreate(gt, is, p1->lwork[bs], NULL, &p1->g2l[bs]));
    PetscCall(ISDestroy(&is));
    PetscCall(VecDestroy(&gt));
  }
  if (l) *l = p1->lwork[bs];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* scatter of a nodal vector to the local vertices (owned and overlap), bs values each; *l is
   created if NULL */
PetscErrorCode SquallP1GlobalToLocal(SquallP1 p1, PetscInt bs, Vec g, Vec *l)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(SquallP1GetLocalWork(p1, bs, NULL));
  PetscCall(VecGetLocalSize(g, &n));
  PetscCheck(n == bs * p1->nowned, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Nodal vector has local size %" PetscInt_FMT ", expected %" PetscInt_FMT " (%" PetscInt_FMT " values for each of %" PetscInt_FMT " owned nodes)", n, bs * p1->nowned, bs,
             p1->nowned);
  if (!*l) PetscCall(VecDuplicate(p1->lwork[bs], l));
  PetscCall(VecScatterBegin(p1->g2l[bs], g, *l, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(p1->g2l[bs], g, *l, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1GetCoordinates - the node coordinates as a nodal vector (bs 3), owned by the SquallP1
@*/
PetscErrorCode SquallP1GetCoordinates(SquallP1 p1, Vec *X)
{
  PetscFunctionBegin;
  if (!p1->coords) {
    PetscScalar *a;

    PetscCall(SquallP1CreateVector(p1, 3, &p1->coords));
    PetscCall(VecGetArrayWrite(p1->coords, &a));
    for (PetscInt v = 0; v < p1->nv; v++)
      if (p1->row[v] >= 0)
        for (PetscInt d = 0; d < 3; d++) a[3 * p1->row[v] + d] = p1->x[3 * v + d];
    PetscCall(VecRestoreArrayWrite(p1->coords, &a));
  }
  *X = p1->coords;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1Interpolate - nodal interpolant of a function f(x, values[bs], ctx) into a nodal vector
@*/
PetscErrorCode SquallP1Interpolate(SquallP1 p1, PetscInt bs, PetscErrorCode (*f)(const PetscReal[3], PetscScalar[], void *), void *ctx, Vec v)
{
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(P1CheckBlockSize(p1, bs));
  PetscCall(VecGetLocalSize(v, &n));
  PetscCheck(n == bs * p1->nowned, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Nodal vector has local size %" PetscInt_FMT ", expected %" PetscInt_FMT, n, bs * p1->nowned);
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt k = 0; k < p1->nv; k++)
    if (p1->row[k] >= 0) PetscCall(f(&p1->x[3 * k], &a[bs * p1->row[k]], ctx));
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1SetMassCoefficient(SquallP1 p1, Vec rho)
{
  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  if (!rho)
    PetscCall(VecDestroy(&p1->rho));
  else
    PetscCall(SquallP1GlobalToLocal(p1, 1, rho, &p1->rho));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1SetVelocity - the nodal velocity u (bs 3) of the advection term int phi_a (u . grad phi_b)
@*/
PetscErrorCode SquallP1SetVelocity(SquallP1 p1, Vec u)
{
  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  if (!u)
    PetscCall(VecDestroy(&p1->u));
  else
    PetscCall(SquallP1GlobalToLocal(p1, 3, u, &p1->u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1SetDiffusivity - the full 3x3 diffusivity tensor K (row-major, need not be symmetric) of the
  term int grad phi_a . K grad phi_b: nodal (a nodal vector with bs 9) or per element (from
  SquallP1CreateElementVector() with bs 9, e.g. SquallP1ComputeElementMetric()). NULL: K = I.
@*/
PetscErrorCode SquallP1SetDiffusivity(SquallP1 p1, SquallP1Location loc, Vec K)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  p1->hasK = K ? PETSC_TRUE : PETSC_FALSE;
  p1->Kloc = loc;
  if (!K) PetscFunctionReturn(PETSC_SUCCESS);
  if (loc == SQUALL_P1_NODE) {
    PetscCall(SquallP1GlobalToLocal(p1, 9, K, &p1->K));
  } else {
    PetscCall(VecGetLocalSize(K, &n));
    PetscCheck(n == 9 * p1->ne, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Element diffusivity has local size %" PetscInt_FMT ", expected 9 x %" PetscInt_FMT " elements (see SquallP1CreateElementVector())", n, p1->ne);
    if (!p1->Ke) PetscCall(SquallP1CreateElementVector(p1, 9, &p1->Ke));
    PetscCall(VecCopy(K, p1->Ke));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1ComputeElementMetric - for every element its metric tensor M (all six edges of unit length:
  a 6x6 solve) and from its sorted eigenpairs the length-scale tensor: L = scale * M^{-1} (9 values
  per element) and the principal lengths h (3 per element, longest first; h may be NULL). L is a
  grid-scale diffusivity for SquallP1SetDiffusivity(p1, SQUALL_P1_ELEMENT, L), scale being a rate.
@*/
PetscErrorCode SquallP1ComputeElementMetric(SquallP1 p1, PetscReal scale, Vec L, Vec h)
{
  PetscInt n, nbad = 0;

  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  PetscCall(VecGetLocalSize(L, &n));
  PetscCheck(n == 9 * p1->ne, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "L has local size %" PetscInt_FMT ", expected 9 x %" PetscInt_FMT " elements", n, p1->ne);
  if (h) {
    PetscCall(VecGetLocalSize(h, &n));
    PetscCheck(n == 3 * p1->ne, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "h has local size %" PetscInt_FMT ", expected 3 x %" PetscInt_FMT " elements", n, p1->ne);
  }
  if (p1->backend == SQUALL_P1_CUDA) {
    PetscCall(SquallP1CUDAComputeElementMetric(p1->dev, scale, L, h, SQUALL_P1Metric, &nbad));
  } else {
    PetscScalar *La, *ha = NULL;

    PetscCall(PetscLogEventBegin(SQUALL_P1Metric, 0, 0, 0, 0));
    PetscCall(VecGetArrayWrite(L, &La));
    if (h) PetscCall(VecGetArrayWrite(h, &ha));
    for (PetscInt e = 0; e < p1->ne; e++) {
      PetscReal x[4][3], M[9], Le[9], he[3];

      for (PetscInt a = 0; a < 4; a++)
        for (PetscInt d = 0; d < 3; d++) x[a][d] = p1->x[3 * p1->tet[4 * e + a] + d];
      if (SquallP1ElementMetric(x, M, Le, he)) {
        nbad++;
        for (PetscInt k = 0; k < 9; k++) Le[k] = 0;
        for (PetscInt k = 0; k < 3; k++) he[k] = 0;
      }
      for (PetscInt k = 0; k < 9; k++) La[9 * e + k] = scale * Le[k];
      if (ha)
        for (PetscInt k = 0; k < 3; k++) ha[3 * e + k] = he[k];
    }
    PetscCall(VecRestoreArrayWrite(L, &La));
    if (h) PetscCall(VecRestoreArrayWrite(h, &ha));
    PetscCall(PetscLogFlops(700.0 * p1->ne));
    PetscCall(PetscLogEventEnd(SQUALL_P1Metric, 0, 0, 0, 0));
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nbad, 1, MPIU_INT, MPI_SUM, p1->comm));
  PetscCheck(!nbad, p1->comm, PETSC_ERR_ARG_WRONG, "%" PetscInt_FMT " elements have no metric tensor (degenerate edge system)", nbad);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- integrals, each owned element once */

PetscErrorCode SquallP1Integrate(SquallP1 p1, Vec u, PetscReal *val)
{
  Vec                ul = NULL;
  const PetscScalar *a;
  PetscReal          s = 0;

  PetscFunctionBegin;
  PetscCall(SquallP1GlobalToLocal(p1, 1, u, &ul));
  PetscCall(VecGetArrayRead(ul, &a));
  for (PetscInt e = 0; e < p1->ne; e++) {
    const PetscInt *t = &p1->tet[4 * e];
    if (!p1->eowned[e]) continue;
    s += p1->geom[9 * p1->ne + e] * (PetscReal)0.25 * PetscRealPart(a[t[0]] + a[t[1]] + a[t[2]] + a[t[3]]);
  }
  PetscCall(VecRestoreArrayRead(ul, &a));
  PetscCall(VecDestroy(&ul));
  PetscCallMPI(MPIU_Allreduce(&s, val, 1, MPIU_REAL, MPIU_SUM, p1->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1ComputeL2Error - || u_h - u ||_L2 over the domain with the 11-point rule on every element;
  u is given by exact(x, values[bs], ctx), bs the block size of the nodal vector uh (1 to 9)
@*/
PetscErrorCode SquallP1ComputeL2Error(SquallP1 p1, Vec uh, PetscErrorCode (*exact)(const PetscReal[3], PetscScalar[], void *), void *ctx, PetscReal *err)
{
  Vec                ul = NULL;
  const PetscScalar *a;
  PetscInt           bs;
  PetscReal          s = 0;

  PetscFunctionBegin;
  PetscCall(VecGetBlockSize(uh, &bs));
  PetscCall(SquallP1GlobalToLocal(p1, bs, uh, &ul));
  PetscCall(VecGetArrayRead(ul, &a));
  for (PetscInt e = 0; e < p1->ne; e++) {
    const PetscInt *t = &p1->tet[4 * e];

    if (!p1->eowned[e]) continue;
    for (int q = 0; q < SQUALL_P1_NQUAD; q++) {
      PetscReal   l[4], w, xq[3] = {0, 0, 0};
      PetscScalar ue[9];

      SquallP1QuadPoint(q, l, &w);
      for (PetscInt k = 0; k < 4; k++)
        for (PetscInt d = 0; d < 3; d++) xq[d] += l[k] * p1->x[3 * t[k] + d];
      PetscCall(exact(xq, ue, ctx));
      for (PetscInt i = 0; i < bs; i++) {
        PetscReal uq = 0;
        for (PetscInt k = 0; k < 4; k++) uq += l[k] * PetscRealPart(a[bs * t[k] + i]);
        s += w * p1->geom[9 * p1->ne + e] * PetscSqr(uq - PetscRealPart(ue[i]));
      }
    }
  }
  PetscCall(VecRestoreArrayRead(ul, &a));
  PetscCall(VecDestroy(&ul));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &s, 1, MPIU_REAL, MPIU_SUM, p1->comm));
  *err = PetscSqrtReal(s);
  PetscFunctionReturn(PETSC_SUCCESS);
}
