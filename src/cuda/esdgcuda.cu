/* The ESDG right-hand side on the GPU (interface: src/cuda/esdgkernels.h; driven by src/ts/esdggpu.c).
   Same semi-discretisation and the same pointwise functions (src/physics/euler.h) as the C reference
   in src/ts/esdgrhs.c; only the data movement differs.
   - face fluxes (esdgface.cuh): one thread per face node of every face this rank computes, each shared
     face once (SquallEulerSurfaceFluxPair gives both sides), written already scaled by s_f/w_b into a
     per element-face-node buffer;
   - volume (esdgvolume.cuh): one thread per node, several elements per block for small N, the
     element's per-node values (primitives, logs, 1/b) in shared memory, the three directions fused,
     each unordered pair once with the load-balanced cyclic assignment of Waterhouse et al.,
     arXiv:2605.16684 (2026), sec. 4.1 (thread i takes partners i+1..i+floor(Nq/2) mod Nq, the
     antipodal pair of an even Nq weighted 1/2 from both sides, and hands the partner's share over
     through shared memory). It finishes the node: adds its faces' fluxes, divides by J, adds the
     Coriolis force and the sponge, so the RHS (or the fused LSRK stage) is written once;
   - per-node reductions (esdgreduce.cuh): the CFL wave rate and the admissibility check. */
#include "cuda/esdgdevice.cuh"
#include "cuda/esdgvolume.cuh"
#include "cuda/esdgface.cuh"
#include "cuda/esdgreduce.cuh"

#if defined(PETSC_USE_COMPLEX)
#  error "squall's CUDA kernels need a real PetscScalar"
#endif

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

PetscErrorCode SquallESDGKernelsCreate(MPI_Comm comm, const SquallESDGKernelsSetup *in, SquallESDGKernels *kernels)
{
  SquallESDGKernels c;
  PetscInt          Nq, Np, E;
  size_t            S;

  PetscFunctionBegin;
  PetscCheck(in->N >= 1 && in->N <= 8, comm, PETSC_ERR_SUP, "-esdg_order %" PetscInt_FMT " has no GPU kernel (1 to 8)", in->N);
  PetscCheck(in->prefetchWaves >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "The prefetch distance %g must be >= 0", (double)in->prefetchWaves);
  Nq = in->N + 1;
  Np = Nq * Nq * Nq;
  E  = in->nOwned;
  S  = (size_t)E * 6 * Nq * Nq;
  PetscCall(PetscNew(&c));
  c->comm          = comm;
  c->N             = in->N;
  c->Nq            = Nq;
  c->Np            = Np;
  c->nOwned        = E;
  c->nInterior     = in->nInterior;
  c->nHalo         = in->nHalo;
  c->nFacesEarly   = in->nFacesEarly;
  c->nFacesGhost   = in->nFacesGhost;
  c->wb            = in->wb;
  c->box           = in->box;
  c->prefetchWaves = in->prefetchWaves;
  PetscCall(Upload(&c->gslot, in->gslot, (size_t)E));
  PetscCall(Upload(&c->elist, in->elist, (size_t)E));
  PetscCall(Upload(&c->faces, in->faces, (size_t)(in->nFacesEarly + in->nFacesGhost)));
  PetscCall(Upload(&c->vmapP, in->vmapP, S));
  PetscCall(Upload(&c->plus, in->plus, S));
  PetscCall(Upload(&c->PhiP, in->PhiP, S));
  PetscCall(Upload(&c->Phi, in->Phi, (size_t)E * Np));
  PetscCall(Upload(&c->J, in->J, (size_t)E * Np));
  PetscCall(Upload(&c->Ja, in->Ja, (size_t)E * 9 * Np));
  PetscCall(Upload(&c->D, in->D, (size_t)Nq * Nq));
  PetscCall(Upload(&c->FG, in->FG, 4 * S));
  if (in->FGF) PetscCall(Upload(&c->FGF, in->FGF, 4 * (size_t)E * 6));
  if (in->fcor) PetscCall(Upload(&c->fcor, in->fcor, (size_t)E * Np));
  if (in->tau) PetscCall(Upload(&c->tau, in->tau, (size_t)E * Np));
  PetscCallCUDA(cudaMalloc((void **)&c->FB, PetscMax(5 * S, (size_t)1) * sizeof(PetscReal)));
  PetscCallCUDA(cudaMalloc((void **)&c->bad, 2 * sizeof(int)));
  PetscCallCUDA(cudaMemset(c->bad, 0, 2 * sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)&c->red, 2 * sizeof(PetscReal)));
  *kernels = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGKernelsDestroy(SquallESDGKernels *kernels)
{
  SquallESDGKernels c = *kernels;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaFree(c->gslot));
  PetscCallCUDA(cudaFree(c->elist));
  PetscCallCUDA(cudaFree(c->faces));
  PetscCallCUDA(cudaFree(c->vmapP));
  PetscCallCUDA(cudaFree(c->plus));
  PetscCallCUDA(cudaFree(c->PhiP));
  PetscCallCUDA(cudaFree(c->Phi));
  PetscCallCUDA(cudaFree(c->J));
  PetscCallCUDA(cudaFree(c->Ja));
  PetscCallCUDA(cudaFree(c->D));
  PetscCallCUDA(cudaFree(c->FG));
  if (c->FGF) PetscCallCUDA(cudaFree(c->FGF));
  if (c->fcor) PetscCallCUDA(cudaFree(c->fcor));
  if (c->tau) PetscCallCUDA(cudaFree(c->tau));
  PetscCallCUDA(cudaFree(c->FB));
  PetscCallCUDA(cudaFree(c->bad));
  PetscCallCUDA(cudaFree(c->red));
  PetscCall(PetscFree(c));
  *kernels = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGKernelsFaces(SquallESDGKernels c, const SquallESDGKernelArgs *in, PetscInt first, PetscInt count)
{
  PetscFunctionBegin;
  PetscCheck(first >= 0 && count >= 0 && first + count <= c->nFacesEarly + c->nFacesGhost, c->comm, PETSC_ERR_ARG_OUTOFRANGE, "Faces [%" PetscInt_FMT ", %" PetscInt_FMT ") out of range", first, first + count);
  ESDG_DISPATCH(c->N, ESDGLaunchFaces, (c, in, first, count));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGKernelsVolume(SquallESDGKernels c, const SquallESDGKernelArgs *in, PetscInt first, PetscInt count)
{
  PetscFunctionBegin;
  PetscCheck(first >= 0 && count >= 0 && first + count <= c->nOwned, c->comm, PETSC_ERR_ARG_OUTOFRANGE, "Elements [%" PetscInt_FMT ", %" PetscInt_FMT ") out of range", first, first + count);
  PetscCheck(in->K || in->F, c->comm, PETSC_ERR_ARG_NULL, "The volume kernel needs F or a fused stage's K");
  ESDG_DISPATCH(c->N, ESDGLaunchVolume, (c, in, first, count));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGKernelsReduce(SquallESDGKernels c, const SquallESDGKernelArgs *in, PetscReal *lmax, PetscInt *nbad)
{
  cudaStream_t stream = NULL;
  PetscReal    h[2];
  int          hb;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCallCUDA(cudaMemsetAsync(c->red, 0, 2 * sizeof(PetscReal), stream));
  ESDG_DISPATCH(c->N, ESDGLaunchReduce, (c, in, lmax ? PETSC_TRUE : PETSC_FALSE));
  PetscCallCUDA(cudaMemcpyAsync(h, c->red, 2 * sizeof(PetscReal), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  memcpy(&hb, &h[1], sizeof(int));
  if (lmax) *lmax = h[0];
  *nbad = hb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGKernelsGetFlags(SquallESDGKernels c, PetscInt flags[2])
{
  cudaStream_t stream = NULL;
  int          h[2]   = {0, 0};

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCallCUDA(cudaMemcpyAsync(h, c->bad, 2 * sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  if (h[0] || h[1]) PetscCallCUDA(cudaMemsetAsync(c->bad, 0, 2 * sizeof(int), stream));
  flags[0] = h[0];
  flags[1] = h[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}
