/* Terrain and terrain-following vertical coordinates, pointwise (shared by the DG mesh, the P1 mesh
   and the CUDA kernels).

   Terrain h(x, y), split into a large-scale part h1 and a small-scale part h2 (h = h1 + h2) for the
   SLEVE coordinate:
   - Schaer's mountain, h = h0 exp(-(x/a)^2) cos^2(pi x/lambda) (C. Schaer, D. Leuenberger, O. Fuhrer,
     D. Luethi, C. Girard, Mon. Wea. Rev. 130 (2002) 2459-2480): cos^2 = (1 + cos(2 pi x/lambda))/2 splits
     it exactly, h1 = h0/2 exp(-(x/a)^2), h2 = h1 cos(2 pi x/lambda);
   - the bell-shaped hill h = h0/(1 + r^2/a^2)^(3/2), r the distance to its centre: all large-scale.

   Vertical coordinate zeta in [0, H] (height above the bottom of the flat reference column) mapped to
   the height z above the same bottom:
   - Gal-Chen and Somerville (J. Comput. Phys. 17 (1975) 209-228): z = zeta + h (1 - zeta/H);
   - SLEVE (Schaer et al. 2002): z = zeta + h1 b1(zeta) + h2 b2(zeta), b_i = sinh((H - zeta)/s_i)/sinh(H/s_i),
     so each part of the terrain decays with its own scale s_i and the upper levels are smooth.
   Both are exact at zeta = 0 (z = h) and zeta = H (z = H). */
#pragma once

#include "physics/hostdevice.h"

typedef enum { SQUALL_TERRAIN_NONE, SQUALL_TERRAIN_SCHAER, SQUALL_TERRAIN_BELL } SquallTerrainType;

typedef enum { SQUALL_VCOORD_GAL_CHEN, SQUALL_VCOORD_SLEVE } SquallVerticalCoordinate;

typedef struct {
  SquallTerrainType        type;
  PetscReal                h0, a, lambda; /* height, half-width, wavelength of Schaer's ripples (m) */
  PetscReal                xc, yc;        /* centre of the mountain */
  SquallVerticalCoordinate vcoord;
  PetscReal                s1, s2; /* SLEVE decay scales of h1 and h2 (m) */
} SquallTerrain;

/* the two parts of the terrain height at (x, y) */
SQUALL_HOST_DEVICE static inline void SquallTerrainHeight(const SquallTerrain *t, PetscReal x, PetscReal y, PetscReal *h1, PetscReal *h2)
{
  const PetscReal dx = x - t->xc, dy = y - t->yc;

  *h1 = 0;
  *h2 = 0;
  if (t->type == SQUALL_TERRAIN_SCHAER) {
    const PetscReal e = t->h0 / 2 * PetscExpReal(-(dx / t->a) * (dx / t->a));
    *h1               = e;
    *h2               = e * PetscCosReal(2 * PETSC_PI * dx / t->lambda);
  } else if (t->type == SQUALL_TERRAIN_BELL) {
    const PetscReal q = 1 + (dx * dx + dy * dy) / (t->a * t->a);
    *h1               = t->h0 / (q * PetscSqrtReal(q));
  }
}

/* height above the bottom of the node at reference height zeta in a column of height H over terrain
   (h1, h2); zeta = H maps to H exactly (a flat model top) */
SQUALL_HOST_DEVICE static inline PetscReal SquallTerrainFollowingHeight(const SquallTerrain *t, PetscReal zeta, PetscReal H, PetscReal h1, PetscReal h2)
{
  if (zeta == H) return H;
  if (t->vcoord == SQUALL_VCOORD_SLEVE) return zeta + h1 * PetscSinhReal((H - zeta) / t->s1) / PetscSinhReal(H / t->s1) + h2 * PetscSinhReal((H - zeta) / t->s2) / PetscSinhReal(H / t->s2);
  return zeta + (h1 + h2) * (1 - zeta / H);
}
