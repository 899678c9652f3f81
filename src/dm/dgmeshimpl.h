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

  /* cubed-sphere shell (-<prefix>mesh shell, src/dm/dgshell.c): inner radius a, thickness H; each cube
     face has nh x nh columns of nz elements, and an element's lattice index is (i, j, face*nz + k) */
  PetscBool shell;
  PetscReal shellA, shellH;
  PetscInt  shellNh, shellNz;

  /* brick (on the shell: ncell = {nh, nh, 6 nz}, the extent of the lattice index) */
  PetscInt  ncell[3]; /* global cells per direction after refinement */
  PetscBool periodic[3];
  PetscReal lo[3], hi[3], h[3];

  /* elements: owned first (e < nOwned), then ghosts; slot[e] is the element's slot in local vectors */
  PetscInt  nOwned, nGhost, nGlobal;
  PetscInt *slot;    /* [nOwned+nGhost] local-vector slot */
  PetscInt *gslot;   /* [nOwned] slot in the process-local part of a global vector */
  PetscInt *ijk;     /* [3*(nOwned+nGhost)] lattice index of each element */
  PetscInt *nbr;     /* [6*nOwned] neighbouring element across each face, or -1 on a boundary */
  PetscInt *vmapP;   /* [nOwned*6*Nfp] partner node as slot*Np + n; the own node is implicit */
  PetscInt *nbrFace; /* [6*nOwned] the neighbour's face that is this face (brick: f^1), -1 on a boundary */
  PetscInt *nbrPerm; /* [6*nOwned] the face-node permutation to it (SQUALL_DG_PERM_*; brick: 0), -1 on a boundary */
  PetscInt *fmask;   /* [6*Nfp] element node of each face node */

  /* geometry at the nodes of every element (owned and ghost), element-major */
  PetscReal *x;  /* [3][Np] per element: physical coordinates */
  PetscReal *J;  /* [Np] per element: Jacobian determinant */
  PetscReal *Ja; /* [3 (contravariant d)][3 (component)][Np] per element: J grad xi^d, curl form */
  PetscReal *zh; /* shell: [Np] per element, the height r - a above the inner sphere (from the lattice: equal
                    bit for bit wherever nodes coincide); NULL on the brick */
};

/* Face-node permutations: face node q = a + Nq b (a, b the face's tangential indices, see fmask) meets
   the partner face's node a' + Nq b' with (a', b') = (b, a) if SQUALL_DG_PERM_SWAP, then a' -> N - a' if
   SQUALL_DG_PERM_FLIP0, b' -> N - b' if SQUALL_DG_PERM_FLIP1. */
#define SQUALL_DG_PERM_SWAP 1
#define SQUALL_DG_PERM_FLIP0 2
#define SQUALL_DG_PERM_FLIP1 4
static inline PetscInt SquallDGPermuteFaceNode(PetscInt Nq, PetscInt perm, PetscInt q)
{
  PetscInt a = q % Nq, b = q / Nq, t;
  if (perm & SQUALL_DG_PERM_SWAP) {
    t = a;
    a = b;
    b = t;
  }
  if (perm & SQUALL_DG_PERM_FLIP0) a = Nq - 1 - a;
  if (perm & SQUALL_DG_PERM_FLIP1) b = Nq - 1 - b;
  return a + Nq * b;
}

#define SQUALL_DG_X(m, e) ((m)->x + (size_t)(e)*3 * (m)->Np)
#define SQUALL_DG_J(m, e) ((m)->J + (size_t)(e) * (m)->Np)
#define SQUALL_DG_JA(m, e) ((m)->Ja + (size_t)(e)*9 * (m)->Np)

PETSC_INTERN PetscErrorCode SquallDGMeshComputeGeometry(SquallDGMesh);

/* the shell (src/dm/dgshell.c): options and forest, element lattice and face connectivity, node positions */
PETSC_INTERN PetscErrorCode SquallDGMeshShellSetFromOptions(SquallDGMesh, const char dmprefix[]);
PETSC_INTERN PetscErrorCode SquallDGMeshShellConnect(SquallDGMesh, const PetscInt cellOf[]);
PETSC_INTERN PetscErrorCode SquallDGMeshShellNodes(SquallDGMesh, PetscInt e, PetscReal *X, PetscReal *zh);
/* the permutation of each face's nodes to its partner's, from vmapP (checked against it) */
PETSC_INTERN PetscErrorCode SquallDGMeshSetFacePermutations(SquallDGMesh);

/* max |x - m->x| over the owned elements' node coordinates, computed on the device; x is a VECCUDA of
   local size 3*Np*nOwned (element-major, [3][Np] per element). Collective: the max is global. */
PETSC_EXTERN PetscErrorCode SquallDGMeshCheckCoordinatesCUDA(SquallDGMesh, Vec, PetscReal *);
