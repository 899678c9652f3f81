/* CUDA entry points of the P1 tetrahedral CG operators. A private header (not installed), but the
   symbols are public so that tests and benchmarks can call them. Every function has a CPU stub
   (src/mat/p1cudastub.c) when squall is built without CUDA: they fail with PETSC_ERR_SUP_SYS. */
#pragma once

#include "mat/p1impl.h"

/* upload the mesh, graph and owned-row maps, and run the element (geometry) kernel */
PETSC_EXTERN PetscErrorCode SquallP1CUDASetUp(SquallP1);
/* copy n scalars from device memory to host memory (synchronous) */
PETSC_EXTERN PetscErrorCode SquallP1CUDACopyToHost(PetscScalar *host, const PetscScalar *device, PetscInt n);
PETSC_EXTERN PetscErrorCode SquallP1CUDADestroy(SquallP1);
/* the element kernel: J^{-1} and volume per element, one thread per element */
PETSC_EXTERN PetscErrorCode SquallP1CUDAComputeGeometry(SquallP1);
/* atomic assembly into the device values of a (MPI)AIJCUSPARSE matrix, no host round trip */
PETSC_EXTERN PetscErrorCode SquallP1CUDAAssembleOperator(SquallP1, PetscInt bs, const PetscReal coef[], Mat);
/* element values for MatSetValuesCOO, into the device array p1->coov[bs] */
PETSC_EXTERN PetscErrorCode SquallP1CUDAElementValuesCOO(SquallP1, PetscInt bs, const PetscReal coef[]);
/* b (owned part of a VECCUDA) = sum over elements of Op_e f_e (f local, device), by atomicAdd; with
   coo = PETSC_TRUE the element values go to p1->coov[bs] instead (for VecSetValuesCOO) */
PETSC_EXTERN PetscErrorCode SquallP1CUDAAssembleRHS(SquallP1, PetscInt bs, const PetscReal coef[], Vec floc, Vec b, PetscBool coo);
/* element metric: L (9 per element) = scale * M^{-1} and sorted lengths h (3 per element, may be NULL) */
PETSC_EXTERN PetscErrorCode SquallP1CUDAComputeElementMetric(SquallP1, PetscReal scale, Vec L, Vec h, PetscInt *nbad);
/* copy the device geometry back (tests compare it with the host reference) */
PETSC_EXTERN PetscErrorCode SquallP1CUDAGetGeometry(SquallP1, PetscReal *);

/* device timers for the benchmarks: CUDA events on the current PetscDeviceContext's stream */
typedef struct _n_SquallP1CUDATimer *SquallP1CUDATimer;
PETSC_EXTERN PetscErrorCode          SquallP1CUDATimerCreate(SquallP1CUDATimer *);
PETSC_EXTERN PetscErrorCode          SquallP1CUDATimerStart(SquallP1CUDATimer);
PETSC_EXTERN PetscErrorCode          SquallP1CUDATimerStop(SquallP1CUDATimer, PetscLogDouble *ms); /* synchronizes */
PETSC_EXTERN PetscErrorCode          SquallP1CUDATimerDestroy(SquallP1CUDATimer *);
PETSC_EXTERN PetscErrorCode          SquallP1CUDASynchronize(void);
/* the hardware limit of the atomic assembly: atomicAdd updates of PetscScalar (FP64 in double builds) per second into n values, updates at a time, in the
   patterns of SquallP1AtomicProbePatterns (rates[p], median of reps launches) */
typedef enum { SQUALL_P1_PROBE_CONSECUTIVE, SQUALL_P1_PROBE_SECTORS, SQUALL_P1_PROBE_SCATTERED, SQUALL_P1_PROBE_NUM } SquallP1AtomicProbePattern;
PETSC_EXTERN const char *const SquallP1AtomicProbePatterns[];
PETSC_EXTERN PetscErrorCode    SquallP1CUDAAtomicProbe(PetscInt n, PetscInt updates, PetscInt reps, PetscLogDouble rates[]);
