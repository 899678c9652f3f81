/* Right-hand sides of the P1 operators: b = sum over elements of Op_e f_e, by the direct path (atomicAdd on
   the GPU, a plain loop on the CPU), VecSetValuesCOO, or host VecSetValues. */
#include "mat/p1impl.h"

PetscErrorCode SquallP1ElementRHSHost(PetscInt bs, const SquallP1Coef *coef, PetscInt e, const SquallP1Elements *E, const PetscScalar *f, PetscInt v[4], PetscReal r[12])
{
  PetscReal g[4][3], vol, S[4][4], fe[12];

  PetscFunctionBegin;
  SquallP1ElementLoad(E, e, coef, v, g, &vol, S);
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt i = 0; i < bs; i++) fe[bs * a + i] = PetscRealPart(f[bs * v[a] + i]);
  SquallP1ElementApply((int)bs, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, coef->c[SQUALL_P1_GRADDIV] * vol, fe, r);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* where the host loop puts an element's r = Op_e f_e (the 4 bs entries of vertices v) */
typedef PetscErrorCode (*P1RHSSink)(SquallP1 p1, PetscInt bs, PetscInt e, const PetscInt v[4], const PetscReal r[12], void *ctx);

/* the one host loop over the elements of every assembly path; the sink decides where r goes */
static PetscErrorCode P1RHSHostLoop(SquallP1 p1, PetscInt bs, const SquallP1Coef *c, Vec fl, P1RHSSink sink, void *ctx)
{
  const PetscScalar *fa;
  SquallP1Elements   E;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(fl, &fa));
  PetscCall(SquallP1GetElementsHost(p1, &E));
  for (PetscInt e = 0; e < p1->ne; e++) {
    PetscInt  v[4];
    PetscReal r[12];

    PetscCall(SquallP1ElementRHSHost(bs, c, e, &E, fa, v, r));
    PetscCall(sink(p1, bs, e, v, r, ctx));
  }
  PetscCall(SquallP1RestoreElementsHost(p1, &E));
  PetscCall(VecRestoreArrayRead(fl, &fa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* direct: added into the owned rows of b's array (ctx); rows owned elsewhere are computed there */
static PetscErrorCode P1RHSSinkDirect(SquallP1 p1, PetscInt bs, PetscInt e, const PetscInt v[4], const PetscReal r[12], void *ctx)
{
  PetscScalar *ba = (PetscScalar *)ctx;

  PetscFunctionBegin;
  (void)e;
  for (PetscInt a = 0; a < 4; a++)
    if (p1->row[v[a]] >= 0)
      for (PetscInt i = 0; i < bs; i++) ba[bs * p1->row[v[a]] + i] += r[bs * a + i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* COO: element-major into the value array (ctx) of the pattern P1RHSPrepareCOO() set */
static PetscErrorCode P1RHSSinkCOO(SquallP1 p1, PetscInt bs, PetscInt e, const PetscInt v[4], const PetscReal r[12], void *ctx)
{
  PetscScalar *values = (PetscScalar *)ctx;

  PetscFunctionBegin;
  (void)p1;
  (void)v;
  for (PetscInt k = 0; k < 4 * bs; k++) values[4 * bs * e + k] = r[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* VecSetValues: added into the global rows of the Vec (ctx), those owned elsewhere skipped (-1) */
static PetscErrorCode P1RHSSinkSetValues(SquallP1 p1, PetscInt bs, PetscInt e, const PetscInt v[4], const PetscReal r[12], void *ctx)
{
  Vec         b = (Vec)ctx;
  PetscInt    idx[12];
  PetscScalar rs[12];

  PetscFunctionBegin;
  (void)e;
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt i = 0; i < bs; i++) {
      idx[bs * a + i] = p1->row[v[a]] >= 0 ? bs * p1->gidx[v[a]] + i : -1;
      rs[bs * a + i]  = r[bs * a + i];
    }
  PetscCall(VecSetValues(b, 4 * bs, idx, rs, ADD_VALUES));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the CPU reference of the direct path */
static PetscErrorCode P1RHSHostDirect(SquallP1 p1, PetscInt bs, const SquallP1Coef *c, Vec fl, Vec b)
{
  PetscScalar *ba;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_P1RHS, b, 0, 0, 0));
  PetscCall(VecZeroEntries(b));
  PetscCall(VecGetArray(b, &ba));
  PetscCall(P1RHSHostLoop(p1, bs, c, fl, P1RHSSinkDirect, ba));
  PetscCall(VecRestoreArray(b, &ba));
  PetscCall(PetscLogFlops((SquallP1ElementFlops(c->c, bs) + 32.0 * bs * bs) * p1->ne));
  PetscCall(PetscLogEventEnd(SQUALL_P1RHS, b, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The COO pattern of the right-hand side b, once per vector. On an H200 (PETSc 3.22.5, -use_gpu_aware_mpi 0)
   VecSetValuesCOO of an MPI CUDA vector crashed inside its PetscSF reduction. Handing it host values does not
   avoid that: PETSc then copies them to the device and runs the same device reduction. So on several ranks the
   CUDA backend never asks for one: nothing is sent anyway (rows owned elsewhere are -1 and computed there), so
   the COO goes into a sequential CUDA vector of the owned rows (local indices, local = PETSC_TRUE), which has no
   PetscSF, and is copied into b's local part on the device. */
static PetscErrorCode P1RHSPrepareCOO(SquallP1 p1, PetscInt bs, Vec b, PetscBool local)
{
  SquallP1Info *info;
  PetscInt     *idx;

  PetscFunctionBegin;
  PetscCall(SquallP1GetInfo((PetscObject)b, &info));
  if (info && info->p1id == p1->id && info->bs == bs && info->coo) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(4 * bs * PetscMax(p1->ne, 1), &idx));
  /* rows of nodes owned elsewhere are -1: computed there, never sent */
  for (PetscInt e = 0; e < p1->ne; e++)
    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt i = 0; i < bs; i++) {
        const PetscInt v             = p1->tet[4 * e + a];
        idx[4 * bs * e + bs * a + i] = p1->row[v] < 0 ? -1 : bs * (local ? p1->row[v] : p1->gidx[v]) + i;
      }
  if (local) {
    Vec bl, w;

    PetscCall(VecCreate(PETSC_COMM_SELF, &bl));
    PetscCall(VecSetSizes(bl, bs * p1->nowned, bs * p1->nowned));
    PetscCall(VecSetType(bl, VECSEQCUDA));
    PetscCall(VecSetOption(bl, VEC_IGNORE_NEGATIVE_INDICES, PETSC_TRUE));
    PetscCall(VecSetPreallocationCOO(bl, 4 * bs * p1->ne, idx));
    PetscCall(VecCreateLocalVector(b, &w));
    PetscCall(PetscObjectCompose((PetscObject)b, "SquallP1COOLocal", (PetscObject)bl));
    PetscCall(PetscObjectCompose((PetscObject)b, "SquallP1COOLocalView", (PetscObject)w));
    PetscCall(VecDestroy(&bl));
    PetscCall(VecDestroy(&w));
  } else {
    PetscCall(VecSetOption(b, VEC_IGNORE_NEGATIVE_INDICES, PETSC_TRUE));
    PetscCall(VecSetPreallocationCOO(b, 4 * bs * p1->ne, idx));
  }
  PetscCall(PetscFree(idx));
  PetscCall(SquallP1SetInfo(p1, (PetscObject)b, bs, &info));
  info->coo = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1RHSCOO(SquallP1 p1, PetscInt bs, const SquallP1Coef *c, Vec fl, Vec b)
{
  PetscMPIInt  size;
  PetscBool    local;
  Vec          bc = b; /* the vector whose VecSetValuesCOO runs */
  PetscScalar *values;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)b), &size));
  local = p1->backend == SQUALL_P1_CUDA && size > 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(P1RHSPrepareCOO(p1, bs, b, local));
  if (local) {
    PetscCall(PetscObjectQuery((PetscObject)b, "SquallP1COOLocal", (PetscObject *)&bc));
    PetscCheck(bc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The right-hand side lost its local COO vector");
  }
  PetscCall(PetscLogEventBegin(SQUALL_P1RHS, b, 0, 0, 0));
  if (p1->backend == SQUALL_P1_CUDA)
    PetscCall(SquallP1DeviceAssembleRHS(p1, bs, c, fl, b, &values));
  else {
    if (!p1->coor[bs]) PetscCall(PetscMalloc1(4 * bs * PetscMax(p1->ne, 1), &p1->coor[bs]));
    PetscCall(P1RHSHostLoop(p1, bs, c, fl, P1RHSSinkCOO, p1->coor[bs]));
    values = p1->coor[bs];
  }
  PetscCall(VecSetValuesCOO(bc, values, INSERT_VALUES));
  if (local) {
    Vec w = NULL;

    /* w shares b's arrays between Get and Restore: a device-to-device copy of the owned rows */
    PetscCall(PetscObjectQuery((PetscObject)b, "SquallP1COOLocalView", (PetscObject *)&w));
    PetscCheck(w, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The right-hand side lost its local view");
    PetscCall(VecGetLocalVector(b, w));
    PetscCall(VecCopy(bc, w));
    PetscCall(VecRestoreLocalVector(b, w));
  }
  PetscCall(PetscLogEventEnd(SQUALL_P1RHS, b, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1RHSSetValues(SquallP1 p1, PetscInt bs, const SquallP1Coef *c, Vec fl, Vec b)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_P1SetValues, b, 0, 0, 0));
  PetscCall(VecSetOption(b, VEC_IGNORE_NEGATIVE_INDICES, PETSC_TRUE));
  PetscCall(VecZeroEntries(b));
  PetscCall(P1RHSHostLoop(p1, bs, c, fl, P1RHSSinkSetValues, b));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscCall(PetscLogEventEnd(SQUALL_P1SetValues, b, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1AssembleRHS - b = sum over elements of Op_e f_e for the operator with coefficients coef
  applied to the nodal field f (bs 1 or 3); with coef = {1, 0, 0, 0} the load vector int phi_a f,
  with others e.g. the explicit part of a Crank-Nicolson step. b has the layout of f.
@*/
PetscErrorCode SquallP1AssembleRHS(SquallP1 p1, const PetscReal coef[], Vec f, Vec b)
{
  PetscInt     bs, n;
  SquallP1Coef c;
  Vec          fl;

  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  PetscCall(VecGetBlockSize(f, &bs));
  PetscCheck(bs == 1 || bs == 3, p1->comm, PETSC_ERR_ARG_OUTOFRANGE, "The field of a right-hand side has block size 1 or 3, not %" PetscInt_FMT, bs);
  PetscCall(VecGetLocalSize(b, &n));
  PetscCheck(n == bs * p1->nowned, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The right-hand side has local size %" PetscInt_FMT ", expected %" PetscInt_FMT, n, bs * p1->nowned);
  PetscCall(SquallP1CheckCoef(p1, bs, coef, &c));
  PetscCall(SquallP1GetLocalWork(p1, bs, &fl));
  PetscCall(SquallP1GlobalToLocal(p1, bs, f, &fl));
  switch (p1->assembly) {
    case SQUALL_P1_ASSEMBLY_DIRECT:
      if (p1->backend == SQUALL_P1_CUDA)
        PetscCall(SquallP1DeviceAssembleRHS(p1, bs, &c, fl, b, NULL));
      else
        PetscCall(P1RHSHostDirect(p1, bs, &c, fl, b));
      break;
    case SQUALL_P1_ASSEMBLY_COO: PetscCall(P1RHSCOO(p1, bs, &c, fl, b)); break;
    case SQUALL_P1_ASSEMBLY_SETVALUES: PetscCall(P1RHSSetValues(p1, bs, &c, fl, b)); break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
