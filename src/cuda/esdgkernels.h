/* The ESDG GPU kernels' interface (src/cuda/esdgcuda.cu). The solver (src/ts/esdggpu.c) fills the
   descriptors below with plain host or device arrays and scalars; nothing here knows the solver or
   the mesh objects. A private header (not installed). Without CUDA every function has a CPU stub
   (src/ts/esdgcudastub.c). */
#pragma once

#include <petscsys.h>
#include <limits.h>
#include "physics/euler.h"

/* the terms of the RHS one evaluation forms (SquallESDGKernelArgs.parts, and the C reference's): bit d
   the flux differencing along reference direction d and the faces normal to it, SQUALL_ESDG_SOURCES the
   pointwise sources (Coriolis). HEVI's vertical part is direction 2, the horizontal one the rest. */
#define SQUALL_ESDG_DIRECTION(d) (1 << (d))
#define SQUALL_ESDG_SOURCES 8
#define SQUALL_ESDG_ALL_TERMS 15
#define SQUALL_ESDG_VERTICAL_TERMS SQUALL_ESDG_DIRECTION(2)
#define SQUALL_ESDG_HORIZONTAL_TERMS (SQUALL_ESDG_ALL_TERMS & ~SQUALL_ESDG_VERTICAL_TERMS)

/* face-node partner code of a wall (SquallESDGKernelsSetup.vmapP) */
#define SQUALL_ESDG_BOUNDARY INT_MIN

/* The device copy of the mesh and the geometry, made once. Host arrays, read only by
   SquallESDGKernelsCreate(); Nq = N + 1, Np = Nq^3, Nfp = Nq^2, S = nOwned * 6 * Nfp element face nodes. */
typedef struct {
  PetscInt         N;                        /* order, 1 to 8 */
  PetscInt         nOwned;                   /* owned elements */
  PetscInt         nInterior, nHalo;         /* elist: the elements without a ghost neighbour, then the others */
  PetscInt         nFacesEarly, nFacesGhost; /* faces: those without a ghost side, then those with one */
  const PetscInt  *gslot;                    /* [nOwned] the element's block in the process-local state */
  const PetscInt  *elist;                    /* [nOwned] */
  const PetscInt  *faces;                    /* [nFacesEarly + nFacesGhost] e*6+f of the faces computed here */
  const PetscInt  *vmapP;                    /* [S] partner of a face node: >= 0 gslot*Np+n into Q, < 0 -(slot*Np+n)-1 into Qloc, SQUALL_ESDG_BOUNDARY */
  const PetscInt  *plus;                     /* [S] for a computed face node with an owned partner, the partner's face-node index, else -1 */
  const PetscReal *PhiP;                     /* [S] the partner's Phi */
  const PetscReal *Phi, *J;                  /* [nOwned*Np] */
  const PetscReal *Ja;                       /* [nOwned*9*Np] J grad xi^d, [d][component][Np] per element */
  const PetscReal *D;                        /* [Nq*Nq] LGL differentiation matrix */
  const PetscReal *FG;                       /* [4][S] outward unit normal and s_f at every element face node */
  const PetscReal *FGF;                      /* [4][nOwned*6] the same per element face where all its nodes share them (boxes), or NULL */
  const PetscReal *fcor;                     /* [nOwned*Np] Coriolis parameter, or NULL */
  const PetscReal *tau;                      /* [nOwned*Np] Rayleigh sponge coefficient, or NULL (no sponge) */
  PetscReal        wb;                       /* LGL boundary weight */
  PetscBool        box;                      /* Cartesian elements with Phi = g z: the axis-contracted kernels without the x and y gravity terms */
  PetscReal        prefetchWaves;            /* > 0: the volume kernel prefetches into L2 the inputs of the block this many waves of resident blocks ahead */
} SquallESDGKernelsSetup;

/* One kernel launch's data: device pointers of the current vectors and the physics. */
typedef struct {
  SquallGas             gas;
  SquallSurfaceFluxType surface;
  const PetscScalar    *Q;       /* state (the TS state: in perturbation form the departure from Qref) */
  const PetscScalar    *Qloc;    /* ghost face-node values of Q, or NULL before they have arrived */
  const PetscScalar    *Qref;    /* perturbation form: the reference, added to Q as it is loaded; else NULL */
  const PetscScalar    *QrefLoc; /* and its ghost face-node values */
  PetscBool             refCont; /* the reference is equal bit for bit on both sides of every face */
  const PetscScalar    *Fref;    /* reference residual subtracted from the RHS, or NULL */
  const PetscScalar    *Qsponge; /* the sponge's target (a full state): -tau (q - Qsponge) is added; NULL: no sponge term */
  PetscScalar          *F;       /* the RHS (NULL in a fused LSRK stage) */
  int                   parts;   /* the terms formed (SQUALL_ESDG_DIRECTION(d), SQUALL_ESDG_SOURCES); 0 is all of them */
  /* a fused LSRK stage (K non-NULL): each node's RHS goes into K = la K + ldt F, Qw += lb K instead of F;
     with C the fields of cmask (bit f for field f) get the compensated update */
  PetscScalar *K, *Qw, *C;
  PetscReal    la, ldt, lb;
  int          cmask;
} SquallESDGKernelArgs;

typedef struct _n_SquallESDGKernels *SquallESDGKernels;

PETSC_EXTERN PetscErrorCode SquallESDGKernelsCreate(MPI_Comm, const SquallESDGKernelsSetup *, SquallESDGKernels *);
PETSC_EXTERN PetscErrorCode SquallESDGKernelsDestroy(SquallESDGKernels *);
/* the face kernel over faces[first, first + count): each face once, both sides' lifted fluxes stored */
PETSC_EXTERN PetscErrorCode SquallESDGKernelsFaces(SquallESDGKernels, const SquallESDGKernelArgs *, PetscInt first, PetscInt count);
/* the volume kernel (load-balanced half sweep) over elist[first, first + count), which also adds the
   faces' fluxes, divides by J, adds Coriolis, subtracts Fref, adds the sponge and stores F or does the fused stage */
PETSC_EXTERN PetscErrorCode SquallESDGKernelsVolume(SquallESDGKernels, const SquallESDGKernelArgs *, PetscInt first, PetscInt count);
/* max wave rate (lmax NULL: the admissibility check alone) and the number of nodes with density or
   pressure <= 0; synchronous, local to this rank */
PETSC_EXTERN PetscErrorCode SquallESDGKernelsReduce(SquallESDGKernels, const SquallESDGKernelArgs *, PetscReal *lmax, PetscInt *nbad);
/* the kernels' flags since the last call, cleared: [0] an inadmissible input state, [1] a fused stage
   wrote an inadmissible state; synchronous, local to this rank */
PETSC_EXTERN PetscErrorCode SquallESDGKernelsGetFlags(SquallESDGKernels, PetscInt flags[2]);
