/* The hipBone operator's tiled layer kernel (-hb_kernel layers_tiled) and its launchers.
   Part of the translation units of src/cuda/hbop<geometry>.cu, through src/cuda/hboplocal.cuh; not a header of its own.

   The layer kernel's sweep (src/cuda/hblayers.cuh) with two nodes per thread, (i, j) and (i, j + J),
   J = ceil(Nq / 2): a block of W x J threads (W = Nq rounded up to even; at odd Nq the last column and
   the last row of nodes are pads: their threads read their neighbour's node from global memory, fill
   the pad entries of the shared arrays, and write no y_L), so that every load of column shape x[m][i]
   (D^T[m][i], q[k][m][i], D[m][i], s[l][m][i]) serves both nodes of the thread (register tiling in j).
   In the layer kernel's model of shared-memory cycles (per warp of 32 threads = 64 nodes per layer,
   per m and step of L layers: 12 cycles shared by the layers, 8 per layer) that is (12 + 8 L) Nq / (64 L)
   cycles per node against (8 + 6 L) Nq / (32 L) for one node per thread: 3.5 / 3.0 / 2.75 at Nq = 16 and
   L = 2 / 3 / 4 against 5.0 / 4.33 / 4.0 (30% fewer); only the column shape gains. Nq = 13, 14 gain
   least: 98 threads take 4 warps, the last with 2 lanes.
   Registers: two result columns ra[2][Nq] and, per layer, 2 x (qr, qs, qt, g[6], w): 2 Nq + 20 L reals
   (72 at Nq = 16, L = 2). Left alone nvcc takes 200-255 registers (double). The shared memory,
   (2 + Nq + 4 L) W P reals, allows 3 blocks of 4 warps at Nq = 16 for L = 2, 3 and 2 for L = 4.
   ptxas -v (sm_90, nvcc 13.0) at the caps of HBRegsTiled, registers / spill bytes, L = 2 / 3 / 4:
     double  (168 / 255 / 255)  Nq = 10, 11, 12, 13: 164-168 / 236-254 / 252-254, no spill; 14: 168 (24) /
             254 / 254; 15: 168 (16) / 255 (4) / 255 (16); 16: 168 (48) / 255 (16) / 255 (244)
     single  (128 / 168 / 168)  Nq = 10, 13, 15, 16: 120-121 / 134-160 / 152-163, no spill
   Blocks per SM in double: L = 2 (168 registers): Nq = 10: 6 (12 warps), 11, 12: 4 (12), 13-16: 3 (12);
   L = 3, 4 (255): Nq = 10: 4 (8 warps), 11-16: 2 (6-8 warps): two columns per thread (ILP), not
   warps, must hide the latencies.
   The G and W of a step are requested at its start (fewer live values). The arithmetic of each node is
   the layer kernel's, operation for operation. */
#pragma once
#include "cuda/hblayers.cuh"

/* the block: W = Nq rounded up to even threads per row, J = ceil(Nq / 2) rows, W rows of nodes
   (ja = j, jb = j + J; W = 2 J), pitch P of every shared array */
__host__ __device__ constexpr int HBWidthTiled(int Nq)
{
  return Nq + (Nq & 1);
}
__host__ __device__ constexpr int HBPitchTiled(int Nq)
{
  return HBWidthTiled(Nq) % 16 == 0 ? HBWidthTiled(Nq) + 2 : HBWidthTiled(Nq);
}
__host__ __device__ constexpr size_t HBSharedTiled(int Nq, int L)
{
  return (size_t)(2 * HBWidthTiled(Nq) * HBPitchTiled(Nq) + (Nq + 4 * L) * HBWidthTiled(Nq) * HBPitchTiled(Nq)) * sizeof(PetscReal);
}
/* registers per thread to ask for (see HBMinBlocks): left alone nvcc takes 200-255 (it hoists shared
   loads); L = 2 at 168 spills at most 48 bytes (3 blocks of 4 warps at Nq = 16, all that the shared
   memory allows), L = 3, 4 need about 255 (at 168: 2.4 KB of spill at Nq = 16, L = 3) */
__host__ __device__ constexpr int HBRegsTiled(int Nq, int L)
{
#if defined(PETSC_USE_REAL_SINGLE)
  return L == 2 ? 128 : 168;
#else
  return L == 2 ? 168 : 255;
#endif
}

/* The tiled layer kernel; one piece, as the sweep's barriers and both register columns span it */
template <int Nq, int L, int GEO> __global__ static void __launch_bounds__(HBWidthTiled(Nq) * ((Nq + 1) / 2), HBMinBlocks(HBWidthTiled(Nq) * ((Nq + 1) / 2), HBRegsTiled(Nq, L))) HBLocalOpTiled(PetscInt e0, HBOpArgs a)
{
  constexpr int     Np = Nq * Nq * Nq, Nq2 = Nq * Nq, W = HBWidthTiled(Nq), J = (Nq + 1) / 2, P = HBPitchTiled(Nq);
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
  const HBGeoColumn<HBGeo(GEO)>                 geo[2]  = {HBGeoColumn<HBGeo(GEO)>(a, base[0], e0 + (PetscInt)blockIdx.x, ig, j), HBGeoColumn<HBGeo(GEO)>(a, base[1], e0 + (PetscInt)blockIdx.x, ig, j + J < Nq ? j + J : Nq - 1)};
  PetscReal                                     ra[2][Nq], g[L][2][SQUALL_SEM_NGEO];

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
        for (int h = 0; h < 2; h++) geo[h].template at<Nq>(a, k0 + l, g[l][h]);
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
  {
    PetscReal dot[2] = {0, 0};

#pragma unroll
    for (int h = 0; h < 2; h++) {
      if (own[h]) {
#pragma unroll
        for (int k = 0; k < Nq; k++) HBStoreNode<HBAtomic(GEO)>(a, base[h] + Nq2 * k, ra[h][k], sq[k * LM + ij[h]], dot[h]);
        if (!HBAtomic(GEO)) HBColumnDot<Nq>(a, base[h], dot[h]);
      }
    }
    HBFlushDot<HBAtomic(GEO)>(a, dot[0] + dot[1]);
  }
}

/* the tiled kernel's launch; its dynamic shared memory goes above 48 KB from Nq = 15 on (L = 2) */
template <int Nq, int L, int GEO> static PetscErrorCode HBLaunchTiledL(PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  static bool  allowed = false;
  const size_t shm     = HBSharedTiled(Nq, L);

  PetscFunctionBegin;
  static_assert(HBSharedTiled(Nq, L) <= 227 * 1024, "tiled layer kernel: shared memory above the 227 KB per block of sm_90");
  static_assert(HBPitchTiled(Nq) >= HBWidthTiled(Nq) && HBPitchTiled(Nq) % 2 == 0 && HBWidthTiled(Nq) == 2 * ((Nq + 1) / 2), "tiled layer kernel: W rows of even pitch P >= W");
  if (!allowed) {
    PetscCallCUDA(cudaFuncSetAttribute(HBLocalOpTiled<Nq, L, GEO>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
    allowed = true;
  }
  HBLocalOpTiled<Nq, L, GEO><<<(unsigned int)(e1 - e0), dim3(HBWidthTiled(Nq), (Nq + 1) / 2), shm, stream>>>(e0, a);
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int Nq, int GEO> static PetscErrorCode HBLaunchTiled(PetscInt L, PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(HBWithLayers(L, [&](auto l) { return HBLaunchTiledL<Nq, decltype(l)::value, GEO>(e0, e1, a, stream); }));
  PetscFunctionReturn(PETSC_SUCCESS);
}
