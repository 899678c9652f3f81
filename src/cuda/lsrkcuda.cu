/* The 2N-storage Runge-Kutta stage update as one kernel: K = a K + dt F; Q = Q + b K reads Q, K
   and F once and writes K and Q once (three vector operations would read 5 and write 2 vectors).
   With the compensation C (-ts_lsrk_compensated) Q is updated by compensated summation, C read and
   written once more: every entry, or (mask) those of the named fields only. */
#include "cuda/lsrkkernels.h"
#include "cuda/cudautil.h"
#include "physics/lsrkstage.h"

template <bool COMP>
__global__ static void LSRKStageKernel(PetscInt n, PetscReal a, PetscReal dt, PetscReal b, PetscScalar *__restrict__ Q, PetscScalar *__restrict__ K, const PetscScalar *__restrict__ F, PetscScalar *__restrict__ C, PetscInt stride, PetscInt nf,
                                       PetscInt mask)
{
  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    PetscScalar k = a == 0 ? (PetscScalar)0 : K[i], q = Q[i]; /* K is not read in the first stage */
    if (COMP && SquallLSRKFieldCompensated(mask, stride, nf, i)) {
      PetscScalar c = C[i];
      SquallLSRKStageCompensated(a, dt, b, F[i], &k, &q, &c);
      C[i] = c;
    } else
      SquallLSRKStage(a, dt, b, F[i], &k, &q);
    K[i] = k;
    Q[i] = q;
  }
}

PetscErrorCode SquallLSRKStageUpdateCUDA(Vec Q, Vec K, Vec F, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b)
{
  Vec                C = comp ? comp->C : NULL;
  PetscInt           n;
  PetscScalar       *q, *k, *c = NULL;
  const PetscScalar *f;
  cudaStream_t       stream = NULL;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(Q, &n));
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecCUDAGetArray(Q, &q));
  /* the first stage has a = 0: K's old contents are not read (the kernel skips them), only overwritten */
  if (a == 0)
    PetscCall(VecCUDAGetArrayWrite(K, &k));
  else
    PetscCall(VecCUDAGetArray(K, &k));
  PetscCall(VecCUDAGetArrayRead(F, &f));
  if (C) PetscCall(VecCUDAGetArray(C, &c));
  PetscCall(PetscLogGpuTimeBegin());
  if (n && C)
    LSRKStageKernel<true><<<SquallCUDAGridSize(n, 256), 256, 0, stream>>>(n, a, dt, b, q, k, f, c, comp->stride, comp->nfields, comp->mask);
  else if (n)
    LSRKStageKernel<false><<<SquallCUDAGridSize(n, 256), 256, 0, stream>>>(n, a, dt, b, q, k, f, NULL, 1, 1, 0);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((C ? 8.0 : 5.0) * n));
  if (C) PetscCall(VecCUDARestoreArray(C, &c));
  PetscCall(VecCUDARestoreArrayRead(F, &f));
  if (a == 0)
    PetscCall(VecCUDARestoreArrayWrite(K, &k));
  else
    PetscCall(VecCUDARestoreArray(K, &k));
  PetscCall(VecCUDARestoreArray(Q, &q));
  PetscFunctionReturn(PETSC_SUCCESS);
}
