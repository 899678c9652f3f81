/* The ESDG GPU face kernel and its launcher: each face once, for both sides.
   Part of the translation unit of src/cuda/esdgcuda.cu, which includes it (the host code instantiates
   the kernels for every order); not a header of its own. */
#pragma once
#include "cuda/esdgdevice.cuh"

/* Face fluxes: one thread per face node of the faces a.faces[0..nList), each computed once for both
   sides, stored as -(s_f/w_b) F* at the element face node (and at the partner's, when it is owned). */
/* No register cap (132 registers in double): 2% faster at N = 4 than a cap at 5 blocks per
   multiprocessor (96 registers, some spilled); in single the two are equal */
/* FC: the normal and s_f per element face (a.FGF, boxes): the 25-odd nodes of a face read one value
   each instead of their own from an array as large as the state's face values */
template <int NQ, bool DEP, bool FC> __global__ static void __launch_bounds__(128) ESDGFaceFlux(const SquallGas gasp, const SquallSurfaceFluxType type, const ESDGArgs a, const PetscScalar *__restrict__ Q, const PetscScalar *__restrict__ Qloc)
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
  if (!((a.parts >> (f / 2)) & 1)) { /* a face normal to a direction left out of this RHS: no flux on either side */
#pragma unroll
    for (int c = 0; c < 5; c++) a.FB[c * a.nSlots + k] = 0;
    if (kp >= 0) {
#pragma unroll
      for (int c = 0; c < 5; c++) a.FB[c * a.nSlots + kp] = 0;
    }
    return;
  }
  PetscReal sf, sfp, nhat[3], nhatp[3], qm[5], qp[5], am[SQUALL_NAUX], ap[SQUALL_NAUX], Fm[5], Fp[5];
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

/* the face kernel over faces[first, first + count) */
template <int NQ> static PetscErrorCode ESDGLaunchFaces(const struct _n_SquallESDGKernels *c, const SquallESDGKernelArgs *in, PetscInt first, PetscInt count)
{
  constexpr int NFP  = NQ * NQ;
  ESDGArgs      a    = ESDGGetArgs(c, in);
  const size_t  nt   = (size_t)count * NFP;
  const int     grid = (int)((nt + 127) / 128);
  const bool    dep = in->gas.departures != 0, fc = c->FGF != NULL;
  cudaStream_t  stream = NULL;

  PetscFunctionBegin;
  if (!count) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SquallCUDAGetStream(&stream));
  a.faces = c->faces + first;
  a.nList = count;
  if (dep && fc)
    ESDGFaceFlux<NQ, true, true><<<grid, 128, 0, stream>>>(in->gas, in->surface, a, in->Q, in->Qloc);
  else if (dep)
    ESDGFaceFlux<NQ, true, false><<<grid, 128, 0, stream>>>(in->gas, in->surface, a, in->Q, in->Qloc);
  else if (fc)
    ESDGFaceFlux<NQ, false, true><<<grid, 128, 0, stream>>>(in->gas, in->surface, a, in->Q, in->Qloc);
  else
    ESDGFaceFlux<NQ, false, false><<<grid, 128, 0, stream>>>(in->gas, in->surface, a, in->Q, in->Qloc);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
