#pragma once
/* What the ESDG test programs share: a TS lsrk on a solver (SquallESDGSetUpTS) with a fixed step. */
#include <squall.h>

/* the caller sets what its test needs (options, rejections) and destroys the TS */
static inline PetscErrorCode SquallTestCreateTS(SquallESDG s, PetscReal dt, PetscInt steps, PetscReal tmax, TS *ts)
{
  PetscFunctionBegin;
  PetscCall(TSCreate(PETSC_COMM_WORLD, ts));
  PetscCall(TSSetType(*ts, "lsrk"));
  PetscCall(SquallESDGSetUpTS(s, *ts));
  PetscCall(TSSetTimeStep(*ts, dt));
  PetscCall(TSSetMaxSteps(*ts, steps));
  PetscCall(TSSetMaxTime(*ts, tmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}
