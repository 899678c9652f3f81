/* The DG mesh's internals: element slots in the local vector, LGL operators, geometry, face maps.
   Shared by the ESDG reference, the CUDA kernels' host side and the tests. */
#pragma once

#include "sys/squallimpl.h"
#include "physics/terrain.h"

/* Layout of a local (ghosted) vector: element slot s (owned and ghost cells, in the order of the
   plex's local section) holds nf*Np scalars, field-major: q[(s*nf + f)*Np + n], n = i + Nq*(j + Nq*k). */
struct _n_SquallDGMesh {
  MPI_Comm  comm;
  char     *prefix; /* options prefix given by the caller (the ESDG solver: "esdg_"), "" by default */
  DM        dm;     /* the DMForest (p8est) users see; its vectors have nf*Np dofs per cell */
  DM        plex;   /* DMConvert(dm, DMPLEX): cells, ghost layer, coordinates */
  DM        sdm;    /* clone of plex carrying the solution layout; vectors and TS live here */
  PetscInt  N, Nq, Np, Nfp, nf;
  PetscReal r[SQUALL_DG_MAX_ORDER + 1], w[SQUALL_DG_MAX_ORDER + 1];
  PetscReal D[(SQUALL_DG_MAX_ORDER + 1) * (SQUALL_DG_MAX_ORDER + 1)];
  PetscReal warp; /* amplitude of the smooth interior warp, as a fraction of the extent */
  PetscBool setup, cartesian;

  /* terrain-following map of the brick's vertical coordinate (-esdg_terrain ..., or a user function) */
  SquallTerrain           terrain;
  SquallDGTerrainFunction terrainFn;
  void                   *terrainCtx;

  /* brick */
  PetscInt  ncell[3]; /* global cells per direction after refinement */
  PetscBool periodic[3];
  PetscReal lo[3], hi[3], h[3];

  /* elements: owned first (e < nOwned), then ghosts; slot[e] is the element's slot in local vectors */
  PetscInt  nOwned, nGhost, nGlobal;
  PetscInt *slot;  /* [nOwned+nGhost] local-vector slot */
  PetscInt *gslot; /* [nOwned] slot in the process-local part of a global vector */
  PetscInt *ijk;   /* [3*(nOwned+nGhost)] lattice index of each element */
  PetscInt *nbr;   /* [6*nOwned] neighbouring element across each face, or -1 on a boundary */
  PetscInt *vmapP; /* [nOwned*6*Nfp] partner node as slot*Np + n; the own node is implicit */
  PetscInt *fmask; /* [6*Nfp] element node of each face node */

  /* geometry at the nodes of every element (owned and ghost), element-major */
  PetscReal *x;  /* [3][Np] per element: physical coordinates */
  PetscReal *J;  /* [Np] per element: Jacobian determinant */
  PetscReal *Ja; /* [3 (contravariant d)][3 (component)][Np] per element: J grad xi^d, curl form */
};

#define SQUALL_DG_X(m, e) ((m)->x + (size_t)(e)*3 * (m)->Np)
#define SQUALL_DG_J(m, e) ((m)->J + (size_t)(e) * (m)->Np)
#define SQUALL_DG_JA(m, e) ((m)->Ja + (size_t)(e)*9 * (m)->Np)

PETSC_INTERN PetscErrorCode SquallDGMeshComputeGeometry(SquallDGMesh);

/* max |x - m->x| over the owned elements' node coordinates, computed on the device; x is a VECCUDA of
   local size 3*Np*nOwned (element-major, [3][Np] per element). Collective: the max is global. */
PETSC_EXTERN PetscErrorCode SquallDGMeshCheckCoordinatesCUDA(SquallDGMesh, Vec, PetscReal *);
