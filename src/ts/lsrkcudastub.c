/* CPU stub of the CUDA entry point in src/cuda/lsrkkernels.h, for builds without CUDA. */
#include "sys/squallimpl.h"
#include "cuda/lsrkkernels.h"

PetscErrorCode SquallLSRKStageUpdateCUDA(Vec Q, Vec K, Vec F, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b)
{
  PetscFunctionBegin;
  SETERRQ(PetscObjectComm((PetscObject)Q), PETSC_ERR_SUP_SYS, SQUALL_NO_CUDA_MSG);
}
