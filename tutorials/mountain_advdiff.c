static char help[] = "Advection-diffusion of potential temperature over a bell-shaped mountain with P1 CG on tetrahedra.\n"
                     "A warm bubble in a stably stratified background, theta = theta0 + (dtheta/dz) z + bubble, is carried by\n"
                     "the divergence-free terrain-following wind and diffused with a full 3x3 tensor; every step is\n"
                     "  (M + theta dt (C + D)) T^{n+1} = (M - (1 - theta) dt (C + D)) T^n\n"
                     "(theta = 1/2 Crank-Nicolson, 1 implicit Euler), reassembled each step and solved with any KSP/PC\n"
                     "(-ksp_type gmres -pc_type gamg / hypre / jacobi). Mesh: -p1_mesh (default mountain: -mountain_*); operators: -p1_*; and\n"
                     "  -advdiff_steps n, -advdiff_dt s, -advdiff_theta 0.5..1, -advdiff_u0 m/s\n"
                     "  -advdiff_diffusivity terrain|metric: kh along the terrain-following surfaces and kv across them, nodal\n"
                     "      (-advdiff_kh 2000, -advdiff_kv 2 m^2/s), or grid-scale rate * M_e^{-1} per element (-advdiff_metric_rate 1e-3 1/s)\n"
                     "  -advdiff_bubble_amplitude K, -advdiff_bubble_center x,y,z, -advdiff_bubble_radius m, -advdiff_stratification K/m\n"
                     "  -advdiff_monitor (every step), -advdiff_vtk base (final theta for ParaView)\n\n";

#include "mountain_common.h"

typedef struct {
  MountainWind wind;
  PetscReal    theta0, dthdz, amp, xc[3], radius, kh, kv;
} AdvDiff;

static PetscErrorCode InitialTheta(const PetscReal x[3], PetscScalar T[], void *ctx)
{
  const AdvDiff  *ad = (const AdvDiff *)ctx;
  const PetscReal r2 = (PetscSqr(x[0] - ad->xc[0]) + PetscSqr(x[1] - ad->xc[1]) + PetscSqr(x[2] - ad->xc[2])) / PetscSqr(ad->radius);

  T[0] = ad->theta0 + ad->dthdz * x[2] + ad->amp * PetscExpReal(-r2);
  return PETSC_SUCCESS;
}

/* kh along the terrain-following surfaces and kv across them: K = kh (I - n n^T) + kv n n^T with n the
   unit normal of zeta = H (z - h)/(H - h), grad zeta ~ (H - z) (-h_x, -h_y, 0)/(H - h) + (0, 0, 1) */
static PetscErrorCode TerrainTensor(const PetscReal x[3], PetscScalar K[], void *ctx)
{
  const AdvDiff *ad = (const AdvDiff *)ctx;
  PetscReal      h, hx, hy, n[3], s;

  PetscCall(SquallP1MountainTerrain(&ad->wind.m, x[0], x[1], &h, &hx, &hy));
  s    = (ad->wind.m.H - x[2]) / (ad->wind.m.H - h);
  n[0] = -hx * s;
  n[1] = -hy * s;
  n[2] = 1;
  s    = PetscSqrtReal(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) K[3 * i + j] = ad->kh * ((i == j) - n[i] * n[j] / (s * s)) + ad->kv * n[i] * n[j] / (s * s);
  return PETSC_SUCCESS;
}

static PetscErrorCode Report(SquallP1 p1, Vec T, PetscInt step, PetscReal t, PetscReal vol, PetscInt its)
{
  PetscReal tmin, tmax, integral;

  PetscFunctionBegin;
  PetscCall(VecMin(T, NULL, &tmin));
  PetscCall(VecMax(T, NULL, &tmax));
  PetscCall(SquallP1Integrate(p1, T, &integral));
  if (its >= 0)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "step %3" PetscInt_FMT "  t = %8.1f s  theta in [%.8f, %.8f] K, mean %.10f K, %" PetscInt_FMT " KSP iterations\n", step, (double)t, (double)tmin, (double)tmax, (double)(integral / vol), its));
  else
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "step %3" PetscInt_FMT "  t = %8.1f s  theta in [%.8f, %.8f] K, mean %.10f K\n", step, (double)t, (double)tmin, (double)tmax, (double)(integral / vol)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  AdvDiff     ad = {.theta0 = 300, .dthdz = 3e-3, .amp = 2, .xc = {-10000, 0, 3000}, .radius = 3000, .kh = 2000, .kv = 2};
  DM          dm;
  SquallP1    p1;
  Vec         u, T, b, Ke = NULL, K = NULL, one;
  Mat         A;
  KSP         ksp;
  PetscInt    steps = 10, n = 3, dtype = 0;
  PetscReal   dt = 60, theta = 0.5, rate = 1e-3, vol;
  PetscBool   monitor                 = PETSC_FALSE;
  char        vtk[PETSC_MAX_PATH_LEN] = "";
  const char *dtypes[]                = {"terrain", "metric"};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  ad.wind.U0 = 10;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Mountain advection-diffusion", NULL);
  PetscCall(PetscOptionsInt("-advdiff_steps", "Number of time steps", NULL, steps, &steps, NULL));
  PetscCall(PetscOptionsReal("-advdiff_dt", "Time step (s)", NULL, dt, &dt, NULL));
  PetscCall(PetscOptionsReal("-advdiff_theta", "Implicitness: 0.5 Crank-Nicolson, 1 implicit Euler (0.5 to 1)", NULL, theta, &theta, NULL));
  PetscCall(PetscOptionsReal("-advdiff_u0", "Wind speed far from the hill (m/s)", NULL, ad.wind.U0, &ad.wind.U0, NULL));
  PetscCall(PetscOptionsEList("-advdiff_diffusivity", "Diffusivity tensor: terrain-following nodal, or grid-scale metric per element", NULL, dtypes, 2, dtypes[dtype], &dtype, NULL));
  PetscCall(PetscOptionsReal("-advdiff_metric_rate", "Rate (1/s) of the grid-scale diffusivity rate * M_e^{-1}", NULL, rate, &rate, NULL));
  PetscCall(PetscOptionsReal("-advdiff_kh", "Diffusivity along the terrain-following surfaces (m^2/s)", NULL, ad.kh, &ad.kh, NULL));
  PetscCall(PetscOptionsReal("-advdiff_kv", "Diffusivity across the terrain-following surfaces (m^2/s)", NULL, ad.kv, &ad.kv, NULL));
  PetscCall(PetscOptionsReal("-advdiff_bubble_amplitude", "Amplitude of the warm bubble (K)", NULL, ad.amp, &ad.amp, NULL));
  PetscCall(PetscOptionsRealArray("-advdiff_bubble_center", "Centre of the warm bubble (m)", NULL, ad.xc, &n, NULL));
  PetscCall(PetscOptionsReal("-advdiff_bubble_radius", "Radius of the warm bubble (m)", NULL, ad.radius, &ad.radius, NULL));
  PetscCall(PetscOptionsReal("-advdiff_stratification", "Background d theta/dz (K/m)", NULL, ad.dthdz, &ad.dthdz, NULL));
  PetscCall(PetscOptionsBool("-advdiff_monitor", "Report every step", NULL, monitor, &monitor, NULL));
  PetscCall(PetscOptionsString("-advdiff_vtk", "Write the final potential temperature to <base>.vtu", NULL, vtk, vtk, sizeof(vtk), NULL));
  PetscOptionsEnd();
  PetscCheck(steps >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-advdiff_steps %" PetscInt_FMT " is out of range: it must be >= 0", steps);
  PetscCheck(dt > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-advdiff_dt %g is out of range: it must be positive", (double)dt);
  PetscCheck(theta >= 0.5 && theta <= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-advdiff_theta %g is out of range: valid values are 0.5 (Crank-Nicolson) to 1 (implicit Euler)", (double)theta);
  PetscCheck(rate >= 0 && ad.kh >= 0 && ad.kv >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-advdiff_metric_rate, -advdiff_kh and -advdiff_kv must be >= 0");
  PetscCheck(ad.radius > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-advdiff_bubble_radius %g must be positive", (double)ad.radius);

  PetscCall(MountainSetUp(&ad.wind, &dm, &p1));
  PetscCall(MountainSetWind(p1, &ad.wind, &u));
  if (dtype == 1) {
    PetscCall(SquallP1CreateElementVector(p1, 9, &Ke));
    PetscCall(SquallP1ComputeElementMetric(p1, rate, Ke, NULL));
    PetscCall(SquallP1SetDiffusivity(p1, SQUALL_P1_ELEMENT, Ke));
  } else {
    PetscCall(SquallP1CreateVector(p1, 9, &K));
    PetscCall(SquallP1Interpolate(p1, 9, TerrainTensor, &ad, K));
    PetscCall(SquallP1SetDiffusivity(p1, SQUALL_P1_NODE, K));
  }

  PetscCall(SquallP1CreateVector(p1, 1, &T));
  PetscCall(PetscObjectSetName((PetscObject)T, "theta"));
  PetscCall(SquallP1Interpolate(p1, 1, InitialTheta, &ad, T));
  PetscCall(VecDuplicate(T, &b));
  PetscCall(VecDuplicate(T, &one));
  PetscCall(VecSet(one, 1));
  PetscCall(SquallP1Integrate(p1, one, &vol));
  PetscCall(SquallP1CreateMatrix(p1, 1, &A));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
  /* a solve that does not converge stops the run (PETSc's -ksp_error_if_not_converged 0 turns that off) */
  PetscCall(KSPSetErrorIfNotConverged(ksp, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s diffusivity, dt = %g s, theta = %g, %" PetscInt_FMT " steps\n", dtypes[dtype], (double)dt, (double)theta, steps));
  PetscCall(Report(p1, T, 0, 0, vol, -1));
  for (PetscInt k = 1; k <= steps; k++) {
    const PetscReal lhs[SQUALL_P1_NUM_TERMS] = {1, theta * dt, theta * dt, 0}, rhs[SQUALL_P1_NUM_TERMS] = {1, -(1 - theta) * dt, -(1 - theta) * dt, 0};
    PetscInt        its;

    /* the wind and diffusivity could change every step; the operator is reassembled regardless */
    PetscCall(SquallP1AssembleOperator(p1, lhs, A));
    PetscCall(SquallP1AssembleRHS(p1, rhs, T, b));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSolve(ksp, b, T));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    if (monitor) PetscCall(Report(p1, T, k, k * dt, vol, its));
  }
  if (!monitor) PetscCall(Report(p1, T, steps, steps * dt, vol, -1));
  if (vtk[0]) PetscCall(MountainWriteVTK(T, vtk));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&one));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&T));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&K));
  PetscCall(VecDestroy(&Ke));
  PetscCall(SquallP1Destroy(&p1));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
