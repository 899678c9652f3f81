/* squall: GPU building blocks for atmospheric and geophysical PETSc programs.
   One public header; the three capabilities (ESDG dynamical core, P1 tetrahedral CG operators,
   hipBone-style matrix-free CG) are declared here. */
#pragma once

#include <petscdm.h>
#include <petscts.h>
#include <petscksp.h>

#define SQUALL_VERSION_MAJOR 0
#define SQUALL_VERSION_MINOR 1

/* ---- package */
PETSC_EXTERN PetscErrorCode SquallInitializePackage(void);
PETSC_EXTERN PetscErrorCode SquallFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_squall(void);
PETSC_EXTERN PetscBool      SquallHaveCUDA(void);

/* ---- TS "lsrk": low-storage 2N Runge-Kutta (schemes "14s4", "5s4"; option -ts_lsrk_type) */
#define SQUALL_TSLSRK "lsrk"
PETSC_EXTERN PetscErrorCode SquallTSLSRKSetType(TS, const char[]);
PETSC_EXTERN PetscErrorCode SquallTSLSRKGetType(TS, const char *[]);
PETSC_EXTERN PetscErrorCode SquallTSLSRKGetTableau(TS, PetscInt *, PetscInt *, const PetscReal *[], const PetscReal *[], const PetscReal *[]);

/* ---- Legendre-Gauss-Lobatto operators (order N: N+1 nodes on [-1,1]) */
#define SQUALL_LGL_MAX_ORDER 15
PETSC_EXTERN PetscErrorCode SquallLGLNodesWeights(PetscInt N, PetscReal r[], PetscReal w[]);
PETSC_EXTERN PetscErrorCode SquallLGLDerivativeMatrix(PetscInt N, const PetscReal r[], PetscReal D[]);

/* ---- DG mesh on a DMForest (p8est brick): LGL node geometry and face maps */
#define SQUALL_DG_MAX_ORDER 8
typedef struct _n_SquallDGMesh *SquallDGMesh;

/* faces of a hexahedron, in this order: normal -x, +x, -y, +y, -z, +z */
typedef enum { SQUALL_FACE_XM, SQUALL_FACE_XP, SQUALL_FACE_YM, SQUALL_FACE_YP, SQUALL_FACE_ZM, SQUALL_FACE_ZP } SquallFace;
PETSC_EXTERN const char *const SquallFaces[];

PETSC_EXTERN PetscErrorCode SquallDGMeshCreate(MPI_Comm, SquallDGMesh *);
PETSC_EXTERN PetscErrorCode SquallDGMeshSetOrder(SquallDGMesh, PetscInt);
PETSC_EXTERN PetscErrorCode SquallDGMeshSetNumFields(SquallDGMesh, PetscInt);
PETSC_EXTERN PetscErrorCode SquallDGMeshSetFromOptions(SquallDGMesh);
PETSC_EXTERN PetscErrorCode SquallDGMeshSetUp(SquallDGMesh);
PETSC_EXTERN PetscErrorCode SquallDGMeshView(SquallDGMesh, PetscViewer);
PETSC_EXTERN PetscErrorCode SquallDGMeshDestroy(SquallDGMesh *);
PETSC_EXTERN PetscErrorCode SquallDGMeshGetDM(SquallDGMesh, DM *);
PETSC_EXTERN PetscErrorCode SquallDGMeshGetForest(SquallDGMesh, DM *);
PETSC_EXTERN PetscErrorCode SquallDGMeshGetOrder(SquallDGMesh, PetscInt *);
PETSC_EXTERN PetscErrorCode SquallDGMeshGetNumElements(SquallDGMesh, PetscInt *owned, PetscInt *ghost, PetscInt *global);
PETSC_EXTERN PetscErrorCode SquallDGMeshComputeVolume(SquallDGMesh, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallDGMeshIntegrate(SquallDGMesh, Vec, PetscInt field, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallDGMeshWriteVTK(SquallDGMesh, Vec, const char *const fieldnames[], const char filename[]);

/* ---- ESDG: entropy-stable DG for the compressible Euler equations with gravity and Coriolis */
typedef struct _n_SquallESDG *SquallESDG;
typedef struct {
  PetscReal mass, energy, entropy; /* integrals over the domain (LGL quadrature) */
  PetscReal maxw, minrho, minp;    /* max |w|, min density, min pressure over the nodes */
} SquallESDGStats;
/* initial condition callback: state q[5] at position x[3] and geopotential Phi */
typedef PetscErrorCode (*SquallESDGInitialFn)(const PetscReal x[3], PetscReal Phi, PetscReal q[5], void *ctx);

PETSC_EXTERN PetscErrorCode SquallESDGCreate(MPI_Comm, SquallESDG *);
PETSC_EXTERN PetscErrorCode SquallESDGSetFromOptions(SquallESDG);
PETSC_EXTERN PetscErrorCode SquallESDGSetUp(SquallESDG);
PETSC_EXTERN PetscErrorCode SquallESDGView(SquallESDG, PetscViewer);
PETSC_EXTERN PetscErrorCode SquallESDGDestroy(SquallESDG *);
PETSC_EXTERN PetscErrorCode SquallESDGGetMesh(SquallESDG, SquallDGMesh *);
PETSC_EXTERN PetscErrorCode SquallESDGGetDM(SquallESDG, DM *);
PETSC_EXTERN PetscErrorCode SquallESDGSetGas(SquallESDG, PetscReal gamma, PetscReal R, PetscReal g);
PETSC_EXTERN PetscErrorCode SquallESDGGetGas(SquallESDG, PetscReal *gamma, PetscReal *R, PetscReal *g);
PETSC_EXTERN PetscErrorCode SquallESDGSetSurfaceFlux(SquallESDG, const char *);
PETSC_EXTERN PetscErrorCode SquallESDGProject(SquallESDG, SquallESDGInitialFn, void *, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGComputeRHS(SquallESDG, PetscReal, Vec, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGRHSFunction(TS, PetscReal, Vec, Vec, void *);
PETSC_EXTERN PetscErrorCode SquallESDGComputeStats(SquallESDG, Vec, SquallESDGStats *);
PETSC_EXTERN PetscErrorCode SquallESDGComputeEntropyRate(SquallESDG, Vec Q, Vec F, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallESDGComputeTimeStep(SquallESDG, Vec, PetscReal cfl, PetscReal *);
PETSC_EXTERN PetscErrorCode SquallESDGSetUpTS(SquallESDG, TS);
PETSC_EXTERN PetscErrorCode SquallESDGCheckState(SquallESDG, Vec, PetscBool *ok);

/* test cases: "bubble", "baroclinic", "isothermal", "densitywave", "random" (read their options, e.g. -bubble_profile) */
PETSC_EXTERN PetscErrorCode SquallESDGSetInitialCondition(SquallESDG, const char *name, Vec);
PETSC_EXTERN PetscErrorCode SquallESDGComputeExactError(SquallESDG, const char *name, PetscReal t, Vec, PetscReal *l2);
