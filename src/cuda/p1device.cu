/* P1 tetrahedral CG operators on the GPU: the device copies of the mesh, graph and maps (SquallP1Device),
   the element (geometry) kernel and the element metric. The maps are built on the host by src/mat
   (once per sparsity) and handed over here; the host copies are not kept.

   Inputs: connectivity, geometry and slots are structure-of-arrays, so a warp's loads of one of them
   are one or two 128-byte lines. The nodal fields (rho, u, K) stay interleaved per node: they are
   gathered through the connectivity, and a node's 3 (u) or 9 (K) values in one or three adjacent
   32-byte sectors cost fewer transactions than 3 or 9 sectors of separate arrays; each node is
   shared by ~24 elements, so the gathers mostly hit in L1/L2. */
#include "cuda/p1device.cuh"
#include "cuda/p1meshkernels.cuh"

PetscErrorCode SquallP1CUDAComputeGeometry(SquallP1Device dev, PetscLogEvent event)
{
  cudaStream_t stream = NULL;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(PetscLogEventBegin(event, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  if (dev->ne) P1GeometryKernel<<<P1Blocks(dev->ne), P1_BLOCK, 0, stream>>>(dev->ne, dev->tet, dev->x, dev->geom);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(60.0 * dev->ne));
  PetscCall(PetscLogEventEnd(event, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDASetUp(const SquallP1KMesh *M, SquallP1Device *d)
{
  SquallP1Device dev;
  PetscInt      *soa;
  const PetscInt n = M->nowned, ne = M->ne;

  PetscFunctionBegin;
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  PetscCall(PetscNew(&dev));
  dev->ne      = ne;
  dev->nv      = M->nv;
  dev->nowned  = n;
  dev->nnzd    = M->dI[n];
  dev->nnzo    = M->nnzo;
  dev->ngarray = M->ngarray;
  dev->smemmax = -1;
  /* connectivity as structure of arrays: consecutive threads read consecutive words */
  PetscCall(PetscMalloc1(4 * PetscMax(ne, 1), &soa));
  for (PetscInt e = 0; e < ne; e++)
    for (PetscInt a = 0; a < 4; a++) soa[a * ne + e] = M->tet[4 * e + a];
  PetscCall(P1Upload(&dev->tet, soa, 4 * ne));
  PetscCall(PetscFree(soa));
  PetscCall(P1Upload(&dev->x, M->x, 3 * M->nv));
  PetscCall(P1Upload(&dev->row, M->row, M->nv));
  PetscCall(P1Upload(&dev->dI, M->dI, n + 1));
  PetscCall(P1Upload(&dev->dJ, M->dJ, M->dI[n]));
  PetscCallCUDA(cudaMalloc((void **)&dev->geom, (size_t)SQUALL_P1_NGEOM * PetscMax(ne, 1) * sizeof(PetscReal)));
  PetscCallCUDA(cudaMalloc((void **)&dev->nbad, sizeof(int)));
  *d = dev;
  PetscCall(SquallP1CUDAComputeGeometry(dev, M->geometry));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDADestroy(SquallP1Device *d)
{
  SquallP1Device dev = d ? *d : NULL;

  PetscFunctionBegin;
  if (!dev) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaFree(dev->tet));
  PetscCallCUDA(cudaFree(dev->x));
  PetscCallCUDA(cudaFree(dev->geom));
  PetscCallCUDA(cudaFree(dev->row));
  PetscCallCUDA(cudaFree(dev->dI));
  PetscCallCUDA(cudaFree(dev->dJ));
  PetscCallCUDA(cudaFree(dev->nbad));
  PetscCallCUDA(cudaFree(dev->ebnd));
  PetscCallCUDA(cudaFree(dev->goff));
  PetscCallCUDA(cudaFree(dev->gidx));
  PetscCallCUDA(cudaFree(dev->gprow));
  for (int k = 0; k < 2; k++) {
    P1ReduceMap *m = &dev->rmap[k];

    PetscCallCUDA(cudaFree(m->ublk));
    PetscCallCUDA(cudaFree(m->cblk));
    PetscCallCUDA(cudaFree(m->slot));
    PetscCallCUDA(cudaFree(m->row));
    PetscCallCUDA(cudaFree(m->end));
    PetscCallCUDA(cudaFree(m->cidx));
  }
  PetscCallCUDA(cudaFree(dev->rvoff));
  PetscCallCUDA(cudaFree(dev->rvtx));
  PetscCallCUDA(cudaFree(dev->rltet));
  for (PetscInt bs = 0; bs < 4; bs++) {
    PetscCallCUDA(cudaFree(dev->offv[bs]));
    PetscCallCUDA(cudaFree(dev->slots[bs]));
    PetscCallCUDA(cudaFree(dev->gwork[bs]));
    PetscCallCUDA(cudaFree(dev->coov[bs]));
    PetscCallCUDA(cudaFree(dev->coor[bs]));
  }
  PetscCall(PetscFree(*d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAGetGeometry(SquallP1Device dev, PetscReal *geom)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpy(geom, dev->geom, (size_t)SQUALL_P1_NGEOM * dev->ne * sizeof(PetscReal), cudaMemcpyDeviceToHost));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)SQUALL_P1_NGEOM * dev->ne * sizeof(PetscReal)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAHasMap(SquallP1Device dev, SquallP1KMap map, PetscInt bs, PetscBool *has)
{
  PetscFunctionBegin;
  PetscCheck(bs == 1 || bs == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The device maps are for block size 1 or 3, not %" PetscInt_FMT, bs);
  switch (map) {
    case SQUALL_P1K_MAP_SLOTS: *has = dev->slots[bs] ? PETSC_TRUE : PETSC_FALSE; break;
    case SQUALL_P1K_MAP_GATHER: *has = dev->goff ? PETSC_TRUE : PETSC_FALSE; break;
    case SQUALL_P1K_MAP_REDUCE: *has = dev->rmap[bs == 3].ublk ? PETSC_TRUE : PETSC_FALSE; break;
    case SQUALL_P1K_MAP_BLOCKVERTICES: *has = dev->rvoff ? PETSC_TRUE : PETSC_FALSE; break;
    case SQUALL_P1K_MAP_OFFDIAGONAL: *has = dev->hasebnd; break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDASetSlots(SquallP1Device dev, PetscInt bs, const int *slots)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFree(dev->slots[bs]));
  PetscCall(P1Upload(&dev->slots[bs], slots, (PetscInt)SquallP1NumSlots((int)bs, 0) * dev->ne));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDASetGather(SquallP1Device dev, const int *off, const int *idx, const int *prow)
{
  PetscFunctionBegin;
  dev->ngather = off[dev->nnzd];
  PetscCall(P1Upload(&dev->goff, off, dev->nnzd + 1));
  PetscCall(P1Upload(&dev->gidx, idx, dev->ngather));
  PetscCall(P1Upload(&dev->gprow, prow, dev->nnzd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDASetReduce(SquallP1Device dev, PetscInt bs, const SquallP1Reduce *R)
{
  P1ReduceMap *rm = &dev->rmap[bs == 3];

  PetscFunctionBegin;
  PetscCheck(R->nb == P1_BLOCK, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The reduce map has blocks of %" PetscInt_FMT " elements; the kernel's are %d", R->nb, P1_BLOCK);
  PetscCall(P1Upload(&rm->ublk, R->ublk, R->nblocks + 1));
  PetscCall(P1Upload(&rm->cblk, R->cblk, R->nblocks + 1));
  /* padded by a 16-byte chunk: the kernel copies whole aligned chunks (P1StageAsync()) */
  PetscCall(P1UploadPadded(&rm->slot, R->slot, R->nu, 4));
  PetscCall(P1UploadPadded(&rm->row, R->row, R->nu, 4));
  PetscCall(P1UploadPadded(&rm->end, R->end, R->nu, 8));
  PetscCall(P1UploadPadded(&rm->cidx, R->cidx, R->ncon, 8));
  rm->maxu = rm->maxc = 0;
  for (PetscInt k = 0; k < R->nblocks; k++) {
    rm->maxu = PetscMax(rm->maxu, R->ublk[k + 1] - R->ublk[k]);
    rm->maxc = PetscMax(rm->maxc, R->cblk[k + 1] - R->cblk[k]);
  }
  rm->ncon = R->ncon;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDASetBlockVertices(SquallP1Device dev, const SquallP1BlockVertexList *B)
{
  PetscFunctionBegin;
  PetscCall(P1Upload(&dev->rvoff, B->voff, B->nblocks + 1));
  PetscCall(P1Upload(&dev->rvtx, B->vtx, (PetscInt)B->voff[B->nblocks]));
  PetscCall(P1Upload(&dev->rltet, B->ltet, 4 * dev->ne));
  dev->rmaxv = B->maxnv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDASetOffDiagonalElements(SquallP1Device dev, PetscInt n, const PetscInt *list)
{
  PetscFunctionBegin;
  PetscCall(P1Upload(&dev->ebnd, list, n));
  dev->nebnd   = n;
  dev->hasebnd = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDASetSharedMemoryLimit(SquallP1Device dev, PetscInt64 bytes)
{
  PetscFunctionBegin;
  dev->smemmax = bytes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAComputeElementMetric(SquallP1Device dev, PetscReal scale, Vec L, Vec h, PetscLogEvent event, PetscInt *nbad)
{
  PetscScalar *Ld, *hd = NULL;
  cudaStream_t stream = NULL;
  int          bad    = 0;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(PetscLogEventBegin(event, 0, 0, 0, 0));
  PetscCall(VecCUDAGetArrayWrite(L, &Ld));
  if (h) PetscCall(VecCUDAGetArrayWrite(h, &hd));
  PetscCallCUDA(cudaMemsetAsync(dev->nbad, 0, sizeof(int), stream));
  PetscCall(PetscLogGpuTimeBegin());
  if (dev->ne) P1MetricKernel<<<P1Blocks(dev->ne), P1_BLOCK, 0, stream>>>(dev->ne, dev->tet, dev->x, scale, Ld, hd, dev->nbad);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(700.0 * dev->ne));
  PetscCallCUDA(cudaMemcpyAsync(&bad, dev->nbad, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogGpuToCpu(sizeof(int)));
  *nbad = bad;
  if (h) PetscCall(VecCUDARestoreArrayWrite(h, &hd));
  PetscCall(VecCUDARestoreArrayWrite(L, &Ld));
  PetscCall(PetscLogEventEnd(event, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
