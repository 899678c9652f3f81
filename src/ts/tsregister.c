/* Registration of squall's TS types. */
#include "sys/squallimpl.h"

PetscErrorCode SquallTSRegisterAll(void)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}
