/* What differs between the PETSc versions squall supports (3.22 to 3.26), in one place. */
#pragma once

#include <petscversion.h>
#include <petscsys.h>

/* SetFromOptions implementations receive the option items by value from PETSc 3.23 on */
#if PETSC_VERSION_GE(3, 23, 0)
typedef PetscOptionItems SquallOptionItems;
#else
typedef PetscOptionItems *SquallOptionItems;
#endif

/* Context destroy callbacks (MatShellSetContextDestroy, PetscObjectContainerCompose) receive the address of the
   context from PETSc 3.23 on, the context itself before; SQUALL_CTX(ptr) is the context in both. */
#if PETSC_VERSION_GE(3, 23, 0)
#  define SQUALL_CTX(ptr) (*(void **)(ptr))
#  define SquallCtxDestroyDefault PetscCtxDestroyDefault
#else
#  define SQUALL_CTX(ptr) ((void *)(ptr))
#  define SquallCtxDestroyDefault PetscContainerUserDestroyDefault
#endif

/* PetscErrorMessage() returns the specific message as const char * from PETSc 3.23 on */
#if PETSC_VERSION_GE(3, 23, 0)
typedef const char *SquallErrorText;
#else
typedef char             *SquallErrorText;
#endif

/* PetscBool is C's bool from PETSc 3.24 on, whose MPI type is MPI_C_BOOL */
#if PETSC_VERSION_GE(3, 24, 0)
#  define SQUALL_MPI_BOOL MPI_C_BOOL
#else
#  define SQUALL_MPI_BOOL MPIU_BOOL
#endif
