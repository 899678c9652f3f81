/* TS lsrk's interface to the stage updates that live elsewhere: the CUDA update kernel
   (src/cuda/lsrkcuda.cu) and the fused stages composed by RHS providers (the ESDG GPU RHS). */
#pragma once

#include <squall.h>
#include "physics/lsrkstage.h"
#include "cuda/lsrkkernels.h" /* SquallLSRKCompensation, the update kernel */

/* whether local entry i is compensated */
static inline PetscBool SquallLSRKCompensatedEntry(const SquallLSRKCompensation *c, PetscInt i)
{
  return (PetscBool)SquallLSRKFieldCompensated(c->mask, c->stride, c->nfields, i);
}

/* A whole stage, RHS and update, from whoever provides the RHS (composed on the TS as "SquallTSLSRKFusedStage_C"):
   K = a K + dt F(t, Q); Q = Q + b K, with comp (or NULL) as in the update kernels. *done false: not possible now
   (the caller evaluates F and updates). */
typedef PetscErrorCode (*SquallLSRKFusedStageFn)(TS ts, PetscReal t, Vec Q, Vec K, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b, PetscBool *done);
