/* The hipBone operator's layer kernel (-hb_kernel layers) and its launchers.
   Part of the translation units of src/cuda/hbop<geometry>.cu, through src/cuda/hboplocal.cuh; not a header of its own.

   A block of W x Nq threads (W >= Nq) sweeps one element (or E elements, one per threadIdx.z) layer by
   layer; a thread owns the column (i, j) of its element, keeps its result column ra[Nq] in registers
   (the t-derivative and its transpose need no shared memory) and computes L layers per step (L = 2, 3,
   4: -hb_kernel_layers), so that every D value and every t-direction operand q[m][j][i] loaded from
   shared memory serves L layers. Per warp, per m and per step the loads shared by the layers cost
   5 wavefronts and those of each layer 3: (5 + 3 L) Nq / (32 L) wavefronts per node (2.75, 2.33, 2.13 at
   Nq = 16 for L = 2, 3, 4), for more registers and shared memory; the last step of a sweep has Nq % L
   layers where L does not divide Nq. The loads with few distinct addresses in a warp read two
   consecutive m at once (16-byte vector loads from rows of even pitch), D and D^T both sit in shared
   memory so that every D operand is lane-contiguous or a row pair, and the r/s buffers alternate
   between steps: one barrier per step.

   Layout (HBLayoutOf), chosen per order against shared-memory bank conflicts: even Nq: W = Nq and an
   even pitch that is not a multiple of 16; odd Nq where one more thread per row costs no warp (3, 5, 7,
   9, 13, 15): W = Nq + 1 threads per row, the last owning no node (it reads its neighbour's node and
   writes only pad columns), so that a node is the lane index again and rows start at even lanes;
   Nq = 11 (12 x 11 threads would take 5 warps, not 4): W = 11 with q and s unpadded and r, D at pitch 12.
   The model of shared-memory cycles behind this and its fit to measurements is in docs/performance.md.
   Shared memory is dynamic (above the 48 KB static limit at high order). */
#pragma once
#include "cuda/hbopdevice.cuh"

/* row pitch (reals) of the shared arrays: even, so that pairs m, m+1 are 16-byte aligned, and not a
   multiple of 16, so that consecutive rows start in different banks */
__host__ __device__ constexpr int HBPitch(int Nq)
{
  return ((Nq + 1) & ~1) % 16 == 0 ? ((Nq + 1) & ~1) + 2 : ((Nq + 1) & ~1);
}

typedef struct {
  int W;              /* threads per row of the block (threadIdx.x); those with i >= Nq own no node */
  int Pd, Pq, Pr, Ps; /* row pitches (reals) of D and D^T, q, r, s; rows are read in pairs where even */
} HBLayout;

__host__ __device__ constexpr HBLayout HBLayoutOf(int Nq)
{
  return Nq % 2 == 0                                        ? HBLayout{Nq, HBPitch(Nq), HBPitch(Nq), HBPitch(Nq), HBPitch(Nq)}
         : ((Nq + 1) * Nq + 31) / 32 == (Nq * Nq + 31) / 32 ? HBLayout{Nq + 1, HBPitch(Nq), HBPitch(Nq), HBPitch(Nq), HBPitch(Nq)}
                                                            : HBLayout{Nq, HBPitch(Nq), Nq, HBPitch(Nq), Nq};
}
/* array sizes round up to an even number of reals, so that every array starts 16-byte aligned */
__host__ __device__ constexpr int HBEven(int n)
{
  return (n + 1) & ~1;
}
/* the reals of one element's q, r and s (D and D^T are the block's) */
__host__ __device__ constexpr int HBElemSharedLayers(int Nq, int L)
{
  return HBEven(Nq * Nq * HBLayoutOf(Nq).Pq) + HBEven(2 * L * Nq * HBLayoutOf(Nq).Pr) + HBEven(2 * L * Nq * HBLayoutOf(Nq).Ps);
}
__host__ __device__ constexpr size_t HBSharedLayers(int Nq, int L, int E = 1)
{
  return (size_t)(2 * HBEven(Nq * HBLayoutOf(Nq).Pd) + E * HBElemSharedLayers(Nq, L)) * sizeof(PetscReal);
}
/* Several elements per block (E, -hb_kernel_elements), one per threadIdx.z: at Nq = 6 an element's 36
   threads fill 18 of each warp's 32 lanes and its registers allow 10 blocks per SM, so that the kernel,
   waiting on its global loads, has few loads in flight; 3-4 elements per block fill 84-90% of the lanes.
   Instantiated at Nq = 6 only (N = 5, the order whose one-element block wastes most lanes; at N = 9 and 11
   more elements per block measured slower). */
__host__ __device__ constexpr bool HBMultiElementLayers(int Nq)
{
  return Nq == 6;
}
/* registers per thread to ask for (see HBMinBlocks). Left alone nvcc takes more (it hoists shared
   loads); at these caps ptxas -v (sm_90, double) reports 8-48 bytes of spill for L = 2, once per element
   outside the contractions, and the shared memory allows as many blocks: Nq = 15, 16: 80 registers, 3
   blocks of 8 warps per SM; Nq = 13, 14: 80, 72, 4 blocks of 6-7 warps; Nq <= 12: 64, 6-8 blocks of 4-5
   warps. L = 3, 4 hold 7 L more values (g, w) and 3 L accumulators: with 96 registers (Nq <= 13) and 128
   (Nq >= 14) ptxas -v reports 0-16 bytes of spill from Nq = 13 on and at most 48 below (double); in
   single precision 80 registers leave no spill for any Nq and L = 3, 4. Where the G and W of a step are
   requested (HBAhead) makes no difference to nvcc 13.0 for L > 2 (it moves the read-only loads across
   the barrier). */
__host__ __device__ constexpr bool HBAhead(int Nq, int L)
{
  return L == 2; /* L = 2: one step ahead, as measured; L > 2: at the step's start (fewer live values in the source) */
}
__host__ __device__ constexpr int HBRegsLayersMore(int Nq, int L)
{
#if defined(PETSC_USE_REAL_SINGLE)
  return 80; /* no spill at any Nq, L (ptxas -v, sm_90) */
#else
  return Nq >= 14 ? 128 : 96;
#endif
}
__host__ __device__ constexpr int HBRegsLayers(int Nq, int L)
{
  return L == 2 ? (Nq >= 15 ? 80 : (Nq >= 13 ? 72 : 64)) : HBRegsLayersMore(Nq, L);
}

/* a pair of consecutive reals of shared memory: one vector load from a row of even pitch, two loads
   from a row of odd pitch (Nq = 11: q, whose node accesses want it unpadded) */
template <bool PAIR> __device__ static inline void HBLdsPair(const PetscReal *p, PetscReal &a, PetscReal &b)
{
  if constexpr (PAIR) {
    HBLds2(p, a, b);
  } else {
    a = p[0];
    b = p[1];
  }
}

/* The layer kernel; one piece, as the sweep's barriers and the register columns span it. A
   thread without a node (a padded row) reads its neighbour's node from global memory (the same
   sectors: no extra traffic), so that no global load needs a predicate and every pad column it fills
   and reads holds finite values; it writes no y_L. */
template <int Nq, int L, int E, int GEO> __global__ static void __launch_bounds__(HBLayoutOf(Nq).W *Nq *E, HBMinBlocks(HBLayoutOf(Nq).W *Nq *E, HBRegsLayers(Nq, L))) HBLocalOpLayers(PetscInt e0, PetscInt e1, HBOpArgs a)
{
  constexpr HBLayout lay = HBLayoutOf(Nq);
  constexpr int      Np = Nq * Nq * Nq, Nq2 = Nq * Nq, W = lay.W, PD = lay.Pd, PQ = lay.Pq, PR = lay.Pr, PS = lay.Ps;
  constexpr int      LD = Nq * PD, LQ = Nq * PQ, LR = Nq * PR, LS = Nq * PS; /* one matrix (layer) of each array */
  constexpr bool     ahead = HBAhead(Nq, L), paird = PD % 2 == 0, pairq = PQ % 2 == 0, pairr = PR % 2 == 0;
  extern __shared__ __align__(16) unsigned char hbsmem[];
  PetscReal                                    *sD  = reinterpret_cast<PetscReal *>(hbsmem);                      /* D[a][b] at a PD + b */
  PetscReal                                    *sDT = sD + HBEven(LD);                                            /* D[b][a] at a PD + b */
  PetscReal                                    *sq  = sDT + HBEven(LD) + threadIdx.z * HBElemSharedLayers(Nq, L); /* q[k][j][i] at k LQ + j PQ + i */
  PetscReal                                    *sr  = sq + HBEven(Nq * LQ);                                       /* [2 buffers][L layers][j][i], pitch PR */
  PetscReal                                    *ss  = sr + HBEven(2 * L * LR);                                    /* the same, pitch PS */
  const PetscReal                              *cD  = HBConstD + HBConstOffset(Nq);                               /* D[k][m]: the same k and m in every thread */
  const int                                     i = threadIdx.x, j = threadIdx.y, ijq = j * PQ + i, ijr = j * PR + i, ijs = j * PS + i;
  const bool                                    active = W == Nq || i < Nq; /* threads i >= Nq own no node */
  const PetscInt                                eb     = e0 + (PetscInt)blockIdx.x * E + (PetscInt)threadIdx.z;
  const bool                                    valid  = E == 1 || eb < e1; /* the last block's slots past e1 read the last element, store nothing */
  const PetscInt                                elem   = valid ? eb : e1 - 1;
  const size_t                                  base   = (size_t)elem * Np + (active ? i : Nq - 1) + Nq * j;
  const HBGeoColumn<HBGeo(GEO)>                 geo(a, base, elem, active ? i : Nq - 1, j);
  PetscReal                                     ra[Nq], g[L][SQUALL_SEM_NGEO];

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
      if (l < Nq) geo.template at<Nq>(a, l, g[l]);
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
        if (l < nl) geo.template at<Nq>(a, k0 + l, g[l]);
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
        if (k0 + L + l < Nq) geo.template at<Nq>(a, k0 + L + l, g[l]);
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
  {
    PetscReal dot = 0;

    if (active && valid) {
#pragma unroll
      for (int k = 0; k < Nq; k++) HBStoreNode<HBAtomic(GEO)>(a, base + Nq2 * k, ra[k], sq[k * LQ + ijq], dot);
    }
    HBFlushDot<HBAtomic(GEO)>(a, dot);
    if (!HBAtomic(GEO) && active && valid) HBColumnDot<Nq>(a, base, dot);
  }
}

/* the layer kernel's launch with E elements per block: its dynamic shared memory goes above 48 KB from Nq = 15 on (L = 2;
   from Nq = 14 on for L = 4), which each instantiation must be allowed once */
template <int Nq, int L, int E, int GEO> static PetscErrorCode HBLaunchLayersE(PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  static bool  allowed = false;
  const size_t shm     = HBSharedLayers(Nq, L, E);

  PetscFunctionBegin;
  static_assert(HBSharedLayers(Nq, L, E) <= 227 * 1024, "layer kernel: shared memory above the 227 KB per block of sm_90");
  static_assert(HBLayoutOf(Nq).W >= Nq && HBLayoutOf(Nq).W <= HBLayoutOf(Nq).Pd && HBLayoutOf(Nq).W <= HBLayoutOf(Nq).Pq && HBLayoutOf(Nq).W <= HBLayoutOf(Nq).Pr && HBLayoutOf(Nq).W <= HBLayoutOf(Nq).Ps,
                "layer kernel: the threads of a row must fit in every pitch (their pad columns)");
  if (!allowed) {
    PetscCallCUDA(cudaFuncSetAttribute(HBLocalOpLayers<Nq, L, E, GEO>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
    allowed = true;
  }
  HBLocalOpLayers<Nq, L, E, GEO><<<(unsigned int)((e1 - e0 + E - 1) / E), dim3(HBLayoutOf(Nq).W, Nq, E), shm, stream>>>(e0, e1, a);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* E elements per block: 1, or at the orders of HBMultiElementLayers 2, 3, 4, 6 */
template <int Nq, int L, int GEO> static PetscErrorCode HBLaunchLayersL(PetscInt e0, PetscInt e1, const HBOpArgs &a, PetscInt E, cudaStream_t stream)
{
  PetscFunctionBegin;
  if constexpr (HBMultiElementLayers(Nq)) {
    switch (E) {
      case 2: PetscCall((HBLaunchLayersE<Nq, L, 2, GEO>(e0, e1, a, stream))); PetscFunctionReturn(PETSC_SUCCESS);
      case 3: PetscCall((HBLaunchLayersE<Nq, L, 3, GEO>(e0, e1, a, stream))); PetscFunctionReturn(PETSC_SUCCESS);
      case 4: PetscCall((HBLaunchLayersE<Nq, L, 4, GEO>(e0, e1, a, stream))); PetscFunctionReturn(PETSC_SUCCESS);
      case 6: PetscCall((HBLaunchLayersE<Nq, L, 6, GEO>(e0, e1, a, stream))); PetscFunctionReturn(PETSC_SUCCESS);
      default: break;
    }
  }
  PetscCheck(E == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hb_kernel_elements %" PetscInt_FMT " is not available at N = %d: valid values are 1, and 2, 3, 4, 6 at N = 5", E, Nq - 1);
  PetscCall((HBLaunchLayersE<Nq, L, 1, GEO>(e0, e1, a, stream)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* calls launch(std::integral_constant<int, L>()) for the run-time layers per step L = 2, 3, 4: the one place that
   turns -hb_kernel_layers into a template argument, for both layer kernels */
template <typename F> static PetscErrorCode HBWithLayers(PetscInt L, F launch)
{
  PetscFunctionBegin;
  switch (L) {
    case 2: PetscCall(launch(std::integral_constant<int, 2>())); break;
    case 3: PetscCall(launch(std::integral_constant<int, 3>())); break;
    case 4: PetscCall(launch(std::integral_constant<int, 4>())); break;
    default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hb_kernel_layers %" PetscInt_FMT " is out of range: valid values are 2, 3, 4", L);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the layer kernel with L layers per step and E elements per block */
template <int Nq, int GEO> static PetscErrorCode HBLaunchLayers(PetscInt L, PetscInt E, PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(HBWithLayers(L, [&](auto l) { return HBLaunchLayersL<Nq, decltype(l)::value, GEO>(e0, e1, a, E, stream); }));
  PetscFunctionReturn(PETSC_SUCCESS);
}
