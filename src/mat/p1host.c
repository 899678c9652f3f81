/* The host paths of the P1 assembly: the CPU references of the direct modes (slots, gather, reduce: the same
   element code, maps and summation order as the GPU kernels, one element or block at a time), host
   MatSetValues, and the element values of the COO path. */
#include "mat/p1impl.h"

/* the gather over one block of the AIJ matrix (scalar graph ia, values a): every stored value of the
   owned rows is written, component (i, j) of the 3x3 blocks from its scratch plane */
static void P1GatherBlock(PetscInt bs, PetscInt n, const PetscInt *ia, const int *off, const int *idx, const PetscScalar *w, PetscInt ne, PetscScalar *a)
{
  for (PetscInt r = 0; r < n; r++) {
    const PetscInt lo = ia[r], len = ia[r + 1] - lo;

    for (PetscInt i = 0; i < bs; i++)
      for (PetscInt p = lo; p < lo + len; p++)
        for (PetscInt j = 0; j < bs; j++) a[bs * bs * lo + bs * i * len + bs * (p - lo) + j] = SquallP1GatherValue(off, idx, w + (size_t)(bs * i + j) * 16 * ne, p);
  }
}

/* the CPU reference of the gather mode: the element values of all elements into the entry-major scratch,
   then every stored value of the owned rows (both blocks) sums its contributions; no zeroing pass */
PetscErrorCode SquallP1AssembleHostGather(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef, Mat A)
{
  const PetscInt   n = p1->nowned, ne = p1->ne;
  const PetscReal  cg = coef->c[SQUALL_P1_GRADDIV];
  Mat              Ad = A, Ao = NULL;
  PetscBool        ismpi;
  PetscScalar     *da = NULL, *oa = NULL, *w;
  SquallP1Elements E;

  PetscFunctionBegin;
  if (!p1->gmoff[0]) PetscCall(SquallP1BuildGather(p1, PETSC_TRUE, p1->gmoff, p1->gmidx));
  if (!p1->gwork[bs]) PetscCall(PetscMalloc1((size_t)16 * bs * bs * PetscMax(ne, 1), &p1->gwork[bs]));
  w = p1->gwork[bs];
  PetscCall(PetscLogEventBegin(SQUALL_P1AssembleGather, A, 0, 0, 0));
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &ismpi));
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCheck(Ao || !p1->oI[n], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The graph has off-process columns but the matrix (%s) has no off-diagonal block", ((PetscObject)A)->type_name);
  PetscCall(SquallP1GetElementsHost(p1, &E));
  for (PetscInt e = 0; e < ne; e++) {
    PetscInt  v[4];
    PetscReal g[4][3], vol, S[4][4];

    SquallP1ElementLoad(&E, e, coef, v, g, &vol, S);
    SquallP1ElementStore((int)bs, w + e, ne, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, cg * vol);
  }
  PetscCall(SquallP1RestoreElementsHost(p1, &E));
  PetscCall(PetscLogFlops(SquallP1ElementFlops(coef->c, bs) * ne));
  PetscCall(PetscLogEventBegin(SQUALL_P1GatherSum, A, 0, 0, 0));
  PetscCall(MatSeqAIJGetArrayWrite(Ad, &da));
  P1GatherBlock(bs, n, p1->dI, p1->gmoff[0], p1->gmidx[0], w, ne, da);
  PetscCall(MatSeqAIJRestoreArrayWrite(Ad, &da));
  if (Ao) {
    PetscCall(MatSeqAIJGetArrayWrite(Ao, &oa));
    P1GatherBlock(bs, n, p1->oI, p1->gmoff[1], p1->gmidx[1], w, ne, oa);
    PetscCall(MatSeqAIJRestoreArrayWrite(Ao, &oa));
  }
  PetscCall(PetscLogFlops((PetscLogDouble)bs * bs * (p1->gmoff[0][p1->dI[n]] + (Ao ? p1->gmoff[1][p1->oI[n]] : 0))));
  PetscCall(PetscLogEventEnd(SQUALL_P1GatherSum, A, 0, 0, 0));
  /* the blocks changed behind the parallel matrix's back: let its users (PC, KSP) know */
  if (ismpi) PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscCall(PetscLogEventEnd(SQUALL_P1AssembleGather, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the CPU reference of the reduce mode, block by block as the GPU kernel does it: the block's element
   data into a buffer, then each unique entry sums its contributions in the map's order and is added
   (stored, if no other block touches it) into the diagonal or off-diagonal block */
PetscErrorCode SquallP1AssembleHostReduce(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef, Mat A)
{
  const PetscInt   n = p1->nowned, ne = p1->ne;
  const PetscReal  cg = coef->c[SQUALL_P1_GRADDIV];
  Mat              Ad = A, Ao = NULL;
  PetscBool        ismpi;
  PetscScalar     *da = NULL, *oa = NULL;
  PetscReal       *w;
  SquallP1Reduce  *R;
  SquallP1Elements E;

  PetscFunctionBegin;
  if (!p1->red) {
    PetscCall(PetscNew(&p1->red));
    PetscCall(SquallP1BuildReduce(p1, SQUALL_P1_REDUCE_BLOCK, PETSC_TRUE, PETSC_INT_MAX, p1->red));
  }
  R = p1->red;
  PetscCall(PetscLogEventBegin(SQUALL_P1AssembleReduce, A, 0, 0, 0));
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &ismpi));
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCheck(Ao || !p1->oI[n], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The graph has off-process columns but the matrix (%s) has no off-diagonal block", ((PetscObject)A)->type_name);
  PetscCall(MatSeqAIJGetArray(Ad, &da));
  PetscCall(PetscArrayzero(da, bs * bs * p1->dI[n]));
  if (Ao) {
    PetscCall(MatSeqAIJGetArray(Ao, &oa));
    PetscCall(PetscArrayzero(oa, bs * bs * p1->oI[n]));
  }
  PetscCall(PetscMalloc1(SQUALL_P1_REDUCE_WORDS(bs) * R->nb, &w));
  PetscCall(SquallP1GetElementsHost(p1, &E));
  for (PetscInt k = 0; k < R->nblocks; k++) {
    const PetscInt  e0 = k * R->nb, e1 = PetscMin(ne, e0 + R->nb);
    const uint16_t *c = R->cidx + R->cblk[k];

    for (PetscInt e = e0; e < e1; e++) {
      PetscInt  v[4];
      PetscReal g[4][3], vol, S[4][4];

      SquallP1ElementLoad(&E, e, coef, v, g, &vol, S);
      SquallP1ReduceStore((int)bs, w + (e - e0), (int)R->nb, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, cg * vol);
    }
    for (PetscInt u = R->ublk[k]; u < R->ublk[k + 1]; u++) {
      const int       s = R->slot[u], r = R->row[u], m0 = u == R->ublk[k] ? 0 : (R->end[u - 1] & SQUALL_P1_REDUCE_MASK), m1 = R->end[u] & SQUALL_P1_REDUCE_MASK;
      const PetscBool only = (R->end[u] & SQUALL_P1_REDUCE_ONLY) ? PETSC_TRUE : PETSC_FALSE;
      const PetscInt *ia = s >= 0 ? p1->dI : p1->oI, p = s >= 0 ? s : -s - 2;
      PetscScalar    *a = s >= 0 ? da : oa;
      PetscReal       sum[9];

      SquallP1ReduceSum((int)bs, c, m0, m1, w, (int)R->nb, sum);
      if (bs == 1)
        a[p] = only ? sum[0] : a[p] + sum[0];
      else {
        const PetscInt lo = ia[r], base = 9 * lo + 3 * (p - lo), stride = 3 * (ia[r + 1] - lo);

        for (PetscInt i = 0; i < 3; i++)
          for (PetscInt j = 0; j < 3; j++) a[base + i * stride + j] = only ? sum[3 * i + j] : a[base + i * stride + j] + sum[3 * i + j];
      }
    }
  }
  PetscCall(SquallP1RestoreElementsHost(p1, &E));
  PetscCall(PetscFree(w));
  if (Ao) PetscCall(MatSeqAIJRestoreArray(Ao, &oa));
  PetscCall(MatSeqAIJRestoreArray(Ad, &da));
  /* the blocks changed behind the parallel matrix's back: let its users (PC, KSP) know */
  if (ismpi) PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscCall(PetscLogFlops(SquallP1ElementFlops(coef->c, bs) * ne + (PetscLogDouble)bs * bs * R->ncon));
  PetscCall(PetscLogEventEnd(SQUALL_P1AssembleReduce, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the CPU reference of the slots mode: the same element code and scatter through the slot map, one element
   at a time */
PetscErrorCode SquallP1AssembleHostDirect(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef, Mat A)
{
  const PetscInt   n  = p1->nowned;
  const PetscReal  cg = coef->c[SQUALL_P1_GRADDIV];
  Mat              Ad = A, Ao = NULL;
  PetscBool        ismpi;
  PetscScalar     *da = NULL, *oa = NULL;
  SquallP1Elements E;

  PetscFunctionBegin;
  if (!p1->slots[bs]) PetscCall(SquallP1BuildSlots(p1, bs, PETSC_TRUE, &p1->slots[bs]));
  PetscCall(PetscLogEventBegin(SQUALL_P1AssembleSlots, A, 0, 0, 0));
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &ismpi));
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MatSeqAIJGetArray(Ad, &da));
  PetscCall(PetscArrayzero(da, bs * bs * p1->dI[n]));
  if (Ao) {
    PetscCall(MatSeqAIJGetArray(Ao, &oa));
    PetscCall(PetscArrayzero(oa, bs * bs * p1->oI[n]));
  }
  PetscCall(SquallP1GetElementsHost(p1, &E));
  for (PetscInt e = 0; e < p1->ne; e++) {
    PetscInt  v[4];
    PetscReal g[4][3], vol, S[4][4];

    SquallP1ElementLoad(&E, e, coef, v, g, &vol, S);
    SquallP1ScatterElementSlots((int)bs, p1->slots[bs] + e, p1->ne, da, oa, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, cg * vol);
  }
  PetscCall(SquallP1RestoreElementsHost(p1, &E));
  if (Ao) PetscCall(MatSeqAIJRestoreArray(Ao, &oa));
  PetscCall(MatSeqAIJRestoreArray(Ad, &da));
  /* the blocks changed behind the parallel matrix's back: let its users (PC, KSP) know */
  if (ismpi) PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscCall(PetscLogFlops(SquallP1ElementFlops(coef->c, bs) * p1->ne));
  PetscCall(PetscLogEventEnd(SQUALL_P1AssembleSlots, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element matrix in the row-major layout of MatSetValues(Blocked) and of the COO values */
void SquallP1ElementValues(PetscInt bs, const PetscReal S[4][4], const PetscReal g[4][3], PetscReal cgvol, PetscScalar *vals)
{
  const PetscInt m = 4 * bs;

  for (int a = 0; a < 4; a++)
    for (int i = 0; i < bs; i++)
      for (int b = 0; b < 4; b++)
        for (int j = 0; j < bs; j++) vals[m * (bs * a + i) + bs * b + j] = bs == 1 ? S[a][b] : SquallP1BlockEntry(S, g, cgvol, a, i, b, j);
}

PetscErrorCode SquallP1AssembleHostSetValues(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef, Mat A)
{
  const PetscReal  cg = coef->c[SQUALL_P1_GRADDIV];
  SquallP1Elements E;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_P1SetValues, A, 0, 0, 0));
  PetscCall(MatZeroEntries(A));
  PetscCall(SquallP1GetElementsHost(p1, &E));
  for (PetscInt e = 0; e < p1->ne; e++) {
    PetscInt    v[4], rows[4], cols[4];
    PetscReal   g[4][3], vol, S[4][4];
    PetscScalar vals[144];

    SquallP1ElementLoad(&E, e, coef, v, g, &vol, S);
    for (PetscInt a = 0; a < 4; a++) {
      rows[a] = p1->row[v[a]] >= 0 ? p1->gidx[v[a]] : -1; /* MatSetValues skips negative rows */
      cols[a] = p1->gidx[v[a]];
    }
    SquallP1ElementValues(bs, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, cg * vol, vals);
    if (bs == 1)
      PetscCall(MatSetValues(A, 4, rows, 4, cols, vals, ADD_VALUES));
    else
      PetscCall(MatSetValuesBlocked(A, 4, rows, 4, cols, vals, ADD_VALUES));
  }
  PetscCall(SquallP1RestoreElementsHost(p1, &E));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscLogFlops(SquallP1ElementFlops(coef->c, bs) * p1->ne));
  PetscCall(PetscLogEventEnd(SQUALL_P1SetValues, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1ElementValuesHost(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef)
{
  const PetscInt   m  = 4 * bs;
  const PetscReal  cg = coef->c[SQUALL_P1_GRADDIV];
  SquallP1Elements E;

  PetscFunctionBegin;
  if (!p1->coov[bs]) PetscCall(PetscMalloc1((size_t)m * m * PetscMax(p1->ne, 1), &p1->coov[bs]));
  PetscCall(SquallP1GetElementsHost(p1, &E));
  for (PetscInt e = 0; e < p1->ne; e++) {
    PetscInt  v[4];
    PetscReal g[4][3], vol, S[4][4];

    SquallP1ElementLoad(&E, e, coef, v, g, &vol, S);
    SquallP1ElementValues(bs, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, cg * vol, p1->coov[bs] + (size_t)m * m * e);
  }
  PetscCall(SquallP1RestoreElementsHost(p1, &E));
  PetscCall(PetscLogFlops(SquallP1ElementFlops(coef->c, bs) * p1->ne));
  PetscFunctionReturn(PETSC_SUCCESS);
}
