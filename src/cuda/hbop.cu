/* CUDA operator of the hipBone CG: y = Z^T S_L Z x + lambda x on device vectors, for the operator
   described by a SquallHBOpDesc (src/cuda/hbkernels.h).

   1. one fused kernel per element range reads x_G indirectly through Z (gidx), differentiates,
      applies the six packed geometric factors (read per node, or formed from the element's vertices or
      its one affine matrix: the descriptor's geometry, a template parameter of the kernel's
      HBGeoColumn), differentiates back and writes y_L. The
      kernel (the descriptor's, by order from SquallHBGetDefaultKernel() unless -hb_kernel says):
      - sweep (src/cuda/hbsweep.cuh, N <= 9): several elements per block, a thread per element column;
      - layers (src/cuda/hblayers.cuh): a thread per node of a layer, L layers per step;
      - layers_tiled (src/cuda/hblayerstiled.cuh): the same with two nodes per thread;
   2. Z^T: under gather the rows of nodes with one element copy in all (inside an element, or on a boundary face: the
      first nsingle owned rows, -hb_single_rows) the element kernels write whole, lambda x + v; the others are a CSR
      row sum over the element copies of each node, plus lambda x; or (-hb_scatter atomic) the element kernels add
      their results into y = lambda x and into the ghost rows directly, and p.Ap is summed in them too, so that
      y_L is neither written nor read. (hipBone reads lambda W per element node, W the inverse
      multiplicity; Z^T W Z = I, so lambda x on the assembled rows is the same operator without reading W.)
   MPI: the ghost values of x travel (PetscSF, device buffers; PETSc stages through the host when
   MPI is not CUDA-aware) while the interior elements are computed; then the halo elements; the
   ghost rows of y are summed first and sent while the owned rows are summed. */
#include "cuda/hbopdevice.cuh"
#include "cuda/hbmma.cuh"

/* y_L on local elements [e0, e1); or (-hb_scatter atomic) their sums added into y and the ghost rows, and with dot
   their p.Ap into dot's slots. The mode is the descriptor's, never y's pointer: a rank that owns no rows has none. */
static PetscErrorCode HBLocalOp(const SquallHBOpDesc *d, PetscInt e0, PetscInt e1, const PetscScalar *x, PetscScalar *y, PetscReal *dot, cudaStream_t stream)
{
  SquallHBCUDA   c = d->cuda;
  const HBOpArgs a = {c->gidx, c->G, c->D, c->V, c->F, c->r, c->w, d->nown, d->nsingle, d->lambda, x, c->xghost, c->yL, y, d->atomic ? c->yghost : NULL, dot};

  PetscFunctionBegin;
  if (e1 <= e0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(d->ev_localop, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  switch (d->geometry + (d->atomic ? HB_ATOMIC_BIT : 0)) {
    case SQUALL_HB_GEOMETRY_STORED: PetscCall(HBLocalOpGeo<SQUALL_HB_GEOMETRY_STORED>(d, e0, e1, a, stream)); break;
    case SQUALL_HB_GEOMETRY_TRILINEAR: PetscCall(HBLocalOpGeo<SQUALL_HB_GEOMETRY_TRILINEAR>(d, e0, e1, a, stream)); break;
    case SQUALL_HB_GEOMETRY_AFFINE: PetscCall(HBLocalOpGeo<SQUALL_HB_GEOMETRY_AFFINE>(d, e0, e1, a, stream)); break;
    case SQUALL_HB_GEOMETRY_STORED | HB_ATOMIC_BIT: PetscCall(HBLocalOpGeo<SQUALL_HB_GEOMETRY_STORED | HB_ATOMIC_BIT>(d, e0, e1, a, stream)); break;
    case SQUALL_HB_GEOMETRY_TRILINEAR | HB_ATOMIC_BIT: PetscCall(HBLocalOpGeo<SQUALL_HB_GEOMETRY_TRILINEAR | HB_ATOMIC_BIT>(d, e0, e1, a, stream)); break;
    case SQUALL_HB_GEOMETRY_AFFINE | HB_ATOMIC_BIT: PetscCall(HBLocalOpGeo<SQUALL_HB_GEOMETRY_AFFINE | HB_ATOMIC_BIT>(d, e0, e1, a, stream)); break;
    default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The operator's geometry must be resolved (stored, trilinear, affine) before a device product");
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((e1 - e0) * (SquallSEMOperatorFlops(d->Nq) + (d->atomic ? (dot ? 3.0 : 1.0) * d->Np : 0))));
  PetscCall(PetscLogEventEnd(d->ev_localop, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y[l - r0] = sum of y_L over the copies of rows l in [r0, r1), plus (OWNED) lambda x[l - r0]; with DOT, the
   partial sums of x[l - r0] y[l - r0] over rows below dotend go to partial[block] */
template <bool OWNED, bool DOT>
__global__ static void __launch_bounds__(HB_BLOCK) HBGatherKernel(PetscInt r0, PetscInt r1, PetscInt dotend, const PetscInt *__restrict__ rowptr, const PetscInt *__restrict__ col, const PetscScalar *__restrict__ yL, PetscReal lambda,
                                                                  PetscScalar *__restrict__ y, const PetscScalar *__restrict__ x, PetscReal *__restrict__ partial)
{
  PetscReal d[1] = {0};

  for (PetscInt l = r0 + (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; l < r1; l += (PetscInt)gridDim.x * HB_BLOCK) {
    const PetscInt c1 = rowptr[l + 1];
    PetscScalar    s  = OWNED ? lambda * x[l - r0] : 0;

    for (PetscInt c = rowptr[l]; c < c1; c++) s += yL[col[c]];
    y[l - r0] = s;
    if (DOT && l < dotend) d[0] += x[l - r0] * s;
  }
  if (DOT) {
    HBBlockSum<1>(d);
    if (threadIdx.x == 0) partial[blockIdx.x] = d[0];
  }
}

/* -hb_scatter atomic: y = lambda x on the owned rows, which the element kernels then add into; with DOT, the
   block's lambda x.x (p.Ap's lambda term) into one of the slots */
template <bool DOT> __global__ static void __launch_bounds__(HB_BLOCK) HBAtomicInitKernel(PetscInt n, PetscReal lambda, const PetscScalar *__restrict__ x, PetscScalar *__restrict__ y, PetscReal *__restrict__ slots)
{
  PetscReal d[1] = {0};

  for (PetscInt l = (PetscInt)blockIdx.x * HB_BLOCK + threadIdx.x; l < n; l += (PetscInt)gridDim.x * HB_BLOCK) {
    const PetscScalar xl = x[l], v = lambda * xl;

    y[l] = v;
    if (DOT) d[0] += xl * v;
  }
  if (DOT) {
    HBBlockSum<1>(d);
    if (threadIdx.x == 0) atomicAdd(slots + blockIdx.x % HB_DOT_SLOTS, d[0]);
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

/* the partial sums of the n element columns' x.y over their single rows (HBColumnDot()) */
__global__ static void __launch_bounds__(HB_BLOCK) HBColumnSumKernel(size_t n, const PetscReal *__restrict__ colsum, PetscReal *__restrict__ partial)
{
  PetscReal d[1] = {0};

  for (size_t c = (size_t)blockIdx.x * HB_BLOCK + threadIdx.x; c < n; c += (size_t)gridDim.x * HB_BLOCK) d[0] += colsum[c];
  HBBlockSum<1>(d);
  if (threadIdx.x == 0) partial[blockIdx.x] = d[0];
}

/* x.y from the partial sums of the private rows the gather wrote, of the shared rows, then of the element columns'
   single rows, in a fixed order */
__global__ static void __launch_bounds__(HB_BLOCK) HBDotFinal(int nb1, int nb2, int nb3, const PetscReal *__restrict__ partial, PetscReal *__restrict__ out)
{
  PetscReal v[1] = {0};

  for (int b = threadIdx.x; b < nb1; b += HB_BLOCK) v[0] += partial[b];
  for (int b = threadIdx.x; b < nb2; b += HB_BLOCK) v[0] += partial[HB_MAX_BLOCKS + b];
  for (int b = threadIdx.x; b < nb3; b += HB_BLOCK) v[0] += partial[2 * HB_MAX_BLOCKS + b];
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

static PetscErrorCode HBSetUpCUDA(SquallHBOpDesc *hb)
{
  SquallHBCUDA c;
  const size_t nl = (size_t)hb->nelem * hb->Np, nrows = (size_t)(hb->nown + hb->nghost);

  PetscFunctionBegin;
  if (hb->cuda) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscNew(&c));
  PetscCall(HBUpload(&c->gidx, hb->gidx, nl));
  PetscCall(HBUpload(&c->r, hb->r, (size_t)hb->Nq));
  PetscCall(HBUpload(&c->w, hb->w, (size_t)hb->Nq));
  PetscCall(HBUpload(&c->D, hb->D, (size_t)hb->Nq * hb->Nq));
  /* each geometry's translation unit has its own constant D */
  PetscCall(HBUploadConstD<SQUALL_HB_GEOMETRY_STORED>(hb->D, hb->Nq));
  PetscCall(HBUploadConstD<SQUALL_HB_GEOMETRY_TRILINEAR>(hb->D, hb->Nq));
  PetscCall(HBUploadConstD<SQUALL_HB_GEOMETRY_AFFINE>(hb->D, hb->Nq));
  PetscCall(HBUpload(&c->rowptr, hb->rowptr, nrows + 1));
  PetscCall(HBUpload(&c->col, hb->col, (size_t)hb->rowptr[nrows]));
  PetscCall(HBUpload<PetscScalar>(&c->yL, NULL, nl));
  PetscCall(HBUpload<PetscScalar>(&c->xghost, NULL, (size_t)hb->nghost));
  PetscCall(HBUpload<PetscScalar>(&c->yghost, NULL, (size_t)hb->nghost));
  PetscCall(HBUpload<PetscScalar>(&c->yshared, NULL, (size_t)hb->nshared));
  PetscCall(HBUpload<PetscReal>(&c->partial, NULL, 3 * HB_MAX_BLOCKS + 1));
  PetscCall(HBUpload<PetscReal>(&c->dotslots, NULL, HB_DOT_SLOTS + 1));
  PetscCallCUDA(cudaMallocHost((void **)&c->hdot, sizeof(PetscReal)));
  hb->cuda = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device copy of the geometry in use, uploaded on its first product (the mode may change between products) */
static PetscErrorCode HBGeometryCUDA(SquallHBOpDesc *hb)
{
  SquallHBCUDA c = hb->cuda;

  PetscFunctionBegin;
  if (hb->geometry == SQUALL_HB_GEOMETRY_STORED && !c->G) PetscCall(HBUpload(&c->G, hb->G, (size_t)SQUALL_SEM_NGEO * hb->nelem * hb->Np));
  if (hb->geometry == SQUALL_HB_GEOMETRY_TRILINEAR && !c->V) PetscCall(HBUpload(&c->V, hb->V, (size_t)SQUALL_HB_NVERT_REALS * hb->nelem));
  if (hb->geometry == SQUALL_HB_GEOMETRY_AFFINE && !c->F) PetscCall(HBUpload(&c->F, hb->F, (size_t)SQUALL_SEM_NGEO * hb->nelem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBMmaUsableCUDA(PetscInt N, PetscBool *usable)
{
  PetscFunctionBegin;
  PetscCall(HBMmaDevice((int)N + 1, PETSC_FALSE, usable));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBDestroyCUDA(SquallHBOpDesc *hb)
{
  SquallHBCUDA c = hb->cuda;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaFree(c->gidx));
  PetscCallCUDA(cudaFree(c->G));
  PetscCallCUDA(cudaFree(c->V));
  PetscCallCUDA(cudaFree(c->F));
  PetscCallCUDA(cudaFree(c->r));
  PetscCallCUDA(cudaFree(c->w));
  PetscCallCUDA(cudaFree(c->D));
  PetscCallCUDA(cudaFree(c->rowptr));
  PetscCallCUDA(cudaFree(c->col));
  PetscCallCUDA(cudaFree(c->yL));
  PetscCallCUDA(cudaFree(c->xghost));
  PetscCallCUDA(cudaFree(c->yghost));
  PetscCallCUDA(cudaFree(c->yshared));
  PetscCallCUDA(cudaFree(c->partial));
  PetscCallCUDA(cudaFree(c->dotslots));
  PetscCallCUDA(cudaFree(c->colsum));
  PetscCallCUDA(cudaFreeHost(c->hdot));
  PetscCall(PetscFree(hb->cuda));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x.y's sum from the device to *dot (synchronises), unless it is to stay on the device (ddot) */
static PetscErrorCode HBDotToHost(const SquallHBOpDesc *hb, const PetscReal *src, PetscReal *ddot, PetscReal *dot, cudaStream_t stream)
{
  SquallHBCUDA c = hb->cuda;

  PetscFunctionBegin;
  if (ddot) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaMemcpyAsync(c->hdot, src, sizeof(PetscReal), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogGpuToCpu(sizeof(PetscReal)));
  *dot = *c->hdot;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = Z^T y_L + lambda x with the ghost rows reduced over the ranks; with dot, the local x.y (into *dot, or left in
   device memory at ddot) */
static PetscErrorCode HBGather(const SquallHBOpDesc *hb, PetscScalar *y, const PetscScalar *x, PetscReal *dot, PetscReal *ddot, PetscBool parallel, cudaStream_t stream)
{
  SquallHBCUDA   c    = hb->cuda;
  const PetscInt nown = hb->nown, npriv = hb->nown - hb->nshared, nrows = hb->nown + hb->nghost, ns = hb->nsingle;
  const size_t   ncol = (size_t)hb->nelem * hb->Nq * hb->Nq;
  const int      nb1 = HBGrid(nown - ns), nb2 = HBGrid(hb->nshared), nb3 = HBGrid((PetscInt)PetscMin(ncol, (size_t)PETSC_INT_MAX));

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(hb->ev_gather, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (parallel) {
    if (hb->nghost) HBGatherKernel<false, false><<<HBGrid(hb->nghost), HB_BLOCK, 0, stream>>>(nown, nrows, 0, c->rowptr, c->col, c->yL, 0, c->yghost, NULL, NULL);
    PetscCallCUDA(cudaGetLastError());
    if (hb->nshared) PetscCallCUDA(cudaMemsetAsync(c->yshared, 0, (size_t)hb->nshared * sizeof(PetscScalar), stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(PetscSFReduceWithMemTypeBegin(hb->sfy, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, c->yghost, PETSC_MEMTYPE_CUDA, c->yshared, MPI_SUM));
    if (!hb->overlap) PetscCall(PetscSFReduceEnd(hb->sfy, MPIU_SCALAR, c->yghost, c->yshared, MPI_SUM));
    PetscCall(PetscLogGpuTimeBegin());
  }
  /* the element kernels wrote the single rows [0, ns), and their part of x.y per element column */
  if (dot) {
    HBGatherKernel<true, true><<<nb1, HB_BLOCK, 0, stream>>>(ns, nown, npriv, c->rowptr, c->col, c->yL, hb->lambda, y + ns, x + ns, c->partial);
    if (ns) HBColumnSumKernel<<<nb3, HB_BLOCK, 0, stream>>>(ncol, c->colsum, c->partial + 2 * HB_MAX_BLOCKS);
  } else
    HBGatherKernel<true, false><<<nb1, HB_BLOCK, 0, stream>>>(ns, nown, 0, c->rowptr, c->col, c->yL, hb->lambda, y + ns, x + ns, NULL);
  PetscCallCUDA(cudaGetLastError());
  if (parallel) {
    PetscCall(PetscLogGpuTimeEnd());
    if (hb->overlap) PetscCall(PetscSFReduceEnd(hb->sfy, MPIU_SCALAR, c->yghost, c->yshared, MPI_SUM));
    PetscCall(PetscLogGpuTimeBegin());
    if (hb->nshared) {
      if (dot)
        HBSharedAddKernel<true><<<nb2, HB_BLOCK, 0, stream>>>(hb->nshared, c->yshared, y + npriv, x + npriv, c->partial + HB_MAX_BLOCKS);
      else
        HBSharedAddKernel<false><<<nb2, HB_BLOCK, 0, stream>>>(hb->nshared, c->yshared, y + npriv, NULL, NULL);
      PetscCallCUDA(cudaGetLastError());
    }
  }
  if (dot) {
    HBDotFinal<<<1, HB_BLOCK, 0, stream>>>(nb1, parallel && hb->nshared ? nb2 : 0, ns ? nb3 : 0, c->partial, ddot ? ddot : c->partial + 3 * HB_MAX_BLOCKS);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((PetscLogDouble)(hb->rowptr[nrows] - hb->rowptr[ns]) + (dot ? 4.0 : 2.0) * (nown - ns) + (dot ? (PetscLogDouble)ncol : 0)));
  PetscCall(PetscLogEventEnd(hb->ev_gather, 0, 0, 0, 0));
  if (dot) PetscCall(HBDotToHost(hb, c->partial + 3 * HB_MAX_BLOCKS, ddot, dot, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -hb_scatter atomic: the ghost rows of y, summed by the element kernels, are reduced over the ranks into the shared
   rows; with dot, p.Ap from the kernels' slots (the local part: the caller sums over the ranks), into *dot or left in
   device memory at ddot */
static PetscErrorCode HBAtomicFinish(const SquallHBOpDesc *hb, PetscScalar *y, PetscReal *dot, PetscReal *ddot, PetscBool parallel, cudaStream_t stream)
{
  SquallHBCUDA   c     = hb->cuda;
  const PetscInt npriv = hb->nown - hb->nshared;

  PetscFunctionBegin;
  if (parallel) {
    if (hb->nshared) PetscCallCUDA(cudaMemsetAsync(c->yshared, 0, (size_t)hb->nshared * sizeof(PetscScalar), stream));
    PetscCall(PetscSFReduceWithMemTypeBegin(hb->sfy, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, c->yghost, PETSC_MEMTYPE_CUDA, c->yshared, MPI_SUM));
    PetscCall(PetscSFReduceEnd(hb->sfy, MPIU_SCALAR, c->yghost, c->yshared, MPI_SUM));
    if (hb->nshared) {
      PetscCall(PetscLogEventBegin(hb->ev_gather, 0, 0, 0, 0));
      PetscCall(PetscLogGpuTimeBegin());
      HBSharedAddKernel<false><<<HBGrid(hb->nshared), HB_BLOCK, 0, stream>>>(hb->nshared, c->yshared, y + npriv, NULL, NULL);
      PetscCallCUDA(cudaGetLastError());
      PetscCall(PetscLogGpuTimeEnd());
      PetscCall(PetscLogGpuFlops((PetscLogDouble)hb->nshared));
      PetscCall(PetscLogEventEnd(hb->ev_gather, 0, 0, 0, 0));
    }
  }
  if (dot) {
    HBFinalSum<1><<<1, HB_BLOCK, 0, stream>>>(HB_DOT_SLOTS, c->dotslots, ddot ? ddot : c->dotslots + HB_DOT_SLOTS);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(HBDotToHost(hb, c->dotslots + HB_DOT_SLOTS, ddot, dot, stream));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -hb_scatter atomic, before the element kernels: y = lambda x (under atomic they add into every row: nsingle is 0),
   the ghost rows and (with slots) p.Ap's slots zero, then lambda x.x into the slots */
static PetscErrorCode HBAtomicStart(const SquallHBOpDesc *hb, const PetscScalar *x, PetscScalar *y, PetscReal *slots, cudaStream_t stream)
{
  SquallHBCUDA c = hb->cuda;

  PetscFunctionBegin;
  if (hb->nghost) PetscCallCUDA(cudaMemsetAsync(c->yghost, 0, (size_t)hb->nghost * sizeof(PetscScalar), stream));
  if (slots) PetscCallCUDA(cudaMemsetAsync(slots, 0, HB_DOT_SLOTS * sizeof(PetscReal), stream));
  PetscCall(PetscLogEventBegin(hb->ev_gather, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (slots)
    HBAtomicInitKernel<true><<<HBGrid(hb->nown), HB_BLOCK, 0, stream>>>(hb->nown, hb->lambda, x, y, slots);
  else
    HBAtomicInitKernel<false><<<HBGrid(hb->nown), HB_BLOCK, 0, stream>>>(hb->nown, hb->lambda, x, y, NULL);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((slots ? 3.0 : 1.0) * hb->nown));
  PetscCall(PetscLogEventEnd(hb->ev_gather, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode HBMultDevice(const SquallHBOpDesc *hb, const PetscScalar *x, PetscScalar *y, PetscBool wantdot, PetscReal *dot, PetscReal *ddot, cudaStream_t stream)
{
  SquallHBCUDA c = hb->cuda;
  PetscMPIInt  size;
  PetscReal   *pap = NULL; /* where the element kernels put their part of p.Ap */

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  if (wantdot && hb->atomic)
    pap = c->dotslots;
  else if (wantdot && hb->nsingle) {
    if (!c->colsum) PetscCall(HBUpload<PetscReal>(&c->colsum, NULL, (size_t)hb->nelem * hb->Nq * hb->Nq));
    pap = c->colsum;
  }
  if (hb->atomic) PetscCall(HBAtomicStart(hb, x, y, pap, stream));
  if (size > 1) PetscCall(PetscSFBcastWithMemTypeBegin(hb->sfx, MPIU_SCALAR, PETSC_MEMTYPE_CUDA, x, PETSC_MEMTYPE_CUDA, c->xghost, MPI_REPLACE));
  if (size > 1 && !hb->overlap) PetscCall(PetscSFBcastEnd(hb->sfx, MPIU_SCALAR, x, c->xghost, MPI_REPLACE));
  PetscCall(HBLocalOp(hb, 0, hb->nint, x, y, pap, stream));
  if (size > 1 && hb->overlap) PetscCall(PetscSFBcastEnd(hb->sfx, MPIU_SCALAR, x, c->xghost, MPI_REPLACE));
  PetscCall(HBLocalOp(hb, hb->nint, hb->nelem, x, y, pap, stream));
  if (hb->atomic)
    PetscCall(HBAtomicFinish(hb, y, wantdot ? dot : NULL, ddot, (PetscBool)(size > 1), stream));
  else
    PetscCall(HBGather(hb, y, x, wantdot ? dot : NULL, ddot, (PetscBool)(size > 1), stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBMultCUDA(SquallHBOpDesc *hb, Vec x, Vec y, PetscBool wantdot, PetscReal *dot, PetscReal *ddot)
{
  const PetscScalar *xd;
  PetscScalar       *yd;
  cudaStream_t       stream;

  PetscFunctionBegin;
  PetscCall(HBSetUpCUDA(hb));
  PetscCall(HBGeometryCUDA(hb));
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecCUDAGetArrayRead(x, &xd));
  PetscCall(VecCUDAGetArrayWrite(y, &yd));
  PetscCall(HBMultDevice(hb, xd, yd, wantdot, dot, ddot, stream));
  PetscCall(VecCUDARestoreArrayWrite(y, &yd));
  PetscCall(VecCUDARestoreArrayRead(x, &xd));
  PetscFunctionReturn(PETSC_SUCCESS);
}
