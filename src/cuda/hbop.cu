/* CUDA operator of the hipBone CG: y = Z^T (S_L + lambda W) Z x on device vectors.

   1. one fused kernel per element range reads x_G indirectly through Z (gidx), differentiates,
      applies the six packed geometric factors and lambda W, differentiates back and writes y_L:
      - 3D thread blocks (one thread per node, several small elements per block) below the order
        -hb_kernel_switch (by default 3: the 2D kernels below are faster from N = 3 on), the whole
        element in shared memory (or v6's multi-element sweep, below);
      - from it on, 2D blocks of Nq x Nq threads sweeping the element layer by layer;
      in generations (-hb_kernel_variant): v1, whose 2D kernel holds the thread's column of q
      and of the result in registers (shared memory Nq^2), v2, whose 3D kernel issues all its
      global loads before the first barrier and whose 2D kernel keeps q in shared memory (Nq^3) and
      only the result column in registers, v3, v2's 3D kernel and a 2D kernel that
      computes two (-hb_v3_layers: 3, 4) layers per step to cut the shared-memory traffic per node,
      v4, v3 with the 2D block shape and shared-memory row pitches chosen per order against the
      bank conflicts of odd Nq, v5, v3's 2D sweep with two nodes per thread (register tiling:
      each shared load of a column x[m][i] serves both), and v6, which below the switch runs a
      layer sweep of several elements per block (HBLocalOpLowV6) and from it on v4's 2D kernel.
      Why v6: the 3D kernel, which reaches only 66-78% of the streaming roofline at N = 3..7, reads
      every operand of all three contractions from shared memory (10-12 Nq loads per node, about as
      many shared-memory cycles as the node's ~4.5 clocks of HBM time from Nq = 7 on), while the 2D
      kernels, which keep the t-direction in registers, run one element per block and leave most
      lanes of a warp idle at Nq^2 = 4..81 threads. v6 packs about 256 threads of several elements
      into a block, each thread sweeping one column of its element with q, the result and the
      D[i][m], D[m][i] of its column in registers: 6 Nq shared loads per node (4 Nq instructions at
      even Nq), one barrier per layer, and every global load of the column requested before the sweep.
      Measured (runO1-runO3): v6 beats the 3D kernel at every order, but v4's 2D kernel, idle lanes and
      all, is the fastest from N = 3 on in double (v6 at N <= 2 by default; single: N = 1-3, 5);
   2. Z^T: a CSR row sum over the element copies of each node.
   MPI: the ghost values of x travel (PetscSF, device buffers; PETSc stages through the host when
   MPI is not CUDA-aware) while the interior elements are computed; then the halo elements; the
   ghost rows of y are summed first and sent while the owned rows are summed. */
#include "cuda/hbutil.h"
#include "physics/sem.h"
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

/* D in shared memory with rows padded to Nq + 1, so that threads reading different rows D[i][.] hit
   different banks */
template <int Nq, int NE> __global__ static void __launch_bounds__(Nq *Nq *Nq *NE) HBLocalOp3D(PetscInt e0, PetscInt e1, HBOpArgs a)
{
  constexpr int        Np = Nq * Nq * Nq;
  __shared__ PetscReal sD[Nq * (Nq + 1)];
  __shared__ PetscReal sq[NE][Np], sr[NE][Np], ss[NE][Np], st[NE][Np];
  const int            t = threadIdx.x, le = threadIdx.y, i = t % Nq, j = (t / Nq) % Nq, k = t / (Nq * Nq);
  const PetscInt       e      = e0 + (PetscInt)blockIdx.x * NE + le;
  const bool           active = e < e1;
  const size_t         p      = (size_t)e * Np + t;
  PetscReal            q      = 0;

  for (int c = t + le * Np; c < Nq * Nq; c += Np * NE) sD[(c / Nq) * (Nq + 1) + c % Nq] = a.D[c];
  if (active) q = HBReadX(a, a.gidx[p]);
  sq[le][t] = q;
  __syncthreads();
  if (active) {
    PetscReal qr, qs, qt, g[SQUALL_SEM_NGEO];

    SquallSEMGradient(Nq, Nq + 1, sD, sq[le], i, j, k, &qr, &qs, &qt);
    HBLoadGeo(a.G + (size_t)SQUALL_SEM_NGEO * p, g);
    SquallSEMGeoApply(g, qr, qs, qt, &sr[le][t], &ss[le][t], &st[le][t]);
  }
  __syncthreads();
  if (active) a.yL[p] = a.lambda * a.W[p] * q + SquallSEMDivergence(Nq, Nq + 1, sD, sr[le], ss[le], st[le], i, j, k);
}

/* blocks per SM to ask nvcc for, so that a block of T threads gets at most about R registers per
   thread (H100/H200: 65536 registers per SM, allocated per warp) */
__host__ __device__ constexpr int HBMinBlocks(int T, int R)
{
  return 65536 / (((T + 31) / 32) * 32 * R) < 1 ? 1 : 65536 / (((T + 31) / 32) * 32 * R);
}

/* v2 of the 3D kernel. v1 waits three times on global memory per element (gidx then x, G after
   the gradient, W after the divergence: no load moves across a barrier); here the index, x, the six
   factors and W are all requested before the first barrier. From Nq = 6 on a warp spans at most two
   layers k, so the t-direction reads D from the constant cache (one or two addresses per warp)
   rather than from shared memory, the bottleneck of this kernel. The loads in flight need registers
   (v1: 32); asking for HB3D_REGS at most keeps 3 blocks of 512 threads per SM (48 of 64 warps). */
#define HB3D_REGS 40
template <int Nq, int NE> __global__ static void __launch_bounds__(Nq *Nq *Nq *NE, HBMinBlocks(Nq *Nq *Nq *NE, HB3D_REGS)) HBLocalOp3Dv2(PetscInt e0, PetscInt e1, HBOpArgs a)
{
  constexpr int        Np = Nq * Nq * Nq, ldd = Nq + 1;
  constexpr bool       constk = Nq >= 6;
  __shared__ PetscReal sD[Nq * ldd];
  __shared__ PetscReal sq[NE][Np], sr[NE][Np], ss[NE][Np], st[NE][Np];
  const PetscReal     *cD = HBConstD + HBConstOffset(Nq);
  const int            t = threadIdx.x, le = threadIdx.y, i = t % Nq, j = (t / Nq) % Nq, k = t / (Nq * Nq);
  const PetscInt       e      = e0 + (PetscInt)blockIdx.x * NE + le;
  const bool           active = e < e1;
  const size_t         p      = (size_t)e * Np + t;
  PetscReal            q = 0, wq = 0, g[SQUALL_SEM_NGEO] = {0, 0, 0, 0, 0, 0};

  if (active) {
    q = HBReadXLdg(a, __ldg(a.gidx + p));
    HBLoadGeo(a.G + (size_t)SQUALL_SEM_NGEO * p, g);
    wq = a.lambda * __ldg(a.W + p);
  }
  for (int c = t + le * Np; c < Nq * Nq; c += Np * NE) sD[(c / Nq) * ldd + c % Nq] = a.D[c];
  sq[le][t] = q;
  __syncthreads();
  if (active) {
    const PetscReal *Q  = sq[le];
    PetscReal        qr = 0, qs = 0, qt = 0;

#pragma unroll
    for (int m = 0; m < Nq; m++) {
      qr += sD[i * ldd + m] * Q[m + Nq * (j + Nq * k)];
      qs += sD[j * ldd + m] * Q[i + Nq * (m + Nq * k)];
      qt += (constk ? cD[k * Nq + m] : sD[k * ldd + m]) * Q[i + Nq * (j + Nq * m)];
    }
    SquallSEMGeoApply(g, qr, qs, qt, &sr[le][t], &ss[le][t], &st[le][t]);
  }
  __syncthreads();
  if (active) {
    PetscReal y = wq * q;

#pragma unroll
    for (int m = 0; m < Nq; m++) y += sD[m * ldd + i] * sr[le][m + Nq * (j + Nq * k)] + sD[m * ldd + j] * ss[le][i + Nq * (m + Nq * k)] + (constk ? cD[m * Nq + k] : sD[m * ldd + k]) * st[le][i + Nq * (j + Nq * m)];
    a.yL[p] = y;
  }
}

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
   the shared-memory bank conflicts that make odd Nq 10-15 points slower (runL1, L = 2-4: Nq = 11, 13,
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
   Against the 21 runL1 measurements (clocks per node and SM from the roofline fraction: ~76 bytes per
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
__host__ __device__ constexpr size_t HBShared2D(SquallHBKernelVariant v, int Nq, int L)
{
  return (size_t)(2 * HBEven(Nq * HBLayout2DOf(v, Nq).Pd) + HBEven(Nq * Nq * HBLayout2DOf(v, Nq).Pq) + HBEven(2 * L * Nq * HBLayout2DOf(v, Nq).Pr) + HBEven(2 * L * Nq * HBLayout2DOf(v, Nq).Ps)) * sizeof(PetscReal);
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
   at most 48 below (double; the table is in the commit that added L). At Nq = 15, 16 and L = 3 this
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
template <int Nq, int L, SquallHBKernelVariant V> __global__ static void __launch_bounds__(HBLayout2DOf(V, Nq).W *Nq, HBMinBlocks(HBLayout2DOf(V, Nq).W *Nq, HBRegsV3(Nq, L))) HBLocalOp2Dv3(PetscInt e0, HBOpArgs a)
{
  constexpr HBLayout2D lay = HBLayout2DOf(V, Nq);
  constexpr int        Np = Nq * Nq * Nq, Nq2 = Nq * Nq, W = lay.W, PD = lay.Pd, PQ = lay.Pq, PR = lay.Pr, PS = lay.Ps;
  constexpr int        LD = Nq * PD, LQ = Nq * PQ, LR = Nq * PR, LS = Nq * PS; /* one matrix (layer) of each array */
  constexpr bool       ahead = HBAheadV3(Nq, L), paird = PD % 2 == 0, pairq = PQ % 2 == 0, pairr = PR % 2 == 0;
  extern __shared__ __align__(16) unsigned char hbsmem[];
  PetscReal                                    *sD  = reinterpret_cast<PetscReal *>(hbsmem); /* D[a][b] at a PD + b */
  PetscReal                                    *sDT = sD + HBEven(LD);                       /* D[b][a] at a PD + b */
  PetscReal                                    *sq  = sDT + HBEven(LD);                      /* q[k][j][i] at k LQ + j PQ + i */
  PetscReal                                    *sr  = sq + HBEven(Nq * LQ);                  /* [2 buffers][L layers][j][i], pitch PR */
  PetscReal                                    *ss  = sr + HBEven(2 * L * LR);               /* the same, pitch PS */
  const PetscReal                              *cD  = HBConstD + HBConstOffset(Nq);          /* D[k][m]: the same k and m in every thread */
  const int                                     i = threadIdx.x, j = threadIdx.y, ijq = j * PQ + i, ijr = j * PR + i, ijs = j * PS + i;
  const bool                                    active = W == Nq || i < Nq; /* threads i >= Nq own no node */
  const size_t                                  base   = (size_t)(e0 + (PetscInt)blockIdx.x) * Np + (active ? i : Nq - 1) + Nq * j;
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
  {
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
  if (active) {
#pragma unroll
    for (int k = 0; k < Nq; k++) a.yL[base + Nq2 * k] = ra[k];
  }
}

/* the v3/v4 kernel's launch: its dynamic shared memory goes above 48 KB from Nq = 15 on (L = 2; from
   Nq = 14 on for L = 4), which each instantiation must be allowed once */
template <int Nq, int L, SquallHBKernelVariant V> static PetscErrorCode HBLaunch2Dv3(PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  static bool  allowed = false;
  const size_t shm     = HBShared2D(V, Nq, L);

  PetscFunctionBegin;
  static_assert(HBShared2D(V, Nq, L) <= 227 * 1024, "v3/v4 kernel: shared memory above the 227 KB per block of sm_90");
  static_assert(HBLayout2DOf(V, Nq).W >= Nq && HBLayout2DOf(V, Nq).W <= HBLayout2DOf(V, Nq).Pd && HBLayout2DOf(V, Nq).W <= HBLayout2DOf(V, Nq).Pq && HBLayout2DOf(V, Nq).W <= HBLayout2DOf(V, Nq).Pr && HBLayout2DOf(V, Nq).W <= HBLayout2DOf(V, Nq).Ps,
                "v3/v4 kernel: the threads of a row must fit in every pitch (their pad columns)");
  if (!allowed) {
    PetscCallCUDA(cudaFuncSetAttribute(HBLocalOp2Dv3<Nq, L, V>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
    allowed = true;
  }
  HBLocalOp2Dv3<Nq, L, V><<<(unsigned int)(e1 - e0), dim3(HBLayout2DOf(V, Nq).W, Nq), shm, stream>>>(e0, a);
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
template <int Nq, SquallHBKernelVariant V> static PetscErrorCode HBLaunch2DLayers(PetscInt L, PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  constexpr SquallHBKernelVariant K = HBLayout2DIsV3(V, Nq) ? SQUALL_HB_KERNEL_V3 : V;

  PetscFunctionBegin;
  PetscCall(HBWithLayers(L, [&](auto l) { return HBLaunch2Dv3<Nq, decltype(l)::value, K>(e0, e1, a, stream); }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v5: v3's sweep with two nodes per thread, (i, j) and (i, j + J), J = ceil(Nq / 2): a block of
   W x J threads (W = Nq rounded up to even; at odd Nq the last column and the last row of nodes are
   pads: their threads read their neighbour's node from global memory, fill the pad entries of the
   shared arrays, and write no y_L), so that every load of column shape x[m][i] (D^T[m][i], q[k][m][i],
   D[m][i], s[l][m][i]) serves both nodes of the thread (register tiling in j).
   Cost model (v4's: cycles per warp, LDS.64 per half-warp and at least 2, LDS.128 of row pairs 2 for
   two m; here for a warp of 32 threads = 64 nodes per layer). Per m and step of L layers:
     shared by the layers: D^T[m][i] 2, D[ja|jb][m..] 2 x 1, q[m][ja|jb][i] 2 x 2, D[m][i] 2,
                           D^T[ja|jb][m..] 2 x 1                                      = 12
     per layer:            q[k][ja|jb][m..] 2 x 1, q[k][m][i] 2, r[l][ja|jb][m..] 2 x 1,
                           s[l][m][i] 2                                               =  8
   (12 + 8 L) Nq / (64 L) cycles per node against v3/v4's (8 + 6 L) Nq / (32 L): 3.5 / 3.0 / 2.75 at
   Nq = 16 and L = 2 / 3 / 4 against 5.0 / 4.33 / 4.0 (30% fewer). Row-shape loads and the t-direction
   node loads are per node (not shared); only the column shape gains. With the stores, the bank
   conflicts and the partial warps (v4's model, here counted per half-warp phase for every warp of the
   element; layout HBWidthV5, HBPitchV5: P = W, or W + 2 where W is a multiple of 16), cycles per node
   for L = 2 / 3 / 4:
     Nq        10              11              12              13              14              15              16
     v4   4.32 4.00 3.68  5.21 4.55 4.22  4.44 3.89 3.61  5.15 4.57 4.28  5.29 4.71 4.43  5.87 5.00 4.71  5.25 4.75 4.25
     v5   3.12 2.88 2.64  4.52 3.90 3.60  3.83 3.33 3.08  4.97 4.39 4.10  4.33 3.84 3.59  4.23 3.58 3.36  3.75 3.38 3.00
   Nq = 13, 14 gain least: 98 threads take 4 warps, the last with 2 lanes (each of its loads still costs
   2 cycles). v4's fit (t = 0.84 c + 2.9 clocks per node against 4.5 of HBM time) gives, L = 2 / 3 / 4,
   v5 74 / 78 / 83% of the roofline at Nq = 16, 69 / 76 / 78% at 15, 81-88% at 10, 63-76% at 11-14
   (v4: 61 / 65 / 69, 57 / 63 / 65, 69-75, 61-76%), if the fewer warps per SM (below) hide the
   latencies as well; 90% at Nq = 16 needs c near 2.
   Registers: two result columns ra[2][Nq] and, per layer, 2 x (qr, qs, qt, g[6], w): 2 Nq + 20 L
   reals (72 at Nq = 16, L = 2). Left alone nvcc takes 200-255 registers (double). The shared memory,
   (2 + Nq + 4 L) W P reals, allows 3 blocks of 4 warps at Nq = 16 for L = 2, 3 and 2 for L = 4.
   ptxas -v (sm_90, nvcc 13.0) at the caps of HBRegsV5, registers / spill bytes, L = 2 / 3 / 4:
     double  (168 / 255 / 255)  Nq = 10, 11, 12, 13: 164-168 / 236-254 / 252-254, no spill; 14: 168 (24) /
             254 / 254; 15: 168 (16) / 255 (4) / 255 (16); 16: 168 (48) / 255 (16) / 255 (244)
     single  (128 / 168 / 168)  Nq = 10, 13, 15, 16: 120-121 / 134-160 / 152-163, no spill
   Blocks per SM in double: L = 2 (168 registers): Nq = 10: 6 (12 warps), 11, 12: 4 (12), 13-16: 3 (12);
   L = 3, 4 (255): Nq = 10: 4 (8 warps), 11-16: 2 (6-8 warps): two columns per thread (ILP), not
   warps, must hide the latencies.
   The G and W of a step are requested at its start (v3's L > 2 choice), fewer live values. The
   arithmetic of each node is v3's, operation for operation. */
/* v5's block: W = Nq rounded up to even threads per row, J = ceil(Nq / 2) rows, W rows of nodes
   (ja = j, jb = j + J; W = 2 J), pitch P of every shared array */
__host__ __device__ constexpr int HBWidthV5(int Nq)
{
  return Nq + (Nq & 1);
}
__host__ __device__ constexpr int HBPitchV5(int Nq)
{
  return HBWidthV5(Nq) % 16 == 0 ? HBWidthV5(Nq) + 2 : HBWidthV5(Nq);
}
__host__ __device__ constexpr size_t HBShared2Dv5(int Nq, int L)
{
  return (size_t)(2 * HBWidthV5(Nq) * HBPitchV5(Nq) + (Nq + 4 * L) * HBWidthV5(Nq) * HBPitchV5(Nq)) * sizeof(PetscReal);
}
/* registers per thread to ask for (see HBMinBlocks): left alone nvcc takes 200-255 (it hoists shared
   loads); L = 2 at 168 spills at most 48 bytes (3 blocks of 4 warps at Nq = 16, all that the shared
   memory allows), L = 3, 4 need about 255 (at 168: 2.4 KB of spill at Nq = 16, L = 3) */
__host__ __device__ constexpr int HBRegsV5(int Nq, int L)
{
#if defined(PETSC_USE_REAL_SINGLE)
  return L == 2 ? 128 : 168;
#else
  return L == 2 ? 168 : 255;
#endif
}

template <int Nq, int L> __global__ static void __launch_bounds__(HBWidthV5(Nq) * ((Nq + 1) / 2), HBMinBlocks(HBWidthV5(Nq) * ((Nq + 1) / 2), HBRegsV5(Nq, L))) HBLocalOp2Dv5(PetscInt e0, HBOpArgs a)
{
  constexpr int     Np = Nq * Nq * Nq, Nq2 = Nq * Nq, W = HBWidthV5(Nq), J = (Nq + 1) / 2, P = HBPitchV5(Nq);
  constexpr int     LM   = W * P; /* one matrix (layer) of each array: W rows of pitch P */
  constexpr bool    pair = P % 2 == 0;
  extern __shared__ __align__(16) unsigned char hbsmem[];
  PetscReal                                    *sD  = reinterpret_cast<PetscReal *>(hbsmem); /* D[a][b] at a P + b */
  PetscReal                                    *sDT = sD + LM;                               /* D[b][a] at a P + b */
  PetscReal                                    *sq  = sDT + LM;                              /* q[k][j][i] at k LM + j P + i */
  PetscReal                                    *sr  = sq + Nq * LM;                          /* [2 buffers][L layers][j][i] */
  PetscReal                                    *ss  = sr + 2 * L * LM;                       /* the same */
  const PetscReal                              *cD  = HBConstD + HBConstOffset(Nq);          /* D[k][m]: the same k and m in every thread */
  const int                                     i = threadIdx.x, j = threadIdx.y, ig = i < Nq ? i : Nq - 1;
  const int                                     jr[2]   = {j, j + J};                               /* the thread's rows of nodes */
  const int                                     ij[2]   = {j * P + i, (j + J) * P + i};             /* their offsets in a matrix */
  const bool                                    own[2]  = {i < Nq, i < Nq && j + J < Nq};           /* pads own no node */
  const size_t                                  e       = (size_t)(e0 + (PetscInt)blockIdx.x) * Np; /* pads read their neighbour */
  const size_t                                  base[2] = {e + ig + Nq * j, e + ig + Nq * (j + J < Nq ? j + J : Nq - 1)};
  PetscReal                                     ra[2][Nq], g[L][2][SQUALL_SEM_NGEO], w[L][2];

  {
    PetscInt l[2][Nq];

#pragma unroll
    for (int h = 0; h < 2; h++) {
#pragma unroll
      for (int k = 0; k < Nq; k++) l[h][k] = __ldg(a.gidx + base[h] + Nq2 * k);
    }
#pragma unroll
    for (int h = 0; h < 2; h++) {
#pragma unroll
      for (int k = 0; k < Nq; k++) sq[k * LM + ij[h]] = HBReadXLdg(a, l[h][k]);
    }
  }
  /* D and D^T, pads included (finite values in every entry a thread reads) */
  for (int c = i + W * j; c < LM; c += W * J) {
    const int r = c / P < Nq ? c / P : Nq - 1, s = c % P < Nq ? c % P : Nq - 1;

    sD[c]  = __ldg(a.D + r * Nq + s);
    sDT[c] = __ldg(a.D + s * Nq + r);
  }
#pragma unroll
  for (int h = 0; h < 2; h++) {
#pragma unroll
    for (int k = 0; k < Nq; k++) ra[h][k] = 0;
  }
  __syncthreads();
#pragma unroll
  for (int k0 = 0; k0 < Nq; k0 += L) {
    const int  nl = Nq - k0 < L ? Nq - k0 : L; /* layers in this step: L, or the rest */
    PetscReal *r = sr + ((k0 / L) & 1) * L * LM, *s = ss + ((k0 / L) & 1) * L * LM;
    PetscReal  qr[L][2], qs[L][2], qt[L][2];

    /* this step's factors, to arrive during its gradient */
#pragma unroll
    for (int l = 0; l < L; l++) {
      if (l < nl) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
          HBLoadGeo(a.G + (size_t)SQUALL_SEM_NGEO * (base[h] + Nq2 * (k0 + l)), g[l][h]);
          w[l][h] = __ldg(a.W + base[h] + Nq2 * (k0 + l));
        }
      }
    }
#pragma unroll
    for (int l = 0; l < L; l++) {
#pragma unroll
      for (int h = 0; h < 2; h++) qr[l][h] = qs[l][h] = qt[l][h] = 0;
    }
#pragma unroll
    for (int m = 0; m < Nq; m += 2) {
      if (m + 1 < Nq) {
        PetscReal       dj0[2], dj1[2], c0[2], c1[2];
        const PetscReal di0 = sDT[m * P + i], di1 = sDT[(m + 1) * P + i]; /* D[i][m], D[i][m+1]: both nodes */

#pragma unroll
        for (int h = 0; h < 2; h++) {
          c0[h] = sq[m * LM + ij[h]]; /* q[m][j][i], q[m+1][j][i] */
          c1[h] = sq[(m + 1) * LM + ij[h]];
          HBLdsPair<pair>(sD + jr[h] * P + m, dj0[h], dj1[h]); /* D[j][m], D[j][m+1] */
        }
#pragma unroll
        for (int l = 0; l < L; l++) {
          if (l < nl) {
            const PetscReal *Q   = sq + (k0 + l) * LM;
            const PetscReal  qm0 = Q[m * P + i], qm1 = Q[(m + 1) * P + i]; /* q[k][m][i], q[k][m+1][i]: both nodes */

#pragma unroll
            for (int h = 0; h < 2; h++) {
              PetscReal q0, q1;

              HBLdsPair<pair>(Q + jr[h] * P + m, q0, q1); /* q[k][j][m], q[k][j][m+1] */
              qr[l][h] += di0 * q0 + di1 * q1;
              qs[l][h] += dj0[h] * qm0 + dj1[h] * qm1;
              qt[l][h] += cD[(k0 + l) * Nq + m] * c0[h] + cD[(k0 + l) * Nq + m + 1] * c1[h];
            }
          }
        }
      } else {
        const PetscReal di = sDT[m * P + i];

#pragma unroll
        for (int h = 0; h < 2; h++) {
          const PetscReal dj = sD[jr[h] * P + m], c = sq[m * LM + ij[h]];

#pragma unroll
          for (int l = 0; l < L; l++) {
            if (l < nl) {
              const PetscReal *Q = sq + (k0 + l) * LM;

              qr[l][h] += di * Q[jr[h] * P + m];
              qs[l][h] += dj * Q[m * P + i];
              qt[l][h] += cD[(k0 + l) * Nq + m] * c;
            }
          }
        }
      }
    }
#pragma unroll
    for (int l = 0; l < L; l++) {
      if (l < nl) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
          PetscReal gr, gs, gt;

          SquallSEMGeoApply(g[l][h], qr[l][h], qs[l][h], qt[l][h], &gr, &gs, &gt);
          ra[h][k0 + l] += a.lambda * w[l][h] * sq[(k0 + l) * LM + ij[h]];
          r[l * LM + ij[h]] = gr;
          s[l * LM + ij[h]] = gs;
          /* the t-derivative's transpose stays in the thread: layer k feeds every layer m of its column */
#pragma unroll
          for (int m = 0; m < Nq; m++) ra[h][m] += cD[(k0 + l) * Nq + m] * gt;
        }
      }
    }
    /* the previous step read the other copy of r, s; every thread passed that read before this barrier */
    __syncthreads();
#pragma unroll
    for (int m = 0; m < Nq; m += 2) {
      if (m + 1 < Nq) {
        PetscReal       dj0[2], dj1[2];
        const PetscReal di0 = sD[m * P + i], di1 = sD[(m + 1) * P + i]; /* D[m][i], D[m+1][i]: both nodes */

#pragma unroll
        for (int h = 0; h < 2; h++) HBLdsPair<pair>(sDT + jr[h] * P + m, dj0[h], dj1[h]); /* D[m][j], D[m+1][j] */
#pragma unroll
        for (int l = 0; l < L; l++) {
          if (l < nl) {
            const PetscReal *S   = s + l * LM;
            const PetscReal  sm0 = S[m * P + i], sm1 = S[(m + 1) * P + i]; /* s[m][i], s[m+1][i]: both nodes */

#pragma unroll
            for (int h = 0; h < 2; h++) {
              PetscReal r0, r1;

              HBLdsPair<pair>(r + l * LM + jr[h] * P + m, r0, r1); /* r[j][m], r[j][m+1] */
              ra[h][k0 + l] += di0 * r0 + di1 * r1 + dj0[h] * sm0 + dj1[h] * sm1;
            }
          }
        }
      } else {
        const PetscReal di = sD[m * P + i];

#pragma unroll
        for (int h = 0; h < 2; h++) {
          const PetscReal dj = sDT[jr[h] * P + m];

#pragma unroll
          for (int l = 0; l < L; l++) {
            if (l < nl) ra[h][k0 + l] += di * r[l * LM + jr[h] * P + m] + dj * s[l * LM + m * P + i];
          }
        }
      }
    }
  }
#pragma unroll
  for (int h = 0; h < 2; h++) {
    if (own[h]) {
#pragma unroll
      for (int k = 0; k < Nq; k++) a.yL[base[h] + Nq2 * k] = ra[h][k];
    }
  }
}

/* v5's launch; its dynamic shared memory goes above 48 KB from Nq = 15 on (L = 2) */
template <int Nq, int L> static PetscErrorCode HBLaunch2Dv5(PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  static bool  allowed = false;
  const size_t shm     = HBShared2Dv5(Nq, L);

  PetscFunctionBegin;
  static_assert(HBShared2Dv5(Nq, L) <= 227 * 1024, "v5 kernel: shared memory above the 227 KB per block of sm_90");
  static_assert(HBPitchV5(Nq) >= HBWidthV5(Nq) && HBPitchV5(Nq) % 2 == 0 && HBWidthV5(Nq) == 2 * ((Nq + 1) / 2), "v5 kernel: W rows of even pitch P >= W");
  if (!allowed) {
    PetscCallCUDA(cudaFuncSetAttribute(HBLocalOp2Dv5<Nq, L>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
    allowed = true;
  }
  HBLocalOp2Dv5<Nq, L><<<(unsigned int)(e1 - e0), dim3(HBWidthV5(Nq), (Nq + 1) / 2), shm, stream>>>(e0, a);
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int Nq> static PetscErrorCode HBLaunch2Dv5Layers(PetscInt L, PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(HBWithLayers(L, [&](auto l) { return HBLaunch2Dv5<Nq, decltype(l)::value>(e0, e1, a, stream); }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v6: the low-order regime (below -hb_kernel_switch) as a layer sweep with several elements per block.
   v2's 3D kernel (one thread per node) reads every operand of the three contractions from shared
   memory: per node and m, D and q for each direction, then D and r, s, t, 10 loads from Nq = 6 on (the
   t-direction's D from the constant cache) and 12 below; v1's 2D kernel (HBLocalOp2DBody) keeps the
   t-direction in registers but runs one element per block of Nq^2 threads, 4 to 81 at Nq <= 9: mostly
   idle lanes, with at most 32 blocks per SM.
   Here a block of HBElemsV6 elements of Nq^2 threads (about 256 threads) sweeps its elements layer by
   layer. A thread owns the column (i, j) of its element and holds in registers the column's q, its
   results and the column-shaped D operands D[i][m], D[m][i] (4 Nq reals), so that the t-derivative and
   its transpose use no shared memory (D from the constant cache: every lane wants the same D[k][m]),
   and per node and m it loads q[j][m], D[j][m], q[m][i] for the gradient and r[j][m], D[m][j], s[m][i]
   for the divergence: 6 loads, of which the four row-shaped ones read m, m+1 as one 16-byte vector at
   even Nq (rows start at even words and lanes: v3's packed uniform loads), 4 Nq LDS instructions per
   node. In v4's model of shared-memory cycles (a warp's LDS.64 2, packed LDS.128 2 per two m; bank pairs
   serialise per half-warp) that is Nq / 4 cycles per node at even Nq and 3 Nq / 8 at odd Nq, plus about
   0.3 for the stores and the D columns, against 5 Nq / 8 (3 Nq / 4 below Nq = 6) plus 0.25 for the 3D
   kernel: at Nq = 4, 6, 8 (N = 3, 5, 7) 1.3, 1.8, 2.3 cycles against 3.3, 4.0, 5.3, where a node's HBM
   time is about 4.5 clocks. The slices are unpadded within an element (a node's address is its
   thread's index: node-shaped and row-shaped accesses are conflict-free in the model), but
   where a half-warp spans two elements, Nq = 3, 6, 7, 9, 10, their column-shaped loads x[m][i] would meet
   in bank pairs (3.25, 2.6, 2.5, 2.25, 2.1 cycles per warp instead of 2 in the model): the elements'
   slices start HBPitchV6 reals apart, which moves the conflicts to the node-shaped stores, 3 per layer
   against 2 Nq column loads (3.6-11% fewer cycles per layer in the model).
   The q, r and s slices alternate between two copies and the next layer's q is stored with this layer's
   r and s, so that one barrier per layer suffices (v1's 2D: two). Every global load of the column is
   written before the first barrier (index, W, the six factors of all layers, then x); ptxas keeps in
   flight what HBRegsV6 allows and moves the later layers' factors into the sweep. lambda W q starts
   each result. A block's elements past e1 read the last element (no predicated loads), write nothing.
   ptxas -v (sm_90, nvcc 13.0), registers and spill bytes, Nq = 2..10: double (cap 128, 2 blocks of up
   to 8 warps per SM) 72, 112, then 128; 8 bytes of spill at Nq = 8, 9 and 16 at 10 (a 64-bit address
   term stored once and reloaded; v2's 3D kernel spills 4-28 at its cap), none at Nq <= 7; 12-16 KB of
   static shared memory. Single (cap 80, 3 blocks) 40, 64, then 80; 8 bytes of spill at Nq = 8, 4 at 10;
   6-8 KB. Left alone nvcc takes 168-255 registers from Nq = 4 on (double: one block per SM) for the
   factors of every layer in flight, and still spills at Nq = 6, 9, 10.
   Measured (runO3, runO2, bench/results/gpu-h200-2026-12-01-session7.json, % of the streaming roofline at
   N = 1..8): double 99, 89, 91, 78, 84, 74, 80, 66 (v2's 3D kernel 93, 78, 75, 59, 66, 48, 68, 46; v4's 2D
   kernel from N = 3: 94, 95, 85, 91, 96, 78); single 100, 89, 88, 87, 85, 81, 84, 70. The default runs v6 at
   N <= 2 (single: 1-3, 5). */
/* elements per block: 128 to 256 threads (two blocks of 128 registers per thread fit on an SM) with the
   fewest idle lanes in the last warp, of equals the largest (Nq = 2..10: 64, 28, 16, 10, 7, 5, 4, 3, 2
   elements, 256, 252, 256, 250, 252, 245, 256, 243, 200 threads) */
__host__ __device__ constexpr int HBElemsV6(int Nq)
{
  const int lo = (128 + Nq * Nq - 1) / (Nq * Nq), hi = 256 / (Nq * Nq) < 1 ? 1 : 256 / (Nq * Nq);
  int       best = hi;

  for (int ne = hi - 1; ne >= lo; ne--) {
    const int t = ne * Nq * Nq, lanes = (t + 31) / 32 * 32, tb = best * Nq * Nq, lanesb = (tb + 31) / 32 * 32;

    if ((lanes - t) * lanesb < (lanesb - tb) * lanes) best = ne; /* a smaller fraction of idle lanes */
  }
  return best;
}
__host__ __device__ constexpr int HBThreadsV6(int Nq)
{
  return HBElemsV6(Nq) * Nq * Nq;
}
/* reals from one element's slice to the next: Nq^2, or padded where a half-warp that spans two elements
   would otherwise see its column-shaped loads of both in one bank pair (see above) */
__host__ __device__ constexpr int HBPitchV6(int Nq)
{
  return Nq == 3 ? 12 : (Nq == 6 ? 38 : (Nq == 7 ? 55 : (Nq == 9 ? 89 : (Nq == 10 ? 108 : Nq * Nq))));
}
/* registers per thread to ask for (see HBMinBlocks): two blocks of up to 8 warps per SM in double, three in
   single (ptxas -v in the comment above); at Nq <= 3, where a column holds 3 nodes, 64 for four blocks (Nq = 3:
   112 registers uncapped at 128, 80 with no spill, 64 with 8 bytes): N = 2 89 -> 93%, N = 1 99 -> 100% of the
   roofline (runO6) */
__host__ __device__ constexpr int HBRegsV6(int Nq)
{
#if defined(PETSC_USE_REAL_SINGLE)
  return 80;
#else
  return Nq <= 3 ? 64 : 128;
#endif
}

template <int Nq> __global__ static void __launch_bounds__(HBThreadsV6(Nq), HBMinBlocks(HBThreadsV6(Nq), HBRegsV6(Nq))) HBLocalOpLowV6(PetscInt e0, PetscInt e1, HBOpArgs a)
{
  constexpr int  Nq2 = Nq * Nq, Np = Nq2 * Nq, NE = HBElemsV6(Nq), P = HBPitchV6(Nq);
  constexpr bool pair = Nq % 2 == 0;                                              /* rows start at even words and lanes: m, m+1 in one vector load */
  __shared__ __align__(16) PetscReal sD[Nq2], sDT[Nq2];                           /* D[a][b], D[b][a] at a Nq + b */
  __shared__ __align__(16) PetscReal sq[2][NE * P], sr[2][NE * P], ss[2][NE * P]; /* [copy][element][j][i], element pitch P */
  const PetscReal                   *cD = HBConstD + HBConstOffset(Nq);           /* D[k][m]: the same k and m in every thread */
  const int                          t = threadIdx.x, le = t / Nq2, n = t - le * Nq2, i = t % Nq, j = (t / Nq) % Nq;
  const int                          node = le * P + n, row = node - i, col = le * P + i; /* the thread's node, row j and column i in the slices */
  const PetscInt                     e      = e0 + (PetscInt)blockIdx.x * NE + le;
  const bool                         active = e < e1;
  const size_t                       base   = (size_t)(active ? e : e1 - 1) * Np + n;
  PetscReal                          rq[Nq], ra[Nq], g[Nq][SQUALL_SEM_NGEO], di[Nq], dti[Nq];

  {
    PetscInt  l[Nq];
    PetscReal w[Nq];

#pragma unroll
    for (int k = 0; k < Nq; k++) l[k] = __ldg(a.gidx + base + Nq2 * k);
#pragma unroll
    for (int k = 0; k < Nq; k++) w[k] = __ldg(a.W + base + Nq2 * k);
#pragma unroll
    for (int k = 0; k < Nq; k++) HBLoadGeo(a.G + (size_t)SQUALL_SEM_NGEO * (base + Nq2 * k), g[k]);
#pragma unroll
    for (int k = 0; k < Nq; k++) rq[k] = HBReadXLdg(a, l[k]);
#pragma unroll
    for (int k = 0; k < Nq; k++) ra[k] = a.lambda * w[k] * rq[k];
  }
  if (t < Nq2) {
    const PetscReal d = __ldg(a.D + t);

    sD[t]                       = d;
    sDT[(t % Nq) * Nq + t / Nq] = d;
  }
  sq[0][node] = rq[0];
  __syncthreads();
  /* the column-shaped D operands are the same in every layer (read as columns: no bank conflicts) */
#pragma unroll
  for (int m = 0; m < Nq; m++) {
    di[m]  = sDT[m * Nq + i]; /* D[i][m] */
    dti[m] = sD[m * Nq + i];  /* D[m][i] */
  }
#pragma unroll
  for (int k = 0; k < Nq; k++) {
    const PetscReal *Q = sq[k & 1], *R = sr[k & 1], *S = ss[k & 1];
    PetscReal        qr = 0, qs = 0, qt = 0, gr, gs, gt;

#pragma unroll
    for (int m = 0; m < Nq; m += 1 + pair) {
      PetscReal q0, q1 = 0, d0, d1 = 0;

      if constexpr (pair) {
        HBLds2(Q + row + m, q0, q1);     /* q[k][j][m], q[k][j][m+1] */
        HBLds2(sD + j * Nq + m, d0, d1); /* D[j][m], D[j][m+1] */
      } else {
        q0 = Q[row + m];
        d0 = sD[j * Nq + m];
      }
#pragma unroll
      for (int h = 0; h <= pair; h++) {
        qr += di[m + h] * (h ? q1 : q0);
        qs += (h ? d1 : d0) * Q[col + (m + h) * Nq];
        qt += cD[k * Nq + m + h] * rq[m + h];
      }
    }
    SquallSEMGeoApply(g[k], qr, qs, qt, &gr, &gs, &gt);
    /* the t-derivative's transpose stays in the thread: layer k feeds every layer m of its column */
#pragma unroll
    for (int m = 0; m < Nq; m++) ra[m] += cD[k * Nq + m] * gt;
    /* layer k - 2 read this copy of r, s and layer k - 1 the copy of q written here: every thread passed
       those reads before the last barrier */
    sr[k & 1][node] = gr;
    ss[k & 1][node] = gs;
    if (k + 1 < Nq) sq[(k + 1) & 1][node] = rq[k + 1];
    __syncthreads();
#pragma unroll
    for (int m = 0; m < Nq; m += 1 + pair) {
      PetscReal r0, r1 = 0, d0, d1 = 0;

      if constexpr (pair) {
        HBLds2(R + row + m, r0, r1);      /* r[j][m], r[j][m+1] */
        HBLds2(sDT + j * Nq + m, d0, d1); /* D[m][j], D[m+1][j] */
      } else {
        r0 = R[row + m];
        d0 = sDT[j * Nq + m];
      }
#pragma unroll
      for (int h = 0; h <= pair; h++) {
        ra[k] += dti[m + h] * (h ? r1 : r0);
        ra[k] += (h ? d1 : d0) * S[col + (m + h) * Nq];
      }
    }
  }
  if (active) {
#pragma unroll
    for (int k = 0; k < Nq; k++) a.yL[base + Nq2 * k] = ra[k];
  }
}

/* v3, v4 and v5 have no 3D kernel of their own: below -hb_kernel_switch they run v2's; v6 runs its
   layer sweep there and v4's 2D kernel from the switch on */
template <int Nq> static PetscErrorCode HBLaunchLocalOpN(SquallHBKernelVariant variant, PetscBool use3d, PetscBool cap, PetscInt v3layers, PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  PetscFunctionBegin;
  if constexpr (Nq <= 10) {
    if (use3d && variant == SQUALL_HB_KERNEL_V6) {
      constexpr int NE = HBElemsV6(Nq);

      HBLocalOpLowV6<Nq><<<(unsigned int)((e1 - e0 + NE - 1) / NE), HBThreadsV6(Nq), 0, stream>>>(e0, e1, a);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (use3d) {
      constexpr int NE = HBElemsPerBlock(Nq);
      const dim3    block(Nq * Nq * Nq, NE);

      if (variant == SQUALL_HB_KERNEL_V1)
        HBLocalOp3D<Nq, NE><<<(unsigned int)((e1 - e0 + NE - 1) / NE), block, 0, stream>>>(e0, e1, a);
      else
        HBLocalOp3Dv2<Nq, NE><<<(unsigned int)((e1 - e0 + NE - 1) / NE), block, 0, stream>>>(e0, e1, a);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (variant == SQUALL_HB_KERNEL_V3) {
    PetscCall(HBLaunch2DLayers<Nq, SQUALL_HB_KERNEL_V3>(v3layers, e0, e1, a, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (variant == SQUALL_HB_KERNEL_V4 || variant == SQUALL_HB_KERNEL_V6) {
    PetscCall(HBLaunch2DLayers<Nq, SQUALL_HB_KERNEL_V4>(v3layers, e0, e1, a, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (variant == SQUALL_HB_KERNEL_V5) {
    PetscCall(HBLaunch2Dv5Layers<Nq>(v3layers, e0, e1, a, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (variant == SQUALL_HB_KERNEL_V2) {
    HBLocalOp2Dv2<Nq><<<(unsigned int)(e1 - e0), dim3(Nq, Nq), 0, stream>>>(e0, a);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if constexpr (Nq >= 14) {
    if (cap) {
      HBLocalOp2DCapped<Nq><<<(unsigned int)(e1 - e0), dim3(Nq, Nq), 0, stream>>>(e0, a);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  HBLocalOp2D<Nq><<<(unsigned int)(e1 - e0), dim3(Nq, Nq), 0, stream>>>(e0, a);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y_L on local elements [e0, e1) */
static PetscErrorCode HBLocalOp(Mat_HB *hb, PetscInt e0, PetscInt e1, const PetscScalar *x, cudaStream_t stream)
{
  SquallHBCUDA    c     = hb->cuda;
  const HBOpArgs  a     = {c->gidx, c->G, c->W, c->D, hb->lambda, hb->nown, x, c->xghost, c->yL};
  const PetscBool use3d = SquallHBUse3D(hb);

  PetscFunctionBegin;
  if (e1 <= e0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(SQUALL_HBLocalOp, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  switch (hb->Nq) {
    case 2: PetscCall(HBLaunchLocalOpN<2>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 3: PetscCall(HBLaunchLocalOpN<3>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 4: PetscCall(HBLaunchLocalOpN<4>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 5: PetscCall(HBLaunchLocalOpN<5>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 6: PetscCall(HBLaunchLocalOpN<6>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 7: PetscCall(HBLaunchLocalOpN<7>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 8: PetscCall(HBLaunchLocalOpN<8>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 9: PetscCall(HBLaunchLocalOpN<9>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 10: PetscCall(HBLaunchLocalOpN<10>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 11: PetscCall(HBLaunchLocalOpN<11>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 12: PetscCall(HBLaunchLocalOpN<12>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 13: PetscCall(HBLaunchLocalOpN<13>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 14: PetscCall(HBLaunchLocalOpN<14>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 15: PetscCall(HBLaunchLocalOpN<15>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    case 16: PetscCall(HBLaunchLocalOpN<16>(hb->kvariant, use3d, hb->capregs, SquallHBV3Layers(hb), e0, e1, a, stream)); break;
    default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No CUDA kernel for order %" PetscInt_FMT " (valid orders are 1 to %d)", hb->N, SQUALL_LGL_MAX_ORDER);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((e1 - e0) * SquallSEMOperatorFlops(hb->Nq)));
  PetscCall(PetscLogEventEnd(SQUALL_HBLocalOp, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y[l - r0] = sum of y_L over the copies of rows l in [r0, r1); with x, the partial sums of
   x[l - r0] y[l - r0] over rows below dotend go to partial[block] */
template <bool DOT>
__global__ static void __launch_bounds__(HB_BLOCK) HBGatherKernel(PetscInt r0, PetscInt r1, PetscInt dotend, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ col, const PetscScalar *__restrict__ yL, PetscScalar *__restrict__ y,
                                                                  const PetscScalar *__restrict__ x, PetscReal *__restrict__ partial)
{
  PetscReal d[1] = {0};

  for (PetscInt l = r0 + (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; l < r1; l += (PetscInt)gridDim.x * HB_BLOCK) {
    const PetscInt c1 = rowptr[l + 1];
    PetscScalar    s  = 0;

    for (PetscInt c = rowptr[l]; c < c1; c++) s += yL[col[c]];
    y[l - r0] = s;
    if (DOT && l < dotend) d[0] += x[l - r0] * s;
  }
  if (DOT) {
    HBBlockSum<1>(d);
    if (threadIdx.x == 0) partial[blockIdx.x] = d[0];
  }
}

/* the shared rows receive the other ranks' sums */
template <bool DOT> __global__ static void __launch_bounds__(HB_BLOCK) HBSharedAddKernel(PetscInt n, const PetscScalar *__restrict__ recv, PetscScalar *__restrict__ y, const PetscScalar *__restrict__ x, PetscReal *__restrict__ partial)
{
  PetscReal d[1] = {0};

  for (PetscInt s = (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; s < n; s += (PetscInt)gridDim.x * HB_BLOCK) {
    const PetscScalar v = y[s] + recv[s];

    y[s] = v;
    if (DOT) d[0] += x[s] * v;
  }
  if (DOT) {
    HBBlockSum<1>(d);
    if (threadIdx.x == 0) partial[blockIdx.x] = d[0];
  }
}

/* x.y from the partial sums of the private rows, then of the shared rows, in a fixed order */
__global__ static void __launch_bounds__(HB_BLOCK) HBDotFinal(int nb1, int nb2, const PetscReal *__restrict__ partial, PetscReal *__restrict__ out)
{
  PetscReal v[1] = {0};

  for (int b = threadIdx.x; b < nb1; b += HB_BLOCK) v[0] += partial[b];
  for (int b = threadIdx.x; b < nb2; b += HB_BLOCK) v[0] += partial[HB_MAX_BLOCKS + b];
  HBBlockSum<1>(v);
  if (threadIdx.x == 0) out[0] = v[0];
}

template <typename T> static PetscErrorCode HBUpload(T **d, const T *h, size_t n)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)d, PetscMax(n, (size_t)1) * sizeof(T)));
  if (h && n) PetscCallCUDA(cudaMemcpy(*d, h, n * sizeof(T), cudaMemcpyHostToDevice));
  if (h) PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(T)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBSetUpCUDA(Mat_HB *hb)
{
  SquallHBCUDA c;
  const size_t nl = (size_t)hb->nelem * hb->Np, nrows = (size_t)(hb->nown + hb->nghost);

  PetscFunctionBegin;
  if (hb->cuda) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscNew(&c));
  PetscCall(HBUpload(&c->gidx, hb->gidx, nl));
  PetscCall(HBUpload(&c->G, hb->G, SQUALL_SEM_NGEO * nl));
  PetscCall(HBUpload(&c->W, hb->W, nl));
  PetscCall(HBUpload(&c->D, hb->D, (size_t)hb->Nq * hb->Nq));
  /* this order's slot of the constant D (operators of the same order write the same values) */
  PetscCallCUDA(cudaMemcpyToSymbol(HBConstD, hb->D, (size_t)hb->Nq * hb->Nq * sizeof(PetscReal), (size_t)HBConstOffset(hb->Nq) * sizeof(PetscReal)));
  PetscCall(HBUpload(&c->rowptr, hb->rowptr, nrows + 1));
  PetscCall(HBUpload(&c->col, hb->col, (size_t)hb->rowptr[nrows]));
  PetscCall(HBUpload<PetscScalar>(&c->yL, NULL, nl));
  PetscCall(HBUpload<PetscScalar>(&c->xghost, NULL, (size_t)hb->nghost));
  PetscCall(HBUpload<PetscScalar>(&c->yghost, NULL, (size_t)hb->nghost));
  PetscCall(HBUpload<PetscScalar>(&c->yshared, NULL, (size_t)hb->nshared));
  PetscCall(HBUpload<PetscReal>(&c->partial, NULL, 2 * HB_MAX_BLOCKS + 1));
  PetscCallCUDA(cudaMallocHost((void **)&c->hdot, sizeof(PetscReal)));
  PetscCallCUDA(cudaEventCreate(&c->start));
  PetscCallCUDA(cudaEventCreate(&c->stop));
  hb->cuda = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBDestroyCUDA(Mat_HB *hb)
{
  SquallHBCUDA c = hb->cuda;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaFree(c->gidx));
  PetscCallCUDA(cudaFree(c->G));
  PetscCallCUDA(cudaFree(c->W));
  PetscCallCUDA(cudaFree(c->D));
  PetscCallCUDA(cudaFree(c->rowptr));
  PetscCallCUDA(cudaFree(c->col));
  PetscCallCUDA(cudaFree(c->yL));
  PetscCallCUDA(cudaFree(c->xghost));
  PetscCallCUDA(cudaFree(c->yghost));
  PetscCallCUDA(cudaFree(c->yshared));
  PetscCallCUDA(cudaFree(c->partial));
  PetscCallCUDA(cudaFreeHost(c->hdot));
  PetscCallCUDA(cudaEventDestroy(c->start));
  PetscCallCUDA(cudaEventDestroy(c->stop));
  PetscCall(PetscFree(hb->cuda));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = Z^T y_L with the ghost rows reduced over the ranks; with x, the local x.y (synchronises) */
static PetscErrorCode HBGather(Mat_HB *hb, PetscScalar *y, const PetscScalar *x, PetscReal *dot, PetscBool parallel, cudaStream_t stream)
{
  SquallHBCUDA   c    = hb->cuda;
  const PetscInt nown = hb->nown, npriv = hb->nown - hb->nshared, nrows = hb->nown + hb->nghost;
  const int      nb1 = HBGrid(nown), nb2 = HBGrid(hb->nshared);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_HBGather, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (parallel) {
    if (hb->nghost) HBGatherKernel<false><<<HBGrid(hb->nghost), HB_BLOCK, 0, stream>>>(nown, nrows, 0, c->rowptr, c->col, c->yL, c->yghost, NULL, NULL);
    PetscCallCUDA(cudaGetLastError());
    if (hb->nshared) PetscCallCUDA(cudaMemsetAsync(c->yshared, 0, (size_t)hb->nshared * sizeof(PetscScalar), stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscSFReduceWithMemTypeBegin(hb->num.sfy, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, c->yghost, PETSC_MEMTYPE_CUDA, c->yshared, MPI_SUM));
    if (!hb->overlap) PetscCall(PetscSFReduceEnd(hb->num.sfy, MPIU_SCALAR, c->yghost, c->yshared, MPI_SUM));
    PetscCall(PetscLogGpuTimeBegin());
  }
  if (x)
    HBGatherKernel<true><<<nb1, HB_BLOCK, 0, stream>>>(0, nown, npriv, c->rowptr, c->col, c->yL, y, x, c->partial);
  else
    HBGatherKernel<false><<<nb1, HB_BLOCK, 0, stream>>>(0, nown, 0, c->rowptr, c->col, c->yL, y, NULL, NULL);
  PetscCallCUDA(cudaGetLastError());
  if (parallel) {
    PetscCall(PetscLogGpuTimeEnd());
    if (hb->overlap) PetscCall(PetscSFReduceEnd(hb->num.sfy, MPIU_SCALAR, c->yghost, c->yshared, MPI_SUM));
    PetscCall(PetscLogGpuTimeBegin());
    if (hb->nshared) {
      if (x)
        HBSharedAddKernel<true><<<nb2, HB_BLOCK, 0, stream>>>(hb->nshared, c->yshared, y + npriv, x + npriv, c->partial + HB_MAX_BLOCKS);
      else
        HBSharedAddKernel<false><<<nb2, HB_BLOCK, 0, stream>>>(hb->nshared, c->yshared, y + npriv, NULL, NULL);
      PetscCallCUDA(cudaGetLastError());
    }
  }
  if (x) {
    HBDotFinal<<<1, HB_BLOCK, 0, stream>>>(nb1, parallel && hb->nshared ? nb2 : 0, c->partial, c->partial + 2 * HB_MAX_BLOCKS);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((PetscLogDouble)hb->rowptr[nrows] + (x ? 2.0 * nown : 0)));
  PetscCall(PetscLogEventEnd(SQUALL_HBGather, 0, 0, 0, 0));
  if (x) {
    PetscCallCUDA(cudaMemcpyAsync(c->hdot, c->partial + 2 * HB_MAX_BLOCKS, sizeof(PetscReal), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCall(PetscLogGpuToCpu(sizeof(PetscReal)));
    *dot = *c->hdot;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBMultDevice(Mat_HB *hb, const PetscScalar *x, PetscScalar *y, PetscBool wantdot, PetscReal *dot, cudaStream_t stream)
{
  SquallHBCUDA c = hb->cuda;
  PetscMPIInt  size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  if (size > 1) PetscCall(PetscSFBcastWithMemTypeBegin(hb->num.sfx, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, x, PETSC_MEMTYPE_CUDA, c->xghost, MPI_REPLACE));
  if (size > 1 && !hb->overlap) PetscCall(PetscSFBcastEnd(hb->num.sfx, MPIU_SCALAR, x, c->xghost, MPI_REPLACE));
  PetscCall(HBLocalOp(hb, 0, hb->nint, x, stream));
  if (size > 1 && hb->overlap) PetscCall(PetscSFBcastEnd(hb->num.sfx, MPIU_SCALAR, x, c->xghost, MPI_REPLACE));
  PetscCall(HBLocalOp(hb, hb->nint, hb->nelem, x, stream));
  PetscCall(HBGather(hb, y, wantdot ? x : NULL, dot, (PetscBool)(size > 1), stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBMultCUDA(Mat_HB *hb, Vec x, Vec y, PetscBool wantdot, PetscReal *dot)
{
  const PetscScalar *xd;
  PetscScalar       *yd;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(HBSetUpCUDA(hb));
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecCUDAGetArrayRead(x, &xd));
  PetscCall(VecCUDAGetArrayWrite(y, &yd));
  PetscCall(HBMultDevice(hb, xd, yd, wantdot, dot, stream));
  PetscCall(VecCUDARestoreArrayWrite(y, &yd));
  PetscCall(VecCUDARestoreArrayRead(x, &xd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the empirical roofline: 8 reads and 1 write per entry */
__global__ static void __launch_bounds__(HB_BLOCK) HBStreamKernel(PetscInt n, const PetscScalar *__restrict__ a0, const PetscScalar *__restrict__ a1, const PetscScalar *__restrict__ a2, const PetscScalar *__restrict__ a3,
                                                                  const PetscScalar *__restrict__ a4, const PetscScalar *__restrict__ a5, const PetscScalar *__restrict__ a6, const PetscScalar *__restrict__ a7, PetscScalar *__restrict__ y)
{
  for (PetscInt i = (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * HB_BLOCK) y[i] = a0[i] + a1[i] + a2[i] + a3[i] + a4[i] + a5[i] + a6[i] + a7[i];
}

static PetscErrorCode HBElapsed(SquallHBCUDA c, PetscInt reps, PetscReal *t)
{
  float ms;

  PetscFunctionBegin;
  PetscCallCUDA(cudaEventSynchronize(c->stop));
  PetscCallCUDA(cudaEventElapsedTime(&ms, c->start, c->stop));
  *t = (PetscReal)(1e-3 * ms / reps);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBBenchmarkCUDA(Mat_HB *hb, Vec x, Vec y, PetscInt reps, SquallHBBenchResult *res)
{
  SquallHBCUDA       c;
  const PetscScalar *xd;
  PetscScalar       *yd, *s[9];
  cudaStream_t       stream;
  PetscReal          dot;
  PetscMPIInt        size;
  /* big enough to stream from HBM rather than L2, bounded so that it fits beside the operator */
  const PetscInt ns    = PetscMax(PetscMin(hb->nelem * hb->Np, (PetscInt)1 << 26), (PetscInt)1 << 22);
  const int      sgrid = (int)PetscMin((ns + HB_BLOCK - 1) / HB_BLOCK, 65536);

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  PetscCall(HBSetUpCUDA(hb));
  c = hb->cuda;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecCUDAGetArrayRead(x, &xd));
  PetscCall(VecCUDAGetArrayWrite(y, &yd));
  /* a first product fills the ghost values and warms up */
  PetscCall(HBMultDevice(hb, xd, yd, PETSC_TRUE, &dot, stream));

  PetscCallCUDA(cudaEventRecord(c->start, stream));
  for (PetscInt r = 0; r < reps; r++) PetscCall(HBLocalOp(hb, 0, hb->nelem, xd, stream));
  PetscCallCUDA(cudaEventRecord(c->stop, stream));
  PetscCall(HBElapsed(c, reps, &res->t_kernel));

  PetscCallCUDA(cudaEventRecord(c->start, stream));
  for (PetscInt r = 0; r < reps; r++) {
    HBGatherKernel<false><<<HBGrid(hb->nown), HB_BLOCK, 0, stream>>>(0, hb->nown, 0, c->rowptr, c->col, c->yL, yd, NULL, NULL);
    if (hb->nghost) HBGatherKernel<false><<<HBGrid(hb->nghost), HB_BLOCK, 0, stream>>>(hb->nown, hb->nown + hb->nghost, 0, c->rowptr, c->col, c->yL, c->yghost, NULL, NULL);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaEventRecord(c->stop, stream));
  PetscCall(HBElapsed(c, reps, &res->t_gather));

  PetscCallCUDA(cudaEventRecord(c->start, stream));
  for (PetscInt r = 0; r < reps; r++) PetscCall(HBMultDevice(hb, xd, yd, PETSC_FALSE, NULL, stream));
  PetscCallCUDA(cudaEventRecord(c->stop, stream));
  PetscCall(HBElapsed(c, reps, &res->t_mult));
  PetscCall(VecCUDARestoreArrayWrite(y, &yd));
  PetscCall(VecCUDARestoreArrayRead(x, &xd));

  PetscCall(PetscLogEventBegin(SQUALL_HBStream, 0, 0, 0, 0));
  for (int a = 0; a < 9; a++) {
    PetscCallCUDA(cudaMalloc((void **)&s[a], (size_t)ns * sizeof(PetscScalar)));
    PetscCallCUDA(cudaMemsetAsync(s[a], 0, (size_t)ns * sizeof(PetscScalar), stream));
  }
  HBStreamKernel<<<sgrid, HB_BLOCK, 0, stream>>>(ns, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]);
  PetscCallCUDA(cudaEventRecord(c->start, stream));
  PetscCall(PetscLogGpuTimeBegin());
  for (PetscInt r = 0; r < reps; r++) HBStreamKernel<<<sgrid, HB_BLOCK, 0, stream>>>(ns, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCallCUDA(cudaEventRecord(c->stop, stream));
  PetscCall(HBElapsed(c, reps, &res->t_stream));
  PetscCall(PetscLogGpuFlops(7.0 * ns * (reps + 1)));
  for (int a = 0; a < 9; a++) PetscCallCUDA(cudaFree(s[a]));
  PetscCall(PetscLogEventEnd(SQUALL_HBStream, 0, 0, 0, 0));
  res->bytes_stream = 9.0 * ns * sizeof(PetscScalar);
  res->device       = PETSC_TRUE;
  (void)size;
  PetscFunctionReturn(PETSC_SUCCESS);
}
