/* Assembly of the P1 operators: matrices preallocated exactly from the graph, and three ways to fill
   them (-p1_assembly):
     direct     squall's own assembly into the AIJ value arrays (-p1_assembly_mode): through the slot map
                built once (slots, the CPU's default), atomic-free through the transposed slot map (gather),
                or with the in-block reduction (reduce, the GPU's default); on the GPU src/cuda/p1*.cu
                (through src/mat/p1device.c), on the CPU the references of src/mat/p1host.c;
     coo        MatSetPreallocationCOO once per matrix, then element values and MatSetValuesCOO (p1coo.c);
     setvalues  host MatSetValues, element by element, then MatAssemblyBegin/End.
   Block size 3 uses MATAIJ (AIJCUSPARSE on the GPU) with block size 3: the value array of the AIJ
   matrix with rows 3r+i interleaves the 3x3 blocks (see p1tet.h), which the GPU kernels, the CPU
   reference, GAMG (through the block size) and cuSPARSE all use as they are. */
#include "mat/p1impl.h"

PetscErrorCode SquallP1GetInfo(PetscObject obj, SquallP1Info **info)
{
  PetscContainer c = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery(obj, "SquallP1Info", (PetscObject *)&c));
  *info = NULL;
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1SetInfo(SquallP1 p1, PetscObject obj, PetscInt bs, SquallP1Info **info)
{
  SquallP1Info *in;

  PetscFunctionBegin;
  PetscCall(PetscNew(&in));
  in->p1id = p1->id;
  in->bs   = bs;
  PetscCall(PetscObjectContainerCompose(obj, "SquallP1Info", in, SquallCtxDestroyDefault));
  if (info) *info = in;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscLogDouble SquallP1ElementFlops(const PetscReal coef[], PetscInt bs)
{
  PetscLogDouble f = 16.0 * bs * bs;

  if (coef[SQUALL_P1_MASS] != 0 || coef[SQUALL_P1_ADVECTION] != 0) f += 11 * 112;
  if (coef[SQUALL_P1_DIFFUSION] != 0) f += 172;
  if (bs == 3 && coef[SQUALL_P1_GRADDIV] != 0) f += 3 * 144;
  return f;
}

/* the CSR of the AIJ matrix with block size bs, global columns (for the preallocation) */
static PetscErrorCode P1ExpandedCSR(SquallP1 p1, PetscInt bs, PetscInt **Ia, PetscInt **Ja)
{
  const PetscInt n = p1->nowned;
  PetscInt      *ri, *rj, *buf, maxlen = 0, k = 0;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < n; r++) maxlen = PetscMax(maxlen, p1->dI[r + 1] - p1->dI[r] + p1->oI[r + 1] - p1->oI[r]);
  PetscCall(PetscMalloc1(bs * n + 1, &ri));
  PetscCall(PetscMalloc1((size_t)bs * bs * p1->nnz + 1, &rj));
  PetscCall(PetscMalloc1(maxlen + 1, &buf));
  ri[0] = 0;
  for (PetscInt r = 0; r < n; r++) {
    PetscInt m = 0, pd = p1->dI[r], po = p1->oI[r];

    /* merge the two sorted lists by global column */
    while (pd < p1->dI[r + 1] || po < p1->oI[r + 1]) {
      const PetscInt gd = pd < p1->dI[r + 1] ? p1->rstart + p1->dJ[pd] : PETSC_INT_MAX, go = po < p1->oI[r + 1] ? p1->garray[p1->oJ[po]] : PETSC_INT_MAX;

      if (gd < go) {
        buf[m++] = gd;
        pd++;
      } else {
        buf[m++] = go;
        po++;
      }
    }
    for (PetscInt i = 0; i < bs; i++) {
      for (PetscInt q = 0; q < m; q++)
        for (PetscInt j = 0; j < bs; j++) rj[k++] = bs * buf[q] + j;
      ri[bs * r + i + 1] = k;
    }
  }
  PetscCall(PetscFree(buf));
  *Ia = ri;
  *Ja = rj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1CreateMatrix - a square matrix for scalar (bs 1) or 3-component (bs 3) operators on the
  nodes, preallocated exactly from node adjacency: MATAIJ, or MATAIJCUSPARSE with the CUDA backend,
  with block size bs. The pattern is fixed (MAT_NEW_NONZERO_LOCATION_ERR).
@*/
PetscErrorCode SquallP1CreateMatrix(SquallP1 p1, PetscInt bs, Mat *A)
{
  PetscInt *ri = NULL, *rj = NULL;

  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  PetscCheck(bs == 1 || bs == 3, p1->comm, PETSC_ERR_ARG_OUTOFRANGE, "Operators have block size 1 (scalar) or 3 (3 components), not %" PetscInt_FMT, bs);
  PetscCall(MatCreate(p1->comm, A));
  PetscCall(MatSetSizes(*A, bs * p1->nowned, bs * p1->nowned, bs * p1->N, bs * p1->N));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, p1->backend == SQUALL_P1_CUDA ? MATAIJCUSPARSE : MATAIJ));
  PetscCall(P1ExpandedCSR(p1, bs, &ri, &rj));
  /* only the one matching the type acts; on one rank global and local columns coincide */
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, ri, rj, NULL));
  PetscCall(MatMPIAIJSetPreallocationCSR(*A, ri, rj, NULL));
  PetscCall(PetscFree(ri));
  PetscCall(PetscFree(rj));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
  PetscCall(SquallP1SetInfo(p1, (PetscObject)*A, bs, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* does the AIJ block B have exactly the (bs-expanded) layout of the scalar graph (ri, rj)? */
static PetscErrorCode P1CheckBlock(Mat B, PetscInt bs, PetscInt n, const PetscInt *ri, const PetscInt *rj, PetscBool *ok)
{
  PetscInt        nr;
  const PetscInt *ia, *ja;
  PetscBool       done;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  if (!done || nr != bs * n) *ok = PETSC_FALSE;
  for (PetscInt r = 0; r < n && *ok; r++) {
    const PetscInt len = ri[r + 1] - ri[r];

    for (PetscInt i = 0; i < bs && *ok; i++) {
      const PetscInt row = bs * r + i, start = bs * bs * ri[r] + i * bs * len;

      if (ia[row] != start || ia[row + 1] - ia[row] != bs * len) *ok = PETSC_FALSE;
      for (PetscInt p = 0; p < len && *ok; p++)
        for (PetscInt j = 0; j < bs; j++)
          if (ja[start + bs * p + j] != bs * rj[ri[r] + p] + j) *ok = PETSC_FALSE;
    }
  }
  if (done) PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The direct path writes PETSc's AIJ value arrays through squall's own copy of the graph: check,
   once per nonzero state of the matrix, that PETSc's layout is exactly that graph */
PetscErrorCode SquallP1CheckLayout(SquallP1 p1, PetscInt bs, Mat A)
{
  PetscBool       ismpi, isseq, ok = PETSC_TRUE;
  Mat             Ad = A, Ao = NULL;
  const PetscInt *garray = NULL;

  PetscFunctionBegin;
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &ismpi));
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATSEQAIJ, &isseq));
  PetscCheck(ismpi || isseq, p1->comm, PETSC_ERR_SUP, "-p1_assembly direct writes the value arrays of AIJ matrices, not %s; use -p1_assembly coo or setvalues", ((PetscObject)A)->type_name);
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(P1CheckBlock(Ad, bs, p1->nowned, p1->dI, p1->dJ, &ok));
  if (ok && Ao) {
    PetscInt nc;

    PetscCall(P1CheckBlock(Ao, bs, p1->nowned, p1->oI, p1->oJ, &ok));
    PetscCall(MatGetLocalSize(Ao, NULL, &nc));
    if (nc != bs * p1->ngarray) ok = PETSC_FALSE;
    for (PetscInt k = 0; k < p1->ngarray && ok; k++)
      for (PetscInt j = 0; j < bs; j++)
        if (garray[bs * k + j] != bs * p1->garray[k] + j) ok = PETSC_FALSE;
  } else if (ok && p1->oI[p1->nowned])
    ok = PETSC_FALSE;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, SQUALL_MPI_BOOL, MPI_LAND, p1->comm));
  PetscCheck(ok, p1->comm, PETSC_ERR_PLIB, "The AIJ layout of the matrix differs from squall's sparsity graph (was its pattern changed?); the direct assembly cannot write it");
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CheckCoef(SquallP1 p1, PetscInt bs, const PetscReal coef[], SquallP1Coef *c)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < SQUALL_P1_NUM_TERMS; k++) c->c[k] = coef[k];
  PetscCheck(coef[SQUALL_P1_ADVECTION] == 0 || p1->u, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "The advection term needs a velocity: call SquallP1SetVelocity() first");
  PetscCheck(coef[SQUALL_P1_GRADDIV] == 0 || bs == 3, p1->comm, PETSC_ERR_ARG_INCOMP, "The grad-div term needs a 3-component operator (block size 3), not block size %" PetscInt_FMT, bs);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element data on the host (fields read through VecGetArrayRead, which syncs device vectors) */
PetscErrorCode SquallP1GetElementsHost(SquallP1 p1, SquallP1Elements *E)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(E, sizeof(*E)));
  E->ne   = p1->ne;
  E->tet  = p1->tet;
  E->ts   = 1;
  E->es   = 4;
  E->geom = p1->geom;
  E->x    = p1->x;
  if (p1->rho) PetscCall(VecGetArrayRead(p1->rho, &E->rho));
  if (p1->u) PetscCall(VecGetArrayRead(p1->u, &E->u));
  if (p1->hasK && p1->Kloc == SQUALL_P1_NODE) PetscCall(VecGetArrayRead(p1->K, &E->K));
  if (p1->hasK && p1->Kloc == SQUALL_P1_ELEMENT) PetscCall(VecGetArrayRead(p1->Ke, &E->Ke));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1RestoreElementsHost(SquallP1 p1, SquallP1Elements *E)
{
  PetscFunctionBegin;
  if (E->rho) PetscCall(VecRestoreArrayRead(p1->rho, &E->rho));
  if (E->u) PetscCall(VecRestoreArrayRead(p1->u, &E->u));
  if (E->K) PetscCall(VecRestoreArrayRead(p1->K, &E->K));
  if (E->Ke) PetscCall(VecRestoreArrayRead(p1->Ke, &E->Ke));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1AssembleOperator - assembles the operator with coefficients coef[SQUALL_P1_NUM_TERMS] (see
  SquallP1Term) into A from SquallP1CreateMatrix(); with block size 3 the scalar operator acts on each
  component and coef[SQUALL_P1_GRADDIV] adds int (div v)(div w). The path is the SquallP1's assembly
  type (-p1_assembly). Rows of nodes owned elsewhere are computed there: nothing is communicated.
@*/
PetscErrorCode SquallP1AssembleOperator(SquallP1 p1, const PetscReal coef[], Mat A)
{
  SquallP1Info    *info;
  SquallP1Coef     c;
  PetscObjectState st;

  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  PetscCall(SquallP1GetInfo((PetscObject)A, &info));
  PetscCheck(info && info->p1id == p1->id, p1->comm, PETSC_ERR_ARG_WRONG, "The matrix was not created by this SquallP1's SquallP1CreateMatrix()");
  PetscCall(SquallP1CheckCoef(p1, info->bs, coef, &c));
  switch (p1->assembly) {
    case SQUALL_P1_ASSEMBLY_DIRECT:
      /* the device path sets its MPI COO pattern first and checks the layout after it */
      if (p1->backend == SQUALL_P1_CUDA) {
        PetscCall(SquallP1DeviceAssembleOperator(p1, info->bs, &c, A));
        break;
      }
      PetscCall(MatGetNonzeroState(A, &st));
      if (info->verified != st + 1) {
        PetscCall(SquallP1CheckLayout(p1, info->bs, A));
        info->verified = st + 1;
      }
      if (p1->mode == SQUALL_P1_MODE_GATHER)
        PetscCall(SquallP1AssembleHostGather(p1, info->bs, &c, A));
      else if (p1->mode == SQUALL_P1_MODE_REDUCE)
        PetscCall(SquallP1AssembleHostReduce(p1, info->bs, &c, A));
      else
        PetscCall(SquallP1AssembleHostDirect(p1, info->bs, &c, A));
      break;
    case SQUALL_P1_ASSEMBLY_COO: PetscCall(SquallP1AssembleCOO(p1, info->bs, &c, A, info)); break;
    case SQUALL_P1_ASSEMBLY_SETVALUES: PetscCall(SquallP1AssembleHostSetValues(p1, info->bs, &c, A)); break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one term of the operator with coefficient 1 */
static PetscErrorCode P1AssembleTerm(SquallP1 p1, SquallP1Term term, Mat A)
{
  PetscReal coef[SQUALL_P1_NUM_TERMS] = {0};

  PetscFunctionBegin;
  coef[term] = 1;
  PetscCall(SquallP1AssembleOperator(p1, coef, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1AssembleMass(SquallP1 p1, Mat A)
{
  PetscFunctionBegin;
  PetscCall(P1AssembleTerm(p1, SQUALL_P1_MASS, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1AssembleAdvection(SquallP1 p1, Mat A)
{
  PetscFunctionBegin;
  PetscCall(P1AssembleTerm(p1, SQUALL_P1_ADVECTION, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1AssembleDiffusion(SquallP1 p1, Mat A)
{
  PetscFunctionBegin;
  PetscCall(P1AssembleTerm(p1, SQUALL_P1_DIFFUSION, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
