/* The ESDG semi-discretisation's internals, shared by the C reference and the CUDA kernels' host side. */
#pragma once

#include "dm/dgmeshimpl.h"
#include <petscsf.h>
#include "physics/euler.h"
#include "physics/sponge.h"
#include "ts/lsrkimpl.h"
#include "cuda/esdgkernels.h"

typedef enum { SQUALL_CORIOLIS_NONE, SQUALL_CORIOLIS_FPLANE, SQUALL_CORIOLIS_BETAPLANE, SQUALL_CORIOLIS_SPHERE } SquallCoriolisType;
PETSC_EXTERN const char *const SquallCoriolisTypes[];
/* the geopotential on the shell: shallow Phi = g (r - a), deep Phi = -G M / r + G M / a with G M = g a^2 */
typedef enum { SQUALL_GRAVITY_SHALLOW, SQUALL_GRAVITY_DEEP } SquallGravityModel;
PETSC_EXTERN const char *const SquallGravityModels[];
PETSC_EXTERN const char *const SquallSurfaceFluxTypes[];

typedef struct _n_SquallESDGColumn *SquallESDGColumn;

struct _n_SquallESDG {
  MPI_Comm              comm;
  char                 *prefix; /* options prefix of the solver and its mesh (default "esdg_") */
  SquallDGMesh          mesh;
  SquallGas             gas;
  SquallSurfaceFluxType surface;
  SquallCoriolisType    coriolis;
  PetscReal             f0, beta0, y0; /* Coriolis parameter f(y) = f0 + beta0 (y - y0) */
  PetscReal             omega;         /* -esdg_coriolis sphere: the rotation rate, along z (then f0 = 2 omega) */
  SquallGravityModel    gravityModel;  /* -esdg_gravity_model on the shell (the brick: Phi = g z) */
  PetscReal             cfl;           /* > 0: time step from the maximum wave speed after every step */
  PetscBool             cflChecked;    /* the CFL has been compared with the scheme's stable limit */
  PetscInt              monitor_every; /* > 0: print diagnostics every so many steps */
  PetscBool             setup;
  PetscBool             memCheck; /* -esdg_memory_check: refuse a mesh whose estimated memory exceeds what is available */
  PetscBool             useGPU;   /* the vectors are device vectors */
  Vec                   Qloc;     /* local (ghosted) state; only the ghost face nodes are filled */
  PetscSF               ghostSF;  /* global -> Qloc for those face nodes (src/ts/esdgghost.c) */
  PetscReal            *Phi;      /* [nOwned+nGhost][Np] geopotential g z at the nodes */
  PetscBool             boxPhiZ;  /* Cartesian, and Phi constant (bit for bit) over every k-plane of every owned element */
  PetscReal            *work;     /* per-element scratch: aux and the RHS accumulator */
  double                diag0[3]; /* mass, energy, entropy at the first monitor call */
  PetscBool             diag0set;
  PetscReal             gpuPrefetchWaves; /* -esdg_gpu_prefetch_waves: how far ahead the GPU volume kernel prefetches its inputs into L2 */
  PetscBool             useRef;           /* -esdg_reference_residual: the test cases set their background as reference */
  Vec                   Fref;             /* the discrete residual of the reference state, subtracted from every RHS */
  Vec                   Qref;             /* the reference state itself */
  Vec                   QrefLoc;          /* its ghost face-node values */
  PetscBool             perturb;          /* -esdg_perturbation: the TS state is Q - Qref */
  PetscBool             refCont;          /* Qref is equal bit for bit on both sides of every interior face */
  PetscBool             pertPressure;     /* -esdg_perturbation_pressure: the momentum flux's pressure from the departures (C reference) */
  Vec                   Xloc;             /* ghost face-node values of the TS state (C reference with departures) */
  Vec                   Qfull;            /* work: Qref + the TS state (SquallESDGGetFullState) */
  /* the GPU path (src/ts/esdggpu.c) */
  SquallESDGKernels gpu;                          /* device data and kernels (src/cuda/esdgkernels.h) */
  PetscInt          gpuFacesEarly, gpuFacesGhost; /* computed faces without, then with a ghost side */
  PetscInt          gpuInterior, gpuHalo;         /* elements without, then with a ghost neighbour */
  Vec               gpuNextVec;                   /* the state the last fused LSRK stage wrote, while unchanged (gpuNextState) */
  PetscObjectState  gpuNextState;
  PetscBool         gpuNextBad; /* and that stage's verdict on it (all ranks): the next stage's check needs no pass of its own */
  /* HEVI (src/ts/esdgimex.c): F = F_H + F_V, F_V implicit through TS ARKIMEX */
  int                rhsParts;    /* the terms the RHS forms (SQUALL_ESDG_*_TERMS of src/cuda/esdgkernels.h): all, but while a part is evaluated */
  Vec                FrefPart[3]; /* the reference residual of each part ([SQUALL_ESDG_PART_ALL] unused: s->Fref) */
  SquallESDGIMEXType imex;        /* -esdg_imex */
  SquallESDGColumn   column;      /* the lines of nodes and the blocks of dF_V/dq (src/ts/esdgcolumn.h) */
  Mat                Pv;          /* the IJacobian's matrix shift I - dF_V/dq, carrying the column data */
  PetscInt           nJac;        /* Jacobians formed, IFunctions evaluated */
  PetscInt           nIFunc;
  /* while domainSoft is set (ARKIMEX's evaluations of F_H and of the IFunction), an unphysical state in the
     RHS sets domainBad instead of raising an error: SNES reports a domain error, the TS rejects the stage */
  PetscBool domainSoft, domainBad;
  /* Rayleigh sponge (-esdg_sponge_rate, -esdg_sponge_top, -esdg_sponge_lateral): -tau (q - Qsponge) */
  SquallSponge sponge;
  PetscReal   *tau;        /* [nOwned][Np] the coefficient at the nodes, once; NULL without a sponge */
  PetscInt     nSponge;    /* owned nodes with tau > 0 */
  Vec          Qsponge;    /* the state damped towards: the case's background with its mean wind */
  PetscBool    spongeHold; /* set while the reference residual is formed: F(Qref) without the sponge */
  /* the test case and its parameters as checkpoints record them (SquallESDGSetCheckpointCase(); src/ts/esdgio.c) */
  char     caseName[32];
  PetscInt ncaseParams;
  char     caseKey[16][40], caseValue[16][120];
};

PETSC_INTERN PetscErrorCode SquallESDGSetUpIMEX(SquallESDG, TS);
PETSC_INTERN PetscErrorCode SquallESDGDestroyIMEX(SquallESDG);
PETSC_INTERN PetscErrorCode SquallESDGComputeRHS_CPU(SquallESDG, PetscReal, Vec Q, Vec X, Vec F);
PETSC_INTERN PetscErrorCode SquallESDGCreateGhostSF(SquallESDG);
PETSC_INTERN PetscErrorCode SquallESDGSpongeSetUp(SquallESDG);
PETSC_INTERN PetscErrorCode SquallESDGSpongeCheck(SquallESDG);
PETSC_INTERN PetscErrorCode SquallESDGAddSponge_CPU(SquallESDG, Vec Q, Vec F);
PETSC_EXTERN PetscErrorCode SquallESDGGhostBegin(SquallESDG, PetscMemType, const PetscScalar *q, PetscScalar *qloc);
PETSC_EXTERN PetscErrorCode SquallESDGGhostEnd(SquallESDG, const PetscScalar *q, PetscScalar *qloc);

/* flops of one volume evaluation on this rank (each unordered node pair once), as logged */
PETSC_INTERN PetscErrorCode SquallESDGVolumeFlops(SquallESDG, PetscLogDouble *);

/* the GPU path (src/ts/esdggpu.c), used when the DM's vectors are device vectors */
PETSC_INTERN PetscErrorCode SquallESDGSetUpGPU(SquallESDG);
PETSC_INTERN PetscErrorCode SquallESDGComputeRHS_GPU(SquallESDG, Vec Q, Vec F);
PETSC_INTERN PetscErrorCode SquallESDGStage_GPU(SquallESDG, Vec Q, Vec K, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b, PetscBool *done);
PETSC_INTERN PetscErrorCode SquallESDGNodeReduceGPU(SquallESDG, Vec, PetscReal *lmax, PetscInt *nbad);
PETSC_INTERN PetscErrorCode SquallESDGStageVerdictGPU(SquallESDG, Vec, PetscBool *known, PetscBool *bad);

/* GPU tuning defaults per order N (index N - 1), measured on one H200 (docs/performance.md) */
typedef struct {
  PetscReal prefetchWaves; /* -esdg_gpu_prefetch_waves */
} SquallESDGGPUDefaults;
PETSC_INTERN const SquallESDGGPUDefaults SquallESDGGPUDefaultsByOrder[8];
