/* The hipBone CUDA operator's device data and what its element kernels share: the argument block,
   the geometric factors' loads, D in constant memory.
   Part of the translation unit of src/cuda/hbop.cu, which includes it; not a header of its own. */
#pragma once
#include "cuda/hbreduce.cuh"
#include "physics/sem.h"
#include <type_traits>

struct _n_SquallHBCUDA {
  PetscInt    *gidx, *rowptr, *col;
  PetscReal   *G, *W, *D;
  PetscScalar *yL, *xghost, *yghost, *yshared;
  PetscReal   *partial; /* [HB_MAX_BLOCKS] per dot, then the result */
  PetscReal   *hdot;    /* pinned */
};

/* the element kernels' arguments, by value */
typedef struct {
  const PetscInt    *gidx;
  const PetscReal   *G, *W, *D;
  PetscReal          lambda;
  PetscInt           nown;
  const PetscScalar *x, *xg;
  PetscScalar       *yL;
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
__constant__ PetscReal HBConstD[HBConstOffset(SQUALL_HB_MAX_ORDER + 2)];
