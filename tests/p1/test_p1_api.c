static char help[] = "The P1 operators' convenience API (SquallP1AssembleMass/Advection/Diffusion) against integrals that P1 on affine\n"
                     "tetrahedra computes exactly: on a box [0,2]x[0,1]x[0,3] (volume 6), 1.M.1 = volume and, with a linear\n"
                     "density 1 + x, 12; w.S.w = int |grad w|^2 = 6 volume for w = x + 2y - z; 1.A.x = int u.grad x = volume for\n"
                     "u = (1, 0, 0). Also the getters and the checks of SquallP1SetAssemblyMode() and SquallP1SetAssemblyType(). -faces nx,ny,nz (default 3,2,4).\n";

#include <squall.h>
#include "squalltest.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)

static PetscErrorCode One(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  f[0] = 1;
  return PETSC_SUCCESS;
}

static PetscErrorCode X(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  f[0] = x[0];
  return PETSC_SUCCESS;
}

static PetscErrorCode Density(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  f[0] = 1 + x[0];
  return PETSC_SUCCESS;
}

static PetscErrorCode W(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  f[0] = x[0] + 2 * x[1] - x[2];
  return PETSC_SUCCESS;
}

static PetscErrorCode Wind(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  f[0] = 1;
  f[1] = 0;
  f[2] = 0;
  return PETSC_SUCCESS;
}

/* a^T M b */
static PetscErrorCode Form(Mat M, Vec a, Vec b, PetscReal *v)
{
  Vec         Mb;
  PetscScalar d;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &Mb));
  PetscCall(MatMult(M, b, Mb));
  PetscCall(VecDot(Mb, a, &d));
  *v = PetscRealPart(d);
  PetscCall(VecDestroy(&Mb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Expect(const char what[], PetscReal got, PetscReal exact)
{
  /* sums over a few hundred elements of values of order 1: round-off */
  const PetscReal tol = SQUALL_TOL(1e-13, 1000);

  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-48s %.15g (exact %g)\n", what, (double)got, (double)exact));
  CHECK(PetscAbsReal(got - exact) <= tol * PetscAbsReal(exact), "%s = %.17g, exact %g", what, (double)got, (double)exact);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  DM                   dm, dm1;
  SquallP1             p1;
  SquallP1Backend      be;
  SquallP1AssemblyType at;
  Mat                  M;
  Vec                  one, x, w, rho, u;
  PetscInt             faces[3] = {3, 2, 4}, nf = 3;
  const PetscReal      lo[3] = {0, 0, 0}, hi[3] = {2, 1, 3}, vol = 6;
  PetscReal            v;
  PetscBool            sym;
  PetscErrorCode       ierr;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-faces", faces, &nf, NULL));
  PetscCall(SquallP1CreateBoxMesh(PETSC_COMM_WORLD, faces, lo, hi, &dm));
  PetscCall(SquallP1DistributeMesh(&dm));
  PetscCall(SquallP1Create(dm, &p1));
  PetscCall(SquallP1SetFromOptions(p1));
  PetscCall(SquallP1SetUp(p1));

  /* getters */
  PetscCall(SquallP1GetDM(p1, &dm1));
  CHECK(dm1 == dm, "SquallP1GetDM() does not return the DM of SquallP1Create()");
  PetscCall(SquallP1GetBackend(p1, &be));
  PetscCall(SquallP1GetAssemblyType(p1, &at));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "backend %s, assembly %s\n", SquallP1Backends[be], SquallP1AssemblyTypes[at]));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SquallP1SetAssemblyMode(p1, (SquallP1AssemblyMode)3);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "SquallP1SetAssemblyMode() accepted an unknown mode (error %d)", (int)ierr);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SquallP1SetAssemblyType(p1, (SquallP1AssemblyType)3);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "SquallP1SetAssemblyType() accepted an unknown type (error %d)", (int)ierr);
  PetscCall(SquallP1ComputeGeometry(p1));

  PetscCall(SquallP1CreateVector(p1, 1, &one));
  PetscCall(VecDuplicate(one, &x));
  PetscCall(VecDuplicate(one, &w));
  PetscCall(VecDuplicate(one, &rho));
  PetscCall(SquallP1CreateVector(p1, 3, &u));
  PetscCall(SquallP1Interpolate(p1, 1, One, NULL, one));
  PetscCall(SquallP1Interpolate(p1, 1, X, NULL, x));
  PetscCall(SquallP1Interpolate(p1, 1, W, NULL, w));
  PetscCall(SquallP1Interpolate(p1, 1, Density, NULL, rho));
  PetscCall(SquallP1Interpolate(p1, 3, Wind, NULL, u));
  PetscCall(SquallP1CreateMatrix(p1, 1, &M));

  /* mass: unit density (the default), then 1 + x */
  PetscCall(SquallP1AssembleMass(p1, M));
  PetscCall(MatIsSymmetric(M, SQUALL_TOL(1e-14, 10), &sym));
  CHECK(sym, "the mass matrix is not symmetric");
  PetscCall(Form(M, one, one, &v));
  PetscCall(Expect("mass, 1.M.1 = volume", v, vol));
  PetscCall(Form(M, one, x, &v));
  PetscCall(Expect("mass, 1.M.x = int x", v, 6));
  PetscCall(SquallP1SetMassCoefficient(p1, rho));
  PetscCall(SquallP1AssembleMass(p1, M));
  PetscCall(Form(M, one, one, &v));
  PetscCall(Expect("mass with density 1 + x, 1.M.1 = int (1 + x)", v, 12));
  PetscCall(SquallP1SetMassCoefficient(p1, NULL));

  /* diffusion with K = I (the default): w.S.w = int |grad w|^2 = 6 volume, S 1 = 0 */
  PetscCall(SquallP1AssembleDiffusion(p1, M));
  PetscCall(MatIsSymmetric(M, SQUALL_TOL(1e-14, 10), &sym));
  CHECK(sym, "the diffusion matrix with K = I is not symmetric");
  PetscCall(Form(M, w, w, &v));
  PetscCall(Expect("diffusion, w.S.w = int |grad w|^2", v, 6 * vol));
  PetscCall(Form(M, one, one, &v));
  CHECK(PetscAbsReal(v) <= SQUALL_TOL(1e-13, 1000) * vol, "diffusion: 1.S.1 = %g, not 0", (double)v);

  /* advection with u = (1, 0, 0): 1.A.x = int u . grad x = volume, A 1 = 0 */
  PetscCall(SquallP1SetVelocity(p1, u));
  PetscCall(SquallP1AssembleAdvection(p1, M));
  PetscCall(Form(M, one, x, &v));
  PetscCall(Expect("advection, 1.A.x = int u . grad x", v, vol));
  PetscCall(Form(M, w, one, &v));
  CHECK(PetscAbsReal(v) <= SQUALL_TOL(1e-13, 1000) * vol, "advection: w.A.1 = %g, not 0", (double)v);

  PetscCall(MatDestroy(&M));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&rho));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&one));
  PetscCall(SquallP1Destroy(&p1));
  PetscCall(DMDestroy(&dm));
  PetscCall(PetscFinalize());
  return 0;
}
