/* The hipBone operator's 3D element kernels (one thread per node, several elements per block): v1 and v2,
   and HBMinBlocks, the register request the later kernels share.
   Part of the translation unit of src/cuda/hbop.cu, which includes it; not a header of its own. */
#pragma once
#include "cuda/hbopdevice.cuh"

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
