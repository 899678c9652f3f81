/* Entry-by-entry comparisons of P1 matrices and vectors assembled in different ways (tests, benchmarks). */
#include "mat/p1impl.h"

typedef struct {
  Mat                Ad, Ao;
  const PetscInt    *garray, *di, *dj, *oi, *oj;
  const PetscScalar *da, *oa;
  PetscInt           cstart, n;
} P1Rows;

static PetscErrorCode P1RowsGet(Mat A, P1Rows *R)
{
  PetscBool ismpi, done;
  PetscInt  nr;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(R, sizeof(*R)));
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &ismpi));
  R->Ad = A;
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &R->Ad, &R->Ao, &R->garray));
  PetscCall(MatGetOwnershipRangeColumn(A, &R->cstart, NULL));
  PetscCall(MatGetRowIJ(R->Ad, 0, PETSC_FALSE, PETSC_FALSE, &R->n, &R->di, &R->dj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ failed");
  PetscCall(MatSeqAIJGetArrayRead(R->Ad, &R->da));
  if (R->Ao) {
    PetscCall(MatGetRowIJ(R->Ao, 0, PETSC_FALSE, PETSC_FALSE, &nr, &R->oi, &R->oj, &done));
    PetscCall(MatSeqAIJGetArrayRead(R->Ao, &R->oa));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1RowsRestore(P1Rows *R)
{
  PetscInt  nr;
  PetscBool done;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJRestoreArrayRead(R->Ad, &R->da));
  PetscCall(MatRestoreRowIJ(R->Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &R->di, &R->dj, &done));
  if (R->Ao) {
    PetscCall(MatSeqAIJRestoreArrayRead(R->Ao, &R->oa));
    PetscCall(MatRestoreRowIJ(R->Ao, 0, PETSC_FALSE, PETSC_FALSE, &nr, &R->oi, &R->oj, &done));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* row r as (global column, value), sorted by column */
static PetscErrorCode P1RowsRow(const P1Rows *R, PetscInt r, PetscInt *n, PetscInt *cols, PetscScalar *vals)
{
  PetscInt m = 0;

  PetscFunctionBegin;
  for (PetscInt k = R->di[r]; k < R->di[r + 1]; k++) {
    cols[m]   = R->cstart + R->dj[k];
    vals[m++] = R->da[k];
  }
  if (R->Ao)
    for (PetscInt k = R->oi[r]; k < R->oi[r + 1]; k++) {
      cols[m]   = R->garray[R->oj[k]];
      vals[m++] = R->oa[k];
    }
  PetscCall(PetscSortIntWithScalarArray(m, cols, vals));
  *n = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt P1RowsMaxLen(const P1Rows *R)
{
  PetscInt m = 0;

  for (PetscInt r = 0; r < R->n; r++) m = PetscMax(m, R->di[r + 1] - R->di[r] + (R->Ao ? R->oi[r + 1] - R->oi[r] : 0));
  return m;
}

PetscErrorCode SquallP1MatCompare(Mat A, Mat B, PetscReal *diff)
{
  P1Rows       RA, RB;
  PetscInt     len, *ca, *cb, na, nb;
  PetscScalar *va, *vb;
  PetscReal    d = 0;

  PetscFunctionBegin;
  PetscCall(P1RowsGet(A, &RA));
  PetscCall(P1RowsGet(B, &RB));
  len = PetscMax(P1RowsMaxLen(&RA), P1RowsMaxLen(&RB)) + 1;
  PetscCall(PetscMalloc4(len, &ca, len, &cb, len, &va, len, &vb));
  if (RA.n != RB.n) d = PETSC_MAX_REAL;
  for (PetscInt r = 0; r < RA.n && d < PETSC_MAX_REAL; r++) {
    PetscReal amax = 0, dmax = 0;

    PetscCall(P1RowsRow(&RA, r, &na, ca, va));
    PetscCall(P1RowsRow(&RB, r, &nb, cb, vb));
    if (na != nb) {
      d = PETSC_MAX_REAL;
      break;
    }
    for (PetscInt k = 0; k < na; k++) {
      if (ca[k] != cb[k]) {
        d = PETSC_MAX_REAL;
        break;
      }
      amax = PetscMax(amax, PetscAbsScalar(va[k]));
      dmax = PetscMax(dmax, PetscAbsScalar(va[k] - vb[k]));
    }
    if (d < PETSC_MAX_REAL) d = PetscMax(d, amax > 0 ? dmax / amax : dmax);
  }
  PetscCall(PetscFree4(ca, cb, va, vb));
  PetscCall(P1RowsRestore(&RA));
  PetscCall(P1RowsRestore(&RB));
  PetscCallMPI(MPIU_Allreduce(&d, diff, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1VecCompare(Vec a, Vec b, PetscReal *diff)
{
  const PetscScalar *x, *y;
  PetscInt           n, m;
  PetscReal          s[2] = {0, 0};

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetLocalSize(b, &m));
  PetscCheck(n == m, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Vectors of local sizes %" PetscInt_FMT " and %" PetscInt_FMT, n, m);
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  for (PetscInt i = 0; i < n; i++) {
    s[0] = PetscMax(s[0], PetscAbsScalar(x[i]));
    s[1] = PetscMax(s[1], PetscAbsScalar(x[i] - y[i]));
  }
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCall(VecRestoreArrayRead(b, &y));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, s, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)a)));
  *diff = s[0] > 0 ? s[1] / s[0] : s[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}
