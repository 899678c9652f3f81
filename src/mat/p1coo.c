/* PETSc's COO path of the P1 assembly: the COO indices of all element entries, and those of the MPI
   matrices whose off-diagonal block the CUDA direct path fills through MatSetValuesCOO. */
#include "mat/p1impl.h"

/* COO indices of all element entries, element-major with the layout of P1ElementValues: rows of
   vertices owned elsewhere are -1, which PETSc ignores, so nothing is communicated */
PetscErrorCode SquallP1COOIndices(SquallP1 p1, PetscInt bs, PetscCount *n, PetscInt **ci, PetscInt **cj)
{
  const PetscInt m = 4 * bs;
  PetscInt      *ri, *rj;

  PetscFunctionBegin;
  *n = (PetscCount)m * m * p1->ne;
  PetscCall(PetscMalloc2(*n, &ri, *n, &rj));
  for (PetscInt e = 0; e < p1->ne; e++) {
    const PetscInt *v = &p1->tet[4 * e];

    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt i = 0; i < bs; i++)
        for (PetscInt b = 0; b < 4; b++)
          for (PetscInt j = 0; j < bs; j++) {
            const PetscCount k = (PetscCount)m * m * e + m * (bs * a + i) + bs * b + j;

            ri[k] = p1->row[v[a]] >= 0 ? bs * p1->gidx[v[a]] + i : -1;
            rj[k] = bs * p1->gidx[v[b]] + j;
          }
  }
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

PetscErrorCode SquallP1OffDiagonalCOOIndices(SquallP1 p1, PetscInt bs, PetscCount *n, PetscInt **ci, PetscInt **cj)
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
  for (PetscInt t = 0; t < nel; t++) {
    const PetscInt *v = &p1->tet[4 * el[t]];

    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt i = 0; i < bs; i++)
        for (PetscInt b = 0; b < 4; b++)
          for (PetscInt j = 0; j < bs; j++) {
            const PetscCount q = nd + (PetscCount)m * m * t + m * (bs * a + i) + bs * b + j;

            ri[q] = p1->row[v[a]] >= 0 && p1->cd[v[b]] < 0 ? bs * p1->gidx[v[a]] + i : -1;
            rj[q] = bs * p1->gidx[v[b]] + j;
          }
  }
  *ci = ri;
  *cj = rj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1AssembleCOO(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef, Mat A, SquallP1Info *info)
{
  PetscScalar *values;

  PetscFunctionBegin;
  if (!info->coo) {
    PetscCount n;
    PetscInt  *ci, *cj;

    PetscCall(SquallP1COOIndices(p1, bs, &n, &ci, &cj));
    PetscCall(MatSetPreallocationCOO(A, n, ci, cj));
    PetscCall(PetscFree2(ci, cj));
    info->coo      = PETSC_TRUE;
    info->coooff   = PETSC_FALSE;
    info->verified = 0;
  }
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
