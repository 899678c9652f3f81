/* HEVI's column blocks of J = dF_V/dq (src/ts/esdgcolumn.c) and the PC that solves with them
   (src/ts/pccolumn.c). Private. */
#pragma once

#include "ts/esdgimpl.h"
#include "physics/columnlu.h"

/* the name under which the matrix P = shift I - J of SquallESDGSetUpTS() carries its column data */
#define SQUALL_ESDG_COLUMN_KEY "SquallESDGColumn"

struct _n_SquallESDGColumn {
  SquallColumnLayout lay;    /* base on the backend of the state vector */
  PetscBool          device; /* the arrays are device arrays (the state vectors are CUDA vectors) */
  PetscInt          *base;   /* [nslot] owned copy of lay.base on the backend */
  PetscInt          *hbase;  /* [nslot] the same on the host (the matrix's pattern is built there) */
  PetscInt          *rowptr; /* [nloc + 1] on the backend: the matrix's CSR row pointer (SquallColumnCSRPosition()) */
  PetscInt          *level;  /* [nOwned] host: the element's level in its column */
  PetscInt          *line;   /* [nOwned * Nq^2] host: the line through the element's in-element position (i, j) */
  PetscInt           nclass; /* colour classes of element levels (2, or 3 on periodic columns of odd Kz), over all ranks */
  PetscScalar       *J;      /* [(m m + 50) nslot] the blocks of dF_V/dq (physics/columnlu.h's layout) */
  PetscScalar       *P;      /* the same for shift I - J, which the matrix's values copy */
  PetscReal          shift;
  Vec                Xp, F0, Fp; /* differencing work vectors */
};

/* the lines of nodes and the block storage; the Jacobian of F_V at (t, X); the matrix P = shift I - J */
PETSC_INTERN PetscErrorCode SquallESDGColumnCreate(SquallESDG, SquallESDGColumn *);
PETSC_INTERN PetscErrorCode SquallESDGColumnDestroy(SquallESDGColumn *);
PETSC_INTERN PetscErrorCode SquallESDGColumnComputeJacobian(SquallESDG, SquallESDGColumn, PetscReal t, Vec X);
PETSC_INTERN PetscErrorCode SquallESDGColumnCreateMatrix(SquallESDG, SquallESDGColumn, Mat *);
PETSC_INTERN PetscErrorCode SquallESDGColumnSetShift(SquallESDGColumn, PetscReal shift, Mat P);
/* the column data a matrix carries (NULL if none) */
PETSC_INTERN PetscErrorCode SquallESDGColumnFromMat(Mat, SquallESDGColumn *);
/* backend arrays: device memory when device, else host; zeroed */
PETSC_INTERN PetscErrorCode SquallESDGColumnCalloc(PetscBool device, size_t bytes, void **);
PETSC_INTERN PetscErrorCode SquallESDGColumnFree(PetscBool device, void *);
