/* The host-built maps of the P1 assembly modes, built once per sparsity: the slot map (each element
   entry's place in the AIJ value arrays), the gather map (its transpose: each stored value's
   contributions) and the reduce map (per block of elements, its distinct entries and the contributions
   to each, in a fixed order), and the blocks' vertex lists of the reduce kernel that reads its vertex fields from
   shared memory. The kernels that use them: src/cuda/p1*kernels.cuh and the CPU references
   in p1assemble.c. */
#include "mat/p1impl.h"

PetscErrorCode SquallP1BuildSlots(SquallP1 p1, PetscInt bs, PetscBool withoff, int **slots)
{
  const PetscInt  ne = p1->ne, n = p1->nowned, nk = SquallP1NumSlots((int)bs, (int)withoff);
  const PetscInt *dI = p1->dI, *dJ = p1->dJ, *oI = p1->oI, *oJ = p1->oJ;
  int            *sl;

  PetscFunctionBegin;
  PetscCheck(bs == 1 || bs == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Slot maps exist for block size 1 or 3, not %" PetscInt_FMT, bs);
  /* int32 slots: 4 bytes less traffic per entry than PetscInt64, enough for 2^31 values per block */
  PetscCheck((PetscInt64)bs * bs * PetscMax(dI[n], oI[n]) < (PetscInt64)PETSC_INT32_MAX - 2, PETSC_COMM_SELF, PETSC_ERR_SUP, "The slot map stores 32-bit positions, but a block of this rank has %" PetscInt64_FMT " values; use more ranks",
             (PetscInt64)bs * bs * PetscMax(dI[n], oI[n]));
  PetscCall(PetscLogEventBegin(SQUALL_P1SlotMap, 0, 0, 0, 0));
  PetscCall(PetscMalloc1((size_t)nk * PetscMax(ne, 1), &sl));
  for (PetscInt e = 0; e < ne; e++) {
    const PetscInt *v = &p1->tet[4 * e];

    for (PetscInt a = 0; a < 4; a++) {
      const PetscInt r = p1->row[v[a]];

      for (PetscInt b = 0; b < 4; b++) {
        PetscInt slot = SQUALL_P1_SLOT_NONE;

        if (r >= 0) {
          /* a binary search of the column in its row of the diagonal or off-diagonal block */
          const PetscBool diag = p1->cd[v[b]] >= 0 ? PETSC_TRUE : PETSC_FALSE;
          const PetscInt *ri = diag ? dI : oI, *rj = diag ? dJ : oJ, lo = ri[r], hi = ri[r + 1];
          const PetscInt  p = SquallP1Find(rj, lo, hi, diag ? p1->cd[v[b]] : p1->co[v[b]]);
          PetscInt        pos;

          PetscCheck(p >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Element %" PetscInt_FMT ": the column of vertex %" PetscInt_FMT " is not in the %s-diagonal graph of row %" PetscInt_FMT, e, v[b], diag ? "" : "off", r);
          pos  = bs == 1 ? p : 9 * lo + 3 * (p - lo);
          slot = diag ? pos : SQUALL_P1_SLOT_OFF(pos);
        }
        sl[(4 * a + b) * ne + e] = (int)slot;
      }
      if (bs == 3) {
        sl[(16 + a) * ne + e] = r >= 0 ? (int)(3 * (dI[r + 1] - dI[r])) : 0;
        if (withoff) sl[(20 + a) * ne + e] = r >= 0 ? (int)(3 * (oI[r + 1] - oI[r])) : 0;
      }
    }
  }
  PetscCall(PetscLogEventEnd(SQUALL_P1SlotMap, 0, 0, 0, 0));
  *slots = sl;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the scalar (bs 1) slot map the gather and reduce maps are made from: the SquallP1's own when the slots
   mode built it, else a temporary one, freed by P1RestoreScalarSlots() */
static PetscErrorCode P1GetScalarSlots(SquallP1 p1, PetscBool withoff, int **sl)
{
  PetscFunctionBegin;
  if (p1->slots[1])
    *sl = p1->slots[1];
  else
    PetscCall(SquallP1BuildSlots(p1, 1, withoff, sl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1RestoreScalarSlots(SquallP1 p1, int **sl)
{
  PetscFunctionBegin;
  if (*sl != p1->slots[1]) PetscCall(PetscFree(*sl));
  *sl = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1BuildGather(SquallP1 p1, PetscBool withoff, int *off[2], int *idx[2])
{
  const PetscInt ne = p1->ne, n = p1->nowned, nval[2] = {p1->dI[n], p1->oI[n]};
  int           *sl, *cur;

  PetscFunctionBegin;
  PetscCheck((PetscInt64)16 * ne < (PetscInt64)PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "The gather map stores 32-bit scratch positions (16 per element), but this rank has %" PetscInt_FMT " elements; use -p1_assembly_mode slots or more ranks", ne);
  /* the bs 1 slot map has the positions in the scalar graph: a 3x3 block has those of its scalar entry */
  PetscCall(P1GetScalarSlots(p1, PETSC_FALSE, &sl));
  PetscCall(PetscLogEventBegin(SQUALL_P1GatherMap, 0, 0, 0, 0));
  for (PetscInt blk = 0; blk < 2; blk++) {
    off[blk] = idx[blk] = NULL;
    if (blk && !withoff) continue;
    PetscCall(PetscCalloc1(nval[blk] + 1, &off[blk]));
    PetscCall(PetscMalloc1(nval[blk] + 1, &cur));
    /* counting sort by value; both passes visit t = k*ne + e in ascending order, so each value's list is
       ascending in t: a thread walks the scratch upwards, and neighbouring values of a row (which share
       elements) read nearby addresses at about the same time */
    for (PetscInt t = 0; t < 16 * ne; t++) {
      const int s = sl[t];

      if (blk ? s <= -2 : s >= 0) off[blk][(blk ? -s - 2 : s) + 1]++;
    }
    for (PetscInt p = 0; p < nval[blk]; p++) {
      off[blk][p + 1] += off[blk][p];
      cur[p] = off[blk][p];
    }
    PetscCall(PetscMalloc1(PetscMax(off[blk][nval[blk]], 1), &idx[blk]));
    for (PetscInt t = 0; t < 16 * ne; t++) {
      const int s = sl[t];

      if (blk ? s <= -2 : s >= 0) idx[blk][cur[blk ? -s - 2 : s]++] = (int)t;
    }
    PetscCall(PetscFree(cur));
  }
  PetscCall(PetscLogEventEnd(SQUALL_P1GatherMap, 0, 0, 0, 0));
  PetscCall(P1RestoreScalarSlots(p1, &sl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1ReduceDestroy(SquallP1Reduce *R)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(R->ublk, R->cblk));
  PetscCall(PetscFree(R->slot));
  PetscCall(PetscFree(R->row));
  PetscCall(PetscFree(R->end));
  PetscCall(PetscFree(R->cidx));
  PetscCall(PetscMemzero(R, sizeof(*R)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the index of the lowest set bit of b (b != 0) */
static inline int P1LowestBit(uint64_t b)
{
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_ctzll(b);
#else
  int z = 0;

  while (!((b >> z) & 1)) z++;
  return z;
#endif
}

/* Sorts the n distinct values v[] of [lo, hi] ascending. A reduce block's entries span ~24 times their
   number of positions (0.56 M-tet mountain mesh; at most ~120), so marking them in a bit set of the span and
   reading it back is linear, where PetscSortInt() took 55% of SquallP1BuildReduce() (88 of 160 ms there);
   wide spans fall back to it. bits[] has room for 4 n + 1 words and is left zero. */
static PetscErrorCode P1SortDistinct(PetscInt n, PetscInt *v, PetscInt lo, PetscInt hi, uint64_t *bits)
{
  const PetscInt nw = (hi - lo) / 64 + 1;
  PetscInt       m  = 0;

  PetscFunctionBegin;
  if (n < 2) PetscFunctionReturn(PETSC_SUCCESS);
  if (nw > 4 * n + 1) {
    PetscCall(PetscSortInt(n, v));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt j = 0; j < n; j++) bits[(v[j] - lo) / 64] |= (uint64_t)1 << ((v[j] - lo) % 64);
  for (PetscInt w = 0; w < nw; w++) {
    for (uint64_t b = bits[w]; b; b &= b - 1) v[m++] = lo + 64 * w + P1LowestBit(b);
    bits[w] = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a scalar slot's entry of the reduce map (diagonal block: the slot; off-diagonal: nd + position), or -1 for a
   contribution the map leaves out (none, or off-diagonal without withoff) */
static inline PetscInt P1ReduceEntry(int s, PetscInt nd, PetscBool withoff)
{
  if (s == SQUALL_P1_SLOT_NONE || (s < 0 && !withoff)) return -1;
  return s >= 0 ? s : nd + (-s - 2);
}

/* the work arrays of one block of the reduce map: mark[i] the block-local id of entry i while its block is built,
   else -1; nblk[i] how many blocks touch entry i (1: the entry may be stored); loc, cnt the block's entries and
   their contribution counts (tmp, ctmp: their reordering); bits the sort's bitmap */
typedef struct {
  int      *mark, *nblk, *cnt, *ctmp;
  PetscInt *loc, *tmp;
  uint64_t *bits;
} P1ReduceWork;

/* the block's distinct entries in loc[0..*nloc), ascending positions (the diagonal block's first), mark[] set */
static PetscErrorCode P1ReduceBlockEntries(const int *sl, PetscInt ne, PetscInt nd, PetscBool withoff, PetscInt e0, PetscInt e1, P1ReduceWork *w, PetscInt *nloc)
{
  PetscInt lo = PETSC_INT_MAX, hi = -1, n = 0;

  PetscFunctionBegin;
  for (PetscInt e = e0; e < e1; e++)
    for (PetscInt q = 0; q < 16; q++) {
      const PetscInt i = P1ReduceEntry(sl[q * ne + e], nd, withoff);

      if (i >= 0 && w->mark[i] < 0) {
        w->mark[i]  = 0;
        w->loc[n++] = i;
        lo          = PetscMin(lo, i);
        hi          = PetscMax(hi, i);
      }
    }
  PetscCall(P1SortDistinct(n, w->loc, lo, hi, w->bits));
  for (PetscInt j = 0; j < n; j++) w->mark[w->loc[j]] = (int)j;
  *nloc = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the entries' contribution counts into cnt[1..nloc], then entries with more than rlong contributions
   (SQUALL_P1_REDUCE_LONG: the diagonal's ~10-20) first, each class in ascending position (rlong PETSC_INT_MAX:
   position order only): the GPU's summing phase gives the 32 threads of a warp 32 consecutive entries, which would
   otherwise wait on the one or two diagonal entries among them for ~7x the mean length of 2.9; each entry's own
   sum, and so the matrix, is unchanged. cnt becomes the offsets of the entries' lists. */
static void P1ReduceBlockCounts(const int *sl, PetscInt ne, PetscInt nd, PetscBool withoff, PetscInt e0, PetscInt e1, PetscInt rlong, PetscInt nloc, P1ReduceWork *w)
{
  PetscInt nl = 0;

  for (PetscInt j = 0; j < nloc; j++) w->cnt[j + 1] = 0;
  for (PetscInt e = e0; e < e1; e++)
    for (PetscInt q = 0; q < 16; q++) {
      const PetscInt i = P1ReduceEntry(sl[q * ne + e], nd, withoff);

      if (i >= 0) w->cnt[w->mark[i] + 1]++;
    }
  for (int pass = 0; pass < 2; pass++)
    for (PetscInt j = 0; j < nloc; j++)
      if ((w->cnt[j + 1] > rlong) == (pass == 0)) {
        w->tmp[nl]    = w->loc[j];
        w->ctmp[nl++] = w->cnt[j + 1];
      }
  for (PetscInt j = 0; j < nloc; j++) {
    w->loc[j]          = w->tmp[j];
    w->cnt[j + 1]      = w->ctmp[j];
    w->mark[w->loc[j]] = (int)j;
  }
  w->cnt[0] = 0;
  for (PetscInt j = 0; j < nloc; j++) w->cnt[j + 1] += w->cnt[j];
}

/* the block's entries (from nu on) and contributions (from ncon on) into the map: each entry's slot, row and end
   of its list, and the list of its contributions c = 16 (e - e0) + q, visited in ascending c so that each list
   comes out ascending (a counting sort) */
static void P1ReduceBlockStore(SquallP1 p1, const int *sl, PetscInt nd, PetscBool withoff, PetscInt e0, PetscInt e1, PetscInt nloc, PetscInt64 nu, PetscInt64 ncon, P1ReduceWork *w, SquallP1Reduce *R)
{
  const PetscInt ne = p1->ne;

  for (PetscInt j = 0; j < nloc; j++) {
    const PetscInt i = w->loc[j];

    R->slot[nu + j] = i < nd ? (int)i : SQUALL_P1_SLOT_OFF((int)(i - nd));
    R->end[nu + j]  = (uint16_t)w->cnt[j + 1];
    w->nblk[i]++;
  }
  for (PetscInt e = e0; e < e1; e++)
    for (PetscInt q = 0; q < 16; q++) {
      const PetscInt i = P1ReduceEntry(sl[q * ne + e], nd, withoff);
      int            j;

      if (i < 0) continue;
      j                           = w->mark[i];
      R->row[nu + j]              = (int)p1->row[p1->tet[4 * e + q / 4]];
      R->cidx[ncon + w->cnt[j]++] = (uint16_t)(16 * (e - e0) + q);
    }
  for (PetscInt j = 0; j < nloc; j++) w->mark[w->loc[j]] = -1;
}

PetscErrorCode SquallP1BuildReduce(SquallP1 p1, PetscInt nb, PetscBool withoff, PetscInt rlong, SquallP1Reduce *R)
{
  const PetscInt ne = p1->ne, n = p1->nowned, nd = p1->dI[n], nidx = nd + (withoff ? p1->oI[n] : 0);
  const PetscInt nblocks = (ne + nb - 1) / nb;
  int           *sl;
  P1ReduceWork   w;
  PetscInt64     nu = 0, ncon = 0, cap;

  PetscFunctionBegin;
  PetscCheck(nb >= 1 && 16 * nb <= (PetscInt)SQUALL_P1_REDUCE_MASK, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The reduce map stores 16-bit positions in a block: blocks of 1 to %d elements, not %" PetscInt_FMT, (int)SQUALL_P1_REDUCE_MASK / 16, nb);
  PetscCheck((PetscInt64)16 * ne < (PetscInt64)PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "The reduce map numbers contributions (16 per element) with 32-bit integers, but this rank has %" PetscInt_FMT " elements; use -p1_assembly_mode slots or more ranks", ne);
  PetscCall(P1GetScalarSlots(p1, withoff, &sl));
  PetscCall(PetscLogEventBegin(SQUALL_P1ReduceMap, 0, 0, 0, 0));
  PetscCall(PetscMemzero(R, sizeof(*R)));
  R->nb      = nb;
  R->nblocks = nblocks;
  PetscCall(PetscMalloc2(PetscMax(nidx, 1), &w.mark, PetscMax(nidx, 1), &w.nblk));
  PetscCall(PetscMalloc2(16 * nb, &w.loc, 16 * nb + 1, &w.cnt));
  PetscCall(PetscMalloc2(16 * nb, &w.tmp, 16 * nb, &w.ctmp));
  PetscCall(PetscCalloc1(4 * 16 * nb + 1, &w.bits));
  for (PetscInt i = 0; i < nidx; i++) {
    w.mark[i] = -1;
    w.nblk[i] = 0;
  }
  /* the contributions are counted exactly (a sequential pass); the entries are not known before the
     blocks are built: their arrays start at 1/3 of the contributions (a mesh's blocks have ~3 per
     entry) and grow if needed */
  for (PetscInt t = 0; t < 16 * ne; t++)
    if (sl[t] >= 0 || (withoff && sl[t] != SQUALL_P1_SLOT_NONE)) ncon++;
  PetscCall(PetscMalloc2(nblocks + 1, &R->ublk, nblocks + 1, &R->cblk));
  cap = ncon / 3 + 16 * nb;
  PetscCall(PetscMalloc1(cap, &R->slot));
  PetscCall(PetscMalloc1(cap, &R->row));
  PetscCall(PetscMalloc1(cap, &R->end));
  PetscCall(PetscMalloc1(PetscMax(ncon, 1), &R->cidx));
  R->ncon    = (PetscInt)ncon;
  ncon       = 0;
  R->ublk[0] = R->cblk[0] = 0;
  for (PetscInt k = 0; k < nblocks; k++) {
    const PetscInt e0 = k * nb, e1 = PetscMin(ne, e0 + nb);
    PetscInt       nloc = 0;

    PetscCall(P1ReduceBlockEntries(sl, ne, nd, withoff, e0, e1, &w, &nloc));
    if (nu + nloc > cap) {
      cap = PetscMax(2 * cap, nu + nloc);
      PetscCall(PetscRealloc(cap * sizeof(int), &R->slot));
      PetscCall(PetscRealloc(cap * sizeof(int), &R->row));
      PetscCall(PetscRealloc(cap * sizeof(uint16_t), &R->end));
    }
    P1ReduceBlockCounts(sl, ne, nd, withoff, e0, e1, rlong, nloc, &w);
    P1ReduceBlockStore(p1, sl, nd, withoff, e0, e1, nloc, nu, ncon, &w, R);
    nu += nloc;
    ncon += w.cnt[nloc];
    R->ublk[k + 1] = (int)nu;
    R->cblk[k + 1] = (int)ncon;
  }
  PetscCheck(nu < (PetscInt64)PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The reduce map numbers its %" PetscInt64_FMT " block entries with 32-bit integers; use more ranks", nu);
  R->nu = (PetscInt)nu;
  for (PetscInt u = 0; u < R->nu; u++) {
    const int s = R->slot[u];

    if (w.nblk[s >= 0 ? s : nd + (-s - 2)] == 1) {
      R->end[u] |= (uint16_t)SQUALL_P1_REDUCE_ONLY;
      R->nonly++;
    }
  }
  PetscCall(PetscFree2(w.mark, w.nblk));
  PetscCall(PetscFree2(w.loc, w.cnt));
  PetscCall(PetscFree2(w.tmp, w.ctmp));
  PetscCall(PetscFree(w.bits));
  PetscCall(P1RestoreScalarSlots(p1, &sl));
  p1->rstats[0] = R->nu;
  p1->rstats[1] = R->ncon;
  p1->rstats[2] = R->nonly;
  p1->rstats[3] = R->nblocks;
  PetscCall(PetscLogEventEnd(SQUALL_P1ReduceMap, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1BuildBlockVertices(SquallP1 p1, PetscInt nb, int **voff, int **vtx, uint16_t **ltet, PetscInt *maxnv)
{
  const PetscInt ne = p1->ne, nblocks = (ne + nb - 1) / nb;
  PetscInt      *mark, *loc, nall = 0, cap = 4 * ne + 1;
  int           *off, *list;
  uint16_t      *lt;

  PetscFunctionBegin;
  PetscCheck(nb >= 1 && 4 * nb <= 65536, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Block vertex lists number a block's vertices with 16 bits: blocks of 1 to 16384 elements, not %" PetscInt_FMT, nb);
  PetscCall(PetscMalloc2(PetscMax(p1->nv, 1), &mark, 4 * nb, &loc));
  PetscCall(PetscMalloc1(nblocks + 1, &off));
  PetscCall(PetscMalloc1(cap, &list));
  PetscCall(PetscMalloc1(4 * PetscMax(ne, 1), &lt));
  for (PetscInt v = 0; v < p1->nv; v++) mark[v] = -1;
  *maxnv = 0;
  off[0] = 0;
  for (PetscInt k = 0; k < nblocks; k++) {
    const PetscInt e0 = k * nb, e1 = PetscMin(ne, e0 + nb);
    PetscInt       n = 0;

    for (PetscInt q = 4 * e0; q < 4 * e1; q++)
      if (mark[p1->tet[q]] < 0) {
        mark[p1->tet[q]] = 0;
        loc[n++]         = p1->tet[q];
      }
    /* ascending: a block's copy then reads runs of neighbouring vertices */
    PetscCall(PetscSortInt(n, loc));
    for (PetscInt j = 0; j < n; j++) {
      mark[loc[j]]   = (PetscInt)j;
      list[nall + j] = (int)loc[j];
    }
    for (PetscInt e = e0; e < e1; e++)
      for (PetscInt a = 0; a < 4; a++) lt[a * ne + e] = (uint16_t)mark[p1->tet[4 * e + a]];
    for (PetscInt j = 0; j < n; j++) mark[loc[j]] = -1;
    nall += n;
    off[k + 1] = (int)nall;
    *maxnv     = PetscMax(*maxnv, n);
  }
  PetscCheck(nall < (PetscInt)PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The block vertex lists hold %" PetscInt_FMT " entries, more than 32-bit integers number; use more ranks", nall);
  PetscCall(PetscFree2(mark, loc));
  p1->rstats[4] = nall;
  *voff         = off;
  *vtx          = list;
  *ltet         = lt;
  PetscFunctionReturn(PETSC_SUCCESS);
}
