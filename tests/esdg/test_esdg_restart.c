static char help[] = "Checkpoint/restart of an ESDG run through HDF5: 2k steps straight equal k steps, a checkpoint,\n"
                     "a restart and k more steps, bit for bit. -steps k (default 3), -checkpoint file.\n"
                     "-restart_from file: instead, continue the checkpoint (written at step k, on any number of ranks) for\n"
                     "k steps and compare with 2k steps straight on this run's ranks: the largest difference must not exceed\n"
                     "-tol (default 0: bit for bit).\n";

#include <squall.h>
#include "squalltest.h"

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
  SquallESDG  s;
  DM          dm;
  Vec         A, B;
  PetscInt    k = 3, step;
  PetscReal   tA, tB, t, dt, tol = 0, diff, scale;
  PetscBool   equal, from;
  PetscMPIInt size;
  char        file[PETSC_MAX_PATH_LEN] = "restart_test.h5", src[PETSC_MAX_PATH_LEN];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  {
    PetscBool require = PETSC_FALSE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-test_require_gpu", &require, NULL));
    if (require) SQUALL_TEST_SKIP_WITHOUT_GPU();
  }
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &k, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-checkpoint", file, sizeof(file), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-restart_from", src, sizeof(src), &from));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &s));
  PetscCall(SquallESDGSetFromOptions(s));
  PetscCall(SquallESDGGetDM(s, &dm));
  PetscCall(DMCreateGlobalVector(dm, &A));
  PetscCall(VecDuplicate(A, &B));
  PetscCall(SquallESDGSetInitialCondition(s, "bubble", A));
  PetscCall(VecCopy(A, B));

  if (!from)
    PetscCall(Run(s, A, 0, 0, 2 * k, &tA));
  else
    PetscCall(Run(s, A, 0, 0, k, &tA));
  if (!from) {
    PetscCall(Run(s, B, 0, 0, k, &t));
    PetscCall(SquallESDGWriteCheckpoint(s, B, t, k, 0.5, file));
    PetscCall(PetscStrncpy(src, file, sizeof(src)));
  }
  PetscCall(VecSet(B, -1));
  PetscCall(SquallESDGReadCheckpoint(s, src, B, &t, &step, &dt));
  PetscCheck(step == k, PETSC_COMM_WORLD, PETSC_ERR_FILE_UNEXPECTED, "Checkpoint %s is at step %" PetscInt_FMT ", not -steps %" PetscInt_FMT, src, step, k);
  if (from) {
    /* the state the other rank count wrote is the one this rank count reaches */
    PetscCall(VecEqual(A, B, &equal));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "state of %s at step %" PetscInt_FMT ": %s the state of this run\n", src, k, equal ? "bitwise equal to" : "DIFFERENT from"));
    PetscCheck(equal || tol > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The checkpoint's state differs from this run's at step %" PetscInt_FMT, k);
    PetscCheck(t == tA, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The checkpoint's time %.17g differs from this run's %.17g", (double)t, (double)tA);
    PetscCall(SquallESDGSetInitialCondition(s, "bubble", A));
    PetscCall(Run(s, A, 0, 0, 2 * k, &tA));
  }
  PetscCall(Run(s, B, t, step, k, &tB));

  PetscCall(VecEqual(A, B, &equal));
  PetscCall(VecNorm(A, NORM_INFINITY, &scale));
  PetscCall(VecAXPY(B, -1, A));
  PetscCall(VecNorm(B, NORM_INFINITY, &diff));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "restart from %s after %" PetscInt_FMT " of %" PetscInt_FMT " steps on %d ranks: final times %.17g and %.17g, states %s (max difference %.3e, max |Q| %.3e)\n", src, k, 2 * k, size, (double)tA, (double)tB,
                        equal ? "bitwise equal" : "DIFFERENT", (double)diff, (double)scale));
  PetscCheck(tA == tB, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The restarted run ends at another time");
  PetscCheck(equal || diff <= tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The restarted run differs from the straight run by %.3e (-tol %.3e)", (double)diff, (double)tol);
  PetscCall(VecDestroy(&A));
  PetscCall(VecDestroy(&B));
  PetscCall(SquallESDGDestroy(&s));
  PetscCall(PetscFinalize());
  return 0;
}
