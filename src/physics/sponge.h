/* Rayleigh damping towards a reference state in absorbing layers, pointwise (C reference and CUDA).

   The source is -tau(x) (q - q_ref). tau rises smoothly from 0 to the rate over each layer with the
   sin^2 profile of J. B. Klemp and D. K. Lilly (J. Atmos. Sci. 35 (1978) 78-107) and D. R. Durran and
   J. B. Klemp (Mon. Wea. Rev. 111 (1983) 2341-2361): a top layer from z0 to the model top, and lateral
   layers of a given width at both ends of the x (and, if set, y) extent; where layers overlap the larger
   coefficient applies. */
#pragma once

#include "physics/hostdevice.h"

typedef struct {
  PetscReal rate;         /* 1/s; 0: no sponge */
  PetscReal z0, ztop;     /* top layer [z0, ztop]; z0 >= ztop: none */
  PetscReal width[2];     /* lateral layers in x and y; 0: none */
  PetscReal lo[2], hi[2]; /* horizontal extent of the domain */
} SquallSponge;

SQUALL_HOST_DEVICE static inline PetscReal SquallSpongeRamp(PetscReal s)
{
  const PetscReal t = PetscSinReal((PetscReal)(PETSC_PI / 2) * s);

  return s <= 0 ? 0 : (s >= 1 ? 1 : t * t);
}

/* tau at the point (x, y, z) */
SQUALL_HOST_DEVICE static inline PetscReal SquallSpongeCoefficient(const SquallSponge *sp, PetscReal x, PetscReal y, PetscReal z)
{
  const PetscReal X[2] = {x, y};
  PetscReal       s    = sp->z0 < sp->ztop ? (z - sp->z0) / (sp->ztop - sp->z0) : 0;

  for (int d = 0; d < 2; d++) {
    if (sp->width[d] > 0) {
      const PetscReal sl = (sp->lo[d] + sp->width[d] - X[d]) / sp->width[d], sr = (X[d] - (sp->hi[d] - sp->width[d])) / sp->width[d];
      s = sl > s ? sl : s;
      s = sr > s ? sr : s;
    }
  }
  return sp->rate * SquallSpongeRamp(s);
}
