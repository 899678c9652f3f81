/* The hipBone operator's layer-by-layer (2D) element kernels v1 to v4 and their launchers.
   Part of the translation unit of src/cuda/hbop.cu, which includes it; not a header of its own. */
#pragma once
#include "cuda/hbopdevice.cuh"

template <int Nq> __device__ static inline void HBLocalOp2DBody(PetscInt e0, const HBOpArgs &a)
{
  constexpr int        Np = Nq * Nq * Nq;
  __shared__ PetscReal sD[Nq][Nq + 1];
  __shared__ PetscReal sq[Nq][Nq], sr[Nq][Nq], ss[Nq][Nq];
  const PetscReal     *cD = HBConstD + HBConstOffset(Nq); /* D[k][m]: the same k and m in every thread */
  const int            i = threadIdx.x, j = threadIdx.y;
  const size_t         base = (size_t)(e0 + (PetscInt)blockIdx.x) * Np + i + Nq * j;
  PetscReal            rq[Nq], ra[Nq];

  sD[j][i] = a.D[j * Nq + i];
#pragma unroll
  for (int k = 0; k < Nq; k++) {
    rq[k] = HBReadX(a, a.gidx[base + Nq * Nq * k]);
    ra[k] = 0;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < Nq; k++) {
    PetscReal qr = 0, qs = 0, qt = 0, gr, gs, gt, g[SQUALL_SEM_NGEO];

    sq[j][i] = rq[k];
    __syncthreads();
#pragma unroll
    for (int m = 0; m < Nq; m++) {
      qr += sD[i][m] * sq[j][m];
      qs += sD[j][m] * sq[m][i];
      qt += cD[k * Nq + m] * rq[m];
    }
    HBLoadGeo(a.G + (size_t)SQUALL_SEM_NGEO * (base + Nq * Nq * k), g);
    SquallSEMGeoApply(g, qr, qs, qt, &gr, &gs, &gt);
    sr[j][i] = gr;
    ss[j][i] = gs;
    /* the t-derivative's transpose stays in the thread: layer k feeds every layer m of its column */
#pragma unroll
    for (int m = 0; m < Nq; m++) ra[m] += cD[k * Nq + m] * gt;
    ra[k] += a.lambda * a.W[base + Nq * Nq * k] * rq[k];
    __syncthreads();
#pragma unroll
    for (int m = 0; m < Nq; m++) ra[k] += sD[m][i] * sr[j][m] + sD[m][j] * ss[m][i];
  }
#pragma unroll
  for (int k = 0; k < Nq; k++) a.yL[base + Nq * Nq * k] = ra[k];
}

template <int Nq> __global__ static void __launch_bounds__(Nq *Nq) HBLocalOp2D(PetscInt e0, HBOpArgs a)
{
  HBLocalOp2DBody<Nq>(e0, a);
}

/* For Nq >= 14 the two register columns (rq, ra) take 2 Nq values: at Nq = 16 nvcc uses about 154
   registers and a single block of 256 threads fits on an SM. With -hb_kernel_cap_registers two blocks
   are asked for, which caps the registers at 128 at the price of some spill to L1; which is faster is
   for the benchmark to say. Below Nq = 14 nvcc's own choice (64-120 registers) leaves several blocks. */
template <int Nq> __global__ static void __launch_bounds__(Nq *Nq, 2) HBLocalOp2DCapped(PetscInt e0, HBOpArgs a)
{
  HBLocalOp2DBody<Nq>(e0, a);
}

/* v2 of the layer-by-layer kernel. v1 holds two register columns (q and the result, 2 Nq values):
   ~154 registers at Nq = 16, one block of 8 warps per SM, too few loads in flight to stream memory.
   Here the element's q lives in shared memory (Nq^3: 32 KB at Nq = 16 in double) and a thread holds
   only its result column, so at least two blocks fit; every index and x value is requested at once
   before the sweep, and each layer's six factors and W are requested one layer ahead, so that they
   arrive during the layer in between. The factors' layer buffers alternate between two copies,
   which leaves one barrier per layer (v1: two). nvcc left alone takes 150-255 registers (it
   hoists shared loads to hide their latency); capped at HB2D_REGS it spills a few values once per
   element (tens of bytes, outside the contractions), and 3 blocks of 256 threads fit at Nq = 16. */
#define HB2D_REGS 80
template <int Nq> __global__ static void __launch_bounds__(Nq *Nq, HBMinBlocks(Nq *Nq, HB2D_REGS)) HBLocalOp2Dv2(PetscInt e0, HBOpArgs a)
{
  constexpr int        Np = Nq * Nq * Nq, Nq2 = Nq * Nq;
  __shared__ PetscReal sD[Nq][Nq + 1];
  __shared__ PetscReal sq[Nq][Nq][Nq]; /* [k][j][i] */
  __shared__ PetscReal sr[2][Nq][Nq], ss[2][Nq][Nq];
  const PetscReal     *cD = HBConstD + HBConstOffset(Nq); /* D[k][m]: the same k and m in every thread */
  const int            i = threadIdx.x, j = threadIdx.y;
  const size_t         base = (size_t)(e0 + (PetscInt)blockIdx.x) * Np + i + Nq * j;
  PetscReal            ra[Nq], g[SQUALL_SEM_NGEO], w;

  {
    PetscInt l[Nq];

#pragma unroll
    for (int k = 0; k < Nq; k++) l[k] = __ldg(a.gidx + base + Nq2 * k);
#pragma unroll
    for (int k = 0; k < Nq; k++) sq[k][j][i] = HBReadXLdg(a, l[k]);
  }
  HBLoadGeo(a.G + (size_t)SQUALL_SEM_NGEO * base, g);
  w        = __ldg(a.W + base);
  sD[j][i] = a.D[j * Nq + i];
#pragma unroll
  for (int k = 0; k < Nq; k++) ra[k] = 0;
  __syncthreads();
#pragma unroll
  for (int k = 0; k < Nq; k++) {
    const int b  = k & 1;
    PetscReal qr = 0, qs = 0, qt = 0, gr, gs, gt;

#pragma unroll
    for (int m = 0; m < Nq; m++) {
      qr += sD[i][m] * sq[k][j][m];
      qs += sD[j][m] * sq[k][m][i];
      qt += cD[k * Nq + m] * sq[m][j][i];
    }
    SquallSEMGeoApply(g, qr, qs, qt, &gr, &gs, &gt);
    ra[k] += a.lambda * w * sq[k][j][i];
    if (k + 1 < Nq) {
      HBLoadGeo(a.G + (size_t)SQUALL_SEM_NGEO * (base + Nq2 * (k + 1)), g);
      w = __ldg(a.W + base + Nq2 * (k + 1));
    }
    sr[b][j][i] = gr;
    ss[b][j][i] = gs;
    /* the t-derivative's transpose stays in the thread: layer k feeds every layer m of its column */
#pragma unroll
    for (int m = 0; m < Nq; m++) ra[m] += cD[k * Nq + m] * gt;
    /* layer k-1 read the other copy of sr, ss; every thread passed that read before this barrier */
    __syncthreads();
#pragma unroll
    for (int m = 0; m < Nq; m++) ra[k] += sD[m][i] * sr[b][j][m] + sD[m][j] * ss[b][m][i];
  }
#pragma unroll
  for (int k = 0; k < Nq; k++) a.yL[base + Nq2 * k] = ra[k];
}

/* v3 of the layer-by-layer kernel: fewer shared-memory wavefronts per node. v2 is bound by shared
   memory at large N: per warp (32 nodes of one layer) and per contraction index m it issues 10
   wavefronts, 4 of them for loads whose lanes want only 2 distinct addresses (D[j][m], q[k][j][m],
   D[m][j], r[j][m]: half a warp per row j at Nq = 16), each costing a whole wavefront; that is
   10 Nq / 32 = 5 wavefronts per element node at Nq = 16 against ~4.5 clocks per node of HBM time
   (76 bytes per node, ~17 bytes per clock per SM), hence the 50%.
   Here
   - a thread owns L nodes of its column, layers k .. k+L-1 (L = 2 by default, -hb_v3_layers 2|3|4),
     and sweeps the element L layers per step: every D value and the t-direction operand q[m][j][i]
     loaded once serve all L layers; at L = 2 the G and W of both are prefetched one step ahead as
     in v2 (for L > 2 see HBAheadV3);
   - the loads with few distinct addresses read two consecutive m at once (16-byte vector loads from
     rows of even pitch P, padded so that the rows j, j+1, .. a warp spans lie in different banks): a
     vector load whose lanes want 2-4 distinct 16-byte pieces is still one wavefront;
   - D and D^T both sit in shared memory so that every D operand is either lane-contiguous (D[m][i],
     D^T[m][i] = D[i][m]) or a row pair (D[j][m..m+1], D^T[j][m..m+1] = D[m..m+1][j]).
   Wavefronts per warp, per m and per step of two layers (64 nodes), Nq = 16:
     gradient   r: D^T[m][i] 1 + q[k][j][m..] 2 x 1/2          = 2
                s: D[j][m..] 1/2 + q[k][m][i] 2 x 1              = 2.5
                t: q[m][j][i] (32 distinct values) 2, for both  = 2
     divergence r: D[m][i] 1 + r[l][j][m..] 2 x 1/2             = 2
                s: D^T[j][m..] 1/2 + s[l][m][i] 2 x 1            = 2.5
   11 per 64 nodes: 11 Nq / 64 = 2.75 wavefronts per node at Nq = 16 (v2: 5), plus ~0.2 for the
   stores of q, r and s. The sr/ss buffers alternate between steps: one barrier per two layers.
   With L layers per step the loads shared by the layers (D^T[m][i] 1, D[j][m..] 1/2, q[m][j][i] 2,
   D[m][i] 1, D^T[j][m..] 1/2: 5 per m) serve L layers and the others (3 per m and layer) scale with L:
   (5 + 3 L) Nq / (32 L) wavefronts per node, 2.75 (L = 2), 2.33 (L = 3), 2.13 (L = 4) at Nq = 16, for
   more registers (ra[Nq], qr/qs/qt[L], g[L][6], w[L]: see HBRegsV3) and shared memory. The last
   step of a sweep has Nq % L layers where L does not divide Nq.
   Shared memory (2 + Nq + 4 L) Nq P reals (58.5 KB at Nq = 16, L = 2; 67.5 KB at L = 3, 76.5 KB at
   L = 4) is dynamic (above the 48 KB static limit). */
/* row pitch (reals) of the v3 kernel's shared arrays: even, so that pairs m, m+1 are 16-byte aligned,
   and not a multiple of 16, so that consecutive rows start in different banks */
__host__ __device__ constexpr int HBPitchV3(int Nq)
{
  return ((Nq + 1) & ~1) % 16 == 0 ? ((Nq + 1) & ~1) + 2 : ((Nq + 1) & ~1);
}

/* v4: v3's kernel with its thread-block shape and row pitches chosen per order (HBLayout2DOf) against
   the shared-memory bank conflicts that make odd Nq 10-15 points slower (H200, L = 2-4: Nq = 11, 13,
   15 at 62-72, 54-59, 47-53% of the roofline against 69-78, 75-78, 63-64, 58-64% at Nq = 10, 12, 14,
   16). The analysis is static (no profile yet): -hb_kernel_variant v4 is to be measured against v3.

   Cost model. The L1/shared unit returns 128 bytes per cycle, one 32-bit register per lane: a warp's
   LDS.64 takes at least 2 cycles, served per half-warp, and its LDS.128 4, per quarter-warp, or 2
   when every lane pair 2n, 2n+1 wants one address (the packed return of uniform loads); within such
   a phase, different 8-byte words in one bank pair serialise. A warp of the Nq x Nq block holds the
   threads t = 32 w .. 32 w + 31, (i, j) = (t % Nq, t / Nq): 2-4 rows j, starting at any lane. The
   kernel has three access shapes:
     node    x[j][i]         q[m][j][i] (t-derivative: Nq per step), the stores of q, r, s
     row     x[j][m], m + 1  D, D^T, q[k], r: one address per row j of the warp (LDS.128 pairs)
     column  x[m][i]         D, D^T, q[k], s: the Nq contiguous words of row m
   Even Nq: P = Nq (18 at 16) makes j P + i the lane index (node: conflict-free) and rows start at
   even lanes (row: packed). Odd Nq: the even P that the pairs need (12, 14, 18 for 11, 13, 15) shifts
   each row of a warp by P - Nq words against the lane index, so some bank pair sees two words in a
   half-warp, and odd-length rows start at odd lanes, so the row loads lose the packing; the last m has
   no partner (scalar loads). Cycles per access, worst warp of the element (in brackets with whole
   warps of 256 bytes per cycle, the model of v3's comment):
     Nq                        10     11     12     13     14     15     16
     v3 pitch P                10     12     12     14     14     18     18
     node LDS.64 / STS.64      2 (2)  4 (3)  2 (2)  4 (3)  2 (2)  4 (3)  2 (2)
     row LDS.128 (two m)       2 (1)  4 (1)  2 (1)  4 (1)  2 (1)  4 (1)  2 (1)
     column LDS.64             2 (1)  2 (1)  2 (1)  2 (1)  2 (1)  2 (1)  2 (1)
   Cycles per element node over the whole kernel, L = 2 / 3 / 4 (whole-warp model in brackets):
     v3  10: 4.24 3.92 3.60 (2.36 2.17 1.98)   11: 5.61 4.83 4.45 (2.56 2.17 1.98)
         12: 4.38 3.82 3.54 (2.44 2.10 1.94)   13: 6.76 5.96 5.55 (3.13 2.72 2.52)
         14: 5.21 4.64 4.36 (2.91 2.57 2.39)   15: 7.82 6.59 6.18 (3.58 2.96 2.76)
         16: 5.19 4.69 4.19 (2.94 2.62 2.31)
     v4  11: 5.15 4.49 4.16 (2.52 2.19 2.02)   13: 5.08 4.50 4.21 (2.89 2.53 2.35)
         15: 5.80 4.93 4.64 (3.24 2.71 2.54)   even Nq: as v3
   Against the 21 measurements of v3 (clocks per node and SM from the roofline fraction: ~76 bytes per
   node, 4437 GB/s over 132 SMs at 1.98 GHz) this model fits t = 0.84 c + 2.9 (R^2 0.83; the whole-warp
   model 0.74, SASS instructions issued per node 0.55, the FP64 pipe 0.48): odd Nq pays in shared-memory
   cycles. For v3 at Nq = 11, 13, 15 the fit gives 59-67, 52-59, 47-55% (measured 62-72, 54-59, 47-53);
   for v4 62-70, 62-69, 57-66%.
   Ruled out or second order: registers (ptxas -v: 64 / 80 / 80 at Nq = 11 / 13 / 15 for L = 2 against
   64 / 72 / 80 at 12 / 14 / 16, the same blocks per SM; spill 8 bytes at odd Nq, 8-48 at even), the
   partial last warp (9 and 1 lanes at Nq = 13, 15, but 4 at 14 and 16 at 12), resident nodes per SM
   (Nq = 13, 15: 4 x 169, 3 x 225, 14% fewer than at 14, 16; Nq = 11: 8 x 121, more than at 10, 12;
   v4 keeps them), and the 8-byte (not 32-byte) alignment of the element layers at odd Nq (one more L2
   sector per warp access, the same HBM bytes).
   The v4 layout (HBLayout2DOf):
   - even Nq: v3's;
   - odd Nq where one more thread per row costs no warp (3, 5, 7, 9, 13, 15): W = Nq + 1 threads per row,
     the last owning no node (it reads its neighbour's node and writes only pad columns), with v3's
     pitch P = W (18 at W = 16: the two rows of a warp must start in different bank pairs): node is the
     lane index again and rows start at even lanes;
   - Nq = 11 (12 x 11 threads take 5 warps, not 4): W = 11 with q and s unpadded (pitch 11: node is the
     lane index; q rows by two scalar loads, which cost what the unpacked LDS.128 did) and r, D at 12.
   The arithmetic is v3's, operation for operation (the same PTX floating-point dataflow). Shared memory
   is v3's except at Nq = 11 (6% less); registers are v3's (the same caps), ptxas -v spill 0-48 bytes
   against v3's 0-16 at Nq = 11, 13, 15. Beyond odd Nq the model says the kernel is bound by the L1
   return path, not by HBM: 4.2-5.2 shared cycles per node at even Nq, plus ~0.5 for the global loads
   (G: three LDG.128 per node, 12 cycles per warp), against ~4.5 clocks of HBM time per node. The 90%
   goal needs fewer shared loads per node (more reuse of each load), not only conflict-free ones. */
typedef struct {
  int W;              /* threads per row of the block (threadIdx.x); those with i >= Nq own no node */
  int Pd, Pq, Pr, Ps; /* row pitches (reals) of D and D^T, q, r, s; rows are read in pairs where even */
} HBLayout2D;

__host__ __device__ constexpr HBLayout2D HBLayout2DOf(SquallHBKernelVariant v, int Nq)
{
  return v != SQUALL_HB_KERNEL_V4 || Nq % 2 == 0            ? HBLayout2D{Nq, HBPitchV3(Nq), HBPitchV3(Nq), HBPitchV3(Nq), HBPitchV3(Nq)}
         : ((Nq + 1) * Nq + 31) / 32 == (Nq * Nq + 31) / 32 ? HBLayout2D{Nq + 1, HBPitchV3(Nq), HBPitchV3(Nq), HBPitchV3(Nq), HBPitchV3(Nq)}
                                                            : HBLayout2D{Nq, HBPitchV3(Nq), Nq, HBPitchV3(Nq), Nq};
}
/* v4 at even Nq is v3 (one instantiation serves both) */
__host__ __device__ constexpr bool HBLayout2DIsV3(SquallHBKernelVariant v, int Nq)
{
  return HBLayout2DOf(v, Nq).W == Nq && HBLayout2DOf(v, Nq).Pd == HBPitchV3(Nq) && HBLayout2DOf(v, Nq).Pq == HBPitchV3(Nq) && HBLayout2DOf(v, Nq).Pr == HBPitchV3(Nq) && HBLayout2DOf(v, Nq).Ps == HBPitchV3(Nq);
}
/* array sizes round up to an even number of reals, so that every array starts 16-byte aligned */
__host__ __device__ constexpr int HBEven(int n)
{
  return (n + 1) & ~1;
}
/* the reals of one element's q, r and s (D and D^T are the block's) */
__host__ __device__ constexpr int HBElemShared2D(SquallHBKernelVariant v, int Nq, int L)
{
  return HBEven(Nq * Nq * HBLayout2DOf(v, Nq).Pq) + HBEven(2 * L * Nq * HBLayout2DOf(v, Nq).Pr) + HBEven(2 * L * Nq * HBLayout2DOf(v, Nq).Ps);
}
__host__ __device__ constexpr size_t HBShared2D(SquallHBKernelVariant v, int Nq, int L, int E = 1)
{
  return (size_t)(2 * HBEven(Nq * HBLayout2DOf(v, Nq).Pd) + E * HBElemShared2D(v, Nq, L)) * sizeof(PetscReal);
}
/* Several elements per block (E, -hb_2d_elements), one per threadIdx.z: at Nq = 6 an element's 36 threads fill 18 of
   each warp's 32 lanes and its 96 registers per thread allow 10 blocks (20 warps) per SM, so that the kernel, waiting on
   its global loads (ncu: 60% of its stall cycles at 30% occupancy), has 360 threads' loads in flight per SM; 3 elements
   per block (4 warps, 84% of the lanes) keep 540. Instantiated at Nq = 6 only (N = 5, the order whose one-element block
   wastes most lanes). Measured and reverted at Nq = 10 and 12 (H200, v4, best layer count, % of the roofline): N = 9 (100 threads in 4 warps) 1, 2, 3, 4, 6 elements 76.4,
   74.0, 77.7, 70.6, 68.0 (v5 82.1); N = 11 (144 in 5 warps) 74.9, 71.1, 68.1, 59.3, 57.4: there idle lanes do not limit. */
__host__ __device__ constexpr bool HBMultiElement2D(int Nq)
{
  return Nq == 6;
}
/* registers per thread to ask for (see HBMinBlocks). Left alone nvcc takes more (it hoists shared
   loads); at these caps ptxas -v (sm_90, double) reports 8-48 bytes of spill, once per element outside
   the contractions, and the shared memory allows as many blocks: Nq = 15, 16: 80 registers, 3 blocks
   of 8 warps per SM (like v2); Nq = 13, 14: 80, 72, 4 blocks of 6-7 warps; Nq <= 12: 64, 6-8 blocks of
   4-5 warps (L = 2).
   L = 3, 4 hold 7 L more values (g, w) and 3 L accumulators: at the caps of L = 2 ptxas spills
   100-900 bytes from Nq = 13 on (Nq = 16: 152 bytes at L = 3, 912 at L = 4), inside the sweep. With
   96 registers (Nq <= 13) and 128 (Nq >= 14: 2 blocks of 7-8 warps per SM, which is also all that the
   shared memory of L = 4 allows at Nq = 16) ptxas -v reports 0-16 bytes of spill from Nq = 13 on and
   at most 48 below (double). At Nq = 15, 16 and L = 3 this
   costs a block per SM against L = 2 (3 blocks would need 80 registers, 150-220 bytes of spill). In
   single precision 80 registers leave no spill for any Nq and L = 3, 4.
   Where the G and W of a step are requested (HBAheadV3) makes no difference to nvcc 13.0: it moves the
   read-only loads across the barrier (the same SASS at Nq = 16, L = 4; the same registers and spill
   for every Nq, L). */
__host__ __device__ constexpr bool HBAheadV3(int Nq, int L)
{
  return L == 2; /* L = 2: one step ahead, as measured; L > 2: at the step's start (fewer live values in the source) */
}
__host__ __device__ constexpr int HBRegsV3More(int Nq, int L)
{
#if defined(PETSC_USE_REAL_SINGLE)
  return 80; /* no spill at any Nq, L (ptxas -v, sm_90) */
#else
  return Nq >= 14 ? 128 : 96;
#endif
}
__host__ __device__ constexpr int HBRegsV3(int Nq, int L)
{
  return L == 2 ? (Nq >= 15 ? 80 : (Nq >= 13 ? 72 : 64)) : HBRegsV3More(Nq, L);
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

/* a pair of consecutive reals of shared memory: one vector load from a row of even pitch, two loads
   from a row of odd pitch (v4 at Nq = 11: q, whose node accesses want it unpadded) */
template <bool PAIR> __device__ static inline void HBLdsPair(const PetscReal *p, PetscReal &a, PetscReal &b)
{
  if constexpr (PAIR) {
    HBLds2(p, a, b);
  } else {
    a = p[0];
    b = p[1];
  }
}

/* the v3 and v4 kernels: V picks the layout (HBLayout2DOf); with v3's the code is v3's as it was. A
   thread without a node (v4's padded rows) reads its neighbour's node from global memory (the same
   sectors: no extra traffic), so that no global load needs a predicate and every pad column it fills
   and reads holds finite values; it writes no y_L. */
template <int Nq, int L, SquallHBKernelVariant V, int E> __global__ static void __launch_bounds__(HBLayout2DOf(V, Nq).W *Nq *E, HBMinBlocks(HBLayout2DOf(V, Nq).W *Nq *E, HBRegsV3(Nq, L))) HBLocalOp2Dv3(PetscInt e0, PetscInt e1, HBOpArgs a)
{
  constexpr HBLayout2D lay = HBLayout2DOf(V, Nq);
  constexpr int        Np = Nq * Nq * Nq, Nq2 = Nq * Nq, W = lay.W, PD = lay.Pd, PQ = lay.Pq, PR = lay.Pr, PS = lay.Ps;
  constexpr int        LD = Nq * PD, LQ = Nq * PQ, LR = Nq * PR, LS = Nq * PS; /* one matrix (layer) of each array */
  constexpr bool       ahead = HBAheadV3(Nq, L), paird = PD % 2 == 0, pairq = PQ % 2 == 0, pairr = PR % 2 == 0;
  extern __shared__ __align__(16) unsigned char hbsmem[];
  PetscReal                                    *sD  = reinterpret_cast<PetscReal *>(hbsmem);                     /* D[a][b] at a PD + b */
  PetscReal                                    *sDT = sD + HBEven(LD);                                           /* D[b][a] at a PD + b */
  PetscReal                                    *sq  = sDT + HBEven(LD) + threadIdx.z * HBElemShared2D(V, Nq, L); /* q[k][j][i] at k LQ + j PQ + i */
  PetscReal                                    *sr  = sq + HBEven(Nq * LQ);                                      /* [2 buffers][L layers][j][i], pitch PR */
  PetscReal                                    *ss  = sr + HBEven(2 * L * LR);                                   /* the same, pitch PS */
  const PetscReal                              *cD  = HBConstD + HBConstOffset(Nq);                              /* D[k][m]: the same k and m in every thread */
  const int                                     i = threadIdx.x, j = threadIdx.y, ijq = j * PQ + i, ijr = j * PR + i, ijs = j * PS + i;
  const bool                                    active = W == Nq || i < Nq; /* threads i >= Nq own no node */
  const PetscInt                                eb     = e0 + (PetscInt)blockIdx.x * E + (PetscInt)threadIdx.z;
  const bool                                    valid  = E == 1 || eb < e1; /* the last block's slots past e1 read the last element, store nothing */
  const size_t                                  base   = (size_t)(valid ? eb : e1 - 1) * Np + (active ? i : Nq - 1) + Nq * j;
  PetscReal                                     ra[Nq], g[L][SQUALL_SEM_NGEO], w[L];

  {
    PetscInt l[Nq];

#pragma unroll
    for (int k = 0; k < Nq; k++) l[k] = __ldg(a.gidx + base + Nq2 * k);
#pragma unroll
    for (int k = 0; k < Nq; k++) sq[k * LQ + ijq] = HBReadXLdg(a, l[k]);
  }
  if constexpr (ahead) {
#pragma unroll
    for (int l = 0; l < L; l++) {
      if (l < Nq) {
        HBLoadGeo(a.G + (size_t)SQUALL_SEM_NGEO * (base + Nq2 * l), g[l]);
        w[l] = __ldg(a.W + base + Nq2 * l);
      }
    }
  }
  if (threadIdx.z == 0) {
    const PetscReal d = a.D[j * Nq + (active ? i : Nq - 1)];

    sD[j * PD + i]                        = d;
    sDT[active ? i * PD + j : j * PD + i] = d; /* a thread without a node fills the pad column it reads */
  }
#pragma unroll
  for (int k = 0; k < Nq; k++) ra[k] = 0;
  __syncthreads();
#pragma unroll
  for (int k0 = 0; k0 < Nq; k0 += L) {
    const int  nl = Nq - k0 < L ? Nq - k0 : L; /* layers in this step: L, or the rest */
    PetscReal *r = sr + ((k0 / L) & 1) * L * LR, *s = ss + ((k0 / L) & 1) * L * LS;
    PetscReal  qr[L], qs[L], qt[L];

    if constexpr (!ahead) { /* this step's factors, to arrive during its gradient */
#pragma unroll
      for (int l = 0; l < L; l++) {
        if (l < nl) {
          HBLoadGeo(a.G + (size_t)SQUALL_SEM_NGEO * (base + Nq2 * (k0 + l)), g[l]);
          w[l] = __ldg(a.W + base + Nq2 * (k0 + l));
        }
      }
    }
#pragma unroll
    for (int l = 0; l < L; l++) qr[l] = qs[l] = qt[l] = 0;
#pragma unroll
    for (int m = 0; m < Nq; m += 2) {
      if (m + 1 < Nq) {
        PetscReal       dj0, dj1;
        const PetscReal di0 = sDT[m * PD + i], di1 = sDT[(m + 1) * PD + i]; /* D[i][m], D[i][m+1] */
        const PetscReal c0 = sq[m * LQ + ijq], c1 = sq[(m + 1) * LQ + ijq]; /* q[m][j][i], q[m+1][j][i] */

        HBLdsPair<paird>(sD + j * PD + m, dj0, dj1); /* D[j][m], D[j][m+1] */
#pragma unroll
        for (int l = 0; l < L; l++) {
          if (l < nl) {
            const PetscReal *Q = sq + (k0 + l) * LQ;
            PetscReal        q0, q1;

            HBLdsPair<pairq>(Q + j * PQ + m, q0, q1); /* q[k][j][m], q[k][j][m+1] */
            qr[l] += di0 * q0 + di1 * q1;
            qs[l] += dj0 * Q[m * PQ + i] + dj1 * Q[(m + 1) * PQ + i];
            qt[l] += cD[(k0 + l) * Nq + m] * c0 + cD[(k0 + l) * Nq + m + 1] * c1;
          }
        }
      } else {
        const PetscReal dj = sD[j * PD + m], di = sDT[m * PD + i], c = sq[m * LQ + ijq];

#pragma unroll
        for (int l = 0; l < L; l++) {
          if (l < nl) {
            const PetscReal *Q = sq + (k0 + l) * LQ;

            qr[l] += di * Q[j * PQ + m];
            qs[l] += dj * Q[m * PQ + i];
            qt[l] += cD[(k0 + l) * Nq + m] * c;
          }
        }
      }
    }
#pragma unroll
    for (int l = 0; l < L; l++) {
      if (l < nl) {
        PetscReal gr, gs, gt;

        SquallSEMGeoApply(g[l], qr[l], qs[l], qt[l], &gr, &gs, &gt);
        ra[k0 + l] += a.lambda * w[l] * sq[(k0 + l) * LQ + ijq];
        r[l * LR + ijr] = gr;
        s[l * LS + ijs] = gs;
        /* the t-derivative's transpose stays in the thread: layer k feeds every layer m of its column */
#pragma unroll
        for (int m = 0; m < Nq; m++) ra[m] += cD[(k0 + l) * Nq + m] * gt;
      }
    }
    /* the next step's factors arrive during this step's divergence and the next gradient */
    if constexpr (ahead) {
#pragma unroll
      for (int l = 0; l < L; l++) {
        if (k0 + L + l < Nq) {
          HBLoadGeo(a.G + (size_t)SQUALL_SEM_NGEO * (base + Nq2 * (k0 + L + l)), g[l]);
          w[l] = __ldg(a.W + base + Nq2 * (k0 + L + l));
        }
      }
    }
    /* the previous step read the other copy of r, s; every thread passed that read before this barrier */
    __syncthreads();
#pragma unroll
    for (int m = 0; m < Nq; m += 2) {
      if (m + 1 < Nq) {
        PetscReal       dj0, dj1;
        const PetscReal di0 = sD[m * PD + i], di1 = sD[(m + 1) * PD + i]; /* D[m][i], D[m+1][i] */

        HBLdsPair<paird>(sDT + j * PD + m, dj0, dj1); /* D[m][j], D[m+1][j] */
#pragma unroll
        for (int l = 0; l < L; l++) {
          if (l < nl) {
            const PetscReal *S = s + l * LS;
            PetscReal        r0, r1;

            HBLdsPair<pairr>(r + l * LR + j * PR + m, r0, r1); /* r[j][m], r[j][m+1] */
            ra[k0 + l] += di0 * r0 + di1 * r1 + dj0 * S[m * PS + i] + dj1 * S[(m + 1) * PS + i];
          }
        }
      } else {
        const PetscReal dj = sDT[j * PD + m], di = sD[m * PD + i];

#pragma unroll
        for (int l = 0; l < L; l++) {
          if (l < nl) ra[k0 + l] += di * r[l * LR + j * PR + m] + dj * s[l * LS + m * PS + i];
        }
      }
    }
  }
  if (active && valid) {
#pragma unroll
    for (int k = 0; k < Nq; k++) a.yL[base + Nq2 * k] = ra[k];
  }
}

/* the v3/v4 kernel's launch with E elements per block: its dynamic shared memory goes above 48 KB from Nq = 15 on (L = 2;
   from Nq = 14 on for L = 4), which each instantiation must be allowed once */
template <int Nq, int L, SquallHBKernelVariant V, int E> static PetscErrorCode HBLaunch2Dv3E(PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  static bool  allowed = false;
  const size_t shm     = HBShared2D(V, Nq, L, E);

  PetscFunctionBegin;
  static_assert(HBShared2D(V, Nq, L, E) <= 227 * 1024, "v3/v4 kernel: shared memory above the 227 KB per block of sm_90");
  static_assert(HBLayout2DOf(V, Nq).W >= Nq && HBLayout2DOf(V, Nq).W <= HBLayout2DOf(V, Nq).Pd && HBLayout2DOf(V, Nq).W <= HBLayout2DOf(V, Nq).Pq && HBLayout2DOf(V, Nq).W <= HBLayout2DOf(V, Nq).Pr && HBLayout2DOf(V, Nq).W <= HBLayout2DOf(V, Nq).Ps,
                "v3/v4 kernel: the threads of a row must fit in every pitch (their pad columns)");
  if (!allowed) {
    PetscCallCUDA(cudaFuncSetAttribute(HBLocalOp2Dv3<Nq, L, V, E>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
    allowed = true;
  }
  HBLocalOp2Dv3<Nq, L, V, E><<<(unsigned int)((e1 - e0 + E - 1) / E), dim3(HBLayout2DOf(V, Nq).W, Nq, E), shm, stream>>>(e0, e1, a);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* E elements per block: 1, or at the orders of HBMultiElement2D 2, 3, 4, 6 */
template <int Nq, int L, SquallHBKernelVariant V> static PetscErrorCode HBLaunch2Dv3(PetscInt e0, PetscInt e1, const HBOpArgs &a, PetscInt E, cudaStream_t stream)
{
  PetscFunctionBegin;
  if constexpr (HBMultiElement2D(Nq)) {
    switch (E) {
      case 2: PetscCall((HBLaunch2Dv3E<Nq, L, V, 2>(e0, e1, a, stream))); PetscFunctionReturn(PETSC_SUCCESS);
      case 3: PetscCall((HBLaunch2Dv3E<Nq, L, V, 3>(e0, e1, a, stream))); PetscFunctionReturn(PETSC_SUCCESS);
      case 4: PetscCall((HBLaunch2Dv3E<Nq, L, V, 4>(e0, e1, a, stream))); PetscFunctionReturn(PETSC_SUCCESS);
      case 6: PetscCall((HBLaunch2Dv3E<Nq, L, V, 6>(e0, e1, a, stream))); PetscFunctionReturn(PETSC_SUCCESS);
      default: break;
    }
  }
  PetscCheck(E == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hb_2d_elements %" PetscInt_FMT " is not available at N = %d: valid values are 1, and 2, 3, 4, 6 at N = 5", E, Nq - 1);
  PetscCall((HBLaunch2Dv3E<Nq, L, V, 1>(e0, e1, a, stream)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* calls launch(std::integral_constant<int, L>()) for the run-time layers per step L = 2, 3, 4: the one place that
   turns -hb_v3_layers into a template argument, for the v3/v4 and the v5 kernels */
template <typename F> static PetscErrorCode HBWithLayers(PetscInt L, F launch)
{
  PetscFunctionBegin;
  switch (L) {
    case 2: PetscCall(launch(std::integral_constant<int, 2>())); break;
    case 3: PetscCall(launch(std::integral_constant<int, 3>())); break;
    case 4: PetscCall(launch(std::integral_constant<int, 4>())); break;
    default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hb_v3_layers %" PetscInt_FMT " is out of range: valid values are 2, 3, 4", L);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v3 or v4 (V; v4 at even Nq runs v3's instantiation, the same layout) with L layers per step */
template <int Nq, SquallHBKernelVariant V> static PetscErrorCode HBLaunch2DLayers(PetscInt L, PetscInt E, PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  constexpr SquallHBKernelVariant K = HBLayout2DIsV3(V, Nq) ? SQUALL_HB_KERNEL_V3 : V;

  PetscFunctionBegin;
  PetscCall(HBWithLayers(L, [&](auto l) { return HBLaunch2Dv3<Nq, decltype(l)::value, K>(e0, e1, a, E, stream); }));
  PetscFunctionReturn(PETSC_SUCCESS);
}
