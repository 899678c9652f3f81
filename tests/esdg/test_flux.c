static char help[] = "Pointwise Euler-with-gravity physics: log mean, EC flux (consistency, symmetry, entropy conservation),\n"
                     "matrix dissipation, surface fluxes, mirror state, admissibility.\n";

#include "physics/euler.h"

#define CHECK(cond, ...) PetscCheck(cond, PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__)

static SquallGas gas = {1.4, 287.0, 9.81, 0, 0, 0}; /* hgm1: SquallGasSetUp() in main() */

static PetscErrorCode Uniform(PetscRandom rnd, PetscReal lo, PetscReal hi, PetscReal *x)
{
  PetscReal r = 0;

  PetscFunctionBegin;
  PetscCall(PetscRandomGetValueReal(rnd, &r));
  *x = lo + (hi - lo) * r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 10^U(lo, hi) */
static PetscErrorCode LogUniform(PetscRandom rnd, PetscReal lo, PetscReal hi, PetscReal *x)
{
  PetscReal e = 0;

  PetscFunctionBegin;
  PetscCall(Uniform(rnd, lo, hi, &e));
  *x = PetscPowReal(10, e);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* random direction of length len (unit if len = 1) */
static PetscErrorCode RandomVector(PetscRandom rnd, PetscReal len, PetscReal n[3])
{
  PetscReal nn = 0;

  PetscFunctionBegin;
  while (nn < 1e-2) {
    nn = 0;
    for (PetscInt c = 0; c < 3; c++) {
      PetscCall(Uniform(rnd, -1, 1, &n[c]));
      nn += n[c] * n[c];
    }
  }
  for (PetscInt c = 0; c < 3; c++) n[c] *= len / PetscSqrtReal(nn);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* atmospheric state: rho in [0.1, 1.5], p in [1e4, 1e5], |u| < 100 m/s, Phi = g z with z in [0, 30 km] */
static PetscErrorCode RandomState(PetscRandom rnd, PetscReal q[5], PetscReal *Phi)
{
  PetscReal rho = 0, p = 0, u[3], speed = 0, z = 0;

  PetscFunctionBegin;
  PetscCall(Uniform(rnd, 0.1, 1.5, &rho));
  PetscCall(Uniform(rnd, 1e4, 1e5, &p));
  PetscCall(Uniform(rnd, 0, 100, &speed));
  PetscCall(RandomVector(rnd, speed, u));
  PetscCall(Uniform(rnd, 0, 30000, &z));
  *Phi = gas.g * z;
  SquallEulerConservative(&gas, rho, u, p, *Phi, q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a state near (q, Phi): density, pressure, velocity perturbed by relative amounts ~rel, height by ~dz */
static PetscErrorCode NearbyState(PetscRandom rnd, const PetscReal q[5], PetscReal Phi, PetscReal rel, PetscReal dz, PetscReal q2[5], PetscReal *Phi2)
{
  PetscReal a[SQUALL_NAUX], r[6], u[3];

  PetscFunctionBegin;
  (void)SquallEulerAux(&gas, q, Phi, a);
  for (PetscInt k = 0; k < 6; k++) PetscCall(Uniform(rnd, -1, 1, &r[k]));
  for (PetscInt c = 0; c < 3; c++) u[c] = a[SQ_U + c] + rel * 100 * r[2 + c];
  *Phi2 = Phi + gas.g * dz * r[5];
  SquallEulerConservative(&gas, a[SQ_RHO] * (1 + rel * r[0]), u, a[SQ_P] * (1 + rel * r[1]), *Phi2, q2);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a pair of states: independent, or (every other call) nearby so that the log-mean series branch is used;
   samePhi: both at the same geopotential (as on a face, where Phi is continuous) */
static PetscErrorCode RandomPair(PetscRandom rnd, PetscInt i, PetscBool samePhi, PetscReal q1[5], PetscReal *Phi1, PetscReal a1[], PetscReal q2[5], PetscReal *Phi2, PetscReal a2[])
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < SQUALL_NAUX; k++) a1[k] = a2[k] = 0;
  PetscCall(RandomState(rnd, q1, Phi1));
  if (i % 2) {
    PetscCall(RandomState(rnd, q2, Phi2));
  } else {
    PetscReal rel = 0;
    PetscCall(LogUniform(rnd, -7, -1, &rel));
    PetscCall(NearbyState(rnd, q1, *Phi1, rel, 100, q2, Phi2));
  }
  if (samePhi) { /* move q2 to Phi1 keeping its density, velocity and pressure */
    q2[4] += q2[0] * (*Phi1 - *Phi2);
    *Phi2 = *Phi1;
  }
  CHECK(!SquallEulerAux(&gas, q1, *Phi1, a1), "random state not admissible");
  CHECK(!SquallEulerAux(&gas, q2, *Phi2, a2), "random state not admissible");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal Dot5(const PetscReal a[5], const PetscReal b[5])
{
  PetscReal s = 0;
  for (PetscInt k = 0; k < 5; k++) s += a[k] * b[k];
  return s;
}

static PetscReal AbsDot5(const PetscReal a[5], const PetscReal b[5])
{
  PetscReal s = 0;
  for (PetscInt k = 0; k < 5; k++) s += PetscAbsReal(a[k] * b[k]);
  return s;
}

/* characteristic size of the components of a flux along n for the state a: mass, momentum, energy */
static void FluxScale(const PetscReal a[], const PetscReal n[3], PetscReal S[5])
{
  const PetscReal nn = PetscSqrtReal(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  const PetscReal uu = PetscSqrtReal(a[SQ_U] * a[SQ_U] + a[SQ_V] * a[SQ_V] + a[SQ_W] * a[SQ_W]);
  const PetscReal c = SquallEulerSoundSpeed(&gas, a), s = (uu + c) * nn, rho = a[SQ_RHO];
  const PetscReal E = a[SQ_P] / (gas.gamma - 1) + rho * (uu * uu / 2 + PetscAbsReal(a[SQ_PHI]));

  S[0] = rho * s;
  S[1] = S[2] = S[3] = (rho * uu + a[SQ_P] / (uu + c)) * s;
  S[4]               = (E + a[SQ_P]) * s;
}

/* 1. logarithmic mean and its inverse against a long double reference */
static PetscErrorCode TestLogMean(PetscRandom rnd)
{
  const PetscReal eps  = PETSC_MACHINE_EPSILON;
  PetscReal       maxA = 0, maxAi = 0, maxB = 0, maxBi = 0;
  PetscInt        nseries = 0, ndirect = 0;

  PetscFunctionBegin;
  for (PetscInt set = 0; set < 2; set++) {
    for (PetscInt i = 0; i < 20000; i++) {
      PetscReal   x = 1, y, ratio = 1, lx, ly, m, im, bound;
      long double X, Y, ref, err, erri;
      /* set 0: x, y in [0.61, 1.64] (|ln| < 1/2, where the stored logs are exact to eps/8); set 1: x in [1e-8, 1e8] */
      if (set == 0) {
        PetscCall(Uniform(rnd, 0.72, 1.4, &x));
      } else {
        PetscCall(LogUniform(rnd, -8, 8, &x));
      }
      /* ratio y/x: equal, near-equal (1 + 1e-6..1e-3), around the series threshold, or anywhere */
      if (i % 4) {
        const PetscReal lo[4] = {0, -6, -3, -3}, hi[4] = {0, -3, PetscLog10Real(0.17), PetscLog10Real(set ? 100 : 0.17)};
        PetscCall(LogUniform(rnd, lo[i % 4], hi[i % 4], &ratio));
        ratio += 1;
      }
      y  = (i / 4) % 2 ? x * ratio : x / ratio;
      lx = PetscLogReal(x);
      ly = PetscLogReal(y);
      m  = SquallLogMean(x, y, lx, ly);
      im = SquallInvLogMean(x, y, lx, ly);
      nseries += PetscAbsReal(y - x) < SQUALL_LOGMEAN_FMAX * (x + y) ? 1 : 0;
      X    = x;
      Y    = y;
      ref  = (x == y) ? X : (Y - X) / log1pl((Y - X) / X);
      err  = fabsl((long double)m - ref) / ref;
      erri = fabsl((long double)im * ref - 1);
      CHECK(SquallLogMean(y, x, ly, lx) == m && SquallInvLogMean(y, x, ly, lx) == im, "log mean not symmetric: %g %g", (double)x, (double)y);
      if (set == 0) {
        maxA  = PetscMax(maxA, (PetscReal)err);
        maxAi = PetscMax(maxAi, (PetscReal)erri);
        CHECK(err < 20 * eps && erri < 20 * eps, "log mean of %.17g, %.17g: relative errors %g, %g (inverse) exceed 20 eps", (double)x, (double)y, (double)err, (double)erri);
      } else {
        /* pre-logged form: the rounding of the stored logs limits the direct quotient to ~eps max|ln|/|ln y - ln x| */
        bound = 20 * eps + (ly != lx ? 2 * eps * PetscMax(PetscAbsReal(lx), PetscAbsReal(ly)) / PetscAbsReal(ly - lx) : 0);
        maxB  = PetscMax(maxB, (PetscReal)err / bound);
        maxBi = PetscMax(maxBi, (PetscReal)erri / bound);
        CHECK(err < bound && erri < bound, "log mean of %.17g, %.17g: relative errors %g, %g (inverse) exceed the bound %g", (double)x, (double)y, (double)err, (double)erri, (double)bound);
      }
    }
  }
  ndirect = 40000 - nseries;
  CHECK(nseries > 1000 && ndirect > 1000, "log mean branches not both exercised (%" PetscInt_FMT ", %" PetscInt_FMT ")", nseries, ndirect);
  PetscCall(
    PetscPrintf(PETSC_COMM_WORLD, "log mean: max rel error %.2e eps (inverse %.2e eps) for x, y in [0.61, 1.64]; x in [1e-8, 1e8]: max error / bound %.2f (inverse %.2f)\n", (double)(maxA / eps), (double)(maxAi / eps), (double)maxB, (double)maxBi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2. consistency: F(q, q; n) = f(q).n, and the three surface fluxes at q- = q+ */
static PetscErrorCode TestConsistency(PetscRandom rnd)
{
  const PetscReal             tol      = 100 * PETSC_MACHINE_EPSILON;
  const SquallSurfaceFluxType types[3] = {SQUALL_FLUX_EC, SQUALL_FLUX_ES, SQUALL_FLUX_RUSANOV};
  const char                 *names[3] = {"EC", "ES", "Rusanov"};
  PetscReal                   maxec = 0, maxs = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 1000; i++) {
    PetscReal q[5], Phi, a[SQUALL_NAUX], n[3], nhat[3], len = 1, f[5], Fs[5], G[3], S[5], F[5];
    PetscCall(RandomState(rnd, q, &Phi));
    CHECK(!SquallEulerAux(&gas, q, Phi, a), "random state not admissible");
    PetscCall(LogUniform(rnd, -1, 1, &len));
    PetscCall(RandomVector(rnd, len, n));
    SquallEulerFlux(&gas, a, n, f);
    SquallEulerECFlux(&gas, a, a, n, Fs, G);
    FluxScale(a, n, S);
    for (PetscInt k = 0; k < 5; k++) {
      const PetscReal err = PetscAbsReal(Fs[k] + (k >= 1 && k <= 3 ? G[k - 1] : 0) - f[k]) / S[k];
      maxec               = PetscMax(maxec, err);
      CHECK(err < tol, "EC flux inconsistent: component %" PetscInt_FMT ": %g vs %g", k, (double)Fs[k], (double)f[k]);
    }
    CHECK(G[0] == 0 && G[1] == 0 && G[2] == 0, "gravity fluctuation nonzero for equal states");
    PetscCall(RandomVector(rnd, 1, nhat));
    SquallEulerFlux(&gas, a, nhat, f);
    FluxScale(a, nhat, S);
    for (PetscInt t = 0; t < 3; t++) {
      SquallEulerSurfaceFlux(&gas, types[t], q, a, q, a, nhat, F);
      for (PetscInt k = 0; k < 5; k++) {
        const PetscReal err = PetscAbsReal(F[k] - f[k]) / S[k];
        maxs                = PetscMax(maxs, err);
        CHECK(err < tol, "surface flux %s inconsistent: component %" PetscInt_FMT ": %g vs %g", names[t], k, (double)F[k], (double)f[k]);
      }
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "consistency: EC flux max rel error %.2e, surface fluxes %.2e\n", (double)maxec, (double)maxs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 3. symmetry of Fs, 4. entropy conservation with gravity and G_21 = -(b1/b2) G_12 */
static PetscErrorCode TestEntropyConservation(PetscRandom rnd)
{
  const PetscReal tol   = 1e3 * PETSC_MACHINE_EPSILON;
  PetscReal       maxid = 0, maxg = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 2000; i++) {
    PetscReal q1[5], q2[5], Phi1, Phi2, a1[SQUALL_NAUX], a2[SQUALL_NAUX], n[3], len = 1, Fs[5], Fs2[5], G12[3], G21[3], v1[5], v2[5], F1[5], F2[5], psi, scale, res, gerr, gscale = 0;
    PetscCall(RandomPair(rnd, i, PETSC_FALSE, q1, &Phi1, a1, q2, &Phi2, a2));
    if (Phi1 == Phi2) continue;
    PetscCall(LogUniform(rnd, -1, 1, &len));
    PetscCall(RandomVector(rnd, len, n));
    SquallEulerECFlux(&gas, a1, a2, n, Fs, G12);
    SquallEulerECFlux(&gas, a2, a1, n, Fs2, G21);
    for (PetscInt k = 0; k < 5; k++) CHECK(Fs[k] == Fs2[k], "Fs not symmetric: component %" PetscInt_FMT ": %.17g vs %.17g", k, (double)Fs[k], (double)Fs2[k]);
    gerr = 0;
    for (PetscInt c = 0; c < 3; c++) {
      gerr   = PetscMax(gerr, PetscAbsReal(G21[c] + a1[SQ_B] / a2[SQ_B] * G12[c]));
      gscale = PetscMax(gscale, PetscAbsReal(G21[c]));
    }
    maxg = PetscMax(maxg, gerr / gscale);
    CHECK(gerr <= 10 * PETSC_MACHINE_EPSILON * gscale, "G21 = %g differs from -(b1/b2) G12 = %g", (double)G21[2], (double)(-a1[SQ_B] / a2[SQ_B] * G12[2]));
    SquallEulerEntropyVariables(&gas, a1, v1);
    SquallEulerEntropyVariables(&gas, a2, v2);
    for (PetscInt k = 0; k < 5; k++) F1[k] = F2[k] = Fs[k];
    for (PetscInt c = 0; c < 3; c++) {
      F1[1 + c] += G12[c];
      F2[1 + c] += G21[c];
    }
    psi   = (q1[1] - q2[1]) * n[0] + (q1[2] - q2[2]) * n[1] + (q1[3] - q2[3]) * n[2];
    res   = Dot5(v1, F1) - Dot5(v2, F2) - psi;
    scale = AbsDot5(v1, F1) + AbsDot5(v2, F2) + PetscAbsReal(q1[1] * n[0]) + PetscAbsReal(q1[2] * n[1]) + PetscAbsReal(q1[3] * n[2]) + PetscAbsReal(q2[1] * n[0]) + PetscAbsReal(q2[2] * n[1]) + PetscAbsReal(q2[3] * n[2]);
    maxid = PetscMax(maxid, PetscAbsReal(res) / scale);
    CHECK(PetscAbsReal(res) < tol * scale, "entropy conservation violated: residual %g, scale %g (pair %" PetscInt_FMT ")", (double)res, (double)scale, i);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "EC flux: Fs bitwise symmetric; entropy identity max rel residual %.2e; G21 vs -(b1/b2) G12 max rel error %.2e\n", (double)maxid, (double)maxg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The means two ways: (a) a face's (SquallEulerAuxFace(), no stored logarithms: the direct branch takes the log of
   the ratio) against the volume's (stored logarithms), the same values up to the rounding of the logarithms; (b) the
   log jumps M.dlr, M.dlb against ln(rho2/rho1), ln(b2/b1) in higher precision, in both branches; (c) a kernel's scaled
   pair values (gas.scaled, u/2 and Phi/4) give the same means bit for bit */
static PetscErrorCode TestFaceMeans(PetscRandom rnd)
{
  const PetscReal tol  = 100 * PETSC_MACHINE_EPSILON;
  PetscReal       maxm = 0, maxj = 0;
  PetscInt        nser = 0, ndir = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 2000; i++) {
    PetscReal          q1[5], q2[5], Phi1, Phi2, a1[SQUALL_NAUX], a2[SQUALL_NAUX], f1[SQUALL_NAUX], f2[SQUALL_NAUX], s1[SQUALL_NAUX], s2[SQUALL_NAUX];
    SquallEulerECMeans M, F, S;
    SquallGas          sg = gas;
    PetscCall(RandomPair(rnd, i, PETSC_FALSE, q1, &Phi1, a1, q2, &Phi2, a2));
    CHECK(!SquallEulerAuxFace(&gas, q1, Phi1, f1) && !SquallEulerAuxFace(&gas, q2, Phi2, f2), "random state not admissible");
    CHECK(f1[SQ_LOGRHO] == 0 && f1[SQ_LOGB] == 0, "SquallEulerAuxFace() computed logarithms");
    SquallEulerECMeansPair_Private(&gas, a1, a2, 0, &M);
    SquallEulerECMeansPair_Private(&gas, f1, f2, 1, &F);
    {
      /* the stored logarithms' difference carries their rounding, eps |ln x|, relative to the jump: the bound of the
         volume form's own error, which the face form does not have */
      const PetscReal lr = PetscAbsReal(a2[SQ_LOGRHO] - a1[SQ_LOGRHO]), lb = PetscAbsReal(a2[SQ_LOGB] - a1[SQ_LOGB]);
      const PetscReal cr = lr > 0 ? (PetscAbsReal(a1[SQ_LOGRHO]) + PetscAbsReal(a2[SQ_LOGRHO])) / lr : 0, cb = lb > 0 ? (PetscAbsReal(a1[SQ_LOGB]) + PetscAbsReal(a2[SQ_LOGB])) / lb : 0;
      const PetscReal bound = tol * PetscMax(1, PetscMax(cr, cb));
      const PetscReal m[] = {M.rho_ln, M.p_hat, M.ub, M.vb, M.wb, M.ek, M.g1, M.g2, M.e_ln}, fm[] = {F.rho_ln, F.p_hat, F.ub, F.vb, F.wb, F.ek, F.g1, F.g2, F.e_ln};
      for (PetscInt k = 0; k < 9; k++) {
        const PetscReal err = PetscAbsReal(fm[k] - m[k]) / PetscMax(PetscAbsReal(m[k]), PETSC_SMALL);
        maxm                = PetscMax(maxm, err / bound);
        CHECK(err <= bound, "face mean %" PetscInt_FMT " of pair %" PetscInt_FMT ": %.17g against %.17g with stored logarithms (bound %g)", k, i, (double)fm[k], (double)m[k], (double)bound);
      }
    }
    {
      /* log1p of the (exactly formed) relative difference: the ratio itself would round to ~1e-19 in long double */
      const long double lr = log1pl(((long double)a2[SQ_RHO] - (long double)a1[SQ_RHO]) / (long double)a1[SQ_RHO]), lb = log1pl(((long double)a2[SQ_B] - (long double)a1[SQ_B]) / (long double)a1[SQ_B]);
      const PetscReal   er = (PetscReal)(PetscAbsReal(F.dlr - (PetscReal)lr) / fabsl(lr)), eb = (PetscReal)(PetscAbsReal(F.dlb - (PetscReal)lb) / fabsl(lb));
      if (lr != 0) {
        maxj = PetscMax(maxj, er);
        CHECK(er <= tol, "[[ln rho]] of pair %" PetscInt_FMT ": %.17g against %.17Lg", i, (double)F.dlr, lr);
      }
      if (lb != 0) {
        maxj = PetscMax(maxj, eb);
        CHECK(eb <= tol, "[[ln b]] of pair %" PetscInt_FMT ": %.17g against %.17Lg", i, (double)F.dlb, lb);
      }
      if (PetscAbsReal(a2[SQ_B] - a1[SQ_B]) < SQUALL_LOGMEAN_FMAX * (a1[SQ_B] + a2[SQ_B]))
        nser++;
      else
        ndir++;
    }
    for (PetscInt k = 0; k < SQUALL_NAUX; k++) {
      s1[k] = a1[k];
      s2[k] = a2[k];
    }
    SquallEulerScalePair(s1);
    SquallEulerScalePair(s2);
    sg.scaled = 1;
    SquallEulerECMeansPair(&sg, s1, s2, &S);
    CHECK(S.rho_ln == M.rho_ln && S.p_hat == M.p_hat && S.ub == M.ub && S.vb == M.vb && S.wb == M.wb && S.ek == M.ek && S.g1 == M.g1 && S.g2 == M.g2 && S.e_ln == M.e_ln, "the scaled pair values change the means of pair %" PetscInt_FMT, i);
  }
  CHECK(nser > 100 && ndir > 100, "the pairs did not exercise both branches (%" PetscInt_FMT " series, %" PetscInt_FMT " direct)", nser, ndir);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "face means (no stored logarithms) against the volume's: max rel difference / its bound %.2e; log jumps max rel error %.2e (%" PetscInt_FMT " series, %" PetscInt_FMT
                        " direct in b); scaled pair values: the same means bit for bit\n",
                        (double)maxm, (double)maxj, nser, ndir));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 5. ES and Rusanov dissipate entropy: [[v]].(F* - F_EC) <= 0; ES for any pair (D is positive semi-definite),
   Rusanov for pairs at the same Phi */
static PetscErrorCode TestEntropyStability(PetscRandom rnd)
{
  const PetscReal tol   = 100 * PETSC_MACHINE_EPSILON;
  PetscReal       maxes = -PETSC_MAX_REAL, maxrus = -PETSC_MAX_REAL;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 2000; i++) {
    PetscReal       q1[5], q2[5], Phi1, Phi2, a1[SQUALL_NAUX], a2[SQUALL_NAUX], nhat[3], v1[5], v2[5], dv[5], Fec[5], Fes[5], Frus[5], d[5], pes, prus, scale;
    const PetscBool samePhi = (i / 2) % 2 ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(RandomPair(rnd, i, samePhi, q1, &Phi1, a1, q2, &Phi2, a2));
    PetscCall(RandomVector(rnd, 1, nhat));
    SquallEulerSurfaceFlux(&gas, SQUALL_FLUX_EC, q1, a1, q2, a2, nhat, Fec);
    SquallEulerSurfaceFlux(&gas, SQUALL_FLUX_ES, q1, a1, q2, a2, nhat, Fes);
    SquallEulerSurfaceFlux(&gas, SQUALL_FLUX_RUSANOV, q1, a1, q2, a2, nhat, Frus);
    SquallEulerEntropyVariables(&gas, a1, v1);
    SquallEulerEntropyVariables(&gas, a2, v2);
    for (PetscInt k = 0; k < 5; k++) dv[k] = v2[k] - v1[k];
    /* round-off floor: of the fluxes, and of [[v]]^T M [[v]] (M the dissipation matrix) where [[v]] is formed
       from v1, v2 with absolute rounding errors ~ eps |v| (the flux forms it differently) */
    scale = AbsDot5(dv, Fec);
    for (PetscInt j = 0; j < 5; j++) {
      PetscReal e[5] = {0, 0, 0, 0, 0}, col[5];
      e[j]           = 1;
      SquallEulerMatrixDissipation(&gas, a1, a2, nhat, e, col);
      for (PetscInt k = 0; k < 5; k++) scale += (PetscAbsReal(v1[k]) + PetscAbsReal(v2[k])) * PetscAbsReal(col[k] * dv[j]);
    }
    for (PetscInt k = 0; k < 5; k++) d[k] = Fes[k] - Fec[k];
    pes = Dot5(dv, d);
    for (PetscInt k = 0; k < 5; k++) d[k] = Frus[k] - Fec[k];
    prus  = Dot5(dv, d);
    maxes = PetscMax(maxes, pes / scale);
    CHECK(pes <= tol * scale, "ES flux produces entropy: [[v]].(F_ES - F_EC) = %g (scale %g)", (double)pes, (double)scale);
    /* Rusanov: -(lambda/2) [[v]].[[q]] <= 0 by convexity of eta(q) at fixed Phi only (faces have continuous Phi) */
    if (samePhi) {
      maxrus = PetscMax(maxrus, prus / scale);
      CHECK(prus <= tol * scale, "Rusanov flux produces entropy: [[v]].(F_Rus - F_EC) = %g (scale %g)", (double)prus, (double)scale);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "entropy stability: max [[v]].(F*-F_EC)/scale: ES %.2e, Rusanov %.2e (must be <= %.1e)\n", (double)maxes, (double)maxrus, (double)tol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the two-sided face flux used by the GPU face kernel: the own side bitwise equal to the one-sided
   flux, the outer side equal to the one-sided flux seen from outside (-nhat) to round-off (the same
   faces have continuous Phi), and mass and energy contributions cancelling exactly */
static PetscErrorCode TestSurfaceFluxPair(PetscRandom rnd)
{
  const SquallSurfaceFluxType types[3] = {SQUALL_FLUX_EC, SQUALL_FLUX_ES, SQUALL_FLUX_RUSANOV};
  const PetscReal             tol      = 200 * PETSC_MACHINE_EPSILON;
  PetscReal                   maxrel   = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 3000; i++) {
    PetscReal                   q1[5], q2[5], Phi1, Phi2, a1[SQUALL_NAUX], a2[SQUALL_NAUX], nhat[3], mhat[3], Fm[5], Fp[5], F1[5], F2[5], S[5];
    const SquallSurfaceFluxType t = types[i % 3];
    PetscCall(RandomPair(rnd, i / 3, PETSC_TRUE, q1, &Phi1, a1, q2, &Phi2, a2));
    PetscCall(RandomVector(rnd, 1, nhat));
    for (PetscInt c = 0; c < 3; c++) mhat[c] = -nhat[c];
    SquallEulerSurfaceFluxPair(&gas, t, q1, a1, q2, a2, nhat, mhat, Fm, Fp);
    SquallEulerSurfaceFlux(&gas, t, q1, a1, q2, a2, nhat, F1);
    SquallEulerSurfaceFlux(&gas, t, q2, a2, q1, a1, mhat, F2);
    FluxScale(a1, nhat, S);
    for (PetscInt k = 0; k < 5; k++) {
      const PetscReal rel = PetscAbsReal(Fp[k] - F2[k]) / S[k];
      CHECK(Fm[k] == F1[k], "two-sided face flux (type %d) differs from the one-sided flux in component %" PetscInt_FMT ": %.17g vs %.17g", (int)t, k, (double)Fm[k], (double)F1[k]);
      CHECK(rel <= tol, "outer side of the two-sided face flux (type %d), component %" PetscInt_FMT ": %.17g vs %.17g seen from outside (rel %.2e)", (int)t, k, (double)Fp[k], (double)F2[k], (double)rel);
      maxrel = PetscMax(maxrel, rel);
    }
    CHECK(Fm[0] + Fp[0] == 0 && Fm[4] + Fp[4] == 0, "two-sided face flux does not cancel in mass and energy");
  }
  /* the outer side with its own, slightly different normal: Fs and gravity contracted with it exactly
     as the one-sided flux does, the dissipation from the inner normal (a difference of order |dn| |D|) */
  for (PetscInt i = 0; i < 3000; i++) {
    PetscReal                   q1[5], q2[5], Phi1, Phi2, a1[SQUALL_NAUX], a2[SQUALL_NAUX], nhat[3], mhat[3], dn[3], Fm[5], Fp[5], F2[5], S[5], len = 0;
    const SquallSurfaceFluxType t = types[i % 3];
    PetscCall(RandomPair(rnd, i / 3, i % 2 ? PETSC_TRUE : PETSC_FALSE, q1, &Phi1, a1, q2, &Phi2, a2));
    PetscCall(RandomVector(rnd, 1, nhat));
    PetscCall(RandomVector(rnd, 1e-9, dn));
    for (PetscInt c = 0; c < 3; c++) mhat[c] = -nhat[c] + dn[c];
    for (PetscInt c = 0; c < 3; c++) len += mhat[c] * mhat[c];
    for (PetscInt c = 0; c < 3; c++) mhat[c] /= PetscSqrtReal(len);
    SquallEulerSurfaceFluxPair(&gas, t, q1, a1, q2, a2, nhat, mhat, Fm, Fp);
    SquallEulerSurfaceFlux(&gas, t, q2, a2, q1, a1, mhat, F2);
    FluxScale(a2, mhat, S);
    for (PetscInt k = 0; k < 5; k++) {
      const PetscReal rel = PetscAbsReal(Fp[k] - F2[k]) / S[k];
      CHECK(rel <= tol + 1e-7, "outer side with its own normal (type %d), component %" PetscInt_FMT ": %.17g vs %.17g (rel %.2e)", (int)t, k, (double)Fp[k], (double)F2[k], (double)rel);
      if (t == SQUALL_FLUX_EC) CHECK(rel <= tol, "outer EC flux with its own normal, component %" PetscInt_FMT ": %.17g vs %.17g (rel %.2e)", k, (double)Fp[k], (double)F2[k], (double)rel);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "two-sided face flux: own side bitwise, outer side max rel. difference %.2e (must be <= %.1e)\n", (double)maxrel, (double)tol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* v(q) and f(q).n at q0 + h dq */
static PetscErrorCode PerturbedVF(const PetscReal q0[5], PetscReal Phi, const PetscReal dq[5], PetscReal h, const PetscReal n[3], PetscReal v[5], PetscReal f[5])
{
  PetscReal q[5], a[SQUALL_NAUX];

  PetscFunctionBegin;
  for (PetscInt k = 0; k < 5; k++) q[k] = q0[k] + h * dq[k];
  CHECK(!SquallEulerAux(&gas, q, Phi, a), "perturbed state not admissible");
  SquallEulerEntropyVariables(&gas, a, v);
  SquallEulerFlux(&gas, a, n, f);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 6. matrix dissipation: (a) at q- = q+ with supersonic normal flow, D(dv/dq dq) = +-(df/dq) dq, i.e.
   R Lambda T R^T = A dq/dv, hence R T R^T = dq/dv (derivatives by 4th-order central differences);
   (b) for random pairs the 5x5 matrix is symmetric positive semi-definite */
static PetscErrorCode TestMatrixDissipation(PetscRandom rnd)
{
  const PetscReal eps = PETSC_MACHINE_EPSILON, h = PetscPowReal(eps, 0.2) / 2, tolfd = 1e3 * PetscPowReal(eps, 0.8), tol = 1e3 * eps;
  PetscReal       maxfd = 0, maxsym = 0, minpsd = PETSC_MAX_REAL;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 200; i++) {
    PetscReal       q[5], Phi, a[SQUALL_NAUX], nhat[3], u[3], c, mach = 2, dq[5], dv[5], df[5], D[5], S[5], vp[4][5], fp[4][5];
    const PetscReal hs[4] = {-2 * h, -h, h, 2 * h}, wt[4] = {1, -8, 8, -1};
    PetscCall(RandomState(rnd, q, &Phi));
    CHECK(!SquallEulerAux(&gas, q, Phi, a), "random state not admissible");
    PetscCall(RandomVector(rnd, 1, nhat));
    /* make the normal velocity supersonic (Mach 1.2 to 3, either sign) */
    c = SquallEulerSoundSpeed(&gas, a);
    PetscCall(Uniform(rnd, 1.2, 3, &mach));
    if (i % 2) mach = -mach;
    for (PetscInt k = 0; k < 3; k++) u[k] = a[SQ_U + k] + (mach * c - (a[SQ_U] * nhat[0] + a[SQ_V] * nhat[1] + a[SQ_W] * nhat[2])) * nhat[k];
    SquallEulerConservative(&gas, a[SQ_RHO], u, a[SQ_P], Phi, q);
    CHECK(!SquallEulerAux(&gas, q, Phi, a), "supersonic state not admissible");
    /* dq from a random perturbation of density, velocity and pressure (relative sizes 1, so that h is a relative step) */
    {
      PetscReal r[5], drho, du[3], dp, udu = 0;
      for (PetscInt k = 0; k < 5; k++) PetscCall(Uniform(rnd, -1, 1, &r[k]));
      drho = a[SQ_RHO] * r[0];
      for (PetscInt k = 0; k < 3; k++) du[k] = c * r[1 + k];
      dp    = a[SQ_P] * r[4];
      dq[0] = drho;
      for (PetscInt k = 0; k < 3; k++) {
        dq[1 + k] = drho * u[k] + a[SQ_RHO] * du[k];
        udu += u[k] * du[k];
      }
      dq[4] = dp / (gas.gamma - 1) + drho * ((u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) / 2 + Phi) + a[SQ_RHO] * udu;
    }
    for (PetscInt j = 0; j < 4; j++) PetscCall(PerturbedVF(q, Phi, dq, hs[j], nhat, vp[j], fp[j]));
    for (PetscInt k = 0; k < 5; k++) {
      dv[k] = df[k] = 0;
      for (PetscInt j = 0; j < 4; j++) {
        dv[k] += wt[j] * vp[j][k] / (12 * h);
        df[k] += wt[j] * fp[j][k] / (12 * h);
      }
    }
    SquallEulerMatrixDissipation(&gas, a, a, nhat, dv, D);
    FluxScale(a, nhat, S);
    for (PetscInt k = 0; k < 5; k++) {
      const PetscReal err = PetscAbsReal(D[k] - (mach > 0 ? df[k] : -df[k])) / S[k];
      maxfd               = PetscMax(maxfd, err);
      CHECK(err < tolfd, "matrix dissipation at q- = q+ is not |A| dq: component %" PetscInt_FMT ": %.15g vs %.15g (error %g relative to %g)", k, (double)D[k], (double)(mach > 0 ? df[k] : -df[k]), (double)err, (double)S[k]);
    }
  }
  for (PetscInt i = 0; i < 1000; i++) {
    PetscReal q1[5], q2[5], Phi1, Phi2, a1[SQUALL_NAUX], a2[SQUALL_NAUX], nhat[3], M[5][5], x[5], Mx[5], xMx, scale;
    PetscCall(RandomPair(rnd, i, PETSC_FALSE, q1, &Phi1, a1, q2, &Phi2, a2));
    PetscCall(RandomVector(rnd, 1, nhat));
    for (PetscInt j = 0; j < 5; j++) {
      PetscReal e[5] = {0, 0, 0, 0, 0}, col[5];
      e[j]           = 1;
      SquallEulerMatrixDissipation(&gas, a1, a2, nhat, e, col);
      for (PetscInt k = 0; k < 5; k++) M[k][j] = col[k];
    }
    for (PetscInt k = 0; k < 5; k++) CHECK(M[k][k] >= 0, "negative diagonal entry %g", (double)M[k][k]);
    for (PetscInt k = 0; k < 5; k++)
      for (PetscInt j = 0; j < k; j++) {
        const PetscReal s = PetscSqrtReal(M[k][k] * M[j][j]), err = PetscAbsReal(M[k][j] - M[j][k]) / s;
        maxsym = PetscMax(maxsym, err);
        CHECK(err < tol, "dissipation matrix not symmetric: M[%" PetscInt_FMT "][%" PetscInt_FMT "] = %g, M[%" PetscInt_FMT "][%" PetscInt_FMT "] = %g", k, j, (double)M[k][j], j, k, (double)M[j][k]);
      }
    /* x^T M x >= 0 for random x, diagonally scaled so that all entries count */
    for (PetscInt t = 0; t < 20; t++) {
      for (PetscInt k = 0; k < 5; k++) {
        PetscCall(Uniform(rnd, -1, 1, &x[k]));
        x[k] /= PetscSqrtReal(M[k][k]);
      }
      xMx = scale = 0;
      for (PetscInt k = 0; k < 5; k++) {
        Mx[k] = 0;
        for (PetscInt j = 0; j < 5; j++) {
          Mx[k] += M[k][j] * x[j];
          scale += PetscAbsReal(x[k] * M[k][j] * x[j]);
        }
        xMx += x[k] * Mx[k];
      }
      minpsd = PetscMin(minpsd, xMx / scale);
      CHECK(xMx >= -tol * scale, "dissipation matrix not positive semi-definite: x^T M x = %g (scale %g)", (double)xMx, (double)scale);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix dissipation: |D - |A|dq| / scale at q- = q+ %.2e (FD, tol %.1e); symmetry %.2e; min x^T M x / scale %.2e\n", (double)maxfd, (double)tolfd, (double)maxsym, (double)minpsd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 7. mirror state: EC gives mass and energy flux 0, momentum flux p nhat, no entropy flux; ES keeps mass and energy 0 */
static PetscErrorCode TestMirror(PetscRandom rnd)
{
  const PetscReal tol   = 100 * PETSC_MACHINE_EPSILON;
  PetscReal       maxec = 0, maxes = 0, maxent = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 1000; i++) {
    PetscReal q[5], qo[5], Phi, a[SQUALL_NAUX], ao[SQUALL_NAUX], nhat[3], F[5], S[5], v[5], ent, err;
    PetscCall(RandomState(rnd, q, &Phi));
    PetscCall(RandomVector(rnd, 1, nhat));
    SquallEulerMirrorState(q, nhat, qo);
    CHECK(!SquallEulerAux(&gas, q, Phi, a), "state not admissible");
    CHECK(!SquallEulerAux(&gas, qo, Phi, ao), "mirror state not admissible");
    FluxScale(a, nhat, S);
    SquallEulerSurfaceFlux(&gas, SQUALL_FLUX_EC, q, a, qo, ao, nhat, F);
    err = PetscMax(PetscAbsReal(F[0]) / S[0], PetscAbsReal(F[4]) / S[4]);
    for (PetscInt c = 0; c < 3; c++) err = PetscMax(err, PetscAbsReal(F[1 + c] - a[SQ_P] * nhat[c]) / S[1 + c]);
    maxec = PetscMax(maxec, err);
    CHECK(err < tol, "EC wall flux (%g, %g, %g, %g, %g) is not (0, p nhat, 0), p = %g", (double)F[0], (double)F[1], (double)F[2], (double)F[3], (double)F[4], (double)a[SQ_P]);
    SquallEulerEntropyVariables(&gas, a, v);
    ent    = Dot5(v, F) - (q[1] * nhat[0] + q[2] * nhat[1] + q[3] * nhat[2]);
    maxent = PetscMax(maxent, PetscAbsReal(ent) / AbsDot5(v, F));
    CHECK(PetscAbsReal(ent) < 10 * tol * AbsDot5(v, F), "EC wall not entropy conservative: %g", (double)ent);
    SquallEulerSurfaceFlux(&gas, SQUALL_FLUX_ES, q, a, qo, ao, nhat, F);
    err   = PetscMax(PetscAbsReal(F[0]) / S[0], PetscAbsReal(F[4]) / S[4]);
    maxes = PetscMax(maxes, err);
    CHECK(err < tol, "ES wall flux has mass %g or energy %g flux", (double)F[0], (double)F[4]);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mirror wall: EC max rel error %.2e, entropy flux %.2e; ES mass/energy %.2e\n", (double)maxec, (double)maxent, (double)maxes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 8. admissibility flag */
static PetscErrorCode TestAux(void)
{
  const PetscReal u[3] = {10, -20, 5}, Phi = 1000;
  PetscReal       q[5], a[SQUALL_NAUX];
  PetscInt        nbad = 0;
  PetscReal       inf  = PETSC_MAX_REAL, nan;

  PetscFunctionBegin;
  inf *= 2;
  nan = inf - inf;
  SquallEulerConservative(&gas, 1.2, u, 1e5, Phi, q);
  CHECK(SquallEulerAux(&gas, q, Phi, a) == 0, "admissible state rejected");
  CHECK(PetscAbsReal(a[SQ_P] - (PetscReal)1e5) < 1e5 * 100 * PETSC_MACHINE_EPSILON, "pressure %g, expected 1e5", (double)a[SQ_P]);
  {
    const PetscReal b = (PetscReal)(1.2 / 2e5);
    CHECK(PetscAbsReal(a[SQ_B] - b) < 100 * PETSC_MACHINE_EPSILON * b, "b = %g, expected %g", (double)a[SQ_B], (double)b);
  }
  CHECK(a[SQ_LOGB] == PetscLogReal(a[SQ_B]) && a[SQ_LOGRHO] == PetscLogReal(a[SQ_RHO]), "stored logs differ from the logs of rho and b");
  for (PetscInt t = 0; t < 7; t++) {
    SquallEulerConservative(&gas, 1.2, u, 1e5, Phi, q);
    switch (t) {
      case 0: q[0] = 0; break;    /* rho = 0 */
      case 1: q[0] = -1.2; break; /* rho < 0 */
      case 2: SquallEulerConservative(&gas, 1.2, u, 0, Phi, q); break;
      case 3: SquallEulerConservative(&gas, 1.2, u, -1e3, Phi, q); break;
      case 4: q[4] = inf; break; /* E = inf */
      case 5: q[4] = nan; break;
      default: q[1] = inf; break; /* infinite momentum */
    }
    if (SquallEulerAux(&gas, q, Phi, a))
      nbad++;
    else
      CHECK(PETSC_FALSE, "inadmissible state %" PetscInt_FMT " (rho %g, p %g) accepted", t, (double)a[SQ_RHO], (double)a[SQ_P]);
    /* the GPU's check before every stage (no logs) must give the same verdict */
    CHECK(SquallEulerCheck(&gas, q, Phi) == 1, "SquallEulerCheck accepts inadmissible state %" PetscInt_FMT, t);
  }
  SquallEulerConservative(&gas, 1.2, u, 1e5, Phi, q);
  CHECK(SquallEulerCheck(&gas, q, Phi) == 0, "SquallEulerCheck rejects an admissible state");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "admissibility: %" PetscInt_FMT " of 7 inadmissible states flagged\n", nbad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 8. the contraction along an axis-aligned metric (the box kernels') against the general one: the same
   flux up to the order of rounding, for either sign and size of the metric */
static PetscErrorCode TestContractAxis(PetscRandom rnd)
{
  PetscReal maxrel = 0;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < 3000; i++) {
    PetscReal          q1[5], q2[5], Phi1, Phi2, a1[SQUALL_NAUX], a2[SQUALL_NAUX], nd = 1, n[3] = {0, 0, 0}, Fg[5], Fa[5], S[5];
    SquallEulerECMeans M;
    const PetscInt     d = i % 3;
    PetscCall(RandomPair(rnd, i / 3, i % 2 ? PETSC_TRUE : PETSC_FALSE, q1, &Phi1, a1, q2, &Phi2, a2));
    PetscCall(LogUniform(rnd, -3, 3, &nd));
    if (i % 4 < 2) nd = -nd;
    n[d] = nd;
    SquallEulerECMeansPair(&gas, a1, a2, &M);
    SquallEulerECContract(&M, n, Fg);
    SquallEulerECContractAxis(&M, (int)d, nd, Fa);
    FluxScale(a1, n, S);
    for (PetscInt k = 0; k < 5; k++) {
      const PetscReal rel = PetscAbsReal(Fa[k] - Fg[k]) / S[k];
      maxrel              = PetscMax(maxrel, rel);
      CHECK(rel <= 40 * PETSC_MACHINE_EPSILON, "axis contraction, direction %" PetscInt_FMT ", component %" PetscInt_FMT ": %.17g vs %.17g (rel %.2e)", d, k, (double)Fa[k], (double)Fg[k], (double)rel);
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "axis-aligned contraction: max rel. difference to the general one %.2e\n", (double)maxrel));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  SquallGasSetUp(&gas);
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 42));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(TestLogMean(rnd));
  PetscCall(TestConsistency(rnd));
  PetscCall(TestEntropyConservation(rnd));
  PetscCall(TestEntropyStability(rnd));
  PetscCall(TestFaceMeans(rnd));
  PetscCall(TestSurfaceFluxPair(rnd));
  PetscCall(TestMatrixDissipation(rnd));
  PetscCall(TestMirror(rnd));
  PetscCall(TestAux());
  PetscCall(TestContractAxis(rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "flux tests passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
