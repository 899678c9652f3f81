/* Registration of squall's KSP types. */
#include "sys/squallimpl.h"

PetscErrorCode SquallKSPRegisterAll(void)
{
  PetscFunctionBegin;
  PetscFunctionReturn(PETSC_SUCCESS);
}
