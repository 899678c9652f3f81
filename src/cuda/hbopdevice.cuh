/* The hipBone CUDA operator's device data and what its element kernels share: the argument block,
   the geometry sources (stored, trilinear, affine factors), D in constant memory.
   Part of the translation units of src/cuda/hbop.cu and hbop<geometry>.cu, which include it; not a header of its own. */
#pragma once
#include "cuda/hbreduce.cuh"
#include "physics/sem.h"
#include <type_traits>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

/* -hb_scatter atomic: the sums p.Ap is accumulated in, one per warp modulo this (few atomics on each) */
#define HB_DOT_SLOTS 4096
/* An element kernel's template parameter GEO holds its geometry source (HBGeo) and, in HB_ATOMIC_BIT, whether it
   scatters by atomic adds (HBAtomic): separate instantiations, so that the gather kernels compile as without it */
#define HB_ATOMIC_BIT 4
__host__ __device__ constexpr int HBGeo(int GEO)
{
  return GEO & (HB_ATOMIC_BIT - 1);
}
__host__ __device__ constexpr bool HBAtomic(int GEO)
{
  return (GEO & HB_ATOMIC_BIT) != 0;
}

struct _n_SquallHBCUDA {
  PetscInt    *gidx, *rowptr, *col;
  PetscReal   *G, *D;
  PetscReal   *V, *F, *r, *w; /* trilinear vertices, affine factors (each uploaded when first used), GLL nodes and weights */
  PetscScalar *yL, *xghost, *yghost, *yshared;
  PetscReal   *partial;  /* [HB_MAX_BLOCKS] per dot, then the result */
  PetscReal   *dotslots; /* [HB_DOT_SLOTS] then the result: -hb_scatter atomic's p.Ap */
  PetscReal   *colsum;   /* gather with single rows: x.y over the single rows of each element column (nelem Nq^2) */
  PetscReal   *hdot;     /* pinned */
};

/* the element kernels' arguments, by value */
typedef struct {
  const PetscInt    *gidx;
  const PetscReal   *G, *D;
  const PetscReal   *V, *F, *r, *w;
  PetscInt           nown, nsingle; /* owned rows; the first nsingle have one element copy, which writes them whole */
  PetscReal          lambda;
  const PetscScalar *x, *xg;
  PetscScalar       *yL;
  PetscScalar       *y, *yg; /* the owned rows (the single ones, and under -hb_scatter atomic all), the ghost rows */
  PetscReal         *dot;    /* p.Ap wanted: atomic, HB_DOT_SLOTS sums; gather with single rows, a sum per element
                                column (nelem Nq^2) of x y over its single rows; else NULL */
} HBOpArgs;

/* the six factors of a node: 48 (24) contiguous bytes, read as three 16 (8) byte vectors */
__device__ static inline void HBLoadGeo(const PetscReal *__restrict__ G, PetscReal g[SQUALL_SEM_NGEO])
{
#if defined(PETSC_USE_REAL_DOUBLE)
  const double2 *v = reinterpret_cast<const double2 *>(G);
  const double2  a = __ldg(v), b = __ldg(v + 1), c = __ldg(v + 2);
#elif defined(PETSC_USE_REAL_SINGLE)
  const float2 *v = reinterpret_cast<const float2 *>(G);
  const float2  a = __ldg(v), b = __ldg(v + 1), c = __ldg(v + 2);
#else
#  error "squall's hipBone kernels need single or double precision"
#endif
  g[0] = a.x;
  g[1] = a.y;
  g[2] = b.x;
  g[3] = b.y;
  g[4] = c.x;
  g[5] = c.y;
}

/* The geometry source of one thread column (i, j) of element elem (base = elem Np + i + Nq j), a template
   parameter of every element kernel: at(k, g) gives the six factors of node (i, j, k).
   stored: 6 reals per node from memory; trilinear: the column's Jacobian data (15 reals, formed once from the
   element's 8 vertices, SquallSEMTrilinearColumn) and the factors at each node from J, |J|, J^{-1}; affine:
   the element's 6 reals times the node's weight. The pointwise code is the CPU reference's (src/physics/sem.h). */
template <int GEO> struct HBGeoColumn;

template <> struct HBGeoColumn<SQUALL_HB_GEOMETRY_STORED> {
  const PetscReal *G;

  __device__                        HBGeoColumn(const HBOpArgs &a, size_t base, PetscInt elem, int i, int j) : G(a.G + SQUALL_SEM_NGEO * base) {}
  template <int Nq> __device__ void at(const HBOpArgs &a, int k, PetscReal g[SQUALL_SEM_NGEO]) const { HBLoadGeo(G + (size_t)SQUALL_SEM_NGEO * Nq * Nq * k, g); }
};

template <> struct HBGeoColumn<SQUALL_HB_GEOMETRY_TRILINEAR> {
  PetscReal C[15], wij;

  __device__ HBGeoColumn(const HBOpArgs &a, size_t base, PetscInt elem, int i, int j)
  {
    const PetscReal *Ve = a.V + (size_t)SQUALL_HB_NVERT_REALS * elem;
    PetscReal        V[SQUALL_HB_NVERT_REALS];

#pragma unroll
    for (int c = 0; c < SQUALL_HB_NVERT_REALS; c++) V[c] = __ldg(Ve + c);
    SquallSEMTrilinearColumn(V, __ldg(a.r + i), __ldg(a.r + j), C);
    wij = __ldg(a.w + i) * __ldg(a.w + j);
  }
  template <int Nq> __device__ void at(const HBOpArgs &a, int k, PetscReal g[SQUALL_SEM_NGEO]) const
  {
    (void)SquallSEMTrilinearFactors(C, __ldg(a.r + k), wij * __ldg(a.w + k), g);
  }
};

template <> struct HBGeoColumn<SQUALL_HB_GEOMETRY_AFFINE> {
  PetscReal F[SQUALL_SEM_NGEO], wij;

  __device__ HBGeoColumn(const HBOpArgs &a, size_t base, PetscInt elem, int i, int j)
  {
#pragma unroll
    for (int c = 0; c < SQUALL_SEM_NGEO; c++) F[c] = __ldg(a.F + (size_t)SQUALL_SEM_NGEO * elem + c);
    wij = __ldg(a.w + i) * __ldg(a.w + j);
  }
  template <int Nq> __device__ void at(const HBOpArgs &a, int k, PetscReal g[SQUALL_SEM_NGEO]) const
  {
    SquallSEMAffineFactors(F, wij * __ldg(a.w + k), g);
  }
};

__device__ static inline PetscScalar HBReadX(const HBOpArgs &a, PetscInt l)
{
  return l < 0 ? (PetscScalar)0 : (l < a.nown ? a.x[l] : a.xg[l - a.nown]);
}

/* the same through the read-only cache, as one predicated load (no branch), so that a thread's
   several reads can all be in flight */
__device__ static inline PetscScalar HBReadXLdg(const HBOpArgs &a, PetscInt l)
{
  const PetscScalar *src = l < a.nown ? a.x + l : a.xg + (l - a.nown);
  PetscScalar        v   = 0;

  if (l >= 0) v = __ldg(src);
  return v;
}

/* The element's result v at its node idx, where x is xv. Under gather, a node whose row has no other element copy
   (rows below nsingle) writes that row whole, lambda x + v, and the others go into y_L for the Z^T pass; the thread's
   part of p.Ap gets x y of its single rows (the Z^T pass forms the rest). Under -hb_scatter atomic every node adds v
   to its row of y or of the ghost rows, and x v to p.Ap (a masked node does neither). */
template <bool ATOMIC> __device__ static inline void HBStoreNode(const HBOpArgs &a, size_t idx, PetscScalar v, PetscScalar xv, PetscReal &dot)
{
  const PetscInt l = ATOMIC || a.nsingle ? __ldg(a.gidx + idx) : -1;

  if constexpr (ATOMIC) {
    if (l >= 0) {
      atomicAdd(l < a.nown ? a.y + l : a.yg + (l - a.nown), v);
      dot += xv * v;
    }
  } else if (l >= 0 && l < a.nsingle) {
    const PetscScalar yv = a.lambda * xv + v;

    a.y[l] = yv;
    dot += xv * yv;
  } else {
    a.yL[idx] = v;
  }
}

/* the threads' parts of p.Ap summed per warp into one of the HB_DOT_SLOTS sums; called once by every thread of
   the block (those without a node with 0) */
template <bool ATOMIC> __device__ static inline void HBFlushDot(const HBOpArgs &a, PetscReal dot)
{
  namespace cg = cooperative_groups;

  if (!ATOMIC || !a.dot) return;
  {
    const cg::coalesced_group g    = cg::coalesced_threads();
    const PetscReal           s    = cg::reduce(g, dot, cg::plus<PetscReal>());
    const unsigned            nw   = (blockDim.x * blockDim.y * blockDim.z + 31) / 32;
    const unsigned            warp = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32;

    if (g.thread_rank() == 0) atomicAdd(a.dot + (blockIdx.x * nw + warp) % HB_DOT_SLOTS, s);
  }
}

/* gather with single rows and p.Ap wanted: the thread's x y over the single rows of its element column (base: the
   column's node at k = 0), into that column's own sum, so that p.Ap is summed in a fixed order */
template <int Nq> __device__ static inline void HBColumnDot(const HBOpArgs &a, size_t base, PetscReal dot)
{
  constexpr size_t Np = (size_t)Nq * Nq * Nq;

  if (a.dot) a.dot[(base / Np) * Nq * Nq + base % Np] = dot;
}

/* blocks per SM to ask nvcc for, so that a block of T threads gets at most about R registers per
   thread (H100/H200: 65536 registers per SM, allocated per warp) */
__host__ __device__ constexpr int HBMinBlocks(int T, int R)
{
  return 65536 / (((T + 31) / 32) * 32 * R) < 1 ? 1 : 65536 / (((T + 31) / 32) * 32 * R);
}

#if defined(PETSC_USE_REAL_DOUBLE)
typedef double2 HBReal2;
#else
typedef float2 HBReal2;
#endif
/* two consecutive reals of shared memory (16-byte aligned in double, 8 in single) in one load */
__device__ static inline void HBLds2(const PetscReal *p, PetscReal &a, PetscReal &b)
{
  const HBReal2 v = *reinterpret_cast<const HBReal2 *>(p);

  a = v.x;
  b = v.y;
}

/* D of every order in constant memory, at HBConstOffset(Nq): reads in which all threads of a warp
   want the same entry come from the constant cache instead of shared memory */
__host__ __device__ constexpr int HBConstOffset(int Nq)
{
  return (Nq - 1) * Nq * (2 * Nq - 1) / 6 - 1; /* sum of q^2 for q = 2 .. Nq-1 */
}
static __constant__ PetscReal HBConstD[HBConstOffset(SQUALL_HB_MAX_ORDER + 2)];

/* the element kernels of one geometry source (with or without HB_ATOMIC_BIT), by order (instantiated in
   src/cuda/hbop<geometry>.cu) */
template <int GEO> PetscErrorCode HBLocalOpGeo(const SquallHBOpDesc *, PetscInt, PetscInt, const HBOpArgs &, cudaStream_t);
template <int GEO> PetscErrorCode HBUploadConstD(const PetscReal *, PetscInt);
