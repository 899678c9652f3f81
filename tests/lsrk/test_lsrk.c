static char help[] = "TS lsrk: 2N tables against the order conditions, convergence order of each scheme, swap with TSRK through options,\n"
                     "CFL adaptor, stage rejection with and without -ts_lsrk_rollback, TSRollBack(), a stop requested by the RHS, view,\n"
                     "-ts_lsrk_compensated.\n";

#include <squall.h>
#include "squalltest.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)

/* problem 0: u' = [[-d, w], [-w, -d]] u, u(0) = (1, 0); exact e^{-d t} (cos wt, -sin wt).
   problem 1: u' = cos(t) u^2, u(0) = 1/2; exact 1/(2 - sin t). Non-autonomous and nonlinear, so wrong c_i show. */
#define DECAY 0.5
#define FREQ 2.0

typedef struct {
  PetscInt  problem;
  PetscReal cfltime;   /* > 0: the RHS reports it with TSSetCFLTimeLocal() */
  PetscReal reject_dt; /* > 0: the domain check rejects stages while the step exceeds it */
  PetscBool reject_first_stage_too;
  PetscReal stop_time; /* > 0: the RHS stops the solve (TSSetConvergedReason) past this time */
} Ctx;

static const PetscReal FinalTime[2] = {2.0, 2.0};

static PetscErrorCode RHS(TS ts, PetscReal t, Vec U, Vec F, void *ptr)
{
  Ctx               *ctx = (Ctx *)ptr;
  const PetscScalar *u;
  PetscScalar       *f;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(VecGetArray(F, &f));
  if (ctx->problem == 0) {
    f[0] = -DECAY * u[0] + FREQ * u[1];
    f[1] = -FREQ * u[0] - DECAY * u[1];
  } else {
    f[0] = PetscCosReal(t) * u[0] * u[0];
  }
  PetscCall(VecRestoreArray(F, &f));
  PetscCall(VecRestoreArrayRead(U, &u));
  if (ctx->cfltime > 0) PetscCall(TSSetCFLTimeLocal(ts, ctx->cfltime));
  if (ctx->stop_time > 0 && t > ctx->stop_time) PetscCall(TSSetConvergedReason(ts, TS_DIVERGED_NONLINEAR_SOLVE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* u' = rate: every stage increment is a small fraction of an ulp of u = 1 */
static PetscErrorCode RHSConst(TS ts, PetscReal t, Vec U, Vec F, void *ptr)
{
  PetscFunctionBeginUser;
  PetscCall(VecSet(F, *(PetscReal *)ptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n steps of dt = 1/n of u' = rate from u = 1 for every entry of a vector of m entries (TS options prefix pre, its
   -pre_ts_lsrk_compensated* options set by the caller; stride > 0: the field layout stride, 2 fields);
   err[i] = u_i(1) - (1 + rate) */
static PetscErrorCode SolveConst(const char pre[], PetscInt m, PetscInt stride, PetscInt n, PetscReal rate, PetscReal err[])
{
  TS                 ts;
  Vec                U;
  const PetscScalar *u;

  PetscFunctionBeginUser;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &U));
  PetscCall(VecSet(U, 1.0));
  PetscCall(TSCreate(PETSC_COMM_SELF, &ts));
  PetscCall(TSSetOptionsPrefix(ts, pre));
  PetscCall(TSSetRHSFunction(ts, NULL, RHSConst, &rate));
  PetscCall(TSSetType(ts, SQUALL_TSLSRK));
  PetscCall(SquallTSLSRKSetType(ts, "5s4"));
  if (stride > 0) PetscCall(SquallTSLSRKSetFieldLayout(ts, stride, 2));
  PetscCall(TSSetTimeStep(ts, (PetscReal)1 / n));
  PetscCall(TSSetMaxSteps(ts, n));
  PetscCall(TSSetMaxTime(ts, 10));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSSolve(ts, U));
  PetscCall(VecGetArrayRead(U, &u));
  for (PetscInt i = 0; i < m; i++) err[i] = PetscRealPart(u[i]) - (1 + rate);
  PetscCall(VecRestoreArrayRead(U, &u));
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&U));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Exact(PetscInt problem, PetscReal t, Vec U)
{
  PetscScalar *u;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(U, &u));
  if (problem == 0) {
    u[0] = PetscExpReal(-DECAY * t) * PetscCosReal(FREQ * t);
    u[1] = -PetscExpReal(-DECAY * t) * PetscSinReal(FREQ * t);
  } else {
    u[0] = 1.0 / (2.0 - PetscSinReal(t));
  }
  PetscCall(VecRestoreArray(U, &u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rejects every stage after the first (or every stage) while the step is longer than reject_dt */
static PetscErrorCode DomainCheck(TS ts, PetscReal stagetime, Vec Y, PetscBool *accept)
{
  Ctx      *ctx;
  PetscReal t, dt;

  PetscFunctionBeginUser;
  PetscCall(TSGetApplicationContext(ts, &ctx));
  PetscCall(TSGetTime(ts, &t));
  PetscCall(TSGetTimeStep(ts, &dt));
  *accept = (PetscBool) !(dt > ctx->reject_dt && (ctx->reject_first_stage_too || stagetime > t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Creates a TS for the problem with n steps to FinalTime. scheme: an lsrk scheme set through the API, or NULL
   to take everything from the options under prefix. */
static PetscErrorCode CreateTS(Ctx *ctx, const char prefix[], const char scheme[], PetscInt n, TS *ts, Vec *U)
{
  PetscFunctionBeginUser;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, ctx->problem == 0 ? 2 : 1, U));
  PetscCall(Exact(ctx->problem, 0.0, *U));
  PetscCall(TSCreate(PETSC_COMM_SELF, ts));
  PetscCall(TSSetOptionsPrefix(*ts, prefix));
  PetscCall(TSSetApplicationContext(*ts, ctx));
  PetscCall(TSSetRHSFunction(*ts, NULL, RHS, ctx));
  if (scheme) {
    PetscCall(TSSetType(*ts, SQUALL_TSLSRK));
    PetscCall(SquallTSLSRKSetType(*ts, scheme));
  }
  PetscCall(TSSetTimeStep(*ts, FinalTime[ctx->problem] / n));
  PetscCall(TSSetMaxTime(*ts, FinalTime[ctx->problem]));
  PetscCall(TSSetMaxSteps(*ts, 10 * n));
  PetscCall(TSSetExactFinalTime(*ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(*ts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SolutionError(Ctx *ctx, TS ts, Vec U, PetscReal *err)
{
  Vec       E;
  PetscReal t;

  PetscFunctionBeginUser;
  PetscCall(TSGetTime(ts, &t));
  PetscCall(VecDuplicate(U, &E));
  PetscCall(Exact(ctx->problem, t, E));
  PetscCall(VecAXPY(E, -1.0, U));
  PetscCall(VecNorm(E, NORM_INFINITY, err));
  PetscCall(VecDestroy(&E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a solve at the step 0.1 with the stage check DomainCheck: the steps taken, the rejections and the error */
static PetscErrorCode SolveRejecting(Ctx *ctx, const char prefix[], PetscInt *steps, PetscInt *rejects, PetscReal *err)
{
  TS  ts;
  Vec U;

  PetscFunctionBeginUser;
  PetscCall(CreateTS(ctx, prefix, "14s4", 20, &ts, &U));
  PetscCall(TSSetTimeStep(ts, 0.1));
  PetscCall(TSSetFunctionDomainError(ts, DomainCheck));
  PetscCall(TSSolve(ts, U));
  PetscCall(TSGetStepNumber(ts, steps));
  PetscCall(TSGetStepRejections(ts, rejects));
  PetscCall(SolutionError(ctx, ts, U, err));
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&U));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* solves with n steps and checks that the TS took exactly n steps to the final time */
static PetscErrorCode Solve(Ctx *ctx, const char prefix[], const char scheme[], PetscInt n, PetscReal *err)
{
  TS        ts;
  Vec       U;
  PetscInt  steps;
  PetscReal t;

  PetscFunctionBeginUser;
  PetscCall(CreateTS(ctx, prefix, scheme, n, &ts, &U));
  PetscCall(TSSolve(ts, U));
  PetscCall(TSGetStepNumber(ts, &steps));
  PetscCall(TSGetTime(ts, &t));
  CHECK(steps == n, "%s: %" PetscInt_FMT " steps taken, expected %" PetscInt_FMT, prefix, steps, n);
  /* t is the sum of at most 80 steps */
  CHECK(PetscAbsReal(t - FinalTime[ctx->problem]) < SQUALL_TOL(1e-12, 1000), "%s: stopped at t = %g", prefix, (double)t);
  PetscCall(SolutionError(ctx, ts, U, err));
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&U));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Errors at n = n0, 2 n0, 4 n0, 8 n0 steps (-conv_n0, default 10): the least-squares slope and every pairwise order
   must lie in [3.7, 4.5], and the error constant err(n) (n/80)^4 of the finest step must stay below maxerr80 (the error
   at n = 80). Only errors above the round-off floor 100 eps enter (at least three levels): in double all of them;
   in single, where 14 stages of round-off per step are about 10 eps, CMake passes a smaller n0 (and -conv_problems 1:
   the errors of problem 1 are below 100 eps from n = 4 on; its c_i are checked by the order conditions). */
static PetscErrorCode CheckConvergence(Ctx *ctx, const char prefix[], const char scheme[], PetscReal maxerr80, PetscReal err[4])
{
  const PetscReal floor = 100 * PETSC_MACHINE_EPSILON;
  PetscInt        n[4], n0 = 10, m = 0;
  PetscReal       sx = 0, sy = 0, sxx = 0, sxy = 0, slope;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-conv_n0", &n0, NULL));
  for (PetscInt k = 0; k < 4; k++) {
    n[k] = n0 << k;
    PetscCall(Solve(ctx, prefix, scheme, n[k], &err[k]));
    if (err[k] > floor) m = k + 1;
  }
  CHECK(m >= 3, "%s problem %" PetscInt_FMT ": only %" PetscInt_FMT " errors above the round-off floor %g", prefix, ctx->problem, m, (double)floor);
  for (PetscInt k = 0; k < m; k++) {
    PetscReal x = PetscLog2Real((PetscReal)n[k]), y = -PetscLog2Real(err[k]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "problem %" PetscInt_FMT " %-6s errors %.3e %.3e %.3e %.3e  orders %.3f %.3f %.3f  fit %.3f\n", ctx->problem, scheme ? scheme : prefix, (double)err[0], (double)err[1], (double)err[2], (double)err[3],
                        (double)PetscLog2Real(err[0] / err[1]), (double)PetscLog2Real(err[1] / err[2]), (double)PetscLog2Real(err[2] / err[3]), (double)slope));
  CHECK(slope >= 3.7 && slope <= 4.5, "%s problem %" PetscInt_FMT ": observed order %g outside [3.7, 4.5]", prefix, ctx->problem, (double)slope);
  for (PetscInt k = 0; k + 1 < m; k++) {
    PetscReal p = PetscLog2Real(err[k] / err[k + 1]);
    CHECK(p >= 3.7 && p <= 4.5, "%s problem %" PetscInt_FMT ": order %g between n = %" PetscInt_FMT " and %" PetscInt_FMT " outside [3.7, 4.5]", prefix, ctx->problem, (double)p, n[k], n[k + 1]);
  }
  CHECK(err[m - 1] * PetscPowReal(n[m - 1] / (PetscReal)80, 4) < maxerr80, "%s problem %" PetscInt_FMT ": error %g at n = %" PetscInt_FMT " exceeds %g (80/n)^4", prefix, ctx->problem, (double)err[m - 1], n[m - 1], (double)maxerr80);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Converts the 2N coefficients to Butcher form and checks b, c and the eight order conditions up to order 4:
   a typo in a table breaks at least one of them. Stage i sees Q after i updates, so
   a_ij = sum_{m=j}^{i-1} B_m prod_{k=j+1}^{m} A_k, and b_j is the same sum up to m = s-1. */
static PetscErrorCode CheckTableau(const char scheme[], PetscInt expect_stages)
{
  TS               ts;
  PetscInt         s, order;
  const PetscReal *A, *B, *c;
  PetscReal        a[14][14] = {{0}}, b[14], brec[14], oc[8] = {0};
  const PetscReal  exact[8] = {1.0, 1.0 / 2, 1.0 / 3, 1.0 / 6, 1.0 / 4, 1.0 / 8, 1.0 / 12, 1.0 / 24};
  PetscReal        cerr = 0, oerr = 0;

  PetscFunctionBeginUser;
  PetscCall(TSCreate(PETSC_COMM_SELF, &ts));
  PetscCall(TSSetType(ts, SQUALL_TSLSRK));
  PetscCall(SquallTSLSRKSetType(ts, scheme));
  PetscCall(SquallTSLSRKGetTableau(ts, &s, &order, &A, &B, &c));
  CHECK(s == expect_stages && order == 4, "%s: %" PetscInt_FMT " stages, order %" PetscInt_FMT, scheme, s, order);
  CHECK(A[0] == 0 && c[0] == 0, "%s: A_1 and c_1 must be 0", scheme);
  for (PetscInt i = 0; i <= s; i++) {
    PetscReal *row = i < s ? a[i] : b;
    for (PetscInt j = 0; j < i; j++) {
      PetscReal P = 1, acc = 0;
      for (PetscInt m = j; m < i; m++) {
        if (m > j) P *= A[m];
        acc += B[m] * P;
      }
      row[j] = acc;
    }
  }
  /* the recurrence the relaxation RK of the spec uses must agree with the direct sums */
  brec[s - 1] = B[s - 1];
  for (PetscInt i = s - 2; i >= 0; i--) brec[i] = A[i + 1] * brec[i + 1] + B[i];
  for (PetscInt i = 0; i < s; i++) CHECK(PetscAbsReal(brec[i] - b[i]) < SQUALL_TOL(1e-13, 100), "%s: b_%" PetscInt_FMT " recurrence %.17g vs sum %.17g", scheme, i + 1, (double)brec[i], (double)b[i]);
  for (PetscInt i = 0; i < s; i++) {
    PetscReal rs = 0;
    for (PetscInt j = 0; j < i; j++) rs += a[i][j];
    cerr = PetscMax(cerr, PetscAbsReal(rs - c[i]));
  }
  for (PetscInt i = 0; i < s; i++) {
    PetscReal ac = 0, ac2 = 0, aac = 0;
    for (PetscInt j = 0; j < s; j++) {
      PetscReal acj = 0;
      for (PetscInt k = 0; k < s; k++) acj += a[j][k] * c[k];
      ac += a[i][j] * c[j];
      ac2 += a[i][j] * c[j] * c[j];
      aac += a[i][j] * acj;
    }
    oc[0] += b[i];
    oc[1] += b[i] * c[i];
    oc[2] += b[i] * c[i] * c[i];
    oc[3] += b[i] * ac;
    oc[4] += b[i] * c[i] * c[i] * c[i];
    oc[5] += b[i] * c[i] * ac;
    oc[6] += b[i] * ac2;
    oc[7] += b[i] * aac;
  }
  CHECK(PetscAbsReal(oc[0] - 1) < SQUALL_TOL(1e-13, 100), "%s: sum of the weights b is 1 %+.3e", scheme, (double)(oc[0] - 1));
  CHECK(cerr < SQUALL_TOL(1e-12, 1000), "%s: c_i differ from the row sums of the Butcher matrix by %.3e", scheme, (double)cerr);
  for (PetscInt k = 0; k < 8; k++) oerr = PetscMax(oerr, PetscAbsReal(oc[k] - exact[k]));
  for (PetscInt k = 0; k < 8; k++) CHECK(PetscAbsReal(oc[k] - exact[k]) < SQUALL_TOL(1e-12, 1000), "%s: order condition %" PetscInt_FMT " off by %.3e", scheme, k + 1, (double)(oc[k] - exact[k]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-5s %2" PetscInt_FMT " stages: |sum b - 1| %.1e, c consistency %.1e, order conditions %.1e\n", scheme, s, (double)PetscAbsReal(oc[0] - 1), (double)cerr, (double)oerr));
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Ctx       ctx = {0};
  PetscReal err[4], err5[4], errrk[4], e;
  PetscInt  nproblems = 2;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(SquallInitializePackage());
  PetscCall(CheckTableau("14s4", 14));
  PetscCall(CheckTableau("5s4", 5));

  /* both schemes through the API, TSRK 4 and lsrk 5s4 through options only: the type swaps without code changes */
  PetscCall(PetscOptionsSetValue(NULL, "-rk4_ts_type", "rk"));
  PetscCall(PetscOptionsSetValue(NULL, "-rk4_ts_rk_type", "4"));
  PetscCall(PetscOptionsSetValue(NULL, "-rk4_ts_adapt_type", "none"));
  PetscCall(PetscOptionsSetValue(NULL, "-opt_ts_type", "lsrk"));
  PetscCall(PetscOptionsSetValue(NULL, "-opt_ts_lsrk_type", "5s4"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-conv_problems", &nproblems, NULL));
  for (ctx.problem = 0; ctx.problem < nproblems; ctx.problem++) {
    PetscReal erropt[4];
    PetscCall(CheckConvergence(&ctx, "lsrk14_", "14s4", 1e-8, err));
    PetscCall(CheckConvergence(&ctx, "lsrk5_", "5s4", 1e-7, err5));
    PetscCall(CheckConvergence(&ctx, "rk4_", NULL, 1e-6, errrk));
    PetscCall(CheckConvergence(&ctx, "opt_", NULL, 1e-7, erropt));
    for (PetscInt k = 0; k < 4; k++) CHECK(erropt[k] == err5[k], "-ts_type lsrk -ts_lsrk_type 5s4 from options differs from the API: %g vs %g", (double)erropt[k], (double)err5[k]);
  }
  ctx.problem = 0;

  { /* view, and the type chosen through options */
    TS          ts;
    Vec         U;
    const char *name;
    FILE       *fp;
    char        buf[4096] = {0};
    PetscViewer v;

    PetscCall(CreateTS(&ctx, "opt_", NULL, 10, &ts, &U));
    PetscCall(SquallTSLSRKGetType(ts, &name));
    CHECK(!strcmp(name, "5s4"), "-opt_ts_lsrk_type 5s4 gave %s", name);
    PetscCall(TSSetSolution(ts, U));
    PetscCall(TSSetUp(ts));
    fp = tmpfile();
    CHECK(fp, "tmpfile() failed");
    PetscCall(PetscViewerASCIIOpenWithFILE(PETSC_COMM_SELF, fp, &v));
    PetscCall(TSView(ts, v));
    PetscCall(PetscViewerFlush(v));
    rewind(fp);
    CHECK(fread(buf, 1, sizeof(buf) - 1, fp) > 0, "empty TSView");
    PetscCall(PetscViewerDestroy(&v));
    fclose(fp);
    CHECK(strstr(buf, "LSRK scheme 5s4: 5 stages, order 4"), "TSView does not name the scheme:\n%s", buf);
    CHECK(strstr(buf, "none"), "the default adaptor of lsrk should be none:\n%s", buf);
    PetscCall(TSDestroy(&ts));
    PetscCall(VecDestroy(&U));
  }

  { /* CFL adaptor: the first step is the given one, the others 0.9 (safety) times the CFL time the RHS reports */
    TS        ts;
    Vec       U;
    PetscInt  steps;
    PetscReal t, dt;

    ctx.cfltime = 0.05;
    PetscCall(PetscOptionsSetValue(NULL, "-cfl_ts_adapt_type", "cfl"));
    PetscCall(CreateTS(&ctx, "cfl_", "14s4", 200, &ts, &U));
    PetscCall(TSSolve(ts, U));
    PetscCall(TSGetStepNumber(ts, &steps));
    PetscCall(TSGetTime(ts, &t));
    PetscCall(TSGetTimeStep(ts, &dt));
    PetscCall(SolutionError(&ctx, ts, U, &e));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cfl adaptor: %" PetscInt_FMT " steps to t = %g, error %.3e\n", steps, (double)t, (double)e));
    CHECK(PetscAbsReal(t - FinalTime[0]) < SQUALL_TOL(1e-12, 1000), "cfl: stopped at t = %g", (double)t);
    /* 0.01 + k * 0.045 reaches 2 after 45 steps, the last shortened to land on the final time */
    CHECK(steps >= 44 && steps <= 47, "cfl: %" PetscInt_FMT " steps, expected about 45", steps);
    CHECK(e < SQUALL_TOL(1e-7, 1000), "cfl: error %g", (double)e); /* in single, round-off of about 46 steps of 14 stages */
    PetscCall(TSDestroy(&ts));
    PetscCall(VecDestroy(&U));
    ctx.cfltime = 0;
  }

  { /* an adaptor that needs an error estimate is refused at set-up */
    TS             ts;
    Vec            U;
    PetscErrorCode ierr;

    PetscCall(PetscOptionsSetValue(NULL, "-basic_ts_adapt_type", "basic"));
    PetscCall(CreateTS(&ctx, "basic_", "14s4", 10, &ts, &U));
    PetscCall(TSSetSolution(ts, U));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = TSSetUp(ts);
    PetscCall(PetscPopErrorHandler());
    CHECK(ierr == PETSC_ERR_SUP, "-ts_adapt_type basic was not refused (error %d)", (int)ierr);
    PetscCall(TSDestroy(&ts));
    PetscCall(VecDestroy(&U));
  }

  { /* stage rejection (TSSetFunctionDomainError) with dt = 0.1 while only dt <= 0.06 is accepted */
    TS                ts;
    Vec               U;
    PetscInt          steps, rejects;
    PetscReal         t, err40;
    TSConvergedReason reason;

    PetscCall(Solve(&ctx, "ref40_", "14s4", 40, &err40));
    ctx.reject_dt = 0.06;
    /* a rejected stage halves the step (PETSc's default is a quarter) so that the retry runs at dt = 0.05 */
    PetscCall(PetscOptionsSetValue(NULL, "-rej1_ts_adapt_scale_solve_failed", "0.5"));
    PetscCall(PetscOptionsSetValue(NULL, "-rej2_ts_adapt_scale_solve_failed", "0.5"));
    PetscCall(PetscOptionsSetValue(NULL, "-rej3_ts_adapt_scale_solve_failed", "0.5"));

    /* rejected at stage 1 the solution is untouched: the step is retried at half the step, no copy needed */
    ctx.reject_first_stage_too = PETSC_TRUE;
    PetscCall(SolveRejecting(&ctx, "rej1_", &steps, &rejects, &e));
    CHECK(steps == 40 && rejects == 1, "stage-1 rejection: %" PetscInt_FMT " steps, %" PetscInt_FMT " rejections; expected 40 and 1", steps, rejects);
    CHECK(PetscAbsReal(e - err40) <= SQUALL_TOL(1e-14, 40), "stage-1 rejection: error %.17g differs from a plain run at dt = 0.05, %.17g", (double)e, (double)err40);

    /* rejected at a later stage, without a copy the step cannot be undone: the solve stops cleanly */
    ctx.reject_first_stage_too = PETSC_FALSE;
    PetscCall(CreateTS(&ctx, "rej2_", "14s4", 20, &ts, &U));
    PetscCall(TSSetTimeStep(ts, 0.1));
    PetscCall(TSSetFunctionDomainError(ts, DomainCheck));
    PetscCall(TSSetErrorIfStepFails(ts, PETSC_FALSE));
    PetscCall(TSSolve(ts, U));
    PetscCall(TSGetConvergedReason(ts, &reason));
    PetscCall(TSGetStepNumber(ts, &steps));
    PetscCall(TSGetTime(ts, &t));
    CHECK(reason == TS_DIVERGED_STEP_REJECTED && steps == 0 && t == 0, "later-stage rejection without rollback: reason %s, %" PetscInt_FMT " steps, t = %g", TSConvergedReasons[reason], steps, (double)t);
    PetscCall(TSDestroy(&ts));
    PetscCall(VecDestroy(&U));

    /* the same with -ts_lsrk_rollback: restored and retried, identical to the plain run at dt = 0.05 */
    PetscCall(PetscOptionsSetValue(NULL, "-rej3_ts_lsrk_rollback", NULL));
    PetscCall(SolveRejecting(&ctx, "rej3_", &steps, &rejects, &e));
    CHECK(steps == 40 && rejects == 1, "rollback: %" PetscInt_FMT " steps, %" PetscInt_FMT " rejections; expected 40 and 1", steps, rejects);
    CHECK(PetscAbsReal(e - err40) <= SQUALL_TOL(1e-14, 40), "rollback: error %.17g differs from a plain run at dt = 0.05, %.17g", (double)e, (double)err40);
    ctx.reject_dt = 0;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "stage rejection: retried at stage 1, stopped without rollback, retried with rollback\n"));
  }

  { /* TSRollBack(): with -ts_lsrk_rollback the step is undone bit for bit (the compensation register cleared too), the
       step taken again gives the same solution; without the copy it is refused */
    TS             ts;
    Vec            U, U0, U1;
    PetscReal      t;
    PetscBool      eq;
    PetscErrorCode ierr;

    PetscCall(PetscOptionsSetValue(NULL, "-rb_ts_lsrk_rollback", NULL));
    PetscCall(PetscOptionsSetValue(NULL, "-rb_ts_lsrk_compensated", NULL));
    PetscCall(CreateTS(&ctx, "rb_", "14s4", 20, &ts, &U));
    PetscCall(TSSetSolution(ts, U));
    PetscCall(TSSetUp(ts));
    PetscCall(VecDuplicate(U, &U0));
    PetscCall(VecDuplicate(U, &U1));
    PetscCall(VecCopy(U, U0));
    PetscCall(TSStep(ts));
    PetscCall(VecCopy(U, U1));
    PetscCall(VecEqual(U, U0, &eq));
    CHECK(!eq, "rollback: the step did not change the solution, so the test shows nothing");
    PetscCall(TSRollBack(ts));
    PetscCall(TSGetTime(ts, &t));
    PetscCall(VecEqual(U, U0, &eq));
    CHECK(eq && t == 0, "TSRollBack: the solution is %s restored, t = %g", eq ? "" : "not", (double)t);
    PetscCall(TSStep(ts));
    PetscCall(VecEqual(U, U1, &eq));
    CHECK(eq, "the step taken again after TSRollBack differs from the first");
    PetscCall(TSDestroy(&ts));
    PetscCall(VecDestroy(&U));

    PetscCall(CreateTS(&ctx, "norb_", "14s4", 20, &ts, &U));
    PetscCall(TSSetSolution(ts, U));
    PetscCall(TSSetUp(ts));
    PetscCall(TSStep(ts));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = TSRollBack(ts);
    PetscCall(PetscPopErrorHandler());
    CHECK(ierr == PETSC_ERR_SUP, "TSRollBack without -ts_lsrk_rollback was not refused (error %d)", (int)ierr);
    PetscCall(TSDestroy(&ts));
    PetscCall(VecDestroy(&U));
    PetscCall(VecDestroy(&U0));
    PetscCall(VecDestroy(&U1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "TSRollBack: restored bit for bit and the step repeated with -ts_lsrk_rollback, refused without\n"));
  }

  { /* the RHS stops the solve: the step is abandoned with the RHS's reason */
    TS                ts;
    Vec               U;
    PetscReal         t;
    TSConvergedReason reason;

    ctx.stop_time = 0.5;
    PetscCall(CreateTS(&ctx, "stop_", "5s4", 20, &ts, &U));
    PetscCall(TSSetErrorIfStepFails(ts, PETSC_FALSE));
    PetscCall(TSSolve(ts, U));
    PetscCall(TSGetConvergedReason(ts, &reason));
    PetscCall(TSGetTime(ts, &t));
    CHECK(reason == TS_DIVERGED_NONLINEAR_SOLVE && t < 0.55, "stop from the RHS: reason %s at t = %g", TSConvergedReasons[reason], (double)t);
    PetscCall(TSDestroy(&ts));
    PetscCall(VecDestroy(&U));
    ctx.stop_time = 0;
  }
  { /* -ts_lsrk_compensated: stage increments of 0.05 ulp of the solution are kept; without it, rounded away */
    const PetscReal eps = PETSC_MACHINE_EPSILON, rate = 100 * eps;
    PetscReal       ep, ec;

    PetscCall(PetscOptionsSetValue(NULL, "-comp_ts_lsrk_compensated", "1"));
    PetscCall(SolveConst("plain_", 1, 0, 2000, rate, &ep));
    PetscCall(SolveConst("comp_", 1, 0, 2000, rate, &ec));
    CHECK(PetscAbsReal(ec) <= 2 * eps, "compensated update: u(1) - exact = %g (> 2 eps)", (double)ec);
    CHECK(PetscAbsReal(ep) >= 50 * eps, "plain update: u(1) - exact = %g, expected the increments to be rounded away (the test needs them to be)", (double)ep);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "constant rate 100 eps over 2000 steps: plain update error %.3g eps, compensated %.3g eps\n", (double)(ep / eps), (double)(ec / eps)));
  }
  { /* -ts_lsrk_compensated_fields 1 with the layout (stride 2, 2 fields): entries 2, 3 compensated, 0, 1 plain */
    const PetscReal eps = PETSC_MACHINE_EPSILON, rate = 100 * eps;
    PetscReal       err[4];

    PetscCall(PetscOptionsSetValue(NULL, "-fields_ts_lsrk_compensated_fields", "1"));
    PetscCall(SolveConst("fields_", 4, 2, 2000, rate, err));
    for (PetscInt i = 0; i < 2; i++) CHECK(PetscAbsReal(err[i]) >= 50 * eps, "field 0 (not compensated), entry %" PetscInt_FMT ": u(1) - exact = %g, expected the plain update's loss", i, (double)err[i]);
    for (PetscInt i = 2; i < 4; i++) CHECK(PetscAbsReal(err[i]) <= 2 * eps, "field 1 (compensated), entry %" PetscInt_FMT ": u(1) - exact = %g (> 2 eps)", i, (double)err[i]);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "compensated field 1 of 2: errors %.3g %.3g (field 0) %.3g %.3g (field 1) eps\n", (double)(err[0] / eps), (double)(err[1] / eps), (double)(err[2] / eps), (double)(err[3] / eps)));
  }
  PetscCall(PetscFinalize());
  return 0;
}
