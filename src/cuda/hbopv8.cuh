/* The hipBone operator's v8 element kernel: v7's tensor-core element at three blocks per SM.
   Part of the translation unit of src/cuda/hbop.cu, which includes it after src/cuda/hbopv7.cuh (whose DMMA and
   shared-memory helpers it uses); not a header of its own. */
#pragma once
#include "cuda/hbopv7.cuh"

/* v8. v7 is latency bound at 2 blocks per SM (ncu at N = 15: 25% occupancy, 64% of its stalls on global loads, DRAM at
   58%; an element takes ~30 us, so 2 in flight give ~15 us per element and SM where 90% of the roofline needs ~10.5).
   Its chains of dependent loads (indices, x, then each layer's factors) do not shorten, but a third element in flight
   per SM would give ~10 us per element at the same latency. What held v7 to two: 103 KB of shared memory per block (q and
   t padded to pitches 20 and 324 against bank conflicts, and a g_s slice per warp) and 128 registers for 256 threads.
   Here q and t are unpadded, 16^3 reals each (64 KB for both), with the conflicts taken away by an XOR swizzle instead:
   node (k, j, i) is at 256 k + 16 j + (i ^ 4 ((j ^ k) & 3)). Every fragment load of v7 (four rows or layers of four
   consecutive reals per half-warp, the rows' or layers' low two bits all different) then falls in 16 different 8-byte
   bank pairs, and a node's pair (i0, i0 + 1), i0 even, stays contiguous and 16-byte aligned. g_s needs no slice: it
   waits in registers while g_r D is summed out of q_k, then takes q_k's place. W warps per block (-hb_v8_warps 4, 6,
   8): warp w takes the layers and the columns j = w, w + W, ...; the registers are capped for 3 blocks per SM
   (65536 / (96 W)). The products are v7's, in the same order: the results equal v7's bit for bit. Double precision,
   Nq = 10 .. 16. */
#if defined(PETSC_USE_REAL_DOUBLE)
__host__ __device__ constexpr bool HBHaveV8(int Nq)
{
  return HBHaveV7(Nq);
}
__host__ __device__ constexpr size_t HBSharedV8(void)
{
  return (size_t)(2 * 16 * 16 * 16) * sizeof(double);
}
__host__ __device__ constexpr bool HBV8Warps(int W)
{
  return W == 4 || W == 6 || W == 8;
}
/* where node (k, j, i) of the padded 16^3 element lives */
__device__ static inline int HBV8At(int k, int j, int i)
{
  return (k << 8) | (j << 4) | (i ^ (((j ^ k) & 3) << 2));
}

/* C[jt][it] += X[rows jt of layer k] FX[it]: layer k's rows as A fragments */
__device__ static inline void HBV8RowProducts(const double *X, int k, const double FX[2][4], int lr, int lc, double C[2][2][2])
{
#  pragma unroll
  for (int jt = 0; jt < 2; jt++) {
    double A[4];

#  pragma unroll
    for (int s = 0; s < 4; s++) A[s] = X[HBV8At(k, 8 * jt + lr, 4 * s + lc)];
#  pragma unroll
    for (int it = 0; it < 2; it++) {
#  pragma unroll
      for (int s = 0; s < 4; s++) HBDmma(C[jt][it][0], C[jt][it][1], A[s], FX[it][s]);
    }
  }
}
/* C[jt][it] += FY[jt] Y[columns it of layer k]: layer k's columns as B fragments */
__device__ static inline void HBV8ColumnProducts(const double *Y, int k, const double FY[2][4], int lr, int lc, double C[2][2][2])
{
#  pragma unroll
  for (int it = 0; it < 2; it++) {
    double B[4];

#  pragma unroll
    for (int s = 0; s < 4; s++) B[s] = Y[HBV8At(k, 4 * s + lc, 8 * it + lr)];
#  pragma unroll
    for (int jt = 0; jt < 2; jt++) {
#  pragma unroll
      for (int s = 0; s < 4; s++) HBDmma(C[jt][it][0], C[jt][it][1], FY[jt][s], B[s]);
    }
  }
}
/* v7's HBV7ColumnProducts along k for the columns j = w, w + W, ... (j < Nq), in the swizzled layout */
template <int Nq, int W, typename Start, typename Done> __device__ static inline void HBV8KProducts(const double *X, const double F[2][4], int w, int lr, int lc, Start start, Done done)
{
#  pragma unroll 1
  for (int j = w; j < Nq; j += W) {
#  pragma unroll
    for (int ct = 0; ct < 2; ct++) {
      double B[4];

#  pragma unroll
      for (int s = 0; s < 4; s++) B[s] = X[HBV8At(4 * s + lc, j, 8 * ct + lr)];
#  pragma unroll
      for (int rt = 0; rt < 2; rt++) {
        const int k = 8 * rt + lr, i0 = 8 * ct + 2 * lc;
        double2   c = start(k, j, i0);

#  pragma unroll
        for (int s = 0; s < 4; s++) HBDmma(c.x, c.y, F[rt][s], B[s]);
        done(k, j, i0, c);
      }
    }
  }
}

template <int Nq, int W> __global__ static void __launch_bounds__(32 * W, 3) HBLocalOpV8(PetscInt e0, HBOpArgs a)
{
  constexpr int     Np = Nq * Nq * Nq, Nq2 = Nq * Nq;
  extern __shared__ __align__(16) unsigned char hbsmem[];
  double                                       *sQ = reinterpret_cast<double *>(hbsmem), *sT = sQ + 16 * 16 * 16;
  const int                                     lane = threadIdx.x & 31, w = threadIdx.x >> 5, lr = lane >> 2, lc = lane & 3;
  const size_t                                  ebase = (size_t)(e0 + (PetscInt)blockIdx.x) * Np;
  double                                        DA[2][4], DTA[2][4];

  static_assert(HBHaveV8(Nq) && HBV8Warps(W), "v8: Nq = 10 .. 16, 4, 6 or 8 warps");
  /* 0: as v7 */
  {
    constexpr int C = (Np + 32 * W - 1) / (32 * W);
    PetscInt      l[C];

#  pragma unroll
    for (int c = 0; c < C; c++) {
      const int n = threadIdx.x + 32 * W * c;

      l[c] = n < Np ? __ldg(a.gidx + ebase + n) : -1;
    }
#  pragma unroll
    for (int c = 0; c < C; c++) {
      const int n = threadIdx.x + 32 * W * c;

      if (n < Np) sQ[HBV8At(n / Nq2, (n / Nq) % Nq, n % Nq)] = HBReadXLdg(a, l[c]);
    }
  }
  if constexpr (Nq < 16) {
    for (int p = threadIdx.x; p < 16 * 16 * 16; p += 32 * W) {
      const int k = p >> 8, j = (p >> 4) & 15, i = p & 15;

      if (i >= Nq || j >= Nq || k >= Nq) sQ[HBV8At(k, j, i)] = 0;
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
  __syncthreads();

  /* 1: t = D q along k */
  HBV8KProducts<Nq, W>(
    sQ, DA, w, lr, lc, [&](int, int, int) { return make_double2(0, 0); }, [&](int k, int j, int i0, double2 c) { HBSts2d(sT + HBV8At(k, j, i0), c.x, c.y); });
  __syncthreads();

  /* 2: layer by layer, warp w the layers w, w + W, ... */
#  pragma unroll 1
  for (int k = w; k < Nq; k += W) {
    double cr[2][2][2], cs[2][2][2], y[2][2][2], gs[2][2][2];

#  pragma unroll
    for (int jt = 0; jt < 2; jt++) {
#  pragma unroll
      for (int it = 0; it < 2; it++) cr[jt][it][0] = cr[jt][it][1] = cs[jt][it][0] = cs[jt][it][1] = 0;
    }
    HBV8RowProducts(sQ, k, DA, lr, lc, cr);
    HBV8ColumnProducts(sQ, k, DA, lr, lc, cs);
    __syncwarp(); /* every lane has read q_k before any overwrites its nodes with g_r */
#  pragma unroll
    for (int jt = 0; jt < 2; jt++) {
#  pragma unroll
      for (int it = 0; it < 2; it++) {
        const int     j = 8 * jt + lr, i0 = 8 * it + 2 * lc, o = HBV8At(k, j, i0);
        const double2 q = HBLds2d(sQ + o), qt = HBLds2d(sT + o);
        double        gr[2], gt[2];

#  pragma unroll
        for (int e = 0; e < 2; e++) {
          if (i0 + e < Nq && j < Nq) {
            const size_t n = ebase + (size_t)(k * Nq2 + j * Nq + i0 + e);
            double       g[SQUALL_SEM_NGEO];

            HBLoadGeo(a.G + (size_t)SQUALL_SEM_NGEO * n, g);
            SquallSEMGeoApply(g, cr[jt][it][e], cs[jt][it][e], e ? qt.y : qt.x, &gr[e], &gs[jt][it][e], &gt[e]);
            y[jt][it][e] = a.lambda * __ldg(a.W + n) * (e ? q.y : q.x);
          } else
            gr[e] = gs[jt][it][e] = gt[e] = y[jt][it][e] = 0;
        }
        HBSts2d(sQ + o, gr[0], gr[1]);
        HBSts2d(sT + o, gt[0], gt[1]);
      }
    }
    __syncwarp();
    HBV8RowProducts(sQ, k, DTA, lr, lc, y); /* y += g_r D */
    __syncwarp();                           /* every lane has read g_r: g_s takes its place */
#  pragma unroll
    for (int jt = 0; jt < 2; jt++) {
#  pragma unroll
      for (int it = 0; it < 2; it++) HBSts2d(sQ + HBV8At(k, 8 * jt + lr, 8 * it + 2 * lc), gs[jt][it][0], gs[jt][it][1]);
    }
    __syncwarp();
    HBV8ColumnProducts(sQ, k, DTA, lr, lc, y); /* y += D^T g_s */
    __syncwarp();
#  pragma unroll
    for (int jt = 0; jt < 2; jt++) {
#  pragma unroll
      for (int it = 0; it < 2; it++) HBSts2d(sQ + HBV8At(k, 8 * jt + lr, 8 * it + 2 * lc), y[jt][it][0], y[jt][it][1]);
    }
  }
  __syncthreads();

  /* 3: y += D^T g_t along k, into y_L */
  HBV8KProducts<Nq, W>(
    sT, DTA, w, lr, lc, [&](int k, int j, int i0) { return HBLds2d(sQ + HBV8At(k, j, i0)); },
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

template <int Nq, int W> static PetscErrorCode HBLaunchV8W(PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  static bool allowed = false;

  PetscFunctionBegin;
  static_assert(3 * (HBSharedV8() + 1024) <= 228 * 1024, "v8: three blocks per SM");
  if (!allowed) {
    PetscCallCUDA(cudaFuncSetAttribute(HBLocalOpV8<Nq, W>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)HBSharedV8()));
    PetscCallCUDA(cudaFuncSetAttribute(HBLocalOpV8<Nq, W>, cudaFuncAttributePreferredSharedMemoryCarveout, (int)cudaSharedmemCarveoutMaxShared)); /* room for 3 blocks */
    allowed = true;
  }
  HBLocalOpV8<Nq, W><<<(unsigned int)(e1 - e0), 32 * W, HBSharedV8(), stream>>>(e0, a);
  PetscFunctionReturn(PETSC_SUCCESS);
}
template <int Nq> static PetscErrorCode HBLaunchV8(PetscInt W, PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  PetscFunctionBegin;
  switch (W) {
    case 4: PetscCall((HBLaunchV8W<Nq, 4>(e0, e1, a, stream))); break;
    case 6: PetscCall((HBLaunchV8W<Nq, 6>(e0, e1, a, stream))); break;
    case 8: PetscCall((HBLaunchV8W<Nq, 8>(e0, e1, a, stream))); break;
    default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hb_v8_warps %" PetscInt_FMT " is out of range: valid values are 4, 6, 8", W);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
__host__ __device__ constexpr bool HBHaveV8(int)
{
  return false;
}
template <int Nq> static PetscErrorCode HBLaunchV8(PetscInt, PetscInt, PetscInt, const HBOpArgs &, cudaStream_t)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-hb_kernel_variant v8 needs double precision (FP64 tensor cores)");
}
#endif
