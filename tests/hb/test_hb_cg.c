static char help[] = "KSP hbcg on the hipBone operator (mesh from the -hb_* options): the residual history equals PETSc's cg\n"
                     "(PC none, Jacobi, a generic PC; preconditioned, unpreconditioned and natural norms; fused and Vec\n"
                     "backends; the MATSHELL and SquallHBAssemble()) to round-off, and equals the history of the same\n"
                     "problem solved on 1, 2, ... ranks (sub-communicators of the run). -tol: allowed difference relative\n"
                     "to the initial residual; -compare_cg 0: only the rank-count comparison.\n";

#include <squall.h>
#include "squalltest.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)
#define MAXHIST 1000

typedef struct {
  PetscReal          h[MAXHIST];
  PetscInt           n;
  PetscInt           its;
  KSPConvergedReason reason;
} History;

static PetscErrorCode Source(const PetscReal x[3], PetscScalar *f, void *ctx)
{
  *f = PetscExpReal(x[0]) * PetscSinReal(3 * x[1] + 1) + x[2] * x[2] - 0.5 * x[0] * x[1];
  return PETSC_SUCCESS;
}

/* a symmetric positive diagonal scaling unknown to hbcg: exercises its generic PCApply() path */
static PetscReal ShellScale(PetscInt r)
{
  return 1 + 0.25 * PetscSinReal((PetscReal)r);
}

static PetscErrorCode ShellPCApply(PC pc, Vec x, Vec y)
{
  return SquallTestScaleRows(x, y, ShellScale);
}

static PetscErrorCode Solve(Mat A, Vec b, KSPType type, PCType pctype, KSPNormType norm, PetscBool fused, History *hist)
{
  KSP        ksp;
  PC         pc;
  Vec        x;
  PetscReal *h;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pctype));
  if (!strcmp(pctype, PCSHELL)) PetscCall(PCShellSetApply(pc, ShellPCApply));
  /* rtol: 1e-10, or 1000 eps where that is below the attainable accuracy of CG (single) */
  PetscCall(KSPSetTolerances(ksp, SQUALL_TOL(1e-10, 1000), PETSC_CURRENT, PETSC_CURRENT, 500));
  PetscCall(KSPSetNormType(ksp, norm));
  PetscCall(KSPSetResidualHistory(ksp, NULL, MAXHIST, PETSC_TRUE));
  if (!fused) PetscCall(PetscOptionsSetValue(NULL, "-ksp_hbcg_fused", "0"));
  PetscCall(KSPSetFromOptions(ksp));
  if (!fused) PetscCall(PetscOptionsClearValue(NULL, "-ksp_hbcg_fused"));
  PetscCall(MatCreateVecs(A, &x, NULL));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetResidualHistory(ksp, (const PetscReal **)&h, &hist->n));
  for (PetscInt i = 0; i < hist->n; i++) hist->h[i] = h[i];
  PetscCall(KSPGetIterationNumber(ksp, &hist->its));
  PetscCall(KSPGetConvergedReason(ksp, &hist->reason));
  PetscCheck(hist->reason > 0, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "%s with PC %s did not converge: %s", type, pctype, KSPConvergedReasons[hist->reason]);
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(MPI_Comm comm, const char what[], const History *a, const History *b, PetscReal tol)
{
  PetscReal d = 0;

  PetscFunctionBegin;
  CHECK(a->n == b->n, "%s: %" PetscInt_FMT " against %" PetscInt_FMT " residual norms", what, a->n, b->n);
  for (PetscInt i = 0; i < a->n; i++) d = PetscMax(d, PetscAbsReal(a->h[i] - b->h[i]) / a->h[0]);
  PetscCall(PetscPrintf(comm, "%-52s %3" PetscInt_FMT " iterations, max |difference|/r0 = %.1e\n", what, a->its, (double)d));
  CHECK(d <= tol, "%s: residual histories differ by %g (relative to r0), more than %g", what, (double)d, (double)tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Problem(MPI_Comm comm, Mat *A, Vec *b)
{
  PetscFunctionBegin;
  PetscCall(SquallHBCreateOperator(comm, PETSC_DECIDE, NULL, A));
  PetscCall(MatCreateVecs(*A, NULL, b));
  PetscCall(SquallHBComputeRHS(*A, Source, NULL, *b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Mat         A, B;
  Vec         b;
  History     h1, h2, h0;
  PetscReal   tol   = SQUALL_TOL(1e-12, 100); /* round-off of the residual norms, relative to r0 */
  PetscBool   cmpcg = PETSC_TRUE;
  PetscMPIInt size, rank;
  const struct {
    PCType      pc;
    KSPNormType norm;
    const char *name;
  } cases[] = {
    {PCNONE, KSP_NORM_PRECONDITIONED, "PC none"},
    {PCJACOBI, KSP_NORM_PRECONDITIONED, "PC jacobi, preconditioned norm"},
    {PCJACOBI, KSP_NORM_UNPRECONDITIONED, "PC jacobi, unpreconditioned norm"},
    {PCJACOBI, KSP_NORM_NATURAL, "PC jacobi, natural norm"},
    {PCSHELL, KSP_NORM_PRECONDITIONED, "PC shell (generic PCApply)"},
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-compare_cg", &cmpcg, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(Problem(PETSC_COMM_WORLD, &A, &b));

  for (size_t c = 0; c < (cmpcg ? PETSC_STATIC_ARRAY_LENGTH(cases) : 0); c++) {
    char what[128];

    PetscCall(Solve(A, b, KSPCG, cases[c].pc, cases[c].norm, PETSC_TRUE, &h1));
    PetscCall(Solve(A, b, SQUALL_KSPHBCG, cases[c].pc, cases[c].norm, PETSC_TRUE, &h2));
    PetscCall(PetscSNPrintf(what, sizeof(what), "hbcg vs cg, %s:", cases[c].name));
    PetscCall(Compare(PETSC_COMM_WORLD, what, &h1, &h2, tol));
    PetscCall(Solve(A, b, SQUALL_KSPHBCG, cases[c].pc, cases[c].norm, PETSC_FALSE, &h2));
    PetscCall(PetscSNPrintf(what, sizeof(what), "hbcg (Vec ops) vs cg, %s:", cases[c].name));
    PetscCall(Compare(PETSC_COMM_WORLD, what, &h1, &h2, tol));
  }
  PetscCall(Solve(A, b, SQUALL_KSPHBCG, PCJACOBI, KSP_NORM_PRECONDITIONED, PETSC_TRUE, &h0));
  if (cmpcg) {
    /* any Mat: the assembled operator */
    PetscCall(SquallHBAssemble(A, MATAIJ, &B));
    PetscCall(Solve(B, b, SQUALL_KSPHBCG, PCJACOBI, KSP_NORM_PRECONDITIONED, PETSC_TRUE, &h2));
    PetscCall(Compare(PETSC_COMM_WORLD, "hbcg: MATSHELL vs assembled MATAIJ, PC jacobi:", &h0, &h2, tol));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));

  /* the same problem on sub-communicators of 1, 2, 4, ... ranks: the history of the whole run */
  for (PetscMPIInt s = 1; s < size; s *= 2) {
    MPI_Comm sub;
    char     what[128];

    if (size % s) continue;
    PetscCallMPI(MPI_Comm_split(PETSC_COMM_WORLD, rank / s, rank, &sub));
    PetscCall(Problem(sub, &A, &b));
    PetscCall(Solve(A, b, SQUALL_KSPHBCG, PCJACOBI, KSP_NORM_PRECONDITIONED, PETSC_TRUE, &h1));
    PetscCall(PetscSNPrintf(what, sizeof(what), "hbcg on %d rank(s) vs %d ranks, PC jacobi:", s, size));
    PetscCall(Compare(PETSC_COMM_WORLD, what, &h0, &h1, tol));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscCallMPI(MPI_Comm_free(&sub));
  }
  PetscCall(PetscFinalize());
  return 0;
}
