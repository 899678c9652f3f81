/* The P1 operators' GPU entry points and the descriptors through which src/mat hands them its data:
   plain arrays, sizes, scalars, PETSc Vec/Mat handles and log events. src/mat fills them; src/cuda/p1*.cu
   keep the device copies (SquallP1Device) and run the kernels. Every function has a CPU stub
   (src/mat/p1cudastub.c) for builds without CUDA. Plain C that also compiles as C++ (nvcc). */
#pragma once

#include <petscmat.h>
#include "physics/p1tet.h"

/* The map of the in-block reduction (-p1_assembly_mode reduce; p1tet.h), built once per sparsity from the
   scalar slot map (src/mat/p1maps.c). Elements go in blocks of nb consecutive ones (the GPU's thread
   block). Block k has the unique entries u = ublk[k] .. ublk[k+1]-1, ascending by position (so a warp's
   atomics go to nearby addresses; with a threshold, SQUALL_P1_REDUCE_LONG for the GPU's scalar map, the
   entries with more contributions come first, then the others, each class ascending): slot[u] the scalar
   slot (slot-map encoding: >= 0 diagonal block, <= -2 off-diagonal block, see p1tet.h) and row[u] its local
   row (bs 3 finds the 3x3 block from it). Entry u sums the contributions cidx[cblk[k] + m] for m from
   (u == ublk[k] ? 0 : end[u-1]) to end[u] (without the flag bit), each c = 16*(e - k*nb) + 4a+b for element
   e, entry (a, b), in ascending c: the fixed order that makes a block's sum deterministic. end[u] &
   SQUALL_P1_REDUCE_ONLY: no other block has a contribution to the entry, so it may be stored instead of
   added. uint16 positions: 16*nb <= 0x7fff. */
#define SQUALL_P1_REDUCE_ONLY 0x8000u
#define SQUALL_P1_REDUCE_MASK 0x7fffu
#define SQUALL_P1_REDUCE_BLOCK 256 /* elements per block: the GPU kernel's thread block */
#define SQUALL_P1_REDUCE_LONG 4    /* an entry with more contributions is in a block's first length class */
typedef struct {
  PetscInt  nb, nblocks;
  PetscInt  nu, ncon, nonly; /* unique entries, contributions, entries of a single block (all blocks) */
  int      *ublk, *cblk;     /* [nblocks+1] */
  int      *slot, *row;      /* [nu] */
  uint16_t *end;             /* [nu] */
  uint16_t *cidx;            /* [ncon] */
} SquallP1Reduce;

/* the vertices of each block of nb consecutive elements: block k's distinct vertices vtx[voff[k]] ..
   vtx[voff[k+1]-1] and each element's vertices as positions in its block's list, ltet[a*ne + e] */
typedef struct {
  PetscInt        nblocks, maxnv; /* maxnv: the most vertices of one block */
  const int      *voff, *vtx;
  const uint16_t *ltet;
} SquallP1BlockVertexList;

/* the device copies of one SquallP1's mesh, graph and maps (src/cuda/p1device.cu) */
typedef struct _n_SquallP1Device *SquallP1Device;

/* the mesh and the graph of the owned rows, host arrays, for SquallP1CUDASetUp() */
typedef struct {
  PetscInt         ne, nv, nowned;
  const PetscInt  *tet;      /* [4*ne] local vertices, element-major */
  const PetscReal *x;        /* [3*nv] coordinates */
  const PetscInt  *row;      /* [nv] local row, -1 if not owned */
  const PetscInt  *dI, *dJ;  /* diagonal block of the scalar graph */
  PetscInt         nnzo;     /* entries of the off-diagonal block */
  PetscInt         ngarray;  /* its columns */
  PetscLogEvent    geometry; /* the element kernel's event */
} SquallP1KMesh;

/* one element operator: block size, coefficients (SQUALL_P1_NTERMS), the coefficient fields as local
   VECSEQCUDA vectors (NULL where absent: rho, u, K nodal, Ke per element), the flops of one evaluation of
   all elements (for the log) and the event the call is logged under */
typedef struct {
  PetscInt         bs;
  const PetscReal *coef;
  Vec              rho, u, K, Ke;
  PetscLogDouble   flops;
  PetscLogEvent    event;
} SquallP1KOperator;

/* how the direct assembly writes the diagonal block (SquallP1AssemblyMode's values) */
typedef enum { SQUALL_P1K_SLOTS, SQUALL_P1K_GATHER, SQUALL_P1K_REDUCE } SquallP1KMode;
/* the device maps, each built once on the host (src/mat/p1maps.c) and handed over with its setter */
typedef enum { SQUALL_P1K_MAP_SLOTS, SQUALL_P1K_MAP_GATHER, SQUALL_P1K_MAP_REDUCE, SQUALL_P1K_MAP_BLOCKVERTICES, SQUALL_P1K_MAP_OFFDIAGONAL } SquallP1KMap;

PETSC_EXTERN PetscErrorCode SquallP1CUDASetUp(const SquallP1KMesh *, SquallP1Device *);
PETSC_EXTERN PetscErrorCode SquallP1CUDADestroy(SquallP1Device *);
/* the element kernel: J^{-1} and volume per element, one thread per element */
PETSC_EXTERN PetscErrorCode SquallP1CUDAComputeGeometry(SquallP1Device, PetscLogEvent);
/* copy the device geometry (SQUALL_P1_NGEOM x ne) back to the host */
PETSC_EXTERN PetscErrorCode SquallP1CUDAGetGeometry(SquallP1Device, PetscReal *);

/* has the device the map of this kind (and block size: slots, reduce)? */
PETSC_EXTERN PetscErrorCode SquallP1CUDAHasMap(SquallP1Device, SquallP1KMap, PetscInt bs, PetscBool *);
/* the slot map of block size bs: SquallP1NumSlots(bs, 0) ints per element, entry-major */
PETSC_EXTERN PetscErrorCode SquallP1CUDASetSlots(SquallP1Device, PetscInt bs, const int *slots);
/* the gather map of the diagonal block: off[nnzd+1], idx[off[nnzd]], and the scalar row of each entry */
PETSC_EXTERN PetscErrorCode SquallP1CUDASetGather(SquallP1Device, const int *off, const int *idx, const int *prow);
/* the reduce map of block size bs (blocks of SQUALL_P1_REDUCE_BLOCK elements, diagonal block only) */
PETSC_EXTERN PetscErrorCode SquallP1CUDASetReduce(SquallP1Device, PetscInt bs, const SquallP1Reduce *);
/* the blocks' vertex lists of the reduce kernel that reads the vertex fields from shared memory */
PETSC_EXTERN PetscErrorCode SquallP1CUDASetBlockVertices(SquallP1Device, const SquallP1BlockVertexList *);
/* the elements with an entry in the off-diagonal block (several ranks) */
PETSC_EXTERN PetscErrorCode SquallP1CUDASetOffDiagonalElements(SquallP1Device, PetscInt n, const PetscInt *list);

/* the most shared memory per block the reduce kernel may use for the block's vertex fields (bytes; < 0: the
   device's limit, the default); where they need more, the kernel reads them from global memory instead */
PETSC_EXTERN PetscErrorCode SquallP1CUDASetSharedMemoryLimit(SquallP1Device, PetscInt64 bytes);

/* direct assembly into the device values of a (MPI)AIJCUSPARSE matrix whose layout was checked against the
   graph; on several ranks A must have the COO pattern of the off-diagonal elements (src/mat/p1coo.c), which
   MatSetValuesCOO fills first. The maps of the mode must have been set. */
PETSC_EXTERN PetscErrorCode SquallP1CUDAAssembleOperator(SquallP1Device, const SquallP1KOperator *, SquallP1KMode, PetscLogEvent gathersum, Mat A);
/* element values for MatSetValuesCOO, into a device array owned by the SquallP1Device (*values) */
PETSC_EXTERN PetscErrorCode SquallP1CUDAElementValuesCOO(SquallP1Device, const SquallP1KOperator *, PetscScalar **values);
/* b (owned part of a VECCUDA) = sum over elements of Op_e f_e (floc local, device), by atomicAdd; with
   values != NULL the element values go to a device array owned by the SquallP1Device instead (VecSetValuesCOO) */
PETSC_EXTERN PetscErrorCode SquallP1CUDAAssembleRHS(SquallP1Device, const SquallP1KOperator *, Vec floc, Vec b, PetscScalar **values);
/* element metric: L (9 per element) = scale * M^{-1} and sorted lengths h (3 per element, may be NULL) */
PETSC_EXTERN PetscErrorCode SquallP1CUDAComputeElementMetric(SquallP1Device, PetscReal scale, Vec L, Vec h, PetscLogEvent, PetscInt *nbad);
