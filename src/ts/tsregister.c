/* Registration of squall's TS types. */
#include "sys/squallimpl.h"

PetscErrorCode SquallTSRegisterAll(void)
{
  PetscFunctionBegin;
  PetscCall(TSRegister(SQUALL_TSLSRK, TSCreate_LSRK));
  PetscFunctionReturn(PETSC_SUCCESS);
}
