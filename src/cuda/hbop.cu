/* CUDA operator of the hipBone CG: y = Z^T (S_L + lambda W) Z x on device vectors.

   1. one fused kernel per element range reads x_G indirectly through Z (gidx), differentiates,
      applies the six packed geometric factors and lambda W, differentiates back and writes y_L:
      - 3D thread blocks (one thread per node, several small elements per block) below the order
        -hb_kernel_switch (by default 3: the 2D kernels below are faster from N = 3 on), the whole
        element in shared memory (or v6's multi-element sweep, below);
      - from it on, 2D blocks of Nq x Nq threads sweeping the element layer by layer;
      in generations (-hb_kernel_variant): v1, whose 2D kernel holds the thread's column of q
      and of the result in registers (shared memory Nq^2), v2, whose 3D kernel issues all its
      global loads before the first barrier and whose 2D kernel keeps q in shared memory (Nq^3) and
      only the result column in registers, v3, v2's 3D kernel and a 2D kernel that
      computes two (-hb_v3_layers: 3, 4) layers per step to cut the shared-memory traffic per node,
      v4, v3 with the 2D block shape and shared-memory row pitches chosen per order against the
      bank conflicts of odd Nq, v5, v3's 2D sweep with two nodes per thread (register tiling:
      each shared load of a column x[m][i] serves both), and v6, which below the switch runs a
      layer sweep of several elements per block (HBLocalOpLowV6) and from it on v4's 2D kernel.
      Why v6: the 3D kernel, which reaches only 66-78% of the streaming roofline at N = 3..7, reads
      every operand of all three contractions from shared memory (10-12 Nq loads per node, about as
      many shared-memory cycles as the node's ~4.5 clocks of HBM time from Nq = 7 on), while the 2D
      kernels, which keep the t-direction in registers, run one element per block and leave most
      lanes of a warp idle at Nq^2 = 4..81 threads. v6 packs about 256 threads of several elements
      into a block, each thread sweeping one column of its element with q, the result and the
      D[i][m], D[m][i] of its column in registers: 6 Nq shared loads per node (4 Nq instructions at
      even Nq), one barrier per layer, and every global load of the column requested before the sweep.
      Measured on the H200: v6 beats the 3D kernel at every order, but v4's 2D kernel, idle lanes and
      all, is the fastest from N = 3 on in double (v6 at N <= 2 by default; single: N = 1-3, 5);
      v7 (src/cuda/hbopv7.cuh, double, N = 9..15): the whole element per block of 8 warps, every
      contraction on the FP64 tensor cores (8x8x4 products with D's fragments in registers), which
      removes the shared-memory bound of the 2D kernels at high order;
   2. Z^T: a CSR row sum over the element copies of each node.
   MPI: the ghost values of x travel (PetscSF, device buffers; PETSc stages through the host when
   MPI is not CUDA-aware) while the interior elements are computed; then the halo elements; the
   ghost rows of y are summed first and sent while the owned rows are summed. */
#include "cuda/hbopdevice.cuh"
#include "cuda/hbop3d.cuh"
#include "cuda/hbop2d.cuh"
#include "cuda/hbopv5.cuh"
#include "cuda/hbopv6.cuh"
#include "cuda/hbopv7.cuh"

/* v3, v4 and v5 have no 3D kernel of their own: below -hb_kernel_switch they run v2's; v6 runs its
   layer sweep there and v4's 2D kernel from the switch on */
template <int Nq> static PetscErrorCode HBLaunchLocalOpN(SquallHBKernelVariant variant, PetscBool use3d, PetscBool cap, PetscInt v3layers, PetscInt elems, PetscInt e0, PetscInt e1, const HBOpArgs &a, cudaStream_t stream)
{
  PetscFunctionBegin;
  if (variant == SQUALL_HB_KERNEL_V7) {
    if constexpr (HBHaveV7(Nq)) {
      PetscCall(HBLaunchV7<Nq>(e0, e1, a, stream));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-hb_kernel_variant v7 is available at N = 9 to 15 in double precision, not at N = %d", Nq - 1);
  }
  if constexpr (Nq <= 10) {
    if (use3d && variant == SQUALL_HB_KERNEL_V6) {
      constexpr int NE = HBElemsV6(Nq);

      HBLocalOpLowV6<Nq><<<(unsigned int)((e1 - e0 + NE - 1) / NE), HBThreadsV6(Nq), 0, stream>>>(e0, e1, a);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (use3d) {
      constexpr int NE = HBElemsPerBlock(Nq);
      const dim3    block(Nq * Nq * Nq, NE);

      if (variant == SQUALL_HB_KERNEL_V1)
        HBLocalOp3D<Nq, NE><<<(unsigned int)((e1 - e0 + NE - 1) / NE), block, 0, stream>>>(e0, e1, a);
      else
        HBLocalOp3Dv2<Nq, NE><<<(unsigned int)((e1 - e0 + NE - 1) / NE), block, 0, stream>>>(e0, e1, a);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  if (variant == SQUALL_HB_KERNEL_V3) {
    PetscCall(HBLaunch2DLayers<Nq, SQUALL_HB_KERNEL_V3>(v3layers, elems, e0, e1, a, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (variant == SQUALL_HB_KERNEL_V4 || variant == SQUALL_HB_KERNEL_V6) {
    PetscCall(HBLaunch2DLayers<Nq, SQUALL_HB_KERNEL_V4>(v3layers, elems, e0, e1, a, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (variant == SQUALL_HB_KERNEL_V5) {
    PetscCall(HBLaunch2Dv5Layers<Nq>(v3layers, e0, e1, a, stream));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (variant == SQUALL_HB_KERNEL_V2) {
    HBLocalOp2Dv2<Nq><<<(unsigned int)(e1 - e0), dim3(Nq, Nq), 0, stream>>>(e0, a);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if constexpr (Nq >= 14) {
    if (cap) {
      HBLocalOp2DCapped<Nq><<<(unsigned int)(e1 - e0), dim3(Nq, Nq), 0, stream>>>(e0, a);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  HBLocalOp2D<Nq><<<(unsigned int)(e1 - e0), dim3(Nq, Nq), 0, stream>>>(e0, a);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y_L on local elements [e0, e1) */
static PetscErrorCode HBLocalOp(Mat_HB *hb, PetscInt e0, PetscInt e1, const PetscScalar *x, cudaStream_t stream)
{
  SquallHBCUDA    c      = hb->cuda;
  const HBOpArgs  a      = {c->gidx, c->G, c->W, c->D, hb->lambda, hb->nown, x, c->xghost, c->yL};
  const PetscBool use3d  = SquallHBUse3D(hb);
  const PetscInt  layers = SquallHBV3Layers(hb), elems = SquallHBElems2D(hb);

  PetscFunctionBegin;
  if (e1 <= e0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(SQUALL_HBLocalOp, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  switch (hb->Nq) {
    case 2: PetscCall(HBLaunchLocalOpN<2>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 3: PetscCall(HBLaunchLocalOpN<3>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 4: PetscCall(HBLaunchLocalOpN<4>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 5: PetscCall(HBLaunchLocalOpN<5>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 6: PetscCall(HBLaunchLocalOpN<6>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 7: PetscCall(HBLaunchLocalOpN<7>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 8: PetscCall(HBLaunchLocalOpN<8>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 9: PetscCall(HBLaunchLocalOpN<9>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 10: PetscCall(HBLaunchLocalOpN<10>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 11: PetscCall(HBLaunchLocalOpN<11>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 12: PetscCall(HBLaunchLocalOpN<12>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 13: PetscCall(HBLaunchLocalOpN<13>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 14: PetscCall(HBLaunchLocalOpN<14>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 15: PetscCall(HBLaunchLocalOpN<15>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    case 16: PetscCall(HBLaunchLocalOpN<16>(hb->kvariant, use3d, hb->capregs, layers, elems, e0, e1, a, stream)); break;
    default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "No CUDA kernel for order %" PetscInt_FMT " (valid orders are 1 to %d)", hb->N, SQUALL_LGL_MAX_ORDER);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((e1 - e0) * SquallSEMOperatorFlops(hb->Nq)));
  PetscCall(PetscLogEventEnd(SQUALL_HBLocalOp, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y[l - r0] = sum of y_L over the copies of rows l in [r0, r1); with x, the partial sums of
   x[l - r0] y[l - r0] over rows below dotend go to partial[block] */
template <bool DOT>
__global__ static void __launch_bounds__(HB_BLOCK) HBGatherKernel(PetscInt r0, PetscInt r1, PetscInt dotend, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ col, const PetscScalar *__restrict__ yL, PetscScalar *__restrict__ y,
                                                                  const PetscScalar *__restrict__ x, PetscReal *__restrict__ partial)
{
  PetscReal d[1] = {0};

  for (PetscInt l = r0 + (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; l < r1; l += (PetscInt)gridDim.x * HB_BLOCK) {
    const PetscInt c1 = rowptr[l + 1];
    PetscScalar    s  = 0;

    for (PetscInt c = rowptr[l]; c < c1; c++) s += yL[col[c]];
    y[l - r0] = s;
    if (DOT && l < dotend) d[0] += x[l - r0] * s;
  }
  if (DOT) {
    HBBlockSum<1>(d);
    if (threadIdx.x == 0) partial[blockIdx.x] = d[0];
  }
}

/* the shared rows receive the other ranks' sums */
template <bool DOT> __global__ static void __launch_bounds__(HB_BLOCK) HBSharedAddKernel(PetscInt n, const PetscScalar *__restrict__ recv, PetscScalar *__restrict__ y, const PetscScalar *__restrict__ x, PetscReal *__restrict__ partial)
{
  PetscReal d[1] = {0};

  for (PetscInt s = (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; s < n; s += (PetscInt)gridDim.x * HB_BLOCK) {
    const PetscScalar v = y[s] + recv[s];

    y[s] = v;
    if (DOT) d[0] += x[s] * v;
  }
  if (DOT) {
    HBBlockSum<1>(d);
    if (threadIdx.x == 0) partial[blockIdx.x] = d[0];
  }
}

/* x.y from the partial sums of the private rows, then of the shared rows, in a fixed order */
__global__ static void __launch_bounds__(HB_BLOCK) HBDotFinal(int nb1, int nb2, const PetscReal *__restrict__ partial, PetscReal *__restrict__ out)
{
  PetscReal v[1] = {0};

  for (int b = threadIdx.x; b < nb1; b += HB_BLOCK) v[0] += partial[b];
  for (int b = threadIdx.x; b < nb2; b += HB_BLOCK) v[0] += partial[HB_MAX_BLOCKS + b];
  HBBlockSum<1>(v);
  if (threadIdx.x == 0) out[0] = v[0];
}

template <typename T> static PetscErrorCode HBUpload(T **d, const T *h, size_t n)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)d, PetscMax(n, (size_t)1) * sizeof(T)));
  if (h && n) PetscCallCUDA(cudaMemcpy(*d, h, n * sizeof(T), cudaMemcpyHostToDevice));
  if (h) PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(T)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBSetUpCUDA(Mat_HB *hb)
{
  SquallHBCUDA c;
  const size_t nl = (size_t)hb->nelem * hb->Np, nrows = (size_t)(hb->nown + hb->nghost);

  PetscFunctionBegin;
  if (hb->cuda) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscNew(&c));
  PetscCall(HBUpload(&c->gidx, hb->gidx, nl));
  PetscCall(HBUpload(&c->G, hb->G, SQUALL_SEM_NGEO * nl));
  PetscCall(HBUpload(&c->W, hb->W, nl));
  PetscCall(HBUpload(&c->D, hb->D, (size_t)hb->Nq * hb->Nq));
  /* this order's slot of the constant D (operators of the same order write the same values) */
  PetscCallCUDA(cudaMemcpyToSymbol(HBConstD, hb->D, (size_t)hb->Nq * hb->Nq * sizeof(PetscReal), (size_t)HBConstOffset(hb->Nq) * sizeof(PetscReal)));
  PetscCall(HBUpload(&c->rowptr, hb->rowptr, nrows + 1));
  PetscCall(HBUpload(&c->col, hb->col, (size_t)hb->rowptr[nrows]));
  PetscCall(HBUpload<PetscScalar>(&c->yL, NULL, nl));
  PetscCall(HBUpload<PetscScalar>(&c->xghost, NULL, (size_t)hb->nghost));
  PetscCall(HBUpload<PetscScalar>(&c->yghost, NULL, (size_t)hb->nghost));
  PetscCall(HBUpload<PetscScalar>(&c->yshared, NULL, (size_t)hb->nshared));
  PetscCall(HBUpload<PetscReal>(&c->partial, NULL, 2 * HB_MAX_BLOCKS + 1));
  PetscCallCUDA(cudaMallocHost((void **)&c->hdot, sizeof(PetscReal)));
  PetscCallCUDA(cudaEventCreate(&c->start));
  PetscCallCUDA(cudaEventCreate(&c->stop));
  hb->cuda = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBDestroyCUDA(Mat_HB *hb)
{
  SquallHBCUDA c = hb->cuda;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaFree(c->gidx));
  PetscCallCUDA(cudaFree(c->G));
  PetscCallCUDA(cudaFree(c->W));
  PetscCallCUDA(cudaFree(c->D));
  PetscCallCUDA(cudaFree(c->rowptr));
  PetscCallCUDA(cudaFree(c->col));
  PetscCallCUDA(cudaFree(c->yL));
  PetscCallCUDA(cudaFree(c->xghost));
  PetscCallCUDA(cudaFree(c->yghost));
  PetscCallCUDA(cudaFree(c->yshared));
  PetscCallCUDA(cudaFree(c->partial));
  PetscCallCUDA(cudaFreeHost(c->hdot));
  PetscCallCUDA(cudaEventDestroy(c->start));
  PetscCallCUDA(cudaEventDestroy(c->stop));
  PetscCall(PetscFree(hb->cuda));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = Z^T y_L with the ghost rows reduced over the ranks; with x, the local x.y (synchronises) */
static PetscErrorCode HBGather(Mat_HB *hb, PetscScalar *y, const PetscScalar *x, PetscReal *dot, PetscBool parallel, cudaStream_t stream)
{
  SquallHBCUDA   c    = hb->cuda;
  const PetscInt nown = hb->nown, npriv = hb->nown - hb->nshared, nrows = hb->nown + hb->nghost;
  const int      nb1 = HBGrid(nown), nb2 = HBGrid(hb->nshared);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_HBGather, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (parallel) {
    if (hb->nghost) HBGatherKernel<false><<<HBGrid(hb->nghost), HB_BLOCK, 0, stream>>>(nown, nrows, 0, c->rowptr, c->col, c->yL, c->yghost, NULL, NULL);
    PetscCallCUDA(cudaGetLastError());
    if (hb->nshared) PetscCallCUDA(cudaMemsetAsync(c->yshared, 0, (size_t)hb->nshared * sizeof(PetscScalar), stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscSFReduceWithMemTypeBegin(hb->num.sfy, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, c->yghost, PETSC_MEMTYPE_CUDA, c->yshared, MPI_SUM));
    if (!hb->overlap) PetscCall(PetscSFReduceEnd(hb->num.sfy, MPIU_SCALAR, c->yghost, c->yshared, MPI_SUM));
    PetscCall(PetscLogGpuTimeBegin());
  }
  if (x)
    HBGatherKernel<true><<<nb1, HB_BLOCK, 0, stream>>>(0, nown, npriv, c->rowptr, c->col, c->yL, y, x, c->partial);
  else
    HBGatherKernel<false><<<nb1, HB_BLOCK, 0, stream>>>(0, nown, 0, c->rowptr, c->col, c->yL, y, NULL, NULL);
  PetscCallCUDA(cudaGetLastError());
  if (parallel) {
    PetscCall(PetscLogGpuTimeEnd());
    if (hb->overlap) PetscCall(PetscSFReduceEnd(hb->num.sfy, MPIU_SCALAR, c->yghost, c->yshared, MPI_SUM));
    PetscCall(PetscLogGpuTimeBegin());
    if (hb->nshared) {
      if (x)
        HBSharedAddKernel<true><<<nb2, HB_BLOCK, 0, stream>>>(hb->nshared, c->yshared, y + npriv, x + npriv, c->partial + HB_MAX_BLOCKS);
      else
        HBSharedAddKernel<false><<<nb2, HB_BLOCK, 0, stream>>>(hb->nshared, c->yshared, y + npriv, NULL, NULL);
      PetscCallCUDA(cudaGetLastError());
    }
  }
  if (x) {
    HBDotFinal<<<1, HB_BLOCK, 0, stream>>>(nb1, parallel && hb->nshared ? nb2 : 0, c->partial, c->partial + 2 * HB_MAX_BLOCKS);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((PetscLogDouble)hb->rowptr[nrows] + (x ? 2.0 * nown : 0)));
  PetscCall(PetscLogEventEnd(SQUALL_HBGather, 0, 0, 0, 0));
  if (x) {
    PetscCallCUDA(cudaMemcpyAsync(c->hdot, c->partial + 2 * HB_MAX_BLOCKS, sizeof(PetscReal), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCall(PetscLogGpuToCpu(sizeof(PetscReal)));
    *dot = *c->hdot;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBMultDevice(Mat_HB *hb, const PetscScalar *x, PetscScalar *y, PetscBool wantdot, PetscReal *dot, cudaStream_t stream)
{
  SquallHBCUDA c = hb->cuda;
  PetscMPIInt  size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  if (size > 1) PetscCall(PetscSFBcastWithMemTypeBegin(hb->num.sfx, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, x, PETSC_MEMTYPE_CUDA, c->xghost, MPI_REPLACE));
  if (size > 1 && !hb->overlap) PetscCall(PetscSFBcastEnd(hb->num.sfx, MPIU_SCALAR, x, c->xghost, MPI_REPLACE));
  PetscCall(HBLocalOp(hb, 0, hb->nint, x, stream));
  if (size > 1 && hb->overlap) PetscCall(PetscSFBcastEnd(hb->num.sfx, MPIU_SCALAR, x, c->xghost, MPI_REPLACE));
  PetscCall(HBLocalOp(hb, hb->nint, hb->nelem, x, stream));
  PetscCall(HBGather(hb, y, wantdot ? x : NULL, dot, (PetscBool)(size > 1), stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBMultCUDA(Mat_HB *hb, Vec x, Vec y, PetscBool wantdot, PetscReal *dot)
{
  const PetscScalar *xd;
  PetscScalar       *yd;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(HBSetUpCUDA(hb));
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecCUDAGetArrayRead(x, &xd));
  PetscCall(VecCUDAGetArrayWrite(y, &yd));
  PetscCall(HBMultDevice(hb, xd, yd, wantdot, dot, stream));
  PetscCall(VecCUDARestoreArrayWrite(y, &yd));
  PetscCall(VecCUDARestoreArrayRead(x, &xd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the empirical roofline: 8 reads and 1 write per entry */
__global__ static void __launch_bounds__(HB_BLOCK) HBStreamKernel(PetscInt n, const PetscScalar *__restrict__ a0, const PetscScalar *__restrict__ a1, const PetscScalar *__restrict__ a2, const PetscScalar *__restrict__ a3,
                                                                  const PetscScalar *__restrict__ a4, const PetscScalar *__restrict__ a5, const PetscScalar *__restrict__ a6, const PetscScalar *__restrict__ a7, PetscScalar *__restrict__ y)
{
  for (PetscInt i = (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; i < n; i += (PetscInt)gridDim.x * HB_BLOCK) y[i] = a0[i] + a1[i] + a2[i] + a3[i] + a4[i] + a5[i] + a6[i] + a7[i];
}

static PetscErrorCode HBElapsed(SquallHBCUDA c, PetscInt reps, PetscReal *t)
{
  float ms;

  PetscFunctionBegin;
  PetscCallCUDA(cudaEventSynchronize(c->stop));
  PetscCallCUDA(cudaEventElapsedTime(&ms, c->start, c->stop));
  *t = (PetscReal)(1e-3 * ms / reps);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBBenchmarkCUDA(Mat_HB *hb, Vec x, Vec y, PetscInt reps, SquallHBBenchResult *res)
{
  SquallHBCUDA       c;
  const PetscScalar *xd;
  PetscScalar       *yd, *s[9];
  cudaStream_t       stream;
  PetscReal          dot;
  PetscMPIInt        size;
  /* big enough to stream from HBM rather than L2, bounded so that it fits beside the operator */
  const PetscInt ns    = PetscMax(PetscMin(hb->nelem * hb->Np, (PetscInt)1 << 26), (PetscInt)1 << 22);
  const int      sgrid = (int)PetscMin((ns + HB_BLOCK - 1) / HB_BLOCK, 65536);

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  PetscCall(HBSetUpCUDA(hb));
  c = hb->cuda;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecCUDAGetArrayRead(x, &xd));
  PetscCall(VecCUDAGetArrayWrite(y, &yd));
  /* a first product fills the ghost values and warms up */
  PetscCall(HBMultDevice(hb, xd, yd, PETSC_TRUE, &dot, stream));

  PetscCallCUDA(cudaEventRecord(c->start, stream));
  for (PetscInt r = 0; r < reps; r++) PetscCall(HBLocalOp(hb, 0, hb->nelem, xd, stream));
  PetscCallCUDA(cudaEventRecord(c->stop, stream));
  PetscCall(HBElapsed(c, reps, &res->t_kernel));

  PetscCallCUDA(cudaEventRecord(c->start, stream));
  for (PetscInt r = 0; r < reps; r++) {
    HBGatherKernel<false><<<HBGrid(hb->nown), HB_BLOCK, 0, stream>>>(0, hb->nown, 0, c->rowptr, c->col, c->yL, yd, NULL, NULL);
    if (hb->nghost) HBGatherKernel<false><<<HBGrid(hb->nghost), HB_BLOCK, 0, stream>>>(hb->nown, hb->nown + hb->nghost, 0, c->rowptr, c->col, c->yL, c->yghost, NULL, NULL);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaEventRecord(c->stop, stream));
  PetscCall(HBElapsed(c, reps, &res->t_gather));

  PetscCallCUDA(cudaEventRecord(c->start, stream));
  for (PetscInt r = 0; r < reps; r++) PetscCall(HBMultDevice(hb, xd, yd, PETSC_FALSE, NULL, stream));
  PetscCallCUDA(cudaEventRecord(c->stop, stream));
  PetscCall(HBElapsed(c, reps, &res->t_mult));
  PetscCall(VecCUDARestoreArrayWrite(y, &yd));
  PetscCall(VecCUDARestoreArrayRead(x, &xd));

  PetscCall(PetscLogEventBegin(SQUALL_HBStream, 0, 0, 0, 0));
  for (int a = 0; a < 9; a++) {
    PetscCallCUDA(cudaMalloc((void **)&s[a], (size_t)ns * sizeof(PetscScalar)));
    PetscCallCUDA(cudaMemsetAsync(s[a], 0, (size_t)ns * sizeof(PetscScalar), stream));
  }
  HBStreamKernel<<<sgrid, HB_BLOCK, 0, stream>>>(ns, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]);
  PetscCallCUDA(cudaEventRecord(c->start, stream));
  PetscCall(PetscLogGpuTimeBegin());
  for (PetscInt r = 0; r < reps; r++) HBStreamKernel<<<sgrid, HB_BLOCK, 0, stream>>>(ns, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCallCUDA(cudaEventRecord(c->stop, stream));
  PetscCall(HBElapsed(c, reps, &res->t_stream));
  PetscCall(PetscLogGpuFlops(7.0 * ns * (reps + 1)));
  for (int a = 0; a < 9; a++) PetscCallCUDA(cudaFree(s[a]));
  PetscCall(PetscLogEventEnd(SQUALL_HBStream, 0, 0, 0, 0));
  res->bytes_stream = 9.0 * ns * sizeof(PetscScalar);
  res->device       = PETSC_TRUE;
  (void)size;
  PetscFunctionReturn(PETSC_SUCCESS);
}
