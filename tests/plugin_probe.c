static char help[] = "A plain PETSc program that knows nothing of squall: with -ts_type lsrk -dll_append <libsquall> it must get TS lsrk\n"
                     "and solve u' = -u to t = 1; without -dll_append PETSc must report the type as unknown.\n";

/* Deliberately not linked to libsquall and without squall.h: the only way in is PETSc's dynamic loading. */
#include <petscts.h>

static PetscErrorCode RHS(TS ts, PetscReal t, Vec U, Vec F, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(VecAXPBY(F, -1.0, 0.0, U));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  TS        ts;
  Vec       U;
  TSType    type;
  PetscBool match;
  PetscReal err;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, 1, PETSC_DECIDE, &U));
  PetscCall(VecSet(U, 1.0));
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetRHSFunction(ts, NULL, RHS, NULL));
  PetscCall(TSSetTimeStep(ts, 0.1));
  PetscCall(TSSetMaxTime(ts, 1.0));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSGetType(ts, &type));
  PetscCall(PetscStrcmp(type, "lsrk", &match));
  PetscCheck(match, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "TSGetType() returned %s, expected lsrk (run with -ts_type lsrk -dll_append <libsquall>)", type);
  PetscCall(TSSolve(ts, U));
  PetscCall(TSView(ts, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(VecShift(U, -PetscExpReal(-1.0)));
  PetscCall(VecNorm(U, NORM_INFINITY, &err));
  PetscCheck(err < 1e-6, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "u(1) is off exp(-1) by %g", (double)err);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TS type %s loaded with -dll_append, error at t = 1: %.2e\n", type, (double)err));
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&U));
  PetscCall(PetscFinalize());
  return 0;
}
