/* Small host-side helpers shared by squall's CUDA files. */
#pragma once

#include <petscdevice_cuda.h>

/* the stream of PETSc's current device context, so squall's kernels order with PETSc's own */
static inline PetscErrorCode SquallCUDAGetStream(cudaStream_t *stream)
{
  PetscDeviceContext dctx;
  PetscDeviceType    dtype;
  cudaStream_t      *handle = NULL;

  PetscFunctionBegin;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextGetDeviceType(dctx, &dtype));
  PetscCheck(dtype == PETSC_DEVICE_CUDA, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS, "The current PetscDeviceContext is of type %s, not CUDA (see -device_context_device_type)", PetscDeviceTypes[dtype]);
  /* PETSc hands back a pointer to its cudaStream_t, not the stream itself */
  PetscCall(PetscDeviceContextGetStreamHandle(dctx, (void **)&handle));
  *stream = *handle;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline int SquallCUDAGridSize(PetscInt n, int block)
{
  return (int)PetscMax(1, PetscMin((n + block - 1) / block, 4096));
}
