/* The 2N-storage Runge-Kutta stage update of one entry, K = a K + dt F; Q = Q + b K, written once for
   the update kernel (src/cuda/lsrkcuda.cu) and the ESDG volume kernel that fuses it into the RHS
   (src/cuda/esdgcuda.cu). The fused multiply-adds are explicit, so that both kernels round alike
   whatever the compiler contracts: the fused stage gives the same solution bit for bit (tested).
   The first stage has a = 0: K's old contents (uninitialised there) are not read. */
#pragma once

#include "physics/hostdevice.h"
#include <math.h>

#if defined(PETSC_USE_REAL_SINGLE)
#  define SquallFMA_Private fmaf
#else
#  define SquallFMA_Private fma
#endif

SQUALL_HOST_DEVICE static inline void SquallLSRKStage(PetscReal a, PetscReal dt, PetscReal b, PetscScalar f, PetscScalar *k, PetscScalar *q)
{
  const PetscScalar kn = SquallFMA_Private(dt, f, a == 0 ? (PetscScalar)0 : a * *k);

  *k = kn;
  *q = SquallFMA_Private(b, kn, *q);
}

/* whether local entry i gets the compensated update: every entry (mask 0), or those of the fields whose bits mask sets,
   entry i being of field (i / stride) % nfields */
SQUALL_HOST_DEVICE static inline int SquallLSRKFieldCompensated(PetscInt mask, PetscInt stride, PetscInt nfields, PetscInt i)
{
  return !mask || ((mask >> ((i / stride) % nfields)) & 1);
}

/* The same with the compensated (Kahan) update of q, c its carried error: the product b k enters through one
   explicit FMA, so that the update kernel and the fused stage round it alike (the product and the subtraction of c
   would otherwise be contracted or not at the compiler's choice); c as in SquallKahanAdd() */
SQUALL_HOST_DEVICE static inline void SquallLSRKStageCompensated(PetscReal a, PetscReal dt, PetscReal b, PetscScalar f, PetscScalar *k, PetscScalar *q, PetscScalar *c)
{
  const PetscScalar kn = SquallFMA_Private(dt, f, a == 0 ? (PetscScalar)0 : a * *k);
  const PetscScalar y = SquallFMA_Private(b, kn, -*c), t = *q + y;

  *k = kn;
  *c = (t - *q) - y;
  *q = t;
}
