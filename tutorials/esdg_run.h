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
   -esdg_checkpoint_keep n keeps the last n of those this run wrote (0: all) */
typedef struct {
  SquallESDG esdg;
  PetscInt   every, keep, step0, nring, next;
  char       file[PETSC_MAX_PATH_LEN], restart[PETSC_MAX_PATH_LEN];
  PetscBool  write, fromFile;
  char (*ring)[PETSC_MAX_PATH_LEN]; /* the last keep periodic files, oldest at next once full */
} CheckpointCtx;

static PetscErrorCode CheckpointOptions(CheckpointCtx *c)
{
  PetscFunctionBegin;
  c->every      = 0;
  c->keep       = 2;
  c->file[0]    = 0;
  c->restart[0] = 0;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ESDG tutorial checkpoints (HDF5)", "SquallESDGWriteCheckpoint");
  PetscCall(PetscOptionsString("-esdg_checkpoint", "Write the final state to this HDF5 file (with -esdg_checkpoint_interval also every k steps, the step in the name)", "SquallESDGWriteCheckpoint", c->file, c->file, sizeof(c->file), &c->write));
  PetscCall(PetscOptionsInt("-esdg_checkpoint_interval", "Also write a checkpoint every k steps (0: only at the end; >= 0)", "SquallESDGWriteCheckpoint", c->every, &c->every, NULL));
  PetscCall(PetscOptionsInt("-esdg_checkpoint_keep", "Keep the last n periodic checkpoints this run wrote, removing older ones (0: keep all; >= 0)", "SquallOutputRemove", c->keep, &c->keep, NULL));
  PetscCall(PetscOptionsString("-esdg_restart", "Start from this checkpoint (any number of ranks; the settings must match the file's)", "SquallESDGReadCheckpoint", c->restart, c->restart, sizeof(c->restart), &c->fromFile));
  PetscOptionsEnd();
  PetscCheck(c->every >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-esdg_checkpoint_interval %" PetscInt_FMT " is out of range: steps >= 0 (0: only at the end)", c->every);
  PetscCheck(!c->every || c->write, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-esdg_checkpoint_interval needs -esdg_checkpoint FILE");
  PetscCheck(c->keep >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-esdg_checkpoint_keep %" PetscInt_FMT " is out of range: files >= 0 (0: keep all)", c->keep);
  c->nring = c->next = 0;
  c->ring            = NULL;
  if (c->every && c->keep) PetscCall(PetscCalloc1(c->keep, &c->ring));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PeriodicCheckpoint(TS ts, PetscInt step, PetscReal t, Vec Q, void *ctx)
{
  CheckpointCtx  *c = (CheckpointCtx *)ctx;
  SquallESDGStats st;
  PetscReal       dt;
  char            name[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  /* not the step the run started from: that state is already on disk (or is the initial condition) */
  if (step <= c->step0 || step % c->every) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SquallESDGComputeStats(c->esdg, Q, &st));
  PetscCall(CheckAdmissible("checkpoint", "current", &st));
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(SquallOutputNumberedName(c->file, step, name, sizeof(name)));
  PetscCall(SquallESDGWriteCheckpoint(c->esdg, Q, t, step, dt, name));
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

/* every output path is checked before the first step, so that a typo does not cost the run */
static PetscErrorCode CheckOutputPaths(void)
{
  const char *const opts[] = {"-esdg_checkpoint", "-esdg_slice_y", "-esdg_vtk"};

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
    char      path[PETSC_MAX_PATH_LEN] = "";
    PetscBool flg;
    PetscCall(PetscOptionsGetString(NULL, NULL, opts[i], path, sizeof(path), &flg));
    if (flg) PetscCall(SquallCheckOutputPath(PETSC_COMM_WORLD, opts[i], path));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A tutorial's own monitors and output: called once the TS is set up (final false: add monitors) and once
   after the run and the shared output (final true) */
typedef PetscErrorCode (*RunCaseHookFn)(SquallESDG, TS, Vec, PetscBool final);
static RunCaseHookFn RunCaseHook = NULL;

static PetscErrorCode RunCase(const char *casename, PetscReal tfinal, PetscReal dt)
{
  SquallESDG        esdg;
  DM                dm;
  Vec               Q;
  TS                ts;
  SquallESDGStats   s0, s1;
  PetscInt          steps, step0;
  PetscLogDouble    w0, w1;
  PetscReal         t;
  char              vtk[PETSC_MAX_PATH_LEN] = "", file[PETSC_MAX_PATH_LEN] = "";
  PetscBool         flg;
  TSConvergedReason reason;
  CheckpointCtx     ck;

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
  PetscCall(TSSetFromOptions(ts));
  PetscCall(CheckOutputPaths());
  {
    PetscReal t0, tmax;
    PetscCall(TSGetTime(ts, &t0));
    PetscCall(TSGetMaxTime(ts, &tmax));
    PetscCheck(tmax >= t0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-ts_max_time %g is before the start time %g", (double)tmax, (double)t0);
  }
  ck.esdg = esdg;
  PetscCall(TSGetStepNumber(ts, &step0));
  ck.step0 = step0;
  if (ck.every) PetscCall(TSMonitorSet(ts, PeriodicCheckpoint, &ck, NULL));
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
  PetscCheck(reason >= 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%s: the time integration failed (%s) at step %" PetscInt_FMT ", t = %g: nothing is written", casename, TSConvergedReasons[reason], steps, (double)t);
  PetscCall(CheckAdmissible(casename, "final", &s1));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-esdg_wall_time", &flg));
  /* off by default so that the tutorials' output stays comparable between runs */
  if (flg && steps > step0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  wall time of TSSolve %.4f s, %.6g s per step\n", w1 - w0, (w1 - w0) / (double)(steps - step0)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  relative change: mass %.1e energy %.1e entropy %.3e\n", fabs(s1.mass / s0.mass - 1), fabs(s1.energy / s0.energy - 1), (s1.entropy - s0.entropy) / fabs(s0.entropy)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  max|w| %.12e m/s, min density %.12e, min pressure %.12e\n", (double)s1.maxw, (double)s1.minrho, (double)s1.minp));
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
  PetscCall(PetscOptionsGetString(NULL, NULL, "-esdg_slice_y", file, sizeof(file), &flg));
  if (flg) {
    /* potential temperature on the plane y = 0 (or -esdg_slice_y_value), for scripts/plot_slice.py */
    PetscReal y0 = 0;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-esdg_slice_y_value", &y0, NULL));
    PetscCall(SquallESDGWriteSlice(esdg, Q, 1, y0, file));
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-esdg_vtk", vtk, sizeof(vtk), &flg));
  if (flg) {
    SquallDGMesh      mesh;
    const char *const names[] = {"rho", "rhou", "rhov", "rhow", "E"};
    PetscCall(SquallESDGGetMesh(esdg, &mesh));
    PetscCall(SquallDGMeshWriteVTK(mesh, Q, names, vtk));
  }
  if (RunCaseHook) PetscCall(RunCaseHook(esdg, ts, Q, PETSC_TRUE));
  PetscCall(PetscFree(ck.ring));
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&Q));
  PetscCall(SquallESDGDestroy(&esdg));
  PetscFunctionReturn(PETSC_SUCCESS);
}
