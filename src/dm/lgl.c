/* Legendre-Gauss-Lobatto nodes, weights and the nodal differentiation matrix.
   Nodes: the endpoints and the roots of L_N', found by Newton's method on (1-x^2) L_N'(x) from
   the Chebyshev-Gauss-Lobatto points (Hesthaven & Warburton, Nodal DG Methods, 2008, sec. 3.2).
   Computed in long double and rounded once, so single- and double-precision builds both get
   correctly rounded operators. */
#include "sys/squallimpl.h"

typedef long double lreal;

/* L_N(x) and L_{N-1}(x) by the three-term recurrence */
static void LegendrePair(PetscInt N, lreal x, lreal *LN, lreal *LNm1)
{
  lreal p0 = 1, p1 = x;
  if (N == 0) {
    *LN   = 1;
    *LNm1 = 0;
    return;
  }
  for (PetscInt k = 2; k <= N; k++) {
    lreal p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
    p0       = p1;
    p1       = p2;
  }
  *LN   = p1;
  *LNm1 = p0;
}

static PetscErrorCode LGLNodesLong(PetscInt N, lreal r[], lreal w[])
{
  const lreal pi = 3.141592653589793238462643383279502884L;

  PetscFunctionBegin;
  PetscCheck(N >= 1 && N <= SQUALL_LGL_MAX_ORDER, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "LGL order %" PetscInt_FMT " out of range [1, %d]", N, SQUALL_LGL_MAX_ORDER);
  for (PetscInt j = 0; j <= N; j++) {
    lreal x = -cosl(pi * j / N);
    if (j > 0 && j < N) {
      /* (1-x^2) L_N'(x) = N (L_{N-1} - x L_N): Newton on q(x) = L_{N-1} - x L_N */
      for (PetscInt it = 0; it < 100; it++) {
        lreal LN, LNm1, LNp1, LNp1m;
        LegendrePair(N, x, &LN, &LNm1);
        LegendrePair(N + 1, x, &LNp1, &LNp1m);
        /* q = L_{N+1} - L_{N-1} vanishes at the interior LGL nodes; q' = (2N+1) L_N */
        lreal q  = LNp1 - LNm1;
        lreal dq = (2 * N + 1) * LN;
        lreal dx = q / dq;
        x -= dx;
        if (fabsl(dx) < 1e-19L) break;
      }
    }
    lreal LN, LNm1;
    LegendrePair(N, x, &LN, &LNm1);
    r[j] = x;
    w[j] = 2.0L / (N * (N + 1) * LN * LN);
  }
  /* the node set is symmetric: enforce it exactly */
  for (PetscInt j = 0; j <= N / 2; j++) {
    lreal a = 0.5L * (r[N - j] - r[j]), b = 0.5L * (w[j] + w[N - j]);
    r[j]     = -a;
    r[N - j] = a;
    w[j] = w[N - j] = b;
  }
  if (N % 2 == 0) r[N / 2] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallLGLNodesWeights - the N+1 Legendre-Gauss-Lobatto nodes r (ascending, in [-1,1]) and weights w.
@*/
PetscErrorCode SquallLGLNodesWeights(PetscInt N, PetscReal r[], PetscReal w[])
{
  lreal lr[SQUALL_LGL_MAX_ORDER + 1], lw[SQUALL_LGL_MAX_ORDER + 1];

  PetscFunctionBegin;
  PetscCall(LGLNodesLong(N, lr, lw));
  for (PetscInt j = 0; j <= N; j++) {
    if (r) r[j] = (PetscReal)lr[j];
    if (w) w[j] = (PetscReal)lw[j];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallLGLDerivativeMatrix - D[i*(N+1)+j] = l_j'(r_i) for the Lagrange basis on the LGL nodes.
  r may be NULL (the LGL nodes are recomputed in extended precision, which is what one wants).
@*/
PetscErrorCode SquallLGLDerivativeMatrix(PetscInt N, const PetscReal r[], PetscReal D[])
{
  lreal          lr[SQUALL_LGL_MAX_ORDER + 1], lw[SQUALL_LGL_MAX_ORDER + 1], LN[SQUALL_LGL_MAX_ORDER + 1];
  const PetscInt Nq = N + 1;

  PetscFunctionBegin;
  PetscCall(LGLNodesLong(N, lr, lw));
  for (PetscInt i = 0; i < Nq; i++) {
    lreal tmp;
    LegendrePair(N, lr[i], &LN[i], &tmp);
  }
  /* closed form of the LGL differentiation matrix (Hesthaven & Warburton eq. 3.47 analogue) */
  for (PetscInt i = 0; i < Nq; i++) {
    for (PetscInt j = 0; j < Nq; j++) {
      lreal d;
      if (i != j)
        d = LN[i] / (LN[j] * (lr[i] - lr[j]));
      else if (i == 0)
        d = -(lreal)N * (N + 1) / 4;
      else if (i == N)
        d = (lreal)N * (N + 1) / 4;
      else
        d = 0;
      D[i * Nq + j] = (PetscReal)d;
    }
  }
  (void)r;
  PetscFunctionReturn(PETSC_SUCCESS);
}
