/* The hipBone operator's sweep kernel (-hb_kernel sweep, N <= 9): a layer sweep of several low-order
   elements per block. Part of the translation units of src/cuda/hbop<geometry>.cu, through
   src/cuda/hboplocal.cuh; not a header of its own.

   At low order a block of one element (Nq^2 threads for the layer kernel, 4 to 81 at Nq <= 9) leaves
   most lanes of a warp idle, and a thread per node (a 3D block) reads every operand of the three
   contractions from shared memory (10-12 loads per node and m). Here a block of HBElemsSweep elements
   of Nq^2 threads (about 256 threads) sweeps its elements layer by layer. A thread owns the column
   (i, j) of its element and holds in registers the column's q, its results and the column-shaped D
   operands D[i][m], D[m][i] (4 Nq reals), so that the t-derivative and its transpose use no shared
   memory (D from the constant cache: every lane wants the same D[k][m]), and per node and m it loads
   q[j][m], D[j][m], q[m][i] for the gradient and r[j][m], D[m][j], s[m][i] for the divergence: 6 loads,
   of which the four row-shaped ones read m, m+1 as one 16-byte vector at even Nq, 4 Nq LDS instructions
   per node: Nq / 4 cycles per node at even Nq and 3 Nq / 8 at odd Nq in the layer kernel's model, plus
   about 0.3 for the stores and the D columns, where a node's HBM time is about 4.5 clocks. The slices
   are unpadded within an element (a node's address is its thread's index), but where a half-warp spans
   two elements, Nq = 3, 6, 7, 9, 10, their column-shaped loads x[m][i] would meet in bank pairs: the
   elements' slices start HBPitchSweep reals apart, which moves the conflicts to the node-shaped stores.
   The q, r and s slices alternate between two copies and the next layer's q is stored with this layer's
   r and s, so that one barrier per layer suffices. Every global load of the column is written before the
   first barrier (index, the six factors of all layers, then x); ptxas keeps in flight what
   HBRegsSweep allows and moves the later layers' factors into the sweep.
   A block's elements past e1 read the last element (no predicated loads), write nothing.
   ptxas -v (sm_90, nvcc 13.0), registers and spill bytes, Nq = 2..10: double (cap 128, 2 blocks of up
   to 8 warps per SM) 72, 112, then 128; 8 bytes of spill at Nq = 8, 9 and 16 at 10, none at Nq <= 7;
   12-16 KB of static shared memory. Single (cap 80, 3 blocks) 40, 64, then 80; 8 bytes of spill at
   Nq = 8, 4 at 10; 6-8 KB. Left alone nvcc takes 168-255 registers from Nq = 4 on (double: one block
   per SM) for the factors of every layer in flight. */
#pragma once
#include "cuda/hbopdevice.cuh"

/* elements per block: 128 to 256 threads (two blocks of 128 registers per thread fit on an SM) with the
   fewest idle lanes in the last warp, of equals the largest (Nq = 2..10: 64, 28, 16, 10, 7, 5, 4, 3, 2
   elements, 256, 252, 256, 250, 252, 245, 256, 243, 200 threads) */
__host__ __device__ constexpr int HBElemsSweep(int Nq)
{
  const int lo = (128 + Nq * Nq - 1) / (Nq * Nq), hi = 256 / (Nq * Nq) < 1 ? 1 : 256 / (Nq * Nq);
  int       best = hi;

  for (int ne = hi - 1; ne >= lo; ne--) {
    const int t = ne * Nq * Nq, lanes = (t + 31) / 32 * 32, tb = best * Nq * Nq, lanesb = (tb + 31) / 32 * 32;

    if ((lanes - t) * lanesb < (lanesb - tb) * lanes) best = ne; /* a smaller fraction of idle lanes */
  }
  return best;
}
__host__ __device__ constexpr int HBThreadsSweep(int Nq)
{
  return HBElemsSweep(Nq) * Nq * Nq;
}
/* reals from one element's slice to the next: Nq^2, or padded where a half-warp that spans two elements
   would otherwise see its column-shaped loads of both in one bank pair (see above) */
__host__ __device__ constexpr int HBPitchSweep(int Nq)
{
  return Nq == 3 ? 12 : (Nq == 6 ? 38 : (Nq == 7 ? 55 : (Nq == 9 ? 89 : (Nq == 10 ? 108 : Nq * Nq))));
}
/* registers per thread to ask for (see HBMinBlocks): two blocks of up to 8 warps per SM in double, three in
   single (ptxas -v in the comment above); at Nq <= 3, where a column holds 3 nodes, 64 for four blocks (Nq = 3:
   112 registers uncapped at 128, 80 with no spill, 64 with 8 bytes): N = 2 89 -> 93%, N = 1 99 -> 100% of the
   roofline */
__host__ __device__ constexpr int HBRegsSweep(int Nq)
{
#if defined(PETSC_USE_REAL_SINGLE)
  return 80;
#else
  return Nq <= 3 ? 64 : 128;
#endif
}

template <int Nq, int GEO> __global__ static void __launch_bounds__(HBThreadsSweep(Nq), HBMinBlocks(HBThreadsSweep(Nq), HBRegsSweep(Nq))) HBLocalOpSweep(PetscInt e0, PetscInt e1, HBOpArgs a)
{
  constexpr int  Nq2 = Nq * Nq, Np = Nq2 * Nq, NE = HBElemsSweep(Nq), P = HBPitchSweep(Nq);
  constexpr bool pair = Nq % 2 == 0;                                              /* rows start at even words and lanes: m, m+1 in one vector load */
  __shared__ __align__(16) PetscReal sD[Nq2], sDT[Nq2];                           /* D[a][b], D[b][a] at a Nq + b */
  __shared__ __align__(16) PetscReal sq[2][NE * P], sr[2][NE * P], ss[2][NE * P]; /* [copy][element][j][i], element pitch P */
  const PetscReal                   *cD = HBConstD + HBConstOffset(Nq);           /* D[k][m]: the same k and m in every thread */
  const int                          t = threadIdx.x, le = t / Nq2, n = t - le * Nq2, i = t % Nq, j = (t / Nq) % Nq;
  const int                          node = le * P + n, row = node - i, col = le * P + i; /* the thread's node, row j and column i in the slices */
  const PetscInt                     e      = e0 + (PetscInt)blockIdx.x * NE + le;
  const bool                         active = e < e1;
  const PetscInt                     elem   = active ? e : e1 - 1;
  const size_t                       base   = (size_t)elem * Np + n;
  PetscReal                          rq[Nq], ra[Nq], g[Nq][SQUALL_SEM_NGEO], di[Nq], dti[Nq];

  {
    const HBGeoColumn<HBGeo(GEO)> geo(a, base, elem, i, j);
    PetscInt                      l[Nq];

#pragma unroll
    for (int k = 0; k < Nq; k++) l[k] = __ldg(a.gidx + base + Nq2 * k);
#pragma unroll
    for (int k = 0; k < Nq; k++) geo.template at<Nq>(a, k, g[k]);
#pragma unroll
    for (int k = 0; k < Nq; k++) rq[k] = HBReadXLdg(a, l[k]);
#pragma unroll
    for (int k = 0; k < Nq; k++) ra[k] = 0;
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
  {
    PetscReal dot = 0;

    if (active) {
#pragma unroll
      for (int k = 0; k < Nq; k++) HBStoreNode<HBAtomic(GEO)>(a, base + Nq2 * k, ra[k], rq[k], dot);
    }
    HBFlushDot<HBAtomic(GEO)>(a, dot);
    if (!HBAtomic(GEO) && active) HBColumnDot<Nq>(a, base, dot);
  }
}
