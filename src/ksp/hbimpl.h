/* Private data of the hipBone-style operator (MATSHELL context) and its CUDA entry points. */
#pragma once

#include "sys/squallimpl.h"
#include <petscsf.h>

#if defined(PETSC_USE_COMPLEX)
#  error "squall's hipBone CG needs a real PetscScalar"
#endif

/* Unstructured global numbering of element nodes (src/ksp/semnumbering.c). Input: one integer key
   per element node (equal keys = the same global node; -1 = masked, i.e. Dirichlet). Output: a local
   index per element node into [owned | ghost] nodes, or -1. Owned nodes are numbered with those no
   other rank holds first ("private") and those another rank holds as a ghost last ("shared"), so
   the shared rows form one contiguous block [nown - nshared, nown). */
typedef struct {
  PetscInt  nown, nshared, nghost; /* local counts */
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

typedef struct _n_SquallHBCUDA *SquallHBCUDA;

/* generation of the CUDA element kernels (-hb_kernel_variant), so that a benchmark can time both:
   v1: the first kernels (3D: loads after each barrier; 2D: q and the result as register columns);
   v2: 3D with every global load issued before the first barrier, 2D with q in shared memory and
       only the result column in registers (fewer registers: more blocks per SM);
   v3: v2's 3D kernel; 2D two layers per step (each shared load of D or q serves both; 3 or 4 with
       -hb_v3_layers) with vector loads for the operands a warp shares (fewer shared-memory wavefronts
       per node);
   v4: v3 with the 2D block shape and shared-memory row pitches chosen per order against the bank
       conflicts of odd Nq (src/cuda/hbop.cu, HBLayout2DOf); the same arithmetic, the same kernel at
       even Nq; -hb_v3_layers applies;
   v5: v3's 2D sweep with two nodes per thread, (i, j) and (i, j + ceil(Nq/2)) (register tiling: each
       shared load of the column shape x[m][i] serves both; ~30% fewer shared-memory cycles per node
       at Nq = 16, more registers); -hb_v3_layers applies;
   v6: below the switch a layer sweep with several elements per block (a thread per column of an
       element, the t-direction in registers, r and s through one shared slice per layer) instead of
       v2's 3D kernel; from the switch on v4's 2D kernel;
   v7: double precision, N = 9..15: one element per block, every contraction as 8x8x4 products on the
       FP64 tensor cores (src/cuda/hbopv7.cuh) */
typedef enum { SQUALL_HB_KERNEL_V1, SQUALL_HB_KERNEL_V2, SQUALL_HB_KERNEL_V3, SQUALL_HB_KERNEL_V4, SQUALL_HB_KERNEL_V5, SQUALL_HB_KERNEL_V6, SQUALL_HB_KERNEL_V7 } SquallHBKernelVariant;
PETSC_INTERN const char *const SquallHBKernelVariants[];

typedef struct {
  MPI_Comm  comm;
  PetscInt  N, Nq, Np;
  PetscInt  E[3];      /* elements per direction of the brick */
  PetscReal bounds[6]; /* x0,x1,y0,y1,z0,z1 */
  PetscReal shear;     /* the brick is mapped by x' = x + s (y + z), y' = y + s z: full G */
  PetscReal lambda;    /* screening coefficient */
  PetscBool dirichlet; /* homogeneous Dirichlet on the brick boundary: those nodes are not unknowns */
  PetscInt  kswitch;   /* the CUDA kernel is layer-by-layer (2D blocks) from this order on (0: by variant, SquallHBSwitch()) */
  PetscBool capregs;   /* CUDA, v1 2D kernel, Nq >= 14: cap registers for two blocks per SM (some spill) */
  PetscBool logsetup;  /* -hb_log_setup: timestamped setup phases on stderr */
  PetscBool scramble;  /* -hb_scramble_keys: number the nodes from a scrambled bijection of the lattice keys */
  PetscBool forest;    /* -hb_partition forest: the elements of each rank are those p8est gives it on the same brick */
  PetscBool overlap;   /* hide the halo exchanges behind the interior elements and owned rows (default) */
  char      vectype[64];

  SquallHBKernelVariant kvariant; /* CUDA element kernels */
  PetscInt              v3layers; /* v3/v4/v5 2D kernel: layers per step and thread (-hb_v3_layers 2, 3, 4; 0: by order, SquallHBV3Layers()) */
  PetscInt              elems2d;  /* v3/v4 2D kernel: elements per thread block (-hb_2d_elements; 0: 1; 2, 3, 4, 6 at N = 5) */

  /* local elements: [0, nint) read owned (or masked) nodes only, [nint, nelem) read a ghost */
  PetscInt  nelem, nint;
  PetscInt  nelem_global;
  PetscInt *elem; /* lexicographic brick index of each local element */
  PetscReal D[(SQUALL_LGL_MAX_ORDER + 1) * (SQUALL_LGL_MAX_ORDER + 1)];
  PetscReal r[SQUALL_LGL_MAX_ORDER + 1], w[SQUALL_LGL_MAX_ORDER + 1];

  /* per element node (nelem * Np) */
  PetscInt  *gidx; /* local node index (owned, then ghosts), -1 where masked */
  PetscReal *G;    /* 6 geometric factors per node, packed per node */
  PetscReal *W;    /* inverse multiplicity (0 where masked: such nodes hold no unknown) */

  SquallSEMNumbering num;
  PetscInt           nown, nshared, nghost, nglobal;
  PetscInt          *rowptr, *col; /* Z^T as CSR: row = local node, entries = element-node positions */

  /* host work arrays */
  PetscScalar *yL, *xghost, *yghost, *yshared;
  PetscReal   *scratch; /* 3 Np */

  SquallHBCUDA cuda; /* device copy, created on the first device MatMult */
} Mat_HB;

PETSC_INTERN PetscErrorCode SquallHBGetContext(Mat, Mat_HB **);
PETSC_INTERN PetscErrorCode SquallHBIsDeviceVec(Vec, PetscBool *);
PETSC_INTERN const char    *SquallHBKernelName(const Mat_HB *);

/* CUDA (src/cuda/hbop.cu, src/cuda/hbcg.cu); CPU stubs in src/ksp/hbcudastub.c */
PETSC_INTERN PetscErrorCode SquallHBMultCUDA(Mat_HB *, Vec x, Vec y, PetscBool wantdot, PetscReal *xdoty);
PETSC_INTERN PetscErrorCode SquallHBDestroyCUDA(Mat_HB *);
PETSC_INTERN PetscErrorCode SquallHBBenchmarkCUDA(Mat_HB *, Vec x, Vec y, PetscInt reps, SquallHBBenchResult *);

/* fused CG vector work; dots[] = (r.z, r.r, z.z) local to the rank */
enum { SQUALL_HBCG_RZ, SQUALL_HBCG_RR, SQUALL_HBCG_ZZ, SQUALL_HBCG_NDOTS };
PETSC_INTERN PetscErrorCode SquallHBCGUpdateCUDA(PetscReal alpha, Vec W, Vec R, Vec dinv, Vec Z, Vec P, Vec X, PetscReal dots[]);
PETSC_INTERN PetscErrorCode SquallHBCGDotsCUDA(Vec R, Vec dinv, Vec Z, PetscReal dots[]);
PETSC_INTERN PetscErrorCode SquallHBCGDirectionCUDA(PetscBool first, PetscReal beta, Vec Z, Vec P);

/* the layers per step the v3 2D kernel runs with: -hb_v3_layers, or for 0 (the default) the fastest
   on the H200 by order (% of the streaming roofline for L = 2/3/4 at N = 9..15: 74/69/78, 62/67/72,
   75/78/75, 54/57/59, 64/63/64, 47/52/53, 59/64/58); 2 below N = 9. v4 below N = 9 by its own
   measurements (N = 3: 2, 4-7: 4, 8: 3) and from N = 9 (best 77, 73, 77, 66, 63, 56, 63% at N = 9..15),
   v5 likewise (L = 2 best but at N = 15, where L = 3 gives 66 against 62%); v6 runs v4's 2D kernel and
   takes its layers */
static inline PetscInt SquallHBV3Layers(const Mat_HB *hb)
{
#if defined(PETSC_USE_REAL_SINGLE)
  /* single: v4 is fastest with 4 layers at every 2D order, v5 with 2 at N = 9 and 4 at 14, 15; below
     N = 9 v4 with 4 too (N = 3..8 80, 93, 73, 90, 98, 84% against 78, 92, 73, 85, 98, 80 with 2) */
  static const PetscInt best3[16] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 4, 4, 3, 4, 4, 4, 3};
  static const PetscInt best4[16] = {2, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};
  static const PetscInt best5[16] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 4, 4};
#else
  static const PetscInt best3[16] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 4, 4, 3, 4, 4, 4, 3};
  static const PetscInt best4[16] = {2, 2, 2, 2, 4, 4, 4, 4, 3, 4, 4, 3, 3, 4, 3, 3};
  static const PetscInt best5[16] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3};
#endif

  if (hb->v3layers > 0) return hb->v3layers;
  if (hb->N < 0 || hb->N >= 16) return 2;
  return hb->kvariant == SQUALL_HB_KERNEL_V5 ? best5[hb->N] : (hb->kvariant == SQUALL_HB_KERNEL_V4 || hb->kvariant == SQUALL_HB_KERNEL_V6 ? best4[hb->N] : best3[hb->N]);
}

/* elements per block of the v3/v4 2D kernel: -hb_2d_elements, or by order: 4 at N = 5 (H200, double,
   2e7 unknowns, best layer count: 1, 2, 3, 4, 6 elements 82.6, 88.1, 90.4, 91.3, 88.4% of the roofline),
   else 1 */
static inline PetscInt SquallHBElems2D(const Mat_HB *hb)
{
  return hb->elems2d > 0 ? hb->elems2d : (hb->N == 5 ? 4 : 1);
}

/* The order from which the CUDA operator runs its 2D (layer-by-layer) kernel: -hb_kernel_switch, or by
   default 3 (v6: 10, its own low-order kernel up to N = 9). Measured on the H200 (double,
   -hb_kernel_switch 1 against v2's 3D kernel, % of the streaming roofline): v4's 2D kernel at its best layers
   N = 2: 66 against 76, 3: 93 / 75, 4: 94 / 59, 5: 84 / 66, 6: 91 / 48, 7: 96 / 68, 8: 77 / 46 */
static inline PetscInt SquallHBSwitch(const Mat_HB *hb)
{
  return hb->kswitch > 0 ? hb->kswitch : (hb->kvariant == SQUALL_HB_KERNEL_V6 ? 10 : 3);
}

/* whether this operator's order is below the switch: the 3D kernel (v6: its multi-element sweep), else the 2D one */
static inline PetscBool SquallHBUse3D(const Mat_HB *hb)
{
  return hb->N < SquallHBSwitch(hb) ? PETSC_TRUE : PETSC_FALSE;
}

/* The default -hb_kernel_variant of order N: below the 2D switch the faster of v6's multi-element sweep and
   v2's 3D kernel, which v4 runs there (H200, double, % of the streaming roofline:
   N = 1: 99 against 93, 2: 89 / 78; from N = 3 on v4's 2D kernel beats both: 94, 95, 85, 91, 96, 78 at N = 3..8
   against v6's 91, 78, 84, 74, 80, 66; single: v6 100, 89, 88, 87, 85, 81, 84, 70 at N = 1..8, v4's 2D
   kernel -, 37, 80, 93, 73, 90, 98, 84, v2's 3D 70, 56, 63, 56, 52, 52, 54, 41: v6 at N = 1-3 and 5); from N = 9 the faster 2D kernel of v4 and v5 at their best layers
   (% of the roofline, v4 / v5; double:
   N = 9: 78 / 82, 10: 74 / 69, 11: 78 / 77, 12: 67 / 65, 13: 64 / 66, 14: 57 / 68, 15: 64 / 66; single:
   9: 77 / 79, 10: 75 / 62, 11: 82 / 71, 12: 73 / 55, 13: 67 / 63, 14: 65 / 69, 15: 69 / 72); at N = 11 in double v5,
   measured ahead at the current kernels twice: 76.0 / 74.0 and 77.2 / 74.9 (v5 / v4) */
static inline SquallHBKernelVariant SquallHBDefaultVariant(PetscInt N)
{
#if defined(PETSC_USE_REAL_SINGLE)
  if (N <= 3 || N == 5) return SQUALL_HB_KERNEL_V6;
  return N == 9 || N >= 14 ? SQUALL_HB_KERNEL_V5 : SQUALL_HB_KERNEL_V4;
#else
  if (N <= 2) return SQUALL_HB_KERNEL_V6;
  return N == 9 || N == 11 || N >= 13 ? SQUALL_HB_KERNEL_V5 : SQUALL_HB_KERNEL_V4;
#endif
}
