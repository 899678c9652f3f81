static char help[] = "Pointwise P1 tetrahedral code (src/physics/p1tet.h) against closed forms and LAPACK:\n"
                     "the 11-point rule integrates every monomial of degree <= 3 exactly on the reference tetrahedron;\n"
                     "element mass, advection, diffusion (full tensor) and grad-div matrices; the 6x6 Gaussian elimination\n"
                     "(vs LAPACK gesv) and the 3x3 symmetric eigensolver (vs LAPACK syev); the element metric tensor; the closed-form\n"
                     "element operator, and its element load from vertex coordinates against the one from the precomputed geometry.\n";

#include <petscsys.h>
#include <petscblaslapack.h>
#include "physics/p1tet.h"
#include "squalltest.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)

static PetscReal Fact(PetscInt n)
{
  PetscReal f = 1;
  for (PetscInt k = 2; k <= n; k++) f *= k;
  return f;
}

/* every monomial x^i y^j z^k, i+j+k <= 3, on the reference tetrahedron (0,0,0),(1,0,0),(0,1,0),(0,0,1):
   exact value i! j! k! / (i+j+k+3)!; the weights are fractions of the volume 1/6 */
static PetscErrorCode TestQuadrature(void)
{
  const PetscReal X[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  PetscReal       wsum = 0, maxerr = 0, err4 = 0;
  PetscInt        nmono = 0;

  PetscFunctionBegin;
  for (int q = 0; q < SQUALL_P1_NQUAD; q++) {
    PetscReal l[4], w;
    SquallP1QuadPoint(q, l, &w);
    CHECK(w > 0, "weight %d is %g, not positive", q, (double)w);
    wsum += w;
  }
  CHECK(PetscAbsReal(wsum - 1) < SQUALL_TOL(1e-15, 4), "weights sum to %.17g, not 1", (double)wsum);
  for (PetscInt deg = 0; deg <= 4; deg++) {
    for (PetscInt i = 0; i <= deg; i++)
      for (PetscInt j = 0; i + j <= deg; j++) {
        const PetscInt  k     = deg - i - j;
        const PetscReal exact = Fact(i) * Fact(j) * Fact(k) / Fact(deg + 3);
        PetscReal       s     = 0;

        for (int q = 0; q < SQUALL_P1_NQUAD; q++) {
          PetscReal l[4], w, x[3] = {0, 0, 0};

          SquallP1QuadPoint(q, l, &w);
          for (int a = 0; a < 4; a++)
            for (int d = 0; d < 3; d++) x[d] += l[a] * X[a][d];
          s += w / 6 * PetscPowRealInt(x[0], i) * PetscPowRealInt(x[1], j) * PetscPowRealInt(x[2], k);
        }
        if (deg <= 3) {
          CHECK(PetscAbsReal(s - exact) <= SQUALL_TOL(1e-15, 4) * exact, "x^%" PetscInt_FMT " y^%" PetscInt_FMT " z^%" PetscInt_FMT ": rule %.17g, exact %.17g", i, j, k, (double)s, (double)exact);
          maxerr = PetscMax(maxerr, PetscAbsReal(s - exact) / exact);
          nmono++;
        } else if (i == 4)
          err4 = PetscAbsReal(s - exact) / exact;
      }
  }
  CHECK(nmono == 20, "%" PetscInt_FMT " monomials of degree <= 3, expected 20", nmono);
  CHECK(err4 > 1e-3, "the rule should not be exact for x^4 (relative error %g)", (double)err4);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "11-point rule: weights 1/60 (vertices), 1/15 (edges), 8/15 (centroid) of |K|; %" PetscInt_FMT " monomials of degree <= 3 exact (max rel. error %.1e); x^4 off by %.1e\n", nmono, (double)maxerr, (double)err4));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RandomTet(PetscRandom rnd, PetscReal x[4][3])
{
  PetscReal invJ[9], vol, det;

  PetscFunctionBegin;
  do {
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) PetscCall(PetscRandomGetValueReal(rnd, &x[a][d]));
    det = SquallP1Geometry((const PetscReal(*)[3])x, invJ, &vol);
    if (det < 0)
      for (int d = 0; d < 3; d++) {
        const PetscReal t = x[1][d];
        x[1][d]           = x[2][d];
        x[2][d]           = t;
      }
  } while (PetscAbsReal(det) < 0.05);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* eigenvalues (ascending) of a symmetric n x n matrix by LAPACK */
static PetscErrorCode SymEigLapack(PetscInt n, const PetscReal *A, PetscReal *w, PetscReal *V)
{
  PetscBLASInt bn, lwork = 64 * 12, info;
  PetscScalar  a[144], work[64 * 12];

  PetscFunctionBegin;
  PetscCall(PetscBLASIntCast(n, &bn));
  for (PetscInt k = 0; k < n * n; k++) a[k] = A[k];
  PetscCallBLAS("LAPACKsyev", LAPACKsyev_("V", "U", &bn, a, &bn, w, work, &lwork, &info));
  CHECK(info == 0, "LAPACK syev failed: %d", (int)info);
  if (V)
    for (PetscInt k = 0; k < n * n; k++) V[k] = PetscRealPart(a[k]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestElementMatrices(PetscRandom rnd)
{
  const PetscReal zero[4] = {0, 0, 0, 0}, cm[4] = {1, 0, 0, 0}, ca[4] = {0, 1, 0, 0}, cd[4] = {0, 0, 1, 0};
  PetscReal       worst[6] = {0, 0, 0, 0, 0, 0};

  PetscFunctionBegin;
  for (PetscInt t = 0; t < 200; t++) {
    PetscReal x[4][3], invJ[9], vol, g[4][3], S[4][4], c[4], u[4][3], K[9], smax = 0, ev[16], Ks[9];

    if (t == 0) {
      const PetscReal ref[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
      PetscCall(PetscArraycpy(&x[0][0], &ref[0][0], 12));
    } else
      PetscCall(RandomTet(rnd, x));
    (void)SquallP1Geometry((const PetscReal(*)[3])x, invJ, &vol);
    SquallP1Gradients(invJ, g);
    CHECK(vol > 0, "volume %g", (double)vol);
    if (t == 0) CHECK(PetscAbsReal(vol - 1.0 / 6) < SQUALL_TOL(1e-16, 0.25), "reference volume %.17g", (double)vol);

    /* gradients: grad lambda_a . (x_b - x_0) = delta_ab - delta_0b (lambda_a is linear, 1 at its vertex) */
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        PetscReal s = 0;
        for (int d = 0; d < 3; d++) s += g[a][d] * (x[b][d] - x[0][d]);
        CHECK(PetscAbsReal(s - ((a == b) - (a == 0))) < SQUALL_TOL(1e-10, 100), "grad lambda_%d . (x_%d - x_0) = %g", a, b, (double)s);
      }

    /* mass: |K|/20 (1 + delta_ab) */
    SquallP1ElementOperator((const PetscReal(*)[3])g, vol, NULL, NULL, NULL, cm, S);
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) worst[0] = PetscMax(worst[0], PetscAbsReal(S[a][b] - vol / 20 * (1 + (a == b))) / (vol / 10));

    /* mass with a nodal (linear) coefficient: int lambda_a lambda_b lambda_k = |K| 3! alpha! / 6! */
    for (int a = 0; a < 4; a++) PetscCall(PetscRandomGetValueReal(rnd, &c[a]));
    SquallP1ElementOperator((const PetscReal(*)[3])g, vol, c, NULL, NULL, cm, S);
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        PetscReal ex = 0;
        for (int k = 0; k < 4; k++) {
          const int n = (a == b) + (a == k) + (b == k); /* 3: all equal, 1: two equal, 0: distinct */
          ex += c[k] * vol * (n == 3 ? 36.0 : n == 1 ? 12.0 : 6.0) / 720.0;
        }
        worst[1] = PetscMax(worst[1], PetscAbsReal(S[a][b] - ex) / (vol / 10));
      }

    /* advection with a nodal velocity: A_ab = sum_k M_ak u_k . grad lambda_b; rows sum to zero */
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) PetscCall(PetscRandomGetValueReal(rnd, &u[a][d]));
    SquallP1ElementOperator((const PetscReal(*)[3])g, vol, NULL, (const PetscReal(*)[3])u, NULL, ca, S);
    for (int a = 0; a < 4; a++) {
      PetscReal rs = 0, scale = 0;
      for (int b = 0; b < 4; b++) {
        PetscReal ex = 0;
        for (int k = 0; k < 4; k++) ex += vol / 20 * (1 + (a == k)) * (u[k][0] * g[b][0] + u[k][1] * g[b][1] + u[k][2] * g[b][2]);
        scale    = PetscMax(scale, PetscAbsReal(ex));
        worst[2] = PetscMax(worst[2], PetscAbsReal(S[a][b] - ex));
        rs += S[a][b];
      }
      CHECK(PetscAbsReal(rs) <= SQUALL_TOL(1e-13, 100) * scale, "advection row %d sums to %g", a, (double)rs);
    }

    /* Laplacian: symmetric, rows sum to zero, positive semi-definite with the constants as kernel */
    SquallP1ElementOperator((const PetscReal(*)[3])g, vol, NULL, NULL, NULL, cd, S);
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) smax = PetscMax(smax, PetscAbsReal(S[a][b]));
    for (int a = 0; a < 4; a++) {
      PetscReal rs = 0;
      for (int b = 0; b < 4; b++) {
        rs += S[a][b];
        CHECK(S[a][b] == S[b][a], "Laplacian not symmetric: S[%d][%d] = %g, S[%d][%d] = %g", a, b, (double)S[a][b], b, a, (double)S[b][a]);
      }
      worst[3] = PetscMax(worst[3], PetscAbsReal(rs) / smax);
    }
    PetscCall(SymEigLapack(4, &S[0][0], ev, NULL));
    CHECK(PetscAbsReal(ev[0]) <= SQUALL_TOL(1e-13, 100) * smax && ev[1] > 1e-8 * smax, "Laplacian eigenvalues %g %g %g %g: not PSD with a one-dimensional kernel", (double)ev[0], (double)ev[1], (double)ev[2], (double)ev[3]);

    /* full-tensor diffusion: vol * grad_a^T K grad_b (K not symmetric); with K SPD symmetric PSD */
    for (int k = 0; k < 9; k++) PetscCall(PetscRandomGetValueReal(rnd, &K[k]));
    SquallP1ElementOperator((const PetscReal(*)[3])g, vol, NULL, NULL, K, cd, S);
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        PetscReal ex = 0;
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) ex += vol * g[a][i] * K[3 * i + j] * g[b][j];
        worst[4] = PetscMax(worst[4], PetscAbsReal(S[a][b] - ex) / smax);
      }
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) Ks[3 * i + j] = K[3 * i] * K[3 * j] + K[3 * i + 1] * K[3 * j + 1] + K[3 * i + 2] * K[3 * j + 2] + (i == j ? 0.1 : 0); /* K K^T + 0.1 I */
    SquallP1ElementOperator((const PetscReal(*)[3])g, vol, NULL, NULL, Ks, cd, S);
    PetscCall(SymEigLapack(4, &S[0][0], ev, NULL));
    CHECK(ev[0] >= -SQUALL_TOL(1e-12, 1000) * PetscAbsReal(ev[3]), "SPD-tensor diffusion has eigenvalue %g", (double)ev[0]);

    /* grad-div block (12 x 12): symmetric PSD */
    {
      PetscReal B[144], w12[12];
      SquallP1ElementOperator((const PetscReal(*)[3])g, vol, NULL, NULL, NULL, zero, S);
      for (int a = 0; a < 4; a++)
        for (int i = 0; i < 3; i++)
          for (int b = 0; b < 4; b++)
            for (int j = 0; j < 3; j++) B[12 * (3 * a + i) + 3 * b + j] = SquallP1BlockEntry((const PetscReal(*)[4])S, (const PetscReal(*)[3])g, vol, a, i, b, j);
      for (int r = 0; r < 12; r++)
        for (int s = 0; s < 12; s++) CHECK(PetscAbsReal(B[12 * r + s] - B[12 * s + r]) <= SQUALL_TOL(1e-14, 40) * PetscAbsReal(B[12 * r + s]), "grad-div block not symmetric");
      PetscCall(SymEigLapack(12, B, w12, NULL));
      CHECK(w12[0] >= -SQUALL_TOL(1e-12, 1000) * w12[11], "grad-div block has eigenvalue %g", (double)w12[0]);
    }
  }
  CHECK(worst[0] < SQUALL_TOL(1e-14, 40) && worst[1] < SQUALL_TOL(1e-14, 40) && worst[3] < SQUALL_TOL(1e-14, 40) && worst[4] < SQUALL_TOL(1e-13, 400), "element matrices: mass %g, weighted mass %g, Laplacian rows %g, tensor diffusion %g",
        (double)worst[0], (double)worst[1], (double)worst[3], (double)worst[4]);
  CHECK(worst[2] < SQUALL_TOL(1e-13, 400), "advection off by %g", (double)worst[2]);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "element matrices on 200 tetrahedra: mass = |K|/20 (1 + delta_ab) to %.1e, weighted mass %.1e, advection %.1e, Laplacian row sums %.1e (symmetric, PSD, 1-D kernel), tensor diffusion %.1e\n", (double)worst[0],
                        (double)worst[1], (double)worst[2], (double)worst[3], (double)worst[4]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The closed-form element operator (SquallP1ElementOperatorAffine(), the closed-form element phase of the GPU's reduce kernel) against
   the 11-point quadrature, per row relative to the row's largest entry, with all fields random and each absent
   (c = 1, u = 0, K = I, as SquallP1ElementFields() gives them), for single terms and all of them together */
static PetscErrorCode TestAffineOperator(PetscRandom rnd)
{
  const PetscReal coefs[5][SQUALL_P1_NTERMS] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {1.3, 0.7, 0.9, 0}, {-0.4, 2.5, 1e-3, 0}};
  const PetscReal one[4] = {1, 1, 1, 1}, zero[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  PetscReal       worst = 0;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < 200; t++) {
    PetscReal x[4][3], invJ[9], vol, g[4][3], c[4], u[4][3], K[9];

    PetscCall(RandomTet(rnd, x));
    (void)SquallP1Geometry((const PetscReal(*)[3])x, invJ, &vol);
    SquallP1Gradients(invJ, g);
    for (int a = 0; a < 4; a++) {
      PetscCall(PetscRandomGetValueReal(rnd, &c[a]));
      c[a] += 2; /* a positive density */
      for (int d = 0; d < 3; d++) PetscCall(PetscRandomGetValueReal(rnd, &u[a][d]));
    }
    for (int k = 0; k < 9; k++) PetscCall(PetscRandomGetValueReal(rnd, &K[k]));
    for (int f = 0; f < 8; f++) { /* bit 0: c, 1: u, 2: K given */
      const PetscReal *cf = f & 1 ? c : one, (*uf)[3] = f & 2 ? (const PetscReal(*)[3])u : zero, *Kf = f & 4 ? K : eye;

      for (int k = 0; k < 5; k++) {
        PetscReal S[4][4], Sa[4][4];

        SquallP1ElementOperatorFields((const PetscReal(*)[3])g, vol, f & 1, cf, (f & 2) != 0, uf, (f & 4) != 0, Kf, coefs[k], S);
        SquallP1ElementOperatorAffine((const PetscReal(*)[3])g, vol, cf, uf, Kf, coefs[k], Sa);
        for (int a = 0; a < 4; a++) {
          PetscReal rmax = 0, dmax = 0;

          for (int b = 0; b < 4; b++) {
            rmax = PetscMax(rmax, PetscAbsReal(S[a][b]));
            dmax = PetscMax(dmax, PetscAbsReal(Sa[a][b] - S[a][b]));
          }
          if (rmax > 0)
            worst = PetscMax(worst, dmax / rmax);
          else
            CHECK(dmax == 0, "closed-form operator: row %d should be zero, differs by %g", a, (double)dmax);
        }
      }
    }
  }
  CHECK(worst < SQUALL_TOL(1e-14, 40), "closed-form element operators differ from the quadrature by %g (row-relative)", (double)worst);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "closed-form element operators (mass, advection, tensor diffusion; fields present or absent) = the 11-point quadrature to %.1e (row-relative) on 200 tetrahedra\n", (double)worst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The element load of the GPU's reduce kernel (SquallP1ElementLoadAffineXYZ(): J^-1 and the volume
   rebuilt from the vertex coordinates) against that from the precomputed geometry (SquallP1ElementLoadAffine(): what
   SquallP1Geometry() gave at set-up), vertices, gradients, volume and operator, relative to each one's largest entry:
   random tetrahedra on a shared pool of vertices (terrain-like: far from the origin, some flattened), nodal fields
   present or absent, the connectivity element-major (the host's layout) and structure of arrays (the device's). The
   XYZ load gets no geometry (E.geom = NULL): it must not read it. Its own random generator, so that the tests before
   keep their random cases. */
static PetscErrorCode TestAffineXYZ(void)
{
  enum { NV = 40, NE = 300 };
  const PetscReal coef[SQUALL_P1_NTERMS] = {1.3, 0.7, 0.9, 0};
  PetscRandom     rnd;
  PetscReal       x[3 * NV], geom[SQUALL_P1_NGEOM * NE], worst[4] = {0, 0, 0, 0};
  PetscScalar     rho[NV], u[3 * NV], K[9 * NV];
  PetscInt        tet[4 * NE], tsoa[4 * NE];
  SquallP1Coef    c;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(PetscRandomSetSeed(rnd, 5150));
  PetscCall(PetscRandomSeed(rnd));
  for (int k = 0; k < SQUALL_P1_NTERMS; k++) c.c[k] = coef[k];
  /* vertices in a 2 km x 2 km x 200 m box 5 km from the origin (coordinates much larger than the edges, as in the
     mountain mesh), the fields random per vertex */
  for (int v = 0; v < NV; v++) {
    for (int d = 0; d < 3; d++) {
      PetscReal r;

      PetscCall(PetscRandomGetValueReal(rnd, &r));
      x[3 * v + d] = (d == 2 ? 100 : 1000) * r + 5000;
    }
    {
      PetscReal r[13];

      for (int k = 0; k < 13; k++) PetscCall(PetscRandomGetValueReal(rnd, &r[k]));
      rho[v] = 2 + r[0]; /* a positive density */
      for (int d = 0; d < 3; d++) u[3 * v + d] = r[1 + d];
      for (int k = 0; k < 9; k++) K[9 * v + k] = r[4 + k];
    }
  }
  /* elements: 4 distinct vertices of the pool, right-handed, not degenerate (SquallP1SetUp()'s check) */
  for (int e = 0; e < NE; e++) {
    for (;;) {
      PetscReal X[4][3], invJ[9], vol, det, l2 = 0;
      PetscInt  w[4];
      PetscBool distinct = PETSC_TRUE;

      for (int a = 0; a < 4; a++) {
        PetscReal r;

        PetscCall(PetscRandomGetValueReal(rnd, &r));
        w[a] = PetscMin(NV - 1, (PetscInt)((r + 1) / 2 * NV));
        for (int b = 0; b < a; b++) distinct = (PetscBool)(distinct && w[a] != w[b]);
      }
      if (!distinct) continue;
      for (int a = 0; a < 4; a++)
        for (int d = 0; d < 3; d++) X[a][d] = x[3 * w[a] + d];
      det = SquallP1Geometry((const PetscReal(*)[3])X, invJ, &vol);
      for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++) l2 = PetscMax(l2, PetscSqr(X[a][0] - X[b][0]) + PetscSqr(X[a][1] - X[b][1]) + PetscSqr(X[a][2] - X[b][2]));
      if (PetscAbsReal(det) <= 1e-3 * l2 * PetscSqrtReal(l2)) continue;
      if (det < 0) {
        const PetscInt t = w[1];
        w[1]             = w[2];
        w[2]             = t;
      }
      for (int a = 0; a < 4; a++) tet[4 * e + a] = tsoa[a * NE + e] = w[a];
      for (int a = 0; a < 4; a++)
        for (int d = 0; d < 3; d++) X[a][d] = x[3 * w[a] + d];
      (void)SquallP1Geometry((const PetscReal(*)[3])X, invJ, &vol);
      for (int k = 0; k < 9; k++) geom[k * NE + e] = invJ[k];
      geom[9 * NE + e] = vol;
      break;
    }
  }
  for (int layout = 0; layout < 2; layout++)
    for (int f = 0; f < 8; f++) { /* bit 0: rho, 1: u, 2: K given */
      SquallP1Elements E, Ex;

      PetscCall(PetscMemzero(&E, sizeof(E)));
      E.ne    = NE;
      E.tet   = layout ? tsoa : tet;
      E.ts    = layout ? NE : 1;
      E.es    = layout ? 1 : 4;
      E.geom  = geom;
      E.x     = x;
      E.rho   = f & 1 ? rho : NULL;
      E.u     = f & 2 ? u : NULL;
      E.K     = f & 4 ? K : NULL;
      Ex      = E;
      Ex.geom = NULL;
      for (int e = 0; e < NE; e++) {
        PetscInt  v[2][4];
        PetscReal g[2][4][3], vol[2], S[2][4][4], gmax = 0, dg = 0;

        SquallP1ElementLoadAffine(&E, e, &c, v[0], g[0], &vol[0], S[0]);
        SquallP1ElementLoadAffineXYZ(&Ex, e, &c, v[1], g[1], &vol[1], S[1]);
        for (int a = 0; a < 4; a++) {
          PetscReal rmax = 0, dmax = 0;

          CHECK(v[0][a] == v[1][a], "affine_xyz load, element %d: vertex %d is %" PetscInt_FMT ", not %" PetscInt_FMT, e, a, v[1][a], v[0][a]);
          for (int b = 0; b < 4; b++) {
            rmax = PetscMax(rmax, PetscAbsReal(S[0][a][b]));
            dmax = PetscMax(dmax, PetscAbsReal(S[1][a][b] - S[0][a][b]));
          }
          worst[0] = PetscMax(worst[0], rmax > 0 ? dmax / rmax : dmax);
          for (int d = 0; d < 3; d++) {
            gmax = PetscMax(gmax, PetscAbsReal(g[0][a][d]));
            dg   = PetscMax(dg, PetscAbsReal(g[1][a][d] - g[0][a][d]));
          }
        }
        worst[1] = PetscMax(worst[1], dg / gmax);
        worst[2] = PetscMax(worst[2], PetscAbsReal(vol[1] - vol[0]) / PetscAbsReal(vol[0]));
        CHECK(vol[1] > 0, "affine_xyz load, element %d: volume %g", e, (double)vol[1]);
      }
    }
  PetscCall(PetscRandomDestroy(&rnd));
  CHECK(worst[0] <= SQUALL_TOL(1e-14, 40) && worst[1] <= SQUALL_TOL(1e-14, 40) && worst[2] <= SQUALL_TOL(1e-14, 40), "affine_xyz element load differs from affine's: operator %g (row-relative), gradients %g, volume %g", (double)worst[0],
        (double)worst[1], (double)worst[2]);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "element load from vertex coordinates (affine_xyz) = from the precomputed geometry (affine) on %d tetrahedra, 2 layouts, fields present or absent: operator %.1e, gradients %.1e, volume %.1e\n", (int)NE,
                        (double)worst[0], (double)worst[1], (double)worst[2]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestSolve6(PetscRandom rnd)
{
  PetscReal worst = 0;

  PetscFunctionBegin;
  /* the first row of every fifth matrix is 1e-3 (row 2 + dep row 1): small and nearly dependent, independent to
     about 1e-3 dep relative, far above the singularity threshold 100 eps of SquallP1Solve6 in either precision */
  const PetscReal dep = PetscMax((PetscReal)0.01, 1e6 * PETSC_MACHINE_EPSILON);

  for (PetscInt t = 0; t < 500; t++) {
    PetscReal    A[36], b[6], x[6];
    PetscScalar  At[36], bl[6];
    PetscBLASInt n = 6, nrhs = 1, ipiv[6], info;
    PetscReal    nx = 0, dx = 0;

    for (int k = 0; k < 36; k++) PetscCall(PetscRandomGetValueReal(rnd, &A[k]));
    for (int k = 0; k < 6; k++) PetscCall(PetscRandomGetValueReal(rnd, &b[k]));
    if (t % 5 == 0)
      for (int j = 0; j < 6; j++) A[j] = 1e-3 * (A[6 + j] + dep * A[j]); /* small, nearly dependent first row: pivoting matters */
    if (t % 7 == 0) A[0] = 0;                                            /* a zero leading pivot */
    for (int i = 0; i < 6; i++) {
      for (int j = 0; j < 6; j++) At[i + 6 * j] = A[6 * i + j]; /* LAPACK is column-major */
      bl[i] = b[i];
      x[i]  = b[i];
    }
    PetscCallBLAS("LAPACKgesv", LAPACKgesv_(&n, &nrhs, At, &n, ipiv, bl, &n, &info));
    CHECK(info == 0, "LAPACK gesv failed: %d", (int)info);
    CHECK(SquallP1Solve6(A, x, 100 * PETSC_MACHINE_EPSILON) == 0, "SquallP1Solve6 found a nonsingular matrix singular (case %" PetscInt_FMT ")", t);
    for (int i = 0; i < 6; i++) {
      nx = PetscMax(nx, PetscAbsScalar(bl[i]));
      dx = PetscMax(dx, PetscAbsScalar(x[i] - bl[i]));
    }
    worst = PetscMax(worst, dx / nx);
  }
  CHECK(worst < SQUALL_TOL(1e-10, 1e4), "6x6 solves differ from LAPACK by %g", (double)worst);
  {
    PetscReal A[36], b[6] = {1, 2, 3, 4, 5, 6};
    for (int k = 0; k < 36; k++) PetscCall(PetscRandomGetValueReal(rnd, &A[k]));
    for (int j = 0; j < 6; j++) A[30 + j] = A[j] + 2 * A[6 + j]; /* a dependent row */
    CHECK(SquallP1Solve6(A, b, 100 * PETSC_MACHINE_EPSILON) != 0, "a singular 6x6 matrix was not detected");
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "6x6 Gaussian elimination with partial pivoting: 500 systems match LAPACK gesv to %.1e; a singular matrix is detected\n", (double)worst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckEig3(const PetscReal A[9], PetscReal *werr, PetscReal *verr)
{
  PetscReal lam[3], V[9], wl[3], Vl[9], amax = 0;

  PetscFunctionBegin;
  (void)SquallP1SymEig3(A, lam, V);
  PetscCall(SymEigLapack(3, A, wl, Vl));
  for (int k = 0; k < 9; k++) amax = PetscMax(amax, PetscAbsReal(A[k]));
  if (amax == 0) amax = 1;
  for (int k = 0; k < 3; k++) {
    PetscReal dot = 0, res = 0, gap = PETSC_MAX_REAL;

    CHECK(k == 0 || lam[k] >= lam[k - 1], "eigenvalues not sorted");
    *werr = PetscMax(*werr, PetscAbsReal(lam[k] - wl[k]) / amax);
    /* eigenvector: residual always; agreement with LAPACK where the eigenvalue is simple */
    for (int i = 0; i < 3; i++) {
      PetscReal r = -lam[k] * V[3 * i + k];
      for (int j = 0; j < 3; j++) r += A[3 * i + j] * V[3 * j + k];
      res = PetscMax(res, PetscAbsReal(r));
      dot += V[3 * i + k] * Vl[i + 3 * k];
    }
    for (int j = 0; j < 3; j++)
      if (j != k) gap = PetscMin(gap, PetscAbsReal(wl[j] - wl[k]));
    *verr = PetscMax(*verr, res / amax);
    if (gap > 1e-3 * amax) *verr = PetscMax(*verr, 1 - PetscAbsReal(dot));
  }
  /* orthonormal and right-handed */
  for (int k = 0; k < 3; k++)
    for (int m = 0; m < 3; m++) {
      PetscReal s = 0;
      for (int i = 0; i < 3; i++) s += V[3 * i + k] * V[3 * i + m];
      *verr = PetscMax(*verr, PetscAbsReal(s - (k == m)));
    }
  {
    PetscReal Vt[9];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) Vt[3 * i + j] = V[3 * j + i];
    CHECK(SquallP1Det3(Vt) > 0, "eigenvector basis is not right-handed");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestEig3(PetscRandom rnd)
{
  PetscReal werr = 0, verr = 0;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < 1000; t++) {
    PetscReal A[9];

    for (int i = 0; i < 3; i++)
      for (int j = i; j < 3; j++) {
        PetscCall(PetscRandomGetValueReal(rnd, &A[3 * i + j]));
        A[3 * j + i] = A[3 * i + j];
      }
    if (t % 3 == 1) /* strongly anisotropic SPD, like a terrain-following metric */
      for (int i = 0; i < 3; i++) A[4 * i] += (i == 2 ? 1e6 : 1);
    PetscCall(CheckEig3(A, &werr, &verr));
  }
  {
    /* repeated eigenvalues, diagonal, zero and negative definite matrices */
    const PetscReal special[5][9] = {{1, 0, 0, 0, 1, 0, 0, 0, 2},
                                     {2, 1, 1, 1, 2, 1, 1, 1, 2}, /* 1, 1, 4 */
                                     {0, 0, 0, 0, 0, 0, 0, 0, 0},
                                     {-3, 1, 0, 1, -3, 0, 0, 0, -1},
                                     {5, 0, 0, 0, 5, 0, 0, 0, 5}};
    for (int s = 0; s < 5; s++) PetscCall(CheckEig3(special[s], &werr, &verr));
  }
  CHECK(werr < SQUALL_TOL(1e-14, 40) && verr < SQUALL_TOL(1e-12, 1000), "3x3 eigenpairs differ from LAPACK: eigenvalues %g, eigenvectors %g", (double)werr, (double)verr);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "3x3 symmetric eigensolver (Jacobi): 1005 matrices match LAPACK syev, eigenvalues to %.1e, eigenvectors to %.1e (sorted, orthonormal, right-handed)\n", (double)werr, (double)verr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestMetric(PetscRandom rnd)
{
  const int ea[6] = {0, 0, 0, 1, 1, 2}, eb[6] = {1, 2, 3, 2, 3, 3};
  PetscReal worst = 0;

  PetscFunctionBegin;
  {
    /* regular tetrahedron of edge h: M = I/h^2, L = h^2 I, all lengths h */
    const PetscReal h = 3, s = h / PetscSqrtReal(2);
    PetscReal       x[4][3] = {{0, 0, 0}, {s, s, 0}, {s, 0, s}, {0, s, s}}, M[9], L[9], hh[3];
    CHECK(SquallP1ElementMetric((const PetscReal(*)[3])x, M, L, hh) == 0, "regular tetrahedron: no metric");
    for (int k = 0; k < 9; k++) {
      CHECK(PetscAbsReal(M[k] - (k % 4 == 0) / (h * h)) < SQUALL_TOL(1e-14, 40), "regular tetrahedron: M[%d] = %g", k, (double)M[k]);
      CHECK(PetscAbsReal(L[k] - (k % 4 == 0) * h * h) < SQUALL_TOL(1e-12, 1000), "regular tetrahedron: L[%d] = %g", k, (double)L[k]);
    }
    for (int k = 0; k < 3; k++) CHECK(PetscAbsReal(hh[k] - h) < SQUALL_TOL(1e-13, 400), "regular tetrahedron: length %g", (double)hh[k]);
  }
  for (PetscInt t = 0; t < 200; t++) {
    PetscReal x[4][3], M[9], L[9], h[3];

    PetscCall(RandomTet(rnd, x));
    if (t % 2) /* flatten: a terrain-following aspect ratio */
      for (int a = 0; a < 4; a++) x[a][2] *= 0.05;
    CHECK(SquallP1ElementMetric((const PetscReal(*)[3])x, M, L, h) == 0, "tetrahedron %" PetscInt_FMT ": no metric", t);
    for (int k = 0; k < 6; k++) {
      PetscReal e[3], q = 0;
      for (int d = 0; d < 3; d++) e[d] = x[eb[k]][d] - x[ea[k]][d];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) q += e[i] * M[3 * i + j] * e[j];
      worst = PetscMax(worst, PetscAbsReal(q - 1));
    }
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        PetscReal s = 0;
        for (int k = 0; k < 3; k++) s += L[3 * i + k] * M[3 * k + j];
        worst = PetscMax(worst, PetscAbsReal(s - (i == j)));
      }
    CHECK(h[0] >= h[1] && h[1] >= h[2] && h[2] > 0, "lengths %g %g %g not sorted descending", (double)h[0], (double)h[1], (double)h[2]);
  }
  {
    PetscReal x[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}, M[9], L[9], h[3];
    CHECK(SquallP1ElementMetric((const PetscReal(*)[3])x, M, L, h) != 0, "a flat tetrahedron has a metric");
  }
  CHECK(worst < SQUALL_TOL(1e-10, 1e5), "metric: e^T M e = 1 and L M = I to %g", (double)worst);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "element metric (6x6 solve + eigenpairs): I/h^2 for a regular tetrahedron; on 200 tetrahedra every edge has unit length and L M = I to %.1e\n", (double)worst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(PetscRandomSetSeed(rnd, 20260));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(TestQuadrature());
  PetscCall(TestElementMatrices(rnd));
  PetscCall(TestSolve6(rnd));
  PetscCall(TestEig3(rnd));
  PetscCall(TestMetric(rnd));
  PetscCall(TestAffineOperator(rnd)); /* last: the others keep the random cases they were tuned on (single precision's Solve6 case 105) */
  PetscCall(TestAffineXYZ());         /* its own generator */
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
