/* The hipBone operator's v8 element kernel: v7's tensor-core element, persistent, with the geometric factors streamed
   into shared memory by asynchronous copies. Part of the translation unit of src/cuda/hbop.cu, which includes it after
   src/cuda/hbopv7.cuh (whose helpers it uses); not a header of its own. */
#pragma once
#include "cuda/hbopv7.cuh"

/* v8. v7 is latency bound (ncu at N = 15: 25% occupancy, 64% of its stalls on global loads, DRAM at 58% of its peak):
   its factors, 63% of the bytes, come through registers tile by tile in phase 2, so a warp has a few KB in flight
   and only while it is in phase 2. Here one block per SM (8 warps, 213 KB of shared memory at Nq = 16) walks the
   elements e = blockIdx.x, + gridDim.x, ..., and each warp owns a slot of shared memory for one layer's factors and
   W (Nq^2 nodes, 14 KB at Nq = 16) that cp.async (LDGSTS: no registers, bypassing L1) fills a layer ahead:
   layer 2w + 1 of the element while the warp finishes layer 2w, and layer 2w of the next element while the block
   runs this element's phase 3 and the next one's phases 0 and 1. So the block keeps up to 115 KB of factors in
   flight across all phases, and the element's indices (16 KB) come the same way, into the g_s scratch during
   phase 3, so that phase 0 starts with one dependent round trip (x) instead of two. The arithmetic is v7's, in the
   same order: the results equal v7's bit for bit. The padding of q (Nq < 16) is zeroed once per block: every
   phase writes zeros there (D's padding is zero). Double precision, 32-bit PetscInt (the indices' slot), Nq = 10..16. */
#if defined(PETSC_USE_REAL_DOUBLE) && !defined(PETSC_USE_64BIT_INDICES)
/* shared memory in doubles: q and t, the g_s scratch (the indices between phases 2 and 0), a factor slot and a W slot per warp */
template <int Nq> __host__ __device__ constexpr size_t HBSharedV8(void)
{
  return (size_t)(2 * 16 * HB_V7_PK + HB_V7_WARPS * 16 * HB_V7_PJ + HB_V7_WARPS * Nq * Nq * (SQUALL_SEM_NGEO + 1)) * sizeof(double);
}
__host__ __device__ constexpr bool HBHaveV8(int Nq)
{
  return HBHaveV7(Nq);
}

/* cp.async of 16, 8 or 4 bytes; 16-byte copies bypass L1 (.cg), the smaller ones may not (.ca only) */
template <int B> __device__ static inline void HBCpAsync(void *dst, const void *src)
{
  const unsigned s = (unsigned)__cvta_generic_to_shared(dst);

  if constexpr (B == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(s), "l"(src), "n"(B) : "memory");
}
__device__ static inline void HBCpAsyncCommit(void)
{
  asm volatile("cp.async.commit_group;" ::: "memory");
}
/* until at most P of this thread's groups are pending */
template <int P> __device__ static inline void HBCpAsyncWait(void)
{
  asm volatile("cp.async.wait_group %0;" ::"n"(P) : "memory");
}

/* count elements of 4 B (PetscInt) or 8 B (PetscReal) from src to dst by the threads t = 0, 1, ... of a group of T, in
   16-byte copies where 16 | count and the source is 16-byte aligned (the caller says so through V) */
template <typename S, int T, bool V> __device__ static inline void HBCopyAsync(S *dst, const S *src, int count, int t)
{
  if constexpr (V) {
    constexpr int P = 16 / sizeof(S);

    for (int c = t; c < count / P; c += T) HBCpAsync<16>(dst + P * c, src + P * c);
  } else {
    for (int c = t; c < count; c += T) HBCpAsync<sizeof(S)>(dst + c, src + c);
  }
}

/* layer k of element e's factors and W into the warp's slots (48 bytes a node: 16-byte copies; W's layer is 16-byte
   aligned where Nq is even) */
template <int Nq> __device__ static inline void HBV8LayerCopy(const HBOpArgs &a, PetscInt e, int k, double *sG, double *sW, int lane)
{
  const size_t n0 = (size_t)e * (Nq * Nq * Nq) + (size_t)k * Nq * Nq;

  HBCopyAsync<double, 32, true>(sG, a.G + SQUALL_SEM_NGEO * n0, SQUALL_SEM_NGEO * Nq * Nq, lane);
  HBCopyAsync<double, 32, Nq % 2 == 0>(sW, a.W + n0, Nq * Nq, lane);
}

template <int Nq> __device__ static inline void HBV8IndexCopy(const HBOpArgs &a, PetscInt e, PetscInt *sI)
{
  constexpr int Np = Nq * Nq * Nq;

  HBCopyAsync<PetscInt, 32 * HB_V7_WARPS, Np % 4 == 0>(sI, a.gidx + (size_t)e * Np, Np, threadIdx.x);
}

template <int Nq> __global__ static void __launch_bounds__(32 * HB_V7_WARPS, 1) HBLocalOpV8(PetscInt e0, PetscInt e1, HBOpArgs a)
{
  constexpr int     Np = Nq * Nq * Nq, Nq2 = Nq * Nq, PJ = HB_V7_PJ, PK = HB_V7_PK, LPW = 2;
  extern __shared__ __align__(16) unsigned char hbsmem[];
  double                                       *sQ = reinterpret_cast<double *>(hbsmem), *sT = sQ + 16 * PK, *sSall = sT + 16 * PK;
  const int                                     lane = threadIdx.x & 31, w = threadIdx.x >> 5, lr = lane >> 2, lc = lane & 3;
  double                                       *sS = sSall + w * 16 * PJ, *sG = sSall + HB_V7_WARPS * 16 * PJ + w * Nq2 * SQUALL_SEM_NGEO;
  double                                       *sW     = sSall + HB_V7_WARPS * 16 * PJ + HB_V7_WARPS * Nq2 * SQUALL_SEM_NGEO + w * Nq2;
  PetscInt                                     *sI     = reinterpret_cast<PetscInt *>(sSall);
  const PetscInt                                stride = (PetscInt)gridDim.x;
  double                                        DA[2][4], DTA[2][4];

  static_assert(HBHaveV8(Nq) && Np * sizeof(PetscInt) <= HB_V7_WARPS * 16 * PJ * sizeof(double), "v8: the indices fit the g_s scratch");
  if (e0 + (PetscInt)blockIdx.x >= e1) return;
  /* the first element's indices and each warp's first layer; the loop below keeps this order of groups: indices, then factors */
  HBV8IndexCopy<Nq>(a, e0 + blockIdx.x, sI);
  HBCpAsyncCommit();
  if (2 * w < Nq) HBV8LayerCopy<Nq>(a, e0 + blockIdx.x, 2 * w, sG, sW, lane);
  HBCpAsyncCommit();
  if constexpr (Nq < 16) {
    for (int p = threadIdx.x; p < 16 * 16 * 16; p += 32 * HB_V7_WARPS) {
      const int k = p >> 8, j = (p >> 4) & 15, i = p & 15;

      if (i >= Nq || j >= Nq || k >= Nq) sQ[k * PK + j * PJ + i] = 0;
    }
  }
#  pragma unroll
  for (int r = 0; r < 2; r++) {
#  pragma unroll
    for (int s = 0; s < 4; s++) {
      const int ra = 8 * r + lr, ca = 4 * s + lc;

      DA[r][s]  = ra < Nq && ca < Nq ? __ldg(a.D + ra * Nq + ca) : 0;
      DTA[r][s] = ra < Nq && ca < Nq ? __ldg(a.D + ca * Nq + ra) : 0;
    }
  }

#  pragma unroll 1
  for (PetscInt e = e0 + (PetscInt)blockIdx.x; e < e1; e += stride) {
    const size_t ebase = (size_t)e * Np;

    HBCpAsyncWait<1>(); /* this element's indices; its first layer's factors may still be on their way */
    __syncthreads();
    /* 0: x through the indices */
    {
      constexpr int C = (Np + 32 * HB_V7_WARPS - 1) / (32 * HB_V7_WARPS);
      PetscInt      l[C];

#  pragma unroll
      for (int c = 0; c < C; c++) {
        const int n = threadIdx.x + 32 * HB_V7_WARPS * c;

        l[c] = n < Np ? sI[n] : -1;
      }
#  pragma unroll
      for (int c = 0; c < C; c++) {
        const int n = threadIdx.x + 32 * HB_V7_WARPS * c;

        if (n < Np) sQ[(n / Nq2) * PK + ((n / Nq) % Nq) * PJ + n % Nq] = HBReadXLdg(a, l[c]);
      }
    }
    __syncthreads();

    /* 1: as v7 */
    HBV7ColumnProducts<Nq>(
      sQ, DA, w, lr, lc, [&](int, int, int) { return make_double2(0, 0); }, [&](int k, int j, int i0, double2 c) { HBSts2d(sT + k * PK + j * PJ + i0, c.x, c.y); });
    __syncthreads();

    /* 2: as v7, the factors and W from the warp's slot */
#  pragma unroll 1
    for (int kk = 0; kk < LPW; kk++) {
      const int k = LPW * w + kk;

      if (k < Nq) {
        double *Qk = sQ + k * PK, *Tk = sT + k * PK;
        double  cr[2][2][2], cs[2][2][2], y[2][2][2];

#  pragma unroll
        for (int jt = 0; jt < 2; jt++) {
#  pragma unroll
          for (int it = 0; it < 2; it++) cr[jt][it][0] = cr[jt][it][1] = cs[jt][it][0] = cs[jt][it][1] = 0;
        }
        HBV7LayerProducts(Qk, Qk, DA, DA, lr, lc, cr, cs);
        HBCpAsyncWait<0>();
        __syncwarp(); /* the slot's copies of every lane have landed, and every lane has read q_k */
#  pragma unroll
        for (int jt = 0; jt < 2; jt++) {
#  pragma unroll
          for (int it = 0; it < 2; it++) {
            const int     j = 8 * jt + lr, i0 = 8 * it + 2 * lc, o = j * PJ + i0;
            const double2 q = HBLds2d(Qk + o), qt = HBLds2d(Tk + o);
            double        gr[2], gs[2], gt[2];

#  pragma unroll
            for (int h = 0; h < 2; h++) {
              if (i0 + h < Nq && j < Nq) {
                const int     m   = j * Nq + i0 + h;
                const double2 g01 = HBLds2d(sG + SQUALL_SEM_NGEO * m), g23 = HBLds2d(sG + SQUALL_SEM_NGEO * m + 2), g45 = HBLds2d(sG + SQUALL_SEM_NGEO * m + 4);
                const double  g[SQUALL_SEM_NGEO] = {g01.x, g01.y, g23.x, g23.y, g45.x, g45.y};

                SquallSEMGeoApply(g, cr[jt][it][h], cs[jt][it][h], h ? qt.y : qt.x, &gr[h], &gs[h], &gt[h]);
                y[jt][it][h] = a.lambda * sW[m] * (h ? q.y : q.x);
              } else
                gr[h] = gs[h] = gt[h] = y[jt][it][h] = 0;
            }
            HBSts2d(Qk + o, gr[0], gr[1]);
            HBSts2d(Tk + o, gt[0], gt[1]);
            HBSts2d(sS + o, gs[0], gs[1]);
          }
        }
        __syncwarp();                /* every lane has read the slot (and written g_r, g_t, g_s) */
        if (kk == 0 && k + 1 < Nq) { /* the warp's next layer into the slot it just emptied */
          HBV8LayerCopy<Nq>(a, e, k + 1, sG, sW, lane);
          HBCpAsyncCommit();
        }
        HBV7LayerProducts(Qk, sS, DTA, DTA, lr, lc, y, y);
        __syncwarp();
#  pragma unroll
        for (int jt = 0; jt < 2; jt++) {
#  pragma unroll
          for (int it = 0; it < 2; it++) HBSts2d(Qk + (8 * jt + lr) * PJ + 8 * it + 2 * lc, y[jt][it][0], y[jt][it][1]);
        }
      }
    }
    __syncthreads();
    /* the next element's indices into the scratch g_s is done with, then each warp's first layer into its slot */
    if (e + stride < e1) HBV8IndexCopy<Nq>(a, e + stride, sI);
    HBCpAsyncCommit();
    if (e + stride < e1 && 2 * w < Nq) HBV8LayerCopy<Nq>(a, e + stride, 2 * w, sG, sW, lane);
    HBCpAsyncCommit();

    /* 3: as v7 */
    HBV7ColumnProducts<Nq>(
      sT, DTA, w, lr, lc, [&](int k, int j, int i0) { return HBLds2d(sQ + k * PK + j * PJ + i0); },
      [&](int k, int j, int i0, double2 c) {
        if (k < Nq && i0 < Nq) {
          PetscScalar *yn = a.yL + ebase + (size_t)(k * Nq2 + j * Nq + i0);

          if (Nq % 2 == 0)
            *reinterpret_cast<double2 *>(yn) = c;
          else {
            yn[0] = c.x;
            if (i0 + 1 < Nq) yn[1] = c.y;
          }
        }
      });
  }
  HBCpAsyncWait<0>(); /* nothing may be in flight into shared memory when the block exits */
}

/* the v8 launch: one block per SM (its shared memory allows no more), at most one per element */
template <int Nq> static PetscErrorCode HBLaunchV8(PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  static int nsm = 0;

  PetscFunctionBegin;
  static_assert(HBSharedV8<Nq>() <= 227 * 1024, "v8: the block's shared memory");
  if (!nsm) {
    int dev;

    PetscCallCUDA(cudaGetDevice(&dev));
    PetscCallCUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
    PetscCallCUDA(cudaFuncSetAttribute(HBLocalOpV8<Nq>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)HBSharedV8<Nq>()));
  }
  HBLocalOpV8<Nq><<<(unsigned int)PetscMin((PetscInt)nsm, e1 - e0), 32 * HB_V7_WARPS, HBSharedV8<Nq>(), stream>>>(e0, e1, a);
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
__host__ __device__ constexpr bool HBHaveV8(int)
{
  return false;
}
template <int Nq> static PetscErrorCode HBLaunchV8(PetscInt, PetscInt, const HBOpArgs &, cudaStream_t)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-hb_kernel_variant v8 needs double precision (FP64 tensor cores) and 32-bit PetscInt");
}
#endif
