static char help[] = "Convergence of the ESDG scheme on an exact solution (density wave, periodic box): the L2 error\n"
                     "at refinements L and L+1 must decrease at about order N+1.\n"
                     "  -levels a,b   refinement levels (default 0,1)   -tfinal T   -min_order p\n";

#include <squall.h>

static PetscErrorCode ErrorAtLevel(PetscInt level, PetscReal tfinal, PetscReal *err, PetscReal *h)
{
  SquallESDG s;
  DM         dm;
  Vec        Q;
  TS         ts;
  char       lv[16];
  PetscReal  dt;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(lv, sizeof(lv), "%" PetscInt_FMT, level));
  PetscCall(PetscOptionsSetValue(NULL, "-dm_forest_initial_refinement", lv));
  PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &s));
  PetscCall(SquallESDGSetFromOptions(s));
  PetscCall(SquallESDGSetUp(s));
  PetscCall(SquallESDGGetDM(s, &dm));
  PetscCall(DMCreateGlobalVector(dm, &Q));
  PetscCall(SquallESDGSetInitialCondition(s, "densitywave", Q));
  /* a time step small enough that the 4th-order time error stays below the spatial error */
  PetscCall(SquallESDGComputeTimeStep(s, Q, 0.2, &dt));
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetType(ts, "lsrk"));
  PetscCall(SquallESDGSetUpTS(s, ts));
  PetscCall(TSSetMaxTime(ts, tfinal));
  PetscCall(TSSetTimeStep(ts, dt));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSSolve(ts, Q));
  PetscCall(SquallESDGComputeExactError(s, "densitywave", tfinal, Q, err));
  {
    SquallDGMesh mesh;
    PetscInt     nglob;
    PetscCall(SquallESDGGetMesh(s, &mesh));
    PetscCall(SquallDGMeshGetNumElements(mesh, NULL, NULL, &nglob));
    *h = PetscPowReal((PetscReal)nglob, -1.0 / 3);
  }
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&Q));
  PetscCall(SquallESDGDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt  levels[2] = {0, 1}, n = 2, N = 3;
  PetscReal tfinal = 0.25, minorder = -1, err[2], h[2], order;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-levels", levels, &n, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tfinal", &tfinal, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-esdg_order", &N, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-min_order", &minorder, NULL));
  if (minorder < 0) minorder = N + 1 - 0.6;
  for (PetscInt i = 0; i < 2; i++) PetscCall(ErrorAtLevel(levels[i], tfinal, &err[i], &h[i]));
  order = PetscLogReal(err[0] / err[1]) / PetscLogReal(h[0] / h[1]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "N = %" PetscInt_FMT ": L2 error %.3e (level %" PetscInt_FMT ") -> %.3e (level %" PetscInt_FMT "), observed order %.2f\n", N, (double)err[0], levels[0], (double)err[1], levels[1], (double)order));
  PetscCheck(order >= minorder, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "Observed order %.2f below %.2f for N = %" PetscInt_FMT, (double)order, (double)minorder, N);
  PetscCall(PetscFinalize());
  return 0;
}
