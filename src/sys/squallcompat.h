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
