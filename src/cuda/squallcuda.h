/* squall's CUDA entry points. A private header (not installed), but the symbols are public so the
   tests can call them. Every function has a CPU stub (src/sys/cudastub.c) when squall is built
   without CUDA: SquallCUDADeviceCount() then reports 0 and the others fail with PETSC_ERR_SUP_SYS. */
#pragma once

#include <squall.h>
#include "ts/lsrkimpl.h"

/* number of visible CUDA devices; 0 without CUDA, without a device, or when the query fails */
PETSC_EXTERN PetscErrorCode SquallCUDADeviceCount(PetscInt *);
/* max |x - m->x| over the owned elements' node coordinates, computed on the device; x is a VECCUDA
   of local size 3*Np*nOwned (element-major, [3][Np] per element). Collective: the max is global. */
PETSC_EXTERN PetscErrorCode SquallDGMeshCheckCoordinatesCUDA(SquallDGMesh, Vec, PetscReal *);
/* y = alpha*x by a CUDA kernel; x and y are VECCUDA of the same local size */
PETSC_EXTERN PetscErrorCode SquallCUDAScaleCopy(Vec, PetscReal, Vec);
/* the fused 2N-storage RK stage update K = a K + dt F; Q = Q + b K on device vectors (comp: compensated, or NULL) */
PETSC_EXTERN PetscErrorCode SquallLSRKStageUpdateCUDA(Vec Q, Vec K, Vec F, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b);
/* the ESDG GPU path (src/cuda/esdgcuda.cu), used when the DM's vectors are device vectors */
PETSC_EXTERN PetscErrorCode SquallESDGSetUpCUDA(SquallESDG);
PETSC_EXTERN PetscErrorCode SquallESDGDestroyCUDA(SquallESDG);
PETSC_EXTERN PetscErrorCode SquallESDGComputeRHS_CUDA(SquallESDG, PetscReal, Vec, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGStage_CUDA(SquallESDG, PetscReal, Vec Q, Vec K, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b, PetscBool *done);
PETSC_EXTERN PetscErrorCode SquallESDGNodeReduceCUDA(SquallESDG, Vec, PetscReal *lmax, PetscInt *nbad);
PETSC_EXTERN PetscErrorCode SquallESDGStageVerdictCUDA(SquallESDG, Vec, PetscBool *known, PetscBool *bad);
PETSC_EXTERN PetscErrorCode SquallESDGTimeKernelCUDA(SquallESDG, Vec Q, Vec F, const char *which, PetscInt reps, PetscReal *ms);
