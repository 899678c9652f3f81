/* The device copies of the P1 operators (SquallP1Device) and the host helpers shared by src/cuda/p1*.cu.
   Private to src/cuda. */
#pragma once

#include "cuda/cudautil.h"
#include <petscdevice_cuda.h>
#include "cuda/p1kernels.h"
#include <petsc/private/petscimpl.h> /* type names and PetscObjectStateIncrease() of the matrices the kernels write */
#include <cuda_pipeline.h>

#if defined(PETSC_USE_COMPLEX)
#  error "squall's CUDA kernels need a real PetscScalar"
#endif

#define P1_BLOCK 256
/* The element kernels gather ~60 values per element and hold a 4x4 element matrix; unbounded, nvcc
   gives them ~140 registers, i.e. one block of 256 threads per SM. Two blocks (128 registers, a few
   spills to L1) hide the latency of the gathers and atomics better. Tune with -DP1_MIN_BLOCKS=n. */
#if !defined(P1_MIN_BLOCKS)
#  define P1_MIN_BLOCKS 2
#endif

/* a reduce map on the device (SquallP1Reduce); maxu, maxc: the most entries and contributions of one block
   (the shared memory of the map's staged copy) */
typedef struct {
  int      *ublk, *cblk, *slot, *row;
  uint16_t *end, *cidx;
  int       maxu, maxc;
  PetscInt  ncon;
} P1ReduceMap;

struct _n_SquallP1Device {
  PetscInt     ne, nv, nowned, nnzd, nnzo, ngarray;
  PetscInt    *tet;          /* [4][ne], structure of arrays */
  PetscReal   *x;            /* [3*nv] */
  PetscReal   *geom;         /* [SQUALL_P1_NGEOM][ne] */
  PetscInt    *row;          /* [nv] */
  PetscInt    *dI, *dJ;      /* the diagonal block of the graph of the owned rows */
  int         *slots[4];     /* slot maps per block size (SquallP1NumSlots(bs, 0) per element) */
  int         *goff, *gidx;  /* gather map of the diagonal block */
  int         *gprow;        /* [nnzd] scalar row of each diagonal-block entry (the bs 3 gather) */
  PetscInt     ngather;      /* contributions in the gather map */
  PetscScalar *gwork[4];     /* element values of the gather mode, 16 bs^2 per element, entry-major */
  P1ReduceMap  rmap[2];      /* reduce maps for bs 1 and 3 */
  int         *rvoff, *rvtx; /* the blocks' vertex lists */
  uint16_t    *rltet;        /* [4][ne] the elements' vertices as positions in their block's list */
  PetscInt     rmaxv;        /* the most vertices of one block */
  size_t       rsmem[4][2];  /* dynamic shared memory limit set per block size and reduce kernel */
  PetscInt64   smemmax;      /* SquallP1CUDASetSharedMemoryLimit(); < 0: the device's */
  PetscInt    *ebnd;         /* [nebnd] elements with an entry in the off-diagonal block */
  PetscInt     nebnd;
  PetscBool    hasebnd;
  PetscScalar *offv[4]; /* COO values of the off-diagonal elements, per block size */
  PetscScalar *coov[4]; /* COO element matrices, per block size */
  PetscScalar *coor[4]; /* COO element right-hand sides, per block size */
  int         *nbad;    /* one counter */
};

static inline unsigned int P1Blocks(PetscInt n)
{
  return (unsigned int)PetscMax(1, (n + P1_BLOCK - 1) / P1_BLOCK);
}

/* PETSc's own kernels (MatSetValuesCOO, MatMult, ...) may run on another stream than the current
   device context's; by default that context uses the NULL stream, which orders everything. With any
   other stream, finish before handing device data to PETSc. */
static inline PetscErrorCode P1SyncForPETSc(cudaStream_t stream)
{
  PetscFunctionBegin;
  if (stream) PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* as P1Upload(), with pad zeroed elements after the n (reads of whole aligned chunks stay in bounds) */
template <typename T> static inline PetscErrorCode P1UploadPadded(T **d, const T *h, PetscInt n, PetscInt pad)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)d, (size_t)PetscMax(n + pad, 1) * sizeof(T)));
  if (pad) PetscCallCUDA(cudaMemset(*d + n, 0, (size_t)pad * sizeof(T)));
  if (n) PetscCallCUDA(cudaMemcpy(*d, h, (size_t)n * sizeof(T), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(T)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

template <typename T> static inline PetscErrorCode P1Upload(T **d, const T *h, PetscInt n)
{
  PetscFunctionBegin;
  PetscCall(P1UploadPadded(d, h, n, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element data on the device: the coefficient fields are VECSEQCUDA local vectors */
static inline PetscErrorCode P1GetElementsDevice(SquallP1Device dev, const SquallP1KOperator *op, SquallP1Elements *E, SquallP1Coef *c)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(E, sizeof(*E)));
  E->ne   = dev->ne;
  E->tet  = dev->tet;
  E->ts   = dev->ne;
  E->es   = 1;
  E->geom = dev->geom;
  E->x    = dev->x;
  if (op->rho) PetscCall(VecCUDAGetArrayRead(op->rho, &E->rho));
  if (op->u) PetscCall(VecCUDAGetArrayRead(op->u, &E->u));
  if (op->K) PetscCall(VecCUDAGetArrayRead(op->K, &E->K));
  if (op->Ke) PetscCall(VecCUDAGetArrayRead(op->Ke, &E->Ke));
  for (int k = 0; k < SQUALL_P1_NTERMS; k++) c->c[k] = op->coef[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode P1RestoreElementsDevice(const SquallP1KOperator *op, SquallP1Elements *E)
{
  PetscFunctionBegin;
  if (E->rho) PetscCall(VecCUDARestoreArrayRead(op->rho, &E->rho));
  if (E->u) PetscCall(VecCUDARestoreArrayRead(op->u, &E->u));
  if (E->K) PetscCall(VecCUDARestoreArrayRead(op->K, &E->K));
  if (E->Ke) PetscCall(VecCUDARestoreArrayRead(op->Ke, &E->Ke));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element values of the elements touching the off-diagonal block into MatSetValuesCOO (src/cuda/p1values.cu) */
PETSC_INTERN PetscErrorCode P1CUDAAssembleOffDiagonalCOO(SquallP1Device, const SquallP1KOperator *, Mat, cudaStream_t);
