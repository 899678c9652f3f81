/* The hipBone operator's v7 element kernel: the contractions on the FP64 tensor cores (DMMA).
   Part of the translation unit of src/cuda/hbop.cu, which includes it; not a header of its own. */
#pragma once
#include "cuda/hbopdevice.cuh"

/* v7. The 2D kernels v3-v5 run out of shared-memory bandwidth from N = 9 on: each FMA of the three
   contractions and their transposes reads at least one operand from shared memory, 2.1-2.9 wavefronts per
   node in v4's model (src/cuda/hbop2d.cuh) against ~4.5 clocks of HBM time per node, and they measure
   54-80% of the streaming roofline there. Every one of the six contractions is a product of the 16 x 16
   matrix D (or D^T; padded with zeros to 16 x 16 below Nq = 16) with a 16 x 256 slab of the element, so
   here each is a sequence of 8x8x4 FP64 tensor-core products (mma.sync m8n8k4, PTX ISA "Matrix
   Fragments for mma.m8n8k4 with .f64": A 8x4 row-major, the lane holds A[lane/4][lane%4]; B 4x8, the lane
   holds B[lane%4][lane/4]; C 8x8, the lane holds C[lane/4][2 (lane%4) + 0, 1]). D's fragments stay in
   registers for the whole element (the A fragment of D is the B fragment of D^T and the other way round:
   16 reals per lane), so a product of D with a 16 x 256 slab reads the slab once from shared memory as
   B (or A) fragments, 1/16 of a wavefront per node, and the tensor cores do 256 FMAs per instruction.
   One element per block of 8 warps, in four phases (H200: about 0.75 clocks of tensor-core time per node at
   Nq = 16, 2 blocks per SM by shared memory):
   0. the element's x through its indices into shared q[k][j][i] (zeros in the padding);
   1. q_t = D q along k into shared t[k][j][i]: warp w the columns j = 2w, 2w+1;
   2. warp w layers k = 2w, 2w+1, each alone: q_r = q_k D^T and q_s = D q_k (C fragments: the lane owns
      nodes (j, i), (j, i+1) of 4 tiles), the geometric factors at its own nodes (q_t read there) give
      g_r, g_s, g_t; g_r overwrites q_k, g_t t_k, g_s goes to the warp's scratch slice, and lambda W q
      starts the result, to which g_r D and D^T g_s are added in the same fragments; the result overwrites
      q_k. Only the warp touches layer k here, so __syncwarp orders it;
   3. D^T g_t along k, started from the stored result, the sum written to y_L (warp w columns 2w, 2w+1).
   Shared memory: q and t at row pitch 20 and layer pitch 324 reals (both 4 mod 16: the fragment loads,
   four rows by four consecutive reals per half-warp, fall in 16 different 8-byte bank pairs), plus a 16 x 20
   slice per warp: 103 KB. Double precision only (FP64 tensor cores); orders N = 9 .. 15 (Nq = 10 .. 16). The
   sums run in another order than the CPU's: equal to round-off, not bit for bit.
   Measured (H200, 2e7 unknowns): 60.7% of the streaming
   roofline at N = 15 (7.65 TFLOP/s; v5 65.1, v4 59.6 alongside), 43-48% at N = 11-14 and 31-36% at N = 9, 10,
   where the padding to 16 leaves fewer nodes per element for the same latency. The shared-memory bound is gone
   (ncu, N = 15: issue slots 12% busy, L1 57%), and the kernel is latency bound instead: 128 registers and 103 KB per
   block allow 2 blocks (16 warps, 25% occupancy) per SM, 64% of the stall cycles wait on global loads, and DRAM runs
   at 58% of its peak. A block's global traffic comes in bursts (the gather before the first barrier, then each warp's
   factors tile by tile in phase 2), so an element takes ~30 us for ~311 KB; the factors would have to stream with
   deeper prefetch than the registers allow (a ring in shared memory does not fit beside q and t). Measured and
   reverted: D's fragments read from shared memory instead of registers, which leaves room for phase
   2's factors in two batches of two tiles per layer, the first requested a layer ahead: 38-53% at N = 9-14 (+5-7
   points) but 55.2% at N = 15 (-5.5), below v4 and v5 at every order either way. Kept as a variant, not a default:
   the next step for it was a persistent block that streams the factors into shared memory while the element computes.
   Measured and reverted: one block of 8 warps per
   SM walking the elements, each warp's layer of factors and W (14 KB at Nq = 16) copied into its own slot by cp.async a
   layer ahead (the next element's first layer and indices during phase 3), equal to v7 bit for bit: 51.3% at N = 15 and
   28-44% at N = 9-14, below v7 at every order (61.0% alongside). ncu at N = 15: 12.5% occupancy (one block of 8
   warps: 213 KB), DRAM 48% busy, half of the stall cycles on L1TEX loads: the element's phases still come one after the
   other (gather, then the factors of one layer per warp, then the next layer's, which wait), and one block per SM
   cannot fill the gaps as two blocks do. At Nq = 16 the element's q and t (2 x 32 KB padded to 41 KB) leave room for one
   layer of factors per warp at one block per SM, and none at two.
   Measured and reverted too: three elements in flight per SM instead, q and t unpadded (64 KB) with an XOR swizzle (node (k, j, i) at
   256 k + 16 j + (i ^ 4 ((j ^ k) & 3)): every fragment load conflict-free) and g_s in registers, at 4, 6 or 8 warps per
   block (168, 96, 80 registers: 3 blocks per SM), equal to v7 bit for bit: 50.1, 42.9, 40.9% at N = 15 (v7 59.9%
   alongside) and below v7 at every order; ncu (4 warps, N = 15): 18.5% occupancy, DRAM 48%. A block's element takes
   longer with fewer warps than the third block in flight gains. */
#if defined(PETSC_USE_REAL_DOUBLE)
#  define HB_V7_WARPS 8
#  define HB_V7_PJ 20
#  define HB_V7_PK (16 * HB_V7_PJ + 4)

__host__ __device__ constexpr bool HBHaveV7(int Nq)
{
  return Nq >= 10 && Nq <= 16;
}
__host__ __device__ constexpr size_t HBSharedV7(void)
{
  return (size_t)(2 * 16 * HB_V7_PK + HB_V7_WARPS * 16 * HB_V7_PJ) * sizeof(double);
}

/* (c0, c1) += a b: one 8x8x4 product, the lane's fragments as above */
__device__ static inline void HBDmma(double &c0, double &c1, double a, double b)
{
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+d"(c0), "+d"(c1) : "d"(a), "d"(b));
}

__device__ static inline double2 HBLds2d(const double *p)
{
  return *reinterpret_cast<const double2 *>(p);
}
__device__ static inline void HBSts2d(double *p, double a, double b)
{
  *reinterpret_cast<double2 *>(p) = make_double2(a, b);
}

/* the two in-layer products of a 16 x 16 layer, as tiles (jt, it) of the lane's fragments: CX[jt][it] += X[rows jt] FX[it]
   (X's rows, pitch HB_V7_PJ, as A fragments), then CY[jt][it] += FY[jt] Y[columns it] (Y's columns as B fragments); CX and CY
   may be the same array */
__device__ static inline void HBV7LayerProducts(const double *X, const double *Y, const double FX[2][4], const double FY[2][4], int lr, int lc, double CX[2][2][2], double CY[2][2][2])
{
#  pragma unroll
  for (int jt = 0; jt < 2; jt++) {
    double A[4];

#  pragma unroll
    for (int s = 0; s < 4; s++) A[s] = X[(8 * jt + lr) * HB_V7_PJ + 4 * s + lc];
#  pragma unroll
    for (int it = 0; it < 2; it++) {
#  pragma unroll
      for (int s = 0; s < 4; s++) HBDmma(CX[jt][it][0], CX[jt][it][1], A[s], FX[it][s]);
    }
  }
#  pragma unroll
  for (int it = 0; it < 2; it++) {
    double B[4];

#  pragma unroll
    for (int s = 0; s < 4; s++) B[s] = Y[(4 * s + lc) * HB_V7_PJ + 8 * it + lr];
#  pragma unroll
    for (int jt = 0; jt < 2; jt++) {
#  pragma unroll
      for (int s = 0; s < 4; s++) HBDmma(CY[jt][it][0], CY[jt][it][1], FY[jt][s], B[s]);
    }
  }
}

/* the products along k of the warp's columns j = 2w, 2w + 1 (j < Nq): for the lane's nodes (k, j, i0), (k, j, i0 + 1) of each
   8 x 8 tile, c = start(k, j, i0) + sum_m F[k][m] X[m][j][i] (F's A fragments, X's columns as B fragments, X at the layer
   pitch HB_V7_PK), handed to done(k, j, i0, c): phase 1 (F = D, X = q, into t) and phase 3 (F = D^T, X = g_t, into y_L) */
template <int Nq, typename Start, typename Done> __device__ static inline void HBV7ColumnProducts(const double *X, const double F[2][4], int w, int lr, int lc, Start start, Done done)
{
#  pragma unroll
  for (int jj = 0; jj < 2; jj++) {
    const int j = 2 * w + jj;

    if (j < Nq) {
#  pragma unroll
      for (int ct = 0; ct < 2; ct++) {
        double B[4];

#  pragma unroll
        for (int s = 0; s < 4; s++) B[s] = X[(4 * s + lc) * HB_V7_PK + j * HB_V7_PJ + 8 * ct + lr];
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
}

template <int Nq> __global__ static void __launch_bounds__(32 * HB_V7_WARPS, 2) HBLocalOpV7(PetscInt e0, HBOpArgs a)
{
  constexpr int     Np = Nq * Nq * Nq, Nq2 = Nq * Nq, PJ = HB_V7_PJ, PK = HB_V7_PK, LPW = 2; /* layers (phase 2) and columns j (1, 3) per warp */
  extern __shared__ __align__(16) unsigned char hbsmem[];
  double                                       *sQ = reinterpret_cast<double *>(hbsmem), *sT = sQ + 16 * PK;
  const int                                     lane = threadIdx.x & 31, w = threadIdx.x >> 5, lr = lane >> 2, lc = lane & 3;
  double                                       *sS    = sT + 16 * PK + w * 16 * PJ; /* this warp's slice of g_s */
  const size_t                                  ebase = (size_t)(e0 + (PetscInt)blockIdx.x) * Np;
  double                                        DA[2][4], DTA[2][4]; /* DA[r][s] = D[8r + lane/4][4s + lane%4], DTA[r][s] = D[4s + lane%4][8r + lane/4] */

  static_assert(HBHaveV7(Nq) && (Nq + LPW - 1) / LPW <= HB_V7_WARPS, "v7: orders with Nq = 10 .. 16");
  /* 0: every index, then every x value, requested before the first barrier */
  {
    constexpr int C = (Np + 32 * HB_V7_WARPS - 1) / (32 * HB_V7_WARPS);
    PetscInt      l[C];

#  pragma unroll
    for (int c = 0; c < C; c++) {
      const int n = threadIdx.x + 32 * HB_V7_WARPS * c;

      l[c] = n < Np ? __ldg(a.gidx + ebase + n) : -1;
    }
#  pragma unroll
    for (int c = 0; c < C; c++) {
      const int n = threadIdx.x + 32 * HB_V7_WARPS * c;

      if (n < Np) sQ[(n / Nq2) * PK + ((n / Nq) % Nq) * PJ + n % Nq] = HBReadXLdg(a, l[c]);
    }
  }
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
  __syncthreads();

  /* 1: t[k][j][i] = sum_m D[k][m] q[m][j][i], columns j of this warp */
  HBV7ColumnProducts<Nq>(
    sQ, DA, w, lr, lc, [&](int, int, int) { return make_double2(0, 0); }, [&](int k, int j, int i0, double2 c) { HBSts2d(sT + k * PK + j * PJ + i0, c.x, c.y); });
  __syncthreads();

/* 2: layer by layer, each warp its own layers */
#  pragma unroll 1
  for (int kk = 0; kk < LPW; kk++) {
    const int k = LPW * w + kk;

    if (k < Nq) {
      double *Qk = sQ + k * PK, *Tk = sT + k * PK;
      double  cr[2][2][2], cs[2][2][2], y[2][2][2]; /* [row tile j][column tile i][the lane's two nodes] */

#  pragma unroll
      for (int jt = 0; jt < 2; jt++) {
#  pragma unroll
        for (int it = 0; it < 2; it++) cr[jt][it][0] = cr[jt][it][1] = cs[jt][it][0] = cs[jt][it][1] = 0;
      }
      /* q_r[j][i] = sum_m q[j][m] D[i][m] (A = q_k rows, B = D^T's fragment, which is DA) and q_s[j][i] = sum_m D[j][m] q[m][i]
         (A = DA, B = q_k columns) */
      HBV7LayerProducts(Qk, Qk, DA, DA, lr, lc, cr, cs);
      __syncwarp(); /* every lane has read q_k before any overwrites its nodes with g_r */
#  pragma unroll
      for (int jt = 0; jt < 2; jt++) {
#  pragma unroll
        for (int it = 0; it < 2; it++) {
          const int     j = 8 * jt + lr, i0 = 8 * it + 2 * lc, o = j * PJ + i0;
          const double2 q = HBLds2d(Qk + o), qt = HBLds2d(Tk + o);
          double        gr[2], gs[2], gt[2];

#  pragma unroll
          for (int e = 0; e < 2; e++) {
            if (i0 + e < Nq && j < Nq) {
              const size_t n = ebase + (size_t)(k * Nq2 + j * Nq + i0 + e);
              double       g[SQUALL_SEM_NGEO];

              HBLoadGeo(a.G + (size_t)SQUALL_SEM_NGEO * n, g);
              SquallSEMGeoApply(g, cr[jt][it][e], cs[jt][it][e], e ? qt.y : qt.x, &gr[e], &gs[e], &gt[e]);
              y[jt][it][e] = a.lambda * __ldg(a.W + n) * (e ? q.y : q.x);
            } else
              gr[e] = gs[e] = gt[e] = y[jt][it][e] = 0; /* the padding: the transposes multiply it by D's zeros */
          }
          HBSts2d(Qk + o, gr[0], gr[1]);
          HBSts2d(Tk + o, gt[0], gt[1]);
          HBSts2d(sS + o, gs[0], gs[1]);
        }
      }
      __syncwarp();
      /* y[j][i] += sum_m g_r[j][m] D[m][i] (A = g_r rows, B = D's fragment, which is DTA), then y[j][i] += sum_m D[m][j] g_s[m][i]
         (A = D^T's fragment, DTA, B = g_s columns) */
      HBV7LayerProducts(Qk, sS, DTA, DTA, lr, lc, y, y);
      __syncwarp(); /* every lane has read g_r and g_s before the result overwrites g_r (and the next layer g_s) */
#  pragma unroll
      for (int jt = 0; jt < 2; jt++) {
#  pragma unroll
        for (int it = 0; it < 2; it++) HBSts2d(Qk + (8 * jt + lr) * PJ + 8 * it + 2 * lc, y[jt][it][0], y[jt][it][1]);
      }
    }
  }
  __syncthreads();

  /* 3: y[k][j][i] += sum_m D[m][k] g_t[m][j][i] (A = DTA, B = g_t columns), into y_L */
  HBV7ColumnProducts<Nq>(
    sT, DTA, w, lr, lc, [&](int k, int j, int i0) { return HBLds2d(sQ + k * PK + j * PJ + i0); },
    [&](int k, int j, int i0, double2 c) {
      if (k < Nq && i0 < Nq) {
        PetscScalar *yn = a.yL + ebase + (size_t)(k * Nq2 + j * Nq + i0);

        if (Nq % 2 == 0)
          *reinterpret_cast<double2 *>(yn) = c; /* i0 + 1 < Nq, and the node index is even */
        else {
          yn[0] = c.x;
          if (i0 + 1 < Nq) yn[1] = c.y;
        }
      }
    });
}

/* the v7 launch: its 103 KB of dynamic shared memory must be allowed once per instantiation */
template <int Nq> static PetscErrorCode HBLaunchV7(PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  static bool allowed = false;

  PetscFunctionBegin;
  static_assert(HBSharedV7() <= 113 * 1024, "v7: two blocks per SM need at most 113 KB each");
  if (!allowed) {
    PetscCallCUDA(cudaFuncSetAttribute(HBLocalOpV7<Nq>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)HBSharedV7()));
    allowed = true;
  }
  HBLocalOpV7<Nq><<<(unsigned int)(e1 - e0), 32 * HB_V7_WARPS, HBSharedV7(), stream>>>(e0, a);
  PetscFunctionReturn(PETSC_SUCCESS);
}
#else
__host__ __device__ constexpr bool HBHaveV7(int)
{
  return false;
}
template <int Nq> static PetscErrorCode HBLaunchV7(PetscInt, PetscInt, const HBOpArgs &, cudaStream_t)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-hb_kernel_variant v7 needs double precision (FP64 tensor cores)");
}
#endif
