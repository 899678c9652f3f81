/* Shared driver of the ESDG tutorials: set up, project a test case, integrate with any PETSc TS
   (default: squall's low-storage RK "lsrk"), report the conserved quantities and write output. */
#pragma once

#include <squall.h>

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

  PetscFunctionBegin;
  PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &esdg));
  PetscCall(SquallESDGSetFromOptions(esdg));
  PetscCall(SquallESDGSetUp(esdg));
  PetscCall(SquallESDGView(esdg, NULL));
  PetscCall(SquallESDGGetDM(esdg, &dm));
  PetscCall(DMCreateGlobalVector(dm, &Q));
  PetscCall(SquallESDGSetInitialCondition(esdg, casename, Q));
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-esdg_restart", file, sizeof(file), &flg));
  if (flg) {
    PetscReal t0, dt0;
    PetscInt  step0;
    PetscCall(SquallESDGReadCheckpoint(esdg, file, Q, &t0, &step0, &dt0));
    PetscCall(TSSetTime(ts, t0));
    PetscCall(TSSetStepNumber(ts, step0));
    dt = dt0;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "restarted from %s at step %" PetscInt_FMT ", t = %g\n", file, step0, (double)t0));
  }
  PetscCall(TSSetType(ts, "lsrk"));
  PetscCall(SquallESDGSetUpTS(esdg, ts));
  PetscCall(TSSetMaxTime(ts, tfinal));
  PetscCall(TSSetTimeStep(ts, dt));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(SquallESDGComputeStats(esdg, Q, &s0));
  PetscCall(TSGetStepNumber(ts, &step0));
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
  PetscCall(PetscOptionsGetString(NULL, NULL, "-esdg_checkpoint", file, sizeof(file), &flg));
  if (flg) {
    PetscReal dtl;
    PetscCall(TSGetTimeStep(ts, &dtl));
    PetscCall(SquallESDGWriteCheckpoint(esdg, Q, t, steps, dtl, file));
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
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&Q));
  PetscCall(SquallESDGDestroy(&esdg));
  PetscFunctionReturn(PETSC_SUCCESS);
}
