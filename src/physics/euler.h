/* Pointwise physics of the compressible Euler equations with gravity, written once for the C
   reference and the CUDA kernels (as libCEED keeps its QFunctions). State q = (rho, rho u, rho v,
   rho w, E) with E = p/(gamma-1) + rho|u|^2/2 + rho Phi and Phi = g z.

   Entropy-conservative two-point flux with the non-symmetric gravity term:
     M. Waruszewski, J. E. Kozdon, L. C. Wilcox, T. H. Gibson, F. X. Giraldo, "Entropy stable
     discontinuous Galerkin methods for balance laws in non-conservative form: Applications to the
     Euler equations with gravity", J. Comput. Phys. 468 (2022) 111507.
   Its symmetric part is the kinetic-energy-preserving EC flux of P. Chandrashekar, Commun. Comput.
   Phys. 14 (2013) 1252-1286. Matrix dissipation: A. R. Winters, D. Derigs, G. J. Gassner, S. Walch,
   J. Comput. Phys. 332 (2017) 274-289, appendix A. Logarithmic mean: H. Ranocha et al., ACM TOMS
   (2023), "Efficient implementation of modern entropy stable and kinetic energy preserving DG
   methods for conservation laws". */
#pragma once

#include "physics/hostdevice.h"

typedef struct {
  PetscReal gamma;      /* ratio of specific heats */
  PetscReal R;          /* gas constant, J/(kg K) */
  PetscReal g;          /* gravitational acceleration, m/s^2 (Phi = g z) */
  PetscInt  departures; /* perturbation form: 1 the momentum flux's pressure from the departures SQ_DRHO, SQ_DB; 2 also the faces'
                           entropy-variable jumps from the departures SQ_DLR, SQ_DLB (reference continuous across faces) */
  PetscInt  scaled;     /* the pair values are scaled (SquallEulerScalePair()): SQ_U, SQ_V, SQ_W hold u/2 and SQ_PHI Phi/4; set only
                           by a kernel for its own pair loop, 0 everywhere else */
  PetscReal hgm1;       /* 1/(2 (gamma - 1)), derived from gamma by SquallGasSetUp(): a constant the pair flux would
                           otherwise divide for (compilers do not hoist that division out of every loop) */
} SquallGas;

/* sets the constants derived from gamma; call after every change of gamma */
static inline void SquallGasSetUp(SquallGas *gas)
{
  gas->hgm1 = (PetscReal)0.5 / (gas->gamma - 1);
}

/* per-node auxiliary values, computed once per node so the pair loop needs no division or log. The
   first SQUALL_NPAIR are all a two-point flux reads (the GPU volume kernels keep only those in shared
   memory); SQ_K = Phi/2 - |u|^2/4 is the node's share of the energy flux's {{Phi}} - {{|u|^2}}/2. */
enum { SQ_RHO, SQ_U, SQ_V, SQ_W, SQ_K, SQ_B, SQ_PHI, SQ_LOGRHO, SQ_LOGB, SQ_INVB, SQUALL_NPAIR, SQ_P = SQUALL_NPAIR, SQ_DRHO, SQ_DB, SQ_DLR, SQ_DLB, SQUALL_NAUX };

#if defined(PETSC_USE_REAL_SINGLE)
#  define SquallLog1pReal(x) log1pf(x)
#else
#  define SquallLog1pReal(x) log1p(x)
#endif

typedef enum { SQUALL_FLUX_EC, SQUALL_FLUX_ES, SQUALL_FLUX_RUSANOV } SquallSurfaceFluxType;

/* ---------------------------------------------------------------------------------------------
   Logarithmic mean a^ln(x, y) = (y - x)/(ln y - ln x) with the logs precomputed per node (Ranocha et
   al., ACM TOMS 2023). With f = (y - x)/(y + x) and z = f^2,
     a^ln = (x + y)/2 * f/atanh(f) = (x + y)/2 * (1 - z/3 - 4z^2/45 - 44z^3/945 - 428z^4/14175 - ...)
     1/a^ln = 2/(x + y) * atanh(f)/f = 2/(x + y) * (1 + z/3 + z^2/5 + z^3/7 + z^4/9 + ...)
   The series is used for |f| < SQUALL_LOGMEAN_FMAX, the direct quotient of the logs otherwise.
   Both branches are evaluated and one is selected (no data-dependent branch, no blending). Each
   branch needs one reciprocal: 1/(x + y) for the series, 1/(ln y - ln x) (mean) or 1/(y - x)
   (inverse) for the direct quotient; the denominator is selected first, so one division suffices
   and the 0/0 of the direct quotient at x == y is never formed.

   Threshold. The degree-3 series truncates at 0.03 z^4 (mean) and z^4/9 (inverse). The direct
   branch loses accuracy through the rounding of the stored logs: its relative error is about
   eps max(|ln x|, |ln y|)/|ln y - ln x| with |ln y - ln x| ~ 2|f|, so a larger threshold helps it.
   - double: z < 1e-4 (|f| < 1e-2), as Ranocha et al.: truncation <= 1.2e-17 < eps/18.
   - single: z < 1e-2 (|f| < 1e-1): truncation <= 1.2e-9 < eps/100 still, and the cancellation
     error of the direct branch is 10x smaller than with 1e-4, for free (same four terms).
   Quad or half precision would need other thresholds/terms: refuse them. */
#if defined(PETSC_USE_REAL_SINGLE)
#  define SQUALL_LOGMEAN_FMAX ((PetscReal)0.1)
#elif defined(PETSC_USE_REAL_DOUBLE)
#  define SQUALL_LOGMEAN_FMAX ((PetscReal)0.01)
#else
#  error "squall's logarithmic mean is tuned for single or double precision PetscReal only"
#endif

/* f/atanh(f) and atanh(f)/f as series in z = f^2, valid for |f| < SQUALL_LOGMEAN_FMAX */
SQUALL_HOST_DEVICE static inline PetscReal SquallLogMeanSeries_Private(PetscReal z)
{
  return 1 + z * ((PetscReal)(-1.0 / 3.0) + z * ((PetscReal)(-4.0 / 45.0) + z * (PetscReal)(-44.0 / 945.0)));
}

SQUALL_HOST_DEVICE static inline PetscReal SquallInvLogMeanSeries_Private(PetscReal z)
{
  return 1 + z * ((PetscReal)(1.0 / 3.0) + z * ((PetscReal)(1.0 / 5.0) + z * (PetscReal)(1.0 / 7.0)));
}
/* twice the above (each coefficient doubled: the same rounding, scaled by 2 exactly) */
SQUALL_HOST_DEVICE static inline PetscReal SquallInvLogMeanSeries2_Private(PetscReal z)
{
  return 2 + z * ((PetscReal)(2.0 / 3.0) + z * ((PetscReal)(2.0 / 5.0) + z * (PetscReal)(2.0 / 7.0)));
}

/* logarithmic mean of x, y > 0 given lx = ln x, ly = ln y */
SQUALL_HOST_DEVICE static inline PetscReal SquallLogMean(PetscReal x, PetscReal y, PetscReal lx, PetscReal ly)
{
  const PetscReal s = x + y, d = y - x;
  const int       series = PetscAbsReal(d) < SQUALL_LOGMEAN_FMAX * s;
  const PetscReal r = 1 / (series ? s : ly - lx), f = d * r;
  const PetscReal mser = (PetscReal)0.5 * s * SquallLogMeanSeries_Private(f * f), mdir = f;
  return series ? mser : mdir;
}

/* 1/(logarithmic mean) of x, y > 0 given lx = ln x, ly = ln y */
SQUALL_HOST_DEVICE static inline PetscReal SquallInvLogMean(PetscReal x, PetscReal y, PetscReal lx, PetscReal ly)
{
  const PetscReal s = x + y, d = y - x;
  const int       series = PetscAbsReal(d) < SQUALL_LOGMEAN_FMAX * s;
  const PetscReal r = 1 / (series ? s : d), f = d * r;
  const PetscReal iser = 2 * r * SquallInvLogMeanSeries_Private(f * f), idir = (ly - lx) * r;
  return series ? iser : idir;
}

/* admissibility of rho, p and b = rho/(2p): NaN fails every comparison; infinite rho or p fails the
   upper bounds (an infinite momentum or energy gives p = -inf, inf or NaN) */
SQUALL_HOST_DEVICE static inline int SquallEulerInadmissible_Private(PetscReal rho, PetscReal p, PetscReal b)
{
  return (rho > 0 && p > 0 && b > 0 && rho <= PETSC_MAX_REAL && p <= PETSC_MAX_REAL) ? 0 : 1;
}

/* density, 1/density (0 for 0), velocity, pressure and b = rho/(2p) (0 for p = 0) of q */
SQUALL_HOST_DEVICE static inline void SquallEulerPrimitive_Private(const SquallGas *gas, const PetscReal q[5], PetscReal Phi, PetscReal prim[7])
{
  const PetscReal rho = q[0], irho = rho != 0 ? 1 / rho : 0;
  const PetscReal u = q[1] * irho, v = q[2] * irho, w = q[3] * irho;
  const PetscReal p = (gas->gamma - 1) * (q[4] - rho * ((PetscReal)0.5 * (u * u + v * v + w * w) + Phi));

  prim[0] = rho;
  prim[1] = irho;
  prim[2] = u;
  prim[3] = v;
  prim[4] = w;
  prim[5] = p;
  prim[6] = p != 0 ? (PetscReal)0.5 * rho / p : 0;
}

/* ---------------------------------------------------------------------------------------------
   Per-node values. aux = (rho, u, v, w, p, b = rho/(2p), Phi, ln rho, ln b). Returns 0 for an
   admissible state (rho > 0, p > 0, all finite), else 1; then aux is filled as far as it is defined
   (u = 0 if rho = 0, b = 0 if p = 0, a log is 0 where its argument is not positive), so that no
   division by zero or log of a non-positive number is evaluated. */
SQUALL_HOST_DEVICE static inline int SquallEulerAux_Private(const SquallGas *gas, const PetscReal q[5], PetscReal Phi, PetscReal aux[], int logs)
{
  PetscReal prim[7];

  SquallEulerPrimitive_Private(gas, q, Phi, prim);
  const PetscReal rho = prim[0], irho = prim[1], u = prim[2], v = prim[3], w = prim[4], p = prim[5], b = prim[6];

  aux[SQ_RHO]    = rho;
  aux[SQ_U]      = u;
  aux[SQ_V]      = v;
  aux[SQ_W]      = w;
  aux[SQ_P]      = p;
  aux[SQ_B]      = b;
  aux[SQ_PHI]    = Phi;
  aux[SQ_LOGRHO] = logs && rho > 0 ? PetscLogReal(rho) : 0;
  aux[SQ_LOGB]   = logs && b > 0 ? PetscLogReal(b) : 0;
  aux[SQ_INVB]   = 2 * p * irho; /* 1/b, so the gravity terms of a pair need no division */
  aux[SQ_K]      = (PetscReal)0.5 * Phi - (PetscReal)0.25 * (u * u + v * v + w * w);
  aux[SQ_DRHO]   = 0; /* departures from a reference: SquallEulerDepartures() */
  aux[SQ_DB]     = 0;
  aux[SQ_DLR]    = 0;
  aux[SQ_DLB]    = 0;
  return SquallEulerInadmissible_Private(rho, p, b);
}

SQUALL_HOST_DEVICE static inline int SquallEulerAux(const SquallGas *gas, const PetscReal q[5], PetscReal Phi, PetscReal aux[])
{
  return SquallEulerAux_Private(gas, q, Phi, aux, 1);
}

/* the same without the logarithms (left 0), for a face state: the face fluxes take the logs of the two sides'
   ratios, and only where the series of the logarithmic mean does not serve (SquallEulerECMeansPair_Private()) */
SQUALL_HOST_DEVICE static inline int SquallEulerAuxFace(const SquallGas *gas, const PetscReal q[5], PetscReal Phi, PetscReal aux[])
{
  return SquallEulerAux_Private(gas, q, Phi, aux, 0);
}

/* The pair values of a node as a kernel with gas->scaled keeps them: u/2 and Phi/4 (exact: powers of two) */
SQUALL_HOST_DEVICE static inline void SquallEulerScalePair(PetscReal aux[])
{
  aux[SQ_U] *= (PetscReal)0.5;
  aux[SQ_V] *= (PetscReal)0.5;
  aux[SQ_W] *= (PetscReal)0.5;
  aux[SQ_PHI] *= (PetscReal)0.25;
}

/* SquallEulerAux()'s verdict alone (the same operations for rho, p and b, no logs): 0 admissible, 1 not */
SQUALL_HOST_DEVICE static inline int SquallEulerCheck(const SquallGas *gas, const PetscReal q[5], PetscReal Phi)
{
  PetscReal prim[7];

  SquallEulerPrimitive_Private(gas, q, Phi, prim);
  return SquallEulerInadmissible_Private(prim[0], prim[5], prim[6]);
}

/* The departures of rho and b from a reference state qr, formed from the departure x = q - qr of the
   state (perturbation form), so that they are accurate where x is small, unlike b(q) - b(qr):
     drho = x_rho, dp = (gamma-1) (x_E - d(|m|^2/(2 rho)) - x_rho Phi), db = (drho p_r - rho_r dp)/(2 p p_r),
     d(|m|^2/rho) = (x_m.(2 m_r + x_m) rho_r - |m_r|^2 x_rho)/(rho rho_r),
   with aux the per-node values of q = qr + x (SquallEulerAux) and p_r = p - dp. With gas->departures > 1
   also the departures of the logarithms, ln rho - ln rho_r = log1p(drho/rho_r), ln b - ln b_r =
   log1p(db/b_r), for the faces' entropy-variable jumps. */
SQUALL_HOST_DEVICE static inline void SquallEulerDepartures(const SquallGas *gas, const PetscReal x[5], const PetscReal qr[5], PetscReal Phi, PetscReal aux[])
{
  const PetscReal rho = aux[SQ_RHO], rho_r = qr[0], p = aux[SQ_P];
  const PetscReal mx  = x[1] * (2 * qr[1] + x[1]) + x[2] * (2 * qr[2] + x[2]) + x[3] * (2 * qr[3] + x[3]);
  const PetscReal mr2 = qr[1] * qr[1] + qr[2] * qr[2] + qr[3] * qr[3];
  const PetscReal dp = (gas->gamma - 1) * (x[4] - (mx * rho_r - mr2 * x[0]) / (2 * rho * rho_r) - x[0] * Phi), p_r = p - dp;

  aux[SQ_DRHO] = x[0];
  aux[SQ_DB]   = (x[0] * p_r - rho_r * dp) / (2 * p * p_r);
  if (gas->departures > 1) {
    aux[SQ_DLR] = SquallLog1pReal(x[0] / rho_r);
    aux[SQ_DLB] = SquallLog1pReal(aux[SQ_DB] * (2 * p_r) / rho_r);
  }
}

/* conservative state from density, velocity, pressure and geopotential */
SQUALL_HOST_DEVICE static inline void SquallEulerConservative(const SquallGas *gas, PetscReal rho, const PetscReal u[3], PetscReal p, PetscReal Phi, PetscReal q[5])
{
  q[0] = rho;
  q[1] = rho * u[0];
  q[2] = rho * u[1];
  q[3] = rho * u[2];
  q[4] = p / (gas->gamma - 1) + rho * ((PetscReal)0.5 * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) + Phi);
}

/* physical flux f(q).n for any (not necessarily unit) n */
SQUALL_HOST_DEVICE static inline void SquallEulerFlux(const SquallGas *gas, const PetscReal a[], const PetscReal n[3], PetscReal f[5])
{
  const PetscReal rho = a[SQ_RHO], u = a[SQ_U], v = a[SQ_V], w = a[SQ_W], p = a[SQ_P];
  const PetscReal un = u * n[0] + v * n[1] + w * n[2], mn = rho * un;
  const PetscReal E = p / (gas->gamma - 1) + rho * ((PetscReal)0.5 * (u * u + v * v + w * w) + a[SQ_PHI]);

  f[0] = mn;
  f[1] = mn * u + p * n[0];
  f[2] = mn * v + p * n[1];
  f[3] = mn * w + p * n[2];
  f[4] = (E + p) * un;
}

/* specific entropy s = ln(p rho^-gamma) = (1 - gamma) ln rho - ln b - ln 2, from the stored logs so
   that entropy variables and log means use the same rounded logs */
SQUALL_HOST_DEVICE static inline PetscReal SquallEulerSpecificEntropy_Private(const SquallGas *gas, const PetscReal a[])
{
  return (1 - gas->gamma) * a[SQ_LOGRHO] - a[SQ_LOGB] - (PetscReal)0.693147180559945309417232121458176568;
}

/* entropy variables v = d eta/dq at fixed Phi:
   v1 = (gamma - s)/(gamma - 1) - b (|u|^2 - 2 Phi), v_m = 2 b u, v_E = -2 b */
SQUALL_HOST_DEVICE static inline void SquallEulerEntropyVariables(const SquallGas *gas, const PetscReal a[], PetscReal v[5])
{
  const PetscReal b = a[SQ_B], u = a[SQ_U], vv = a[SQ_V], w = a[SQ_W];
  const PetscReal s = SquallEulerSpecificEntropy_Private(gas, a);

  v[0] = (gas->gamma - s) / (gas->gamma - 1) - b * (u * u + vv * vv + w * w - 2 * a[SQ_PHI]);
  v[1] = 2 * b * u;
  v[2] = 2 * b * vv;
  v[3] = 2 * b * w;
  v[4] = -2 * b;
}

/* mathematical entropy eta = -rho s/(gamma - 1) */
SQUALL_HOST_DEVICE static inline PetscReal SquallEulerEntropy(const SquallGas *gas, const PetscReal a[])
{
  return -a[SQ_RHO] * SquallEulerSpecificEntropy_Private(gas, a) / (gas->gamma - 1);
}

/* sound speed c = sqrt(gamma p/rho) */
SQUALL_HOST_DEVICE static inline PetscReal SquallEulerSoundSpeed(const SquallGas *gas, const PetscReal a[])
{
  return PetscSqrtReal(gas->gamma * a[SQ_P] / a[SQ_RHO]);
}

/* largest wave speed |u.n| + c |n| for any (not necessarily unit) n */
SQUALL_HOST_DEVICE static inline PetscReal SquallEulerMaxWaveSpeed(const SquallGas *gas, const PetscReal a[], const PetscReal n[3])
{
  const PetscReal un = a[SQ_U] * n[0] + a[SQ_V] * n[1] + a[SQ_W] * n[2], nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
  return PetscAbsReal(un) + PetscSqrtReal(gas->gamma * a[SQ_P] * nn / a[SQ_RHO]);
}

/* ---------------------------------------------------------------------------------------------
   Two-point entropy-conservative flux with gravity (Waruszewski et al. 2022) for nodes 1 (own) and
   2 (partner) along any (not necessarily unit) n. Symmetric part (Chandrashekar 2013 plus Phi):
     F_rho = rho_ln {{u}}.n,   F_m = F_rho {{u}} + p_hat n,   p_hat = {{rho}}/(2 {{b}}),
     F_E   = F_rho [1/(2(gamma-1) b_ln) - {{|u|^2}}/2 + {{Phi}} + |{{u}}|^2] + p_hat {{u}}.n,
   and the gravity fluctuation of node 1's momentum
     G_12 = (1/2) rho_hat_12 (Phi2 - Phi1) n,   rho_hat_12 = {{b}} rho_ln/b1.
   Node 1 receives Fs + (0, G1, 0) and node 2, F(q2, q1) = Fs + (0, G2, 0) with G2 = G_21 =
   -(b1/b2) G_12, so one call serves both nodes of a pair (the "half sweep"). Fs is bitwise symmetric in (1, 2)
   (every intermediate is a symmetric or exactly antisymmetric expression of the two nodes), so
   mass and energy telescope to round-off in flux differencing; keep it so when editing.

   Cost: no log (stored logs), one division: the 1/b of both nodes comes with the per-node aux
   values. The three symmetric reciprocals (the selected
   log-mean denominators of rho and b, and 1/(b1 + b2) for p_hat) come from the single reciprocal of
   their product (the logarithmic mean of b enters only through 1/(2(gamma-1) b_ln), from the
   inverse-mean formula, as in Ranocha et al.; 1/(2(gamma-1)) is gas->hgm1). The
   product is ~ rho b^2 (~1e-10 in SI units), far from the under/overflow range even in single precision.
   A kernel may keep its pair values scaled (gas->scaled, SquallEulerScalePair()): four multiplications
   fewer per pair, the same flux bit for bit. */
/* The normal-independent part of the pair flux (the means and the gravity factors), so that the same
   pair can be contracted with more than one normal (the two sides of a face). */
typedef struct {
  PetscReal rho_ln, p_hat, ub, vb, wb, ek, g1, g2;
  PetscReal e_ln;     /* 1/(2 (gamma-1) b_ln), for the matrix dissipation */
  PetscReal p_mom;    /* the pressure of the momentum flux: p_hat, or with gas->departures p_hat - p_hat(reference) */
  PetscReal dlr, dlb; /* the jumps ln rho2 - ln rho1, ln b2 - ln b1 (the series 2 atanh(f) = f T2(f^2) where it serves) */
} SquallEulerECMeans;

/* FACE (a constant of each caller): the two nodes' logarithms are not stored (SquallEulerAuxFace()); the direct
   quotients take the logarithms of the ratios rho2/rho1 and b2/b1 instead, and only where the series does not serve:
   at the faces of a smooth flow nearly never, so a face needs no logarithm. The volume's pairs keep the stored
   per-node logarithms, whose differences are exactly antisymmetric (the flux differencing's telescoping needs it). */
SQUALL_HOST_DEVICE static inline void SquallEulerECMeansPair_Private(const SquallGas *gas, const PetscReal a1[], const PetscReal a2[], int face, SquallEulerECMeans *M)
{
  const PetscReal hgm1 = gas->hgm1;
  const PetscReal rho1 = a1[SQ_RHO], rho2 = a2[SQ_RHO], b1 = a1[SQ_B], b2 = a2[SQ_B];
  const PetscReal sr = rho1 + rho2, dr = rho2 - rho1, sb = b1 + b2, db = b2 - b1;
  const int       serr = PetscAbsReal(dr) < SQUALL_LOGMEAN_FMAX * sr, serb = PetscAbsReal(db) < SQUALL_LOGMEAN_FMAX * sb;
  PetscReal       lr, lb;
  if (face) {
    lr = 0;
    lb = 0;
    if (!serr) {
      const PetscReal r = rho2 / rho1;
      lr                = r > 0 ? PetscLogReal(r) : 0; /* (an inadmissible state: reported by the aux, the stage rejected) */
    }
    if (!serb) {
      const PetscReal r = b2 / b1;
      lb                = r > 0 ? PetscLogReal(r) : 0;
    }
  } else {
    lr = a2[SQ_LOGRHO] - a1[SQ_LOGRHO];
    lb = a2[SQ_LOGB] - a1[SQ_LOGB];
  }
  /* selected denominators: rho_ln = series ? (sr/2) S(z) : dr/lr, 1/b_ln = series ? (2/sb) T(z) : lb/db
     (S, T: SquallLogMeanSeries_Private, SquallInvLogMeanSeries_Private; z = (dr/sr)^2, (db/sb)^2) */
  const PetscReal Dr = serr ? sr : lr, Db = serb ? sb : db;
  const PetscReal DrDb = Dr * Db, Drsb = Dr * sb;
  /* with departures, 2 b_ref = sbr = sb - (db1 + db2) joins the product, so that p_mom's 1/(sb sbr)
     needs no division of its own; without, sbr = 1 and every product below is bitwise the one before */
  const PetscReal dsr = gas->departures ? a1[SQ_DRHO] + a2[SQ_DRHO] : 0, dsb = gas->departures ? a1[SQ_DB] + a2[SQ_DB] : 0;
  const PetscReal sbr = gas->departures ? sb - dsb : 1;
  const PetscReal iP  = 1 / (DrDb * sb * sbr); /* = 1/(Dr Db sb sbr) */
  const PetscReal iDr = (Db * sb * sbr) * iP, iDb = (Drsb * sbr) * iP, isb = (DrDb * sbr) * iP;
  /* rho_ln */
  const PetscReal fr = dr * iDr, rser = (PetscReal)0.5 * sr * SquallLogMeanSeries_Private(fr * fr);
  const PetscReal rho_ln = serr ? rser : fr;
  /* e_ln = 1/(2 (gamma-1) b_ln) = (1/(2 (gamma-1) Db)) (series ? 2 T(z) : lb) */
  const PetscReal fb = db * iDb, tb = SquallInvLogMeanSeries2_Private(fb * fb), e_ln = (iDb * hgm1) * (serb ? tb : lb);
  /* velocity averages: symmetric combinations only; {{Phi}} - {{|u|^2}}/2 = K1 + K2 from the per-node values. Scaled
     values (u/2, Phi/4) give the same numbers bit for bit: the factors are powers of two, which commute with rounding */
  const PetscReal hu = gas->scaled ? 1 : (PetscReal)0.5, qp = gas->scaled ? 1 : (PetscReal)0.25;
  const PetscReal ub = hu * (a1[SQ_U] + a2[SQ_U]), vb = hu * (a1[SQ_V] + a2[SQ_V]), wb = hu * (a1[SQ_W] + a2[SQ_W]);
  /* G_12 = (1/2) {{b}} rho_ln [[Phi]] n / b1 and G_21 = -(b1/b2) G_12 share this factor */
  const PetscReal gc = qp * sb * rho_ln * (a2[SQ_PHI] - a1[SQ_PHI]);

  M->rho_ln = rho_ln;
  M->p_hat  = (PetscReal)0.5 * sr * isb;
  M->p_mom  = M->p_hat;
  if (gas->departures) {
    /* p_hat - p_hat_ref = (dSrho Sb_ref - Srho_ref dSb)/(2 Sb Sb_ref): in perturbation form the reference's
       ~1e5 Pa (whose round-off eps p |D| drives spurious motion in single precision) never enters the
       momentum flux; the reference residual is formed in the same way, so the RHS is unchanged in exact
       arithmetic. (The energy flux keeps p_hat: the reference at rest, or along a jet, carries none of it.) */
    M->p_mom = (PetscReal)0.5 * (dsr * sbr - (sr - dsr) * dsb) * (DrDb * iP);
  }
  M->ub   = ub;
  M->vb   = vb;
  M->wb   = wb;
  M->ek   = e_ln + (a1[SQ_K] + a2[SQ_K]) + (ub * ub + vb * vb + wb * wb);
  M->e_ln = e_ln;
  M->dlr  = serr ? fr * SquallInvLogMeanSeries2_Private(fr * fr) : lr; /* (a volume pair does not use these: dead code there) */
  M->dlb  = serb ? fb * tb : lb;
  M->g1   = gc * a1[SQ_INVB];
  M->g2   = -gc * a2[SQ_INVB];
}

SQUALL_HOST_DEVICE static inline void SquallEulerECMeansPair(const SquallGas *gas, const PetscReal a1[], const PetscReal a2[], SquallEulerECMeans *M)
{
  SquallEulerECMeansPair_Private(gas, a1, a2, 0, M);
}

/* the symmetric flux Fs of the means along n (linear in n) */
SQUALL_HOST_DEVICE static inline void SquallEulerECContract(const SquallEulerECMeans *M, const PetscReal n[3], PetscReal Fs[5])
{
  const PetscReal un   = M->ub * n[0] + M->vb * n[1] + M->wb * n[2];
  const PetscReal Frho = M->rho_ln * un;

  Fs[0] = Frho;
  Fs[1] = Frho * M->ub + M->p_mom * n[0];
  Fs[2] = Frho * M->vb + M->p_mom * n[1];
  Fs[3] = Frho * M->wb + M->p_mom * n[2];
  Fs[4] = Frho * M->ek + M->p_hat * un;
}

/* The same along the axis-aligned n = nd e_d (the metric of a box element in direction d), the
   products with the zero components of n left out: a quarter fewer operations per pair in a volume
   kernel on boxes. Equal to SquallEulerECContract(M, nd e_d) up to the order of rounding. */
SQUALL_HOST_DEVICE static inline void SquallEulerECContractAxis(const SquallEulerECMeans *M, int d, PetscReal nd, PetscReal Fs[5])
{
  const PetscReal ud   = d == 0 ? M->ub : (d == 1 ? M->vb : M->wb);
  const PetscReal Frho = M->rho_ln * (ud * nd);

  Fs[0]     = Frho;
  Fs[1]     = Frho * M->ub;
  Fs[2]     = Frho * M->vb;
  Fs[3]     = Frho * M->wb;
  Fs[1 + d] = Frho * ud + M->p_mom * nd;
  Fs[4]     = Frho * M->ek + M->p_hat * (ud * nd);
}

SQUALL_HOST_DEVICE static inline void SquallEulerECFluxPair(const SquallGas *gas, const PetscReal a1[], const PetscReal a2[], const PetscReal n[3], PetscReal Fs[5], PetscReal G1[3], PetscReal G2[3])
{
  SquallEulerECMeans M;

  SquallEulerECMeansPair(gas, a1, a2, &M);
  SquallEulerECContract(&M, n, Fs);
  G1[0] = M.g1 * n[0];
  G1[1] = M.g1 * n[1];
  G1[2] = M.g1 * n[2];
  G2[0] = M.g2 * n[0];
  G2[1] = M.g2 * n[1];
  G2[2] = M.g2 * n[2];
}

/* the same flux seen from node 1 only: node 1 receives Fs + (0, G, 0) */
SQUALL_HOST_DEVICE static inline void SquallEulerECFlux(const SquallGas *gas, const PetscReal a1[], const PetscReal a2[], const PetscReal n[3], PetscReal Fs[5], PetscReal G[3])
{
  PetscReal G2[3];
  SquallEulerECFluxPair(gas, a1, a2, n, Fs, G, G2);
}

/* ---------------------------------------------------------------------------------------------
   Matrix dissipation D = R|Lambda|T R^T dv of Winters, Derigs, Gassner, Walch (2017), appendix A,
   with Phi as in Waruszewski et al. (2022), for the averaged state of am, ap and the UNIT normal
   nhat, in the tangent-free form (t1 t1^T + t2 t2^T = I - nhat nhat^T):
     u2 = u-.u+ (= 2|{{u}}|^2 - {{|u|^2}} exactly, the squared form of Winters et al.)
     h  = gamma/(2(gamma-1) b_ln) + u2/2 + {{Phi}},  c = sqrt(gamma p_hat/rho_ln),
     un = {{u}}.nhat, ut = {{u}} - un nhat,
     l1,3 = |un -+ c| rho_ln/(2 gamma), l2 = |un| rho_ln (gamma-1)/gamma, l4 = |un| p_hat,
     w1,3 = l1,3 [dv1 + ({{u}} -+ c nhat).dvm + (h -+ c un) dvE],  w2 = l2 [dv1 + {{u}}.dvm + (u2/2 + {{Phi}}) dvE],
     D_rho = w1 + w2 + w3,
     D_m   = w1 ({{u}} - c nhat) + w2 {{u}} + w3 ({{u}} + c nhat) + l4 [dvm - (nhat.dvm) nhat + dvE ut],
     D_E   = w1 (h - c un) + w2 (u2/2 + {{Phi}}) + w3 (h + c un) + l4 [ut.dvm + dvE |ut|^2].
   D is linear in dv, symmetric positive semi-definite; the ES flux subtracts D/2 with dv = [[v]].
   rho_ln, p_hat, {{u}} and 1/b_ln are the EC flux's means (SquallEulerECMeansPair), so that a face
   flux forms them once: one division (c) and one square root per face node beyond the EC flux. */
SQUALL_HOST_DEVICE static inline void SquallEulerMatrixDissipationMeans(const SquallGas *gas, const SquallEulerECMeans *M, const PetscReal am[], const PetscReal ap[], const PetscReal nhat[3], const PetscReal dv[5], PetscReal D[5])
{
  const PetscReal gamma = gas->gamma, gm1 = gamma - 1;
  const PetscReal rho_ln = M->rho_ln, p_hat = M->p_hat, ub[3] = {M->ub, M->vb, M->wb};
  const PetscReal u2    = am[SQ_U] * ap[SQ_U] + am[SQ_V] * ap[SQ_V] + am[SQ_W] * ap[SQ_W];
  const PetscReal e2    = (PetscReal)0.5 * u2 + (PetscReal)0.5 * (am[SQ_PHI] + ap[SQ_PHI]);
  const PetscReal h     = gamma * M->e_ln + e2; /* gamma/(2(gamma-1) b_ln) + e2 */
  const PetscReal c     = PetscSqrtReal(gamma * p_hat / rho_ln);
  const PetscReal un    = ub[0] * nhat[0] + ub[1] * nhat[1] + ub[2] * nhat[2];
  const PetscReal ut[3] = {ub[0] - un * nhat[0], ub[1] - un * nhat[1], ub[2] - un * nhat[2]};
  const PetscReal ut2   = ut[0] * ut[0] + ut[1] * ut[1] + ut[2] * ut[2];
  const PetscReal l1 = PetscAbsReal(un - c) * rho_ln / (2 * gamma), l2 = PetscAbsReal(un) * rho_ln * gm1 / gamma, l3 = PetscAbsReal(un + c) * rho_ln / (2 * gamma), l4 = PetscAbsReal(un) * p_hat;
  const PetscReal udm = ub[0] * dv[1] + ub[1] * dv[2] + ub[2] * dv[3], ndm = nhat[0] * dv[1] + nhat[1] * dv[2] + nhat[2] * dv[3], tdm = ut[0] * dv[1] + ut[1] * dv[2] + ut[2] * dv[3];
  const PetscReal hm = h - c * un, hp = h + c * un;
  const PetscReal w1 = l1 * (dv[0] + udm - c * ndm + hm * dv[4]);
  const PetscReal w2 = l2 * (dv[0] + udm + e2 * dv[4]);
  const PetscReal w3 = l3 * (dv[0] + udm + c * ndm + hp * dv[4]);
  const PetscReal ws = w1 + w2 + w3, wc = c * (w3 - w1);

  D[0] = ws;
  for (int k = 0; k < 3; k++) D[1 + k] = ws * ub[k] + wc * nhat[k] + l4 * (dv[1 + k] - ndm * nhat[k] + dv[4] * ut[k]);
  D[4] = w1 * hm + w2 * e2 + w3 * hp + l4 * (tdm + dv[4] * ut2);
}

/* the same from the two states alone */
SQUALL_HOST_DEVICE static inline void SquallEulerMatrixDissipation(const SquallGas *gas, const PetscReal am[], const PetscReal ap[], const PetscReal nhat[3], const PetscReal dv[5], PetscReal D[5])
{
  SquallEulerECMeans M;

  SquallEulerECMeansPair(gas, am, ap, &M);
  SquallEulerMatrixDissipationMeans(gas, &M, am, ap, nhat, dv, D);
}

/* jump v(q+) - v(q-) of the entropy variables, the log jumps from the means M of the two states. With
   gas->departures > 1 (perturbation form, the reference continuous across faces bit for bit, and Phi
   too) the reference's part of every jump cancels exactly, so the jumps of ln rho, ln b and b are
   formed from the departures: from the rounded full states they would carry the rounding of the
   reference (an ulp of rho, p ~ 1e5 Pa), which the matrix dissipation then acts on at every face and
   stage; in single precision that biased the top pressure of the bubble by ~5 Pa in 10 s */
SQUALL_HOST_DEVICE static inline void SquallEulerEntropyJump_Private(const SquallGas *gas, const SquallEulerECMeans *M, const PetscReal am[], const PetscReal ap[], PetscReal dv[5])
{
  const PetscReal bm = am[SQ_B], bp = ap[SQ_B];
  if (gas->departures > 1) {
    const PetscReal ddb = ap[SQ_DB] - am[SQ_DB];
    const PetscReal ku  = bp * (ap[SQ_U] * ap[SQ_U] + ap[SQ_V] * ap[SQ_V] + ap[SQ_W] * ap[SQ_W]) - bm * (am[SQ_U] * am[SQ_U] + am[SQ_V] * am[SQ_V] + am[SQ_W] * am[SQ_W]);

    dv[0] = (ap[SQ_DLR] - am[SQ_DLR]) + (ap[SQ_DLB] - am[SQ_DLB]) * (2 * gas->hgm1) - (ku - 2 * am[SQ_PHI] * ddb);
    dv[1] = 2 * (bp * ap[SQ_U] - bm * am[SQ_U]);
    dv[2] = 2 * (bp * ap[SQ_V] - bm * am[SQ_V]);
    dv[3] = 2 * (bp * ap[SQ_W] - bm * am[SQ_W]);
    dv[4] = -2 * ddb;
    return;
  }
  const PetscReal km = bm * (am[SQ_U] * am[SQ_U] + am[SQ_V] * am[SQ_V] + am[SQ_W] * am[SQ_W] - 2 * am[SQ_PHI]);
  const PetscReal kp = bp * (ap[SQ_U] * ap[SQ_U] + ap[SQ_V] * ap[SQ_V] + ap[SQ_W] * ap[SQ_W] - 2 * ap[SQ_PHI]);

  /* -[[s]]/(gamma - 1) = [[ln rho]] + [[ln b]]/(gamma - 1), the log jumps from the means (M->dlr, M->dlb) */
  dv[0] = M->dlr + M->dlb * (2 * gas->hgm1) - (kp - km);
  dv[1] = 2 * (bp * ap[SQ_U] - bm * am[SQ_U]);
  dv[2] = 2 * (bp * ap[SQ_V] - bm * am[SQ_V]);
  dv[3] = 2 * (bp * ap[SQ_W] - bm * am[SQ_W]);
  dv[4] = -2 * (bp - bm);
}

/* ---------------------------------------------------------------------------------------------
   Numerical surface flux for the own ("minus") state qm/am and the outer state qp/ap, UNIT normal
   nhat out of the own element. The gravity fluctuation is that of the own node (node 1); it
   vanishes when Phi is continuous across the face.
     EC:      F(q-, q+; nhat) = Fs + (0, G_12, 0)
     ES:      EC - D([[v]])/2 (matrix dissipation above, [[v]] = v(q+) - v(q-))
     RUSANOV: EC - lambda_max (q+ - q-)/2, lambda_max = max(|u-.nhat| + c-, |u+.nhat| + c+) */
SQUALL_HOST_DEVICE static inline void SquallEulerSurfaceFlux(const SquallGas *gas, SquallSurfaceFluxType type, const PetscReal qm[5], const PetscReal am[], const PetscReal qp[5], const PetscReal ap[], const PetscReal nhat[3], PetscReal F[5])
{
  SquallEulerECMeans M;

  SquallEulerECMeansPair_Private(gas, am, ap, 1, &M);
  SquallEulerECContract(&M, nhat, F);
  F[1] += M.g1 * nhat[0];
  F[2] += M.g1 * nhat[1];
  F[3] += M.g1 * nhat[2];
  if (type == SQUALL_FLUX_ES) {
    PetscReal dv[5], D[5];
    SquallEulerEntropyJump_Private(gas, &M, am, ap, dv);
    SquallEulerMatrixDissipationMeans(gas, &M, am, ap, nhat, dv, D);
    for (int k = 0; k < 5; k++) F[k] -= (PetscReal)0.5 * D[k];
  } else if (type == SQUALL_FLUX_RUSANOV) {
    const PetscReal lm = SquallEulerMaxWaveSpeed(gas, am, nhat), lp = SquallEulerMaxWaveSpeed(gas, ap, nhat), hl = (PetscReal)0.5 * PetscMax(lm, lp);
    for (int k = 0; k < 5; k++) F[k] -= hl * (qp[k] - qm[k]);
  }
}

/* Both sides of a face from one evaluation of the means: Fm = SquallEulerSurfaceFlux(qm, qp; nhat)
   (the same operations in the same order) and Fp, the flux of the outer node along its own outward
   unit normal nhatp (-nhat up to the rounding of the two elements' metrics). Fs and the gravity
   fluctuation are linear in the normal, so the outer side contracts the same means with nhatp and
   gets the fluctuation of node 2, G_21 = g2 n (SquallEulerECFluxPair); the dissipation is odd under
   (dv, nhat) -> (-dv, -nhat) and is taken from the inner side. Each side thus sees its own metric
   (which keeps the discrete hydrostatic balance and free stream of the reference) and, when nhatp is
   exactly -nhat, the two sides' mass and energy fluxes cancel exactly. A face kernel computes every
   shared face once with it. */
SQUALL_HOST_DEVICE static inline void SquallEulerSurfaceFluxPair(const SquallGas *gas, SquallSurfaceFluxType type, const PetscReal qm[5], const PetscReal am[], const PetscReal qp[5], const PetscReal ap[], const PetscReal nhat[3],
                                                                 const PetscReal nhatp[3], PetscReal Fm[5], PetscReal Fp[5])
{
  SquallEulerECMeans M;
  PetscReal          Fs[5], Fsp[5], Dh[5] = {0, 0, 0, 0, 0};

  SquallEulerECMeansPair_Private(gas, am, ap, 1, &M);
  SquallEulerECContract(&M, nhat, Fs);
  SquallEulerECContract(&M, nhatp, Fsp);
  if (type == SQUALL_FLUX_ES) {
    PetscReal dv[5], D[5];
    SquallEulerEntropyJump_Private(gas, &M, am, ap, dv);
    SquallEulerMatrixDissipationMeans(gas, &M, am, ap, nhat, dv, D);
    for (int k = 0; k < 5; k++) Dh[k] = (PetscReal)0.5 * D[k];
  } else if (type == SQUALL_FLUX_RUSANOV) {
    const PetscReal lm = SquallEulerMaxWaveSpeed(gas, am, nhat), lp = SquallEulerMaxWaveSpeed(gas, ap, nhat), hl = (PetscReal)0.5 * PetscMax(lm, lp);
    for (int k = 0; k < 5; k++) Dh[k] = hl * (qp[k] - qm[k]);
  }
  Fm[0] = Fs[0] - Dh[0];
  Fp[0] = Fsp[0] + Dh[0];
  for (int c = 0; c < 3; c++) {
    Fm[1 + c] = (Fs[1 + c] + M.g1 * nhat[c]) - Dh[1 + c];
    Fp[1 + c] = (Fsp[1 + c] + M.g2 * nhatp[c]) + Dh[1 + c];
  }
  Fm[4] = Fs[4] - Dh[4];
  Fp[4] = Fsp[4] + Dh[4];
}

/* reflecting (free-slip) wall: q_out = (rho, m - 2 (m.nhat) nhat, E), to be used with the same Phi */
SQUALL_HOST_DEVICE static inline void SquallEulerMirrorState(const PetscReal q[5], const PetscReal nhat[3], PetscReal qout[5])
{
  const PetscReal mn2 = 2 * (q[1] * nhat[0] + q[2] * nhat[1] + q[3] * nhat[2]);

  qout[0] = q[0];
  qout[1] = q[1] - mn2 * nhat[0];
  qout[2] = q[2] - mn2 * nhat[1];
  qout[3] = q[3] - mn2 * nhat[2];
  qout[4] = q[4];
}
