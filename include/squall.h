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

/* ---- Legendre-Gauss-Lobatto operators (order N: N+1 nodes on [-1,1]) */
#define SQUALL_LGL_MAX_ORDER 15
PETSC_EXTERN PetscErrorCode SquallLGLNodesWeights(PetscInt N, PetscReal r[], PetscReal w[]);
PETSC_EXTERN PetscErrorCode SquallLGLDerivativeMatrix(PetscInt N, const PetscReal r[], PetscReal D[]);

/* ---- DG mesh on a DMForest (p8est brick): LGL node geometry and face maps */
#define SQUALL_DG_MAX_ORDER 8
typedef struct _n_SquallDGMesh *SquallDGMesh;

/* faces of a hexahedron, in this order: normal -x, +x, -y, +y, -z, +z */
typedef enum {
  SQUALL_FACE_XM,
  SQUALL_FACE_XP,
  SQUALL_FACE_YM,
  SQUALL_FACE_YP,
  SQUALL_FACE_ZM,
  SQUALL_FACE_ZP
} SquallFace;
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
