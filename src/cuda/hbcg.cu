/* Fused CG vector kernels of KSP hbcg on device vectors (see src/ksp/hbcg.c). The dot products of
   an iteration come from the pass that updates r (and z), are summed by a fixed tree, and reach
   the host through pinned memory; the solution AXPY is queued behind that copy, so it runs while
   the host sums the dot products over the ranks, or (when KSP hbcg lags it) goes into the next
   direction's pass over p. On one rank the operator may leave p.Ap on the
   device (SquallHBCGDeviceDot()); alpha is then formed there and the update reads it, so that an
   iteration makes one trip to the host instead of two. */
#include "cuda/hbreduce.cuh"
#include "physics/sem.h"

/* the device scalars after the partial sums: the dots' sums, then p.Ap, the previous p.Ap, alpha and whether the
   update is skipped (p.Ap unusable: the host then stops the solve as KSPCG does, before any update) */
enum { HBCG_PAP = SQUALL_HBCG_NDOTS, HBCG_PAP_OLD, HBCG_ALPHA, HBCG_SKIP, HBCG_NSCALARS };

/* device partial sums with the scalars behind them, and pinned results (the dots and p.Ap), kept for the whole run */
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
  PetscCallCUDA(cudaMalloc((void **)&HBCGPartial, (SQUALL_HBCG_NDOTS * HB_MAX_BLOCKS + HBCG_NSCALARS) * sizeof(PetscReal)));
  PetscCallCUDA(cudaMemset(HBCGPartial, 0, (SQUALL_HBCG_NDOTS * HB_MAX_BLOCKS + HBCG_NSCALARS) * sizeof(PetscReal)));
  PetscCallCUDA(cudaMallocHost((void **)&HBCGHost, (HBCG_PAP + 1) * sizeof(PetscReal)));
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

/* alpha as given, or (scalars not NULL) the device's, which may say to skip the update */
__device__ static inline PetscReal HBCGAlpha(PetscReal alpha, const PetscReal *scalars, bool *skip)
{
  *skip = scalars && scalars[HBCG_SKIP] != 0;
  return scalars ? scalars[HBCG_ALPHA] : alpha;
}

/* r -= alpha w; with a preconditioner z = dinv r */
template <bool PC>
__global__ static void __launch_bounds__(HB_BLOCK) HBCGUpdateKernel(PetscInt n, PetscReal alpha0, const PetscReal *__restrict__ scalars, const PetscScalar *__restrict__ w, PetscScalar *__restrict__ r, const PetscScalar *__restrict__ dinv,
                                                                    PetscScalar *__restrict__ z, PetscReal *__restrict__ partial)
{
  PetscReal       rz = 0, rr = 0, zz = 0;
  bool            skip;
  const PetscReal alpha = HBCGAlpha(alpha0, scalars, &skip);

  for (PetscInt i = (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * HB_BLOCK) {
    PetscScalar ri = r[i], zi;

    /* skip: r stays as it is (w may hold anything); z = dinv r again */
    if (PC) {
      if (skip)
        zi = dinv[i] * ri;
      else
        SquallSEMCGResidualUpdate(alpha, w[i], dinv[i], &ri, &zi);
      z[i] = zi;
      rz += ri * zi;
      zz += zi * zi;
    } else if (!skip)
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

__global__ static void __launch_bounds__(HB_BLOCK) HBCGAXPYKernel(PetscInt n, PetscReal alpha0, const PetscReal *__restrict__ scalars, const PetscScalar *__restrict__ p, PetscScalar *__restrict__ x)
{
  bool            skip;
  const PetscReal alpha = HBCGAlpha(alpha0, scalars, &skip);

  if (skip) return;
  for (PetscInt i = (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * HB_BLOCK) x[i] += alpha * p[i];
}

/* alpha = (r.z) / (p.Ap) from the device's sums, unless p.Ap is not finite, zero, or of the other sign than the
   previous iteration's (first: there is none): the tests of KSPCG, which the host repeats on the copied p.Ap */
__global__ static void HBCGAlphaKernel(bool first, bool pc, PetscReal *__restrict__ s)
{
  const PetscReal pap = s[HBCG_PAP], old = s[HBCG_PAP_OLD], rz = s[pc ? SQUALL_HBCG_RZ : SQUALL_HBCG_RR];
  const bool      flip = !first && ((pap > 0 && old < 0) || (pap < 0 && old > 0));
  const bool      bad  = !isfinite(pap) || pap == 0 || flip;

  s[HBCG_ALPHA]   = bad ? 0 : rz / pap;
  s[HBCG_SKIP]    = bad ? 1 : 0;
  s[HBCG_PAP_OLD] = pap;
}

/* p = z + beta p (FIRST: p = z); with AXPY, first x += alpha p (the previous iteration's update, in the same pass) */
template <bool FIRST, bool AXPY> __global__ static void __launch_bounds__(HB_BLOCK) HBCGDirectionKernel(PetscInt n, PetscReal beta, const PetscScalar *__restrict__ z, PetscScalar *__restrict__ p, PetscReal alpha, PetscScalar *__restrict__ x)
{
  for (PetscInt i = (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * HB_BLOCK) {
    if (FIRST) {
      p[i] = z[i];
    } else {
      const PetscScalar pi = p[i];

      if (AXPY) x[i] += alpha * pi;
      p[i] = z[i] + beta * pi;
    }
  }
}

/* reduce the partials, start the copy to the host and record its completion */
static PetscErrorCode HBCGFinishDots(int nb, PetscBool pc, cudaStream_t stream)
{
  PetscFunctionBegin;
  HBFinalSum<SQUALL_HBCG_NDOTS><<<1, HB_BLOCK, 0, stream>>>(nb, HBCGPartial, HBCGPartial + SQUALL_HBCG_NDOTS * HB_MAX_BLOCKS);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(HBCGHost, HBCGPartial + SQUALL_HBCG_NDOTS * HB_MAX_BLOCKS, (HBCG_PAP + 1) * sizeof(PetscReal), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaEventRecord(HBCGCopied, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the dots, and with pap the device's p.Ap copied with them */
static PetscErrorCode HBCGReadDots(PetscBool pc, PetscReal dots[], PetscReal *pap)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaEventSynchronize(HBCGCopied));
  PetscCall(PetscLogGpuToCpu((HBCG_PAP + 1) * sizeof(PetscReal)));
  dots[SQUALL_HBCG_RR] = HBCGHost[SQUALL_HBCG_RR];
  dots[SQUALL_HBCG_RZ] = pc ? HBCGHost[SQUALL_HBCG_RZ] : HBCGHost[SQUALL_HBCG_RR];
  dots[SQUALL_HBCG_ZZ] = pc ? HBCGHost[SQUALL_HBCG_ZZ] : HBCGHost[SQUALL_HBCG_RR];
  if (pap) *pap = HBCGHost[HBCG_PAP];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBCGDeviceDot(PetscReal **pap)
{
  PetscFunctionBegin;
  PetscCall(HBCGWork());
  *pap = HBCGPartial + SQUALL_HBCG_NDOTS * HB_MAX_BLOCKS + HBCG_PAP;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBCGAlphaCUDA(PetscBool first, PetscBool pc)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(HBCGWork());
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  HBCGAlphaKernel<<<1, 1, 0, stream>>>((bool)first, (bool)pc, HBCGPartial + SQUALL_HBCG_NDOTS * HB_MAX_BLOCKS);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(1.0));
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

PetscErrorCode SquallHBCGUpdateCUDA(PetscReal alpha, PetscReal *pap, Vec W, Vec R, Vec dinv, Vec Z, Vec P, Vec X, PetscLogEvent ev_solution, PetscReal dots[])
{
  PetscInt           n;
  const PetscScalar *w, *p, *di = NULL;
  PetscScalar       *r, *z = NULL, *x;
  const PetscReal   *scalars;
  cudaStream_t       stream;
  int                nb;

  PetscFunctionBegin;
  PetscCall(HBCGLaunchSetUp(R, &n, &nb, &stream));
  scalars = pap ? HBCGPartial + SQUALL_HBCG_NDOTS * HB_MAX_BLOCKS : NULL;
  PetscCall(VecCUDAGetArrayRead(W, &w));
  PetscCall(VecCUDAGetArray(R, &r));
  PetscCall(HBCGGetJacobi(dinv, Z, &di, &z));
  PetscCall(PetscLogGpuTimeBegin());
  if (dinv)
    HBCGUpdateKernel<true><<<nb, HB_BLOCK, 0, stream>>>(n, alpha, scalars, w, r, di, z, HBCGPartial);
  else
    HBCGUpdateKernel<false><<<nb, HB_BLOCK, 0, stream>>>(n, alpha, scalars, w, r, NULL, NULL, HBCGPartial);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(HBCGFinishDots(nb, (PetscBool) !!dinv, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((dinv ? 9.0 : 4.0) * n));
  PetscCall(HBCGRestoreJacobi(dinv, Z, &di, &z));
  PetscCall(VecCUDARestoreArray(R, &r));
  PetscCall(VecCUDARestoreArrayRead(W, &w));

  /* x += alpha p goes behind the copy of the dot products: it runs while they are summed over the ranks (X NULL: the
     next direction's pass does it) */
  if (!X) {
    PetscCall(HBCGReadDots((PetscBool) !!dinv, dots, pap));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(ev_solution, X, P, 0, 0));
  PetscCall(VecCUDAGetArrayRead(P, &p));
  PetscCall(VecCUDAGetArray(X, &x));
  PetscCall(PetscLogGpuTimeBegin());
  HBCGAXPYKernel<<<HBGrid(n), HB_BLOCK, 0, stream>>>(n, alpha, scalars, p, x);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2.0 * n));
  PetscCall(VecCUDARestoreArray(X, &x));
  PetscCall(VecCUDARestoreArrayRead(P, &p));
  PetscCall(PetscLogEventEnd(ev_solution, X, P, 0, 0));
  PetscCall(HBCGReadDots((PetscBool) !!dinv, dots, pap));
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
  PetscCall(HBCGReadDots((PetscBool) !!Z, dots, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBCGDirectionCUDA(PetscBool first, PetscReal beta, Vec Z, Vec P, PetscReal alpha, Vec X)
{
  PetscInt           n;
  const PetscScalar *z;
  PetscScalar       *p, *x;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecGetLocalSize(Z, &n));
  PetscCall(VecCUDAGetArrayRead(Z, &z));
  PetscCall(PetscLogGpuTimeBegin());
  if (first) {
    /* the first direction: p is not read (it may hold anything, NaN included) */
    PetscCall(VecCUDAGetArrayWrite(P, &p));
    HBCGDirectionKernel<true, false><<<HBGrid(n), HB_BLOCK, 0, stream>>>(n, beta, z, p, 0, NULL);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(VecCUDARestoreArrayWrite(P, &p));
  } else {
    PetscCall(VecCUDAGetArray(P, &p));
    if (X) {
      PetscCall(VecCUDAGetArray(X, &x));
      HBCGDirectionKernel<false, true><<<HBGrid(n), HB_BLOCK, 0, stream>>>(n, beta, z, p, alpha, x);
      PetscCallCUDA(cudaGetLastError());
      PetscCall(VecCUDARestoreArray(X, &x));
    } else {
      HBCGDirectionKernel<false, false><<<HBGrid(n), HB_BLOCK, 0, stream>>>(n, beta, z, p, 0, NULL);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscCall(VecCUDARestoreArray(P, &p));
    PetscCall(PetscLogGpuFlops((X ? 4.0 : 2.0) * n));
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayRead(Z, &z));
  PetscFunctionReturn(PETSC_SUCCESS);
}
