/* Private declarations shared across squall's layers: log events and registration hooks. */
#pragma once

#include <squall.h>
#include <petsc/private/petscimpl.h>

PETSC_INTERN PetscClassId SQUALL_CLASSID;

/* log events, registered once in SquallInitializePackage() */
PETSC_INTERN PetscLogEvent SQUALL_DGMeshSetUp;
PETSC_INTERN PetscLogEvent SQUALL_ESDGRHS;
PETSC_INTERN PetscLogEvent SQUALL_ESDGVolume;
PETSC_INTERN PetscLogEvent SQUALL_ESDGSurface;
PETSC_INTERN PetscLogEvent SQUALL_ESDGSource;
PETSC_INTERN PetscLogEvent SQUALL_LSRKUpdate;
PETSC_INTERN PetscLogEvent SQUALL_GPUCheck;

/* a type-registration hook per layer; each is called once from SquallInitializePackage() */
PETSC_INTERN PetscErrorCode SquallTSRegisterAll(void);
PETSC_INTERN PetscErrorCode SquallKSPRegisterAll(void);

/* type constructors, registered by the hooks above */
PETSC_INTERN PetscErrorCode TSCreate_LSRK(TS);
