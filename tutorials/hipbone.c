static char help[] = "hipBone / NekBone benchmark: conjugate gradients on the screened Poisson operator\n"
                     "A = Z^T (S_L + lambda W) Z of hex spectral elements (matrix-free MATSHELL, squall's KSP hbcg).\n"
                     "  -hb_order N            polynomial order 1..15 (default 7)\n"
                     "  -hb_target_dofs n      size the brick so that the number of unknowns N_G is close to n (default 1e6),\n"
                     "                         unless -hb_elements Ex,Ey,Ez is given\n"
                     "  -hb_iterations k       run exactly k CG iterations, as NekBone does (default 50); 0: iterate to -ksp_rtol\n"
                     "  -hb_vec_type cuda      vectors (and so the operator and hbcg's vector kernels) on the GPU\n"
                     "  -hb_warmup k           untimed solves first (default 1)\n"
                     "Other operator options: -hb_lambda, -hb_dirichlet, -hb_shear, -hb_bounds, -hb_kernel; any KSP/PC\n"
                     "option, e.g. -ksp_type cg to compare with PETSc's CG, -pc_type jacobi, -ksp_monitor.\n"
                     "Figure of merit as NekBone: FLOPs = (15 Np + 19 Np + 12 Nq^4) E iterations (Nq = N+1, Np = Nq^3).\n";

#include <squall.h>
#include <petscdevice.h>

/* -Laplace(u) + 0 u = f for u = sin(pi x) sin(pi y) sin(pi z) (the error is printed with -hb_dirichlet -hb_lambda 0) */
static PetscErrorCode Exact(const PetscReal x[3], PetscScalar *u, void *ctx)
{
  *u = PetscSinReal(PETSC_PI * x[0]) * PetscSinReal(PETSC_PI * x[1]) * PetscSinReal(PETSC_PI * x[2]);
  return PETSC_SUCCESS;
}

static PetscErrorCode Source(const PetscReal x[3], PetscScalar *f, void *ctx)
{
  PetscCall(Exact(x, f, ctx));
  *f *= 3 * PETSC_PI * PETSC_PI;
  return PETSC_SUCCESS;
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  Mat                A;
  Vec                x, b, ue;
  KSP                ksp;
  SquallHBInfo       info;
  PetscInt           N = 7, E[3], iterations = 50, warmup = 1, its;
  PetscReal          target = 1e6, rnorm;
  PetscBool          given;
  PetscLogDouble     t0, t1, flops, dt;
  KSPConvergedReason reason;
  PetscMPIInt        size;
  KSPType            type;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscOptionsBegin(comm, NULL, "hipBone benchmark", NULL);
  PetscCall(PetscOptionsInt("-hb_order", "Polynomial order", "SquallHBCreateOperator", N, &N, NULL));
  PetscCall(PetscOptionsReal("-hb_target_dofs", "Number of unknowns to aim for (unless -hb_elements is given)", NULL, target, &target, NULL));
  PetscCheck(target >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_target_dofs %g is out of range: must be at least 1", (double)target);
  PetscCall(PetscOptionsInt("-hb_iterations", "Fixed number of CG iterations (0: iterate to -ksp_rtol)", NULL, iterations, &iterations, NULL));
  PetscCheck(iterations >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_iterations %" PetscInt_FMT " is out of range: must be 0 (to tolerance) or positive", iterations);
  PetscCall(PetscOptionsInt("-hb_warmup", "Untimed solves before the timed one", NULL, warmup, &warmup, NULL));
  PetscCheck(warmup >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-hb_warmup %" PetscInt_FMT " is out of range: must be at least 0", warmup);
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasName(NULL, NULL, "-hb_elements", &given));
  if (N >= 1 && N <= SQUALL_LGL_MAX_ORDER) PetscCall(SquallHBElementsForDofs(N, target, E));
  PetscCall(SquallHBCreateSolver(comm, N, given ? NULL : E, Source, NULL, iterations, &A, &ksp, &x, &b));
  PetscCall(SquallHBGetInfo(A, &info));
  PetscCall(PetscPrintf(comm, "hipBone: N = %" PetscInt_FMT ", %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " = %" PetscInt_FMT " elements, N_G = %" PetscInt_FMT " unknowns, N_L = %" PetscInt_FMT " element nodes, %d rank(s)\n", info.order,
                        info.elements[0], info.elements[1], info.elements[2], info.nelem_global, info.ndof_global, info.nlocal_global, size));

  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  for (PetscInt w = 0; w < warmup; w++) {
    PetscCall(VecZeroEntries(x));
    PetscCall(KSPSolve(ksp, b, x));
  }
  PetscCall(VecZeroEntries(x));
  PetscCall(SquallSynchronize(x));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(SquallSynchronize(x));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  dt = t1 - t0;
  {
    const PetscLogDouble Nq = info.Nq, Np = Nq * Nq * Nq;

    flops = (15 * Np + 19 * Np + 12 * Np * Nq) * info.nelem_global * its;
  }
  PetscCall(KSPGetType(ksp, &type));
  PetscCall(PetscPrintf(comm, "%s: %" PetscInt_FMT " iterations (%s), residual norm %.6e\n", type, its, KSPConvergedReasons[reason], (double)rnorm));
  if (info.dirichlet && info.lambda == 0) {
    PetscReal err;

    PetscCall(VecDuplicate(x, &ue));
    PetscCall(SquallHBInterpolate(A, Exact, NULL, ue));
    PetscCall(VecAXPY(ue, -1, x));
    PetscCall(VecNorm(ue, NORM_INFINITY, &err));
    PetscCall(PetscPrintf(comm, "max nodal error against the exact solution: %.3e\n", (double)err));
    PetscCall(VecDestroy(&ue));
  }
  PetscCall(PetscPrintf(comm, "time %.4e s, %.4e s per iteration, FOM %.2f GFLOP/s (NekBone count), %.4e DOF x iterations / s\n", dt, its ? dt / its : 0.0, dt > 0 ? flops / dt / 1e9 : 0.0, dt > 0 ? (PetscLogDouble)info.ndof_global * its / dt : 0.0));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
