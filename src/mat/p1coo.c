/* PETSc's COO path of the P1 assembly: the COO indices of all element entries, and those of the MPI
   matrices whose off-diagonal block the CUDA direct path fills through MatSetValuesCOO. */
#include "mat/p1impl.h"

/* the COO indices of the (4 bs)^2 entries of element e, row-major, at ri, rj: rows of vertices owned elsewhere
   are -1, which PETSc ignores, so nothing is communicated; offonly: also -1 unless the column is owned elsewhere
   (the entries of the off-diagonal block) */
static void P1ElementCOOIndices(SquallP1 p1, PetscInt bs, PetscInt e, PetscBool offonly, PetscInt *ri, PetscInt *rj)
{
  const PetscInt  m = 4 * bs;
  const PetscInt *v = &p1->tet[4 * e];

  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt i = 0; i < bs; i++)
      for (PetscInt b = 0; b < 4; b++)
        for (PetscInt j = 0; j < bs; j++) {
          const PetscInt k = m * (bs * a + i) + bs * b + j;

          ri[k] = p1->row[v[a]] >= 0 && (!offonly || p1->cd[v[b]] < 0) ? bs * p1->gidx[v[a]] + i : -1;
          rj[k] = bs * p1->gidx[v[b]] + j;
        }
}

/* COO indices of all element entries, element-major with the layout of P1ElementValues */
static PetscErrorCode SquallP1COOIndices(SquallP1 p1, PetscInt bs, PetscCount *n, PetscInt **ci, PetscInt **cj)
{
  const PetscInt m = 4 * bs;
  PetscInt      *ri, *rj;

  PetscFunctionBegin;
  *n = (PetscCount)m * m * p1->ne;
  PetscCall(PetscMalloc2(*n, &ri, *n, &rj));
  for (PetscInt e = 0; e < p1->ne; e++) P1ElementCOOIndices(p1, bs, e, PETSC_FALSE, ri + (PetscCount)m * m * e, rj + (PetscCount)m * m * e);
  *ci = ri;
  *cj = rj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the elements with an entry in the off-diagonal block: an owned row and a column owned elsewhere */
PetscErrorCode SquallP1OffDiagonalElements(SquallP1 p1, PetscInt *n, const PetscInt **list)
{
  PetscFunctionBegin;
  if (!p1->hasebnd) {
    PetscInt k = 0;

    for (PetscInt pass = 0; pass < 2; pass++) {
      k = 0;
      for (PetscInt e = 0; e < p1->ne; e++) {
        const PetscInt *v   = &p1->tet[4 * e];
        PetscBool       own = PETSC_FALSE, off = PETSC_FALSE;

        for (PetscInt a = 0; a < 4; a++) {
          if (p1->row[v[a]] >= 0) own = PETSC_TRUE;
          if (p1->cd[v[a]] < 0) off = PETSC_TRUE;
        }
        if (own && off) {
          if (pass) p1->ebnd[k] = e;
          k++;
        }
      }
      if (!pass) PetscCall(PetscMalloc1(PetscMax(k, 1), &p1->ebnd));
    }
    p1->nebnd   = k;
    p1->hasebnd = PETSC_TRUE;
  }
  *n    = p1->nebnd;
  *list = p1->ebnd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* COO of an MPI matrix whose off-diagonal block is filled by MatSetValuesCOO and whose diagonal block by the
   atomic kernel: first the diagonal-block graph (bs*bs*dI[nowned] entries, values 0), then the element
   matrices of SquallP1OffDiagonalElements() in the layout of SquallP1COOIndices(), with rows -1 (ignored by
   PETSc) except for the entries in the off-diagonal block */
static PetscErrorCode SquallP1OffDiagonalCOOIndices(SquallP1 p1, PetscInt bs, PetscCount *n, PetscInt **ci, PetscInt **cj)
{
  const PetscInt  m = 4 * bs, nd = bs * bs * p1->dI[p1->nowned];
  const PetscInt *el;
  PetscInt        nel, *ri, *rj, k = 0;

  PetscFunctionBegin;
  PetscCall(SquallP1OffDiagonalElements(p1, &nel, &el));
  *n = (PetscCount)nd + (PetscCount)m * m * nel;
  PetscCall(PetscMalloc2(*n, &ri, *n, &rj));
  /* the diagonal block's pattern, in its own (row-major, bs-interleaved) order */
  for (PetscInt r = 0; r < p1->nowned; r++)
    for (PetscInt i = 0; i < bs; i++)
      for (PetscInt q = p1->dI[r]; q < p1->dI[r + 1]; q++)
        for (PetscInt j = 0; j < bs; j++) {
          ri[k]   = bs * (p1->rstart + r) + i;
          rj[k++] = bs * (p1->rstart + p1->dJ[q]) + j;
        }
  for (PetscInt t = 0; t < nel; t++) P1ElementCOOIndices(p1, bs, el[t], PETSC_TRUE, ri + nd + (PetscCount)m * m * t, rj + nd + (PetscCount)m * m * t);
  *ci = ri;
  *cj = rj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the COO pattern of A, once per matrix and kind: all element entries (the COO path), or offdiagonal: the one
   of SquallP1OffDiagonalCOOIndices() (the CUDA direct path on several ranks). A new pattern changes the
   nonzero state, so the layout check runs again (info->verified = 0). */
PetscErrorCode SquallP1SetMatCOO(SquallP1 p1, PetscInt bs, Mat A, SquallP1Info *info, PetscBool offdiagonal)
{
  PetscCount n  = 0;
  PetscInt  *ci = NULL, *cj = NULL;

  PetscFunctionBegin;
  if (offdiagonal ? info->coooff : info->coo) PetscFunctionReturn(PETSC_SUCCESS);
  if (offdiagonal)
    PetscCall(SquallP1OffDiagonalCOOIndices(p1, bs, &n, &ci, &cj));
  else
    PetscCall(SquallP1COOIndices(p1, bs, &n, &ci, &cj));
  PetscCall(MatSetPreallocationCOO(A, n, ci, cj));
  PetscCall(PetscFree2(ci, cj));
  info->coo      = !offdiagonal;
  info->coooff   = offdiagonal;
  info->verified = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1AssembleCOO(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef, Mat A, SquallP1Info *info)
{
  PetscScalar *values;

  PetscFunctionBegin;
  PetscCall(SquallP1SetMatCOO(p1, bs, A, info, PETSC_FALSE));
  PetscCall(PetscLogEventBegin(SQUALL_P1AssembleCOO, A, 0, 0, 0));
  if (p1->backend == SQUALL_P1_CUDA)
    PetscCall(SquallP1DeviceElementValuesCOO(p1, bs, coef, &values));
  else {
    PetscCall(SquallP1ElementValuesHost(p1, bs, coef));
    values = p1->coov[bs];
  }
  /* INSERT_VALUES: the matrix becomes the sum of the COO values, no zeroing needed */
  PetscCall(MatSetValuesCOO(A, values, INSERT_VALUES));
  PetscCall(PetscLogEventEnd(SQUALL_P1AssembleCOO, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
