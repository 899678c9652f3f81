/* Initial conditions of squall's ESDG test cases, selected by name; each reads its own options. */
#include "ts/esdgimpl.h"
#include "physics/bwave.h"

typedef struct {
  SquallESDG s;
  PetscReal  p0, theta, xc[3], rc, dtheta, T0, amp, u[3], t;
  PetscBool  smooth;
  /* baroclinic channel */
  PetscReal Ly, Gamma, u0, b, up, Lp, xp, yp;
  /* Schaer's mountain wave */
  PetscReal N;
  /* the baroclinic wave on the shell (its perturbation amplitude is up) */
  SquallBWave bw;
} CaseCtx;

/* 3D rising thermal bubble: potential temperature theta_ref + dtheta(r) in a neutral atmosphere,
   converted with the perturbed Exner function as in the reproducibility code of Waruszewski et al.
   (2022); smooth variant after F. X. Giraldo, M. Restelli, J. Comput. Phys. 227 (2008) 3849-3877. */
static PetscErrorCode BubbleState(const PetscReal x[3], PetscReal Phi, PetscReal q[5], void *ctx)
{
  CaseCtx        *c   = (CaseCtx *)ctx;
  const SquallGas gas = c->s->gas;
  const PetscReal cv = gas.R / (gas.gamma - 1), cp = cv + gas.R;
  PetscReal       r = 0, dth = 0, theta, pi, rho, p, u[3] = {0, 0, 0};

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) r += (x[d] - c->xc[d]) * (x[d] - c->xc[d]);
  r = PetscSqrtReal(r);
  if (r <= c->rc) dth = c->smooth ? c->dtheta / 2 * (1 + PetscCosReal(PETSC_PI * r / c->rc)) : c->dtheta;
  theta = c->theta + dth;
  pi    = 1 - Phi / (cp * theta);
  p     = c->p0 * PetscPowReal(pi, cp / gas.R);
  rho   = p / (gas.R * theta * pi);
  SquallEulerConservative(&gas, rho, u, p, Phi, q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* isothermal atmosphere at rest, p = p0 exp(-Phi / (R T0)): exactly balanced by the scheme */
static PetscErrorCode IsothermalState(const PetscReal x[3], PetscReal Phi, PetscReal q[5], void *ctx)
{
  CaseCtx        *c   = (CaseCtx *)ctx;
  const SquallGas gas = c->s->gas;
  const PetscReal p = c->p0 * PetscExpReal(-Phi / (gas.R * c->T0)), u[3] = {c->u[0], c->u[1], c->u[2]};

  PetscFunctionBegin;
  SquallEulerConservative(&gas, p / (gas.R * c->T0), u, p, Phi, q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Schaer's mountain wave (Schaer et al., Mon. Wea. Rev. 130 (2002) 2459-2480, sec. 5a): constant wind
   U = u[0] and Brunt-Vaisala frequency N over the surface temperature T0, hydrostatic:
   theta = T0 exp(N^2 z/g), pi = 1 + g^2/(cp T0 N^2) (exp(-N^2 z/g) - 1), p = p0 pi^(cp/R) */
static PetscErrorCode SchaerState(const PetscReal x[3], PetscReal Phi, PetscReal q[5], void *ctx)
{
  CaseCtx        *c   = (CaseCtx *)ctx;
  const SquallGas gas = c->s->gas;
  const PetscReal cp = gas.gamma * gas.R / (gas.gamma - 1), g = gas.g, N2 = c->N * c->N, z = Phi / g;
  const PetscReal theta = c->T0 * PetscExpReal(N2 * z / g), pi = 1 + g * g / (cp * c->T0 * N2) * (PetscExpReal(-N2 * z / g) - 1);
  const PetscReal p = c->p0 * PetscPowReal(pi, cp / gas.R), u[3] = {c->u[0], c->u[1], c->u[2]};

  PetscFunctionBegin;
  (void)x;
  PetscCheck(pi > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "schaer: the Exner function is %g <= 0 at z = %g: lower the model top or -schaer_N", (double)pi, (double)z);
  SquallEulerConservative(&gas, p / (gas.R * theta * pi), u, p, Phi, q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* density wave advected by a constant velocity at constant pressure (no gravity): an exact solution */
static PetscErrorCode DensityWaveState(const PetscReal x[3], PetscReal Phi, PetscReal q[5], void *ctx)
{
  CaseCtx     *c   = (CaseCtx *)ctx;
  SquallDGMesh m   = c->s->mesh;
  PetscReal    arg = 0;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) arg += 2 * PETSC_PI * (x[d] - c->u[d] * c->t - m->lo[d]) / (m->hi[d] - m->lo[d]);
  SquallEulerConservative(&c->s->gas, 1 + c->amp * PetscSinReal(arg), c->u, 1, Phi, q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rough but admissible data that depends only on the position (so any partition gives the same state):
   a stratified atmosphere with pseudo-random perturbations of 10% in density and pressure and of
   20 m/s in velocity */
static PetscReal Hash01(const PetscReal x[3], PetscInt salt)
{
  PetscReal v = 0;
  for (PetscInt d = 0; d < 3; d++) v += PetscSinReal((12.9898 + 7.1 * salt) * x[d] / 97.0 + (78.233 + 3.3 * d) * salt + 0.37 * d);
  v = PetscSinReal(v * 43758.5453) * 43758.5453;
  return v - PetscFloorReal(v);
}

static PetscErrorCode RandomState(const PetscReal x[3], PetscReal Phi, PetscReal q[5], void *ctx)
{
  CaseCtx        *c   = (CaseCtx *)ctx;
  const SquallGas gas = c->s->gas;
  const PetscReal p   = c->p0 * PetscExpReal(-Phi / (gas.R * c->T0)) * (1 + c->amp * (Hash01(x, 1) - 0.5));
  const PetscReal rho = c->p0 / (gas.R * c->T0) * PetscExpReal(-Phi / (gas.R * c->T0)) * (1 + c->amp * (Hash01(x, 2) - 0.5));
  PetscReal       u[3];

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 3; d++) u[d] = 200 * c->amp * (Hash01(x, 3 + d) - 0.5);
  SquallEulerConservative(&gas, rho, u, p, Phi, q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Baroclinic instability in a channel: P. A. Ullrich, K. A. Reed, C. Jablonowski, "Analytical
   initial conditions and an analysis of baroclinic instability waves in f- and beta-plane 3D
   channel models", Q. J. R. Meteorol. Soc. 141 (2015) 2972-2988, appendix. The balanced state is
   given in the pressure coordinate eta; eta at a node solves Phi(eta, y) = g z by Newton's method
   in L = ln eta (dPhi/dL = -R T). */
static PetscReal BaroPhiPrime(const CaseCtx *c, PetscReal y)
{
  const PetscReal Ly = c->Ly, f0 = c->s->f0, b0 = c->s->beta0, y0 = c->s->y0, pi = PETSC_PI;
  const PetscReal sy = PetscSinReal(2 * pi * y / Ly), cy = PetscCosReal(2 * pi * y / Ly);
  return c->u0 / 2 * ((f0 - b0 * y0) * (y - Ly / 2 - Ly / (2 * pi) * sy) + b0 / 2 * (y * y - Ly * y / pi * sy - Ly * Ly / (2 * pi * pi) * cy - Ly * Ly / 3 - Ly * Ly / (2 * pi * pi)));
}

static PetscErrorCode BaroclinicState(const PetscReal x[3], PetscReal Phi, PetscReal q[5], void *ctx)
{
  CaseCtx        *c   = (CaseCtx *)ctx;
  const SquallGas gas = c->s->gas;
  const PetscReal Rd = gas.R, g = gas.g, y = x[1], Pp = BaroPhiPrime(c, y), k = Rd * c->Gamma / g;
  PetscReal       L = -Phi / (Rd * c->T0), T = c->T0, G, eta, p, u[3] = {0, 0, 0};
  PetscInt        it;

  PetscFunctionBegin;
  for (it = 0; it < 60; it++) {
    G                  = PetscExpReal(-(L / c->b) * (L / c->b));
    const PetscReal F  = c->T0 * g / c->Gamma * (1 - PetscExpReal(k * L)) + Pp * L * G - Phi;
    T                  = c->T0 * PetscExpReal(k * L) + Pp / Rd * (2 / (c->b * c->b) * L * L - 1) * G;
    const PetscReal dL = F / (-Rd * T);
    L -= dL;
    /* quadratic convergence: stop at a step near the precision's round-off (1e-14 in double) */
    if (PetscAbsReal(dL) <= PetscMax((PetscReal)1e-14, 10 * PETSC_MACHINE_EPSILON) * (1 + PetscAbsReal(L))) break;
  }
  PetscCheck(it < 60, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "Baroclinic initial state: Newton for eta did not converge at z = %g", (double)(Phi / g));
  G    = PetscExpReal(-(L / c->b) * (L / c->b));
  T    = c->T0 * PetscExpReal(k * L) + Pp / Rd * (2 / (c->b * c->b) * L * L - 1) * G;
  eta  = PetscExpReal(L);
  p    = c->p0 * eta;
  u[0] = -c->u0 * PetscSqr(PetscSinReal(PETSC_PI * y / c->Ly)) * L * G + c->up * PetscExpReal(-((x[0] - c->xp) * (x[0] - c->xp) + (y - c->yp) * (y - c->yp)) / (c->Lp * c->Lp));
  SquallEulerConservative(&gas, p / (Rd * T), u, p, Phi, q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The baroclinic wave of Ullrich, Melvin, Jablonowski, Staniforth (QJRMS 140 (2014) 1590-1602) on the
   shell (src/physics/bwave.h): the balanced zonal state at the node's latitude and height plus, if
   up != 0, the zonal-wind perturbation, the zonal wind along the local east e_lon = (-sin lon, cos lon, 0) */
static PetscErrorCode BWaveState(const PetscReal x[3], PetscReal Phi, PetscReal q[5], void *ctx)
{
  CaseCtx        *c   = (CaseCtx *)ctx;
  const SquallGas gas = c->s->gas;
  const PetscReal rh = PetscSqrtReal(x[0] * x[0] + x[1] * x[1]), r = PetscSqrtReal(rh * rh + x[2] * x[2]);
  const PetscReal lat = PetscAtan2Real(x[2], rh), lon = PetscAtan2Real(x[1], x[0]), z = r - c->bw.a;
  PetscReal       p, T, u, vel[3];

  PetscFunctionBegin;
  SquallBWaveBalanced(&c->bw, lat, z, &p, &T, &u);
  if (c->up != 0) {
    SquallBWave w = c->bw;
    w.up          = c->up;
    u += SquallBWavePerturbation(&w, lon, lat, z);
  }
  PetscCheck(T > 0 && p > 0 && !PetscIsInfOrNanReal(u), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "baroclinic_wave: the state at lat %g, z %g is not admissible (T %g, p %g, u %g): check the -bwave_ parameters", (double)(lat * 180 / PETSC_PI),
             (double)z, (double)T, (double)p, (double)u);
  vel[0] = -u * PetscSinReal(lon);
  vel[1] = u * PetscCosReal(lon);
  vel[2] = 0;
  SquallEulerConservative(&gas, p / (gas.R * T), vel, p, Phi, q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseBubble(SquallOptionItems PetscOptionsObject, SquallESDG s, CaseCtx *c)
{
  PetscInt          prof = 0, n = 3;
  const char *const profiles[] = {"sharp", "smooth"};

  PetscFunctionBegin;
  PetscCall(PetscOptionsEList("-bubble_profile", "Bubble profile: sharp (top hat) or smooth (cosine)", "", profiles, 2, profiles[0], &prof, NULL));
  PetscCall(PetscOptionsReal("-bubble_theta", "Background potential temperature (K)", "", c->theta, &c->theta, NULL));
  PetscCall(PetscOptionsReal("-bubble_dtheta", "Potential-temperature perturbation (K)", "", c->dtheta, &c->dtheta, NULL));
  PetscCall(PetscOptionsReal("-bubble_radius", "Bubble radius (m, > 0)", "", c->rc, &c->rc, NULL));
  PetscCall(PetscOptionsRealArray("-bubble_center", "Bubble centre x,y,z (m)", "", c->xc, &n, NULL));
  PetscCall(SquallOptionsCheckArrayCount(s->comm, PetscOptionsObject->prefix, "-bubble_center", 3, 0));
  PetscCall(PetscOptionsReal("-bubble_p0", "Surface pressure (Pa)", "", c->p0, &c->p0, NULL));
  PetscCheck(c->rc > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-bubble_radius %g is out of range: it must be > 0", (double)c->rc);
  c->smooth = prof == 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(SquallESDGAddCheckpointCaseString(s, "-bubble_profile", profiles[prof]));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bubble_theta", 1, &c->theta));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bubble_dtheta", 1, &c->dtheta));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bubble_radius", 1, &c->rc));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bubble_center", 3, c->xc));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bubble_p0", 1, &c->p0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseIsothermal(SquallOptionItems PetscOptionsObject, SquallESDG s, CaseCtx *c)
{
  PetscInt n = 3;

  PetscFunctionBegin;
  PetscCall(PetscOptionsReal("-isothermal_T0", "Temperature of the isothermal atmosphere (K, > 0)", "", c->T0, &c->T0, NULL));
  PetscCall(PetscOptionsRealArray("-isothermal_velocity", "Uniform velocity u,v,w (m/s)", "", c->u, &n, NULL));
  PetscCall(SquallOptionsCheckArrayCount(s->comm, PetscOptionsObject->prefix, "-isothermal_velocity", 3, 0));
  PetscCheck(c->T0 > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-isothermal_T0 %g is out of range: it must be > 0", (double)c->T0);
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-isothermal_T0", 1, &c->T0));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-isothermal_velocity", 3, c->u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseSchaer(SquallOptionItems PetscOptionsObject, SquallESDG s, CaseCtx *c)
{
  PetscFunctionBegin;
  c->T0   = 280;
  c->N    = 0.01;
  c->u[0] = 10;
  PetscCall(PetscOptionsReal("-schaer_U", "Constant wind U (m/s)", "", c->u[0], &c->u[0], NULL));
  PetscCall(PetscOptionsReal("-schaer_N", "Brunt-Vaisala frequency N (1/s, > 0)", "", c->N, &c->N, NULL));
  PetscCall(PetscOptionsReal("-schaer_T0", "Surface temperature T0 (K, > 0)", "", c->T0, &c->T0, NULL));
  PetscCall(PetscOptionsReal("-schaer_p0", "Surface pressure p0 (Pa, > 0)", "", c->p0, &c->p0, NULL));
  PetscCheck(c->N > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-schaer_N %g is out of range: it must be > 0", (double)c->N);
  PetscCheck(c->T0 > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-schaer_T0 %g is out of range: it must be > 0", (double)c->T0);
  PetscCheck(c->p0 > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-schaer_p0 %g is out of range: it must be > 0", (double)c->p0);
  PetscCheck(s->gas.g > 0, s->comm, PETSC_ERR_ARG_INCOMP, "The schaer case needs gravity (-%sgravity > 0)", s->prefix);
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-schaer_U", 1, &c->u[0]));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-schaer_N", 1, &c->N));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-schaer_T0", 1, &c->T0));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-schaer_p0", 1, &c->p0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseDensityWave(SquallOptionItems PetscOptionsObject, SquallESDG s, CaseCtx *c)
{
  SquallDGMesh m = s->mesh;
  PetscInt     n = 3;

  PetscFunctionBegin;
  c->u[0] = 0.1, c->u[1] = 0.2, c->u[2] = -0.15;
  c->amp = 0.5;
  PetscCall(PetscOptionsRealArray("-densitywave_velocity", "Advection velocity u,v,w", "", c->u, &n, NULL));
  PetscCall(SquallOptionsCheckArrayCount(s->comm, PetscOptionsObject->prefix, "-densitywave_velocity", 3, 0));
  PetscCall(PetscOptionsReal("-densitywave_amplitude", "Relative density amplitude (0 to 0.9)", "", c->amp, &c->amp, NULL));
  PetscCheck(c->amp >= 0 && c->amp <= 0.9, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-densitywave_amplitude %g is out of range [0, 0.9]", (double)c->amp);
  for (PetscInt d = 0; d < 3; d++) PetscCheck(m->periodic[d], s->comm, PETSC_ERR_ARG_INCOMP, "The densitywave case needs a fully periodic brick (-dm_p4est_brick_periodicity 1,1,1)");
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-densitywave_velocity", 3, c->u));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-densitywave_amplitude", 1, &c->amp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseRandom(SquallOptionItems PetscOptionsObject, SquallESDG s, CaseCtx *c)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsReal("-random_amplitude", "Relative amplitude of the perturbations (0 to 0.5)", "", c->amp, &c->amp, NULL));
  PetscCheck(c->amp >= 0 && c->amp <= 0.5, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-random_amplitude %g is out of range [0, 0.5]", (double)c->amp);
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-random_amplitude", 1, &c->amp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseBaroclinic(SquallOptionItems PetscOptionsObject, SquallESDG s, CaseCtx *c)
{
  SquallDGMesh m = s->mesh;

  PetscFunctionBegin;
  c->Ly    = m->hi[1] - m->lo[1];
  c->T0    = 288;
  c->Gamma = 0.005;
  c->u0    = 35;
  c->b     = 2;
  c->up    = 1;
  c->Lp    = 6e5;
  c->xp    = 2e6;
  c->yp    = 2.5e6;
  PetscCall(PetscOptionsReal("-baroclinic_perturbation", "Amplitude u_p of the zonal-wind perturbation (m/s)", "", c->up, &c->up, NULL));
  PetscCheck(s->coriolis != SQUALL_CORIOLIS_NONE, s->comm, PETSC_ERR_ARG_INCOMP, "The baroclinic case needs -esdg_coriolis fplane or betaplane");
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-baroclinic_perturbation", 1, &c->up));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CaseBaroclinicWave(SquallOptionItems PetscOptionsObject, SquallESDG s, CaseCtx *c)
{
  SquallDGMesh m      = s->mesh;
  SquallBWave *w      = &c->bw;
  PetscBool    pert   = PETSC_TRUE;
  PetscReal    cen[2] = {20, 40};
  PetscInt     n      = 2;

  PetscFunctionBegin;
  w->a     = m->shellA;
  w->omega = s->omega;
  w->g     = s->gas.g;
  w->Rd    = s->gas.R;
  w->p0    = 1e5;
  w->T0E   = 310;
  w->T0P   = 240;
  w->b     = 2;
  w->K     = 3;
  w->lapse = 0.005;
  w->d0    = 0.1;
  w->zp    = 15000;
  w->deep  = s->gravityModel == SQUALL_GRAVITY_DEEP;
  c->up    = 1;
  PetscCheck(m->shell, s->comm, PETSC_ERR_ARG_INCOMP, "The baroclinic_wave case needs -%smesh shell", s->prefix);
  PetscCheck(s->coriolis == SQUALL_CORIOLIS_SPHERE, s->comm, PETSC_ERR_ARG_INCOMP, "The baroclinic_wave case needs -%scoriolis sphere", s->prefix);
  PetscCheck(s->gas.g > 0, s->comm, PETSC_ERR_ARG_INCOMP, "The baroclinic_wave case needs gravity (-%sgravity > 0)", s->prefix);
  PetscCall(PetscOptionsReal("-bwave_T0E", "Surface temperature at the equator T0E (K, > 0)", "", w->T0E, &w->T0E, NULL));
  PetscCall(PetscOptionsReal("-bwave_T0P", "Surface temperature at the poles T0P (K, > 0)", "", w->T0P, &w->T0P, NULL));
  PetscCall(PetscOptionsReal("-bwave_B", "Jet half-width parameter b (> 0)", "", w->b, &w->b, NULL));
  PetscCall(PetscOptionsReal("-bwave_K", "Jet width parameter K (>= 1)", "", w->K, &w->K, NULL));
  PetscCall(PetscOptionsReal("-bwave_lapse", "Lapse rate Gamma (K/m, > 0)", "", w->lapse, &w->lapse, NULL));
  PetscCall(PetscOptionsReal("-bwave_p0", "Surface pressure p0 (Pa, > 0)", "", w->p0, &w->p0, NULL));
  PetscCall(PetscOptionsBool("-bwave_perturbation", "Add the zonal-wind perturbation that triggers the wave (0: the balanced state alone)", "", pert, &pert, NULL));
  PetscCall(PetscOptionsReal("-bwave_perturbation_amplitude", "Amplitude u_p of the zonal-wind perturbation (m/s)", "", c->up, &c->up, NULL));
  PetscCall(PetscOptionsReal("-bwave_perturbation_radius", "Radius d0 of the perturbation in Earth radii (0 to 1]", "", w->d0, &w->d0, NULL));
  PetscCall(PetscOptionsRealArray("-bwave_perturbation_center", "Centre of the perturbation: longitude,latitude (degrees)", "", cen, &n, NULL));
  PetscCall(SquallOptionsCheckArrayCount(s->comm, PetscOptionsObject->prefix, "-bwave_perturbation_center", 2, 0));
  PetscCall(PetscOptionsReal("-bwave_perturbation_top", "Height above which the perturbation vanishes (m, > 0)", "", w->zp, &w->zp, NULL));
  PetscCheck(w->T0E > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-bwave_T0E %g is out of range: it must be > 0", (double)w->T0E);
  PetscCheck(w->T0P > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-bwave_T0P %g is out of range: it must be > 0", (double)w->T0P);
  PetscCheck(w->b > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-bwave_B %g is out of range: it must be > 0", (double)w->b);
  PetscCheck(w->K >= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-bwave_K %g is out of range: it must be >= 1", (double)w->K);
  PetscCheck(w->lapse > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-bwave_lapse %g is out of range: it must be > 0", (double)w->lapse);
  PetscCheck(w->p0 > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-bwave_p0 %g is out of range: it must be > 0", (double)w->p0);
  PetscCheck(w->d0 > 0 && w->d0 <= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-bwave_perturbation_radius %g is out of range (0, 1] (Earth radii)", (double)w->d0);
  PetscCheck(cen[1] >= -90 && cen[1] <= 90, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-bwave_perturbation_center: latitude %g is out of range [-90, 90]", (double)cen[1]);
  PetscCheck(w->zp > 0, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-bwave_perturbation_top %g is out of range: it must be > 0", (double)w->zp);
  if (!pert) c->up = 0;
  w->lonc = cen[0] * PETSC_PI / 180;
  w->latc = cen[1] * PETSC_PI / 180;
  w->up   = c->up;
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bwave_T0E", 1, &w->T0E));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bwave_T0P", 1, &w->T0P));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bwave_B", 1, &w->b));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bwave_K", 1, &w->K));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bwave_lapse", 1, &w->lapse));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bwave_p0", 1, &w->p0));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bwave_perturbation_amplitude", 1, &c->up));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bwave_perturbation_radius", 1, &w->d0));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bwave_perturbation_center", 2, cen));
  PetscCall(SquallESDGAddCheckpointCaseReals(s, "-bwave_perturbation_top", 1, &w->zp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the cases: each reads its options (defaults set, checked) and records them for the checkpoints */
typedef PetscErrorCode (*CaseOptionsFn)(SquallOptionItems, SquallESDG, CaseCtx *);
static const struct {
  const char         *name;
  CaseOptionsFn       options;
  SquallESDGInitialFn state;
} Cases[] = {
  {"bubble", CaseBubble, BubbleState},
  {"baroclinic", CaseBaroclinic, BaroclinicState},
  {"baroclinic_wave", CaseBaroclinicWave, BWaveState},
  {"isothermal", CaseIsothermal, IsothermalState},
  {"schaer", CaseSchaer, SchaerState},
  {"densitywave", CaseDensityWave, DensityWaveState},
  {"random", CaseRandom, RandomState},
};

static PetscErrorCode CaseSetUp(SquallESDG s, const char *name, CaseCtx *c, SquallESDGInitialFn *fn)
{
  size_t k;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  c->s      = s;
  c->p0     = 1e5;
  c->T0     = 300;
  c->theta  = 300;
  c->rc     = 250;
  c->dtheta = 0.5;
  c->xc[2]  = 260;
  c->amp    = 0.1;
  for (k = 0; k < PETSC_STATIC_ARRAY_LENGTH(Cases); k++) {
    PetscBool flg;

    PetscCall(PetscStrcmp(name, Cases[k].name, &flg));
    if (flg) break;
  }
  PetscCheck(k < PETSC_STATIC_ARRAY_LENGTH(Cases), s->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown ESDG test case %s: valid are bubble, baroclinic, baroclinic_wave, isothermal, schaer, densitywave, random", name);
  PetscOptionsBegin(s->comm, NULL, "squall ESDG test cases", "SquallESDGSetInitialCondition");
  PetscCall(SquallESDGSetCheckpointCase(s, name));
  PetscCall(Cases[k].options(PetscOptionsObject, s, c));
  PetscOptionsEnd();
  *fn = Cases[k].state;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGSetInitialCondition(SquallESDG s, const char *name, Vec Q)
{
  CaseCtx             c;
  SquallESDGInitialFn fn = NULL;

  PetscFunctionBegin;
  PetscCall(SquallESDGSetUp(s));
  PetscCall(CaseSetUp(s, name, &c, &fn));
  PetscCall(SquallESDGProject(s, fn, &c, Q));
  if (s->tau) {
    /* the sponge's target: the background with its mean wind (the bubble without its bubble, the channel
       and the wave on the shell without their perturbation; the isothermal and Schaer states are their own) */
    PetscBool bubble, baro, iso, schaer, bwave;
    Vec       B;
    PetscCall(PetscStrcmp(name, "bubble", &bubble));
    PetscCall(PetscStrcmp(name, "baroclinic", &baro));
    PetscCall(PetscStrcmp(name, "isothermal", &iso));
    PetscCall(PetscStrcmp(name, "schaer", &schaer));
    PetscCall(PetscStrcmp(name, "baroclinic_wave", &bwave));
    PetscCheck(bubble || baro || iso || schaer || bwave, s->comm, PETSC_ERR_SUP, "-%ssponge_rate: case %s has no background state to damp towards (valid: bubble, baroclinic, baroclinic_wave, isothermal, schaer)", s->prefix, name);
    c.dtheta = 0;
    c.up     = 0;
    PetscCall(VecDuplicate(Q, &B));
    PetscCall(SquallESDGProject(s, fn, &c, B));
    PetscCall(SquallESDGSetSpongeState(s, B));
    PetscCall(VecDestroy(&B));
  }
  if (s->useRef) PetscCall(SquallESDGSetCaseReference(s, name, Q));
  if (s->perturb) PetscCall(VecAXPY(Q, -1, s->Qref)); /* the TS state is the departure */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGSetCaseReference - SquallESDGSetReferenceState() with the unperturbed background of a test
  case: the bubble without its bubble, the baroclinic channel and the baroclinic wave on the shell without
  their wind perturbation, the isothermal atmosphere and the Schaer atmosphere at rest. (-esdg_reference_residual makes SquallESDGSetInitialCondition() call it.)

  Input: name, the case; Q, any vector of the DM (used as a template).
@*/
PetscErrorCode SquallESDGSetCaseReference(SquallESDG s, const char *name, Vec Q)
{
  CaseCtx             c;
  SquallESDGInitialFn fn = NULL;
  PetscBool           bubble, baro, iso, schaer, bwave;
  Vec                 R;

  PetscFunctionBegin;
  PetscCall(SquallESDGSetUp(s));
  PetscCall(PetscStrcmp(name, "bubble", &bubble));
  PetscCall(PetscStrcmp(name, "baroclinic", &baro));
  PetscCall(PetscStrcmp(name, "isothermal", &iso));
  PetscCall(PetscStrcmp(name, "schaer", &schaer));
  PetscCall(PetscStrcmp(name, "baroclinic_wave", &bwave));
  PetscCheck(bubble || baro || iso || schaer || bwave, s->comm, PETSC_ERR_SUP, "-%s%s: case %s has no steady background (valid: bubble, baroclinic, baroclinic_wave, isothermal, schaer)", s->prefix, s->perturb ? "perturbation" : "reference_residual",
             name);
  PetscCall(CaseSetUp(s, name, &c, &fn));
  c.dtheta = 0;
  c.up     = 0;
  c.u[0] = c.u[1] = c.u[2] = 0;
  PetscCall(VecDuplicate(Q, &R));
  PetscCall(SquallESDGProject(s, fn, &c, R));
  PetscCall(SquallESDGSetReferenceState(s, R));
  PetscCall(VecDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The exact state of a case at time t projected on the nodes, E, beside the full state Q of X (restore Q with
   SquallESDGRestoreFullState()). The baroclinic wave is exact only without its perturbation: then it is steady. */
static PetscErrorCode ExactState(SquallESDG s, const char *name, PetscReal t, Vec X, Vec *Q, Vec *E)
{
  CaseCtx             c;
  SquallESDGInitialFn fn = NULL;
  PetscBool           dw, iso, bwave;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(name, "densitywave", &dw));
  PetscCall(PetscStrcmp(name, "isothermal", &iso));
  PetscCall(PetscStrcmp(name, "baroclinic_wave", &bwave));
  PetscCheck(dw || iso || bwave, s->comm, PETSC_ERR_SUP, "No exact solution for case %s (valid: densitywave, isothermal, baroclinic_wave with -bwave_perturbation 0)", name);
  PetscCall(CaseSetUp(s, name, &c, &fn));
  PetscCheck(!bwave || c.up == 0, s->comm, PETSC_ERR_ARG_WRONGSTATE, "The perturbed baroclinic_wave has no exact solution: its balanced state (-bwave_perturbation 0) is steady");
  c.t = t;
  PetscCall(SquallESDGGetFullState(s, X, Q));
  PetscCall(VecDuplicate(*Q, E));
  PetscCall(SquallESDGProject(s, fn, &c, *E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sums over the owned nodes, with LGL quadrature weights, of the squared difference and the squared exact
   value: of all five fields (wind = false) or of the velocity u = (rho u)/rho (wind = true) */
static PetscErrorCode ErrorSums(SquallESDG s, Vec Q, Vec E, PetscBool wind, PetscReal glob[3])
{
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Nq = m->Nq, Np = m->Np;
  const PetscScalar *qa, *ea;
  PetscReal          loc[3] = {0, 0, 0};

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(Q, &qa));
  PetscCall(VecGetArrayRead(E, &ea));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscReal   *J = SQUALL_DG_J(m, e);
    const PetscScalar *q = qa + m->gslot[e] * 5 * Np, *x = ea + m->gslot[e] * 5 * Np;
    for (PetscInt n = 0; n < Np; n++) {
      const PetscInt  i = n % Nq, j = (n / Nq) % Nq, k = n / (Nq * Nq);
      const PetscReal wJ = m->w[i] * m->w[j] * m->w[k] * J[n];
      for (PetscInt f = wind ? 1 : 0; f < (wind ? 4 : 5); f++) {
        const PetscReal a = PetscRealPart(wind ? q[f * Np + n] / q[n] : q[f * Np + n]), b = PetscRealPart(wind ? x[f * Np + n] / x[n] : x[f * Np + n]);
        loc[0] += wJ * (a - b) * (a - b);
        loc[1] += wJ * b * b;
      }
      loc[2] += wJ;
    }
  }
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(VecRestoreArrayRead(E, &ea));
  PetscCallMPI(MPIU_Allreduce(loc, glob, 3, MPIU_REAL, MPIU_SUM, s->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGComputeExactError - relative L2 error (LGL quadrature) of all five fields against a case
  with an exact solution at time t (densitywave; isothermal at rest; the balanced baroclinic wave on the
  shell, -bwave_perturbation 0).
@*/
PetscErrorCode SquallESDGComputeExactError(SquallESDG s, const char *name, PetscReal t, Vec X, PetscReal *l2)
{
  Vec       E, Q;
  PetscReal sums[3];

  PetscFunctionBegin;
  PetscCall(ExactState(s, name, t, X, &Q, &E));
  /* sum_f int (q_f - q_f,exact)^2 over sum_f int q_f,exact^2 */
  PetscCall(ErrorSums(s, Q, E, PETSC_FALSE, sums));
  *l2 = PetscSqrtReal(sums[0] / sums[1]);
  PetscCall(VecDestroy(&E));
  PetscCall(SquallESDGRestoreFullState(s, X, &Q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGComputeWindError - L2 error (LGL quadrature) of the velocity against a case with an exact
  solution at time t (see SquallESDGComputeExactError()): rms = (int |u - u_exact|^2 / volume)^(1/2) in m/s
  and rel = (int |u - u_exact|^2 / int |u_exact|^2)^(1/2) (0 where the exact wind vanishes everywhere).
  For the balanced baroclinic wave: the error of u by which the steady state is judged.
@*/
PetscErrorCode SquallESDGComputeWindError(SquallESDG s, const char *name, PetscReal t, Vec X, PetscReal *rms, PetscReal *rel)
{
  Vec       E, Q;
  PetscReal sums[3];

  PetscFunctionBegin;
  PetscCall(ExactState(s, name, t, X, &Q, &E));
  PetscCall(ErrorSums(s, Q, E, PETSC_TRUE, sums));
  if (rms) *rms = PetscSqrtReal(sums[0] / sums[2]);
  if (rel) *rel = sums[1] > 0 ? PetscSqrtReal(sums[0] / sums[1]) : 0;
  PetscCall(VecDestroy(&E));
  PetscCall(SquallESDGRestoreFullState(s, X, &Q));
  PetscFunctionReturn(PETSC_SUCCESS);
}
