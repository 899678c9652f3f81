static char help[] = "P1 assembly paths against each other on the CPU: squall's direct (atomic-free) reference assembly,\n"
                     "host MatSetValues element by element, and MatSetPreallocationCOO/MatSetValuesCOO, for scalar (bs 1)\n"
                     "and 3-component (bs 3) operators with all terms (weighted mass, advection, nodal and per-element\n"
                     "full-tensor diffusion, grad-div), and the right-hand sides. Also: row sums (Laplacian, mass), the\n"
                     "volume, and right-hand side = matrix x field. The direct path's slots mode, and the slot map itself against\n"
                     "PETSc's AIJ structure and a binary search of each column in its row (the map the GPU kernel reads);\n"
                     "the atomic-free gather mode against the slots mode (round-off) and itself (bit for bit), and its map;\n"
                     "the reduce mode (sums per block of elements, one add per entry) likewise, and its map.\n"
                     "The mesh comes from -p1_mesh (see SquallP1CreateMeshFromOptions).\n"
                     "  -tol <1e-14 in double, 40 eps in single>  largest row-relative entrywise difference allowed between paths\n";

#include <squall.h>
#include "mat/p1impl.h"
#include "squalltest.h"
#include "p1testfields.h"
#include <string.h>

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_WORLD, PETSC_ERR_PLIB, __VA_ARGS__)

static PetscErrorCode RhoFn(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  f[0] = 1.2 + 0.3 * PetscSinReal(1.3 * x[0] + 0.4) * PetscCosReal(0.7 * x[1] - 0.9 * x[2]);
  return PETSC_SUCCESS;
}

static PetscErrorCode VelocityFn(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  f[0] = 1 + 0.5 * x[1];
  f[1] = -0.3 + 0.2 * x[2] * x[0];
  f[2] = 0.4 * PetscSinReal(x[0] + x[1]);
  return PETSC_SUCCESS;
}

/* a full, non-symmetric, position-dependent 3x3 diffusivity */
static PetscErrorCode TensorFn(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) f[3 * i + j] = (i == j ? 2.0 : 0.3 * (i - j)) + 0.1 * PetscSinReal(x[0] + 2 * i + j) + 0.05 * x[2];
  return PETSC_SUCCESS;
}

static PetscErrorCode FieldFn(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  const PetscInt bs = *(PetscInt *)ctx;

  for (PetscInt i = 0; i < bs; i++) f[i] = PetscCosReal(2.1 * x[0] - 0.5 * i) + x[1] * x[2] + i;
  return PETSC_SUCCESS;
}

/* The slot map of block size bs (built as the CPU path builds it, with the off-diagonal strides) against
   (1) a binary search of each column in its row (SquallP1Find) and (2) PETSc's own AIJ structure of a SquallP1CreateMatrix()
   matrix: every slot of an owned row must point, for all bs x bs components, into the right row of the
   right block at the right column, and every stored entry of the owned rows must be hit by some slot. */
static PetscErrorCode CheckSlots(SquallP1 p1, PetscInt bs)
{
  const PetscInt  ne = p1->ne, n = p1->nowned;
  int            *sl;
  Mat             A, Ad, Ao = NULL;
  PetscBool       ismpi, done;
  const PetscInt *ia[2] = {NULL, NULL}, *ja[2] = {NULL, NULL};
  PetscInt        nr, bad = 0, nsearch = 0, nhit[2] = {0, 0}, nnzb[2] = {0, 0};
  PetscBT         hit[2] = {NULL, NULL};

  PetscFunctionBegin;
  PetscCall(SquallP1BuildSlots(p1, bs, PETSC_TRUE, &sl));
  PetscCall(SquallP1CreateMatrix(p1, bs, &A));
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &ismpi));
  Ad = A;
  if (ismpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia[0], &ja[0], &done));
  CHECK(done && nr == bs * n, "MatGetRowIJ of the diagonal block failed");
  if (Ao) {
    PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia[1], &ja[1], &done));
    CHECK(done && nr == bs * n, "MatGetRowIJ of the off-diagonal block failed");
  }
  for (PetscInt k = 0; k < 2; k++) {
    nnzb[k] = ia[k] ? ia[k][bs * n] : 0;
    PetscCall(PetscBTCreate(PetscMax(nnzb[k], 1), &hit[k]));
  }
  for (PetscInt e = 0; e < ne; e++) {
    const PetscInt *v = &p1->tet[4 * e];

    for (PetscInt a = 0; a < 4; a++) {
      const PetscInt r = p1->row[v[a]];

      for (PetscInt b = 0; b < 4; b++) {
        const int      slot = sl[(4 * a + b) * ne + e];
        const PetscInt blk = slot >= 0 ? 0 : 1, pos = slot >= 0 ? slot : -slot - 2;
        const PetscInt col = slot >= 0 ? p1->cd[v[b]] : p1->co[v[b]], stride = bs == 1 ? 0 : sl[(16 + 4 * blk + a) * ne + e];

        if (r < 0) {
          if (slot != SQUALL_P1_SLOT_NONE) bad++;
          continue;
        }
        if (slot == SQUALL_P1_SLOT_NONE || !ia[blk] || col < 0) {
          bad++;
          continue;
        }
        /* (1) the binary search */
        {
          const PetscInt *ri = blk ? p1->oI : p1->dI, *rj = blk ? p1->oJ : p1->dJ, p = SquallP1Find(rj, ri[r], ri[r + 1], col);

          if (p < 0 || pos != (bs == 1 ? p : 9 * ri[r] + 3 * (p - ri[r]))) nsearch++;
        }
        /* (2) PETSc's AIJ structure */
        for (PetscInt i = 0; i < bs; i++)
          for (PetscInt j = 0; j < bs; j++) {
            const PetscInt q = pos + i * stride + j, row = bs * r + i;

            if (q < ia[blk][row] || q >= ia[blk][row + 1] || ja[blk][q] != bs * col + j)
              bad++;
            else if (!PetscBTLookupSet(hit[blk], q))
              nhit[blk]++;
          }
      }
    }
  }
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia[0], &ja[0], &done));
  if (Ao) PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia[1], &ja[1], &done));
  for (PetscInt k = 0; k < 2; k++) PetscCall(PetscBTDestroy(&hit[k]));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFree(sl));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nsearch, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  for (PetscInt k = 0; k < 2; k++) nhit[k] -= nnzb[k]; /* 0: every stored entry is some element's */
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, nhit, 2, MPIU_INT, MPI_MIN, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "slot map bs %" PetscInt_FMT ": %" PetscInt_FMT " slots off PETSc's AIJ structure, %" PetscInt_FMT " differ from the binary search, stored entries not covered %" PetscInt_FMT " + %" PetscInt_FMT "\n", bs,
                        bad, nsearch, -nhit[0], -nhit[1]));
  CHECK(!bad && !nsearch && !nhit[0] && !nhit[1], "bs %" PetscInt_FMT ": the slot map is wrong (%" PetscInt_FMT " bad, %" PetscInt_FMT " differ from the search, %" PetscInt_FMT " + %" PetscInt_FMT " entries uncovered)", bs, bad, nsearch, -nhit[0],
        -nhit[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The gather map (withoff, as the CPU path builds it) against the scalar slot map it transposes: every
   contribution of stored value p decodes back to p in the right block, each list is strictly ascending
   (the fixed summation order the coalescing relies on), every slot of an owned row appears exactly once,
   and every stored value has a contribution */
static PetscErrorCode CheckGather(SquallP1 p1)
{
  const PetscInt ne = p1->ne, n = p1->nowned, nval[2] = {p1->dI[n], p1->oI[n]};
  int           *sl, *off[2], *idx[2];
  PetscInt       bad = 0, nslot = 0, ncon = 0, empty = 0;

  PetscFunctionBegin;
  PetscCall(SquallP1BuildSlots(p1, 1, PETSC_TRUE, &sl));
  PetscCall(SquallP1BuildGather(p1, PETSC_TRUE, off, idx));
  for (PetscInt t = 0; t < 16 * ne; t++)
    if (sl[t] != SQUALL_P1_SLOT_NONE) nslot++;
  for (PetscInt blk = 0; blk < 2; blk++) {
    for (PetscInt p = 0; p < nval[blk]; p++) {
      if (off[blk][p + 1] <= off[blk][p]) empty++;
      for (PetscInt m = off[blk][p]; m < off[blk][p + 1]; m++) {
        const int t = idx[blk][m], s = t >= 0 && t < 16 * ne ? sl[t] : SQUALL_P1_SLOT_NONE;

        if (s != (blk ? SQUALL_P1_SLOT_OFF(p) : p) || (m > off[blk][p] && t <= idx[blk][m - 1])) bad++;
      }
    }
    ncon += off[blk][nval[blk]];
    PetscCall(PetscFree(off[blk]));
    PetscCall(PetscFree(idx[blk]));
  }
  PetscCall(PetscFree(sl));
  ncon -= nslot; /* 0: each slot exactly once (with bad == 0) */
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &empty, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ncon, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "gather map: %" PetscInt_FMT " contributions wrong or out of order, %" PetscInt_FMT " stored values without one, contributions - slots %" PetscInt_FMT "\n", bad, empty, ncon));
  CHECK(!bad && !empty && !ncon, "the gather map is wrong (%" PetscInt_FMT " bad, %" PetscInt_FMT " empty values, %" PetscInt_FMT " contributions more than slots)", bad, empty, ncon);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reduce map (with the off-diagonal block, as the CPU path builds it; nb elements per block) against
   the scalar slot map: in each block the entries with more than rlong contributions come first (rlong
   PETSC_INT_MAX: none), and in each of the two classes the unique entries are strictly ascending (so each is counted once
   per block), every contribution of entry u decodes to an element of the block whose slot is slot[u] and
   whose row is row[u], each list is strictly ascending (the fixed summation order) and not empty, a
   block's lists hold as many contributions as the block has slots in owned rows (with the above: each
   (element, entry) exactly once), and the single-block flag is set exactly on the entries that no other
   block touches (counted here from the slot map) */
static PetscErrorCode CheckReduce(SquallP1 p1, PetscInt nb, PetscInt rlong)
{
  const PetscInt ne = p1->ne, n = p1->nowned, nd = p1->dI[n], nidx = nd + p1->oI[n], nblocks = (ne + nb - 1) / nb;
  int           *sl, *nblk, *last;
  SquallP1Reduce R;
  PetscInt       bad = 0, badcount = 0, badonly = 0, nonly = 0;

  PetscFunctionBegin;
  PetscCall(SquallP1BuildSlots(p1, 1, PETSC_TRUE, &sl));
  PetscCall(SquallP1BuildReduce(p1, nb, PETSC_TRUE, rlong, &R));
  PetscCall(PetscCalloc2(PetscMax(nidx, 1), &nblk, PetscMax(nidx, 1), &last));
  for (PetscInt i = 0; i < nidx; i++) last[i] = -1;
  for (PetscInt e = 0; e < ne; e++)
    for (PetscInt q = 0; q < 16; q++) {
      const int s = sl[q * ne + e], i = s >= 0 ? s : (int)nd + (-s - 2);

      if (s == SQUALL_P1_SLOT_NONE) continue;
      if (last[i] != e / nb) {
        last[i] = (int)(e / nb);
        nblk[i]++;
      }
    }
  CHECK(R.nb == nb && R.nblocks == nblocks && R.ublk[0] == 0 && R.cblk[0] == 0, "reduce map: %" PetscInt_FMT " blocks of %" PetscInt_FMT ", expected %" PetscInt_FMT " of %" PetscInt_FMT, R.nblocks, R.nb, nblocks, nb);
  for (PetscInt k = 0; k < nblocks; k++) {
    const PetscInt e0 = k * nb, e1 = PetscMin(ne, e0 + nb);
    PetscInt       nslot = 0, m0 = 0, prev = -1;
    PetscBool      inlong = PETSC_TRUE;

    for (PetscInt e = e0; e < e1; e++)
      for (PetscInt q = 0; q < 16; q++)
        if (sl[q * ne + e] != SQUALL_P1_SLOT_NONE) nslot++;
    for (PetscInt u = R.ublk[k]; u < R.ublk[k + 1]; u++) {
      const int       s = R.slot[u];
      const PetscInt  i = s >= 0 ? s : nd + (-s - 2), m1 = R.end[u] & SQUALL_P1_REDUCE_MASK;
      const PetscBool islong = m1 - m0 > rlong ? PETSC_TRUE : PETSC_FALSE;

      if (inlong && !islong) { /* the second class starts: its positions ascend anew */
        inlong = PETSC_FALSE;
        prev   = -1;
      }
      if (s == SQUALL_P1_SLOT_NONE || i <= prev || i >= nidx || m1 <= m0 || islong != inlong) {
        bad++;
        break;
      }
      prev = i;
      for (PetscInt m = m0; m < m1; m++) {
        const PetscInt c = R.cidx[R.cblk[k] + m], e = e0 + (c >> 4), q = c & 15;

        if (e >= e1 || sl[q * ne + e] != s || R.row[u] != p1->row[p1->tet[4 * e + q / 4]] || (m > m0 && c <= R.cidx[R.cblk[k] + m - 1])) bad++;
      }
      if (((R.end[u] & SQUALL_P1_REDUCE_ONLY) != 0) != (nblk[i] == 1)) badonly++;
      if (R.end[u] & SQUALL_P1_REDUCE_ONLY) nonly++;
      m0 = m1;
    }
    if (m0 != R.cblk[k + 1] - R.cblk[k] || m0 != nslot) badcount++;
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &badcount, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &badonly, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  {
    PetscInt64 st[3] = {R.ncon, R.nu, nonly};

    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, st, 3, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "reduce map, blocks of %" PetscInt_FMT ": %" PetscInt64_FMT " contributions to %" PetscInt64_FMT " block entries (%.2f each), %" PetscInt64_FMT " in a single block; %" PetscInt_FMT
                          " entries or contributions wrong, %" PetscInt_FMT " blocks with a wrong count, %" PetscInt_FMT " wrong single-block flags\n",
                          nb, st[0], st[1], st[1] ? (double)st[0] / (double)st[1] : 0.0, st[2], bad, badcount, badonly));
  }
  CHECK(!bad && !badcount && !badonly && nonly == R.nonly, "the reduce map (blocks of %" PetscInt_FMT ") is wrong (%" PetscInt_FMT " bad, %" PetscInt_FMT " bad counts, %" PetscInt_FMT " bad flags)", nb, bad, badcount, badonly);
  PetscCall(SquallP1ReduceDestroy(&R));
  PetscCall(PetscFree2(nblk, last));
  PetscCall(PetscFree(sl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block vertex lists of the GPU's reduce kernel (SquallP1BuildBlockVertices(), blocks of nb elements):
   each block's list strictly ascending, every element vertex found at its block-local position and every listed
   vertex used; then the element operators from copies of each block's vertex fields, laid out and addressed as the
   kernel's shared memory (P1StageVertices(): vertex-major per field, only the fields the operator reads, the
   block-local connectivity), equal bit for bit to those from the global arrays (SquallP1ElementLoadAffineXYZ()) */
static PetscErrorCode CheckBlockVertices(SquallP1 p1, const PetscReal coef[], PetscInt nb, const char *what)
{
  const PetscInt   ne = p1->ne, nblocks = (ne + nb - 1) / nb;
  int             *voff, *vtx;
  uint16_t        *ltet;
  PetscInt         maxnv, bad = 0, badop = 0, total = 0;
  int              reads;
  PetscInt        *used;
  PetscReal       *xs, *rs, *us, *Ks;
  SquallP1Elements E, El;
  SquallP1Coef     c;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < SQUALL_P1_NUM_TERMS; k++) c.c[k] = coef[k];
  PetscCall(SquallP1BuildBlockVertices(p1, nb, &voff, &vtx, &ltet, &maxnv));
  PetscCall(SquallP1GetElementsHost(p1, &E));
  PetscCall(PetscMalloc5(PetscMax(maxnv, 1), &used, 3 * PetscMax(maxnv, 1), &xs, PetscMax(maxnv, 1), &rs, 3 * PetscMax(maxnv, 1), &us, 9 * PetscMax(maxnv, 1), &Ks));
  CHECK(voff[0] == 0 && maxnv <= 4 * nb, "%s: block vertex lists start at %d, the largest has %" PetscInt_FMT " vertices (blocks of %" PetscInt_FMT ")", what, voff[0], maxnv, nb);
  El     = E;
  El.x   = xs;
  reads  = SquallP1NodalFieldsRead(E.rho ? PETSC_TRUE : PETSC_FALSE, E.u ? PETSC_TRUE : PETSC_FALSE, E.K ? PETSC_TRUE : PETSC_FALSE, coef);
  El.rho = reads & SQUALL_P1_READS_RHO ? rs : NULL;
  El.u   = reads & SQUALL_P1_READS_U ? us : NULL;
  El.K   = reads & SQUALL_P1_READS_K ? Ks : NULL;
  for (PetscInt k = 0; k < nblocks; k++) {
    const PetscInt e0 = k * nb, e1 = PetscMin(ne, e0 + nb), v0 = voff[k], n = voff[k + 1] - v0;

    total += n;
    for (PetscInt i = 0; i < n; i++) {
      used[i] = 0;
      if (i && vtx[v0 + i] <= vtx[v0 + i - 1]) bad++;
      for (int d = 0; d < 3; d++) xs[3 * i + d] = E.x[3 * vtx[v0 + i] + d];
      if (El.rho) rs[i] = E.rho[vtx[v0 + i]];
      if (El.u)
        for (int d = 0; d < 3; d++) us[3 * i + d] = E.u[3 * vtx[v0 + i] + d];
      if (El.K)
        for (int q = 0; q < 9; q++) Ks[9 * i + q] = E.K[9 * vtx[v0 + i] + q];
    }
    for (PetscInt e = e0; e < e1; e++) {
      PetscInt  v[4], lv[4];
      PetscReal g[2][4][3], vol[2], S[2][4][4];

      for (int a = 0; a < 4; a++) {
        lv[a] = ltet[a * ne + e];
        if (lv[a] >= n || vtx[v0 + lv[a]] != p1->tet[4 * e + a])
          bad++;
        else
          used[lv[a]]++;
      }
      if (bad) break;
      SquallP1ElementLoadAffineXYZ(&E, e, &c, v, g[0], &vol[0], S[0]);
      SquallP1ElementOperatorXYZ(&El, e, &c, lv, g[1], &vol[1], S[1]);
      if (vol[0] != vol[1] || memcmp(g[0], g[1], sizeof(g[0])) || memcmp(S[0], S[1], sizeof(S[0]))) badop++;
    }
    for (PetscInt i = 0; i < n; i++)
      if (!used[i]) bad++;
  }
  PetscCall(SquallP1RestoreElementsHost(p1, &E));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &badop, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s: block vertex lists (blocks of %" PetscInt_FMT "): %.2f vertices per element on rank 0, at most %" PetscInt_FMT " per block; %" PetscInt_FMT " list errors, %" PetscInt_FMT
                        " elements whose operator from the block copies differs\n",
                        what, nb, ne ? (double)total / (double)ne : 0.0, maxnv, bad, badop));
  CHECK(!bad && !badop, "%s: the block vertex lists (blocks of %" PetscInt_FMT ") are wrong: %" PetscInt_FMT " list errors, %" PetscInt_FMT " operators differ", what, nb, bad, badop);
  PetscCall(PetscFree5(used, xs, rs, us, Ks));
  PetscCall(PetscFree(voff));
  PetscCall(PetscFree(vtx));
  PetscCall(PetscFree(ltet));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one operator through the three paths; returns the direct-path matrix */
static PetscErrorCode ComparePaths(SquallP1 p1, PetscInt bs, const PetscReal coef[], PetscReal tol, const char *what, Mat *Aout)
{
  Mat                  A[3], As, Ag[2], Ar[2];
  Vec                  f, b[3], Af;
  PetscReal            d[4], dv[2], dmv, ds, dg, dgg, dr, drr;
  PetscInt             bsf = bs;
  SquallP1AssemblyMode mode, other;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < 3; t++) {
    PetscCall(SquallP1SetAssemblyType(p1, (SquallP1AssemblyType)t));
    PetscCall(SquallP1CreateMatrix(p1, bs, &A[t]));
    PetscCall(SquallP1AssembleOperator(p1, coef, A[t]));
    /* assembling twice must give the same matrix (values are zeroed or replaced, not accumulated) */
    PetscCall(SquallP1AssembleOperator(p1, coef, A[t]));
  }
  PetscCall(SquallP1MatCompare(A[0], A[2], &d[0]));
  PetscCall(SquallP1MatCompare(A[0], A[1], &d[1]));
  PetscCall(SquallP1MatCompare(A[1], A[2], &d[2]));

  /* the direct path into a matrix whose structure came from MatSetPreallocationCOO (re-verified layout) */
  PetscCall(SquallP1SetAssemblyType(p1, SQUALL_P1_ASSEMBLY_DIRECT));
  PetscCall(SquallP1AssembleOperator(p1, coef, A[1]));
  PetscCall(SquallP1MatCompare(A[0], A[1], &d[3]));

  /* the slots mode into another matrix: the same entries in the same order as A[0] when that is slots
     too, so the same matrix to the last bit; equal to round-off when A[0] came from gather or reduce */
  PetscCall(SquallP1GetAssemblyMode(p1, &mode));
  other = SQUALL_P1_MODE_SLOTS;
  PetscCall(SquallP1SetAssemblyMode(p1, other));
  PetscCall(SquallP1CreateMatrix(p1, bs, &As));
  PetscCall(SquallP1AssembleOperator(p1, coef, As));
  PetscCall(SquallP1AssembleOperator(p1, coef, As));
  PetscCall(SquallP1MatCompare(A[0], As, &ds));

  /* the atomic-free gather mode against the slots mode: the same contributions summed in another order,
     so equal to round-off; assembled twice (every value is overwritten, nothing accumulates), and into
     a second matrix, which must be identical to the last bit (a fixed summation order) */
  PetscCall(SquallP1SetAssemblyMode(p1, SQUALL_P1_MODE_GATHER));
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(SquallP1CreateMatrix(p1, bs, &Ag[k]));
    PetscCall(SquallP1AssembleOperator(p1, coef, Ag[k]));
  }
  PetscCall(SquallP1AssembleOperator(p1, coef, Ag[0]));
  /* the reduce mode likewise: sums per block of elements, then per entry over the blocks (on the CPU in
     block order, so deterministic too) */
  PetscCall(SquallP1SetAssemblyMode(p1, SQUALL_P1_MODE_REDUCE));
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(SquallP1CreateMatrix(p1, bs, &Ar[k]));
    PetscCall(SquallP1AssembleOperator(p1, coef, Ar[k]));
  }
  PetscCall(SquallP1AssembleOperator(p1, coef, Ar[0]));
  PetscCall(SquallP1SetAssemblyMode(p1, mode));
  PetscCall(SquallP1MatCompare(mode == SQUALL_P1_MODE_SLOTS ? A[0] : As, Ag[0], &dg));
  PetscCall(SquallP1MatCompare(Ag[0], Ag[1], &dgg));
  PetscCall(SquallP1MatCompare(mode == SQUALL_P1_MODE_SLOTS ? A[0] : As, Ar[0], &dr));
  PetscCall(SquallP1MatCompare(Ar[0], Ar[1], &drr));
  PetscCall(MatDestroy(&Ar[0]));
  PetscCall(MatDestroy(&Ar[1]));
  PetscCall(MatDestroy(&As));
  PetscCall(MatDestroy(&Ag[0]));
  PetscCall(MatDestroy(&Ag[1]));

  PetscCall(SquallP1CreateVector(p1, bs, &f));
  PetscCall(SquallP1Interpolate(p1, bs, FieldFn, &bsf, f));
  for (PetscInt t = 0; t < 3; t++) {
    PetscCall(SquallP1SetAssemblyType(p1, (SquallP1AssemblyType)t));
    PetscCall(VecDuplicate(f, &b[t]));
    PetscCall(SquallP1AssembleRHS(p1, coef, f, b[t]));
    PetscCall(SquallP1AssembleRHS(p1, coef, f, b[t]));
  }
  PetscCall(SquallP1VecCompare(b[0], b[2], &dv[0]));
  PetscCall(SquallP1VecCompare(b[0], b[1], &dv[1]));
  /* the element-wise right-hand side is the assembled operator applied to the field */
  PetscCall(VecDuplicate(f, &Af));
  PetscCall(MatMult(A[0], f, Af));
  PetscCall(SquallP1VecCompare(Af, b[0], &dmv));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%-36s bs %" PetscInt_FMT ": reference (%s) vs setvalues %.1e, vs coo %.1e, setvalues vs coo %.1e, direct into the COO pattern %.1e, vs %s %.1e; gather vs slots %.1e, gather twice %.1e; reduce vs slots %.1e, reduce twice "
                        "%.1e; rhs vs setvalues %.1e, vs coo %.1e; rhs vs A f %.1e\n",
                        what, bs, SquallP1AssemblyModes[mode], (double)d[0], (double)d[1], (double)d[2], (double)d[3], SquallP1AssemblyModes[other], (double)ds, (double)dg, (double)dgg, (double)dr, (double)drr, (double)dv[0], (double)dv[1],
                        (double)dmv));
  /* in gather and reduce mode A[0] sums in another order than the slots mode */
  CHECK(mode == SQUALL_P1_MODE_GATHER || mode == SQUALL_P1_MODE_REDUCE ? ds <= tol : ds == 0, "%s bs %" PetscInt_FMT ": the direct path's %s and %s modes differ (%g)", what, bs, SquallP1AssemblyModes[mode], SquallP1AssemblyModes[other], (double)ds);
  CHECK(dg <= tol, "%s bs %" PetscInt_FMT ": the gather mode differs from the slots mode by %g (tolerance %g)", what, bs, (double)dg, (double)tol);
  CHECK(dgg == 0, "%s bs %" PetscInt_FMT ": two gather-mode assemblies differ (%g): not deterministic", what, bs, (double)dgg);
  CHECK(dr <= tol, "%s bs %" PetscInt_FMT ": the reduce mode differs from the slots mode by %g (tolerance %g)", what, bs, (double)dr, (double)tol);
  CHECK(drr == 0, "%s bs %" PetscInt_FMT ": two reduce-mode assemblies on the CPU differ (%g)", what, bs, (double)drr);
  CHECK(d[0] <= tol && d[1] <= tol && d[2] <= tol && d[3] <= tol, "%s bs %" PetscInt_FMT ": the assembly paths differ (%g %g %g %g) beyond %g", what, bs, (double)d[0], (double)d[1], (double)d[2], (double)d[3], (double)tol);
  CHECK(dv[0] <= tol && dv[1] <= tol, "%s bs %" PetscInt_FMT ": the right-hand side paths differ (%g %g) beyond %g", what, bs, (double)dv[0], (double)dv[1], (double)tol);
  CHECK(dmv <= SQUALL_TOL(1e-13, 400), "%s bs %" PetscInt_FMT ": element-wise right-hand side differs from A f by %g", what, bs, (double)dmv);
  for (PetscInt t = 0; t < 3; t++) PetscCall(VecDestroy(&b[t]));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&Af));
  PetscCall(MatDestroy(&A[1]));
  PetscCall(MatDestroy(&A[2]));
  if (Aout)
    *Aout = A[0];
  else
    PetscCall(MatDestroy(&A[0]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The closed-form element operator of the GPU's affine reduce variant (SquallP1ElementLoadAffine()) against the
   11-point quadrature (SquallP1ElementLoad()) on this mesh and its fields: both assembled element by element on the
   host with MatSetValues, compared row-relative entrywise as the GPU tests compare the device's matrices with the
   host's. The GPU's result differs from the CPU's by fused multiply-adds only (tests/test_gpu_p1.c). Also the element
   load of the affine_xyz variant (SquallP1ElementLoadAffineXYZ(): the geometry rebuilt from the vertex coordinates,
   given no precomputed geometry) against affine's, element by element on this mesh (its vertices, gradients,
   volume and operator, each relative to its largest entry). */
static PetscErrorCode CheckAffine(SquallP1 p1, const PetscReal coef[], PetscReal tol, const char *what)
{
  SquallP1Elements E, Ex;
  SquallP1Coef     c;
  Mat              A[2];
  PetscReal        d, dx[3] = {0, 0, 0};

  PetscFunctionBegin;
  for (PetscInt k = 0; k < SQUALL_P1_NUM_TERMS; k++) c.c[k] = coef[k];
  PetscCall(SquallP1GetElementsHost(p1, &E));
  Ex      = E;
  Ex.geom = NULL; /* affine_xyz must not read it */
  for (int k = 0; k < 2; k++) {
    PetscCall(SquallP1CreateMatrix(p1, 1, &A[k]));
    PetscCall(MatZeroEntries(A[k]));
  }
  for (PetscInt e = 0; e < p1->ne; e++) {
    PetscInt    v[4], rows[4], cols[4];
    PetscReal   g[4][3], vol, S[2][4][4];
    PetscScalar vals[2][16];

    SquallP1ElementLoad(&E, e, &c, v, g, &vol, S[0]);
    SquallP1ElementLoadAffine(&E, e, &c, v, g, &vol, S[1]);
    {
      PetscInt  vx[4];
      PetscReal gx[4][3], volx, Sx[4][4], gmax = 0, dg = 0;

      SquallP1ElementLoadAffineXYZ(&Ex, e, &c, vx, gx, &volx, Sx);
      for (int a = 0; a < 4; a++) {
        PetscReal rmax = 0, dmax = 0;

        CHECK(vx[a] == v[a], "%s: affine_xyz load of element %" PetscInt_FMT ": vertex %d is %" PetscInt_FMT ", not %" PetscInt_FMT, what, e, a, vx[a], v[a]);
        for (int b = 0; b < 4; b++) {
          rmax = PetscMax(rmax, PetscAbsReal(S[1][a][b]));
          dmax = PetscMax(dmax, PetscAbsReal(Sx[a][b] - S[1][a][b]));
        }
        dx[0] = PetscMax(dx[0], rmax > 0 ? dmax / rmax : dmax);
        for (int k = 0; k < 3; k++) {
          gmax = PetscMax(gmax, PetscAbsReal(g[a][k]));
          dg   = PetscMax(dg, PetscAbsReal(gx[a][k] - g[a][k]));
        }
      }
      dx[1] = PetscMax(dx[1], dg / gmax);
      dx[2] = PetscMax(dx[2], PetscAbsReal(volx - vol) / PetscAbsReal(vol));
    }
    for (int a = 0; a < 4; a++) {
      rows[a] = p1->row[v[a]] >= 0 ? p1->gidx[v[a]] : -1;
      cols[a] = p1->gidx[v[a]];
      for (int b = 0; b < 4; b++)
        for (int k = 0; k < 2; k++) vals[k][4 * a + b] = S[k][a][b];
    }
    for (int k = 0; k < 2; k++) PetscCall(MatSetValues(A[k], 4, rows, 4, cols, vals[k], ADD_VALUES));
  }
  PetscCall(SquallP1RestoreElementsHost(p1, &E));
  for (int k = 0; k < 2; k++) {
    PetscCall(MatAssemblyBegin(A[k], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A[k], MAT_FINAL_ASSEMBLY));
  }
  PetscCall(SquallP1MatCompare(A[0], A[1], &d));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, dx, 3, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)A[0])));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: closed-form element operators (GPU reduce variant affine) vs the 11-point quadrature %.1e; element load from vertex coordinates (affine_xyz) vs affine: operator %.1e, gradients %.1e, volume %.1e\n",
                        what, (double)d, (double)dx[0], (double)dx[1], (double)dx[2]));
  CHECK(d <= tol, "%s: the closed-form element operators differ from the quadrature by %g (tolerance %g)", what, (double)d, (double)tol);
  CHECK(dx[0] <= tol && dx[1] <= tol && dx[2] <= tol, "%s: the affine_xyz element load differs from affine's: operator %g (row-relative), gradients %g, volume %g (tolerance %g)", what, (double)dx[0], (double)dx[1], (double)dx[2], (double)tol);
  for (int k = 0; k < 2; k++) PetscCall(MatDestroy(&A[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM         dm;
  SquallP1   p1;
  Vec        Ke, one, r;
  Mat        A;
  PetscReal  tol = SQUALL_TOL(1e-14, 40), vol, sum, nr, nA; /* an entry sums a few dozen element contributions */
  PetscInt   N, NE;
  PetscInt64 nnz;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(SquallP1CreateMeshFromOptions(PETSC_COMM_WORLD, &dm));
  PetscCall(SquallP1Create(dm, &p1));
  PetscCall(SquallP1SetBackend(p1, SQUALL_P1_HOST));
  PetscCall(SquallP1SetFromOptions(p1));
  PetscCall(SquallP1SetUp(p1));
  PetscCall(SquallP1GetSizes(p1, NULL, &N, NULL, &NE));
  PetscCall(SquallP1GetNonzeros(p1, NULL, &nnz));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mesh: %" PetscInt_FMT " nodes, %" PetscInt_FMT " tetrahedra, %" PetscInt64_FMT " nonzeros\n", N, NE, nnz));
  PetscCall(CheckSlots(p1, 1));
  PetscCall(CheckSlots(p1, 3));
  PetscCall(CheckGather(p1));
  PetscCall(CheckReduce(p1, SQUALL_P1_REDUCE_BLOCK, SQUALL_P1_REDUCE_LONG)); /* the GPU's scalar map */
  PetscCall(CheckReduce(p1, SQUALL_P1_REDUCE_BLOCK, PETSC_INT_MAX));         /* position order (CPU; GPU bs 3) */
  PetscCall(CheckReduce(p1, 7, SQUALL_P1_REDUCE_LONG));                      /* a partial last block, most entries in several blocks */

  /* identities first, with constant coefficients: mass entries sum to the volume, the Laplacian
     annihilates constants */
  {
    const PetscReal cm[4] = {1, 0, 0, 0}, cd[4] = {0, 0, 1, 0};
    Mat             M, L;

    PetscCall(SquallP1CreateMatrix(p1, 1, &M));
    PetscCall(SquallP1CreateMatrix(p1, 1, &L));
    PetscCall(SquallP1AssembleOperator(p1, cm, M));
    PetscCall(SquallP1AssembleOperator(p1, cd, L));
    PetscCall(MatCreateVecs(M, &one, &r));
    PetscCall(VecSet(one, 1));
    PetscCall(MatMult(M, one, r));
    PetscCall(VecSum(r, &sum));
    PetscCall(SquallP1Integrate(p1, one, &vol));
    PetscCall(MatMult(L, one, r));
    PetscCall(VecNorm(r, NORM_INFINITY, &nr));
    PetscCall(MatNorm(L, NORM_INFINITY, &nA));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "volume %.12e, sum of mass entries %.12e; Laplacian row sums %.1e relative\n", (double)vol, (double)sum, (double)(nr / nA)));
    CHECK(PetscAbsReal(sum - vol) <= SQUALL_TOL(1e-12, NE) * vol, /* sums over the NE tetrahedra */ "mass entries sum to %.15g, volume %.15g", (double)sum, (double)vol);
    CHECK(nr <= SQUALL_TOL(1e-13, 100) * nA, "Laplacian row sums %g (relative)", (double)(nr / nA));
    PetscCall(VecDestroy(&one));
    PetscCall(VecDestroy(&r));
    PetscCall(MatDestroy(&M));
    PetscCall(MatDestroy(&L));
  }

  PetscCall(P1TestSetFields(p1, RhoFn, VelocityFn, TensorFn));
  {
    const PetscReal c1[4] = {1.3, 0.7, 0.9, 0}, c3[4] = {1.3, 0.7, 0.9, 0.4};

    PetscCall(ComparePaths(p1, 1, c1, tol, "mass+advection+nodal-tensor diffusion", NULL));
    PetscCall(ComparePaths(p1, 3, c3, tol, "... + grad-div", NULL));
    PetscCall(CheckAffine(p1, c1, tol, "mass+advection+nodal-tensor diffusion"));
    PetscCall(CheckBlockVertices(p1, c1, SQUALL_P1_REDUCE_BLOCK, "mass+advection+nodal-tensor diffusion"));
    PetscCall(CheckBlockVertices(p1, c1, 7, "mass+advection+nodal-tensor diffusion"));
  }
  /* per-element diffusivity from the element metric (length-scale tensor) */
  PetscCall(SquallP1CreateElementVector(p1, 9, &Ke));
  PetscCall(SquallP1ComputeElementMetric(p1, 0.5, Ke, NULL));
  PetscCall(SquallP1SetDiffusivity(p1, SQUALL_P1_ELEMENT, Ke));
  {
    const PetscReal c[4] = {0, 0, 1, 0};

    PetscCall(ComparePaths(p1, 1, c, tol, "metric-tensor diffusion", &A));
    PetscCall(CheckAffine(p1, c, tol, "metric-tensor diffusion"));
    PetscCall(CheckBlockVertices(p1, c, SQUALL_P1_REDUCE_BLOCK, "metric-tensor diffusion"));
    Mat       At;
    PetscReal na, nd;

    /* the length-scale tensor is symmetric, so is its diffusion matrix */
    PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &At));
    PetscCall(MatNorm(A, NORM_INFINITY, &na));
    PetscCall(MatAXPY(At, -1, A, SAME_NONZERO_PATTERN));
    PetscCall(MatNorm(At, NORM_INFINITY, &nd));
    CHECK(nd <= SQUALL_TOL(1e-13, 400) * na, "the metric-tensor diffusion matrix is not symmetric: |A - A^T| / |A| = %g", (double)(nd / na));
    PetscCall(MatDestroy(&At));
    PetscCall(MatDestroy(&A));
  }

  PetscCall(VecDestroy(&Ke));
  PetscCall(SquallP1Destroy(&p1));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
