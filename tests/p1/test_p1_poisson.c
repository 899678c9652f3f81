static char help[] = "P1 Poisson problem -div grad u = f on the unit cube with the manufactured solution\n"
                     "u = sin(pi x) sin(pi y) sin(pi z) (homogeneous Dirichlet), on box meshes of n^3 hexahedra split into\n"
                     "6 tetrahedra each. Checks second-order convergence in L2 and, on several ranks, that the solution\n"
                     "equals the one computed on a single rank node by node.\n"
                     "  -levels n1,n2,...   hexahedra per direction of each mesh (default 8,16,24)\n"
                     "  -min_order <1.9>    smallest acceptable observed order\n"
                     "  -compare_serial     also solve on PETSC_COMM_SELF and compare node by node (default on with several ranks)\n";

#include <squall.h>
#include "squalltest.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_WORLD, PETSC_ERR_PLIB, __VA_ARGS__)

static PetscErrorCode Exact(const PetscReal x[3], PetscScalar u[], void *ctx)
{
  u[0] = PetscSinReal(PETSC_PI * x[0]) * PetscSinReal(PETSC_PI * x[1]) * PetscSinReal(PETSC_PI * x[2]);
  return PETSC_SUCCESS;
}

static PetscErrorCode Source(const PetscReal x[3], PetscScalar f[], void *ctx)
{
  PetscCall(Exact(x, f, ctx));
  f[0] *= 3 * PETSC_PI * PETSC_PI;
  return PETSC_SUCCESS;
}

/* solves on the box with n^3 hexahedra over comm; returns the L2 error and, if wanted, the nodal
   solution by lattice index (i + (n+1)(j + (n+1)k)), zero where not owned */
static PetscErrorCode Solve(MPI_Comm comm, PetscInt n, PetscReal *err, PetscInt *nodes, PetscInt *tets, PetscReal **lattice)
{
  const PetscInt     faces[3] = {n, n, n};
  const PetscReal    cd[4] = {0, 0, 1, 0}, cm[4] = {1, 0, 0, 0};
  DM                 dm;
  SquallP1           p1;
  Mat                A;
  Vec                u, b, f, X;
  KSP                ksp;
  PetscInt           nown, nb = 0, *rows, rstart;
  const PetscScalar *x, *ua;

  PetscFunctionBegin;
  PetscCall(SquallP1CreateBoxMesh(comm, faces, NULL, NULL, &dm));
  PetscCall(SquallP1Create(dm, &p1));
  PetscCall(SquallP1SetFromOptions(p1));
  PetscCall(SquallP1SetUp(p1));
  PetscCall(SquallP1GetSizes(p1, &nown, nodes, NULL, tets));
  PetscCall(SquallP1CreateMatrix(p1, 1, &A));
  PetscCall(SquallP1AssembleOperator(p1, cd, A));
  PetscCall(SquallP1CreateVector(p1, 1, &u));
  PetscCall(VecDuplicate(u, &b));
  PetscCall(VecDuplicate(u, &f));
  PetscCall(SquallP1Interpolate(p1, 1, Source, NULL, f));
  PetscCall(SquallP1AssembleRHS(p1, cm, f, b));

  /* homogeneous Dirichlet on the boundary nodes */
  PetscCall(SquallP1GetCoordinates(p1, &X));
  PetscCall(VecGetOwnershipRange(u, &rstart, NULL));
  PetscCall(PetscMalloc1(nown, &rows));
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt i = 0; i < nown; i++) {
    PetscBool bnd = PETSC_FALSE;
    for (PetscInt d = 0; d < 3; d++) bnd = (PetscBool)(bnd || PetscAbsReal(PetscRealPart(x[3 * i + d])) < SQUALL_TOL(1e-12, 10) || PetscAbsReal(PetscRealPart(x[3 * i + d]) - 1) < SQUALL_TOL(1e-12, 10));
    if (bnd) rows[nb++] = rstart + i;
  }
  PetscCall(VecSet(u, 0));
  PetscCall(MatZeroRowsColumns(A, nb, rows, 1.0, u, b));
  PetscCall(PetscFree(rows));

  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, SQUALL_TOL(1e-13, 10), 1e-50, PETSC_DEFAULT, 2000)); /* in single: 10 eps, reachable */
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, u));
  PetscCall(SquallP1ComputeL2Error(p1, u, Exact, NULL, err));

  if (lattice) {
    const PetscInt nn = (n + 1) * (n + 1) * (n + 1);

    PetscCall(PetscCalloc1(nn, lattice));
    PetscCall(VecGetArrayRead(u, &ua));
    for (PetscInt i = 0; i < nown; i++) {
      PetscInt l[3];
      for (PetscInt d = 0; d < 3; d++) l[d] = (PetscInt)PetscFloorReal(PetscRealPart(x[3 * i + d]) * n + 0.5);
      (*lattice)[l[0] + (n + 1) * (l[1] + (n + 1) * l[2])] = PetscRealPart(ua[i]);
    }
    PetscCall(VecRestoreArrayRead(u, &ua));
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&f));
  PetscCall(MatDestroy(&A));
  PetscCall(SquallP1Destroy(&p1));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    levels[8] = {8, 16, 24}, nl = 8;
  PetscReal   err[8], minorder            = 1.9;
  PetscMPIInt size;
  PetscBool   cmp, flg;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  cmp = size > 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "P1 Poisson convergence", NULL);
  PetscCall(PetscOptionsIntArray("-levels", "Hexahedra per direction of each mesh", NULL, levels, &nl, &flg));
  PetscCall(PetscOptionsReal("-min_order", "Smallest acceptable observed order", NULL, minorder, &minorder, NULL));
  PetscCall(PetscOptionsBool("-compare_serial", "Compare with a single-rank solution node by node", NULL, cmp, &cmp, NULL));
  PetscOptionsEnd();
  if (!flg) nl = 3;
  for (PetscInt l = 0; l < nl; l++) {
    PetscInt   nodes, tets;
    PetscReal *par = NULL;

    PetscCall(Solve(PETSC_COMM_WORLD, levels[l], &err[l], &nodes, &tets, cmp && l == nl - 1 ? &par : NULL));
    if (l == 0)
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "level %" PetscInt_FMT ": %" PetscInt_FMT " nodes, %" PetscInt_FMT " tetrahedra, L2 error %.8e\n", levels[l], nodes, tets, (double)err[l]));
    else {
      const PetscReal order = PetscLog2Real(err[l - 1] / err[l]) / PetscLog2Real((PetscReal)levels[l] / levels[l - 1]);

      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "level %" PetscInt_FMT ": %" PetscInt_FMT " nodes, %" PetscInt_FMT " tetrahedra, L2 error %.8e, order %.4f\n", levels[l], nodes, tets, (double)err[l], (double)order));
      CHECK(order >= minorder, "observed order %g below %g", (double)order, (double)minorder);
    }
    if (par) {
      /* the same problem on one rank (each rank solves it redundantly): node-by-node agreement */
      const PetscInt n = levels[l], nn = (n + 1) * (n + 1) * (n + 1);
      PetscReal     *ser, es, dmax = 0, umax = 0;

      PetscCall(Solve(PETSC_COMM_SELF, n, &es, &nodes, &tets, &ser));
      for (PetscInt k = 0; k < nn; k++) {
        umax = PetscMax(umax, PetscAbsReal(ser[k]));
        if (par[k] != 0) dmax = PetscMax(dmax, PetscAbsReal(par[k] - ser[k]));
      }
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &dmax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
      PetscCall(PetscInfo(NULL, "%d ranks vs 1 rank: max nodal difference %g, L2 errors %.12e vs %.12e\n", size, (double)(dmax / umax), (double)err[l], (double)es));
      /* round-off amplified by the condition of the level-24 Laplacian, about 24^2: 1000 eps in single */
      CHECK(dmax <= SQUALL_TOL(1e-9, 1000) * umax, "the %d-rank solution differs from the 1-rank one by %g (relative)", size, (double)(dmax / umax));
      /* | |e_1| - |e_n| | <= |u_1 - u_n|_L2 <= dmax on the unit cube: in single the bound 1000 eps umax of dmax */
      CHECK(PetscAbsReal(es - err[l]) <= PetscMax((PetscReal)1e-9 * es, 1000 * PETSC_MACHINE_EPSILON * umax), "L2 errors differ: %d ranks %.15g, 1 rank %.15g", size, (double)err[l], (double)es);
      PetscCall(PetscFree(ser));
      PetscCall(PetscFree(par));
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}
