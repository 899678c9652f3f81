/* The ESDG GPU volume kernel and its launcher: the load-balanced half sweep, with its L2 prefetch of the
   blocks ahead, which also finishes each node (faces, 1/J, Coriolis, reference residual, fused stage).
   Part of the translation unit of src/cuda/esdgcuda.cu, which includes it (the host code instantiates
   the kernels for every order); not a header of its own. */
#pragma once
#include "cuda/esdgdevice.cuh"

/* The half-sweep kernel keeps its shared values in pairs of reals (double2/float2), so that one
   128-bit (64-bit in single) shared load or store moves two of them: the partner's ten per-node values
   in five loads, the share handed to a partner in three stores, the node's parked finish values in
   four. Bank use is unchanged (consecutive threads, consecutive pairs); what drops is the number of
   shared-memory instructions, which limited the kernel (ncu: short-scoreboard stalls on LDS). */
#if defined(PETSC_USE_REAL_DOUBLE)
typedef double2 ESDGReal2;
#else
typedef float2 ESDGReal2;
#endif
__device__ static inline ESDGReal2 make_ESDGReal2(PetscReal x, PetscReal y)
{
  ESDGReal2 v;
  v.x = x;
  v.y = y;
  return v;
}
#define ESDG_NAUX2 (SQUALL_NPAIR / 2)
/* which per-node value each half of the shared pairs holds: Phi and 1/b last, so that the pairs of a box's x and
   y lines, which have no gravity term (Phi is constant along them: ESDG.boxPhiZ), load one pair fewer */
__device__ static constexpr int ESDGPairValue[SQUALL_NPAIR] = {SQ_RHO, SQ_U, SQ_V, SQ_W, SQ_K, SQ_B, SQ_LOGRHO, SQ_LOGB, SQ_PHI, SQ_INVB};
#define ESDG_NFIN2 (ESDG_NFIN / 2)

/* shared memory of the half-sweep kernel, in pairs: a block-wide head (the D factors of each thread's
   pairs), then per element the per-node values, the shares handed to partners (four components in two
   pairs, the fifth alone: five reals, as in the unpaired layout, so that N = 8 still fits in the 227 KB
   a block may use), the parked finish values (where they fit: ESDGHalfPark), the box metric (CART).
   DEP: the departures of rho and b (perturbation form) as one more pair of per-node values. */
template <int NQ> __host__ __device__ static constexpr int ESDGHalfHead()
{
  return NQ * (NQ / 2);
}
template <int NQ> __host__ __device__ static constexpr int ESDGHalfShareSize()
{
  return 2 * (NQ / 2) * NQ * NQ * NQ + ((NQ / 2) * NQ * NQ * NQ + 1) / 2;
}
template <bool DEP> __host__ __device__ static constexpr int ESDGHalfNAux2()
{
  return ESDG_NAUX2 + (DEP ? 1 : 0);
}
template <int NQ, bool CART, bool PARK, bool DEP> __host__ __device__ static constexpr size_t ESDGHalfSharedRaw()
{
  return ESDGHalfNAux2<DEP>() * NQ * NQ * NQ + ESDGHalfShareSize<NQ>() + (PARK ? ESDG_NFIN2 * NQ * NQ * NQ : 0) + (CART ? 5 : 0);
}
/* the finish values are parked in shared memory if the block still fits in the 227 KB it may use (all
   but N = 8 with departures in double, which loads them at the end) */
template <int NQ, bool CART, bool DEP> __host__ __device__ static constexpr bool ESDGHalfPark()
{
  return sizeof(ESDGReal2) * (ESDGHalfHead<NQ>() + (size_t)ESDGElementsPerBlock<NQ>() * ESDGHalfSharedRaw<NQ, CART, true, DEP>()) <= 227 * 1024;
}
template <int NQ, bool CART, bool DEP> __host__ __device__ static constexpr int ESDGHalfShared()
{
  return (int)ESDGHalfSharedRaw<NQ, CART, ESDGHalfPark<NQ, CART, DEP>(), DEP>();
}
template <int NQ, bool CART, bool DEP> static constexpr size_t ESDGHalfBytes()
{
  return sizeof(ESDGReal2) * (ESDGHalfHead<NQ>() + (size_t)ESDGElementsPerBlock<NQ>() * ESDGHalfShared<NQ, CART, DEP>());
}

/* blocks per multiprocessor the compiler must fit: on boxes up to N = 5, as many as keep 80 registers
   per thread, which measured best at N = 4 on the H200 (109 registers: 4 blocks, 0.396 ms; 80: 6
   blocks, 0.323 ms; 64: 8 blocks with spills, 0.491 ms); curved elements (the partner's metric per
   pair) and higher orders spill at 80 and are left to the compiler */
template <int NQ, bool CART> static constexpr int ESDGVolumeMinBlocks()
{
  return (CART && NQ <= 6 && 65536 / (80 * ((NQ * NQ * NQ * ESDGElementsPerBlock<NQ>() + 31) / 32 * 32)) > 1) ? 65536 / (80 * ((NQ * NQ * NQ * ESDGElementsPerBlock<NQ>() + 31) / 32 * 32)) : 1;
}

/* L2 prefetch of [p, p + bytes): one bulk prefetch (sm_90), else one per 128-byte line. The bulk form
   wants 16-byte bounds: the start is rounded down (at most 8 bytes, within the array: device arrays start
   256-byte aligned) and the end too, so that nothing past the array is touched */
__device__ static inline void PrefetchRangeL2(const void *p, size_t bytes)
{
  const uintptr_t b = (uintptr_t)p & ~(uintptr_t)15, e = ((uintptr_t)p + bytes) & ~(uintptr_t)15;

  if (e <= b) return;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" : : "l"(b), "r"((unsigned)(e - b)));
#else
  for (uintptr_t q = b & ~(uintptr_t)127; q < e; q += 128) asm volatile("prefetch.global.L2 [%0];" : : "l"(q));
#endif
}

/* Everything a volume kernel will load for element e (state offset qe), into L2 ahead of its block: the
   half sweep's blocks wait for these loads at their start, and with few blocks per multiprocessor that
   wait is not hidden (ncu, N = 4: 39% of the stall cycles on L1TEX). Block b prefetches for
   block b + W, W the blocks resident at once, so the data is in L2 (not DRAM) when that block starts;
   range k (0..11) is one contiguous array section, issued by the element's thread k (k mod Np). */
template <int NQ> __device__ static inline void PrefetchElement(const ESDGArgs &a, PetscInt e, size_t qe, int k, const PetscScalar *Q)
{
  constexpr int NP = NQ * NQ * NQ, NFP = NQ * NQ;
  const size_t  st = 5 * NP * sizeof(PetscScalar), nd = NP * sizeof(PetscReal);

  if (k == 0)
    PrefetchRangeL2(Q + qe, st);
  else if (k == 1 && a.Qref)
    PrefetchRangeL2(a.Qref + qe, st);
  else if (k == 2)
    PrefetchRangeL2(a.Phi + (size_t)e * NP, nd);
  else if (k == 3)
    PrefetchRangeL2(a.J + (size_t)e * NP, nd);
  else if (k == 4 && a.fcor)
    PrefetchRangeL2(a.fcor + (size_t)e * NP, nd);
  else if (k >= 5 && k < 10)
    PrefetchRangeL2(a.FB + (k - 5) * a.nSlots + (size_t)e * 6 * NFP, 6 * NFP * sizeof(PetscReal));
  else if (k == 10 && a.K)
    PrefetchRangeL2(a.K + qe, st);
  else if (k == 11 && a.Fref)
    PrefetchRangeL2(a.Fref + qe, st);
}

/* One thread per node of an element, several elements per block for small N. DEP: departures
   (perturbation form); the kernel's gas has them as a compile-time constant. One kernel, not one per
   direction: the three directions share the element's per-node values in shared memory and the node's
   accumulator in registers, and the finish (faces, 1/J, Coriolis, the fused stage) needs all three
   (one launch per direction reloaded the element three times; docs/performance.md). */
template <int NQ, bool CART, int MINB, bool DEP>
__global__ static void __launch_bounds__(NQ *NQ *NQ *ESDGElementsPerBlock<NQ>(), MINB) ESDGVolumeHalf(const SquallGas gasp, const ESDGArgs a, const PetscScalar *__restrict__ Q, PetscScalar *__restrict__ F)
{
  constexpr int               NP = NQ * NQ * NQ, NH = NQ / 2, NA2 = ESDGHalfNAux2<DEP>();
  constexpr bool              PARK = ESDGHalfPark<NQ, CART, DEP>();
  extern __shared__ ESDGReal2 sm2[];
  ESDGReal2                  *sDD    = sm2;                                                                      /* [NQ][NH]: 2w D[i][m], 2w D[m][i] of the pair (i, m = i + o) */
  ESDGReal2                  *saux   = sm2 + ESDGHalfHead<NQ>() + threadIdx.y * ESDGHalfShared<NQ, CART, DEP>(); /* [NA2][NP] */
  ESDGReal2                  *sbuf0  = saux + NA2 * NP;                                                          /* [NH][2][NP] pairs, [NH][NP] reals */
  ESDGReal2                  *sfin   = sbuf0 + ESDGHalfShareSize<NQ>();                                          /* [NFIN2][NP] (PARK) */
  PetscReal                  *sJa    = (PetscReal *)(sfin + (PARK ? ESDG_NFIN2 * NP : 0));                       /* [9] (CART) */
  const int                   n      = threadIdx.x;
  const PetscInt              l      = (PetscInt)blockIdx.x * blockDim.y + threadIdx.y;
  const bool                  active = l < a.nList;
  const PetscInt              e      = active ? a.elist[l] : 0;
  PetscReal                   own[SQUALL_NAUX], acc[5] = {0, 0, 0, 0, 0};
  SquallGas                   gas = gasp;
  const PetscInt              lf  = l + (PetscInt)a.pfBlocks * blockDim.y; /* the element of the block a.pfBlocks ahead, prefetched */
  const PetscInt              ef  = a.pfBlocks && lf < a.nList ? a.elist[lf] : -1;

  gas.departures = DEP; /* a compile-time constant: the volume's pairs need the pressure's departures only (no entropy jumps) */
  gas.scaled     = 1;   /* the pair values in own and saux are scaled: four multiplications fewer per pair */

  /* 2 w is 1 or 2, so the products are exact: the same values the pair loop formed before */
  for (int t = threadIdx.x + threadIdx.y * blockDim.x; t < NQ * NH; t += blockDim.x * blockDim.y) {
    const int       i = t / NH, o = t % NH + 1, m = (i + o) % NQ;
    const PetscReal w2 = (NQ % 2 == 0 && o == NH) ? (PetscReal)1 : (PetscReal)2;
    sDD[t]             = make_ESDGReal2(w2 * a.D[i * NQ + m], w2 * a.D[m * NQ + i]);
  }
  if (active) {
    /* a box element's metric is constant: nine values for the whole element */
    if (CART)
      for (int k = n; k < 9; k += NP) sJa[k] = a.Ja[((size_t)e * 9 + k) * NP];
    if (PARK) {
      PetscReal fin[ESDG_NFIN];
      FinishValues<NQ>(a, e, n, Q, fin);
#pragma unroll
      for (int k = 0; k < ESDG_NFIN2; k++) sfin[k * NP + n] = make_ESDGReal2(fin[2 * k], fin[2 * k + 1]);
    }
    NodeAux<NQ>(gas, a, e, n, Q, own);
    SquallEulerScalePair(own);
#pragma unroll
    for (int k = 0; k < ESDG_NAUX2; k++) saux[k * NP + n] = make_ESDGReal2(own[ESDGPairValue[2 * k]], own[ESDGPairValue[2 * k + 1]]);
    if (DEP) saux[ESDG_NAUX2 * NP + n] = make_ESDGReal2(own[SQ_DRHO], own[SQ_DB]);
  }
  __syncthreads();
  const size_t qf     = ef >= 0 && n < 12 ? (size_t)a.gslot[ef] * 5 * NP : 0; /* its latency is hidden by the first direction */
  const int    idx[3] = {n % NQ, (n / NQ) % NQ, n / (NQ * NQ)};
#pragma unroll
  for (int d = 0; d < 3; d++) {
    if (d == 1 && ef >= 0)
      for (int k = n; k < 12; k += NP) PrefetchElement<NQ>(a, ef, qf, k, Q);
    const int  stride = d == 0 ? 1 : (d == 1 ? NQ : NQ * NQ), i = idx[d], base = n - i * stride;
    ESDGReal2 *sbuf  = sbuf0;
    PetscReal *sbuf1 = (PetscReal *)(sbuf + 2 * NH * NP);
    const bool on    = active && ((a.parts >> d) & 1); /* a direction left out of this RHS (HEVI's parts) */
    if (on) {
      PetscReal nown[3];
#pragma unroll
      for (int c = 0; c < 3; c++) nown[c] = CART ? sJa[d * 3 + c] : a.Ja[((size_t)e * 9 + d * 3 + c) * NP + n];
#pragma unroll
      for (int o = 1; o <= NH; o++) {
        const int  m = (i + o) % NQ, p = base + m * stride;
        PetscReal  other[SQUALL_NAUX], nv[3], F1[5], F2[5];
        const bool grav = !(CART && d < 2); /* boxes: no gravity term along x and y (Phi constant along those lines) */
#pragma unroll
        for (int k = 0; k < ESDG_NAUX2; k++) {
          if (!grav && k == ESDG_NAUX2 - 1) { /* Phi and 1/b: not needed */
            other[SQ_PHI]  = own[SQ_PHI];
            other[SQ_INVB] = own[SQ_INVB];
            continue;
          }
          const ESDGReal2 v               = saux[k * NP + p];
          other[ESDGPairValue[2 * k]]     = v.x;
          other[ESDGPairValue[2 * k + 1]] = v.y;
        }
        if (DEP) {
          const ESDGReal2 v = saux[ESDG_NAUX2 * NP + p];
          other[SQ_DRHO]    = v.x;
          other[SQ_DB]      = v.y;
        }
        PairNormal<NQ, CART>(a, e, d, n, p, nown, nv);
        PairFluxes<CART>(gas, own, other, d, nv, F1, F2, grav);
        const PetscReal s1 = sDD[i * NH + o - 1].x; /* the partner's factor .y is applied by the partner */
#pragma unroll
        for (int k = 0; k < 5; k++) acc[k] -= s1 * F1[k];
        ESDGReal2 *b = sbuf + (o - 1) * 2 * NP + n;
        /* the partner multiplies the unscaled F2 in with an FMA, its factor from the same table */
        b[0]                    = make_ESDGReal2(F2[0], F2[1]);
        b[NP]                   = make_ESDGReal2(F2[2], F2[3]);
        sbuf1[(o - 1) * NP + n] = F2[4];
      }
    }
    __syncthreads();
    if (on) {
#pragma unroll
      for (int o = 1; o <= NH; o++) {
        const int        isrc = (i - o + NQ) % NQ, src = base + isrc * stride;
        const ESDGReal2 *b  = sbuf + (o - 1) * 2 * NP + src;
        const ESDGReal2  b0 = b[0], b1 = b[NP];
        const PetscReal  b4 = sbuf1[(o - 1) * NP + src];
        const PetscReal  s2 = sDD[isrc * NH + o - 1].y; /* the sender's s2 */
        acc[0] -= s2 * b0.x;
        acc[1] -= s2 * b0.y;
        acc[2] -= s2 * b1.x;
        acc[3] -= s2 * b1.y;
        acc[4] -= s2 * b4;
      }
    }
    __syncthreads(); /* the next direction overwrites the shares */
  }
  if (!active) return;
  /* F is NULL in a fused stage: no pointer into it is formed here */
  PetscReal fin[ESDG_NFIN];
  if (PARK) {
#pragma unroll
    for (int k = 0; k < ESDG_NFIN2; k++) {
      const ESDGReal2 v = sfin[k * NP + n];
      fin[2 * k]        = v.x;
      fin[2 * k + 1]    = v.y;
    }
  } else
    FinishValues<NQ>(a, e, n, Q, fin);
  FinishApply(a, fin, acc);
  SubtractReference<NQ>(a, e, n, acc);
  AddSponge<NQ>(a, e, n, Q, acc);
  StoreRHS<NQ>(gas, a, e, n, F, acc);
}

/* The half sweep over the elements a.elist[0, a.nList). W, the blocks resident at once on the device, is
   the unit of the prefetch distance: found once per instantiation by the occupancy query. */
template <int NQ, bool CART, int MINB, bool DEP> static PetscErrorCode ESDGLaunchHalf(const SquallGas &gas, const ESDGArgs &a, PetscReal waves, int grid, dim3 block, PetscScalar *F, const PetscScalar *Q, cudaStream_t stream)
{
  static int   W   = 0;
  const size_t shm = ESDGHalfBytes<NQ, CART, DEP>();
  ESDGArgs     ap  = a;

  PetscFunctionBegin;
  PetscCallCUDA(cudaFuncSetAttribute(ESDGVolumeHalf<NQ, CART, MINB, DEP>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
  if (waves > 0 && !W) {
    int nb, dev, sms;
    PetscCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, ESDGVolumeHalf<NQ, CART, MINB, DEP>, (int)(block.x * block.y), shm));
    PetscCallCUDA(cudaGetDevice(&dev));
    PetscCallCUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    W = PetscMax(1, nb * sms);
  }
  ap.pfBlocks = waves > 0 ? PetscMax(1, (int)(W * waves)) : 0;
  ESDGVolumeHalf<NQ, CART, MINB, DEP><<<grid, block, shm, stream>>>(gas, ap, Q, F);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the volume kernel over elist[first, first + count): box or curved metric, with or without departures */
template <int NQ> static PetscErrorCode ESDGLaunchVolume(const struct _n_SquallESDGKernels *c, const SquallESDGKernelArgs *in, PetscInt first, PetscInt count)
{
  constexpr int NP = NQ * NQ * NQ, EPB = ESDGElementsPerBlock<NQ>();
  constexpr int MB = ESDGVolumeMinBlocks<NQ, true>(), MC = ESDGVolumeMinBlocks<NQ, false>();
  ESDGArgs      a = ESDGGetArgs(c, in);
  const dim3    block(NP, EPB);
  const int     grid   = (int)((count + EPB - 1) / EPB);
  const bool    dep    = in->gas.departures != 0;
  cudaStream_t  stream = NULL;

  PetscFunctionBegin;
  if (!count) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SquallCUDAGetStream(&stream));
  a.elist = c->elist + first;
  a.nList = count;
  if (c->box && dep)
    PetscCall((ESDGLaunchHalf<NQ, true, MB, true>(in->gas, a, c->prefetchWaves, grid, block, in->F, in->Q, stream)));
  else if (c->box)
    PetscCall((ESDGLaunchHalf<NQ, true, MB, false>(in->gas, a, c->prefetchWaves, grid, block, in->F, in->Q, stream)));
  else if (dep)
    PetscCall((ESDGLaunchHalf<NQ, false, MC, true>(in->gas, a, c->prefetchWaves, grid, block, in->F, in->Q, stream)));
  else
    PetscCall((ESDGLaunchHalf<NQ, false, MC, false>(in->gas, a, c->prefetchWaves, grid, block, in->F, in->Q, stream)));
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
