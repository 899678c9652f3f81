/* The HEVI column blocks of dF_V/dq and their block-tridiagonal (Thomas) solve: pointwise functions
   shared by the C loops (src/ts/esdgcolumn.c, src/ts/pccolumn.c) and the CUDA kernels
   (src/cuda/columncuda.cu), one call per vertical line of nodes or per (line, level) slot.

   Layout. A line of nodes through a column of Kz elements holds Nq = N + 1 nodes per element; slot
   s = level * nlines + line is one line in one element (consecutive lines at one level are
   consecutive slots, so that threads of consecutive lines coalesce). Its m = 5 Nq unknowns are
   a = f Nq + k (field f, node k along the line, k = 0 at the bottom face), local vector entry
   base[s] + f Np + k Nq^2. The arrays are entry-major: entry e of slot s at [e * nslot + s]. The
   Jacobian array holds per slot the m x m diagonal block D, then the 5 x 5 block L (rows: the fields
   at k = 0; columns: the fields at k = Nq - 1 of the slot below) and the 5 x 5 block U (rows: k = Nq -
   1; columns: k = 0 of the slot above), m m + 50 entries per slot. */
#pragma once

#include "physics/hostdevice.h"

/* the largest m = 5 (N + 1) (N <= 8, SQUALL_DG_MAX_ORDER) */
#define SQUALL_COLUMN_MMAX 45
/* entries per slot of the Jacobian (and of P = shift I - J): D, L and U */
#define SQUALL_COLUMN_BLOCK_ENTRIES(m) ((m) * (m) + 50)

typedef struct {
  PetscInt        Nq, Np;     /* nodes per line and element, nodes per element */
  PetscInt        nlines, Kz; /* lines on this rank, levels (elements) per column */
  PetscInt        nslot;      /* nlines * Kz */
  PetscBool       periodic;   /* the columns close on themselves (the level below 0 is Kz - 1) */
  const PetscInt *base;       /* [nslot] the local entry of unknown a = 0 of the slot */
} SquallColumnLayout;

/* the element-level colour class: parity, and on a periodic column of odd Kz a third class for its
   last level (its neighbours 0 and Kz - 2 are both even) */
SQUALL_HOST_DEVICE static inline PetscInt SquallColumnClass(const SquallColumnLayout *c, PetscInt level)
{
  if (c->periodic && (c->Kz % 2) && level == c->Kz - 1) return 2;
  return level % 2;
}

SQUALL_HOST_DEVICE static inline PetscInt SquallColumnEntry(const SquallColumnLayout *c, PetscInt slot, PetscInt a)
{
  return c->base[slot] + (a / c->Nq) * c->Np + (a % c->Nq) * c->Nq * c->Nq;
}

/* the slot below (dir -1) or above (+1), or -1 at a wall */
SQUALL_HOST_DEVICE static inline PetscInt SquallColumnNeighbour(const SquallColumnLayout *c, PetscInt slot, PetscInt dir)
{
  const PetscInt level = slot / c->nlines, line = slot % c->nlines, next = level + dir;
  if (next < 0 || next >= c->Kz) {
    if (!c->periodic) return -1;
    return ((next + c->Kz) % c->Kz) * c->nlines + line;
  }
  return next * c->nlines + line;
}

/* the differencing step of unknown value q, as MatFDColoring's "ds" with umin 1 takes it:
   err max(|q|, 1) with the sign of q */
SQUALL_HOST_DEVICE static inline PetscScalar SquallColumnStep(PetscScalar q, PetscReal err)
{
  PetscScalar dx = q;
  if (dx < 1 && dx > -1) dx = dx >= 0 ? 1 : -1;
  return dx * err;
}

/* colour (f, k, cls): perturb unknown (f, k) of the slot if its level is of class cls */
SQUALL_HOST_DEVICE static inline void SquallColumnPerturb(const SquallColumnLayout *c, PetscInt slot, PetscInt f, PetscInt k, PetscInt cls, PetscReal err, const PetscScalar *X, PetscScalar *Xp)
{
  PetscInt i;
  if (SquallColumnClass(c, slot / c->nlines) != cls) return;
  i     = SquallColumnEntry(c, slot, f * c->Nq + k);
  Xp[i] = X[i] + SquallColumnStep(X[i], err);
}

/* the columns of colour (f, k, cls) from the difference F(q + h e) - F(q): column f Nq + k of D
   and, at a face node, the column f of the neighbour's U (k = 0: the slot below) or L (k = Nq - 1) */
SQUALL_HOST_DEVICE static inline void SquallColumnExtract(const SquallColumnLayout *c, PetscInt slot, PetscInt f, PetscInt k, PetscInt cls, PetscReal err, const PetscScalar *X, const PetscScalar *F0, const PetscScalar *Fp, PetscScalar *J)
{
  const PetscInt m = 5 * c->Nq, ns = c->nslot, col = f * c->Nq + k;
  PetscScalar    ih;
  if (SquallColumnClass(c, slot / c->nlines) != cls) return;
  ih = 1 / SquallColumnStep(X[SquallColumnEntry(c, slot, col)], err);
  for (PetscInt a = 0; a < m; a++) {
    const PetscInt i             = SquallColumnEntry(c, slot, a);
    J[(a * m + col) * ns + slot] = (Fp[i] - F0[i]) * ih;
  }
  if (k == 0) {
    const PetscInt nb = SquallColumnNeighbour(c, slot, -1);
    if (nb >= 0)
      for (PetscInt g = 0; g < 5; g++) {
        const PetscInt i                      = SquallColumnEntry(c, nb, g * c->Nq + c->Nq - 1);
        J[(m * m + 25 + g * 5 + f) * ns + nb] = (Fp[i] - F0[i]) * ih;
      }
  }
  if (k == c->Nq - 1) {
    const PetscInt nb = SquallColumnNeighbour(c, slot, 1);
    if (nb >= 0)
      for (PetscInt g = 0; g < 5; g++) {
        const PetscInt i                 = SquallColumnEntry(c, nb, g * c->Nq);
        J[(m * m + g * 5 + f) * ns + nb] = (Fp[i] - F0[i]) * ih;
      }
  }
}

/* entry e of P = shift I - J */
SQUALL_HOST_DEVICE static inline PetscScalar SquallColumnShifted(const SquallColumnLayout *c, PetscInt e, PetscReal shift, const PetscScalar *J)
{
  const PetscInt m = 5 * c->Nq, q = e / c->nslot;
  return (q < m * m && q / m == q % m) ? shift - J[e] : -J[e];
}

/* The matrix of P (rows and columns in the local vector's order, each row's columns ascending): row a of a
   slot holds D's row a, and at a face node (k = 0 with a slot below, k = Nq - 1 with one above) the 5
   entries of L or U, the neighbour's fields. Each element's unknowns are one contiguous range of the vector
   (field f at f Np, node k at k Nq^2 within it, so D's columns ascend with their index), hence the 5
   neighbour entries come before D's when the neighbour's element comes first. Nq >= 2: a row has at most
   one neighbour. */
SQUALL_HOST_DEVICE static inline PetscInt SquallColumnFaceNeighbour(const SquallColumnLayout *c, PetscInt slot, PetscInt a)
{
  const PetscInt k = a % c->Nq;
  if (k == 0) return SquallColumnNeighbour(c, slot, -1);
  return k == c->Nq - 1 ? SquallColumnNeighbour(c, slot, 1) : -1;
}

/* where entry e of the blocks lies in that matrix's CSR values (rowptr: its row pointer), or -1 for a face
   coupling at a wall (not stored); *col (if not NULL): its column, a local entry */
SQUALL_HOST_DEVICE static inline PetscInt SquallColumnCSRPosition(const SquallColumnLayout *c, const PetscInt *rowptr, PetscInt e, PetscInt *col)
{
  const PetscInt m = 5 * c->Nq, slot = e % c->nslot, q = e / c->nslot;
  PetscInt       a, nb, j, up;

  if (q < m * m) {
    a  = q / m;
    j  = q % m;
    nb = SquallColumnFaceNeighbour(c, slot, a);
    if (col) *col = SquallColumnEntry(c, slot, j);
    return rowptr[SquallColumnEntry(c, slot, a)] + (nb >= 0 && c->base[nb] < c->base[slot] ? 5 : 0) + j;
  }
  up = q - m * m >= 25; /* L: rows at k = 0, columns k = Nq - 1 of the slot below; U: the other way round */
  j  = (q - m * m) % 5;
  a  = ((q - m * m) % 25) / 5 * c->Nq + (up ? c->Nq - 1 : 0);
  nb = SquallColumnNeighbour(c, slot, up ? 1 : -1);
  if (nb < 0) return -1;
  if (col) *col = SquallColumnEntry(c, nb, j * c->Nq + (up ? 0 : c->Nq - 1));
  return rowptr[SquallColumnEntry(c, slot, a)] + (c->base[nb] < c->base[slot] ? j : m + j);
}

/* entry e of P = shift I - J, and the same value into the CSR values A at its place (rowptr: the matrix's row
   pointer; a face coupling at a wall has none) */
SQUALL_HOST_DEVICE static inline void SquallColumnShiftEntry(const SquallColumnLayout *c, const PetscInt *rowptr, PetscInt e, PetscReal shift, const PetscScalar *J, PetscScalar *P, PetscScalar *A)
{
  const PetscInt p = SquallColumnCSRPosition(c, rowptr, e, NULL);

  P[e] = SquallColumnShifted(c, e, shift, J);
  if (p >= 0) A[p] = P[e];
}

SQUALL_HOST_DEVICE static inline PetscReal SquallColumnAbs(PetscScalar v)
{
  return v < 0 ? -v : v;
}

/* in-place LU with partial pivoting (rows swapped) of the m x m matrix A[(i m + j) st]; piv[k st]
   the row swapped with k. Returns 1 at an exactly zero pivot. (Golub, Van Loan, Matrix
   Computations, 4th ed., Algorithm 3.4.1) */
SQUALL_HOST_DEVICE static inline int SquallColumnLUFactor(PetscInt m, PetscScalar *A, PetscInt st, PetscInt *piv)
{
  int bad = 0;
  for (PetscInt k = 0; k < m; k++) {
    PetscInt    p   = k;
    PetscReal   big = SquallColumnAbs(A[(k * m + k) * st]);
    PetscScalar d;
    for (PetscInt i = k + 1; i < m; i++) {
      const PetscReal v = SquallColumnAbs(A[(i * m + k) * st]);
      if (v > big) {
        big = v;
        p   = i;
      }
    }
    piv[k * st] = p;
    if (p != k)
      for (PetscInt j = 0; j < m; j++) {
        const PetscScalar t = A[(k * m + j) * st];
        A[(k * m + j) * st] = A[(p * m + j) * st];
        A[(p * m + j) * st] = t;
      }
    d = A[(k * m + k) * st];
    if (d == 0) {
      bad = 1;
      continue;
    }
    d = 1 / d;
    for (PetscInt i = k + 1; i < m; i++) {
      const PetscScalar l = A[(i * m + k) * st] * d;
      A[(i * m + k) * st] = l;
      for (PetscInt j = k + 1; j < m; j++) A[(i * m + j) * st] -= l * A[(k * m + j) * st];
    }
  }
  return bad;
}

/* x <- A^{-1} x with the factors of SquallColumnLUFactor() */
SQUALL_HOST_DEVICE static inline void SquallColumnLUSolve(PetscInt m, const PetscScalar *A, PetscInt st, const PetscInt *piv, PetscScalar *x)
{
  for (PetscInt k = 0; k < m; k++) {
    const PetscInt p = piv[k * st];
    if (p != k) {
      const PetscScalar t = x[k];
      x[k]                = x[p];
      x[p]                = t;
    }
  }
  for (PetscInt i = 1; i < m; i++) {
    PetscScalar v = x[i];
    for (PetscInt j = 0; j < i; j++) v -= A[(i * m + j) * st] * x[j];
    x[i] = v;
  }
  for (PetscInt i = m - 1; i >= 0; i--) {
    PetscScalar v = x[i];
    for (PetscInt j = i + 1; j < m; j++) v -= A[(i * m + j) * st] * x[j];
    x[i] = v / A[(i * m + i) * st];
  }
}

/* flops of one factorisation and one solve of an m x m block (the block Thomas counts below) */
#define SQUALL_COLUMN_LU_FLOPS(m) ((2.0 * (m) * (m) * (m)) / 3.0)
#define SQUALL_COLUMN_SOLVE_FLOPS(m) (2.0 * (m) * (m))
/* per level: the factorisation, 5 solves for G, the 5x5 product L G */
#define SQUALL_COLUMN_FACTOR_LEVEL_FLOPS(m) (SQUALL_COLUMN_LU_FLOPS(m) + 5 * SQUALL_COLUMN_SOLVE_FLOPS(m) + 250.0)
/* per level: one solve, the 5x5 coupling below and the m x 5 product G x */
#define SQUALL_COLUMN_APPLY_LEVEL_FLOPS(m) (SQUALL_COLUMN_SOLVE_FLOPS(m) + 50.0 + 10.0 * (m))
/* entries per slot of the factors: the LU of D'_j, a copy of L_j, and G_j = D'_j^{-1} U_j (m x 5) */
#define SQUALL_COLUMN_FACTOR_ENTRIES(m) ((m) * (m) + 25 + 5 * (m))

/* Block Thomas factorisation of one line of P (the layout above): D'_0 = D_0,
   D'_j = D_j - L_j G_{j-1}, G_j = D'_j^{-1} U_j (Golub, Van Loan, Matrix Computations, 4th ed.,
   section 4.5.1, block tridiagonal LU). U_j touches only the top face node of level j (rows
   k = Nq - 1) and L_j only the bottom one (rows k = 0, columns k = Nq - 1 of the level below), so
   G_j is m x 5 and the correction L_j G_{j-1} is the 5x5 block (k = 0, k = 0) of D_j. LU holds per
   slot (SQUALL_COLUMN_FACTOR_ENTRIES, entry-major) the factors of D'_j, a copy of L_j and G_j, so
   that the solve does not depend on P any more; piv the pivots ([a * nslot + slot]). Returns 1 at a
   zero pivot. Not for periodic columns. */
SQUALL_HOST_DEVICE static inline int SquallColumnFactorLine(const SquallColumnLayout *c, PetscInt line, const PetscScalar *P, PetscScalar *LU, PetscInt *piv)
{
  const PetscInt m = 5 * c->Nq, ns = c->nslot, Nq = c->Nq;
  PetscScalar    corr[25], x[SQUALL_COLUMN_MMAX];
  int            bad = 0;

  for (PetscInt j = 0; j < c->Kz; j++) {
    const PetscInt slot = j * c->nlines + line;
    PetscScalar   *A = LU + slot, *G = LU + (m * m + 25) * ns + slot;
    for (PetscInt e = 0; e < m * m + 25; e++) A[e * ns] = P[e * ns + slot];
    if (j > 0)
      for (PetscInt g = 0; g < 5; g++)
        for (PetscInt f = 0; f < 5; f++) A[(g * Nq * m + f * Nq) * ns] -= corr[g * 5 + f];
    bad |= SquallColumnLUFactor(m, A, ns, piv + slot);
    if (j == c->Kz - 1) break;
    {
      const PetscScalar *U = P + (m * m + 25) * ns + slot, *L = P + m * m * ns + slot + c->nlines;
      for (PetscInt f = 0; f < 5; f++) {
        for (PetscInt a = 0; a < m; a++) x[a] = 0;
        for (PetscInt h = 0; h < 5; h++) x[h * Nq + Nq - 1] = U[(h * 5 + f) * ns];
        SquallColumnLUSolve(m, A, ns, piv + slot, x);
        for (PetscInt a = 0; a < m; a++) G[(a * 5 + f) * ns] = x[a];
      }
      for (PetscInt g = 0; g < 5; g++)
        for (PetscInt f = 0; f < 5; f++) {
          PetscScalar v = 0;
          for (PetscInt h = 0; h < 5; h++) v += L[(g * 5 + h) * ns] * G[((h * Nq + Nq - 1) * 5 + f) * ns];
          corr[g * 5 + f] = v;
        }
    }
  }
  return bad;
}

/* x = P^{-1} b on one line with the factors of SquallColumnFactorLine(): forward elimination
   y_j = D'_j^{-1} (b_j - L_j y_{j-1}) kept in x, then back substitution x_j = y_j - G_j x_{j+1} */
SQUALL_HOST_DEVICE static inline void SquallColumnSolveLine(const SquallColumnLayout *c, PetscInt line, const PetscScalar *LU, const PetscInt *piv, const PetscScalar *b, PetscScalar *xv)
{
  const PetscInt m = 5 * c->Nq, ns = c->nslot, Nq = c->Nq;
  PetscScalar    w[SQUALL_COLUMN_MMAX], t[5];

  for (PetscInt j = 0; j < c->Kz; j++) {
    const PetscInt slot = j * c->nlines + line;
    for (PetscInt a = 0; a < m; a++) w[a] = b[SquallColumnEntry(c, slot, a)];
    if (j > 0) {
      const PetscScalar *L = LU + m * m * ns + slot;
      for (PetscInt g = 0; g < 5; g++)
        for (PetscInt f = 0; f < 5; f++) w[g * Nq] -= L[(g * 5 + f) * ns] * t[f];
    }
    SquallColumnLUSolve(m, LU + slot, ns, piv + slot, w);
    for (PetscInt a = 0; a < m; a++) xv[SquallColumnEntry(c, slot, a)] = w[a];
    for (PetscInt f = 0; f < 5; f++) t[f] = w[f * Nq + Nq - 1];
  }
  /* t: the bottom face node of the level above */
  for (PetscInt f = 0; f < 5; f++) t[f] = xv[SquallColumnEntry(c, (c->Kz - 1) * c->nlines + line, f * Nq)];
  for (PetscInt j = c->Kz - 2; j >= 0; j--) {
    const PetscInt     slot = j * c->nlines + line;
    const PetscScalar *G    = LU + (m * m + 25) * ns + slot;
    for (PetscInt a = 0; a < m; a++) {
      const PetscInt i = SquallColumnEntry(c, slot, a);
      PetscScalar    v = xv[i];
      for (PetscInt f = 0; f < 5; f++) v -= G[(a * 5 + f) * ns] * t[f];
      xv[i] = v;
    }
    for (PetscInt f = 0; f < 5; f++) t[f] = xv[SquallColumnEntry(c, slot, f * Nq)];
  }
}
