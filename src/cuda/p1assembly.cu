/* P1 tetrahedral CG operators on the GPU: the direct assembly into the device value array of the
   (MPI)AIJCUSPARSE matrix's diagonal block, no host round trip. Three modes (-p1_assembly_mode):

   slots: one thread per element adds each element entry with one atomicAdd at its position, read from the
   slot map (16 ints per element for bs 1, 20 for bs 3, built on the host once per sparsity and read
   coalesced: slot k of element e at k*ne + e).

   gather: no atomics, deterministic. An element kernel stores the element values entry-major (coalesced
   stores, p1tet.h SquallP1ElementStore()), then a gather kernel writes every stored value of the diagonal
   block as the sum of its contributions in a fixed order, through the transposed slot map. It costs a
   scratch array of 16 bs^2 scalars per element, written once and read once, instead of the atomic
   read-modify-writes, and needs no zeroing pass. One thread per stored value rather than per row: a row has
   ~15 (bs 1) to ~45 (bs 3) values, so a thread per row would leave its neighbours' stores 120-360 bytes
   apart and give a warp rows of different lengths, while a thread per value stores consecutive values from
   consecutive threads and sums only its own short list (~4-24 contributions). For bs 3 thread 9p + 3i + j
   writes component (i, j) of the block of scalar entry p: the nine threads of a block read the same
   contribution list (one broadcast load) and a warp's stores fall in three runs of ~10 consecutive values.

   reduce (the GPU default): the atomics of slots, ~3x fewer. A thread block's elements put their element
   data in shared memory and the block sums, per matrix entry it touches, its contributions there in a fixed
   order: one atomicAdd per entry and block, a plain store for the entries no other block touches, and no
   scratch in global memory (p1reducekernels.cuh). The element phase is in closed form (~450 instructions,
   ~4x fewer than the 11-point quadrature) with J^-1 and the volume rebuilt from the vertex coordinates (123
   instead of 199 bytes per element from memory), and reads the block's vertex fields from shared memory,
   copied once per block through a block-local connectivity; a block whose vertices do not fit in shared
   memory falls back to the same kernel reading them from global memory.

   The modes do not wait for their kernels before returning (nothing comes back from the device); PETSc's
   kernels on the NULL stream are ordered after them. On several ranks the off-diagonal block goes through
   MatSetValuesCOO first (P1CUDAAssembleOffDiagonalCOO(), src/cuda/p1values.cu). */
#include "cuda/p1device.cuh"
#include "cuda/p1directkernels.cuh"
#include "cuda/p1reducekernels.cuh"

/* the matrix the kernels write: A itself on one rank, its diagonal block on several; checks types and sizes */
static PetscErrorCode P1CheckMatrix(SquallP1Device dev, PetscInt bs, Mat A, PetscBool *ismpi, Mat *Ad)
{
  const PetscInt n  = dev->nowned;
  Mat            Ao = NULL;
  PetscBool      iscu, iscuo = PETSC_TRUE;
  PetscInt       m, nc;

  PetscFunctionBegin;
  *Ad = A;
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, ismpi));
  if (*ismpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, Ad, &Ao, NULL));
    PetscCheck(*Ad, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The %s matrix has no diagonal block (not preallocated?)", ((PetscObject)A)->type_name);
    if (Ao) PetscCall(PetscObjectTypeCompare((PetscObject)Ao, MATSEQAIJCUSPARSE, &iscuo));
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)*Ad, MATSEQAIJCUSPARSE, &iscu));
  PetscCheck(iscu && iscuo, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The GPU direct assembly needs a MATAIJCUSPARSE matrix with SEQAIJCUSPARSE blocks, not %s (blocks %s, %s); create it with SquallP1CreateMatrix() and -p1_backend cuda",
             ((PetscObject)A)->type_name, ((PetscObject)*Ad)->type_name, Ao ? ((PetscObject)Ao)->type_name : "none");
  /* the sizes the kernel relies on: bs*nowned rows; B (filled by PETSc) only reported */
  PetscCall(MatGetLocalSize(*Ad, &m, NULL));
  PetscCheck(m == bs * n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The diagonal block has %" PetscInt_FMT " rows, expected %" PetscInt_FMT, m, bs * n);
  if (Ao) {
    PetscCall(MatGetLocalSize(Ao, &m, &nc));
    PetscCheck(m == bs * n && nc == bs * dev->ngarray, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The off-diagonal block is %" PetscInt_FMT " x %" PetscInt_FMT ", expected %" PetscInt_FMT " x %" PetscInt_FMT " (compressed columns)", m, nc, bs * n,
               bs * dev->ngarray);
  } else
    PetscCheck(!dev->nnzo, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The graph has off-process columns but the matrix (%s) has no off-diagonal block", ((PetscObject)A)->type_name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The reduce kernel's launch: the staged map's sizes (nus), its dynamic shared memory and whether the block's
   vertex fields fit there (V filled, *shared); raises the kernel's shared-memory limit once */
static PetscErrorCode P1ReduceConfigure(SquallP1Device dev, const SquallP1KOperator *op, const P1ReduceMap *rm, int *nus, size_t *smem, P1BlockVertices *V, bool *shared)
{
  const PetscInt bs = op->bs;
  /* the vertex fields the operator reads, as P1StageVertices() copies them */
  const PetscInt wpv = SquallP1NodalWordsRead(SquallP1NodalFieldsRead(op->rho ? PETSC_TRUE : PETSC_FALSE, op->u ? PETSC_TRUE : PETSC_FALSE, op->K ? PETSC_TRUE : PETSC_FALSE, op->coef));
  int            ncs, dv, optin;
  size_t         more;

  PetscFunctionBegin;
  PetscCheck(dev->rvoff, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The device has no block vertex lists");
  /* words of shared memory per entry and contribution array of the staged map (P1ReduceStagedBytes()) */
  *nus  = ((rm->maxu + 16) + 7) / 8 * 8;
  ncs   = ((rm->maxc + 16) + 7) / 8 * 8;
  *smem = P1ReduceStagedBytes((int)bs, *nus, ncs);
  PetscCall(PetscMemzero(V, sizeof(*V)));
  V->voff   = dev->rvoff;
  V->vtx    = dev->rvtx;
  V->ltet   = dev->rltet;
  V->stride = (int)((dev->rmaxv + 3) / 4 * 4); /* every array 16-byte aligned in either precision */
  V->words  = (int)PetscMax(wpv * V->stride, SQUALL_P1_REDUCE_WORDS(bs) * P1_BLOCK);
  more      = (size_t)(V->words - SQUALL_P1_REDUCE_WORDS(bs) * P1_BLOCK) * sizeof(PetscReal);
  PetscCallCUDA(cudaGetDevice(&dv));
  PetscCallCUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dv));
  *shared = *smem + more <= (size_t)optin && (dev->smemmax < 0 || (PetscInt64)more <= dev->smemmax);
  if (*shared)
    *smem += more;
  else
    /* blocks of scattered elements (up to 4 vertices each): the same matrix from the global arrays */
    PetscCall(PetscInfo(
      NULL, "The block vertex fields would need %zu bytes of shared memory per block (a block of %d elements touches up to %" PetscInt_FMT " vertices), more than the limit (device %d, set %" PetscInt64_FMT "): reading them from global memory\n",
      *smem + more, P1_BLOCK, dev->rmaxv, optin, dev->smemmax));
  /* above the 48 KB default (bs 3 in double: 58 KB): raise the kernel's limit once */
  if (dev->rsmem[bs][*shared] < *smem) {
    PetscCallCUDA(cudaFuncSetAttribute(P1ReduceKernelOf((int)bs, *shared), cudaFuncAttributeMaxDynamicSharedMemorySize, (int)*smem));
    dev->rsmem[bs][*shared] = *smem;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element phase of the mode into da (gather: into its scratch) */
static PetscErrorCode P1LaunchDirect(SquallP1Device dev, const SquallP1KOperator *op, SquallP1KMode mode, const SquallP1Elements *E, const SquallP1Coef *c, PetscScalar *da, cudaStream_t stream)
{
  const PetscInt bs = op->bs;

  PetscFunctionBegin;
  if (mode == SQUALL_P1K_GATHER) {
    if (bs == 1)
      P1ElementStoreKernel<1><<<P1Blocks(dev->ne), P1_BLOCK, 0, stream>>>(*E, *c, dev->gwork[bs]);
    else
      P1ElementStoreKernel<3><<<P1Blocks(dev->ne), P1_BLOCK, 0, stream>>>(*E, *c, dev->gwork[bs]);
  } else if (mode == SQUALL_P1K_REDUCE) {
    const P1ReduceMap *rm = &dev->rmap[bs == 3];
    P1BlockVertices    V;
    int                nus;
    size_t             smem;
    bool               shared;

    PetscCall(P1ReduceConfigure(dev, op, rm, &nus, &smem, &V, &shared));
    P1ReduceKernelOf((int)bs, shared)<<<P1Blocks(dev->ne), P1_BLOCK, smem, stream>>>(*E, *c, rm->ublk, rm->cblk, rm->slot, rm->row, rm->end, rm->cidx, dev->dI, da, nus, V);
  } else {
    if (bs == 1)
      P1AssembleSlotsKernel<1><<<P1Blocks(dev->ne), P1_BLOCK, 0, stream>>>(*E, *c, dev->slots[bs], da);
    else
      P1AssembleSlotsKernel<3><<<P1Blocks(dev->ne), P1_BLOCK, 0, stream>>>(*E, *c, dev->slots[bs], da);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the gather mode's second step: every stored value of the diagonal block sums its contributions */
static PetscErrorCode P1LaunchGatherSum(SquallP1Device dev, PetscInt bs, PetscLogEvent event, Mat A, PetscScalar *da, cudaStream_t stream)
{
  const PetscInt nv = dev->nnzd;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(event, A, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (bs == 1)
    P1GatherKernel1<<<P1Blocks(nv), P1_BLOCK, 0, stream>>>(nv, dev->goff, dev->gidx, dev->gwork[bs], da);
  else
    P1GatherKernel3<<<P1Blocks(9 * nv), P1_BLOCK, 0, stream>>>(nv, dev->ne, dev->goff, dev->gidx, dev->gprow, dev->dI, dev->gwork[bs], da);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((PetscLogDouble)bs * bs * dev->ngather));
  PetscCall(PetscLogEventEnd(event, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode P1CheckMaps(SquallP1Device dev, PetscInt bs, SquallP1KMode mode)
{
  PetscFunctionBegin;
  PetscCheck(bs == 1 || bs == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The direct assembly supports block size 1 or 3, not %" PetscInt_FMT, bs);
  switch (mode) {
    case SQUALL_P1K_SLOTS: PetscCheck(dev->slots[bs], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The device has no slot map of block size %" PetscInt_FMT, bs); break;
    case SQUALL_P1K_GATHER:
      PetscCheck(dev->goff, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The device has no gather map");
      PetscCheck((PetscInt64)bs * bs * dev->nnzd < (PetscInt64)PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP,
                 "The gather kernel numbers the %" PetscInt64_FMT " values of this rank's diagonal block with 32-bit integers; use -p1_assembly_mode slots or more ranks", (PetscInt64)bs * bs * dev->nnzd);
      if (!dev->gwork[bs]) PetscCallCUDA(cudaMalloc((void **)&dev->gwork[bs], (size_t)16 * bs * bs * PetscMax(dev->ne, 1) * sizeof(PetscScalar)));
      break;
    case SQUALL_P1K_REDUCE: PetscCheck(dev->rmap[bs == 3].ublk, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The device has no reduce map of block size %" PetscInt_FMT, bs); break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAAssembleOperator(SquallP1Device dev, const SquallP1KOperator *op, SquallP1KMode mode, PetscLogEvent gathersum, Mat A)
{
  const PetscInt   bs = op->bs;
  Mat              Ad;
  PetscBool        ismpi;
  PetscScalar     *da = NULL;
  SquallP1Elements E;
  SquallP1Coef     c;
  cudaStream_t     stream = NULL;

  PetscFunctionBegin;
  PetscCall(P1CheckMaps(dev, bs, mode));
  PetscCall(P1CheckMatrix(dev, bs, A, &ismpi, &Ad));
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(PetscLogEventBegin(op->event, A, 0, 0, 0));
  /* first the COO (it rewrites the diagonal block with zeros), then the direct kernel into it */
  if (ismpi) PetscCall(P1CUDAAssembleOffDiagonalCOO(dev, op, A, stream));
  /* read-write access: the first call moves the (zero) pattern to the device, later ones nothing; an
     empty diagonal block (no owned rows) is left alone: its device structure may not exist, and no
     kernel has anything to write */
  if (dev->nnzd) {
    PetscCall(MatSeqAIJCUSPARSEGetArray(Ad, &da));
    PetscCheck(da, PETSC_COMM_SELF, PETSC_ERR_GPU, "The diagonal block has no device values");
  }
  PetscCall(P1GetElementsDevice(dev, op, &E, &c));
  PetscCall(PetscLogGpuTimeBegin());
  /* the gather writes every stored value: no zeroing */
  if (da && mode != SQUALL_P1K_GATHER) PetscCallCUDA(cudaMemsetAsync(da, 0, (size_t)bs * bs * dev->nnzd * sizeof(PetscScalar), stream));
  if (dev->ne && da) PetscCall(P1LaunchDirect(dev, op, mode, &E, &c, da, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(op->flops + (mode == SQUALL_P1K_REDUCE ? (PetscLogDouble)bs * bs * dev->rmap[bs == 3].ncon : 0)));
  PetscCall(P1RestoreElementsDevice(op, &E));
  if (mode == SQUALL_P1K_GATHER && da) PetscCall(P1LaunchGatherSum(dev, bs, gathersum, A, da, stream));
  /* the maps were checked when they were built, so nothing comes back and the host returns at once
     (PETSc's next kernels on the NULL stream are ordered after these; on another stream P1SyncForPETSc()
     waits) */
  PetscCall(P1SyncForPETSc(stream));
  if (da) PetscCall(MatSeqAIJCUSPARSERestoreArray(Ad, &da));
  /* the diagonal block changed behind the parallel matrix's back: let its users (PC, KSP) know */
  if (ismpi) PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscCall(PetscLogEventEnd(op->event, A, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
