/* The HEVI column kernels: one thread per slot (perturbation, extraction) or per line of nodes
   (factorisation, solve). The math is src/physics/columnlu.h's, shared with the C loops; the
   entry-major layout makes the threads of consecutive lines read consecutive addresses. */
#include "cuda/columnkernels.h"
#include "cuda/cudautil.h"

__global__ static void ColumnPerturbKernel(SquallColumnLayout c, PetscInt f, PetscInt k, PetscInt cls, PetscReal err, const PetscScalar *X, PetscScalar *Xp)
{
  for (PetscInt s = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; s < c.nslot; s += (PetscInt)gridDim.x * blockDim.x) SquallColumnPerturb(&c, s, f, k, cls, err, X, Xp);
}

__global__ static void ColumnExtractKernel(SquallColumnLayout c, PetscInt f, PetscInt k, PetscInt cls, PetscReal err, const PetscScalar *X, const PetscScalar *F0, const PetscScalar *Fp, PetscScalar *J)
{
  for (PetscInt s = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; s < c.nslot; s += (PetscInt)gridDim.x * blockDim.x) SquallColumnExtract(&c, s, f, k, cls, err, X, F0, Fp, J);
}

__global__ static void ColumnShiftKernel(SquallColumnLayout c, const PetscInt *rowptr, PetscInt n, PetscReal shift, const PetscScalar *J, PetscScalar *P, PetscScalar *A)
{
  for (PetscInt e = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (PetscInt)gridDim.x * blockDim.x) SquallColumnShiftEntry(&c, rowptr, e, shift, J, P, A);
}

__global__ static void ColumnFactorKernel(SquallColumnLayout c, const PetscScalar *P, PetscScalar *LU, PetscInt *piv, unsigned long long *bad)
{
  for (PetscInt l = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; l < c.nlines; l += (PetscInt)gridDim.x * blockDim.x)
    if (SquallColumnFactorLine(&c, l, P, LU, piv)) atomicAdd(bad, 1ULL);
}

__global__ static void ColumnSolveKernel(SquallColumnLayout c, const PetscScalar *LU, const PetscInt *piv, const PetscScalar *b, PetscScalar *x)
{
  for (PetscInt l = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; l < c.nlines; l += (PetscInt)gridDim.x * blockDim.x) SquallColumnSolveLine(&c, l, LU, piv, b, x);
}

PetscErrorCode SquallColumnPerturbCUDA(const SquallColumnLayout *c, PetscInt f, PetscInt k, PetscInt cls, PetscReal err, const PetscScalar *X, PetscScalar *Xp)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (c->nslot) ColumnPerturbKernel<<<SquallCUDAGridSize(c->nslot, 256), 256, 0, stream>>>(*c, f, k, cls, err, X, Xp);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * c->nslot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallColumnExtractCUDA(const SquallColumnLayout *c, PetscInt f, PetscInt k, PetscInt cls, PetscReal err, const PetscScalar *X, const PetscScalar *F0, const PetscScalar *Fp, PetscScalar *J)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (c->nslot) ColumnExtractKernel<<<SquallCUDAGridSize(c->nslot, 128), 128, 0, stream>>>(*c, f, k, cls, err, X, F0, Fp, J);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * 5 * c->Nq * c->nslot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallColumnCallocCUDA(size_t bytes, void **p)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc(p, PetscMax(bytes, (size_t)1)));
  PetscCallCUDA(cudaMemset(*p, 0, PetscMax(bytes, (size_t)1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallColumnFreeCUDA(void *p)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFree(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallColumnCopyToDeviceCUDA(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallColumnShiftCUDA(const SquallColumnLayout *c, const PetscInt *rowptr, PetscReal shift, const PetscScalar *J, PetscScalar *P, PetscScalar *A)
{
  const PetscInt m = 5 * c->Nq, n = SQUALL_COLUMN_BLOCK_ENTRIES(m) * c->nslot;
  cudaStream_t   stream;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (n) ColumnShiftKernel<<<SquallCUDAGridSize(n, 256), 256, 0, stream>>>(*c, rowptr, n, shift, J, P, A);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  /* PETSc's sparse kernels that read A may run on another stream */
  if (stream) PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogGpuFlops(1.0 * m * c->nslot));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallColumnFactorCUDA(const SquallColumnLayout *c, const PetscScalar *P, PetscScalar *LU, PetscInt *piv, PetscInt *bad)
{
  const PetscInt      m = 5 * c->Nq;
  cudaStream_t        stream;
  unsigned long long *dbad, hbad = 0;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCallCUDA(cudaMallocAsync((void **)&dbad, sizeof(*dbad), stream));
  PetscCallCUDA(cudaMemsetAsync(dbad, 0, sizeof(*dbad), stream));
  PetscCall(PetscLogGpuTimeBegin());
  /* a thread per line and its local arrays: small blocks keep enough of them resident */
  if (c->nlines) ColumnFactorKernel<<<SquallCUDAGridSize(c->nlines, 64), 64, 0, stream>>>(*c, P, LU, piv, dbad);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(SQUALL_COLUMN_FACTOR_LEVEL_FLOPS(m) * c->nslot));
  PetscCallCUDA(cudaMemcpyAsync(&hbad, dbad, sizeof(hbad), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaFreeAsync(dbad, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  *bad = (PetscInt)hbad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallColumnSolveCUDA(const SquallColumnLayout *c, const PetscScalar *LU, const PetscInt *piv, const PetscScalar *b, PetscScalar *x)
{
  const PetscInt m = 5 * c->Nq;
  cudaStream_t   stream;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (c->nlines) ColumnSolveKernel<<<SquallCUDAGridSize(c->nlines, 64), 64, 0, stream>>>(*c, LU, piv, b, x);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(SQUALL_COLUMN_APPLY_LEVEL_FLOPS(m) * c->nslot));
  PetscFunctionReturn(PETSC_SUCCESS);
}
