/* The 2N-storage Runge-Kutta stage update as one kernel: K = a K + dt F; Q = Q + b K reads Q, K
   and F once and writes K and Q once (three vector operations would read 5 and write 2 vectors). */
#include "cuda/squallcuda.h"
#include "cuda/cudautil.h"
#include "sys/squallimpl.h"

__global__ static void LSRKStageKernel(PetscInt n, PetscReal a, PetscReal dt, PetscReal b, PetscScalar *__restrict__ Q, PetscScalar *__restrict__ K, const PetscScalar *__restrict__ F)
{
  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscScalar k = (a == 0 ? (PetscScalar)0 : a * K[i]) + dt * F[i];
    K[i]                = k;
    Q[i] += b * k;
  }
}

PetscErrorCode SquallLSRKStageUpdateCUDA(Vec Q, Vec K, Vec F, PetscReal a, PetscReal dt, PetscReal b)
{
  PetscInt           n;
  PetscScalar       *q, *k;
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
  PetscCall(PetscLogGpuTimeBegin());
  if (n) LSRKStageKernel<<<SquallCUDAGridSize(n, 256), 256, 0, stream>>>(n, a, dt, b, q, k, f);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(5.0 * n));
  PetscCall(VecCUDARestoreArrayRead(F, &f));
  if (a == 0)
    PetscCall(VecCUDARestoreArrayWrite(K, &k));
  else
    PetscCall(VecCUDARestoreArray(K, &k));
  PetscCall(VecCUDARestoreArray(Q, &q));
  PetscFunctionReturn(PETSC_SUCCESS);
}
