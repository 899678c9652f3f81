/* Registration of squall's KSP types. */
#include "sys/squallimpl.h"

PetscErrorCode SquallKSPRegisterAll(void)
{
  PetscFunctionBegin;
  PetscCall(KSPRegister(SQUALL_KSPHBCG, KSPCreate_HBCG));
  PetscFunctionReturn(PETSC_SUCCESS);
}
