/* The HEVI column kernels' interface (src/cuda/columncuda.cu): the finite-difference Jacobian of F_V
   in column blocks and the block Thomas factorisation and solve of -pc_type esdgcolumn. The callers
   (src/ts/esdgcolumn.c, src/ts/pccolumn.c) pass the layout of src/physics/columnlu.h with device
   arrays; nothing here knows the solver, the mesh, Mat or PC. A private header (not installed).
   Without CUDA every function has a CPU stub (src/ts/esdgcudastub.c). */
#pragma once

#include <petscsys.h>
#include "physics/columnlu.h"

/* zeroed device memory of any size (PETSc 3.22's PetscDeviceMalloc() counts bytes in PetscInt, so with 32-bit
   indices it cannot give the 2 GiB and more that the blocks of a large column Jacobian take), its release, and a
   copy from the host */
PETSC_EXTERN PetscErrorCode SquallColumnCallocCUDA(size_t bytes, void **);
PETSC_EXTERN PetscErrorCode SquallColumnFreeCUDA(void *);
PETSC_EXTERN PetscErrorCode SquallColumnCopyToDeviceCUDA(void *dst, const void *src, size_t bytes);
/* Xp[entry of (f, k)] = X + step, in every slot of class cls (Xp a copy of X) */
PETSC_EXTERN PetscErrorCode SquallColumnPerturbCUDA(const SquallColumnLayout *, PetscInt f, PetscInt k, PetscInt cls, PetscReal err, const PetscScalar *X, PetscScalar *Xp);
/* the Jacobian's columns of that colour from F0 = F(X), Fp = F(Xp) */
PETSC_EXTERN PetscErrorCode SquallColumnExtractCUDA(const SquallColumnLayout *, PetscInt f, PetscInt k, PetscInt cls, PetscReal err, const PetscScalar *X, const PetscScalar *F0, const PetscScalar *Fp, PetscScalar *J);
/* P = shift I - J, n = (m m + 50) nslot entries, and each stored entry also into the CSR values A at its place
   (SquallColumnCSRPosition() with the row pointer rowptr); returns when A is written */
PETSC_EXTERN PetscErrorCode SquallColumnShiftCUDA(const SquallColumnLayout *, const PetscInt *rowptr, PetscReal shift, const PetscScalar *J, PetscScalar *P, PetscScalar *A);
/* the factors of every line into LU (P's layout); *bad: lines with a zero pivot (synchronous) */
PETSC_EXTERN PetscErrorCode SquallColumnFactorCUDA(const SquallColumnLayout *, const PetscScalar *P, PetscScalar *LU, PetscInt *piv, PetscInt *bad);
/* x = P^{-1} b, line by line, with the factors */
PETSC_EXTERN PetscErrorCode SquallColumnSolveCUDA(const SquallColumnLayout *, const PetscScalar *LU, const PetscInt *piv, const PetscScalar *b, PetscScalar *x);
