/* The 2N-storage Runge-Kutta stage update kernel's interface (src/cuda/lsrkcuda.cu), filled by TS lsrk
   (src/ts/lsrk.c). A private header (not installed). Without CUDA the function has a CPU stub
   (src/ts/lsrkcudastub.c). */
#pragma once

#include <petscvec.h>

/* The compensated (Kahan) update of the solution (-ts_lsrk_compensated, -ts_lsrk_compensated_fields):
   C holds the low-order part of each update that the addition to Q rounded away. mask 0: every entry;
   else only the entries of the fields whose bits are set, the field of local entry i being
   (i / stride) % nfields (SquallTSLSRKSetFieldLayout()), so that a solver that needs it for its
   conserved densities pays one more pass over those alone; C's other entries are never touched. */
typedef struct {
  Vec      C;
  PetscInt stride, nfields, mask;
} SquallLSRKCompensation;

/* the fused stage update K = a K + dt F; Q = Q + b K on device vectors (comp: compensated, or NULL) */
PETSC_EXTERN PetscErrorCode SquallLSRKStageUpdateCUDA(Vec Q, Vec K, Vec F, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b);
