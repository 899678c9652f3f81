/* The ESDG right-hand side on the GPU. Same semi-discretisation and the same pointwise functions
   (src/physics/euler.h) as the C reference in src/ts/esdgrhs.c; only the data movement differs.
   - volume: one thread per node, several elements per block for small N, the element's per-node
     values (primitives, logs, 1/b) in shared memory, the three directions fused. Two variants:
     "full" (every node evaluates all its pairs) and "half" (each unordered pair once, with the
     load-balanced cyclic assignment of Waterhouse et al., arXiv:2605.16684 (2026), sec. 4.1:
     thread i takes partners i+1..i+floor(Nq/2) mod Nq, the antipodal pair of an even Nq weighted
     1/2 from both sides, and hands the partner's share over through shared memory);
   - surface + finalisation: one block per element, face fluxes into shared memory, then every
     node sums its faces in the reference's order, divides by J and adds the Coriolis force.
     Elements without ghost neighbours are finished before the ghost exchange completes. */
#include <petscdevice_cuda.h>
#include <climits>
#include "ts/esdgimpl.h"
#include "cuda/squallcuda.h"
#include "cuda/cudautil.h"

#define SQ_BOUNDARY INT_MIN

typedef struct {
  PetscInt   nOwned, Np, Nq;
  PetscInt   nInterior, nHalo;
  PetscInt  *gslot; /* [nOwned] */
  PetscInt  *vmapP; /* [nOwned*6*Nfp]: >= 0 index gslot*Np+n into Q, < 0 -(slot*Np+n)-1 into Qloc, SQ_BOUNDARY */
  PetscReal *PhiP;  /* [nOwned*6*Nfp] partner's Phi */
  PetscReal *Phi;   /* [nOwned*Np] */
  PetscReal *J;     /* [nOwned*Np] */
  PetscReal *Ja;    /* [nOwned*9*Np] */
  PetscReal *fcor;  /* [nOwned*Np] Coriolis parameter, or NULL */
  PetscReal *D;     /* [Nq*Nq] */
  PetscInt  *elist; /* interior elements, then halo elements */
  int       *bad;   /* set when a kernel meets density or pressure <= 0 */
  PetscReal *red;   /* small reduction buffer */
  PetscBool  half;
} ESDGCuda;

typedef struct {
  const PetscInt  *gslot, *vmapP, *elist;
  const PetscReal *PhiP, *Phi, *J, *Ja, *fcor, *D;
  int             *bad;
  PetscInt         nOwned, nList;
  PetscReal        wb;
} ESDGArgs;

static ESDGArgs ESDGGetArgs(const ESDGCuda *c, PetscReal wb)
{
  ESDGArgs a;
  a.gslot  = c->gslot;
  a.vmapP  = c->vmapP;
  a.elist  = c->elist;
  a.PhiP   = c->PhiP;
  a.Phi    = c->Phi;
  a.J      = c->J;
  a.Ja     = c->Ja;
  a.fcor   = c->fcor;
  a.D      = c->D;
  a.bad    = c->bad;
  a.nOwned = c->nOwned;
  a.nList  = 0;
  a.wb     = wb;
  return a;
}

/* elements per block: enough threads to keep a block busy for small N */
template <int NQ> static constexpr int ESDGElementsPerBlock()
{
  return NQ * NQ * NQ >= 96 ? 1 : (96 + NQ * NQ * NQ - 1) / (NQ * NQ * NQ);
}

/* the surface kernel gives each element max(Np, 6 Nfp) threads: one per face node for the fluxes,
   one per node for the finalisation */
template <int NQ> static constexpr int ESDGSurfaceThreads()
{
  return NQ * NQ * NQ > 6 * NQ * NQ ? NQ * NQ * NQ : 6 * NQ * NQ;
}

template <int NQ> static constexpr int ESDGSurfaceElementsPerBlock()
{
  return ESDGSurfaceThreads<NQ>() >= 96 ? 1 : (96 + ESDGSurfaceThreads<NQ>() - 1) / ESDGSurfaceThreads<NQ>();
}

template <int NQ> __device__ static inline void LoadAux(const SquallGas &gas, const ESDGArgs &a, PetscInt e, int n, const PetscScalar *__restrict__ Q, PetscReal *own, PetscReal *saux)
{
  constexpr int      NP = NQ * NQ * NQ;
  PetscReal          q[5];
  const PetscScalar *qe = Q + (size_t)a.gslot[e] * 5 * NP;
#pragma unroll
  for (int f = 0; f < 5; f++) q[f] = qe[f * NP + n];
  if (SquallEulerAux(&gas, q, a.Phi[(size_t)e * NP + n], own)) atomicOr(a.bad, 1);
#pragma unroll
  for (int k = 0; k < SQUALL_NAUX; k++) saux[k * NP + n] = own[k];
}

/* metric vector of direction d for the pair (n, p): the average of the two nodes' Ja^d, or Ja^d itself on boxes */
template <int NQ, bool CART> __device__ static inline void PairNormal(const ESDGArgs &a, PetscInt e, int d, int n, int p, const PetscReal nown[3], PetscReal nv[3])
{
  constexpr int NP = NQ * NQ * NQ;
#pragma unroll
  for (int c = 0; c < 3; c++) nv[c] = CART ? nown[c] : (PetscReal)0.5 * (nown[c] + a.Ja[((size_t)e * 9 + d * 3 + c) * NP + p]);
}

template <int NQ, bool CART> __global__ static void __launch_bounds__(NQ *NQ *NQ *ESDGElementsPerBlock<NQ>()) ESDGVolumeFull(const SquallGas gas, const ESDGArgs a, const PetscScalar *__restrict__ Q, PetscScalar *__restrict__ F)
{
  constexpr int               NP = NQ * NQ * NQ;
  extern __shared__ PetscReal sm[];
  PetscReal                  *sD     = sm;
  PetscReal                  *saux   = sm + NQ * NQ + threadIdx.y * SQUALL_NAUX * NP;
  const int                   n      = threadIdx.x;
  const PetscInt              e      = (PetscInt)blockIdx.x * blockDim.y + threadIdx.y;
  const bool                  active = e < a.nOwned;
  PetscReal                   own[SQUALL_NAUX], acc[5] = {0, 0, 0, 0, 0};

  for (int i = threadIdx.x + threadIdx.y * blockDim.x; i < NQ * NQ; i += blockDim.x * blockDim.y) sD[i] = a.D[i];
  if (active) LoadAux<NQ>(gas, a, e, n, Q, own, saux);
  __syncthreads();
  if (!active) return;
  const int idx[3] = {n % NQ, (n / NQ) % NQ, n / (NQ * NQ)};
#pragma unroll
  for (int d = 0; d < 3; d++) {
    const int stride = d == 0 ? 1 : (d == 1 ? NQ : NQ * NQ), i = idx[d], base = n - i * stride;
    PetscReal nown[3];
#pragma unroll
    for (int c = 0; c < 3; c++) nown[c] = a.Ja[((size_t)e * 9 + d * 3 + c) * NP + n];
#pragma unroll
    for (int m = 0; m < NQ; m++) {
      if (m == i) continue;
      const int p = base + m * stride;
      PetscReal other[SQUALL_NAUX], nv[3], Fs[5], G[3];
#pragma unroll
      for (int k = 0; k < SQUALL_NAUX; k++) other[k] = saux[k * NP + p];
      PairNormal<NQ, CART>(a, e, d, n, p, nown, nv);
      SquallEulerECFlux(&gas, own, other, nv, Fs, G);
      const PetscReal s = 2 * sD[i * NQ + m];
      acc[0] -= s * Fs[0];
      acc[1] -= s * (Fs[1] + G[0]);
      acc[2] -= s * (Fs[2] + G[1]);
      acc[3] -= s * (Fs[3] + G[2]);
      acc[4] -= s * Fs[4];
    }
  }
  PetscScalar *fe = F + (size_t)a.gslot[e] * 5 * NP;
#pragma unroll
  for (int f = 0; f < 5; f++) fe[f * NP + n] = acc[f];
}

template <int NQ, bool CART> __global__ static void __launch_bounds__(NQ *NQ *NQ *ESDGElementsPerBlock<NQ>()) ESDGVolumeHalf(const SquallGas gas, const ESDGArgs a, const PetscScalar *__restrict__ Q, PetscScalar *__restrict__ F)
{
  constexpr int               NP = NQ * NQ * NQ, NH = NQ / 2;
  extern __shared__ PetscReal sm[];
  PetscReal                  *sD     = sm;
  PetscReal                  *saux   = sm + NQ * NQ + threadIdx.y * (SQUALL_NAUX + 5 * NH) * NP;
  PetscReal                  *sbuf   = saux + SQUALL_NAUX * NP; /* [NH][5][NP]: shares handed to partners */
  const int                   n      = threadIdx.x;
  const PetscInt              e      = (PetscInt)blockIdx.x * blockDim.y + threadIdx.y;
  const bool                  active = e < a.nOwned;
  PetscReal                   own[SQUALL_NAUX], acc[5] = {0, 0, 0, 0, 0};

  for (int i = threadIdx.x + threadIdx.y * blockDim.x; i < NQ * NQ; i += blockDim.x * blockDim.y) sD[i] = a.D[i];
  if (active) LoadAux<NQ>(gas, a, e, n, Q, own, saux);
  __syncthreads();
  const int idx[3] = {n % NQ, (n / NQ) % NQ, n / (NQ * NQ)};
#pragma unroll
  for (int d = 0; d < 3; d++) {
    const int stride = d == 0 ? 1 : (d == 1 ? NQ : NQ * NQ), i = idx[d], base = n - i * stride;
    if (active) {
      PetscReal nown[3];
#pragma unroll
      for (int c = 0; c < 3; c++) nown[c] = a.Ja[((size_t)e * 9 + d * 3 + c) * NP + n];
#pragma unroll
      for (int o = 1; o <= NH; o++) {
        const int m = (i + o) % NQ, p = base + m * stride;
        PetscReal other[SQUALL_NAUX], nv[3], Fs[5], G1[3], G2[3];
#pragma unroll
        for (int k = 0; k < SQUALL_NAUX; k++) other[k] = saux[k * NP + p];
        PairNormal<NQ, CART>(a, e, d, n, p, nown, nv);
        SquallEulerECFluxPair(&gas, own, other, nv, Fs, G1, G2);
        const PetscReal w  = (NQ % 2 == 0 && o == NH) ? (PetscReal)0.5 : (PetscReal)1;
        const PetscReal s1 = 2 * w * sD[i * NQ + m], s2 = 2 * w * sD[m * NQ + i];
        acc[0] -= s1 * Fs[0];
        acc[1] -= s1 * (Fs[1] + G1[0]);
        acc[2] -= s1 * (Fs[2] + G1[1]);
        acc[3] -= s1 * (Fs[3] + G1[2]);
        acc[4] -= s1 * Fs[4];
        PetscReal *b = sbuf + (o - 1) * 5 * NP + n;
        b[0]         = -s2 * Fs[0];
        b[NP]        = -s2 * (Fs[1] + G2[0]);
        b[2 * NP]    = -s2 * (Fs[2] + G2[1]);
        b[3 * NP]    = -s2 * (Fs[3] + G2[2]);
        b[4 * NP]    = -s2 * Fs[4];
      }
    }
    __syncthreads();
    if (active) {
#pragma unroll
      for (int o = 1; o <= NH; o++) {
        const int src = base + ((i - o + NQ) % NQ) * stride;
#pragma unroll
        for (int f = 0; f < 5; f++) acc[f] += sbuf[((o - 1) * 5 + f) * NP + src];
      }
    }
    __syncthreads();
  }
  if (!active) return;
  PetscScalar *fe = F + (size_t)a.gslot[e] * 5 * NP;
#pragma unroll
  for (int f = 0; f < 5; f++) fe[f * NP + n] = acc[f];
}

/* element node of face node q of face f (faces -x,+x,-y,+y,-z,+z; tangential indices in axis order) */
template <int NQ> __device__ static inline int FaceNode(int f, int q)
{
  const int d = f / 2, a = q % NQ, b = q / NQ, ext = (f % 2) ? NQ - 1 : 0;
  return d == 0 ? ext + NQ * (a + NQ * b) : (d == 1 ? a + NQ * (ext + NQ * b) : a + NQ * (b + NQ * ext));
}

template <int NQ>
__global__ static void __launch_bounds__(ESDGSurfaceThreads<NQ>() * ESDGSurfaceElementsPerBlock<NQ>())
  ESDGSurface(const SquallGas gas, const SquallSurfaceFluxType type, const ESDGArgs a, const PetscScalar *__restrict__ Q, const PetscScalar *__restrict__ Qloc, PetscScalar *__restrict__ F)
{
  constexpr int               NP = NQ * NQ * NQ, NFP = NQ * NQ;
  extern __shared__ PetscReal sm[];
  PetscReal                  *sflux  = sm + threadIdx.y * 6 * NFP * 5;
  const PetscInt              l      = (PetscInt)blockIdx.x * blockDim.y + threadIdx.y;
  const bool                  active = l < a.nList;
  const PetscInt              e      = active ? a.elist[l] : 0;
  const PetscReal            *Ja     = a.Ja + (size_t)e * 9 * NP;

  if (active) {
    for (int k = threadIdx.x; k < 6 * NFP; k += blockDim.x) { /* one pass: blockDim.x >= 6 Nfp */
      const int       f = k / NFP, q = k % NFP, d = f / 2, n = FaceNode<NQ>(f, q);
      const PetscReal sign = (f % 2) ? 1 : -1;
      const PetscInt  code = a.vmapP[((size_t)e * 6 + f) * NFP + q];
      PetscReal       nout[3], sf, nhat[3], qm[5], qp[5], am[SQUALL_NAUX], ap[SQUALL_NAUX], Fl[5], Phip;
#pragma unroll
      for (int c = 0; c < 3; c++) nout[c] = sign * Ja[(d * 3 + c) * NP + n];
      sf = sqrt(nout[0] * nout[0] + nout[1] * nout[1] + nout[2] * nout[2]);
#pragma unroll
      for (int c = 0; c < 3; c++) nhat[c] = nout[c] / sf;
      const PetscScalar *qe = Q + (size_t)a.gslot[e] * 5 * NP;
#pragma unroll
      for (int c = 0; c < 5; c++) qm[c] = qe[c * NP + n];
      if (SquallEulerAux(&gas, qm, a.Phi[(size_t)e * NP + n], am)) atomicOr(a.bad, 1);
      if (code == SQ_BOUNDARY) {
        SquallEulerMirrorState(qm, nhat, qp);
        Phip = am[SQ_PHI];
      } else {
        const PetscInt     g   = code >= 0 ? code : -code - 1;
        const PetscScalar *src = (code >= 0 ? Q : Qloc) + (size_t)(g / NP) * 5 * NP + g % NP;
#pragma unroll
        for (int c = 0; c < 5; c++) qp[c] = src[c * NP];
        Phip = a.PhiP[((size_t)e * 6 + f) * NFP + q];
      }
      if (SquallEulerAux(&gas, qp, Phip, ap)) atomicOr(a.bad, 1);
      SquallEulerSurfaceFlux(&gas, type, qm, am, qp, ap, nhat, Fl);
      const PetscReal scale = sf / a.wb;
#pragma unroll
      for (int c = 0; c < 5; c++) sflux[k * 5 + c] = -scale * Fl[c];
    }
  }
  __syncthreads();
  if (!active || threadIdx.x >= NP) return;
  const int n = threadIdx.x, idx[3] = {n % NQ, (n / NQ) % NQ, n / (NQ * NQ)};
  PetscReal s[5] = {0, 0, 0, 0, 0};
#pragma unroll
  for (int f = 0; f < 6; f++) {
    const int d = f / 2, ext = (f % 2) ? NQ - 1 : 0;
    if (idx[d] != ext) continue;
    const int t0 = d == 0 ? 1 : 0, t1 = d == 2 ? 1 : 2, q = idx[t0] + NQ * idx[t1];
#pragma unroll
    for (int c = 0; c < 5; c++) s[c] += sflux[(f * NFP + q) * 5 + c];
  }
  PetscScalar    *fe = F + (size_t)a.gslot[e] * 5 * NP;
  const PetscReal J  = a.J[(size_t)e * NP + n];
#pragma unroll
  for (int c = 0; c < 5; c++) fe[c * NP + n] = (fe[c * NP + n] + s[c]) / J;
  if (a.fcor) {
    /* -f k x (rho u), as in the reference */
    const PetscScalar *qe = Q + (size_t)a.gslot[e] * 5 * NP;
    const PetscReal    fc = a.fcor[(size_t)e * NP + n];
    fe[NP + n] += fc * qe[2 * NP + n];
    fe[2 * NP + n] -= fc * qe[NP + n];
  }
}

/* per-node reductions for the time step and the admissibility check: the max over nodes of
   sum_d (|u.Ja^d| + c|Ja^d|)/J, and the count of nodes with density or pressure <= 0 */
template <int NQ> __global__ static void ESDGNodeReduce(const SquallGas gas, const ESDGArgs a, const PetscScalar *__restrict__ Q, PetscReal *lmax, int *nbad)
{
  constexpr int NP  = NQ * NQ * NQ;
  PetscReal     lm  = 0;
  int           bad = 0;
  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < a.nOwned * NP; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt     e = i / NP, n = i % NP;
    const PetscScalar *qe = Q + (size_t)a.gslot[e] * 5 * NP;
    PetscReal          q[5], au[SQUALL_NAUX], lam = 0;
    for (int c = 0; c < 5; c++) q[c] = qe[c * NP + n];
    if (SquallEulerAux(&gas, q, a.Phi[i], au)) {
      bad++;
      continue;
    }
    for (int d = 0; d < 3; d++) {
      const PetscReal nv[3] = {a.Ja[((size_t)e * 9 + d * 3) * NP + n], a.Ja[((size_t)e * 9 + d * 3 + 1) * NP + n], a.Ja[((size_t)e * 9 + d * 3 + 2) * NP + n]};
      lam += SquallEulerMaxWaveSpeed(&gas, au, nv);
    }
    lm = fmax(lm, lam / a.J[i]);
  }
  /* block reduction through shared memory, then one atomic per block */
  __shared__ PetscReal sl[256];
  __shared__ int       sb[256];
  sl[threadIdx.x] = lm;
  sb[threadIdx.x] = bad;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h >>= 1) {
    if (threadIdx.x < h) {
      sl[threadIdx.x] = fmax(sl[threadIdx.x], sl[threadIdx.x + h]);
      sb[threadIdx.x] += sb[threadIdx.x + h];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    /* wave rates are non-negative, so their bit patterns order like integers */
    if (sizeof(PetscReal) == 8)
      atomicMax((unsigned long long *)lmax, (unsigned long long)__double_as_longlong((double)sl[0]));
    else
      atomicMax((unsigned int *)lmax, (unsigned int)__float_as_int((float)sl[0]));
    atomicAdd(nbad, sb[0]);
  }
}

/* ---------------------------------------------------------------------------------------------
   host side */

template <int NQ> static PetscErrorCode ESDGLaunchVolume(SquallESDG s, const ESDGCuda *c, const PetscScalar *Q, PetscScalar *F, cudaStream_t stream)
{
  constexpr int  NP = NQ * NQ * NQ, EPB = ESDGElementsPerBlock<NQ>(), NH = NQ / 2;
  const ESDGArgs a = ESDGGetArgs(c, s->mesh->w[0]);
  const dim3     block(NP, EPB);
  const int      grid = (int)((c->nOwned + EPB - 1) / EPB);

  PetscFunctionBegin;
  if (!c->nOwned) PetscFunctionReturn(PETSC_SUCCESS);
  if (c->half) {
    const size_t shm = sizeof(PetscReal) * (NQ * NQ + (size_t)EPB * (SQUALL_NAUX + 5 * NH) * NP);
    if (s->mesh->cartesian) {
      PetscCallCUDA(cudaFuncSetAttribute(ESDGVolumeHalf<NQ, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
      ESDGVolumeHalf<NQ, true><<<grid, block, shm, stream>>>(s->gas, a, Q, F);
    } else {
      PetscCallCUDA(cudaFuncSetAttribute(ESDGVolumeHalf<NQ, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
      ESDGVolumeHalf<NQ, false><<<grid, block, shm, stream>>>(s->gas, a, Q, F);
    }
  } else {
    const size_t shm = sizeof(PetscReal) * (NQ * NQ + (size_t)EPB * SQUALL_NAUX * NP);
    if (s->mesh->cartesian) {
      PetscCallCUDA(cudaFuncSetAttribute(ESDGVolumeFull<NQ, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
      ESDGVolumeFull<NQ, true><<<grid, block, shm, stream>>>(s->gas, a, Q, F);
    } else {
      PetscCallCUDA(cudaFuncSetAttribute(ESDGVolumeFull<NQ, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
      ESDGVolumeFull<NQ, false><<<grid, block, shm, stream>>>(s->gas, a, Q, F);
    }
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int NQ> static PetscErrorCode ESDGLaunchSurface(SquallESDG s, const ESDGCuda *c, PetscInt first, PetscInt count, const PetscScalar *Q, const PetscScalar *Qloc, PetscScalar *F, cudaStream_t stream)
{
  constexpr int NFP = NQ * NQ, EPB = ESDGSurfaceElementsPerBlock<NQ>(), T = ESDGSurfaceThreads<NQ>();
  ESDGArgs      a   = ESDGGetArgs(c, s->mesh->w[0]);
  const size_t  shm = sizeof(PetscReal) * (size_t)EPB * 6 * NFP * 5;

  PetscFunctionBegin;
  if (!count) PetscFunctionReturn(PETSC_SUCCESS);
  a.elist = c->elist + first;
  a.nList = count;
  PetscCallCUDA(cudaFuncSetAttribute(ESDGSurface<NQ>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
  ESDGSurface<NQ><<<(int)((count + EPB - 1) / EPB), dim3(T, EPB), shm, stream>>>(s->gas, s->surface, a, Q, Qloc, F);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <int NQ> static PetscErrorCode ESDGLaunchReduce(SquallESDG s, const ESDGCuda *c, const PetscScalar *Q, cudaStream_t stream)
{
  const ESDGArgs a      = ESDGGetArgs(c, s->mesh->w[0]);
  const PetscInt nnodes = c->nOwned * NQ * NQ * NQ;

  PetscFunctionBegin;
  ESDGNodeReduce<NQ><<<(int)PetscMax(1, PetscMin((nnodes + 255) / 256, 1024)), 256, 0, stream>>>(s->gas, a, Q, c->red, (int *)(c->red + 1));
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the kernels are templated on Nq = N + 1 so every loop bound is a compile-time constant */
#define ESDG_DISPATCH(N, fn, args)                                                                             \
  do {                                                                                                         \
    switch (N) {                                                                                               \
      case 1: PetscCall(fn<2> args); break;                                                                    \
      case 2: PetscCall(fn<3> args); break;                                                                    \
      case 3: PetscCall(fn<4> args); break;                                                                    \
      case 4: PetscCall(fn<5> args); break;                                                                    \
      case 5: PetscCall(fn<6> args); break;                                                                    \
      case 6: PetscCall(fn<7> args); break;                                                                    \
      case 7: PetscCall(fn<8> args); break;                                                                    \
      case 8: PetscCall(fn<9> args); break;                                                                    \
      default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-esdg_order %d has no GPU kernel (1 to 8)", (int)(N)); \
    }                                                                                                          \
  } while (0)

template <typename T> static PetscErrorCode Upload(T **d, const T *h, size_t n)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)d, PetscMax(n, (size_t)1) * sizeof(T)));
  if (n) PetscCallCUDA(cudaMemcpy(*d, h, n * sizeof(T), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(T)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGSetUpCUDA(SquallESDG s)
{
  SquallDGMesh   m = s->mesh;
  ESDGCuda      *c;
  const PetscInt Np = m->Np, Nfp = m->Nfp, E = m->nOwned;
  PetscInt      *vmap, *elist, ni = 0, nh = 0;
  PetscReal     *phip, *fcor = NULL;

  PetscFunctionBegin;
  PetscCheck(m->N >= 1 && m->N <= 8, s->comm, PETSC_ERR_SUP, "-esdg_order %" PetscInt_FMT " has no GPU kernel (1 to 8)", m->N);
  PetscCall(PetscNew(&c));
  c->nOwned = E;
  c->Np     = Np;
  c->Nq     = m->Nq;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-esdg_gpu_half_sweep", &c->half, NULL));
  PetscCall(PetscMalloc3((size_t)E * 6 * Nfp, &vmap, (size_t)E * 6 * Nfp, &phip, PetscMax(E, 1), &elist));
  for (PetscInt e = 0; e < E; e++) {
    PetscBool halo = PETSC_FALSE;
    for (PetscInt f = 0; f < 6; f++) {
      const PetscInt nb = m->nbr[6 * e + f];
      if (nb >= m->nOwned) halo = PETSC_TRUE;
      for (PetscInt q = 0; q < Nfp; q++) {
        const size_t   k = ((size_t)e * 6 + f) * Nfp + q;
        const PetscInt p = m->vmapP[k];
        if (nb < 0) {
          vmap[k] = SQ_BOUNDARY;
          phip[k] = s->Phi[e * Np + m->fmask[f * Nfp + q]];
        } else {
          vmap[k] = nb < m->nOwned ? m->gslot[nb] * Np + p % Np : -(p + 1);
          phip[k] = s->Phi[nb * Np + p % Np];
        }
      }
    }
    if (!halo) elist[ni++] = e;
  }
  for (PetscInt e = 0; e < E; e++) {
    PetscBool halo = PETSC_FALSE;
    for (PetscInt f = 0; f < 6; f++)
      if (m->nbr[6 * e + f] >= m->nOwned) halo = PETSC_TRUE;
    if (halo) elist[ni + nh++] = e;
  }
  c->nInterior = ni;
  c->nHalo     = nh;
  PetscCall(Upload(&c->gslot, m->gslot, (size_t)E));
  PetscCall(Upload(&c->vmapP, vmap, (size_t)E * 6 * Nfp));
  PetscCall(Upload(&c->PhiP, phip, (size_t)E * 6 * Nfp));
  PetscCall(Upload(&c->Phi, s->Phi, (size_t)E * Np));
  PetscCall(Upload(&c->J, m->J, (size_t)E * Np));
  PetscCall(Upload(&c->Ja, m->Ja, (size_t)E * 9 * Np));
  PetscCall(Upload(&c->D, m->D, (size_t)m->Nq * m->Nq));
  PetscCall(Upload(&c->elist, elist, (size_t)E));
  if (s->coriolis != SQUALL_CORIOLIS_NONE) {
    PetscCall(PetscMalloc1((size_t)E * Np, &fcor));
    for (PetscInt e = 0; e < E; e++)
      for (PetscInt n = 0; n < Np; n++) fcor[e * Np + n] = s->f0 + s->beta0 * (SQUALL_DG_X(m, e)[Np + n] - s->y0);
    PetscCall(Upload(&c->fcor, fcor, (size_t)E * Np));
    PetscCall(PetscFree(fcor));
  }
  PetscCallCUDA(cudaMalloc((void **)&c->bad, sizeof(int)));
  PetscCallCUDA(cudaMemset(c->bad, 0, sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)&c->red, 2 * sizeof(PetscReal)));
  PetscCall(PetscFree3(vmap, phip, elist));
  s->cuda = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGDestroyCUDA(SquallESDG s)
{
  ESDGCuda *c = (ESDGCuda *)s->cuda;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaFree(c->gslot));
  PetscCallCUDA(cudaFree(c->vmapP));
  PetscCallCUDA(cudaFree(c->PhiP));
  PetscCallCUDA(cudaFree(c->Phi));
  PetscCallCUDA(cudaFree(c->J));
  PetscCallCUDA(cudaFree(c->Ja));
  PetscCallCUDA(cudaFree(c->D));
  PetscCallCUDA(cudaFree(c->elist));
  if (c->fcor) PetscCallCUDA(cudaFree(c->fcor));
  PetscCallCUDA(cudaFree(c->bad));
  PetscCallCUDA(cudaFree(c->red));
  PetscCall(PetscFree(c));
  s->cuda = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops per pair evaluation, counted from SquallEulerECFluxPair (adds, multiplies, the one division
   and the series polynomials of the selected branches), and per accumulation into a node */
#define SQ_FLOPS_PAIR 99.0
#define SQ_FLOPS_ACC 13.0

PetscErrorCode SquallESDGVolumeFlops(SquallESDG s, PetscBool half, PetscLogDouble *flops)
{
  SquallDGMesh         m     = s->mesh;
  const PetscLogDouble pairs = 3.0 * m->Nfp * m->Nq * (m->Nq - 1) / 2.0 * m->nOwned;

  PetscFunctionBegin;
  /* the useful work: each unordered pair once, accumulated into both of its nodes; the full sweep
     does twice the pair work, which is not counted as useful */
  *flops = pairs * (SQ_FLOPS_PAIR + 2 * SQ_FLOPS_ACC);
  (void)half;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGComputeRHS_CUDA(SquallESDG s, PetscReal t, Vec Q, Vec F)
{
  SquallDGMesh       m = s->mesh;
  ESDGCuda          *c = (ESDGCuda *)s->cuda;
  const PetscScalar *qd, *qld;
  PetscScalar       *fd;
  cudaStream_t       stream = NULL;
  PetscLogDouble     vflops;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecCUDAGetArrayRead(Q, &qd));
  PetscCall(VecCUDAGetArrayWrite(F, &fd));
  PetscCall(DMGlobalToLocalBegin(m->sdm, Q, INSERT_VALUES, s->Qloc));
  PetscCall(PetscLogEventBegin(SQUALL_ESDGVolume, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  ESDG_DISPATCH(m->N, ESDGLaunchVolume, (s, c, qd, fd, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(SquallESDGVolumeFlops(s, c->half, &vflops));
  PetscCall(PetscLogGpuFlops(vflops));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGVolume, 0, 0, 0, 0));
  /* elements with owned neighbours only: before the ghost exchange completes */
  PetscCall(PetscLogEventBegin(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  ESDG_DISPATCH(m->N, ESDGLaunchSurface, (s, c, 0, c->nInterior, qd, NULL, fd, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscCall(DMGlobalToLocalEnd(m->sdm, Q, INSERT_VALUES, s->Qloc));
  PetscCall(PetscLogEventBegin(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscCall(VecCUDAGetArrayRead(s->Qloc, &qld));
  PetscCall(PetscLogGpuTimeBegin());
  ESDG_DISPATCH(m->N, ESDGLaunchSurface, (s, c, c->nInterior, c->nHalo, qd, qld, fd, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(6.0 * m->Nfp * m->nOwned * 400.0));
  PetscCall(VecCUDARestoreArrayRead(s->Qloc, &qld));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscCall(VecCUDARestoreArrayWrite(F, &fd));
  PetscCall(VecCUDARestoreArrayRead(Q, &qd));
  {
    /* the kernels flag density or pressure <= 0; four bytes back per RHS so that an unphysical state
       is an error naming where (found on the host), never silent NaNs */
    int      hbad = 0;
    PetscInt gbad, lbad;
    PetscCallCUDA(cudaMemcpyAsync(&hbad, c->bad, sizeof(int), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    lbad = hbad;
    PetscCallMPI(MPIU_Allreduce(&lbad, &gbad, 1, MPIU_INT, MPI_MAX, s->comm));
    if (gbad) {
      PetscBool ok;
      PetscCallCUDA(cudaMemsetAsync(c->bad, 0, sizeof(int), stream));
      PetscCall(SquallESDGCheckState(s, Q, &ok));
      SETERRQ(s->comm, PETSC_ERR_FP, "Unphysical state (density or pressure <= 0) in the GPU right-hand side; see the message above for where");
    }
  }
  (void)t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max wave rate (for the CFL step) and the number of inadmissible nodes, with one small copy back */
PetscErrorCode SquallESDGNodeReduceCUDA(SquallESDG s, Vec Q, PetscReal *lmax, PetscInt *nbad)
{
  ESDGCuda          *c = (ESDGCuda *)s->cuda;
  const PetscScalar *qd;
  cudaStream_t       stream = NULL;
  PetscReal          h[2];
  int                hb;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecCUDAGetArrayRead(Q, &qd));
  PetscCallCUDA(cudaMemsetAsync(c->red, 0, 2 * sizeof(PetscReal), stream));
  PetscCall(PetscLogGpuTimeBegin());
  ESDG_DISPATCH(s->mesh->N, ESDGLaunchReduce, (s, c, qd, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCallCUDA(cudaMemcpyAsync(h, c->red, 2 * sizeof(PetscReal), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(VecCUDARestoreArrayRead(Q, &qd));
  memcpy(&hb, &h[1], sizeof(int));
  *lmax = h[0];
  *nbad = hb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Times the kernels of one RHS evaluation in isolation with CUDA events, for bench/: the full- and
   half-sweep volume kernels, the surface kernel over all elements, and the whole RHS (ms, median of
   reps after one warm-up). F is overwritten. */
PetscErrorCode SquallESDGTimeKernelsCUDA(SquallESDG s, Vec Q, Vec F, PetscInt reps, PetscReal ms[4])
{
  SquallDGMesh       m = s->mesh;
  ESDGCuda          *c = (ESDGCuda *)s->cuda;
  const PetscScalar *qd;
  PetscScalar       *fd;
  cudaStream_t       stream = NULL;
  cudaEvent_t        t0, t1;
  PetscReal         *samples;
  PetscBool          half0 = c->half;

  PetscFunctionBegin;
  PetscCheck(c, s->comm, PETSC_ERR_ARG_WRONGSTATE, "The ESDG object is not on the GPU (-dm_vec_type cuda)");
  PetscCall(PetscMalloc1(reps, &samples));
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCallCUDA(cudaEventCreate(&t0));
  PetscCallCUDA(cudaEventCreate(&t1));
  for (int which = 0; which < 4; which++) {
    for (PetscInt r = -1; r < reps; r++) {
      if (which == 3) {
        PetscCallCUDA(cudaEventRecord(t0, stream));
        PetscCall(SquallESDGComputeRHS_CUDA(s, 0, Q, F));
        PetscCallCUDA(cudaEventRecord(t1, stream));
      } else {
        PetscCall(VecCUDAGetArrayRead(Q, &qd));
        PetscCall(VecCUDAGetArray(F, &fd));
        PetscCallCUDA(cudaEventRecord(t0, stream));
        if (which < 2) {
          c->half = which == 1 ? PETSC_TRUE : PETSC_FALSE;
          ESDG_DISPATCH(m->N, ESDGLaunchVolume, (s, c, qd, fd, stream));
        } else {
          /* all elements through the surface kernel, halo ones reading the local vector as in the RHS */
          const PetscScalar *qld;
          PetscCall(VecCUDAGetArrayRead(s->Qloc, &qld));
          ESDG_DISPATCH(m->N, ESDGLaunchSurface, (s, c, 0, c->nInterior + c->nHalo, qd, qld, fd, stream));
          PetscCall(VecCUDARestoreArrayRead(s->Qloc, &qld));
        }
        PetscCallCUDA(cudaEventRecord(t1, stream));
        PetscCall(VecCUDARestoreArray(F, &fd));
        PetscCall(VecCUDARestoreArrayRead(Q, &qd));
      }
      PetscCallCUDA(cudaEventSynchronize(t1));
      if (r >= 0) {
        float t;
        PetscCallCUDA(cudaEventElapsedTime(&t, t0, t1));
        samples[r] = t;
      }
    }
    PetscCall(PetscSortReal(reps, samples));
    ms[which] = samples[reps / 2];
  }
  c->half = half0;
  PetscCallCUDA(cudaEventDestroy(t0));
  PetscCallCUDA(cudaEventDestroy(t1));
  PetscCall(PetscFree(samples));
  PetscFunctionReturn(PETSC_SUCCESS);
}
