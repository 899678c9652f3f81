/* What the hipBone CUDA operator and CG kernels are given: a descriptor of the operator (plain arrays,
   sizes, scalars, PETSc handles) that src/ksp fills, and the CUDA entry points that take it. CPU stubs
   in src/ksp/hbcudastub.c for builds without CUDA. */
#pragma once

#include <petscvec.h>
#include <petscsf.h>

/* the CUDA element kernel of the operator (-hb_kernel); AUTO picks by order and precision from the
   table of SquallHBGetDefaultKernel() */
typedef enum {
  SQUALL_HB_KERNEL_AUTO,         /* the per-order table */
  SQUALL_HB_KERNEL_SWEEP,        /* a layer sweep of several elements per block, a thread per element column (N <= 9) */
  SQUALL_HB_KERNEL_LAYERS,       /* one element per block (or a few at N = 5), a thread per node of a layer, L layers per step */
  SQUALL_HB_KERNEL_LAYERS_TILED, /* the layer kernel with two nodes per thread, (i, j) and (i, j + ceil(Nq / 2)) */
  SQUALL_HB_KERNEL_MMA           /* the contractions on the FP64 tensor cores (double, N = 7 and 15, compute capability >= 8.0) */
} SquallHBKernel;

/* where the element kernels get the geometric factors (-hb_geometry); AUTO is resolved by the caller */
typedef enum {
  SQUALL_HB_GEOMETRY_STORED,    /* 6 packed factors per node */
  SQUALL_HB_GEOMETRY_TRILINEAR, /* 8 vertices per element (relative to vertex 0): J, |J|, J^{-1} and the factors at each node */
  SQUALL_HB_GEOMETRY_AFFINE,    /* one symmetric 3x3 |J| J^{-1} J^{-T} per element, times the node's weight */
  SQUALL_HB_GEOMETRY_AUTO       /* affine if every element is a parallelepiped, trilinear if straight-sided, else stored */
} SquallHBGeometry;

/* reals per element of the trilinear (24: vertex 0 included, so that an element's block stays 16-byte aligned)
   and affine geometry */
#define SQUALL_HB_NVERT_REALS 24

/* the orders -hb_kernel mma is compiled for: its 8 x 8 x 4 tiles divide Nq = N + 1 (N = 7, 15); double precision only
   (FP64 tensor cores). A constant expression, for the C options and the CUDA templates alike */
#define SQUALL_HB_MMA_ORDER(N) (PetscDefined(USE_REAL_DOUBLE) && ((N) == 7 || (N) == 15))

/* the highest order of the CUDA kernels (squall's SQUALL_LGL_MAX_ORDER; src/ksp/hbimpl.h checks that they agree) */
#define SQUALL_HB_MAX_ORDER 15
/* the highest order the sweep kernel is compiled for (Nq <= 10) */
#define SQUALL_HB_SWEEP_MAX_ORDER 9

typedef struct _n_SquallHBCUDA *SquallHBCUDA;

/* The operator A = Z^T S_L Z + lambda I as the device code needs it. Host arrays (uploaded on the
   first device product): per element node gidx (local node index, owned then ghosts, -1 where masked),
   G (6 geometric factors, packed per node); D (Nq x Nq); Z^T as CSR (rowptr, col) over the nown + nghost
   local nodes. Elements [0, nint) read no ghost. The geometry of the mode
   in use: G (stored), V (trilinear: 24 reals per element), F (affine: 6 per element); r, w the GLL nodes
   and weights. */
typedef struct {
  MPI_Comm         comm;
  PetscInt         N, Nq, Np;
  PetscInt         nelem, nint;
  PetscInt         nown, nshared, nghost; /* owned rows (the shared ones last), ghosts */
  PetscInt         nsingle;               /* the first owned rows, of one element copy each, which the element kernels write (0: none) */
  const PetscInt  *gidx, *rowptr, *col;
  const PetscReal *G, *D;
  const PetscReal *V, *F, *r, *w;
  SquallHBGeometry geometry; /* never AUTO here */
  PetscReal        lambda;
  PetscSF          sfx, sfy;         /* owned -> ghost values of x; ghost rows -> shared rows of y */
  PetscBool        overlap;          /* hide the halo exchanges behind the interior work */
  PetscBool        atomic;           /* Z^T by atomic adds from the element kernels (with p.Ap there), not CSR row sums */
  SquallHBKernel   kernel;           /* never AUTO here: the caller resolves it */
  PetscInt         layers, elements; /* layers per step (layer kernels: 2, 3, 4), elements per block (layers: 1, at N = 5 also 2, 3, 4, 6) */
  PetscLogEvent    ev_localop, ev_gather;
  SquallHBCUDA     cuda; /* device copy, made on the first device product */
} SquallHBOpDesc;

/* y = A x; with wantdot the local x.y, into *xdoty (synchronises) or, with dxdoty (device memory), left there */
PETSC_INTERN PetscErrorCode SquallHBMultCUDA(SquallHBOpDesc *, Vec x, Vec y, PetscBool wantdot, PetscReal *xdoty, PetscReal *dxdoty);
PETSC_INTERN PetscErrorCode SquallHBDestroyCUDA(SquallHBOpDesc *);
/* whether the current GPU runs -hb_kernel mma at order N (false without a GPU, or where mma is not compiled) */
PETSC_INTERN PetscErrorCode SquallHBMmaUsableCUDA(PetscInt N, PetscBool *usable);

/* fused CG vector work; dots[] = (r.z, r.r, z.z) local to the rank */
enum { SQUALL_HBCG_RZ, SQUALL_HBCG_RR, SQUALL_HBCG_ZZ, SQUALL_HBCG_NDOTS };
/* pap NULL: the update with the given alpha; else with the device's alpha (SquallHBCGAlphaCUDA()), and the device's
   p.Ap is returned in *pap with the dots */
PETSC_INTERN PetscErrorCode SquallHBCGUpdateCUDA(PetscReal alpha, PetscReal *pap, Vec W, Vec R, Vec dinv, Vec Z, Vec P, Vec X, PetscLogEvent ev_solution, PetscReal dots[]);
/* one rank: where the operator leaves p.Ap on the device, and alpha formed from it there */
PETSC_INTERN PetscErrorCode SquallHBCGDeviceDot(PetscReal **pap);
PETSC_INTERN PetscErrorCode SquallHBCGAlphaCUDA(PetscBool first, PetscBool pc);
PETSC_INTERN PetscErrorCode SquallHBCGDotsCUDA(Vec R, Vec dinv, Vec Z, PetscReal dots[]);
/* p = z + beta p (first: p = z); with X, x += alpha p in the same pass, before p changes */
PETSC_INTERN PetscErrorCode SquallHBCGDirectionCUDA(PetscBool first, PetscReal beta, Vec Z, Vec P, PetscReal alpha, Vec X);
