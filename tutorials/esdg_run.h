/* Shared driver of the ESDG tutorials: set up, project a test case, integrate with any PETSc TS
   (default: squall's low-storage RK "lsrk"), report the conserved quantities and write output. */
#pragma once

#include <squall.h>

/* A tutorial's small default case: each option of defaults (name, value pairs, NULL-terminated) that the
   user did not give, so that the tutorial runs without any options */
static PetscErrorCode SetDefaultOptions(const char *const defaults[][2])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; defaults[i][0]; i++) {
    PetscBool set;
    PetscCall(PetscOptionsHasName(NULL, NULL, defaults[i][0], &set));
    if (!set) PetscCall(PetscOptionsSetValue(NULL, defaults[i][0], defaults[i][1]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A state the physics admits: finite conserved totals, positive density and pressure everywhere. */
static PetscErrorCode CheckAdmissible(const char *casename, const char *when, const SquallESDGStats *st)
{
  PetscFunctionBegin;
  PetscCheck(PetscIsNormalReal(st->mass) && PetscIsNormalReal(st->energy) && st->minrho > 0 && st->minp > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED,
             "%s: the %s state is not admissible (min density %g, min pressure %g, mass %g, energy %g): nothing is written", casename, when, (double)st->minrho, (double)st->minp, (double)st->mass, (double)st->energy);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Checkpoints: -esdg_checkpoint FILE writes the final state to FILE; -esdg_checkpoint_interval k also
   writes every k steps to FILE with the step in its name (SquallOutputNumberedName: a.h5 gives
   a.00000120.h5), each file complete before it appears, so a run that dies loses at most k steps;
   -esdg_checkpoint_interval_time T instead writes at the first step that reaches each multiple of T in model
   time (the step is not shortened to land on it; the file records the step's own time), named the same way;
   -esdg_checkpoint_keep n keeps the last n of those this run wrote (0: all) */
typedef struct {
  SquallESDG esdg;
  PetscInt   every, keep, step0, nring, next;
  PetscReal  everyTime, due; /* the model-time interval and the multiple of it the next file waits for */
  char       file[PETSC_MAX_PATH_LEN], restart[PETSC_MAX_PATH_LEN];
  PetscBool  write, fromFile;
  char (*ring)[PETSC_MAX_PATH_LEN]; /* the last keep periodic files, oldest at next once full */
} CheckpointCtx;

static PetscErrorCode CheckpointOptions(CheckpointCtx *c)
{
  PetscBool both;

  PetscFunctionBegin;
  c->every      = 0;
  c->everyTime  = 0;
  c->keep       = 2;
  c->file[0]    = 0;
  c->restart[0] = 0;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ESDG tutorial checkpoints (HDF5)", "SquallESDGWriteCheckpoint");
  PetscCall(PetscOptionsString("-esdg_checkpoint", "Write the final state to this HDF5 file (with -esdg_checkpoint_interval or _interval_time also periodically, the step in the name)", "SquallESDGWriteCheckpoint", c->file, c->file, sizeof(c->file),
                               &c->write));
  PetscCall(PetscOptionsInt("-esdg_checkpoint_interval", "Also write a checkpoint every k steps (0: only at the end; >= 0)", "SquallESDGWriteCheckpoint", c->every, &c->every, NULL));
  PetscCall(PetscOptionsReal("-esdg_checkpoint_interval_time", "Also write a checkpoint at the first step that reaches each multiple of T in model time (s; 0: only at the end; >= 0)", "SquallESDGWriteCheckpoint", c->everyTime, &c->everyTime, NULL));
  PetscCall(PetscOptionsInt("-esdg_checkpoint_keep", "Keep the last n periodic checkpoints this run wrote, removing older ones (0: keep all; >= 0)", "SquallOutputRemove", c->keep, &c->keep, NULL));
  PetscCall(PetscOptionsString("-esdg_restart", "Start from this checkpoint (any number of ranks; the settings must match the file's)", "SquallESDGReadCheckpoint", c->restart, c->restart, sizeof(c->restart), &c->fromFile));
  PetscOptionsEnd();
  PetscCheck(c->every >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-esdg_checkpoint_interval %" PetscInt_FMT " is out of range: steps >= 0 (0: only at the end)", c->every);
  PetscCheck(c->everyTime >= 0 && PetscIsNormalReal(c->everyTime + 1), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-esdg_checkpoint_interval_time %g is out of range: model time >= 0 (0: only at the end)", (double)c->everyTime);
  both = c->every && c->everyTime > 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(!both, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-esdg_checkpoint_interval %" PetscInt_FMT " and -esdg_checkpoint_interval_time %g together: give one of them (steps or model time)", c->every, (double)c->everyTime);
  PetscCheck(!c->every || c->write, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-esdg_checkpoint_interval needs -esdg_checkpoint FILE");
  PetscCheck(c->everyTime == 0 || c->write, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-esdg_checkpoint_interval_time needs -esdg_checkpoint FILE");
  PetscCheck(c->keep >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-esdg_checkpoint_keep %" PetscInt_FMT " is out of range: files >= 0 (0: keep all)", c->keep);
  c->nring = c->next = 0;
  c->ring            = NULL;
  if ((c->every || c->everyTime > 0) && c->keep) PetscCall(PetscCalloc1(c->keep, &c->ring));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the first multiple of the model-time interval after t (a step within 1e-9 of the interval short of a multiple
   counts as on it: the sum of the steps carries round-off) */
static PetscReal CheckpointNextDue(const CheckpointCtx *c, PetscReal t)
{
  return (PetscFloorReal(t / c->everyTime + (PetscReal)1e-9) + 1) * c->everyTime;
}

static PetscErrorCode PeriodicCheckpoint(TS ts, PetscInt step, PetscReal t, Vec Q, void *ctx)
{
  CheckpointCtx  *c = (CheckpointCtx *)ctx;
  SquallESDGStats st;
  PetscReal       dt;
  char            name[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  /* not the step the run started from: that state is already on disk (or is the initial condition) */
  if (step <= c->step0) PetscFunctionReturn(PETSC_SUCCESS);
  if (c->every && step % c->every) PetscFunctionReturn(PETSC_SUCCESS);
  if (c->everyTime > 0 && t < c->due - (PetscReal)1e-9 * c->everyTime) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SquallESDGComputeStats(c->esdg, Q, &st));
  PetscCall(CheckAdmissible("checkpoint", "current", &st));
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(SquallOutputNumberedName(c->file, step, name, sizeof(name)));
  PetscCall(SquallESDGWriteCheckpoint(c->esdg, Q, t, step, dt, name));
  if (c->everyTime > 0) {
    PetscReal tprev;
    PetscCall(TSGetPrevTime(ts, &tprev));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "checkpoint %s: step %" PetscInt_FMT ", t = %.10g (due at %.10g; the step started at %.10g)\n", name, step, (double)t, (double)c->due, (double)tprev));
    c->due = CheckpointNextDue(c, t);
  }
  /* only once the new file is in place is the oldest one removed */
  if (c->keep) {
    if (c->nring == c->keep)
      PetscCall(SquallOutputRemove(PETSC_COMM_WORLD, c->ring[c->next]));
    else
      c->nring++;
    PetscCall(PetscStrncpy(c->ring[c->next], name, sizeof(c->ring[0])));
    c->next = (c->next + 1) % c->keep;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final state's output, read (so that -help lists them) and checked before the first step, so that a typo
   does not cost the run: the paths of -esdg_checkpoint, -esdg_slice_y and -esdg_vtk, and the slice's plane */
typedef struct {
  char      vtk[PETSC_MAX_PATH_LEN], slice[PETSC_MAX_PATH_LEN];
  PetscBool writeVTK, writeSlice;
  PetscReal sliceY;
} OutputCtx;

static PetscErrorCode OutputOptions(SquallESDG esdg, const CheckpointCtx *ck, OutputCtx *o)
{
  PetscFunctionBegin;
  o->vtk[0] = o->slice[0] = 0;
  o->sliceY               = 0;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ESDG tutorial output of the final state", "SquallESDGWriteSlice");
  PetscCall(PetscOptionsString("-esdg_slice_y", "Write x,y,z,theta,u,w of the nodes on a plane y = const to this CSV file (scripts/plot_slice.py)", "SquallESDGWriteSlice", o->slice, o->slice, sizeof(o->slice), &o->writeSlice));
  PetscCall(PetscOptionsReal("-esdg_slice_y_value", "The plane's y: a node plane inside -dm_p4est_brick_bounds (refused before the first step otherwise)", "SquallESDGCheckSlice", o->sliceY, &o->sliceY, NULL));
  PetscCall(PetscOptionsString("-esdg_vtk", "Write the final state for ParaView to BASE.pvtu", "SquallDGMeshWriteVTK", o->vtk, o->vtk, sizeof(o->vtk), &o->writeVTK));
  PetscOptionsEnd();
  if (ck->write) PetscCall(SquallCheckOutputPath(PETSC_COMM_WORLD, "-esdg_checkpoint", ck->file));
  if (o->writeSlice) PetscCall(SquallCheckOutputPath(PETSC_COMM_WORLD, "-esdg_slice_y", o->slice));
  if (o->writeVTK) PetscCall(SquallCheckOutputPath(PETSC_COMM_WORLD, "-esdg_vtk", o->vtk));
  if (o->writeSlice) PetscCall(SquallESDGCheckSlice(esdg, 1, o->sliceY, "-esdg_slice_y_value"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A tutorial's own monitors and output: called once the TS is set up (final false: add monitors) and once
   after the run and the shared output (final true) */
typedef PetscErrorCode (*RunCaseHookFn)(SquallESDG, TS, Vec, PetscBool final);
static RunCaseHookFn RunCaseHook = NULL;

/* what RunCase made, after a finished and after a failed run */
static PetscErrorCode RunCaseDestroy(CheckpointCtx *ck, TS *ts, Vec *Q, SquallESDG *esdg)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(ck->ring));
  PetscCall(TSDestroy(ts));
  PetscCall(VecDestroy(Q));
  PetscCall(SquallESDGDestroy(esdg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A failed time integration (TSConvergedReason < 0: a rejected step, a diverged implicit solve) is no error
   here: RunCase reports it, writes nothing, destroys what it made and sets *failed, so that the run still ends
   through PetscFinalize() (the failure is collective: every rank sees the same reason). */
static PetscErrorCode RunCase(const char *casename, PetscReal tfinal, PetscReal dt, PetscBool *failed)
{
  SquallESDG        esdg;
  DM                dm;
  Vec               Q;
  TS                ts;
  SquallESDGStats   s0, s1;
  PetscInt          steps, step0;
  PetscLogDouble    w0, w1;
  PetscReal         t;
  PetscBool         flg;
  TSConvergedReason reason;
  CheckpointCtx     ck;
  OutputCtx         out;

  PetscFunctionBegin;
  PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &esdg));
  PetscCall(SquallESDGSetFromOptions(esdg));
  PetscCall(SquallESDGSetUp(esdg));
  PetscCall(SquallESDGView(esdg, NULL));
  PetscCall(SquallESDGGetDM(esdg, &dm));
  PetscCall(DMCreateGlobalVector(dm, &Q));
  PetscCall(SquallESDGSetInitialCondition(esdg, casename, Q));
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(CheckpointOptions(&ck));
  if (ck.fromFile) {
    PetscReal t0, dt0;
    PetscInt  step0;
    PetscCall(SquallESDGReadCheckpoint(esdg, ck.restart, Q, &t0, &step0, &dt0));
    PetscCall(TSSetTime(ts, t0));
    PetscCall(TSSetStepNumber(ts, step0));
    dt = dt0;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "restarted from %s at step %" PetscInt_FMT ", t = %g\n", ck.restart, step0, (double)t0));
  }
  PetscCall(TSSetType(ts, "lsrk"));
  PetscCall(SquallESDGSetUpTS(esdg, ts));
  PetscCall(TSSetMaxTime(ts, tfinal));
  PetscCall(TSSetTimeStep(ts, dt));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetErrorIfStepFails(ts, PETSC_FALSE)); /* the reason is checked after TSSolve; -ts_error_if_step_fails 1 makes it an error */
  PetscCall(TSSetFromOptions(ts));
  PetscCall(OutputOptions(esdg, &ck, &out));
  {
    PetscReal t0, tmax;
    PetscCall(TSGetTime(ts, &t0));
    PetscCall(TSGetMaxTime(ts, &tmax));
    PetscCheck(tmax >= t0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-ts_max_time %g is before the start time %g", (double)tmax, (double)t0);
  }
  ck.esdg = esdg;
  PetscCall(TSGetStepNumber(ts, &step0));
  ck.step0 = step0;
  if (ck.everyTime > 0) {
    PetscReal t0;
    PetscCall(TSGetTime(ts, &t0));
    ck.due = CheckpointNextDue(&ck, t0);
  }
  if (ck.every || ck.everyTime > 0) PetscCall(TSMonitorSet(ts, PeriodicCheckpoint, &ck, NULL));
  if (RunCaseHook) PetscCall(RunCaseHook(esdg, ts, Q, PETSC_FALSE));
  PetscCall(SquallESDGComputeStats(esdg, Q, &s0));
  PetscCall(CheckAdmissible(casename, "initial", &s0));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&w0));
  PetscCall(TSSolve(ts, Q));
  PetscCall(SquallSynchronize(Q));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(PetscTime(&w1));
  PetscCall(TSGetConvergedReason(ts, &reason));
  PetscCall(TSGetStepNumber(ts, &steps));
  PetscCall(TSGetTime(ts, &t));
  PetscCall(SquallESDGComputeStats(esdg, Q, &s1));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " steps to t = %g (%s)\n", casename, steps, (double)t, TSConvergedReasons[reason]));
  {
    /* implicit integrators (HEVI): the nonlinear and linear iterations of the run */
    PetscInt nits = 0, lits = 0;
    PetscCall(TSGetSNESIterations(ts, &nits));
    PetscCall(TSGetKSPIterations(ts, &lits));
    if (nits && steps > step0)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  Newton %" PetscInt_FMT " and Krylov %" PetscInt_FMT " iterations, %.3f and %.3f per step\n", nits, lits, (double)nits / (double)(steps - step0), (double)lits / (double)(steps - step0)));
  }
  *failed = (PetscBool)(reason < 0);
  if (*failed) {
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, PETSC_STDERR, "%s: the time integration failed (%s) at step %" PetscInt_FMT ", t = %g: nothing is written\n", casename, TSConvergedReasons[reason], steps, (double)t));
    PetscCall(RunCaseDestroy(&ck, &ts, &Q, &esdg));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(CheckAdmissible(casename, "final", &s1));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-esdg_wall_time", &flg));
  /* off by default so that the tutorials' output stays comparable between runs */
  if (flg && steps > step0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  wall time of TSSolve %.4f s, %.6g s per step\n", w1 - w0, (w1 - w0) / (double)(steps - step0)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  relative change: mass %.1e energy %.1e entropy %.3e\n", fabs(s1.mass / s0.mass - 1), fabs(s1.energy / s0.energy - 1), (s1.entropy - s0.entropy) / fabs(s0.entropy)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  max|w| %.12e m/s, min density %.12e, min pressure %.12e\n", (double)s1.maxw, (double)s1.minrho, (double)s1.minp));
  if (s1.minps < PETSC_MAX_REAL) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  min surface pressure %.12e Pa\n", (double)s1.minps));
  {
    /* for tests: the run fails if mass or energy drifted by more than this (relative) */
    PetscReal tol = -1;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-test_max_drift", &tol, NULL));
    if (tol >= 0) {
      const double dm = fabs(s1.mass / s0.mass - 1), de = fabs(s1.energy / s0.energy - 1);
      PetscCheck(dm <= tol && de <= tol, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "Relative drift of mass %.2e or energy %.2e exceeds -test_max_drift %.2e", dm, de, (double)tol);
    }
  }
  if (ck.write) {
    PetscReal dtl;
    PetscCall(TSGetTimeStep(ts, &dtl));
    PetscCall(SquallESDGWriteCheckpoint(esdg, Q, t, steps, dtl, ck.file));
  }
  /* potential temperature on the plane y = -esdg_slice_y_value, for scripts/plot_slice.py */
  if (out.writeSlice) PetscCall(SquallESDGWriteSlice(esdg, Q, 1, out.sliceY, out.slice));
  if (out.writeVTK) {
    SquallDGMesh      mesh;
    const char *const names[] = {"rho", "rhou", "rhov", "rhow", "E"};
    PetscCall(SquallESDGGetMesh(esdg, &mesh));
    PetscCall(SquallDGMeshWriteVTK(mesh, Q, names, out.vtk));
  }
  if (RunCaseHook) PetscCall(RunCaseHook(esdg, ts, Q, PETSC_TRUE));
  PetscCall(RunCaseDestroy(&ck, &ts, &Q, &esdg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A tutorial's main() after PetscInitialize(): its defaults, then the case, then PetscFinalize(); the exit code.
   For the test suite, -test_require_gpu makes a run where no GPU is usable report "skipped" (exit code 200). */
static int RunTutorial(const char *const defaults[][2], const char *casename, PetscReal tfinal, PetscReal dt)
{
  PetscBool require = PETSC_FALSE, avail = PETSC_TRUE, failed = PETSC_FALSE;

  /* like main(): PetscCall returns the error code, and PetscFinalize() ends the PETSc stack */
  PetscCall(SetDefaultOptions(defaults));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-test_require_gpu", &require, NULL));
  if (require) PetscCall(SquallCUDAAvailable(PETSC_COMM_WORLD, &avail));
  if (avail)
    PetscCall(RunCase(casename, tfinal, dt, &failed));
  else
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "no usable CUDA device: skipped\n"));
  PetscCall(PetscFinalize());
  return failed ? (int)PETSC_ERR_NOT_CONVERGED : (avail ? 0 : 200);
}
