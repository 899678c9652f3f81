/* CPU stubs of the P1 GPU entry points (src/cuda/p1kernels.h), compiled only in builds without CUDA. */
#include "cuda/p1kernels.h"
#include "sys/squallimpl.h"

#define P1_NO_CUDA SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG ", so -p1_backend cuda is not available")

PetscErrorCode SquallP1CUDASetUp(const SquallP1KMesh *M, SquallP1Device *dev)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDADestroy(SquallP1Device *dev)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallP1CUDAComputeGeometry(SquallP1Device dev, PetscLogEvent event)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDAGetGeometry(SquallP1Device dev, PetscReal *geom)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDAHasMap(SquallP1Device dev, SquallP1KMap map, PetscInt bs, PetscBool *has)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDASetSlots(SquallP1Device dev, PetscInt bs, const int *slots)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDASetGather(SquallP1Device dev, const int *off, const int *idx, const int *prow)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDASetReduce(SquallP1Device dev, PetscInt bs, const SquallP1Reduce *R)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDASetBlockVertices(SquallP1Device dev, const SquallP1BlockVertexList *B)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDASetOffDiagonalElements(SquallP1Device dev, PetscInt n, const PetscInt *list)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDASetSharedMemoryLimit(SquallP1Device dev, PetscInt64 bytes)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDAAssembleOperator(SquallP1Device dev, const SquallP1KOperator *op, SquallP1KMode mode, PetscLogEvent gathersum, Mat A)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDAElementValuesCOO(SquallP1Device dev, const SquallP1KOperator *op, PetscScalar **values)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDAAssembleRHS(SquallP1Device dev, const SquallP1KOperator *op, Vec floc, Vec b, PetscScalar **values)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}

PetscErrorCode SquallP1CUDAComputeElementMetric(SquallP1Device dev, PetscReal scale, Vec L, Vec h, PetscLogEvent event, PetscInt *nbad)
{
  PetscFunctionBegin;
  P1_NO_CUDA;
}
