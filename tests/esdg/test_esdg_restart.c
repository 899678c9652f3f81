static char help[] = "Checkpoint/restart of an ESDG run through HDF5: 2k steps straight equal k steps, a checkpoint,\n"
                     "a restart and k more steps, bit for bit. -steps k (default 3), -checkpoint file.\n";

#include <squall.h>

static PetscErrorCode Run(SquallESDG s, Vec Q, PetscReal t0, PetscInt step0, PetscInt steps, PetscReal *t)
{
  TS ts;

  PetscFunctionBegin;
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetType(ts, "lsrk"));
  PetscCall(SquallESDGSetUpTS(s, ts));
  PetscCall(TSSetTime(ts, t0));
  PetscCall(TSSetStepNumber(ts, step0));
  PetscCall(TSSetTimeStep(ts, 0.5));
  PetscCall(TSSetMaxSteps(ts, step0 + steps));
  PetscCall(TSSetMaxTime(ts, 1e30));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSSolve(ts, Q));
  PetscCall(TSGetTime(ts, t));
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  SquallESDG s;
  DM         dm;
  Vec        A, B;
  PetscInt   k = 3, step;
  PetscReal  tA, tB, t, dt;
  PetscBool  equal;
  char       file[PETSC_MAX_PATH_LEN] = "restart_test.h5";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &k, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-checkpoint", file, sizeof(file), NULL));
  PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &s));
  PetscCall(SquallESDGSetFromOptions(s));
  PetscCall(SquallESDGGetDM(s, &dm));
  PetscCall(DMCreateGlobalVector(dm, &A));
  PetscCall(VecDuplicate(A, &B));
  PetscCall(SquallESDGSetInitialCondition(s, "bubble", A));
  PetscCall(VecCopy(A, B));

  PetscCall(Run(s, A, 0, 0, 2 * k, &tA));
  PetscCall(Run(s, B, 0, 0, k, &t));
  PetscCall(SquallESDGWriteCheckpoint(s, B, t, k, 0.5, file));
  PetscCall(VecSet(B, -1));
  PetscCall(SquallESDGReadCheckpoint(s, file, B, &t, &step, &dt));
  PetscCall(Run(s, B, t, step, k, &tB));

  PetscCall(VecEqual(A, B, &equal));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "restart after %" PetscInt_FMT " of %" PetscInt_FMT " steps: final times %.17g and %.17g, states %s\n", k, 2 * k, (double)tA, (double)tB, equal ? "bitwise equal" : "DIFFERENT"));
  PetscCheck(equal && tA == tB, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The restarted run differs from the straight run");
  PetscCall(VecDestroy(&A));
  PetscCall(VecDestroy(&B));
  PetscCall(SquallESDGDestroy(&s));
  PetscCall(PetscFinalize());
  return 0;
}
