/* Compensated (Kahan) accumulation, written once for the C reference and the CUDA kernels.

   s += x loses the part of x below half an ulp of s; c carries it (c holds the negated running error,
   Kahan 1965; Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., sec. 4.3), so that a
   sum of many small increments into a large value, the time integration of a nearly steady state in
   single precision, keeps the increments. Compile without value-changing optimisations
   (-ffast-math would simplify (t - s) - y to 0). */
#pragma once

#include "physics/hostdevice.h"

SQUALL_HOST_DEVICE static inline void SquallKahanAdd(PetscScalar *s, PetscScalar *c, PetscScalar x)
{
  const PetscScalar y = x - *c, t = *s + y;

  *c = (t - *s) - y;
  *s = t;
}
