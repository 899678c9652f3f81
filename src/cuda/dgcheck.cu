/* The device query and the vector kernels of the DG mesh's GPU check: SquallCUDAMaxAbsDiff() compares
   a VECCUDA (the DG node coordinates, for SquallDGMeshCheckCoordinatesCUDA() in src/dm/dggeom.c) with a
   separate device copy of a host array, by a max-reduction kernel. */
#include <petscdevice_cuda.h>
#include "cuda/squallcuda.h"
#include "cuda/dgcheck.h"
#include "cuda/cudautil.h"

#if defined(PETSC_USE_COMPLEX)
#  error "squall's CUDA kernels need a real PetscScalar"
#endif

#define SQUALL_CUDA_BLOCK 256
#define SQUALL_CUDA_MAX_BLOCKS 1024

PetscErrorCode SquallCUDADeviceCount(PetscInt *n)
{
  int         count = 0;
  cudaError_t cerr;

  PetscFunctionBegin;
  PetscCheck(n, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Null pointer for the device count");
  cerr = cudaGetDeviceCount(&count);
  if (cerr != cudaSuccess) {
    (void)cudaGetLastError(); /* no driver or no device: clear the error, report none */
    count = 0;
  }
  *n = count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* block max of |a - b| over a grid-stride loop; NaN propagates (!(d <= m) is true for NaN) */
__device__ static PetscReal SquallBlockMax(PetscReal v)
{
  __shared__ PetscReal s[SQUALL_CUDA_BLOCK];

  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned int h = blockDim.x / 2; h > 0; h >>= 1) {
    if (threadIdx.x < h) {
      const PetscReal o = s[threadIdx.x + h];
      if (!(o <= s[threadIdx.x])) s[threadIdx.x] = o;
    }
    __syncthreads();
  }
  return s[0];
}

__global__ static void SquallMaxAbsDiffKernel(PetscInt n, const PetscScalar *__restrict__ a, const PetscReal *__restrict__ b, PetscReal *__restrict__ partial)
{
  PetscReal m = 0;

  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const PetscReal d = fabs((PetscReal)a[i] - b[i]);
    if (!(d <= m)) m = d;
  }
  m = SquallBlockMax(m);
  if (threadIdx.x == 0) partial[blockIdx.x] = m;
}

__global__ static void SquallMaxKernel(PetscInt n, const PetscReal *__restrict__ partial, PetscReal *__restrict__ result)
{
  PetscReal m = 0;

  for (PetscInt i = threadIdx.x; i < n; i += blockDim.x) {
    const PetscReal d = partial[i];
    if (!(d <= m)) m = d;
  }
  m = SquallBlockMax(m);
  if (threadIdx.x == 0) result[0] = m;
}

__global__ static void SquallScaleCopyKernel(PetscInt n, PetscReal alpha, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y)
{
  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) y[i] = alpha * x[i];
}

static PetscErrorCode SquallCUDACheckVec(Vec x, PetscInt n)
{
  PetscBool iscuda;
  PetscInt  nloc;
  VecType   vt;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &iscuda, VECSEQCUDA, VECMPICUDA, ""));
  PetscCall(VecGetType(x, &vt));
  PetscCheck(iscuda, PetscObjectComm((PetscObject)x), PETSC_ERR_ARG_WRONG, "Vec must be of type VECCUDA, not %s", vt);
  PetscCall(VecGetLocalSize(x, &nloc));
  PetscCheck(n < 0 || nloc == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Vec has local size %" PetscInt_FMT ", expected %" PetscInt_FMT, nloc, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int SquallCUDANumBlocks(PetscInt n)
{
  return (int)PetscMax(1, PetscMin((n + SQUALL_CUDA_BLOCK - 1) / SQUALL_CUDA_BLOCK, SQUALL_CUDA_MAX_BLOCKS));
}

PetscErrorCode SquallCUDAMaxAbsDiff(Vec x, const PetscReal ref_h[], PetscInt n, PetscReal *maxerr)
{
  const int          nblocks = SquallCUDANumBlocks(n);
  const PetscScalar *xd;
  PetscReal         *ref, *partial, lmax = 0;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCheck(maxerr, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Null pointer for the result");
  PetscCall(SquallCUDACheckVec(x, n));
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecCUDAGetArrayRead(x, &xd));
  /* the reference travels separately from the Vec: a plain upload of the host geometry */
  PetscCallCUDA(cudaMallocAsync((void **)&ref, (size_t)PetscMax(n, 1) * sizeof(PetscReal), stream));
  PetscCallCUDA(cudaMallocAsync((void **)&partial, (size_t)(nblocks + 1) * sizeof(PetscReal), stream));
  if (n) PetscCallCUDA(cudaMemcpyAsync(ref, ref_h, (size_t)n * sizeof(PetscReal), cudaMemcpyHostToDevice, stream));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(PetscReal)));
  PetscCall(PetscLogGpuTimeBegin());
  SquallMaxAbsDiffKernel<<<nblocks, SQUALL_CUDA_BLOCK, 0, stream>>>(n, xd, ref, partial);
  PetscCallCUDA(cudaGetLastError());
  SquallMaxKernel<<<1, SQUALL_CUDA_BLOCK, 0, stream>>>(nblocks, partial, partial + nblocks);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * n));
  PetscCallCUDA(cudaMemcpyAsync(&lmax, partial + nblocks, sizeof(PetscReal), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaFreeAsync(ref, stream));
  PetscCallCUDA(cudaFreeAsync(partial, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogGpuToCpu(sizeof(PetscReal)));
  PetscCall(VecCUDARestoreArrayRead(x, &xd));
  PetscCallMPI(MPIU_Allreduce(&lmax, maxerr, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)x)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallCUDAScaleCopy(Vec x, PetscReal alpha, Vec y)
{
  PetscInt           n;
  const PetscScalar *xd;
  PetscScalar       *yd;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(SquallCUDACheckVec(x, -1));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(SquallCUDACheckVec(y, n));
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecCUDAGetArrayRead(x, &xd));
  PetscCall(VecCUDAGetArrayWrite(y, &yd));
  PetscCall(PetscLogGpuTimeBegin());
  if (n) SquallScaleCopyKernel<<<SquallCUDANumBlocks(n), SQUALL_CUDA_BLOCK, 0, stream>>>(n, alpha, xd, yd);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((PetscLogDouble)n));
  PetscCall(VecCUDARestoreArrayWrite(y, &yd));
  PetscCall(VecCUDARestoreArrayRead(x, &xd));
  PetscFunctionReturn(PETSC_SUCCESS);
}
