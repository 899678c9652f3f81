/* Private data of the hipBone-style operator (MATSHELL context); its CUDA entry points take the
   descriptor of src/cuda/hbkernels.h. */
#pragma once

#include "sys/squallimpl.h"
#include "cuda/hbkernels.h"
#include <petscsf.h>

#if SQUALL_HB_MAX_ORDER != SQUALL_LGL_MAX_ORDER
#  error "the hipBone CUDA kernels' highest order differs from SQUALL_LGL_MAX_ORDER"
#endif
#if defined(PETSC_USE_COMPLEX)
#  error "squall's hipBone CG needs a real PetscScalar"
#endif

/* Unstructured global numbering of element nodes (src/ksp/semnumbering.c). Input: one integer key
   per element node (equal keys = the same global node; -1 = masked, i.e. Dirichlet). Output: a local
   index per element node into [owned | ghost] nodes, or -1. Owned nodes are numbered with those no
   other rank holds first ("private") and those another rank holds as a ghost last ("shared"), so
   the shared rows form one contiguous block [nown - nshared, nown); among the private ones, those of
   one element copy come first, [0, nsingle), in the order of first appearance (element by element). */
typedef struct {
  PetscInt  nown, nshared, nghost; /* local counts */
  PetscInt  nsingle;               /* owned rows with one element copy in all: the first ones */
  PetscInt  rstart, nglobal;       /* first global index of this rank's owned nodes; global count */
  PetscInt *lidx;                  /* local index per element node, -1 where masked */
  PetscInt *mult;                  /* number of element copies (over all ranks) of each local node */
  PetscInt *ghost_global;          /* global index of each ghost */
  PetscSF   sfx;                   /* roots: owned nodes; leaves: ghosts (one leaf each, in order) */
  PetscSF   sfy;                   /* roots: the nshared shared rows; leaves: ghosts */
} SquallSEMNumbering;

PETSC_INTERN PetscErrorCode SquallSEMNumberingCreate(MPI_Comm, PetscInt nkeys, const PetscInt keys[], PetscLogDouble *tlog, SquallSEMNumbering *);

/* with tlog (the time setup started, PetscTime()), rank 0 prints the time since then and what just
   finished to stderr (-hb_log_setup): where the setup of a large operator spends its time */
static inline PetscErrorCode SquallHBLogPhase(MPI_Comm comm, const PetscLogDouble *tlog, const char what[])
{
  PetscLogDouble t;

  PetscFunctionBegin;
  if (!tlog) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&t));
  PetscCall(PetscFPrintf(comm, PETSC_STDERR, "[hb setup %8.3f s] %s\n", (double)(t - *tlog), what));
  PetscFunctionReturn(PETSC_SUCCESS);
}
PETSC_INTERN PetscErrorCode SquallSEMNumberingDestroy(SquallSEMNumbering *);

typedef struct {
  MPI_Comm  comm;
  PetscInt  N, Nq, Np;
  PetscInt  E[3];      /* elements per direction of the brick */
  PetscReal bounds[6]; /* x0,x1,y0,y1,z0,z1 */
  PetscReal shear;     /* the brick is mapped by x' = x + s (y + z), y' = y + s z: full G */
  PetscInt  mesh;      /* -hb_mesh: HB_MESH_BRICK, HB_MESH_KERSHAW, HB_MESH_PERTURBED */
  PetscReal kershaw_eps, perturb_eps;
  PetscInt  perturb_seed;
  /* -hb_geometry as asked (AUTO allowed), and what every element allows (set up once) */
  SquallHBGeometry geometry;
  PetscBool        straight, parallelepiped;
  PetscReal        lambda;    /* screening coefficient */
  PetscBool        dirichlet; /* homogeneous Dirichlet on the brick boundary: those nodes are not unknowns */
  PetscBool        logsetup;  /* -hb_log_setup: timestamped setup phases on stderr */
  PetscBool        scramble;  /* -hb_scramble_keys: number the nodes from a scrambled bijection of the lattice keys */
  PetscBool        forest;    /* -hb_partition forest: the elements of each rank are those p8est gives it on the same brick */
  PetscBool        overlap;   /* hide the halo exchanges behind the interior elements and owned rows (default) */
  PetscInt         scatter;   /* -hb_scatter as asked: HB_SCATTER_AUTO (by order, SquallHBResolveScatter()), _GATHER or _ATOMIC */
  PetscBool        single;    /* -hb_single_rows: device products write the rows of one element copy from the element kernels */
  char             vectype[64];

  /* CUDA element kernel as asked for (-hb_kernel, -hb_kernel_layers, -hb_kernel_elements; AUTO and 0:
     by order, SquallHBGetDefaultKernel()); SquallHBResolveKernel() gives the one that runs */
  SquallHBKernel kernel;
  PetscInt       layers, elements;

  /* local elements: [0, nint) read owned (or masked) nodes only, [nint, nelem) read a ghost */
  PetscInt  nelem, nint;
  PetscInt  nelem_global;
  PetscInt *elem; /* lexicographic brick index of each local element */
  PetscReal D[(SQUALL_LGL_MAX_ORDER + 1) * (SQUALL_LGL_MAX_ORDER + 1)];
  PetscReal r[SQUALL_LGL_MAX_ORDER + 1], w[SQUALL_LGL_MAX_ORDER + 1];

  /* per element node (nelem * Np) */
  PetscInt  *gidx; /* local node index (owned, then ghosts), -1 where masked */
  PetscReal *G;    /* stored: 6 geometric factors per node, packed per node (made when a product needs it) */
  PetscReal *V;    /* trilinear: 24 reals per element, its vertices relative to vertex 0 (made when needed) */
  PetscReal *F;    /* affine: 6 reals per element, |J| J^{-1} J^{-T} (made when needed) */

  SquallSEMNumbering num;
  PetscInt           nown, nshared, nghost, nglobal;
  PetscInt           nsingle;      /* the first owned rows, one element copy each */
  PetscInt          *rowptr, *col; /* Z^T as CSR: row = local node, entries = element-node positions */

  /* host work arrays */
  PetscScalar *yL, *xghost, *yghost, *yshared;
  PetscReal   *scratch; /* 3 Np */

  SquallHBOpDesc dev; /* what the CUDA code sees, filled before each device product; holds the device copy */
} Mat_HB;

PETSC_INTERN PetscErrorCode SquallHBGetContext(Mat, Mat_HB **);
PETSC_INTERN PetscErrorCode SquallHBIsDeviceVec(Vec, PetscBool *);

/* the element kernel (src/ksp/hbkernel.c) */
PETSC_INTERN const char *const SquallHBKernels[];
PETSC_INTERN PetscErrorCode    SquallHBKernelFromOptions(SquallOptionItems, Mat_HB *);
PETSC_INTERN PetscErrorCode    SquallHBResolveKernel(const Mat_HB *, SquallHBKernel *, PetscInt *layers, PetscInt *elements);
/* how a device product sums the element results (-hb_scatter), and the one that runs */
enum { HB_SCATTER_AUTO, HB_SCATTER_GATHER, HB_SCATTER_ATOMIC };
PETSC_INTERN const char *const SquallHBScatters[];
PETSC_INTERN PetscErrorCode    SquallHBResolveScatter(const Mat_HB *, SquallHBKernel, PetscBool *atomic);
PETSC_INTERN PetscInt          SquallHBSingleRows(const Mat_HB *, PetscBool atomic);

/* set-up and geometry (src/ksp/hbgeometry.c) */
enum { HB_MESH_BRICK, HB_MESH_KERSHAW, HB_MESH_PERTURBED };
PETSC_INTERN const char *const SquallHBMeshes[];
PETSC_INTERN const char *const SquallHBGeometries[];
PETSC_INTERN PetscErrorCode    SquallHBSetUp(Mat_HB *);
PETSC_INTERN PetscErrorCode    SquallHBElementGeometry(Mat_HB *, PetscInt e, PetscReal *xyz, PetscReal *Ge, PetscReal *wJ);
PETSC_INTERN PetscErrorCode    SquallHBGeometryFromOptions(SquallOptionItems, Mat_HB *);
PETSC_INTERN PetscErrorCode    SquallHBResolveGeometry(const Mat_HB *, SquallHBGeometry *);
PETSC_INTERN PetscErrorCode    SquallHBGeometryData(Mat_HB *, SquallHBGeometry);
PETSC_INTERN PetscErrorCode    SquallHBElementFactors(const Mat_HB *, SquallHBGeometry, PetscInt e, PetscReal *Ge);
PETSC_INTERN PetscReal         SquallHBGeometryBytesPerNode(SquallHBGeometry, PetscInt Np);

/* products on the host and the MATSHELL operations (src/ksp/hbmult.c), the viewer (src/ksp/hbview.c) */
PETSC_INTERN PetscErrorCode SquallHBHostWork(Mat_HB *);
PETSC_INTERN PetscErrorCode SquallHBGatherHost(Mat_HB *, PetscInt r0, const PetscScalar *yL, PetscScalar *y, PetscReal shift, const PetscScalar *x, PetscReal *dot);
PETSC_INTERN PetscErrorCode SquallHBMatMult(Mat, Vec, Vec);
PETSC_INTERN PetscErrorCode SquallHBMatMultDot(Mat, Vec, Vec, PetscReal *);
PETSC_INTERN PetscErrorCode SquallHBMatMultDotDevice(Mat, Vec, Vec, PetscReal *);
PETSC_INTERN PetscErrorCode SquallHBMatGetDiagonal(Mat, Vec);
PETSC_INTERN PetscErrorCode SquallHBMatView(Mat, PetscViewer);
PETSC_INTERN const char     SquallHBComposedName[];
