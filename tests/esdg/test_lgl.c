static char help[] = "LGL nodes, weights and differentiation matrix: known values, exactness, SBP property.\n";

#include <squall.h>

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)

int main(int argc, char **argv)
{
  PetscReal       r[SQUALL_LGL_MAX_ORDER + 1], w[SQUALL_LGL_MAX_ORDER + 1], D[(SQUALL_LGL_MAX_ORDER + 1) * (SQUALL_LGL_MAX_ORDER + 1)];
  const PetscReal tol = 100 * PETSC_MACHINE_EPSILON;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  /* closed forms for N = 1..4 */
  {
    const PetscReal s5 = PetscSqrtReal(5.0), s37 = PetscSqrtReal(3.0 / 7.0);
    const PetscReal R[4][5] = {{-1, 1}, {-1, 0, 1}, {-1, -1 / s5, 1 / s5, 1}, {-1, -s37, 0, s37, 1}};
    const PetscReal W[4][5] = {{1, 1}, {1.0 / 3, 4.0 / 3, 1.0 / 3}, {1.0 / 6, 5.0 / 6, 5.0 / 6, 1.0 / 6}, {0.1, 49.0 / 90, 32.0 / 45, 49.0 / 90, 0.1}};
    for (PetscInt N = 1; N <= 4; N++) {
      PetscCall(SquallLGLNodesWeights(N, r, w));
      for (PetscInt j = 0; j <= N; j++) {
        CHECK(PetscAbsReal(r[j] - R[N - 1][j]) < tol, "N=%" PetscInt_FMT " node %" PetscInt_FMT ": %.17g vs %.17g", N, j, (double)r[j], (double)R[N - 1][j]);
        CHECK(PetscAbsReal(w[j] - W[N - 1][j]) < tol, "N=%" PetscInt_FMT " weight %" PetscInt_FMT ": %.17g vs %.17g", N, j, (double)w[j], (double)W[N - 1][j]);
      }
    }
  }
  for (PetscInt N = 1; N <= SQUALL_LGL_MAX_ORDER; N++) {
    const PetscInt Nq     = N + 1;
    PetscReal      maxerr = 0, sbp = 0;
    PetscCall(SquallLGLNodesWeights(N, r, w));
    PetscCall(SquallLGLDerivativeMatrix(N, r, D));
    /* quadrature exact to degree 2N-1: integral of x^p over [-1,1] */
    for (PetscInt p = 0; p <= 2 * N - 1; p++) {
      PetscReal s = 0, exact = (p % 2) ? 0 : 2.0 / (p + 1);
      for (PetscInt j = 0; j < Nq; j++) s += w[j] * PetscPowRealInt(r[j], p);
      CHECK(PetscAbsReal(s - exact) < tol, "N=%" PetscInt_FMT ": quadrature of x^%" PetscInt_FMT " off by %g", N, p, (double)(s - exact));
    }
    /* D differentiates polynomials up to degree N exactly */
    for (PetscInt p = 0; p <= N; p++)
      for (PetscInt i = 0; i < Nq; i++) {
        PetscReal s = 0, exact = p ? p * PetscPowRealInt(r[i], p - 1) : 0;
        for (PetscInt j = 0; j < Nq; j++) s += D[i * Nq + j] * PetscPowRealInt(r[j], p);
        maxerr = PetscMax(maxerr, PetscAbsReal(s - exact) / (1 + PetscAbsReal(exact)));
      }
    CHECK(maxerr < 1e3 * PETSC_MACHINE_EPSILON * N, "N=%" PetscInt_FMT ": D inexact on polynomials (error %g)", N, (double)maxerr);
    /* SBP: W D + (W D)^T = diag(-1, 0, ..., 0, 1) */
    for (PetscInt i = 0; i < Nq; i++)
      for (PetscInt j = 0; j < Nq; j++) {
        PetscReal B = (i == j) ? (i == 0 ? -1 : (i == N ? 1 : 0)) : 0;
        sbp         = PetscMax(sbp, PetscAbsReal(w[i] * D[i * Nq + j] + w[j] * D[j * Nq + i] - B));
      }
    CHECK(sbp < 1e3 * PETSC_MACHINE_EPSILON, "N=%" PetscInt_FMT ": SBP property violated by %g", N, (double)sbp);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "N=%2" PetscInt_FMT ": D error %.2e, SBP error %.2e\n", N, (double)maxerr, (double)sbp));
  }
  {
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SquallLGLNodesWeights(SQUALL_LGL_MAX_ORDER + 1, r, w);
    PetscCall(PetscPopErrorHandler());
    CHECK(ierr == PETSC_ERR_ARG_OUTOFRANGE, "order out of range not rejected");
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "LGL tests passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
