/* P1 tetrahedral CG operators on the GPU: element values for PETSc's COO assembly (all elements, or those
   of the partition boundary for the off-diagonal block of an MPI matrix) and right-hand sides (atomicAdd
   into the device array of the Vec, or element values for VecSetValuesCOO): no host round trip. */
#include "cuda/p1device.cuh"
#include "cuda/p1valuekernels.cuh"

/* MPI: a MATMPIAIJCUSPARSE keeps a diagonal and an off-diagonal SEQAIJCUSPARSE block. The direct kernels
   write only the diagonal block, whose device values are PETSc's ordinary CSR (as on one rank). The
   off-diagonal block is filled through PETSc's documented device route, MatSetValuesCOO with device
   values, from the element matrices of the elements that touch it (the partition boundary): PETSc keeps
   B compressed (columns = garray, compressed rows on the device) and owns its device structure, offload
   mask and state, so squall never writes B's arrays behind its back. The same MatSetValuesCOO
   (INSERT_VALUES) zeroes the diagonal block, whose pattern is in the COO list with value 0. Cost: one
   extra kernel over the boundary elements' entries plus the diagonal block's nonzeros (a copy-sized
   pass, replacing the memset), small next to the direct kernel over all elements. */
PetscErrorCode P1CUDAAssembleOffDiagonalCOO(SquallP1Device dev, const SquallP1KOperator *op, Mat A, cudaStream_t stream)
{
  const PetscInt   bs = op->bs, m = 4 * bs, nd = bs * bs * dev->nnzd;
  SquallP1Elements E;
  SquallP1Coef     c;

  PetscFunctionBegin;
  PetscCheck(dev->hasebnd, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The device has no list of the off-diagonal elements");
  if (!dev->offv[bs]) PetscCallCUDA(cudaMalloc((void **)&dev->offv[bs], (size_t)PetscMax(nd + m * m * dev->nebnd, 1) * sizeof(PetscScalar)));
  PetscCall(P1GetElementsDevice(dev, op, &E, &c));
  PetscCall(PetscLogGpuTimeBegin());
  if (nd) PetscCallCUDA(cudaMemsetAsync(dev->offv[bs], 0, (size_t)nd * sizeof(PetscScalar), stream));
  if (dev->nebnd) {
    if (bs == 1)
      P1ElementValuesKernel<1><<<P1Blocks(dev->nebnd), P1_BLOCK, 0, stream>>>(E, c, dev->nebnd, dev->ebnd, dev->offv[bs] + nd);
    else
      P1ElementValuesKernel<3><<<P1Blocks(dev->nebnd), P1_BLOCK, 0, stream>>>(E, c, dev->nebnd, dev->ebnd, dev->offv[bs] + nd);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(op->flops * dev->nebnd / PetscMax(dev->ne, 1)));
  PetscCall(P1RestoreElementsDevice(op, &E));
  PetscCall(P1SyncForPETSc(stream));
  /* PETSc writes both blocks on the device and marks them (and the matrix) as changed */
  PetscCall(MatSetValuesCOO(A, dev->offv[bs], INSERT_VALUES));
  /* PETSc's COO kernels run on the legacy default stream: finish them before the direct kernel writes
     the diagonal block on another (possibly non-blocking) stream */
  if (stream) PetscCallCUDA(cudaDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAElementValuesCOO(SquallP1Device dev, const SquallP1KOperator *op, PetscScalar **values)
{
  const PetscInt   bs = op->bs, m = 4 * bs;
  SquallP1Elements E;
  SquallP1Coef     c;
  cudaStream_t     stream = NULL;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  if (!dev->coov[bs]) PetscCallCUDA(cudaMalloc((void **)&dev->coov[bs], (size_t)m * m * PetscMax(dev->ne, 1) * sizeof(PetscScalar)));
  PetscCall(P1GetElementsDevice(dev, op, &E, &c));
  PetscCall(PetscLogGpuTimeBegin());
  if (dev->ne) {
    if (bs == 1)
      P1ElementValuesKernel<1><<<P1Blocks(dev->ne), P1_BLOCK, 0, stream>>>(E, c, dev->ne, NULL, dev->coov[bs]);
    else
      P1ElementValuesKernel<3><<<P1Blocks(dev->ne), P1_BLOCK, 0, stream>>>(E, c, dev->ne, NULL, dev->coov[bs]);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(op->flops));
  PetscCall(P1RestoreElementsDevice(op, &E));
  PetscCall(P1SyncForPETSc(stream));
  *values = dev->coov[bs];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAAssembleRHS(SquallP1Device dev, const SquallP1KOperator *op, Vec floc, Vec b, PetscScalar **values)
{
  const PetscInt     bs  = op->bs;
  const PetscBool    coo = values ? PETSC_TRUE : PETSC_FALSE;
  const PetscScalar *fd;
  PetscScalar       *bd = NULL, *out = NULL;
  SquallP1Elements   E;
  SquallP1Coef       c;
  cudaStream_t       stream = NULL;
  PetscInt           nl, nb;

  PetscFunctionBegin;
  /* floc: bs values per local vertex (owned and overlap); b: the owned rows only (an MPI VECCUDA's
     device array is its local part, no ghosts) */
  PetscCall(VecGetLocalSize(floc, &nl));
  PetscCheck(nl == bs * dev->nv, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The local field has size %" PetscInt_FMT ", expected %" PetscInt_FMT, nl, bs * dev->nv);
  if (!coo) {
    PetscCall(VecGetLocalSize(b, &nb));
    PetscCheck(nb == bs * dev->nowned, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The right-hand side has local size %" PetscInt_FMT ", expected %" PetscInt_FMT, nb, bs * dev->nowned);
  }
  PetscCall(SquallCUDAGetStream(&stream));
  if (coo) {
    if (!dev->coor[bs]) PetscCallCUDA(cudaMalloc((void **)&dev->coor[bs], (size_t)4 * bs * PetscMax(dev->ne, 1) * sizeof(PetscScalar)));
    out = dev->coor[bs];
  } else
    PetscCall(PetscLogEventBegin(op->event, b, 0, 0, 0));
  PetscCall(VecCUDAGetArrayRead(floc, &fd));
  PetscCheck(fd || !nl, PETSC_COMM_SELF, PETSC_ERR_GPU, "The local field has no device array");
  if (!coo) {
    PetscCall(VecCUDAGetArrayWrite(b, &bd));
    PetscCheck(bd || !dev->nowned, PETSC_COMM_SELF, PETSC_ERR_GPU, "The right-hand side has no device array");
  }
  PetscCall(P1GetElementsDevice(dev, op, &E, &c));
  PetscCall(PetscLogGpuTimeBegin());
  if (!coo && dev->nowned) PetscCallCUDA(cudaMemsetAsync(bd, 0, (size_t)bs * dev->nowned * sizeof(PetscScalar), stream));
  if (dev->ne) {
    if (bs == 1)
      P1RHSKernel<1><<<P1Blocks(dev->ne), P1_BLOCK, 0, stream>>>(E, c, fd, dev->row, bd, out);
    else
      P1RHSKernel<3><<<P1Blocks(dev->ne), P1_BLOCK, 0, stream>>>(E, c, fd, dev->row, bd, out);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(op->flops));
  PetscCall(P1RestoreElementsDevice(op, &E));
  PetscCall(P1SyncForPETSc(stream));
  if (!coo) PetscCall(VecCUDARestoreArrayWrite(b, &bd));
  PetscCall(VecCUDARestoreArrayRead(floc, &fd));
  if (!coo) PetscCall(PetscLogEventEnd(op->event, b, 0, 0, 0));
  if (coo) *values = dev->coor[bs];
  PetscFunctionReturn(PETSC_SUCCESS);
}
