/* The ESDG GPU face kernels and their launchers: the face flux kernel (each face once) and the first
   version's per-element surface kernel.
   Part of the translation unit of src/cuda/esdgcuda.cu, which includes it (the host code instantiates
   the kernels for every order); not a header of its own. */
#pragma once
#include "cuda/esdgdevice.cuh"

/* Face fluxes: one thread per face node of the faces a.faces[0..nList), each computed once for both
   sides, stored as -(s_f/w_b) F* at the element face node (and at the partner's, when it is owned). */
/* No register cap (MINB 1: 132 registers in double): since the per-face-node work shrank
   it is 2% faster at N = 4 than the cap at 5 blocks per multiprocessor (96 registers, some spilled),
   which had been 5% faster before; in single the two are equal (tune_faces_minb5) */
/* FC: the normal and s_f per element face (a.FGF, boxes): the 25-odd nodes of a face read one value
   each instead of their own from an array as large as the state's face values */
template <int NQ, int MINB = 1, bool DEP = false, bool FC = false>
__global__ static void __launch_bounds__(128, MINB) ESDGFaceFlux(const SquallGas gasp, const SquallSurfaceFluxType type, const ESDGArgs a, const PetscScalar *__restrict__ Q, const PetscScalar *__restrict__ Qloc)
{
  constexpr int NFP = NQ * NQ;
  SquallGas     gas = gasp;
  gas.departures    = DEP ? gasp.departures : 0; /* without, a compile-time 0; with, 1 or 2 (the entropy jumps from departures too) */
  const PetscInt t  = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= a.nList * NFP) return;
  const PetscInt ef = a.faces[t / NFP];
  const PetscInt e  = ef / 6;
  const int      f = (int)(ef % 6), q = (int)(t % NFP), n = FaceNode<NQ>(f, q);
  const size_t   k  = (size_t)ef * NFP + q;
  const PetscInt kp = a.plus[k];
  PetscReal      sf, sfp, nhat[3], nhatp[3], qm[5], qp[5], am[SQUALL_NAUX], ap[SQUALL_NAUX], Fm[5], Fp[5];
  /* each side's own unit normal and s_f, precomputed per face node (read coalesced; no metric of the
     partner element to gather): the partner side sees its own metric, as in the reference */
  const size_t     nef = a.nSlots / NFP, kf = FC ? (size_t)ef : k, kpf = FC ? (size_t)(kp / NFP) : (size_t)kp;
  const PetscReal *fg = FC ? a.FGF : a.FG;
  const size_t     ng = FC ? nef : a.nSlots;
#pragma unroll
  for (int c = 0; c < 3; c++) nhat[c] = fg[c * ng + kf];
  sf = fg[3 * ng + kf];
  if (kp >= 0) {
#pragma unroll
    for (int c = 0; c < 3; c++) nhatp[c] = fg[c * ng + kpf];
    sfp = fg[3 * ng + kpf];
  } else {
#pragma unroll
    for (int c = 0; c < 3; c++) nhatp[c] = -nhat[c];
    sfp = sf;
  }
  FaceStates<NQ>(gas, a, e, n, k, nhat, Q, Qloc, qm, am, qp, ap);
  SquallEulerSurfaceFluxPair(&gas, type, qm, am, qp, ap, nhat, nhatp, Fm, Fp);
  const PetscReal scale = sf / a.wb, scalep = sfp / a.wb;
#pragma unroll
  for (int c = 0; c < 5; c++) a.FB[c * a.nSlots + k] = -scale * Fm[c];
  if (kp >= 0) {
#pragma unroll
    for (int c = 0; c < 5; c++) a.FB[c * a.nSlots + kp] = -scalep * Fp[c];
  }
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
      PetscReal       nout[3], sf, nhat[3], qm[5], qp[5], am[SQUALL_NAUX], ap[SQUALL_NAUX], Fl[5];
#pragma unroll
      for (int c = 0; c < 3; c++) nout[c] = sign * Ja[(d * 3 + c) * NP + n];
      sf = sqrt(nout[0] * nout[0] + nout[1] * nout[1] + nout[2] * nout[2]);
#pragma unroll
      for (int c = 0; c < 3; c++) nhat[c] = nout[c] / sf;
      FaceStates<NQ>(gas, a, e, n, ((size_t)e * 6 + f) * NFP + q, nhat, Q, Qloc, qm, am, qp, ap);
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
    const size_t    qe = (size_t)a.gslot[e] * 5 * NP;
    const PetscReal fc = a.fcor[(size_t)e * NP + n];
    fe[NP + n] += fc * StateValue(Q, a.Qref, qe + 2 * NP + n);
    fe[2 * NP + n] -= fc * StateValue(Q, a.Qref, qe + NP + n);
  }
}

/* the per-element surface kernel of the first version (-esdg_gpu_surface element) */
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

/* the face kernel over faces[first .. first+count) */
template <int NQ> static PetscErrorCode ESDGLaunchFaces(SquallESDG s, const ESDGCuda *c, PetscInt first, PetscInt count, const PetscScalar *Q, const PetscScalar *Qloc, cudaStream_t stream)
{
  constexpr int NFP = NQ * NQ;
  ESDGArgs      a   = ESDGGetArgs(c, s->mesh->w[0]);
  const size_t  nt  = (size_t)count * NFP;

  PetscFunctionBegin;
  if (!count) PetscFunctionReturn(PETSC_SUCCESS);
  a.faces        = c->faces + first;
  a.nList        = count;
  const int grid = (int)((nt + 127) / 128);
  if (s->gas.departures && c->FGF)
    ESDGFaceFlux<NQ, 1, true, true><<<grid, 128, 0, stream>>>(s->gas, s->surface, a, Q, Qloc);
  else if (s->gas.departures)
    ESDGFaceFlux<NQ, 1, true><<<grid, 128, 0, stream>>>(s->gas, s->surface, a, Q, Qloc);
  else if (c->FGF)
    ESDGFaceFlux<NQ, 1, false, true><<<grid, 128, 0, stream>>>(s->gas, s->surface, a, Q, Qloc);
  else
    ESDGFaceFlux<NQ><<<grid, 128, 0, stream>>>(s->gas, s->surface, a, Q, Qloc);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
