/* The ESDG semi-discretisation's internals, shared by the C reference and the CUDA kernels' host side. */
#pragma once

#include "dm/dgmeshimpl.h"
#include <petscsf.h>
#include "physics/euler.h"
#include "ts/lsrkimpl.h"
#include "cuda/squallcuda.h"

typedef enum { SQUALL_CORIOLIS_NONE, SQUALL_CORIOLIS_FPLANE, SQUALL_CORIOLIS_BETAPLANE } SquallCoriolisType;
PETSC_EXTERN const char *const SquallCoriolisTypes[];
PETSC_EXTERN const char *const SquallSurfaceFluxTypes[];

struct _n_SquallESDG {
  MPI_Comm              comm;
  SquallDGMesh          mesh;
  SquallGas             gas;
  SquallSurfaceFluxType surface;
  SquallCoriolisType    coriolis;
  PetscReal             f0, beta0, y0; /* Coriolis parameter f(y) = f0 + beta0 (y - y0) */
  PetscReal             cfl;           /* > 0: time step from the maximum wave speed after every step */
  PetscInt              monitor_every; /* > 0: print diagnostics every so many steps */
  PetscBool             setup;
  PetscBool             useGPU;   /* the vectors are device vectors */
  Vec                   Qloc;     /* local (ghosted) state; only the ghost face nodes are filled */
  PetscSF               ghostSF;  /* global -> Qloc for those face nodes (src/ts/esdgghost.c) */
  PetscReal            *Phi;      /* [nOwned+nGhost][Np] geopotential g z at the nodes */
  PetscBool             boxPhiZ;  /* Cartesian, and Phi constant (bit for bit) over every k-plane of every owned element */
  PetscReal            *work;     /* per-element scratch: aux and the RHS accumulator */
  double                diag0[3]; /* mass, energy, entropy at the first monitor call */
  PetscBool             diag0set;
  PetscBool             gpuHalf;         /* GPU volume kernel: each node pair once (half sweep) or twice */
  PetscInt              gpuPrefetch;     /* GPU half sweep: L2 prefetch of the inputs of the blocks ahead: 0 none, 1 those loaded first, 2 also the fused stage's */
  PetscReal             gpuPrefetchDist; /* how far ahead, in waves of resident blocks */
  PetscInt              gpuSurface;      /* GPU face fluxes: 0 once per face (face kernel), 1 per element side */
  PetscBool             useRef;          /* -esdg_reference_residual: the test cases set their background as reference */
  Vec                   Fref;            /* the discrete residual of the reference state, subtracted from every RHS */
  Vec                   Qref;            /* the reference state itself */
  Vec                   QrefLoc;         /* its ghost face-node values */
  PetscBool             perturb;         /* -esdg_perturbation: the TS state is Q - Qref */
  PetscBool             refCont;         /* Qref is equal bit for bit on both sides of every interior face */
  PetscBool             pertPressure;    /* -esdg_perturbation_pressure: the momentum flux's pressure from the departures (C reference) */
  Vec                   Xloc;            /* ghost face-node values of the TS state (C reference with departures) */
  Vec                   Qfull;           /* work: Qref + the TS state (SquallESDGGetFullState) */
  void                 *cuda;            /* device data, owned by src/cuda */
  /* the test case and its parameters as checkpoints record them (SquallESDGSetCheckpointCase(); src/ts/esdgio.c) */
  char     caseName[32];
  PetscInt ncaseParams;
  char     caseKey[16][40], caseValue[16][120];
};

typedef struct {
  PetscReal mass, energy, entropy, maxw, minrho, minp;
} SquallESDGDiagnostics;

PETSC_INTERN PetscErrorCode SquallESDGComputeRHS_CPU(SquallESDG, PetscReal, Vec Q, Vec X, Vec F);
PETSC_INTERN PetscErrorCode SquallESDGCreateGhostSF(SquallESDG);
PETSC_EXTERN PetscErrorCode SquallESDGGhostBegin(SquallESDG, PetscMemType, const PetscScalar *q, PetscScalar *qloc);
PETSC_EXTERN PetscErrorCode SquallESDGGhostEnd(SquallESDG, const PetscScalar *q, PetscScalar *qloc);

/* the GPU path (src/cuda/esdgcuda.cu, declared in src/cuda/squallcuda.h), used when the DM's vectors are device vectors */
PETSC_EXTERN PetscErrorCode    SquallESDGVolumeFlops(SquallESDG, PetscBool half, PetscLogDouble *);
PETSC_EXTERN const char *const SquallESDGGPUSurfaceTypes[];
