#pragma once
/* Test tolerances that follow the precision PETSc was built with.

   SQUALL_TOL(d, k): the double-precision tolerance d of a test, or k machine epsilons where that is larger.
   k * PETSC_MACHINE_EPSILON is the round-off bound of the checked quantity (k counts the operations, or the
   condition of the problem, that the comment next to each use names); every use keeps k * 2.2e-16 <= d, so in
   double the test is exactly as strict as d says, and in single (eps = 1.2e-7), where d is below round-off,
   the bound is k eps. */
#include <petscsys.h>

#define SQUALL_TOL(d, k) PetscMax((PetscReal)(d), (PetscReal)(k)*PETSC_MACHINE_EPSILON)
