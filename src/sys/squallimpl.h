/* Private declarations shared across squall's layers: log events and registration hooks. */
#pragma once

#include <squall.h>
#include <petsc/private/petscimpl.h>
#include "sys/squallcompat.h"

/* array options with a fixed number of values (src/sys/options.c) */
PETSC_INTERN PetscErrorCode SquallOptionsCheckArrayCount(MPI_Comm, const char prefix[], const char opt[], PetscInt count, PetscInt alt);

PETSC_INTERN PetscClassId SQUALL_CLASSID;

/* what every CPU stub of a CUDA entry point reports (src/<layer>/<capability>cudastub.c) */
#define SQUALL_NO_CUDA_MSG "squall was built without CUDA (reconfigure with a CUDA-enabled PETSc)"

/* log events, registered once in SquallInitializePackage() */
PETSC_INTERN PetscLogEvent SQUALL_DGMeshSetUp;
PETSC_INTERN PetscLogEvent SQUALL_ESDGRHS;
PETSC_INTERN PetscLogEvent SQUALL_ESDGVolume;
PETSC_INTERN PetscLogEvent SQUALL_ESDGSurface;
PETSC_INTERN PetscLogEvent SQUALL_ESDGNodeReduce;
PETSC_INTERN PetscLogEvent SQUALL_ESDGSource;
PETSC_INTERN PetscLogEvent SQUALL_LSRKUpdate;
PETSC_INTERN PetscLogEvent SQUALL_GPUCheck;
/* HEVI's parts of the RHS, F_H and F_V (the latter also inside the Jacobian's differences) */
PETSC_INTERN PetscLogEvent SQUALL_ESDGRHSHorizontal, SQUALL_ESDGRHSVertical;
/* HEVI's column Jacobian (all of it, then its perturbation and extraction passes), the matrix values,
   and -pc_type esdgcolumn's factorisation and solve (src/ts/esdgcolumn.c, src/ts/pccolumn.c) */
PETSC_INTERN PetscLogEvent SQUALL_ESDGColumnJacobian, SQUALL_ESDGColumnPerturb, SQUALL_ESDGColumnExtract, SQUALL_ESDGColumnValues, SQUALL_ESDGColumnPattern, SQUALL_ESDGColumnFactor, SQUALL_ESDGColumnSolve;

/* a type-registration hook per layer; each is called once from SquallInitializePackage() */
PETSC_INTERN PetscErrorCode SquallTSRegisterAll(void);
PETSC_INTERN PetscErrorCode SquallKSPRegisterAll(void);

/* type constructors, registered by the hooks above */
PETSC_INTERN PetscErrorCode TSCreate_LSRK(TS);
PETSC_INTERN PetscErrorCode PCCreate_ESDGColumn(PC);

/* hipBone-style CG (src/ksp/hb*.c, src/cuda/hb*.cu): one event per kernel */
PETSC_INTERN PetscLogEvent  SQUALL_HBSetUp, SQUALL_HBMult, SQUALL_HBLocalOp, SQUALL_HBGather, SQUALL_HBCGUpdate, SQUALL_HBCGSolution, SQUALL_HBCGDirection, SQUALL_HBCGDot;
PETSC_INTERN PetscErrorCode KSPCreate_HBCG(KSP);

/* P1 tetrahedral CG (src/mat/p1*.c, src/cuda/p1*.cu): one event per kernel */
PETSC_INTERN PetscLogEvent SQUALL_P1SetUp;          /* mesh extraction, graph, device upload */
PETSC_INTERN PetscLogEvent SQUALL_P1Geometry;       /* element kernel: J^{-1}, volume */
PETSC_INTERN PetscLogEvent SQUALL_P1AssembleCOO;    /* element values + MatSetValuesCOO */
PETSC_INTERN PetscLogEvent SQUALL_P1AssembleSlots;  /* direct assembly through the slot map (atomic on the GPU) */
PETSC_INTERN PetscLogEvent SQUALL_P1SlotMap;        /* building the slot map (once per block size) */
PETSC_INTERN PetscLogEvent SQUALL_P1AssembleGather; /* atomic-free assembly: element values to scratch, then the gather */
PETSC_INTERN PetscLogEvent SQUALL_P1GatherSum;      /* the gather alone (one thread per stored value), inside SQUALL_P1AssembleGather */
PETSC_INTERN PetscLogEvent SQUALL_P1GatherMap;      /* building the gather map (transposed slot map, once per sparsity) */
PETSC_INTERN PetscLogEvent SQUALL_P1AssembleReduce; /* assembly with the in-block reduction: one atomicAdd per unique entry of a thread block */
PETSC_INTERN PetscLogEvent SQUALL_P1ReduceMap;      /* building the per-block map of unique entries (once per sparsity) */
PETSC_INTERN PetscLogEvent SQUALL_P1SetValues;      /* host MatSetValues element by element */
PETSC_INTERN PetscLogEvent SQUALL_P1RHS;            /* element right-hand sides */
PETSC_INTERN PetscLogEvent SQUALL_P1Metric;         /* element metric tensors (6x6 solve, 3x3 eigenpairs) */

/* this rank's share of the host (or, with device, its CUDA device's) memory still available; -1 if unknown (src/sys/device.c) */
PETSC_INTERN PetscErrorCode SquallMemoryGetAvailable(MPI_Comm, PetscBool device, PetscLogDouble *bytes);
