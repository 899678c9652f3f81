static char help[] = "KSP hbcg on the hipBone operator (mesh from the -hb_* options): the residual history and the solution equal\n"
                     "PETSc's cg (PC none, Jacobi, a generic PC; preconditioned, unpreconditioned and natural norms; fused and\n"
                     "Vec backends; with a monitor, which makes hbcg update x in every iteration, and without, where it\n"
                     "updates x in the next direction's pass; the MATSHELL and SquallHBAssemble()) to round-off, and equal\n"
                     "the history of the same problem solved on 1, 2, ... ranks (sub-communicators of the run). -tol: allowed\n"
                     "difference relative to the initial residual (and to max |x|); -compare_cg 0: only the rank-count comparison.\n";

#include <squall.h>
#include "squalltest.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)
#define MAXHIST 1000

typedef struct {
  PetscReal          h[MAXHIST];
  PetscInt           n;
  PetscInt           its;
  KSPConvergedReason reason;
  Vec                x; /* the solution */
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

/* a monitor that reads nothing: its presence alone keeps hbcg's solution current in every iteration */
static PetscErrorCode CountMonitor(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
  (*(PetscInt *)ctx)++;
  return PETSC_SUCCESS;
}

static PetscErrorCode Solve(Mat A, Vec b, KSPType type, PCType pctype, KSPNormType norm, PetscBool fused, PetscBool monitor, History *hist)
{
  PetscInt   calls = 0;
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
  if (monitor) PetscCall(KSPMonitorSet(ksp, CountMonitor, &calls, NULL));
  PetscCall(VecDestroy(&hist->x));
  PetscCall(MatCreateVecs(A, &x, NULL));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetResidualHistory(ksp, (const PetscReal **)&h, &hist->n));
  for (PetscInt i = 0; i < hist->n; i++) hist->h[i] = h[i];
  PetscCall(KSPGetIterationNumber(ksp, &hist->its));
  PetscCall(KSPGetConvergedReason(ksp, &hist->reason));
  PetscCheck(hist->reason > 0, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "%s with PC %s did not converge: %s", type, pctype, KSPConvergedReasons[hist->reason]);
  CHECK(!monitor || calls == hist->its + 1, "the monitor ran %" PetscInt_FMT " times in %" PetscInt_FMT " iterations", calls, hist->its);
  hist->x = x;
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the histories, and the solutions where both are on the same communicator: max |x_a - x_b| / max |x_a| (solves on
   other communicators have other vectors: their solutions are not compared, and the line says so) */
static PetscErrorCode Compare(MPI_Comm comm, const char what[], const History *a, const History *b, PetscReal tol)
{
  PetscReal d = 0, dx = 0, xmax;
  MPI_Comm  ca, cb;
  int       same;
  Vec       e;

  PetscFunctionBegin;
  CHECK(a->n == b->n, "%s: %" PetscInt_FMT " against %" PetscInt_FMT " residual norms", what, a->n, b->n);
  for (PetscInt i = 0; i < a->n; i++) d = PetscMax(d, PetscAbsReal(a->h[i] - b->h[i]) / a->h[0]);
  PetscCall(PetscObjectGetComm((PetscObject)a->x, &ca));
  PetscCall(PetscObjectGetComm((PetscObject)b->x, &cb));
  PetscCallMPI(MPI_Comm_compare(ca, cb, &same));
  if (same == MPI_IDENT) {
    PetscCall(VecDuplicate(a->x, &e));
    PetscCall(VecWAXPY(e, -1.0, a->x, b->x));
    PetscCall(VecNorm(e, NORM_INFINITY, &dx));
    PetscCall(VecNorm(a->x, NORM_INFINITY, &xmax));
    PetscCall(VecDestroy(&e));
    dx /= xmax;
    PetscCall(PetscPrintf(comm, "%-60s %3" PetscInt_FMT " iterations, max |difference|/r0 = %.1e, solutions %.1e\n", what, a->its, (double)d, (double)dx));
  } else
    PetscCall(PetscPrintf(comm, "%-60s %3" PetscInt_FMT " iterations, max |difference|/r0 = %.1e (solutions on other communicators: not compared)\n", what, a->its, (double)d));
  CHECK(d <= tol, "%s: residual histories differ by %g (relative to r0), more than %g", what, (double)d, (double)tol);
  CHECK(dx <= tol, "%s: solutions differ by %g (relative to max |x|), more than %g", what, (double)dx, (double)tol);
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
  History     h1 = {.x = NULL}, h2 = {.x = NULL}, h0 = {.x = NULL};
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

    PetscCall(Solve(A, b, KSPCG, cases[c].pc, cases[c].norm, PETSC_TRUE, PETSC_FALSE, &h1));
    for (PetscInt v = 0; v < 4; v++) {
      const PetscBool fused = (PetscBool)(v % 2 == 0), monitor = (PetscBool)(v >= 2);

      PetscCall(Solve(A, b, SQUALL_KSPHBCG, cases[c].pc, cases[c].norm, fused, monitor, &h2));
      PetscCall(PetscSNPrintf(what, sizeof(what), "hbcg%s%s vs cg, %s:", fused ? "" : " (Vec ops)", monitor ? " (monitor)" : "", cases[c].name));
      PetscCall(Compare(PETSC_COMM_WORLD, what, &h1, &h2, tol));
    }
  }
  PetscCall(Solve(A, b, SQUALL_KSPHBCG, PCJACOBI, KSP_NORM_PRECONDITIONED, PETSC_TRUE, PETSC_FALSE, &h0));
  if (cmpcg) {
    /* any Mat: the assembled operator */
    PetscCall(SquallHBAssemble(A, MATAIJ, &B));
    PetscCall(Solve(B, b, SQUALL_KSPHBCG, PCJACOBI, KSP_NORM_PRECONDITIONED, PETSC_TRUE, PETSC_FALSE, &h2));
    PetscCall(Compare(PETSC_COMM_WORLD, "hbcg: MATSHELL vs assembled MATAIJ, PC jacobi:", &h0, &h2, tol));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&h2.x));

  /* the same problem on sub-communicators of 1, 2, 4, ... ranks: the history of the whole run */
  for (PetscMPIInt s = 1; s < size; s *= 2) {
    MPI_Comm sub;
    char     what[128];

    if (size % s) continue;
    PetscCallMPI(MPI_Comm_split(PETSC_COMM_WORLD, rank / s, rank, &sub));
    PetscCall(Problem(sub, &A, &b));
    PetscCall(Solve(A, b, SQUALL_KSPHBCG, PCJACOBI, KSP_NORM_PRECONDITIONED, PETSC_TRUE, PETSC_FALSE, &h1));
    PetscCall(PetscSNPrintf(what, sizeof(what), "hbcg on %d rank(s) vs %d ranks, PC jacobi:", s, size));
    PetscCall(Compare(PETSC_COMM_WORLD, what, &h0, &h1, tol));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscCall(VecDestroy(&h1.x));
    PetscCallMPI(MPI_Comm_free(&sub));
  }
  PetscCall(VecDestroy(&h0.x));
  PetscCall(VecDestroy(&h1.x));
  PetscCall(PetscFinalize());
  return 0;
}
