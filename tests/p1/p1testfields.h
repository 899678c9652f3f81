#pragma once
/* The coefficient fields of the P1 assembly tests: interpolate density, velocity and a nodal 3x3
   diffusivity from pointwise functions (each test scales its own to its mesh) and hand them to p1. */
#include <squall.h>

typedef PetscErrorCode (*P1TestPointFn)(const PetscReal x[3], PetscScalar f[], void *);

static inline PetscErrorCode P1TestSetFields(SquallP1 p1, P1TestPointFn rho, P1TestPointFn vel, P1TestPointFn tensor)
{
  Vec r, u, K;

  PetscFunctionBegin;
  PetscCall(SquallP1CreateVector(p1, 1, &r));
  PetscCall(SquallP1CreateVector(p1, 3, &u));
  PetscCall(SquallP1CreateVector(p1, 9, &K));
  PetscCall(SquallP1Interpolate(p1, 1, rho, NULL, r));
  PetscCall(SquallP1Interpolate(p1, 3, vel, NULL, u));
  PetscCall(SquallP1Interpolate(p1, 9, tensor, NULL, K));
  PetscCall(SquallP1SetMassCoefficient(p1, r));
  PetscCall(SquallP1SetVelocity(p1, u));
  PetscCall(SquallP1SetDiffusivity(p1, SQUALL_P1_NODE, K));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&K));
  PetscFunctionReturn(PETSC_SUCCESS);
}
