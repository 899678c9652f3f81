static char help[] = "Vector Helmholtz (implicit viscous) step for the momentum over a bell-shaped mountain, P1 CG on\n"
                     "tetrahedra with 3 components per node (block size 3, the interleaved AIJ(CUSPARSE) path):\n"
                     "  (M + dt nu D) (x) I3 + dt lambda G) w = M w0,   G_ab = int (div v)(div w) (grad-div)\n"
                     "w0 is the terrain-following wind plus a jet; the step must lower the kinetic energy and, with lambda > 0,\n"
                     "the divergence. Solve with any KSP/PC (-ksp_type cg -pc_type gamg / hypre / jacobi; GAMG reads the block size).\n"
                     "Mesh: -p1_mesh (default mountain: -mountain_*); operators: -p1_*; and\n"
                     "  -helmholtz_dt s, -helmholtz_nu m^2/s (viscosity), -helmholtz_lambda m^2/s (grad-div), -helmholtz_u0 m/s,\n"
                     "  -helmholtz_jet m/s (amplitude of a jet at 5 km), -helmholtz_vtk base\n\n";

#include "mountain_common.h"

typedef struct {
  MountainWind wind;
  PetscReal    jet;
} Helmholtz;

static PetscErrorCode InitialMomentum(const PetscReal x[3], PetscScalar w[], void *ctx)
{
  const Helmholtz *hz = (const Helmholtz *)ctx;

  PetscCall(MountainWindFn(x, w, (void *)&hz->wind));
  /* a jet in y at 5 km with a sheared, divergent vertical part */
  w[1] += hz->jet * PetscExpReal(-PetscSqr((x[2] - 5000) / 1500)) * PetscCosReal(2 * PETSC_PI * x[0] / hz->wind.m.L[0]);
  w[2] += 0.1 * hz->jet * PetscSinReal(2 * PETSC_PI * x[1] / hz->wind.m.L[1]) * x[2] * (hz->wind.m.H - x[2]) / PetscSqr(hz->wind.m.H);
  return PETSC_SUCCESS;
}

/* w^T B w with a work vector */
static PetscErrorCode QuadraticForm(Mat B, Vec w, Vec work, PetscReal *q)
{
  PetscScalar s;

  PetscFunctionBegin;
  PetscCall(MatMult(B, w, work));
  PetscCall(VecDot(w, work, &s));
  *q = PetscRealPart(s);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Helmholtz       hz = {.jet = 15};
  DM              dm;
  SquallP1        p1;
  Vec             w, b, work;
  Mat             A, M, G;
  KSP             ksp;
  PetscReal       dt = 600, nu = 500, lambda = 2000, ke0, ke1, dv0, dv1;
  PetscInt        its;
  char            vtk[PETSC_MAX_PATH_LEN] = "";
  const PetscReal cm[SQUALL_P1_NUM_TERMS] = {1, 0, 0, 0}, cg[SQUALL_P1_NUM_TERMS] = {0, 0, 0, 1};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  hz.wind.U0 = 10;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Mountain vector Helmholtz", NULL);
  PetscCall(PetscOptionsReal("-helmholtz_dt", "Time step (s)", NULL, dt, &dt, NULL));
  PetscCall(PetscOptionsReal("-helmholtz_nu", "Viscosity (m^2/s)", NULL, nu, &nu, NULL));
  PetscCall(PetscOptionsReal("-helmholtz_lambda", "Grad-div coefficient (m^2/s)", NULL, lambda, &lambda, NULL));
  PetscCall(PetscOptionsReal("-helmholtz_u0", "Wind speed far from the hill (m/s)", NULL, hz.wind.U0, &hz.wind.U0, NULL));
  PetscCall(PetscOptionsReal("-helmholtz_jet", "Jet amplitude (m/s)", NULL, hz.jet, &hz.jet, NULL));
  PetscCall(PetscOptionsString("-helmholtz_vtk", "Write the new momentum to <base>.vtu", NULL, vtk, vtk, sizeof(vtk), NULL));
  PetscOptionsEnd();
  PetscCheck(dt > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-helmholtz_dt %g is out of range: it must be positive", (double)dt);
  PetscCheck(nu >= 0 && lambda >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-helmholtz_nu %g and -helmholtz_lambda %g must be >= 0", (double)nu, (double)lambda);

  PetscCall(MountainSetUp(&hz.wind, &dm, &p1));
  PetscCall(SquallP1CreateVector(p1, 3, &w));
  PetscCall(PetscObjectSetName((PetscObject)w, "momentum"));
  PetscCall(SquallP1Interpolate(p1, 3, InitialMomentum, &hz, w));
  PetscCall(VecDuplicate(w, &b));
  PetscCall(VecDuplicate(w, &work));

  /* the step operator, the mass matrix (kinetic energy) and the grad-div matrix (divergence), all bs 3 */
  {
    const PetscReal ca[SQUALL_P1_NUM_TERMS] = {1, 0, dt * nu, dt * lambda};

    PetscCall(SquallP1CreateMatrix(p1, 3, &A));
    PetscCall(SquallP1CreateMatrix(p1, 3, &M));
    PetscCall(SquallP1CreateMatrix(p1, 3, &G));
    PetscCall(SquallP1AssembleOperator(p1, ca, A));
    PetscCall(SquallP1AssembleOperator(p1, cm, M));
    PetscCall(SquallP1AssembleOperator(p1, cg, G));
  }
  PetscCall(QuadraticForm(M, w, work, &ke0));
  PetscCall(QuadraticForm(G, w, work, &dv0));
  PetscCall(SquallP1AssembleRHS(p1, cm, w, b));

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
  /* a solve that does not converge stops the run (PETSc's -ksp_error_if_not_converged 0 turns that off) */
  PetscCall(KSPSetErrorIfNotConverged(ksp, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, w));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(PetscInfo(ksp, "%" PetscInt_FMT " KSP iterations\n", its));
  PetscCall(QuadraticForm(M, w, work, &ke1));
  PetscCall(QuadraticForm(G, w, work, &dv1));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "dt = %g s, nu = %g m^2/s, lambda = %g m^2/s\n", (double)dt, (double)nu, (double)lambda));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "kinetic energy (int |w|^2 / 2): %.8e -> %.8e\n", (double)(0.5 * ke0), (double)(0.5 * ke1)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "int (div w)^2:                   %.8e -> %.8e\n", (double)dv0, (double)dv1));
  PetscCheck(ke1 < ke0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The viscous step raised the kinetic energy");
  PetscCheck(lambda == 0 || dv1 < dv0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The grad-div term did not lower the divergence");
  if (vtk[0]) PetscCall(MountainWriteVTK(w, vtk));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&M));
  PetscCall(MatDestroy(&G));
  PetscCall(VecDestroy(&work));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&w));
  PetscCall(SquallP1Destroy(&p1));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
