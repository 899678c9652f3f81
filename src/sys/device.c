/* Device helpers for drivers and tests, available with and without CUDA. */
#include "sys/squallimpl.h"
#include "cuda/squallcuda.h"
#include <petscdevice.h>
#include <stdio.h>
#if defined(SQUALL_HAVE_CUDA)
#  include <cuda_runtime_api.h>
#endif

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

/*@C
  SquallMemoryGetAvailable - collective: this rank's share of the memory it may still allocate, in bytes: on
  the host MemAvailable of /proc/meminfo divided among the ranks of its node; with device, the free memory of
  the rank's CUDA device (cudaMemGetInfo) divided among the node's ranks that share a device. -1 where it
  cannot be known (no /proc/meminfo, or no device).
@*/
PetscErrorCode SquallMemoryGetAvailable(MPI_Comm comm, PetscBool device, PetscLogDouble *bytes)
{
  MPI_Comm    node;
  PetscMPIInt nrank, nsize;
  double      avail = -1;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, &nrank));
  PetscCallMPI(MPI_Comm_size(node, &nsize));
  if (!device) {
    if (nrank == 0) {
      FILE *fp = fopen("/proc/meminfo", "r");
      char  line[256];

      if (fp) {
        while (fgets(line, sizeof(line), fp)) {
          double kb;
          if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) {
            avail = kb * 1024.0;
            break;
          }
        }
        (void)fclose(fp);
      }
    }
    PetscCallMPI(MPI_Bcast(&avail, 1, MPI_DOUBLE, 0, node));
    if (avail >= 0) avail /= nsize;
  } else {
#if defined(SQUALL_HAVE_CUDA)
    PetscInt ndev = 0;

    PetscCall(SquallCUDADeviceCount(&ndev));
    if (ndev > 0) {
      size_t free_b = 0, total_b = 0;

      /* the device PETSc chose for this rank */
      PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
      if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
        avail = (double)free_b / (double)((nsize + ndev - 1) / ndev);
      else
        (void)cudaGetLastError();
    }
#endif
  }
  PetscCallMPI(MPI_Comm_free(&node));
  *bytes = avail;
  PetscFunctionReturn(PETSC_SUCCESS);
}
