/* The P1 tetrahedral CG operators' internals, shared by src/mat/p1*.c and the tests. The GPU side sees
   only the descriptors of src/cuda/p1kernels.h, which src/mat/p1device.c fills. */
#pragma once

#include "sys/squallimpl.h"
#include "physics/p1tet.h"
#include "cuda/p1kernels.h"

/* Local numbering. Vertices are the plex's local vertices (owned and overlap), v = point - vStart.
   Elements are the local cells that touch an owned vertex or are owned themselves (the latter only
   matter for integrals); cell[e] is the plex point. With one layer of overlap every cell touching an
   owned vertex is local, so each process computes all contributions to its own rows and nothing
   is sent: rows of vertices it does not own are skipped. */
struct _n_SquallP1 {
  MPI_Comm             comm;
  PetscInt             id; /* unique per object: ties matrices and vectors to their SquallP1 */
  DM                   dm; /* the plex, distributed with one layer of cell overlap */
  PetscBool            setup;
  SquallP1Backend      backend;
  SquallP1AssemblyType assembly;
  SquallP1AssemblyMode mode;    /* how the direct assembly adds its entries */
  PetscBool            modeset; /* set by the user; else it follows the backend (SquallP1DefaultAssemblyMode()) */
  PetscReal            degtol;  /* a tet is degenerate when 6|vol| <= degtol * (longest edge)^3 */
  PetscBool            view;
  SquallP1ElementOrder order;
  PetscInt             ncolors; /* with SQUALL_P1_ORDER_COLORED */

  /* vertices */
  PetscInt   nv, nowned, N, rstart; /* local, owned, global; first owned global index */
  PetscReal *x;                     /* [3*nv] coordinates */
  PetscInt  *gidx;                  /* [nv] global index (scalar numbering) */
  PetscInt  *row;                   /* [nv] local row, -1 if not owned */
  PetscInt  *cd, *co;               /* [nv] column in the diagonal / off-diagonal block, or -1 */

  /* elements */
  PetscInt   ne, neowned, NE; /* local, owned, global */
  PetscInt  *tet;             /* [4*ne] local vertices, right-handed */
  PetscInt  *cell;            /* [ne] plex cell point */
  PetscBool *eowned;          /* [ne] the cell is owned (counted once in integrals) */
  PetscReal *geom;            /* [SQUALL_P1_NGEOM*ne] J^{-1} and volume, structure of arrays: geom[k*ne + e] */

  /* scalar graph of the owned rows: diagonal block (local columns) and off-diagonal block (columns
     numbered by position in garray, the sorted global columns not owned here) */
  PetscInt *dI, *dJ, *oI, *oJ, *garray, ngarray;
  PetscInt  nnz; /* dI[nowned] + oI[nowned] */

  /* the elements with an entry in the off-diagonal block (an owned row and a column owned elsewhere),
     for the CUDA direct path on several ranks (SquallP1OffDiagonalElements(), built on first use) */
  PetscInt  nebnd;
  PetscInt *ebnd;
  PetscBool hasebnd;

  /* slot maps of the CPU direct path, per block size (p1tet.h, SquallP1BuildSlots()), built on first use;
     the CUDA backend keeps its own device copy instead */
  int *slots[4];

  /* gather mode, CPU path (SquallP1BuildGather(), built on first use): the transposed slot map of the
     diagonal [0] and off-diagonal [1] block, and the element values, entry-major, per block size (the
     CUDA backend keeps its own device copies) */
  int         *gmoff[2], *gmidx[2];
  PetscScalar *gwork[4];

  /* reduce mode: the map of the CPU path (with the off-diagonal block), built on first use; rstats: {nu,
     ncon, nonly, nblocks} of the last map built by either backend, and the block vertex entries of the last block
     vertex lists (SquallP1BuildBlockVertices()) (benchmarks count their bytes) */
  SquallP1Reduce *red;
  PetscInt64      rstats[5];

  /* coefficient fields, scattered to local vertices (or per element), in the backend's memory */
  Vec              rho, u, K; /* local nodal: bs 1, 3, 9 */
  Vec              Ke;        /* per element, 9 values each */
  SquallP1Location Kloc;
  PetscBool        hasK;

  /* per block size (1, 3, 9): a clone of dm with bs dofs per vertex, the global-to-local scatter
     and a local work vector */
  DM         vdm[10];
  VecScatter g2l[10];
  Vec        lwork[10];
  Vec        coords; /* global nodal coordinates, bs 3 */

  /* COO path on the host: element matrices, 16 (bs 1) or 144 (bs 3) values per element, and element
     right-hand sides, 4*bs per element (the CUDA backend's are in its SquallP1Device) */
  PetscScalar *coov[4], *coor[4];

  SquallP1Device dev; /* device copies (src/cuda/p1device.cu), with the CUDA backend */
};

/* ties a Mat or Vec to its SquallP1: composed as "SquallP1Info" */
typedef struct {
  PetscInt         p1id, bs;
  PetscBool        coo;      /* MatSetPreallocationCOO / VecSetPreallocationCOO done (all element entries) */
  PetscBool        coooff;   /* MatSetPreallocationCOO done for SquallP1OffDiagonalCOOIndices() (CUDA direct, MPI) */
  PetscObjectState verified; /* nonzero state whose AIJ layout matched the graph (+1; 0: never) */
} SquallP1Info;

PETSC_INTERN PetscErrorCode SquallP1GetInfo(PetscObject, SquallP1Info **);
PETSC_INTERN PetscErrorCode SquallP1GmshCheck(const char[], char[], size_t);
PETSC_INTERN PetscErrorCode SquallP1ComputeGeometryHost(SquallP1);
PETSC_INTERN PetscErrorCode SquallP1GlobalToLocal(SquallP1, PetscInt bs, Vec g, Vec *l);
PETSC_INTERN PetscErrorCode SquallP1CheckLayout(SquallP1, PetscInt bs, Mat);
/* the element data on the host, for the C reference and the tests (fields through VecGetArrayRead) */
PETSC_EXTERN PetscErrorCode SquallP1GetElementsHost(SquallP1, SquallP1Elements *);
PETSC_EXTERN PetscErrorCode SquallP1RestoreElementsHost(SquallP1, SquallP1Elements *);
PETSC_INTERN PetscErrorCode SquallP1OffDiagonalElements(SquallP1, PetscInt *n, const PetscInt **list);
/* MatSetPreallocationCOO of A (once): all element entries, or offdiagonal: the diagonal-block graph and the
   off-diagonal block's element entries (CUDA direct path, MPI) */
PETSC_INTERN PetscErrorCode SquallP1SetMatCOO(SquallP1, PetscInt bs, Mat, SquallP1Info *, PetscBool offdiagonal);
PETSC_INTERN PetscErrorCode SquallP1GetLocalWork(SquallP1, PetscInt bs, Vec *);
/* The slot map of block size bs (1 or 3; layout and encoding in p1tet.h): SquallP1NumSlots(bs, withoff)
   ints per element, entry-major (slots[k*ne + e]). withoff: also the off-diagonal row strides of bs = 3
   (the CPU path writes that block; the GPU does not). Found by a binary search of each column in its row
   (SquallP1Find), once; an entry missing from the graph is an error. The caller frees *slots. */
PETSC_EXTERN PetscErrorCode SquallP1BuildSlots(SquallP1, PetscInt bs, PetscBool withoff, int **slots);
/* The gather map, the transpose of the scalar slot map: for each stored value p of the scalar graph's
   diagonal block [0] (and, withoff, off-diagonal block [1]), its contributions idx[off[p]] ..
   idx[off[p+1]-1], each t = k*ne + e for local entry k = 4a+b of element e (only owned rows), in
   ascending t: the position of the entry in the entry-major element scratch (SquallP1ElementStore()).
   One map serves both block sizes (a 3x3 block has the contributions of its scalar entry). int32: the
   scratch of one component must hold fewer than 2^31 values. The caller frees the four arrays (NULL for
   the off-diagonal block without withoff). */
PETSC_EXTERN PetscErrorCode SquallP1BuildGather(SquallP1, PetscBool withoff, int *off[2], int *idx[2]);
/* The map of the in-block reduction for blocks of nb elements (1 <= nb <= 2047), see SquallP1Reduce;
   withoff: also the off-diagonal block's entries (the CPU path; the GPU leaves them to MatSetValuesCOO);
   a block's entries with more than rlong contributions first (SquallP1Reduce; PETSC_INT_MAX: position order
   only). Free with SquallP1ReduceDestroy(). */
PETSC_EXTERN PetscErrorCode SquallP1BuildReduce(SquallP1, PetscInt nb, PetscBool withoff, PetscInt rlong, SquallP1Reduce *);
PETSC_EXTERN PetscErrorCode SquallP1ReduceDestroy(SquallP1Reduce *);
/* The vertices of each block of nb consecutive elements (the GPU reduce kernel's vertex fields in shared memory): block k's distinct
   vertices vtx[voff[k]] .. vtx[voff[k+1]-1], ascending, and each element's vertices as positions in its block's
   list, ltet[a*ne + e] (structure of arrays, the device layout); maxnv the most vertices of one block. Free the
   three arrays with PetscFree(). */
PETSC_EXTERN PetscErrorCode SquallP1BuildBlockVertices(SquallP1, PetscInt nb, int **voff, int **vtx, uint16_t **ltet, PetscInt *maxnv);
/* the default assembly mode of a backend: the one source of that default */
PETSC_INTERN SquallP1AssemblyMode SquallP1DefaultAssemblyMode(SquallP1Backend);
/* set-up (src/mat/p1setup.c), element orders (src/mat/p1order.c), the vertex DMs (src/mat/p1fields.c) */
PETSC_INTERN PetscErrorCode SquallP1OrderElements(SquallP1);
PETSC_INTERN PetscErrorCode SquallP1GetVertexDM(SquallP1, PetscInt bs, DM *);
/* the host references of the direct assembly and the host paths (src/mat/p1host.c) */
PETSC_INTERN PetscErrorCode SquallP1AssembleHostDirect(SquallP1, PetscInt bs, const SquallP1Coef *, Mat);
PETSC_INTERN PetscErrorCode SquallP1AssembleHostGather(SquallP1, PetscInt bs, const SquallP1Coef *, Mat);
PETSC_INTERN PetscErrorCode SquallP1AssembleHostReduce(SquallP1, PetscInt bs, const SquallP1Coef *, Mat);
PETSC_INTERN PetscErrorCode SquallP1AssembleHostSetValues(SquallP1, PetscInt bs, const SquallP1Coef *, Mat);
PETSC_INTERN PetscErrorCode SquallP1ElementValuesHost(SquallP1, PetscInt bs, const SquallP1Coef *);
PETSC_INTERN void           SquallP1ElementValues(PetscInt bs, const PetscReal S[4][4], const PetscReal g[4][3], PetscReal cgvol, PetscScalar *vals);
PETSC_INTERN PetscErrorCode SquallP1ElementRHSHost(PetscInt bs, const SquallP1Coef *, PetscInt e, const SquallP1Elements *, const PetscScalar *f, PetscInt v[4], PetscReal r[12]);
PETSC_INTERN PetscErrorCode SquallP1AssembleCOO(SquallP1, PetscInt bs, const SquallP1Coef *, Mat, SquallP1Info *);
PETSC_INTERN PetscErrorCode SquallP1CheckCoef(SquallP1, PetscInt bs, const PetscReal coef[], SquallP1Coef *);
PETSC_INTERN PetscErrorCode SquallP1SetInfo(SquallP1, PetscObject, PetscInt bs, SquallP1Info **);
/* the GPU glue (src/mat/p1device.c): fill the descriptors, hand over the maps, call src/cuda */
PETSC_INTERN PetscErrorCode SquallP1DeviceSetUp(SquallP1);
PETSC_INTERN PetscErrorCode SquallP1DeviceAssembleOperator(SquallP1, PetscInt bs, const SquallP1Coef *, Mat);
PETSC_INTERN PetscErrorCode SquallP1DeviceElementValuesCOO(SquallP1, PetscInt bs, const SquallP1Coef *, PetscScalar **);
PETSC_INTERN PetscErrorCode SquallP1DeviceAssembleRHS(SquallP1, PetscInt bs, const SquallP1Coef *, Vec floc, Vec b, PetscScalar **coovalues);
/* rough flop count of one element operator (logging) */
PETSC_INTERN PetscLogDouble SquallP1ElementFlops(const PetscReal coef[], PetscInt bs);
