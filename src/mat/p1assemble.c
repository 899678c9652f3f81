/* Assembly of the P1 operators: matrices preallocated exactly from the graph, and three ways to fill
   them, kept side by side for testing and benchmarking:
     atomic     squall's direct assembly: each element entry is added into the AIJ value array
                (atomicAdd on the GPU, src/cuda/p1assembly.cu; here the CPU reference, a plain loop that
                needs no atomics); its place is found by a binary search of its column in its row
                (-p1_assembly_mode search) or read from the slot map built once (slots, the CPU's default);
                or, atomic-free (gather), the element values go to a scratch array and every stored
                value sums its contributions through the transposed slot map (SquallP1BuildGather());
                or (reduce, the GPU's default) each block of elements sums its contributions per entry
                first, in a fixed order, and adds each sum once (SquallP1BuildReduce());
     coo        MatSetPreallocationCOO once per matrix, then element values and MatSetValuesCOO;
     setvalues  host MatSetValues, element by element, then MatAssemblyBegin/End.
   Block size 3 uses MATAIJ (AIJCUSPARSE on the GPU) with block size 3: the value array of the AIJ
   matrix with rows 3r+i interleaves the 3x3 blocks (see p1tet.h), which the GPU kernel, the CPU
   reference, GAMG (through the block size) and cuSPARSE all use as they are. */
#include "mat/p1impl.h"
#include "cuda/p1cuda.h"

PetscErrorCode SquallP1GetInfo(PetscObject obj, SquallP1Info **info)
{
  PetscContainer c = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery(obj, "SquallP1Info", (PetscObject *)&c));
  *info = NULL;
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1SetInfo(SquallP1 p1, PetscObject obj, PetscInt bs, SquallP1Info **info)
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
  PetscCall(P1SetInfo(p1, (PetscObject)*A, bs, NULL));
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

/* The atomic path writes PETSc's AIJ value arrays through squall's own copy of the graph: check,
   once per nonzero state of the matrix, that PETSc's layout is exactly that graph */
PetscErrorCode SquallP1CheckLayout(SquallP1 p1, PetscInt bs, Mat A)
{
  PetscBool       ismpi, isseq, ok = PETSC_TRUE;
  Mat             Ad = A, Ao = NULL;
  const PetscInt *garray = NULL;

  PetscFunctionBegin;
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &ismpi));
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATSEQAIJ, &isseq));
  PetscCheck(ismpi || isseq, p1->comm, PETSC_ERR_SUP, "-p1_assembly atomic writes the value arrays of AIJ matrices, not %s; use -p1_assembly coo or setvalues", ((PetscObject)A)->type_name);
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
  PetscCheck(ok, p1->comm, PETSC_ERR_PLIB, "The AIJ layout of the matrix differs from squall's sparsity graph (was its pattern changed?); the atomic assembly cannot write it");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1CheckCoef(SquallP1 p1, PetscInt bs, const PetscReal coef[], SquallP1Coef *c)
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
static PetscErrorCode P1AssembleHostGather(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef, Mat A)
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
static PetscErrorCode P1AssembleHostReduce(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef, Mat A)
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

/* the CPU reference of the atomic kernel: the same element code and scatter (search or slots), one
   element at a time */
static PetscErrorCode P1AssembleHostDirect(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef, Mat A)
{
  const PetscInt   n  = p1->nowned;
  const PetscReal  cg = coef->c[SQUALL_P1_GRADDIV];
  Mat              Ad = A, Ao = NULL;
  PetscBool        ismpi;
  PetscScalar     *da = NULL, *oa = NULL;
  SquallP1CSR      D, O;
  SquallP1Elements E;
  PetscInt         nmiss = 0;

  const PetscBool     slots = p1->atomicmode == SQUALL_P1_ATOMIC_SLOTS ? PETSC_TRUE : PETSC_FALSE;
  const PetscLogEvent ev    = slots ? SQUALL_P1AssembleSlots : SQUALL_P1Assemble;

  PetscFunctionBegin;
  if (slots && !p1->slots[bs]) PetscCall(SquallP1BuildSlots(p1, bs, PETSC_TRUE, &p1->slots[bs]));
  PetscCall(PetscLogEventBegin(ev, A, 0, 0, 0));
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &ismpi));
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MatSeqAIJGetArray(Ad, &da));
  PetscCall(PetscArrayzero(da, bs * bs * p1->dI[n]));
  if (Ao) {
    PetscCall(MatSeqAIJGetArray(Ao, &oa));
    PetscCall(PetscArrayzero(oa, bs * bs * p1->oI[n]));
  }
  D.ia = p1->dI;
  D.ja = p1->dJ;
  D.a  = da;
  O.ia = p1->oI;
  O.ja = p1->oJ;
  O.a  = oa;
  PetscCall(SquallP1GetElementsHost(p1, &E));
  for (PetscInt e = 0; e < p1->ne; e++) {
    PetscInt  v[4];
    PetscReal g[4][3], vol, S[4][4];

    SquallP1ElementLoad(&E, e, coef, v, g, &vol, S);
    if (slots)
      SquallP1ScatterElementSlots((int)bs, p1->slots[bs] + e, p1->ne, da, oa, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, cg * vol);
    else
      nmiss += SquallP1ScatterElement((int)bs, v, p1->row, p1->cd, p1->co, D, O, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, cg * vol);
  }
  PetscCall(SquallP1RestoreElementsHost(p1, &E));
  if (Ao) PetscCall(MatSeqAIJRestoreArray(Ao, &oa));
  PetscCall(MatSeqAIJRestoreArray(Ad, &da));
  /* the blocks changed behind the parallel matrix's back: let its users (PC, KSP) know */
  if (ismpi) PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscCall(PetscLogFlops(SquallP1ElementFlops(coef->c, bs) * p1->ne));
  PetscCall(PetscLogEventEnd(ev, A, 0, 0, 0));
  PetscCheck(!nmiss, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%" PetscInt_FMT " element entries fell outside the sparsity graph", nmiss);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element matrix in the row-major layout of MatSetValues(Blocked) and of the COO values */
static void P1ElementValues(PetscInt bs, const PetscReal S[4][4], const PetscReal g[4][3], PetscReal cgvol, PetscScalar *vals)
{
  const PetscInt m = 4 * bs;

  for (int a = 0; a < 4; a++)
    for (int i = 0; i < bs; i++)
      for (int b = 0; b < 4; b++)
        for (int j = 0; j < bs; j++) vals[m * (bs * a + i) + bs * b + j] = bs == 1 ? S[a][b] : SquallP1BlockEntry(S, g, cgvol, a, i, b, j);
}

static PetscErrorCode P1AssembleSetValues(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef, Mat A)
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
    P1ElementValues(bs, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, cg * vol, vals);
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

static PetscErrorCode P1ElementValuesCOOHost(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef)
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
    P1ElementValues(bs, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, cg * vol, p1->coov[bs] + (size_t)m * m * e);
  }
  PetscCall(SquallP1RestoreElementsHost(p1, &E));
  PetscCall(PetscLogFlops(SquallP1ElementFlops(coef->c, bs) * p1->ne));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1AssembleCOO(SquallP1 p1, PetscInt bs, const SquallP1Coef *coef, Mat A, SquallP1Info *info)
{
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
    PetscCall(SquallP1CUDAElementValuesCOO(p1, bs, coef->c));
  else
    PetscCall(P1ElementValuesCOOHost(p1, bs, coef));
  /* INSERT_VALUES: the matrix becomes the sum of the COO values, no zeroing needed */
  PetscCall(MatSetValuesCOO(A, p1->coov[bs], INSERT_VALUES));
  PetscCall(PetscLogEventEnd(SQUALL_P1AssembleCOO, A, 0, 0, 0));
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
  PetscCall(P1CheckCoef(p1, info->bs, coef, &c));
  switch (p1->assembly) {
    case SQUALL_P1_ASSEMBLY_ATOMIC:
      /* CUDA on several ranks: the off-diagonal block goes through MatSetValuesCOO, whose COO pattern
         (set once per matrix) also rebuilds the diagonal block; see SquallP1CUDAAssembleOperator() */
      if (p1->backend == SQUALL_P1_CUDA) {
        PetscBool ismpi;

        PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &ismpi));
        if (ismpi && !info->coooff) {
          PetscCount n;
          PetscInt  *ci, *cj;

          PetscCall(SquallP1OffDiagonalCOOIndices(p1, info->bs, &n, &ci, &cj));
          PetscCall(MatSetPreallocationCOO(A, n, ci, cj));
          PetscCall(PetscFree2(ci, cj));
          info->coooff   = PETSC_TRUE;
          info->coo      = PETSC_FALSE;
          info->verified = 0;
        }
      }
      PetscCall(MatGetNonzeroState(A, &st));
      if (info->verified != st + 1) {
        PetscCall(SquallP1CheckLayout(p1, info->bs, A));
        info->verified = st + 1;
      }
      if (p1->backend == SQUALL_P1_CUDA)
        PetscCall(SquallP1CUDAAssembleOperator(p1, info->bs, c.c, A));
      else if (p1->atomicmode == SQUALL_P1_ATOMIC_GATHER)
        PetscCall(P1AssembleHostGather(p1, info->bs, &c, A));
      else if (p1->atomicmode == SQUALL_P1_ATOMIC_REDUCE)
        PetscCall(P1AssembleHostReduce(p1, info->bs, &c, A));
      else
        PetscCall(P1AssembleHostDirect(p1, info->bs, &c, A));
      break;
    case SQUALL_P1_ASSEMBLY_COO: PetscCall(P1AssembleCOO(p1, info->bs, &c, A, info)); break;
    case SQUALL_P1_ASSEMBLY_SETVALUES: PetscCall(P1AssembleSetValues(p1, info->bs, &c, A)); break;
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

/* ---- right-hand sides */

static PetscErrorCode P1ElementRHSHost(PetscInt bs, const SquallP1Coef *coef, PetscInt e, const SquallP1Elements *E, const PetscScalar *f, PetscInt v[4], PetscReal r[12])
{
  PetscReal g[4][3], vol, S[4][4], fe[12];

  PetscFunctionBegin;
  SquallP1ElementLoad(E, e, coef, v, g, &vol, S);
  for (PetscInt a = 0; a < 4; a++)
    for (PetscInt i = 0; i < bs; i++) fe[bs * a + i] = PetscRealPart(f[bs * v[a] + i]);
  SquallP1ElementApply((int)bs, (const PetscReal(*)[4])S, (const PetscReal(*)[3])g, coef->c[SQUALL_P1_GRADDIV] * vol, fe, r);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1AssembleRHS - b = sum over elements of Op_e f_e for the operator with coefficients coef
  applied to the nodal field f (bs 1 or 3); with coef = {1, 0, 0, 0} the load vector int phi_a f,
  with others e.g. the explicit part of a Crank-Nicolson step. b has the layout of f.
@*/
PetscErrorCode SquallP1AssembleRHS(SquallP1 p1, const PetscReal coef[], Vec f, Vec b)
{
  PetscInt         bs, n;
  SquallP1Coef     c;
  Vec              fl;
  SquallP1Info    *info;
  SquallP1Elements E;

  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  PetscCall(VecGetBlockSize(f, &bs));
  PetscCheck(bs == 1 || bs == 3, p1->comm, PETSC_ERR_ARG_OUTOFRANGE, "The field of a right-hand side has block size 1 or 3, not %" PetscInt_FMT, bs);
  PetscCall(VecGetLocalSize(b, &n));
  PetscCheck(n == bs * p1->nowned, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The right-hand side has local size %" PetscInt_FMT ", expected %" PetscInt_FMT, n, bs * p1->nowned);
  PetscCall(P1CheckCoef(p1, bs, coef, &c));
  PetscCall(SquallP1GetLocalWork(p1, bs, &fl));
  PetscCall(SquallP1GlobalToLocal(p1, bs, f, &fl));
  switch (p1->assembly) {
    case SQUALL_P1_ASSEMBLY_ATOMIC:
      if (p1->backend == SQUALL_P1_CUDA)
        PetscCall(SquallP1CUDAAssembleRHS(p1, bs, c.c, fl, b, PETSC_FALSE));
      else {
        const PetscScalar *fa;
        PetscScalar       *ba;

        PetscCall(PetscLogEventBegin(SQUALL_P1RHS, b, 0, 0, 0));
        PetscCall(VecZeroEntries(b));
        PetscCall(VecGetArray(b, &ba));
        PetscCall(VecGetArrayRead(fl, &fa));
        PetscCall(SquallP1GetElementsHost(p1, &E));
        for (PetscInt e = 0; e < p1->ne; e++) {
          PetscInt  v[4];
          PetscReal r[12];

          PetscCall(P1ElementRHSHost(bs, &c, e, &E, fa, v, r));
          for (PetscInt a = 0; a < 4; a++)
            if (p1->row[v[a]] >= 0)
              for (PetscInt i = 0; i < bs; i++) ba[bs * p1->row[v[a]] + i] += r[bs * a + i];
        }
        PetscCall(SquallP1RestoreElementsHost(p1, &E));
        PetscCall(VecRestoreArrayRead(fl, &fa));
        PetscCall(VecRestoreArray(b, &ba));
        PetscCall(PetscLogFlops((SquallP1ElementFlops(c.c, bs) + 32.0 * bs * bs) * p1->ne));
        PetscCall(PetscLogEventEnd(SQUALL_P1RHS, b, 0, 0, 0));
      }
      break;
    case SQUALL_P1_ASSEMBLY_COO: {
      PetscMPIInt size;
      PetscBool   local;
      Vec         bc = b; /* the vector whose VecSetValuesCOO runs */

      /* On an H200 (PETSc 3.22.5, -use_gpu_aware_mpi 0) VecSetValuesCOO of an MPI CUDA vector crashed
         inside its PetscSF reduction. Handing it host values does not avoid that: PETSc then copies them
         to the device and runs the same device reduction. So on several ranks the CUDA backend never
         asks for one: nothing is sent anyway (rows owned elsewhere are -1 and computed there), so the
         COO goes into a sequential CUDA vector of the owned rows (local indices), which has no PetscSF,
         and is copied into b's local part on the device. */
      PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)b), &size));
      local = p1->backend == SQUALL_P1_CUDA && size > 1 ? PETSC_TRUE : PETSC_FALSE;
      PetscCall(SquallP1GetInfo((PetscObject)b, &info));
      if (!info || info->p1id != p1->id || info->bs != bs || !info->coo) {
        PetscInt *idx;

        PetscCall(PetscMalloc1(4 * bs * PetscMax(p1->ne, 1), &idx));
        for (PetscInt e = 0; e < p1->ne; e++)
          for (PetscInt a = 0; a < 4; a++)
            for (PetscInt i = 0; i < bs; i++) {
              const PetscInt v             = p1->tet[4 * e + a];
              idx[4 * bs * e + bs * a + i] = p1->row[v] < 0 ? -1 : bs * (local ? p1->row[v] : p1->gidx[v]) + i;
            }
        /* rows of nodes owned elsewhere are -1: computed there, never sent */
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
        PetscCall(P1SetInfo(p1, (PetscObject)b, bs, &info));
        info->coo = PETSC_TRUE;
      }
      if (local) {
        PetscCall(PetscObjectQuery((PetscObject)b, "SquallP1COOLocal", (PetscObject *)&bc));
        PetscCheck(bc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The right-hand side lost its local COO vector");
      }
      PetscCall(PetscLogEventBegin(SQUALL_P1RHS, b, 0, 0, 0));
      if (p1->backend == SQUALL_P1_CUDA)
        PetscCall(SquallP1CUDAAssembleRHS(p1, bs, c.c, fl, b, PETSC_TRUE));
      else {
        const PetscScalar *fa;

        if (!p1->coor[bs]) PetscCall(PetscMalloc1(4 * bs * PetscMax(p1->ne, 1), &p1->coor[bs]));
        PetscCall(VecGetArrayRead(fl, &fa));
        PetscCall(SquallP1GetElementsHost(p1, &E));
        for (PetscInt e = 0; e < p1->ne; e++) {
          PetscInt  v[4];
          PetscReal r[12];

          PetscCall(P1ElementRHSHost(bs, &c, e, &E, fa, v, r));
          for (PetscInt k = 0; k < 4 * bs; k++) p1->coor[bs][4 * bs * e + k] = r[k];
        }
        PetscCall(SquallP1RestoreElementsHost(p1, &E));
        PetscCall(VecRestoreArrayRead(fl, &fa));
      }
      PetscCall(VecSetValuesCOO(bc, p1->coor[bs], INSERT_VALUES));
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
    } break;
    case SQUALL_P1_ASSEMBLY_SETVALUES: {
      const PetscScalar *fa;

      PetscCall(PetscLogEventBegin(SQUALL_P1SetValues, b, 0, 0, 0));
      PetscCall(VecSetOption(b, VEC_IGNORE_NEGATIVE_INDICES, PETSC_TRUE));
      PetscCall(VecZeroEntries(b));
      PetscCall(VecGetArrayRead(fl, &fa));
      PetscCall(SquallP1GetElementsHost(p1, &E));
      for (PetscInt e = 0; e < p1->ne; e++) {
        PetscInt    v[4], idx[12];
        PetscReal   r[12];
        PetscScalar rs[12];

        PetscCall(P1ElementRHSHost(bs, &c, e, &E, fa, v, r));
        for (PetscInt a = 0; a < 4; a++)
          for (PetscInt i = 0; i < bs; i++) {
            idx[bs * a + i] = p1->row[v[a]] >= 0 ? bs * p1->gidx[v[a]] + i : -1;
            rs[bs * a + i]  = r[bs * a + i];
          }
        PetscCall(VecSetValues(b, 4 * bs, idx, rs, ADD_VALUES));
      }
      PetscCall(SquallP1RestoreElementsHost(p1, &E));
      PetscCall(VecRestoreArrayRead(fl, &fa));
      PetscCall(VecAssemblyBegin(b));
      PetscCall(VecAssemblyEnd(b));
      PetscCall(PetscLogEventEnd(SQUALL_P1SetValues, b, 0, 0, 0));
    } break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
