static char help[] = "The baroclinic wave of Ullrich, Melvin, Jablonowski, Staniforth (QJRMS 140 (2014)) on the cubed-sphere shell:\n"
                     "  -test pointwise     the formulas' own balance (src/physics/bwave.h) at sampled points, deep and shallow, by finite differences (no mesh)\n"
                     "  -test rhs           the RHS of the balanced state: L2 of the momentum RHS relative to that of rho g; with -esdg_reference_residual max |F| / (lambda |q|) < -tol\n"
                     "  -test convergence   that L2 at the refinements -levels a,b,... (default 0,1): the observed order of the last pair >= -min_order\n"
                     "  -test steps         the balanced state for -t_final seconds (default 300) of LSRK at CFL 1: max |w| < -max_w (m/s), the L2 error\n"
                     "                      of the wind (SquallESDGComputeWindError) 0 at the start and < -max_wind_error (m/s) at the end\n"
                     "  -test perturbation  max |u'| (with against without the perturbation) lies within -max_distance degrees of the centre, 0 beyond the radius\n"
                     "-tol r (relative, default 1e3 eps); -dm_vec_type cuda: through the GPU right-hand side (skipped without a GPU).\n";

#include <squall.h>
#include "ts/esdgimpl.h"
#include "physics/bwave.h"
#include "squalltest.h"
#include "esdgtest.h"

/* the paper's constants (X = 1) and test parameters */
static SquallBWave PaperWave(int deep)
{
  SquallBWave w;
  w.a     = 6.371229e6;
  w.omega = 7.29212e-5;
  w.g     = 9.80616;
  w.Rd    = 287.0;
  w.p0    = 1e5;
  w.T0E   = 310;
  w.T0P   = 240;
  w.b     = 2;
  w.K     = 3;
  w.lapse = 0.005;
  w.up    = 1;
  w.d0    = 0.1;
  w.lonc  = PETSC_PI / 9;
  w.latc  = 2 * PETSC_PI / 9;
  w.zp    = 15000;
  w.deep  = deep;
  return w;
}

static PetscReal BWaveP(const SquallBWave *w, PetscReal lat, PetscReal z)
{
  PetscReal p, T, u;
  SquallBWaveBalanced(w, lat, z, &p, &T, &u);
  return p;
}

/* sixth-order central difference of ln p along z (dir 0) or latitude (dir 1): ln p has an absolute
   rounding of eps, so the balance's small meridional terms near the ground are resolved */
static PetscReal DLogP(const SquallBWave *w, PetscReal lat, PetscReal z, int dir, PetscReal h)
{
  const PetscReal c[6] = {-1, 9, -45, 45, -9, 1};
  PetscReal       d    = 0;
  for (int i = 0; i < 6; i++) {
    const PetscReal o = (PetscReal)(i < 3 ? i - 3 : i - 2) * h;
    d += c[i] * PetscLogReal((dir == 0 ? BWaveP(w, lat, z + o) : BWaveP(w, lat + o, z)) / w->p0);
  }
  return d / (60 * h);
}

/* the steady zonal flow's balance, radial and meridional: deep with g (a/r)^2, the centrifugal u^2/r and the
   Coriolis term 2 Omega u cos(lat); shallow with g, radius a and neither */
static PetscErrorCode TestPointwise(PetscReal tol)
{
  PetscReal worst[2][2] = {{0, 0}, {0, 0}};

  PetscFunctionBegin;
  for (int deep = 0; deep < 2; deep++) {
    const SquallBWave w = PaperWave(deep);
    /* the meridional residual relative to the largest Coriolis and metric term at that height: the terms
       vanish together where u changes sign (the deep state's c = r cos(lat)/a = 1) */
    for (PetscReal z = 100; z <= 30000; z += 2950) {
      PetscReal scale = 0;
      for (PetscReal latd = -85; latd <= 85; latd += 10) {
        const PetscReal lat = latd * PETSC_PI / 180, r = deep ? w.a + z : w.a;
        PetscReal       p, T, u;
        SquallBWaveBalanced(&w, lat, z, &p, &T, &u);
        scale = PetscMax(scale, PetscAbsReal(u * u * PetscTanReal(lat) / r) + PetscAbsReal(2 * w.omega * u * PetscSinReal(lat)));
      }
      for (PetscReal latd = -85; latd <= 85; latd += 10) {
        const PetscReal lat = latd * PETSC_PI / 180, r = deep ? w.a + z : w.a;
        PetscReal       p, T, u, rho, dpdr, dpdl, gr, cen, cor, rr, rl;
        SquallBWaveBalanced(&w, lat, z, &p, &T, &u);
        rho            = p / (w.Rd * T);
        dpdr           = p * DLogP(&w, lat, z, 0, 50);
        dpdl           = p * DLogP(&w, lat, z, 1, 2e-3);
        gr             = deep ? w.g * (w.a / r) * (w.a / r) : w.g;
        cen            = deep ? u * u / r + 2 * w.omega * u * PetscCosReal(lat) : 0;
        rr             = (dpdr / rho + gr - cen) / gr;
        cor            = u * u * PetscTanReal(lat) / r + 2 * w.omega * u * PetscSinReal(lat);
        rl             = (dpdl / (rho * r) + cor) / scale;
        worst[deep][0] = PetscMax(worst[deep][0], PetscAbsReal(rr));
        worst[deep][1] = PetscMax(worst[deep][1], PetscAbsReal(rl));
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: max relative residual of the radial balance %.3e, of the gradient-wind balance %.3e\n", deep ? "deep" : "shallow", (double)worst[deep][0], (double)worst[deep][1]));
    PetscCheck(worst[deep][0] < tol && worst[deep][1] < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the %s baroclinic-wave state is not balanced to %g", deep ? "deep" : "shallow", (double)tol);
  }
  {
    /* the balanced state's values at the equatorial surface and the jet: T = T0E, p = p0, u(0) = 0 */
    const SquallBWave w = PaperWave(1);
    PetscReal         p, T, u, pe, Te, ue, umax = 0, latmax = 0, zmax = 0;
    SquallBWaveBalanced(&w, 0, 0, &pe, &Te, &ue);
    PetscCheck(PetscAbsReal(Te - w.T0E) < 1e-10 * w.T0E && PetscAbsReal(pe - w.p0) < 1e-10 * w.p0 && PetscAbsReal(ue) < 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "equatorial surface: T %g, p %g, u %g", (double)Te, (double)pe, (double)ue);
    for (PetscReal latd = 0; latd <= 90; latd += 0.5)
      for (PetscReal z = 0; z <= 30000; z += 250) {
        SquallBWaveBalanced(&w, latd * PETSC_PI / 180, z, &p, &T, &u);
        if (u > umax) umax = u, latmax = latd, zmax = z;
      }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "deep: equatorial surface T %.6f K, p %.6f Pa; jet maximum %.3f m/s at %.1f N, %.0f m\n", (double)Te, (double)pe, (double)umax, (double)latmax, (double)zmax));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* L2 of the momentum RHS and of rho g (LGL quadrature), and max |F_f| / (lambda |q_f|) */
static PetscErrorCode RHSNorms(SquallESDG s, Vec Q, Vec F, PetscReal *l2, PetscReal *l2scale, PetscReal *relmax)
{
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Nq = m->Nq, Np = m->Np;
  const PetscScalar *qa, *fa;
  PetscReal          loc[2] = {0, 0}, glob[2], mx[2] = {0, 0}, gmx[2], dt, lambda;

  PetscFunctionBegin;
  PetscCall(SquallESDGComputeTimeStep(s, Q, 1, &dt));
  lambda = 1 / dt;
  PetscCall(VecGetArrayRead(Q, &qa));
  PetscCall(VecGetArrayRead(F, &fa));
  for (PetscInt e = 0; e < m->nOwned; e++)
    for (PetscInt n = 0; n < Np; n++) {
      const PetscReal wJ = m->w[n % Nq] * m->w[(n / Nq) % Nq] * m->w[n / (Nq * Nq)] * SQUALL_DG_J(m, e)[n], rho = PetscRealPart(qa[(m->gslot[e] * 5) * Np + n]);
      PetscReal       f2 = 0;
      for (PetscInt d = 1; d <= 3; d++) {
        const PetscReal f = PetscRealPart(fa[(m->gslot[e] * 5 + d) * Np + n]);
        f2 += f * f;
      }
      loc[0] += wJ * f2;
      loc[1] += wJ * (rho * s->gas.g) * (rho * s->gas.g);
      mx[0] = PetscMax(mx[0], PetscSqrtReal(f2));
      for (PetscInt d = 0; d < 5; d++) mx[1] = PetscMax(mx[1], PetscAbsScalar(qa[(m->gslot[e] * 5 + d) * Np + n]));
    }
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(VecRestoreArrayRead(F, &fa));
  PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPIU_Allreduce(mx, gmx, 2, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  *l2      = PetscSqrtReal(glob[0]);
  *l2scale = PetscSqrtReal(glob[1]);
  *relmax  = gmx[0] / (lambda * gmx[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateSolver(SquallESDG *s, Vec *Q, Vec *F)
{
  DM dm;

  PetscFunctionBegin;
  PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, s));
  PetscCall(SquallESDGSetFromOptions(*s));
  PetscCall(SquallESDGSetUp(*s));
  PetscCall(SquallESDGGetDM(*s, &dm));
  PetscCall(DMCreateGlobalVector(dm, Q));
  PetscCall(VecDuplicate(*Q, F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DestroySolver(SquallESDG *s, Vec *Q, Vec *F)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(Q));
  PetscCall(VecDestroy(F));
  PetscCall(SquallESDGDestroy(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* latitude, longitude (radians), the zonal and the radial velocity at node n of element e */
static void NodeWind(SquallDGMesh m, PetscInt e, PetscInt n, const PetscScalar *qa, PetscReal *lat, PetscReal *lon, PetscReal *uz, PetscReal *wr)
{
  const PetscInt   Np = m->Np;
  const PetscReal *X  = SQUALL_DG_X(m, e);
  const PetscReal  x = X[n], y = X[Np + n], z = X[2 * Np + n], rh = PetscSqrtReal(x * x + y * y), r = PetscSqrtReal(rh * rh + z * z);
  const PetscReal rho = PetscRealPart(qa[(m->gslot[e] * 5) * Np + n]), u[3] = {PetscRealPart(qa[(m->gslot[e] * 5 + 1) * Np + n]) / rho, PetscRealPart(qa[(m->gslot[e] * 5 + 2) * Np + n]) / rho, PetscRealPart(qa[(m->gslot[e] * 5 + 3) * Np + n]) / rho};

  *lat = PetscAtan2Real(z, rh);
  *lon = PetscAtan2Real(y, x);
  *uz  = -u[0] * PetscSinReal(*lon) + u[1] * PetscCosReal(*lon);
  *wr  = (u[0] * x + u[1] * y + u[2] * z) / r;
}

int main(int argc, char **argv)
{
  SquallESDG s;
  Vec        Q, F;
  char       test[64] = "pointwise";
  PetscReal  tol      = 1e3 * PETSC_MACHINE_EPSILON;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  /* the same checks through the GPU right-hand side (-dm_vec_type cuda) are skipped where there is no device */
  SQUALL_TEST_SKIP_GPU_PATH_WITHOUT_GPU();
  if (!strcmp(test, "pointwise")) {
    PetscCall(TestPointwise(tol));
  } else if (!strcmp(test, "rhs")) {
    PetscReal l2, sc, rel;
    PetscCall(CreateSolver(&s, &Q, &F));
    PetscCall(SquallESDGView(s, NULL));
    PetscCall(SquallESDGSetInitialCondition(s, "baroclinic_wave", Q));
    PetscCall(SquallESDGComputeRHS(s, 0, Q, F));
    PetscCall(RHSNorms(s, Q, F, &l2, &sc, &rel));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "baroclinic wave, balanced state%s: L2 of the momentum RHS %.4e (relative to rho g: %.4e), max |F_rho u| / (lambda |q|) %.3e\n", s->Fref ? " with the reference residual" : "", (double)l2, (double)(l2 / sc),
                          (double)rel));
    if (s->Fref) PetscCheck(rel < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the balanced state is not at rest with the reference residual: %g (tolerance %g)", (double)rel, (double)tol);
    PetscCall(DestroySolver(&s, &Q, &F));
  } else if (!strcmp(test, "convergence")) {
    PetscInt  levels[8] = {0, 1}, nl = 8;
    PetscReal err[8], minorder = 0, order = 0;
    PetscBool set;
    PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-levels", levels, &nl, &set));
    if (!set) nl = 2;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-min_order", &minorder, NULL));
    PetscCheck(nl >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-levels needs at least two refinements");
    for (PetscInt i = 0; i < nl; i++) {
      char      v[16];
      PetscReal sc, rel;
      PetscCall(PetscSNPrintf(v, sizeof(v), "%" PetscInt_FMT, levels[i]));
      PetscCall(PetscOptionsSetValue(NULL, "-dm_forest_initial_refinement", v));
      PetscCall(CreateSolver(&s, &Q, &F));
      PetscCheck(!s->Fref && !s->useRef, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-test convergence measures the RHS without -esdg_reference_residual");
      PetscCall(SquallESDGSetInitialCondition(s, "baroclinic_wave", Q));
      PetscCall(SquallESDGComputeRHS(s, 0, Q, F));
      PetscCall(RHSNorms(s, Q, F, &err[i], &sc, &rel));
      err[i] /= sc;
      if (i) order = PetscLog2Real(err[i - 1] / err[i]) / (PetscReal)(levels[i] - levels[i - 1]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "N = %" PetscInt_FMT ", refinement %" PetscInt_FMT " (%" PetscInt_FMT " elements): L2 of the momentum RHS / L2 of rho g = %.4e", s->mesh->N, levels[i], s->mesh->nGlobal, (double)err[i]));
      if (i) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", order %.2f", (double)order));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
      PetscCall(DestroySolver(&s, &Q, &F));
    }
    PetscCheck(order >= minorder, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the balanced state's RHS converges at order %g, below -min_order %g", (double)order, (double)minorder);
  } else if (!strcmp(test, "steps")) {
    TS                 ts;
    PetscReal          dt, tf = 300, wmax = 0, gw, bound = 1, werr0, werr, wrel, wbound = PETSC_MAX_REAL;
    PetscInt           steps;
    const PetscScalar *qa;
    SquallDGMesh       m;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-t_final", &tf, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-max_w", &bound, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-max_wind_error", &wbound, NULL));
    PetscCall(CreateSolver(&s, &Q, &F));
    m = s->mesh;
    PetscCall(SquallESDGSetInitialCondition(s, "baroclinic_wave", Q));
    /* the initial state is the projection of the exact one */
    PetscCall(SquallESDGComputeWindError(s, "baroclinic_wave", 0, Q, &werr0, NULL));
    PetscCheck(werr0 == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the wind error of the initial state is %g m/s, not 0", (double)werr0);
    PetscCall(SquallESDGComputeTimeStep(s, Q, 1, &dt));
    steps = (PetscInt)PetscCeilReal(tf / dt);
    dt    = tf / steps;
    PetscCall(SquallTestCreateTS(s, dt, steps, tf, &ts));
    PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
    PetscCall(TSSolve(ts, Q));
    PetscCall(TSDestroy(&ts));
    PetscCall(VecGetArrayRead(Q, &qa));
    for (PetscInt e = 0; e < m->nOwned; e++)
      for (PetscInt n = 0; n < m->Np; n++) {
        PetscReal lat, lon, uz, wr;
        NodeWind(m, e, n, qa, &lat, &lon, &uz, &wr);
        wmax = PetscMax(wmax, PetscAbsReal(wr));
      }
    PetscCall(VecRestoreArrayRead(Q, &qa));
    PetscCallMPI(MPIU_Allreduce(&wmax, &gw, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "balanced baroclinic wave%s, %" PetscInt_FMT " steps of %.3f s to t = %g s: max |w| %.4e m/s\n", s->Fref ? " with the reference residual" : "", steps, (double)dt, (double)tf, (double)gw));
    PetscCheck(gw < bound, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "max |w| %g m/s exceeds -max_w %g", (double)gw, (double)bound);
    PetscCall(SquallESDGComputeWindError(s, "baroclinic_wave", tf, Q, &werr, &wrel));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "L2 error of the wind %.4e m/s (relative %.4e)\n", (double)werr, (double)wrel));
    PetscCheck(werr < wbound, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the L2 error of the wind %g m/s exceeds -max_wind_error %g", (double)werr, (double)wbound);
    PetscCall(DestroySolver(&s, &Q, &F));
  } else if (!strcmp(test, "perturbation")) {
    Vec                Q0;
    const PetscScalar *qa, *qb;
    PetscReal          maxdist = 5, loc[3] = {-1, 0, 0}, outside = 0, gout, dist, up = 1, d0 = 0.1;
    PetscMPIInt        size;
    PetscReal         *all;
    SquallDGMesh       m;
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-max_distance", &maxdist, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-bwave_perturbation_amplitude", &up, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-bwave_perturbation_radius", &d0, NULL));
    PetscCall(CreateSolver(&s, &Q, &F));
    m = s->mesh;
    PetscCall(VecDuplicate(Q, &Q0));
    PetscCall(PetscOptionsSetValue(NULL, "-bwave_perturbation", "1"));
    PetscCall(SquallESDGSetInitialCondition(s, "baroclinic_wave", Q));
    PetscCall(PetscOptionsSetValue(NULL, "-bwave_perturbation", "0"));
    PetscCall(SquallESDGSetInitialCondition(s, "baroclinic_wave", Q0));
    PetscCall(VecGetArrayRead(Q, &qa));
    PetscCall(VecGetArrayRead(Q0, &qb));
    for (PetscInt e = 0; e < m->nOwned; e++)
      for (PetscInt n = 0; n < m->Np; n++) {
        PetscReal lat, lon, u1, u0, w1, w0, du, cd;
        NodeWind(m, e, n, qa, &lat, &lon, &u1, &w1);
        NodeWind(m, e, n, qb, &lat, &lon, &u0, &w0);
        du = PetscAbsReal(u1 - u0);
        cd = PetscSinReal(2 * PETSC_PI / 9) * PetscSinReal(lat) + PetscCosReal(2 * PETSC_PI / 9) * PetscCosReal(lat) * PetscCosReal(lon - PETSC_PI / 9);
        if (PetscAcosReal(PetscMin(1, PetscMax(-1, cd))) > d0 * (1 + 1e-6)) outside = PetscMax(outside, du);
        if (du > loc[0]) loc[0] = du, loc[1] = lat, loc[2] = lon;
      }
    PetscCall(VecRestoreArrayRead(Q, &qa));
    PetscCall(VecRestoreArrayRead(Q0, &qb));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCall(PetscMalloc1(3 * size, &all));
    PetscCallMPI(MPI_Allgather(loc, 3, MPIU_REAL, all, 3, MPIU_REAL, PETSC_COMM_WORLD));
    for (PetscMPIInt r = 0; r < size; r++)
      if (all[3 * r] > loc[0]) loc[0] = all[3 * r], loc[1] = all[3 * r + 1], loc[2] = all[3 * r + 2];
    PetscCall(PetscFree(all));
    PetscCallMPI(MPIU_Allreduce(&outside, &gout, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    dist = PetscAcosReal(PetscMin(1, PetscSinReal(2 * PETSC_PI / 9) * PetscSinReal(loc[1]) + PetscCosReal(2 * PETSC_PI / 9) * PetscCosReal(loc[1]) * PetscCosReal(loc[2] - PETSC_PI / 9))) * 180 / PETSC_PI;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "perturbation: max |u'| %.4f m/s at %.2f E, %.2f N (%.2f degrees from 20 E, 40 N); max |u'| beyond the radius %.3e m/s\n", (double)loc[0], (double)(loc[2] * 180 / PETSC_PI),
                          (double)(loc[1] * 180 / PETSC_PI), (double)dist, (double)gout));
    PetscCheck(dist <= maxdist && loc[0] > 0.5 * up && loc[0] <= up * (1 + 1e-9) && gout == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the perturbation is misplaced or wrong (max %g at %g degrees from the centre, %g beyond the radius)", (double)loc[0],
               (double)dist, (double)gout);
    PetscCall(VecDestroy(&Q0));
    PetscCall(DestroySolver(&s, &Q, &F));
  } else
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "-test %s unknown: valid are pointwise, rhs, convergence, steps, perturbation", test);
  PetscCall(PetscFinalize());
  return 0;
}
