/* Fused CG vector kernels of KSP hbcg on device vectors (see src/ksp/hbcg.c). The dot products of
   an iteration come from the pass that updates r (and z), are summed by a fixed tree, and reach
   the host through pinned memory; the solution AXPY is queued behind that copy, so it runs while
   the host sums the dot products over the ranks. */
#include "cuda/hbreduce.cuh"
#include "physics/sem.h"

/* device partial sums and pinned results, kept for the whole run */
static PetscReal  *HBCGPartial = NULL, *HBCGHost = NULL;
static cudaEvent_t HBCGCopied;

static PetscErrorCode HBCGFinalize(void)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFree(HBCGPartial));
  PetscCallCUDA(cudaFreeHost(HBCGHost));
  PetscCallCUDA(cudaEventDestroy(HBCGCopied));
  HBCGPartial = HBCGHost = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBCGWork(void)
{
  PetscFunctionBegin;
  if (HBCGPartial) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaMalloc((void **)&HBCGPartial, (SQUALL_HBCG_NDOTS * HB_MAX_BLOCKS + SQUALL_HBCG_NDOTS) * sizeof(PetscReal)));
  PetscCallCUDA(cudaMallocHost((void **)&HBCGHost, SQUALL_HBCG_NDOTS * sizeof(PetscReal)));
  PetscCallCUDA(cudaEventCreateWithFlags(&HBCGCopied, cudaEventDisableTiming));
  PetscCall(PetscRegisterFinalize(HBCGFinalize));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the dots of the block into partial[c * HB_MAX_BLOCKS + block]: (r.z, r.r, z.z) with a preconditioner, r.r without */
template <bool PC> __device__ static inline void HBCGStoreDots(PetscReal rz, PetscReal rr, PetscReal zz, PetscReal *partial)
{
  if (PC) {
    PetscReal v[3] = {rz, rr, zz};

    HBBlockSum<3>(v);
    if (threadIdx.x == 0)
      for (int c = 0; c < 3; c++) partial[c * HB_MAX_BLOCKS + blockIdx.x] = v[c];
  } else {
    PetscReal v[1] = {rr};

    HBBlockSum<1>(v);
    if (threadIdx.x == 0) partial[SQUALL_HBCG_RR * HB_MAX_BLOCKS + blockIdx.x] = v[0];
  }
}

/* r -= alpha w; with a preconditioner z = dinv r */
template <bool PC>
__global__ static void __launch_bounds__(HB_BLOCK)
  HBCGUpdateKernel(PetscInt n, PetscReal alpha, const PetscScalar *__restrict__ w, PetscScalar *__restrict__ r, const PetscScalar *__restrict__ dinv, PetscScalar *__restrict__ z, PetscReal *__restrict__ partial)
{
  PetscReal rz = 0, rr = 0, zz = 0;

  for (PetscInt i = (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * HB_BLOCK) {
    PetscScalar ri = r[i], zi;

    if (PC) {
      SquallSEMCGResidualUpdate(alpha, w[i], dinv[i], &ri, &zi);
      z[i] = zi;
      rz += ri * zi;
      zz += zi * zi;
    } else
      ri -= alpha * w[i];
    rr += ri * ri;
    r[i] = ri;
  }
  HBCGStoreDots<PC>(rz, rr, zz, partial);
}

/* (r.z, r.r, z.z); SCALE: z = dinv r first; PC false: r.r only */
template <bool PC, bool SCALE> __global__ static void __launch_bounds__(HB_BLOCK) HBCGDotsKernel(PetscInt n, const PetscScalar *__restrict__ r, const PetscScalar *__restrict__ dinv, PetscScalar *__restrict__ z, PetscReal *__restrict__ partial)
{
  PetscReal rz = 0, rr = 0, zz = 0;

  for (PetscInt i = (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * HB_BLOCK) {
    const PetscScalar ri = r[i];

    if (PC) {
      PetscScalar zi;

      if (SCALE) {
        zi   = dinv[i] * ri;
        z[i] = zi;
      } else
        zi = z[i];
      rz += ri * zi;
      zz += zi * zi;
    }
    rr += ri * ri;
  }
  HBCGStoreDots<PC>(rz, rr, zz, partial);
}

__global__ static void __launch_bounds__(HB_BLOCK) HBCGAXPYKernel(PetscInt n, PetscReal alpha, const PetscScalar *__restrict__ p, PetscScalar *__restrict__ x)
{
  for (PetscInt i = (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * HB_BLOCK) x[i] += alpha * p[i];
}

template <bool FIRST> __global__ static void __launch_bounds__(HB_BLOCK) HBCGDirectionKernel(PetscInt n, PetscReal beta, const PetscScalar *__restrict__ z, PetscScalar *__restrict__ p)
{
  for (PetscInt i = (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * HB_BLOCK) p[i] = FIRST ? z[i] : z[i] + beta * p[i];
}

/* reduce the partials, start the copy to the host and record its completion */
static PetscErrorCode HBCGFinishDots(int nb, PetscBool pc, cudaStream_t stream)
{
  PetscFunctionBegin;
  HBFinalSum<SQUALL_HBCG_NDOTS><<<1, HB_BLOCK, 0, stream>>>(nb, HBCGPartial, HBCGPartial + SQUALL_HBCG_NDOTS * HB_MAX_BLOCKS);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(HBCGHost, HBCGPartial + SQUALL_HBCG_NDOTS * HB_MAX_BLOCKS, SQUALL_HBCG_NDOTS * sizeof(PetscReal), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaEventRecord(HBCGCopied, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBCGReadDots(PetscBool pc, PetscReal dots[])
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaEventSynchronize(HBCGCopied));
  PetscCall(PetscLogGpuToCpu(SQUALL_HBCG_NDOTS * sizeof(PetscReal)));
  dots[SQUALL_HBCG_RR] = HBCGHost[SQUALL_HBCG_RR];
  dots[SQUALL_HBCG_RZ] = pc ? HBCGHost[SQUALL_HBCG_RZ] : HBCGHost[SQUALL_HBCG_RR];
  dots[SQUALL_HBCG_ZZ] = pc ? HBCGHost[SQUALL_HBCG_ZZ] : HBCGHost[SQUALL_HBCG_RR];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what both fused launchers start with: the partials' work space, the stream, R's length and the grid */
static PetscErrorCode HBCGLaunchSetUp(Vec R, PetscInt *n, int *nb, cudaStream_t *stream)
{
  PetscFunctionBegin;
  PetscCall(HBCGWork());
  PetscCall(SquallCUDAGetStream(stream));
  PetscCall(VecGetLocalSize(R, n));
  *nb = HBGrid(*n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the Jacobi preconditioner's arrays (dinv read, Z written), when there is one */
static PetscErrorCode HBCGGetJacobi(Vec dinv, Vec Z, const PetscScalar **di, PetscScalar **z)
{
  PetscFunctionBegin;
  if (dinv) {
    PetscCall(VecCUDAGetArrayRead(dinv, di));
    PetscCall(VecCUDAGetArrayWrite(Z, z));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBCGRestoreJacobi(Vec dinv, Vec Z, const PetscScalar **di, PetscScalar **z)
{
  PetscFunctionBegin;
  if (dinv) {
    PetscCall(VecCUDARestoreArrayWrite(Z, z));
    PetscCall(VecCUDARestoreArrayRead(dinv, di));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBCGUpdateCUDA(PetscReal alpha, Vec W, Vec R, Vec dinv, Vec Z, Vec P, Vec X, PetscLogEvent ev_solution, PetscReal dots[])
{
  PetscInt           n;
  const PetscScalar *w, *p, *di = NULL;
  PetscScalar       *r, *z = NULL, *x;
  cudaStream_t       stream;
  int                nb;

  PetscFunctionBegin;
  PetscCall(HBCGLaunchSetUp(R, &n, &nb, &stream));
  PetscCall(VecCUDAGetArrayRead(W, &w));
  PetscCall(VecCUDAGetArray(R, &r));
  PetscCall(HBCGGetJacobi(dinv, Z, &di, &z));
  PetscCall(PetscLogGpuTimeBegin());
  if (dinv)
    HBCGUpdateKernel<true><<<nb, HB_BLOCK, 0, stream>>>(n, alpha, w, r, di, z, HBCGPartial);
  else
    HBCGUpdateKernel<false><<<nb, HB_BLOCK, 0, stream>>>(n, alpha, w, r, NULL, NULL, HBCGPartial);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(HBCGFinishDots(nb, (PetscBool) !!dinv, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((dinv ? 9.0 : 4.0) * n));
  PetscCall(HBCGRestoreJacobi(dinv, Z, &di, &z));
  PetscCall(VecCUDARestoreArray(R, &r));
  PetscCall(VecCUDARestoreArrayRead(W, &w));

  /* x += alpha p goes behind the copy of the dot products: it runs while they are summed over the ranks */
  PetscCall(PetscLogEventBegin(ev_solution, X, P, 0, 0));
  PetscCall(VecCUDAGetArrayRead(P, &p));
  PetscCall(VecCUDAGetArray(X, &x));
  PetscCall(PetscLogGpuTimeBegin());
  HBCGAXPYKernel<<<HBGrid(n), HB_BLOCK, 0, stream>>>(n, alpha, p, x);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * n));
  PetscCall(VecCUDARestoreArray(X, &x));
  PetscCall(VecCUDARestoreArrayRead(P, &p));
  PetscCall(PetscLogEventEnd(ev_solution, X, P, 0, 0));
  PetscCall(HBCGReadDots((PetscBool) !!dinv, dots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBCGDotsCUDA(Vec R, Vec dinv, Vec Z, PetscReal dots[])
{
  PetscInt           n;
  const PetscScalar *r, *di = NULL;
  PetscScalar       *z = NULL;
  cudaStream_t       stream;
  int                nb;

  PetscFunctionBegin;
  PetscCall(HBCGLaunchSetUp(R, &n, &nb, &stream));
  PetscCall(VecCUDAGetArrayRead(R, &r));
  PetscCall(HBCGGetJacobi(dinv, Z, &di, &z));
  if (!dinv && Z) PetscCall(VecCUDAGetArrayRead(Z, (const PetscScalar **)&z));
  PetscCall(PetscLogGpuTimeBegin());
  if (dinv)
    HBCGDotsKernel<true, true><<<nb, HB_BLOCK, 0, stream>>>(n, r, di, z, HBCGPartial);
  else if (Z)
    HBCGDotsKernel<true, false><<<nb, HB_BLOCK, 0, stream>>>(n, r, NULL, z, HBCGPartial);
  else
    HBCGDotsKernel<false, false><<<nb, HB_BLOCK, 0, stream>>>(n, r, NULL, NULL, HBCGPartial);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(HBCGFinishDots(nb, (PetscBool) !!Z, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((dinv ? 1.0 : 0.0) * n + (Z ? 6.0 : 2.0) * n));
  PetscCall(HBCGRestoreJacobi(dinv, Z, &di, &z));
  if (!dinv && Z) PetscCall(VecCUDARestoreArrayRead(Z, (const PetscScalar **)&z));
  PetscCall(VecCUDARestoreArrayRead(R, &r));
  PetscCall(HBCGReadDots((PetscBool) !!Z, dots));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBCGDirectionCUDA(PetscBool first, PetscReal beta, Vec Z, Vec P)
{
  PetscInt           n;
  const PetscScalar *z;
  PetscScalar       *p;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecGetLocalSize(Z, &n));
  PetscCall(VecCUDAGetArrayRead(Z, &z));
  PetscCall(PetscLogGpuTimeBegin());
  if (first) {
    /* the first direction: p is not read (it may hold anything, NaN included) */
    PetscCall(VecCUDAGetArrayWrite(P, &p));
    HBCGDirectionKernel<true><<<HBGrid(n), HB_BLOCK, 0, stream>>>(n, beta, z, p);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(VecCUDARestoreArrayWrite(P, &p));
  } else {
    PetscCall(VecCUDAGetArray(P, &p));
    HBCGDirectionKernel<false><<<HBGrid(n), HB_BLOCK, 0, stream>>>(n, beta, z, p);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(VecCUDARestoreArray(P, &p));
    PetscCall(PetscLogGpuFlops(2.0 * n));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayRead(Z, &z));
  PetscFunctionReturn(PETSC_SUCCESS);
}
