/* The element orders of -p1_element_order: the order of the GPU threads (SquallP1SetElementOrder()). */
#include "mat/p1impl.h"

/* element k of the new order is element perm[k] of the old one */
static PetscErrorCode P1PermuteElements(SquallP1 p1, const PetscInt perm[])
{
  const PetscInt ne = p1->ne;
  PetscInt      *tet, *cell;
  PetscBool     *own;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(4 * ne, &tet, ne, &cell, ne, &own));
  for (PetscInt k = 0; k < ne; k++) {
    for (PetscInt a = 0; a < 4; a++) tet[4 * k + a] = p1->tet[4 * perm[k] + a];
    cell[k] = p1->cell[perm[k]];
    own[k]  = p1->eowned[perm[k]];
  }
  PetscCall(PetscFree3(p1->tet, p1->cell, p1->eowned));
  p1->tet    = tet;
  p1->cell   = cell;
  p1->eowned = own;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Elements by their smallest local vertex, a stable counting sort. Why this key: the rows an element
   adds into are its vertices' rows, so elements with nearby smallest vertices write nearby parts of the
   CSR values (and read nearby nodal data); the key costs one pass and keeps the mesh's order among the
   ~6-24 elements of one vertex. It assumes the vertex numbering itself is local (DMPlex numbers a
   generated or distributed mesh's vertices so; a file's elements may come in any order). */
static PetscErrorCode P1SortElements(SquallP1 p1)
{
  const PetscInt ne = p1->ne, nv = p1->nv;
  PetscInt      *key, *cnt, *perm;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(ne, &key, ne, &perm));
  PetscCall(PetscCalloc1(nv + 1, &cnt));
  for (PetscInt e = 0; e < ne; e++) {
    const PetscInt *v = &p1->tet[4 * e];

    key[e] = PetscMin(PetscMin(v[0], v[1]), PetscMin(v[2], v[3]));
    cnt[key[e] + 1]++;
  }
  for (PetscInt v = 0; v < nv; v++) cnt[v + 1] += cnt[v];
  for (PetscInt e = 0; e < ne; e++) perm[cnt[key[e]]++] = e;
  PetscCall(P1PermuteElements(p1, perm));
  PetscCall(PetscFree(cnt));
  PetscCall(PetscFree2(key, perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the 21 low bits of x spread to every third bit (bits 0, 3, 6, ...) */
static uint64_t P1Spread3(uint64_t x)
{
  x &= 0x1fffff;
  x = (x | x << 32) & 0x1f00000000ffffULL;
  x = (x | x << 16) & 0x1f0000ff0000ffULL;
  x = (x | x << 8) & 0x100f00f00f00f00fULL;
  x = (x | x << 4) & 0x10c30c30c30c30c3ULL;
  x = (x | x << 2) & 0x1249249249249249ULL;
  return x;
}

typedef struct {
  uint64_t key;
  PetscInt e;
} P1MortonKey;

static int P1MortonCompare(const void *a, const void *b)
{
  const P1MortonKey *x = (const P1MortonKey *)a, *y = (const P1MortonKey *)b;

  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->e < y->e ? -1 : (x->e > y->e ? 1 : 0);
}

/* Elements along the Morton (Z-order) curve of their centroids, each axis of the vertices' bounding box scaled to
   [0, 1] and cut into 2^21 cells (ties, if any, in the mesh's order). Why: 256 consecutive elements, one reduce
   block, then fill a compact region whatever order the mesh came in (on the mountain mesh, whose hex cells are split
   row by row, the mesh's order gives a row of ~43 cells), so a block touches fewer vertices and fewer matrix entries:
   fewer atomics and a smaller copy of its vertex fields. Scaling each axis by its own extent keeps the blocks about
   as many cells deep as wide on a mesh with about as many cells per axis, however flat its box. */
static PetscErrorCode P1MortonElements(SquallP1 p1)
{
  const PetscInt ne = p1->ne, nv = p1->nv;
  PetscReal      lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL}, sc[3];
  P1MortonKey   *k;
  PetscInt      *perm;

  PetscFunctionBegin;
  for (PetscInt v = 0; v < nv; v++)
    for (int d = 0; d < 3; d++) {
      lo[d] = PetscMin(lo[d], p1->x[3 * v + d]);
      hi[d] = PetscMax(hi[d], p1->x[3 * v + d]);
    }
  for (int d = 0; d < 3; d++) sc[d] = hi[d] > lo[d] ? (PetscReal)2097151 / (hi[d] - lo[d]) : 0;
  PetscCall(PetscMalloc2(ne, &k, ne, &perm));
  for (PetscInt e = 0; e < ne; e++) {
    uint64_t c = 0;

    for (int d = 0; d < 3; d++) {
      const PetscReal x = (p1->x[3 * p1->tet[4 * e] + d] + p1->x[3 * p1->tet[4 * e + 1] + d] + p1->x[3 * p1->tet[4 * e + 2] + d] + p1->x[3 * p1->tet[4 * e + 3] + d]) / 4;
      const PetscReal q = PetscMin(PetscMax((x - lo[d]) * sc[d], 0), (PetscReal)2097151);

      c |= P1Spread3((uint64_t)q) << d;
    }
    k[e].key = c;
    k[e].e   = e;
  }
  qsort(k, (size_t)ne, sizeof(*k), P1MortonCompare);
  for (PetscInt e = 0; e < ne; e++) perm[e] = k[e].e;
  PetscCall(P1PermuteElements(p1, perm));
  PetscCall(PetscFree2(k, perm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Greedy colouring: each element takes the lowest colour not yet used by an element sharing one of its
   vertices (a 64-bit mask per vertex; the rare element finding all 64 taken goes to a last, unconstrained
   colour), then a stable counting sort by colour. Meshes with ~24 elements per vertex need ~30 colours. */
static PetscErrorCode P1ColorElements(SquallP1 p1)
{
  const PetscInt ne = p1->ne;
  uint64_t      *mask;
  PetscInt      *color, cnt[66] = {0}, *perm;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(p1->nv, &mask));
  PetscCall(PetscMalloc2(ne, &color, ne, &perm));
  for (PetscInt e = 0; e < ne; e++) {
    const PetscInt *v    = &p1->tet[4 * e];
    const uint64_t  used = mask[v[0]] | mask[v[1]] | mask[v[2]] | mask[v[3]];
    PetscInt        c    = 0;

    while (c < 64 && (used >> c) & 1) c++;
    color[e] = c;
    if (c < 64)
      for (PetscInt a = 0; a < 4; a++) mask[v[a]] |= (uint64_t)1 << c;
    cnt[c + 1]++;
  }
  p1->ncolors = 0;
  for (PetscInt c = 0; c < 65; c++) {
    if (cnt[c + 1]) p1->ncolors = c + 1;
    cnt[c + 1] += cnt[c];
  }
  for (PetscInt e = 0; e < ne; e++) perm[cnt[color[e]]++] = e;
  PetscCall(P1PermuteElements(p1, perm));
  PetscCall(PetscFree2(color, perm));
  PetscCall(PetscFree(mask));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element order of -p1_element_order (SquallP1SetElementOrder()) */
PetscErrorCode SquallP1OrderElements(SquallP1 p1)
{
  PetscFunctionBegin;
  switch (p1->order) {
    case SQUALL_P1_ORDER_NATURAL: break;
    case SQUALL_P1_ORDER_COLORED: PetscCall(P1ColorElements(p1)); break;
    case SQUALL_P1_ORDER_SORTED: PetscCall(P1SortElements(p1)); break;
    case SQUALL_P1_ORDER_MORTON: PetscCall(P1MortonElements(p1)); break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
