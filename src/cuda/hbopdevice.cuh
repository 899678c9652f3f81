/* The hipBone CUDA operator's device data and what its element kernels share: the argument block,
   the geometric factors' loads, D in constant memory.
   Part of the translation unit of src/cuda/hbop.cu, which includes it; not a header of its own. */
#pragma once
#include "cuda/hbutil.h"
#include "physics/sem.h"
#include "cuda/prefetch.cuh"
#include <type_traits>

struct _n_SquallHBCUDA {
  PetscInt    *gidx, *rowptr, *col;
  PetscReal   *G, *W, *D;
  PetscScalar *yL, *xghost, *yghost, *yshared;
  PetscReal   *partial; /* [HB_MAX_BLOCKS] per dot, then the result */
  PetscReal   *hdot;    /* pinned */
  cudaEvent_t  start, stop;
};

/* the element kernels' arguments, by value */
typedef struct {
  const PetscInt    *gidx;
  const PetscReal   *G, *W, *D;
  PetscReal          lambda;
  PetscInt           nown;
  const PetscScalar *x, *xg;
  PetscScalar       *yL;
  PetscInt           e1;     /* the launch's elements end here (e0 is the kernel's argument) */
  PetscReal          pfDist; /* -hb_prefetch_distance: in waves of resident blocks, 0: no prefetch */
  int                pf;     /* that distance in blocks, set by the launcher (HBPrefetchBlocks) */
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

/* The per-node inputs of element e + a.pf (indices, factors, weights: the 48-84 bytes per node that are read once)
   into L2, in sections of at most 16 KB, section t by the block's thread t: a block then finds its inputs in L2, not
   in DRAM. The layer kernels wait for these loads at their start with few blocks per multiprocessor (ncu, N = 5 and 8:
   57-60% of the stall cycles on L1TEX at 31-37% occupancy), as the ESDG half sweep did before its prefetch. */
template <int Np> __device__ static inline void HBPrefetchElement(const HBOpArgs &a, PetscInt e, int t)
{
  constexpr size_t CH = 16384, bi = Np * sizeof(PetscInt), bg = SQUALL_SEM_NGEO * Np * sizeof(PetscReal), bw = Np * sizeof(PetscReal);
  constexpr int    ni = (int)((bi + CH - 1) / CH), ng = (int)((bg + CH - 1) / CH), nw = (int)((bw + CH - 1) / CH);
  const PetscInt   ef = e + a.pf;
  const char      *p;
  size_t           len, off;

  if (!a.pf || ef >= a.e1 || t >= ni + ng + nw) return;
  if (t < ni) {
    p   = (const char *)(a.gidx + (size_t)ef * Np);
    len = bi;
    off = (size_t)t * CH;
  } else if (t < ni + ng) {
    p   = (const char *)(a.G + (size_t)ef * SQUALL_SEM_NGEO * Np);
    len = bg;
    off = (size_t)(t - ni) * CH;
  } else {
    p   = (const char *)(a.W + (size_t)ef * Np);
    len = bw;
    off = (size_t)(t - ni - ng) * CH;
  }
  SquallPrefetchL2(p + off, len - off < CH ? len - off : CH);
}

/* the prefetch distance in blocks of kernel k (threads per block, dynamic shared memory): a.pfDist waves of the blocks
   resident at once on the device, at least 1; 0 without prefetch. *W caches the resident blocks per kernel. */
template <typename K> static PetscErrorCode HBPrefetchBlocks(K k, int threads, size_t shm, int *W, HBOpArgs *a)
{
  PetscFunctionBegin;
  a->pf = 0;
  if (a->pfDist > 0) {
    if (!*W) {
      int nb, dev, sms;
      PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, threads, shm));
      PetscCallCUDA(cudaGetDevice(&dev));
      PetscCallCUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
      *W = PetscMax(1, nb * sms);
    }
    a->pf = PetscMax(1, (int)(*W * a->pfDist));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* elements per block of the 3D kernel: up to about 512 threads */
__host__ __device__ constexpr int HBElemsPerBlock(int Nq)
{
  return Nq * Nq * Nq >= 512 ? 1 : 512 / (Nq * Nq * Nq);
}

/* D of every order in constant memory, at HBConstOffset(Nq): reads in which all threads of a warp
   want the same entry come from the constant cache instead of shared memory */
__host__ __device__ constexpr int HBConstOffset(int Nq)
{
  return (Nq - 1) * Nq * (2 * Nq - 1) / 6 - 1; /* sum of q^2 for q = 2 .. Nq-1 */
}
__constant__ PetscReal HBConstD[HBConstOffset(SQUALL_LGL_MAX_ORDER + 2)];
