/* The ESDG GPU per-node reductions (CFL wave speed, admissibility) and their launcher.
   Part of the translation unit of src/cuda/esdgcuda.cu, which includes it (the host code instantiates
   the kernels for every order); not a header of its own. */
#pragma once
#include "cuda/esdgdevice.cuh"

/* per-node reductions for the time step and the admissibility check: the max over nodes of
   sum_d (|u.Ja^d| + c|Ja^d|)/J (WAVE), and the count of nodes with density or pressure <= 0. Without
   WAVE (the check before every stage) a node costs its state and Phi (6 reals) instead of 16, and no
   logarithms: 0.37 instead of ~1 ms per call at N = 4, 262,144 elements, in double */
template <int NQ, bool WAVE> __global__ static void ESDGNodeReduce(const SquallGas gas, const ESDGArgs a, const PetscScalar *__restrict__ Q, PetscReal *lmax, int *nbad)
{
  constexpr int NP  = NQ * NQ * NQ;
  PetscReal     lm  = 0;
  int           bad = 0;
  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < a.nOwned * NP; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt e = i / NP, n = i % NP;
    const size_t   qe = (size_t)a.gslot[e] * 5 * NP;
    PetscReal      q[5], au[SQUALL_NAUX], lam = 0;
    for (int c = 0; c < 5; c++) q[c] = StateValue(Q, a.Qref, qe + c * NP + n);
    if (!WAVE) {
      bad += SquallEulerCheck(&gas, q, a.Phi[i]);
      continue;
    }
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

template <int NQ> static PetscErrorCode ESDGLaunchReduce(const struct _n_SquallESDGKernels *c, const SquallESDGKernelArgs *in, PetscBool wave)
{
  const ESDGArgs a      = ESDGGetArgs(c, in);
  const PetscInt nnodes = c->nOwned * NQ * NQ * NQ;
  const int      grid   = (int)PetscMax(1, PetscMin((nnodes + 255) / 256, 1024));
  cudaStream_t   stream = NULL;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  if (wave)
    ESDGNodeReduce<NQ, true><<<grid, 256, 0, stream>>>(in->gas, a, in->Q, c->red, (int *)(c->red + 1));
  else
    ESDGNodeReduce<NQ, false><<<grid, 256, 0, stream>>>(in->gas, a, in->Q, c->red, (int *)(c->red + 1));
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}
