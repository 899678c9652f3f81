/* HEVI's Jacobian J = dF_V/dq in column blocks, on the backend of the state vector.

   F_V couples only the nodes of one vertical line of nodes: within an element the Nq = N + 1 nodes
   at a fixed in-element position (i, j) through the flux differencing along the third reference
   direction, and across the bottom and top faces the face node with its partner in the element
   below or above. A line runs through the whole column of Kz elements (bottom-up through the
   neighbours across faces 4 and 5); on shell and warped meshes the partner's in-element position
   is read from the face-node map vmapP, so a line may change (i, j) from element to element. Per
   line and level the block storage (src/physics/columnlu.h) holds the dense m x m block, m = 5 Nq,
   and the two 5 x 5 face couplings.

   J is formed by finite differences with a structured colouring: exact for every flux and option of
   F_V (EC/ES fluxes, perturbation form, Coriolis-free vertical part, reference residual) without a
   hand linearisation of the two-point fluxes, and cheap, since only 2 * 5 * Nq colours are needed.
   Colour (f, k, c) perturbs unknown (field f, node k of the line in its element) in every line and
   every element whose level has parity c: the perturbations' row supports are disjoint because
   lines do not couple and an element couples only through its face nodes with its two vertical
   neighbours, which have the other parity. Step err max(|q_j|, 1) per unknown, err = sqrt(eps):
   the momenta are O(1) and the energy O(1e5), so a relative step for the one and an absolute one
   for the other keep the difference well above the round-off of F_V. One F_V evaluation per colour
   (device vectors in GPU runs), then one pass that scatters (F_V(q + h e_c) - F_V(q)) / h into
   the blocks. The matrix P = shift I - J (MATAIJ, MATAIJCUSPARSE with CUDA vectors) has the blocks'
   pattern, built in order, and takes its values from them entry by entry, so that every PETSc PC works
   on it and -pc_type esdgcolumn (src/ts/pccolumn.c) solves with the blocks directly. */
#include "ts/esdgcolumn.h"
#include "cuda/columnkernels.h"
#include <petscdevice.h>

PetscErrorCode SquallESDGColumnCalloc(PetscBool device, size_t bytes, void **p)
{
  PetscFunctionBegin;
  if (device)
    PetscCall(SquallColumnCallocCUDA(bytes, p));
  else
    PetscCall(PetscCalloc(bytes, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGColumnFree(PetscBool device, void *p)
{
  PetscFunctionBegin;
  if (!p) PetscFunctionReturn(PETSC_SUCCESS);
  if (device)
    PetscCall(SquallColumnFreeCUDA(p));
  else
    PetscCall(PetscFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the in-element position (i, j) of the partner across face f (4 below, 5 above) of the line at
   position pos of element e, checking that it lies on the partner's opposite face */
static PetscErrorCode ColumnPartnerPosition(SquallESDG s, PetscInt e, PetscInt f, PetscInt pos, PetscInt *ppos)
{
  SquallDGMesh   m   = s->mesh;
  const PetscInt Nq2 = m->Nq * m->Nq, node = pos + (f == 5 ? Nq2 * (m->Nq - 1) : 0);
  PetscInt       q, p;

  PetscFunctionBegin;
  for (q = 0; q < m->Nfp; q++)
    if (m->fmask[f * m->Nfp + q] == node) break;
  PetscCheck(q < m->Nfp, PETSC_COMM_SELF, PETSC_ERR_PLIB, "node %" PetscInt_FMT " is not on face %" PetscInt_FMT, node, f);
  p = m->vmapP[(e * 6 + f) * m->Nfp + q] % m->Np;
  PetscCheck(p / Nq2 == (f == 5 ? 0 : m->Nq - 1), PETSC_COMM_SELF, PETSC_ERR_SUP, "-%simex vertical: element %" PetscInt_FMT "'s vertical neighbour does not meet it with its opposite vertical face (node %" PetscInt_FMT ")", s->prefix, e, p);
  *ppos = p % Nq2;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* walk one column up from element e0 (level 0), line l at position pos[l] in the current element;
   *periodic: the walk came back to e0 */
static PetscErrorCode ColumnWalk(SquallESDG s, SquallESDGColumn c, PetscInt e0, PetscInt col, PetscInt *pos, PetscInt *pos0, PetscInt *colOf, PetscInt *Kz, PetscBool *periodic)
{
  SquallDGMesh   m   = s->mesh;
  const PetscInt Nq2 = m->Nq * m->Nq;
  PetscInt       e = e0, lev = 0;

  PetscFunctionBegin;
  for (PetscInt l = 0; l < Nq2; l++) pos[l] = l;
  *periodic = PETSC_FALSE;
  while (1) {
    PetscInt next;
    c->level[e] = lev++;
    colOf[e]    = col;
    for (PetscInt l = 0; l < Nq2; l++) {
      c->line[e * Nq2 + pos[l]] = col * Nq2 + l;
      pos0[e * Nq2 + l]         = pos[l];
    }
    next = m->nbr[6 * e + 5];
    if (next < 0) break;
    PetscCheck(next < m->nOwned, PETSC_COMM_SELF, PETSC_ERR_PLIB, "column split across ranks at element %" PetscInt_FMT, e);
    PetscCheck(m->nbr[6 * next + 4] == e, PETSC_COMM_SELF, PETSC_ERR_SUP, "-%simex vertical: element %" PetscInt_FMT " is above %" PetscInt_FMT " but not the other way round", s->prefix, next, e);
    for (PetscInt l = 0; l < Nq2; l++) PetscCall(ColumnPartnerPosition(s, e, 5, pos[l], &pos[l]));
    if (next == e0) {
      for (PetscInt l = 0; l < Nq2; l++) PetscCheck(pos[l] == l, PETSC_COMM_SELF, PETSC_ERR_SUP, "-%simex vertical: a periodic column whose lines of nodes do not close on themselves", s->prefix);
      *periodic = PETSC_TRUE;
      break;
    }
    PetscCheck(c->level[next] < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "element %" PetscInt_FMT " is in two columns", next);
    e = next;
  }
  *Kz = lev;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the lines of nodes: every column walked bottom-up (from the elements with a wall below, then
   any left over, which lie on periodic columns), levels and lines recorded, the slots' entries */
static PetscErrorCode ColumnLines(SquallESDG s, SquallESDGColumn c)
{
  SquallDGMesh   m   = s->mesh;
  const PetscInt Nq2 = m->Nq * m->Nq, ne = m->nOwned;
  PetscInt      *pos, *pos0, *colOf, ncol = 0, Kz = -1, per = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(ne, &c->level, ne * Nq2, &c->line));
  PetscCall(PetscMalloc3(Nq2, &pos, ne * Nq2, &pos0, ne, &colOf));
  for (PetscInt e = 0; e < ne; e++) c->level[e] = -1;
  for (PetscInt pass = 0; pass < 2; pass++)
    for (PetscInt e = 0; e < ne; e++) {
      PetscInt  kz;
      PetscBool periodic;
      if (c->level[e] >= 0 || (pass == 0 && m->nbr[6 * e + 4] >= 0)) continue;
      PetscCall(ColumnWalk(s, c, e, ncol++, pos, pos0, colOf, &kz, &periodic));
      PetscCheck(Kz < 0 || kz == Kz, PETSC_COMM_SELF, PETSC_ERR_SUP, "-%simex vertical needs columns of one height on a rank: %" PetscInt_FMT " and %" PetscInt_FMT " elements", s->prefix, Kz, kz);
      PetscCheck(pass == 1 || !periodic, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a column with a wall below closes on itself");
      PetscCheck(pass == 0 || periodic, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a column without a wall below does not close");
      PetscCheck(!periodic || kz > 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "-%simex vertical: a column periodic in z of a single element couples an element with itself; refine it (-dm_forest_initial_refinement) or use walls", s->prefix);
      Kz = kz;
      per |= periodic ? 2 : 1;
    }
  PetscCheck(per != 3, PETSC_COMM_SELF, PETSC_ERR_SUP, "-%simex vertical: columns both periodic and with walls", s->prefix);
  c->lay.Nq       = m->Nq;
  c->lay.Np       = m->Np;
  c->lay.Kz       = Kz < 0 ? 0 : Kz;
  c->lay.nlines   = ncol * Nq2;
  c->lay.nslot    = c->lay.nlines * c->lay.Kz;
  c->lay.periodic = (PetscBool)(per == 2);
  PetscCall(PetscMalloc1(c->lay.nslot, &c->hbase));
  for (PetscInt e = 0; e < ne; e++)
    for (PetscInt l = 0; l < Nq2; l++) c->hbase[c->level[e] * c->lay.nlines + colOf[e] * Nq2 + l] = m->gslot[e] * 5 * m->Np + pos0[e * Nq2 + l];
  PetscCall(SquallESDGColumnCalloc(c->device, sizeof(PetscInt) * (size_t)c->lay.nslot, (void **)&c->base));
  if (c->device)
    PetscCall(SquallColumnCopyToDeviceCUDA(c->base, c->hbase, sizeof(PetscInt) * (size_t)c->lay.nslot));
  else
    PetscCall(PetscArraycpy(c->base, c->hbase, c->lay.nslot));
  c->lay.base = c->base;
  PetscCall(PetscFree3(pos, pos0, colOf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGColumnCreate(SquallESDG s, SquallESDGColumn *col)
{
  SquallESDGColumn c;
  DM               dm;
  PetscInt         m, nclass, periodic;

  PetscFunctionBegin;
  PetscCall(PetscNew(&c));
  c->device = s->useGPU;
  PetscCall(ColumnLines(s, c));
  periodic = c->lay.periodic && (c->lay.Kz % 2);
  PetscCallMPI(MPIU_Allreduce(&periodic, &nclass, 1, MPIU_INT, MPI_MAX, s->comm));
  c->nclass = 2 + nclass;
  m         = 5 * c->lay.Nq;
  /* the kernels index the entries of all blocks, and of their factors, with PetscInt */
  PetscCheck((PetscCount)SQUALL_COLUMN_FACTOR_ENTRIES(m) * c->lay.nslot <= PETSC_MAX_INT && (PetscCount)SQUALL_COLUMN_BLOCK_ENTRIES(m) * c->lay.nslot <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "HEVI's column blocks on this rank hold %" PetscCount_FMT " entries (order %" PetscInt_FMT ", %" PetscInt_FMT " lines of nodes x levels), more than PetscInt indexes (%" PetscInt_FMT
             "): use more ranks or a PETSc configured --with-64-bit-indices",
             (PetscCount)SQUALL_COLUMN_FACTOR_ENTRIES(m) * c->lay.nslot, c->lay.Nq - 1, c->lay.nslot, (PetscInt)PETSC_MAX_INT);
  PetscCall(SquallESDGColumnCalloc(c->device, sizeof(PetscScalar) * (size_t)SQUALL_COLUMN_BLOCK_ENTRIES(m) * c->lay.nslot, (void **)&c->J));
  PetscCall(SquallESDGColumnCalloc(c->device, sizeof(PetscScalar) * (size_t)SQUALL_COLUMN_BLOCK_ENTRIES(m) * c->lay.nslot, (void **)&c->P));
  PetscCall(SquallESDGGetDM(s, &dm));
  PetscCall(DMCreateGlobalVector(dm, &c->Xp));
  PetscCall(VecDuplicate(c->Xp, &c->F0));
  PetscCall(VecDuplicate(c->Xp, &c->Fp));
  *col = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGColumnDestroy(SquallESDGColumn *col)
{
  SquallESDGColumn c = *col;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SquallESDGColumnFree(c->device, c->base));
  PetscCall(SquallESDGColumnFree(c->device, c->rowptr));
  PetscCall(PetscFree(c->hbase));
  PetscCall(SquallESDGColumnFree(c->device, c->J));
  PetscCall(SquallESDGColumnFree(c->device, c->P));
  PetscCall(PetscFree2(c->level, c->line));
  PetscCall(VecDestroy(&c->Xp));
  PetscCall(VecDestroy(&c->F0));
  PetscCall(VecDestroy(&c->Fp));
  PetscCall(PetscFree(c));
  *col = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one colour: Xp = X + its perturbations */
static PetscErrorCode ColumnPerturb(SquallESDGColumn c, PetscInt f, PetscInt k, PetscInt cls, PetscReal err, Vec X)
{
  const PetscScalar *x;
  PetscScalar       *xp;
  PetscMemType       mx, mp;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGColumnPerturb, X, 0, 0, 0));
  PetscCall(VecCopy(X, c->Xp));
  PetscCall(VecGetArrayReadAndMemType(X, &x, &mx));
  PetscCall(VecGetArrayAndMemType(c->Xp, &xp, &mp));
  PetscCheck((PetscBool)PetscMemTypeDevice(mx) == c->device && (PetscBool)PetscMemTypeDevice(mp) == c->device, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "the state vector's memory is not where the HEVI column data is (host or device)");
  if (c->device)
    PetscCall(SquallColumnPerturbCUDA(&c->lay, f, k, cls, err, x, xp));
  else {
    for (PetscInt sl = 0; sl < c->lay.nslot; sl++) SquallColumnPerturb(&c->lay, sl, f, k, cls, err, x, xp);
    PetscCall(PetscLogFlops(2.0 * c->lay.nslot));
  }
  PetscCall(VecRestoreArrayAndMemType(c->Xp, &xp));
  PetscCall(VecRestoreArrayReadAndMemType(X, &x));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGColumnPerturb, X, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one colour: its columns of the blocks from F0 and Fp */
static PetscErrorCode ColumnExtract(SquallESDGColumn c, PetscInt f, PetscInt k, PetscInt cls, PetscReal err, Vec X)
{
  const PetscScalar *x, *f0, *fp;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGColumnExtract, X, 0, 0, 0));
  PetscCall(VecGetArrayReadAndMemType(X, &x, NULL));
  PetscCall(VecGetArrayReadAndMemType(c->F0, &f0, NULL));
  PetscCall(VecGetArrayReadAndMemType(c->Fp, &fp, NULL));
  if (c->device)
    PetscCall(SquallColumnExtractCUDA(&c->lay, f, k, cls, err, x, f0, fp, c->J));
  else {
    for (PetscInt sl = 0; sl < c->lay.nslot; sl++) SquallColumnExtract(&c->lay, sl, f, k, cls, err, x, f0, fp, c->J);
    PetscCall(PetscLogFlops(2.0 * 5 * c->lay.Nq * c->lay.nslot));
  }
  PetscCall(VecRestoreArrayReadAndMemType(c->Fp, &fp));
  PetscCall(VecRestoreArrayReadAndMemType(c->F0, &f0));
  PetscCall(VecRestoreArrayReadAndMemType(X, &x));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGColumnExtract, X, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* J = dF_V/dq at (t, X) into c->J: 5 Nq nclass colours, one F_V evaluation each */
PetscErrorCode SquallESDGColumnComputeJacobian(SquallESDG s, SquallESDGColumn c, PetscReal t, Vec X)
{
  const PetscReal err = PetscSqrtReal(PETSC_MACHINE_EPSILON);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGColumnJacobian, X, 0, 0, 0));
  PetscCall(SquallESDGComputeRHSPart(s, SQUALL_ESDG_PART_VERTICAL, t, X, c->F0));
  for (PetscInt cls = 0; cls < c->nclass; cls++)
    for (PetscInt f = 0; f < 5; f++)
      for (PetscInt k = 0; k < c->lay.Nq; k++) {
        PetscCall(ColumnPerturb(c, f, k, cls, err, X));
        PetscCall(SquallESDGComputeRHSPart(s, SQUALL_ESDG_PART_VERTICAL, t, c->Xp, c->Fp));
        PetscCall(ColumnExtract(c, f, k, cls, err, X));
      }
  PetscCall(PetscLogEventEnd(SQUALL_ESDGColumnJacobian, X, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the matrix's CSR pattern (physics/columnlu.h) with local columns, built row by row, each row's columns
   ascending; then every entry of the blocks is checked to find its column at its place
   (SquallColumnCSRPosition(), which the value kernels use) */
static PetscErrorCode ColumnCSR(SquallESDGColumn c, PetscInt nloc, PetscInt **rowptr, PetscInt **colidx)
{
  const PetscInt     Nq = c->lay.Nq, m = 5 * Nq;
  SquallColumnLayout H = c->lay; /* the layout with the host copy of the entries */
  PetscInt          *ri, *cj, nstored = 0;

  PetscFunctionBegin;
  H.base = c->hbase;
  PetscCall(PetscCalloc1(nloc + 1, &ri));
  for (PetscInt sl = 0; sl < H.nslot; sl++)
    for (PetscInt a = 0; a < m; a++) ri[SquallColumnEntry(&H, sl, a) + 1] = m + (SquallColumnFaceNeighbour(&H, sl, a) >= 0 ? 5 : 0);
  for (PetscInt r = 0; r < nloc; r++) {
    PetscCheck(ri[r + 1] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "row %" PetscInt_FMT " of the HEVI matrix lies on no line of nodes", r);
    ri[r + 1] += ri[r];
  }
  PetscCall(PetscMalloc1(ri[nloc], &cj));
  for (PetscInt sl = 0; sl < H.nslot; sl++)
    for (PetscInt a = 0; a < m; a++) {
      const PetscInt nb = SquallColumnFaceNeighbour(&H, sl, a), kn = a % Nq ? 0 : Nq - 1; /* the neighbour's face node */
      PetscInt      *p = cj + ri[SquallColumnEntry(&H, sl, a)];
      if (nb >= 0 && H.base[nb] < H.base[sl])
        for (PetscInt j = 0; j < 5; j++) *p++ = SquallColumnEntry(&H, nb, j * Nq + kn);
      for (PetscInt j = 0; j < m; j++) *p++ = SquallColumnEntry(&H, sl, j);
      if (nb >= 0 && H.base[nb] > H.base[sl])
        for (PetscInt j = 0; j < 5; j++) *p++ = SquallColumnEntry(&H, nb, j * Nq + kn);
      for (PetscInt *q = cj + ri[SquallColumnEntry(&H, sl, a)] + 1; q < p; q++) PetscCheck(q[-1] < q[0], PETSC_COMM_SELF, PETSC_ERR_PLIB, "the columns of a row of the HEVI matrix are not ascending");
    }
  for (PetscInt sl = 0; sl < H.nslot; sl++) /* slot by slot: the rows of one slot are near each other */
    for (PetscInt q = 0; q < SQUALL_COLUMN_BLOCK_ENTRIES(m); q++) {
      const PetscInt e = q * H.nslot + sl;
      PetscInt       col;
      const PetscInt p = SquallColumnCSRPosition(&H, ri, e, &col);
      if (p < 0) continue;
      PetscCheck(cj[p] == col, PETSC_COMM_SELF, PETSC_ERR_PLIB, "entry %" PetscInt_FMT " of the HEVI blocks has column %" PetscInt_FMT " but its place %" PetscInt_FMT " in the matrix column %" PetscInt_FMT, e, col, p, cj[p]);
      nstored++;
    }
  PetscCheck(nstored == ri[nloc], PETSC_COMM_SELF, PETSC_ERR_PLIB, "the HEVI blocks fill %" PetscInt_FMT " of the matrix's %" PetscInt_FMT " entries", nstored, ri[nloc]);
  *rowptr = ri;
  *colidx = cj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the block that holds every entry: P itself on one rank, its diagonal block on several (columns do not
   cross ranks) */
static PetscErrorCode ColumnDiagonalBlock(Mat P, PetscBool *ismpi, Mat *Ad)
{
  Mat Ao;

  PetscFunctionBegin;
  *Ad = P;
  PetscCall(PetscStrbeginswith(((PetscObject)P)->type_name, MATMPIAIJ, ismpi));
  if (*ismpi) PetscCall(MatMPIAIJGetSeqAIJ(P, Ad, &Ao, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P = shift I - J with that pattern (MATAIJ, MATAIJCUSPARSE with CUDA vectors), carrying the column data
   (SQUALL_ESDG_COLUMN_KEY, not owned: the solver keeps it). PETSc's COO preallocation would sort the
   (m m + 50) nslot entries (2e8 for the channel at refinement 3, half a minute on the host); this pattern is
   known in order. */
PetscErrorCode SquallESDGColumnCreateMatrix(SquallESDG s, SquallESDGColumn c, Mat *P)
{
  PetscInt  nloc, *ri, *cj, *dnnz, *onnz;
  PetscBool ismpi;
  Mat       Ad;
  MatInfo   info;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGColumnPattern, 0, 0, 0, 0));
  PetscCall(VecGetLocalSize(c->F0, &nloc));
  PetscCall(MatCreate(s->comm, P));
  PetscCall(MatSetSizes(*P, nloc, nloc, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetType(*P, c->device ? MATAIJCUSPARSE : MATAIJ));
  PetscCall(ColumnCSR(c, nloc, &ri, &cj));
  /* the exact row lengths, then the columns of the block that holds them all */
  PetscCall(PetscCalloc2(nloc, &dnnz, nloc, &onnz));
  for (PetscInt r = 0; r < nloc; r++) dnnz[r] = ri[r + 1] - ri[r];
  PetscCall(MatXAIJSetPreallocation(*P, 1, dnnz, onnz, NULL, NULL));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscCall(ColumnDiagonalBlock(*P, &ismpi, &Ad));
  PetscCall(MatSeqAIJSetColumnIndices(Ad, cj));
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  /* the places of SquallColumnCSRPosition() are PETSc's only if it stores exactly these columns */
  PetscCall(MatGetInfo(Ad, MAT_LOCAL, &info));
  PetscCheck((PetscInt)info.nz_used == ri[nloc], PETSC_COMM_SELF, PETSC_ERR_PLIB, "the HEVI matrix's diagonal block stores %g entries, not the pattern's %" PetscInt_FMT, info.nz_used, ri[nloc]);
  PetscCall(SquallESDGColumnCalloc(c->device, sizeof(PetscInt) * (size_t)(nloc + 1), (void **)&c->rowptr));
  if (c->device)
    PetscCall(SquallColumnCopyToDeviceCUDA(c->rowptr, ri, sizeof(PetscInt) * (size_t)(nloc + 1)));
  else
    PetscCall(PetscArraycpy(c->rowptr, ri, nloc + 1));
  PetscCall(PetscFree(ri));
  PetscCall(PetscFree(cj));
  PetscCall(PetscObjectContainerCompose((PetscObject)*P, SQUALL_ESDG_COLUMN_KEY, c, NULL));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGColumnPattern, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* c->P = shift I - J, and the matrix's values from it, each entry to its place (on the device in GPU runs) */
PetscErrorCode SquallESDGColumnSetShift(SquallESDGColumn c, PetscReal shift, Mat P)
{
  const PetscInt m = 5 * c->lay.Nq, n = SQUALL_COLUMN_BLOCK_ENTRIES(m) * c->lay.nslot;
  PetscBool      ismpi;
  Mat            Ad;
  PetscScalar   *a = NULL;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGColumnValues, P, 0, 0, 0));
  PetscCall(ColumnDiagonalBlock(P, &ismpi, &Ad));
  if (c->device) {
#if PetscDefined(HAVE_CUDA)
    /* read-write access: the first call moves the pattern to the device, later ones nothing; an empty block
       (no rows here) may have no device storage, and nothing to write */
    if (n) PetscCall(MatSeqAIJCUSPARSEGetArray(Ad, &a));
    PetscCall(SquallColumnShiftCUDA(&c->lay, c->rowptr, shift, c->J, c->P, a));
    if (n) PetscCall(MatSeqAIJCUSPARSERestoreArray(Ad, &a));
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "HEVI's column data is on a device, but squall was built without CUDA");
#endif
  } else {
    PetscCall(MatSeqAIJGetArrayWrite(Ad, &a));
    for (PetscInt e = 0; e < n; e++) SquallColumnShiftEntry(&c->lay, c->rowptr, e, shift, c->J, c->P, a);
    PetscCall(MatSeqAIJRestoreArrayWrite(Ad, &a));
    PetscCall(PetscLogFlops(1.0 * m * c->lay.nslot));
  }
  /* the diagonal block changed behind the parallel matrix's back: let its users (PC, KSP) know */
  if (ismpi) PetscCall(PetscObjectStateIncrease((PetscObject)P));
  c->shift = shift;
  PetscCall(PetscLogEventEnd(SQUALL_ESDGColumnValues, P, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGColumnFromMat(Mat P, SquallESDGColumn *c)
{
  PetscContainer ct = NULL;

  PetscFunctionBegin;
  *c = NULL;
  PetscCall(PetscObjectQuery((PetscObject)P, SQUALL_ESDG_COLUMN_KEY, (PetscObject *)&ct));
  if (ct) PetscCall(PetscContainerGetPointer(ct, (void **)c));
  PetscFunctionReturn(PETSC_SUCCESS);
}
