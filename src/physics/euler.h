/* Pointwise physics of the compressible Euler equations with gravity, written once for the C
   reference and the CUDA kernels (as libCEED keeps its QFunctions). State q = (rho, rho u, rho v,
   rho w, E) with E = p/(gamma-1) + rho|u|^2/2 + rho Phi and Phi = g z.

   Entropy-conservative two-point flux with the non-symmetric gravity term:
     M. Waruszewski, J. E. Kozdon, L. C. Wilcox, T. H. Gibson, F. X. Giraldo, "Entropy stable
     discontinuous Galerkin methods for balance laws in non-conservative form: Applications to the
     Euler equations with gravity", J. Comput. Phys. 468 (2022) 111507.
   Its symmetric part is the kinetic-energy-preserving EC flux of P. Chandrashekar, Commun. Comput.
   Phys. 14 (2013) 1252-1286. Matrix dissipation: A. R. Winters, D. Derigs, G. J. Gassner, S. Walch,
   J. Comput. Phys. 332 (2017) 274-289, appendix A. Logarithmic mean: H. Ranocha et al., ACM TOMS
   (2023), "Efficient implementation of modern entropy stable and kinetic energy preserving DG
   methods for conservation laws". */
#pragma once

#include "physics/hostdevice.h"

typedef struct {
  PetscReal gamma; /* ratio of specific heats */
  PetscReal R;     /* gas constant, J/(kg K) */
  PetscReal g;     /* gravitational acceleration, m/s^2 (Phi = g z) */
} SquallGas;

/* per-node auxiliary values, computed once per node so the pair loop needs no division or log */
enum { SQ_RHO, SQ_U, SQ_V, SQ_W, SQ_P, SQ_B, SQ_PHI, SQ_LOGRHO, SQ_LOGB, SQUALL_NAUX };

typedef enum { SQUALL_FLUX_EC, SQUALL_FLUX_ES, SQUALL_FLUX_RUSANOV } SquallSurfaceFluxType;
