/* Device helpers for drivers and tests, available with and without CUDA. */
#include "sys/squallimpl.h"
#include "cuda/squallcuda.h"
#include <petscdevice.h>

/*@C
  SquallCUDAAvailable - collective: true when squall was built with CUDA and every rank of comm sees
  a CUDA device (GPU tests skip themselves otherwise).
@*/
PetscErrorCode SquallCUDAAvailable(MPI_Comm comm, PetscBool *available)
{
  PetscInt ndev = 0, gndev;

  PetscFunctionBegin;
  if (SquallHaveCUDA()) PetscCall(SquallCUDADeviceCount(&ndev));
  PetscCallMPI(MPIU_Allreduce(&ndev, &gndev, 1, MPIU_INT, MPI_MIN, comm));
  *available = gndev > 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallSynchronize - waits for the device when v lives there (a host run must not initialise one),
  then for the other ranks of v's communicator: the point at which a wall-clock timer may be read.
@*/
PetscErrorCode SquallSynchronize(Vec v)
{
  PetscBool dev;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, &dev, VECSEQCUDA, VECMPICUDA, ""));
  if (dev) {
    PetscDeviceContext dctx;

    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
  PetscCallMPI(MPI_Barrier(PetscObjectComm((PetscObject)v)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
