/* Array options that take a fixed number of values. PETSc's array readers stop at the size of the
   array and report fewer values, so a value too many would be dropped without a word: the option's
   text is counted here instead. */
#include "sys/squallimpl.h"

/*@C
  SquallOptionsCheckArrayCount - after an array option was read, checks that it was given with
  `count` values, or with `alt` values (alt <= 0: no alternative); the error names the option, the
  values it takes and the text given.
@*/
PetscErrorCode SquallOptionsCheckArrayCount(MPI_Comm comm, const char prefix[], const char opt[], PetscInt count, PetscInt alt)
{
  char      text[PETSC_MAX_PATH_LEN] = "";
  PetscBool set;
  PetscInt  n = 1;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(NULL, prefix, opt, text, sizeof(text), &set));
  if (!set) PetscFunctionReturn(PETSC_SUCCESS);
  for (const char *c = text; *c; c++) n += *c == ',';
  if (!text[0]) n = 0;
  if (alt > 0)
    PetscCheck(n == count || n == alt, comm, PETSC_ERR_ARG_SIZ, "-%s%s takes %" PetscInt_FMT " or %" PetscInt_FMT " values, not %" PetscInt_FMT " (%s)", prefix ? prefix : "", opt + 1, alt, count, n, text);
  else
    PetscCheck(n == count, comm, PETSC_ERR_ARG_SIZ, "-%s%s takes %" PetscInt_FMT " values, not %" PetscInt_FMT " (%s)", prefix ? prefix : "", opt + 1, count, n, text);
  PetscFunctionReturn(PETSC_SUCCESS);
}
