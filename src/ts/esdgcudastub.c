/* CPU stubs of the CUDA entry points in src/cuda/esdgkernels.h and src/cuda/columnkernels.h, for builds without CUDA. */
#include "sys/squallimpl.h"
#include "cuda/esdgkernels.h"
#include "cuda/columnkernels.h"

PetscErrorCode SquallESDGKernelsCreate(MPI_Comm comm, const SquallESDGKernelsSetup *in, SquallESDGKernels *k)
{
  PetscFunctionBegin;
  SETERRQ(comm, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG ": -dm_vec_type cuda is not available");
}

PetscErrorCode SquallESDGKernelsDestroy(SquallESDGKernels *k)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGKernelsFaces(SquallESDGKernels k, const SquallESDGKernelArgs *a, PetscInt first, PetscInt count)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallESDGKernelsVolume(SquallESDGKernels k, const SquallESDGKernelArgs *a, PetscInt first, PetscInt count)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallESDGKernelsReduce(SquallESDGKernels k, const SquallESDGKernelArgs *a, PetscReal *lmax, PetscInt *nbad)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallESDGKernelsGetFlags(SquallESDGKernels k, PetscInt flags[2])
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallColumnPerturbCUDA(const SquallColumnLayout *c, PetscInt f, PetscInt k, PetscInt cls, PetscReal err, const PetscScalar *X, PetscScalar *Xp)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallColumnExtractCUDA(const SquallColumnLayout *c, PetscInt f, PetscInt k, PetscInt cls, PetscReal err, const PetscScalar *X, const PetscScalar *F0, const PetscScalar *Fp, PetscScalar *J)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallColumnShiftCUDA(const SquallColumnLayout *c, const PetscInt *rowptr, PetscReal shift, const PetscScalar *J, PetscScalar *P, PetscScalar *A)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallColumnFactorCUDA(const SquallColumnLayout *c, const PetscScalar *P, PetscScalar *LU, PetscInt *piv, PetscInt *bad)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallColumnCallocCUDA(size_t bytes, void **p)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallColumnFreeCUDA(void *p)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallColumnCopyToDeviceCUDA(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}

PetscErrorCode SquallColumnSolveCUDA(const SquallColumnLayout *c, const PetscScalar *LU, const PetscInt *piv, const PetscScalar *b, PetscScalar *x)
{
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}
