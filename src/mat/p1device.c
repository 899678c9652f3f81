/* The GPU glue of the P1 operators: fills the descriptors of src/cuda/p1kernels.h from the SquallP1, builds
   the maps on the host (once per sparsity, src/mat/p1maps.c) and hands them to the device, which keeps
   them; the host copies are not kept. */
#include "mat/p1impl.h"

PetscErrorCode SquallP1DeviceSetUp(SquallP1 p1)
{
  SquallP1KMesh M;

  PetscFunctionBegin;
  M.ne       = p1->ne;
  M.nv       = p1->nv;
  M.nowned   = p1->nowned;
  M.tet      = p1->tet;
  M.x        = p1->x;
  M.row      = p1->row;
  M.dI       = p1->dI;
  M.dJ       = p1->dJ;
  M.nnzo     = p1->oI[p1->nowned];
  M.ngarray  = p1->ngarray;
  M.geometry = SQUALL_P1Geometry;
  PetscCall(SquallP1CUDASetUp(&M, &p1->dev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the operator descriptor: coefficients, the fields it reads, its flops over all elements */
static void P1FillOperator(SquallP1 p1, PetscInt bs, const SquallP1Coef *c, PetscLogDouble flopsperelement, PetscLogEvent event, SquallP1KOperator *op)
{
  op->bs    = bs;
  op->coef  = c->c;
  op->rho   = p1->rho;
  op->u     = p1->u;
  op->K     = p1->hasK && p1->Kloc == SQUALL_P1_NODE ? p1->K : NULL;
  op->Ke    = p1->hasK && p1->Kloc == SQUALL_P1_ELEMENT ? p1->Ke : NULL;
  op->flops = flopsperelement * p1->ne;
  op->event = event;
}

/* the device maps of the mode, built on the host the first time */
static PetscErrorCode P1DevicePrepareMaps(SquallP1 p1, PetscInt bs)
{
  PetscBool has;

  PetscFunctionBegin;
  if (p1->mode == SQUALL_P1_MODE_SLOTS) {
    PetscCall(SquallP1CUDAHasMap(p1->dev, SQUALL_P1K_MAP_SLOTS, bs, &has));
    if (!has) {
      int *h;

      /* without the off-diagonal strides the device never reads */
      PetscCall(SquallP1BuildSlots(p1, bs, PETSC_FALSE, &h));
      PetscCall(SquallP1CUDASetSlots(p1->dev, bs, h));
      PetscCall(PetscFree(h));
    }
  } else if (p1->mode == SQUALL_P1_MODE_GATHER) {
    PetscCall(SquallP1CUDAHasMap(p1->dev, SQUALL_P1K_MAP_GATHER, bs, &has));
    if (!has) {
      const PetscInt n = p1->nowned;
      int           *off[2], *idx[2], *prow;

      /* the diagonal block only: on several ranks MatSetValuesCOO fills the off-diagonal one */
      PetscCall(SquallP1BuildGather(p1, PETSC_FALSE, off, idx));
      PetscCall(PetscMalloc1(PetscMax(p1->dI[n], 1), &prow));
      for (PetscInt r = 0; r < n; r++)
        for (PetscInt p = p1->dI[r]; p < p1->dI[r + 1]; p++) prow[p] = (int)r;
      PetscCall(SquallP1CUDASetGather(p1->dev, off[0], idx[0], prow));
      PetscCall(PetscFree(off[0]));
      PetscCall(PetscFree(idx[0]));
      PetscCall(PetscFree(prow));
    }
  } else {
    PetscCall(SquallP1CUDAHasMap(p1->dev, SQUALL_P1K_MAP_REDUCE, bs, &has));
    if (!has) {
      SquallP1Reduce R;

      /* blocks of exactly the kernel's thread block, the diagonal block only. bs 1: the long entries first
         (SquallP1BuildReduce()), 6-8% faster at 0.56 M and 21.1 M tets; bs 3 in position order, whose 9
         atomics per entry gain more from consecutive entries (with the classes 4% slower) */
      PetscCall(SquallP1BuildReduce(p1, SQUALL_P1_REDUCE_BLOCK, PETSC_FALSE, bs == 1 ? SQUALL_P1_REDUCE_LONG : PETSC_INT_MAX, &R));
      PetscCall(SquallP1CUDASetReduce(p1->dev, bs, &R));
      PetscCall(SquallP1ReduceDestroy(&R));
    }
    PetscCall(SquallP1CUDAHasMap(p1->dev, SQUALL_P1K_MAP_BLOCKVERTICES, bs, &has));
    if (!has) {
      int                    *voff, *vtx;
      uint16_t               *ltet;
      SquallP1BlockVertexList B;

      /* once per element order */
      PetscCall(SquallP1BuildBlockVertices(p1, SQUALL_P1_REDUCE_BLOCK, &voff, &vtx, &ltet, &B.maxnv));
      B.nblocks = (p1->ne + SQUALL_P1_REDUCE_BLOCK - 1) / SQUALL_P1_REDUCE_BLOCK;
      B.voff    = voff;
      B.vtx     = vtx;
      B.ltet    = ltet;
      PetscCall(SquallP1CUDASetBlockVertices(p1->dev, &B));
      PetscCall(PetscFree(voff));
      PetscCall(PetscFree(vtx));
      PetscCall(PetscFree(ltet));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* several ranks: the off-diagonal block goes through MatSetValuesCOO, whose COO pattern (set once per matrix)
   also rewrites the diagonal block (src/cuda/p1values.cu) */
static PetscErrorCode P1DevicePrepareOffDiagonal(SquallP1 p1, PetscInt bs, Mat A)
{
  SquallP1Info *info;
  PetscBool     ismpi, has;

  PetscFunctionBegin;
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &ismpi));
  if (!ismpi) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SquallP1GetInfo((PetscObject)A, &info));
  PetscCall(SquallP1SetMatCOO(p1, bs, A, info, PETSC_TRUE));
  PetscCall(SquallP1CUDAHasMap(p1->dev, SQUALL_P1K_MAP_OFFDIAGONAL, bs, &has));
  if (!has) {
    const PetscInt *el;
    PetscInt        nel;

    PetscCall(SquallP1OffDiagonalElements(p1, &nel, &el));
    PetscCall(SquallP1CUDASetOffDiagonalElements(p1->dev, nel, el));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1DeviceAssembleOperator(SquallP1 p1, PetscInt bs, const SquallP1Coef *c, Mat A)
{
  static const SquallP1KMode kmode[] = {SQUALL_P1K_SLOTS, SQUALL_P1K_GATHER, SQUALL_P1K_REDUCE};
  const PetscLogEvent        event[] = {SQUALL_P1AssembleSlots, SQUALL_P1AssembleGather, SQUALL_P1AssembleReduce};
  SquallP1KOperator          op;
  SquallP1Info              *info;
  PetscObjectState           st;

  PetscFunctionBegin;
  PetscCall(P1DevicePrepareOffDiagonal(p1, bs, A));
  /* a new COO pattern changes the nonzero state: check the layout the kernels write again */
  PetscCall(SquallP1GetInfo((PetscObject)A, &info));
  PetscCall(MatGetNonzeroState(A, &st));
  if (info->verified != st + 1) {
    PetscCall(SquallP1CheckLayout(p1, bs, A));
    info->verified = st + 1;
  }
  PetscCall(P1DevicePrepareMaps(p1, bs));
  P1FillOperator(p1, bs, c, SquallP1ElementFlops(c->c, bs), event[p1->mode], &op);
  PetscCall(SquallP1CUDAAssembleOperator(p1->dev, &op, kmode[p1->mode], SQUALL_P1GatherSum, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1DeviceElementValuesCOO(SquallP1 p1, PetscInt bs, const SquallP1Coef *c, PetscScalar **values)
{
  SquallP1KOperator op;

  PetscFunctionBegin;
  P1FillOperator(p1, bs, c, SquallP1ElementFlops(c->c, bs), SQUALL_P1AssembleCOO, &op);
  PetscCall(SquallP1CUDAElementValuesCOO(p1->dev, &op, values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1DeviceAssembleRHS(SquallP1 p1, PetscInt bs, const SquallP1Coef *c, Vec floc, Vec b, PetscScalar **coovalues)
{
  SquallP1KOperator op;

  PetscFunctionBegin;
  P1FillOperator(p1, bs, c, SquallP1ElementFlops(c->c, bs) + 32.0 * bs * bs, SQUALL_P1RHS, &op);
  PetscCall(SquallP1CUDAAssembleRHS(p1->dev, &op, floc, b, coovalues));
  PetscFunctionReturn(PETSC_SUCCESS);
}
