/* Wiring of an ESDG semi-discretisation into a PETSc TS: RHS function, admissibility check,
   CFL time step and the diagnostics monitor. Any TS type works; "lsrk" is squall's own. */
#include "ts/esdgimpl.h"

static PetscErrorCode ESDGDomainCheck(TS ts, PetscReal t, Vec Y, PetscBool *accept)
{
  SquallESDG s;

  PetscFunctionBegin;
  PetscCall(TSGetApplicationContext(ts, &s));
  PetscCall(SquallESDGCheckState(s, Y, accept));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest -esdg_cfl at which the rising bubble stays within 2% of max|w| at CFL 0.25, per LSRK scheme
   and order N = 1..8: bench/cfl.sh, bench/results/esdg-h200.json ("cfl" records) and docs/performance.md */
static const struct {
  const char *scheme;
  PetscReal   cfl[8];
} StableCFL[] = {{"14s4", {2.25, 6.75, 6.25, 6.0, 6.0, 5.75, 5.75, 5.75}}, {"5s4", {1.0, 1.5, 1.5, 1.5, 1.5, 1.5, 1.25, 1.25}}};

/* warns once when -esdg_cfl is above the measured stable limit of the TS's scheme at this order (other TS
   types have no measured limit) */
static PetscErrorCode ESDGCheckCFL(TS ts, SquallESDG s)
{
  PetscBool   islsrk;
  const char *scheme;

  PetscFunctionBegin;
  s->cflChecked = PETSC_TRUE;
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, "lsrk", &islsrk));
  if (!islsrk || s->mesh->N < 1 || s->mesh->N > 8) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SquallTSLSRKGetType(ts, &scheme));
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(StableCFL); i++) {
    PetscBool match;
    PetscCall(PetscStrcmp(scheme, StableCFL[i].scheme, &match));
    if (match && s->cfl > StableCFL[i].cfl[s->mesh->N - 1])
      PetscCall(PetscPrintf(s->comm, "Warning: -%scfl %g is above %g, the largest stable value measured for lsrk %s at order %" PetscInt_FMT " (docs/performance.md): the run may become unstable\n", s->prefix, (double)s->cfl,
                            (double)StableCFL[i].cfl[s->mesh->N - 1], scheme, s->mesh->N));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ESDGPreStep(TS ts)
{
  SquallESDG s;
  Vec        Q;
  PetscReal  dt;

  PetscFunctionBegin;
  PetscCall(TSGetApplicationContext(ts, &s));
  if (!s->cflChecked) PetscCall(ESDGCheckCFL(ts, s));
  PetscCall(TSGetSolution(ts, &Q));
  PetscCall(SquallESDGComputeTimeStep(s, Q, s->cfl, &dt));
  {
    /* TSSolve has already clipped the step to the final time; keep that clipping */
    TSExactFinalTimeOption eft;
    PetscReal              t, tmax;
    PetscCall(TSGetExactFinalTime(ts, &eft));
    PetscCall(TSGetTime(ts, &t));
    PetscCall(TSGetMaxTime(ts, &tmax));
    if (eft == TS_EXACTFINALTIME_MATCHSTEP && t + dt > tmax) dt = tmax - t;
  }
  PetscCall(TSSetTimeStep(ts, dt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ESDGMonitor(TS ts, PetscInt step, PetscReal t, Vec Q, void *ctx)
{
  SquallESDG      s = (SquallESDG)ctx;
  SquallESDGStats st;
  PetscReal       dt;

  PetscFunctionBegin;
  if (step % s->monitor_every) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SquallESDGComputeStats(s, Q, &st));
  if (!s->diag0set) {
    s->diag0[0] = st.mass;
    s->diag0[1] = st.energy;
    s->diag0[2] = st.entropy;
    s->diag0set = PETSC_TRUE;
  }
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(PetscPrintf(s->comm, "%5" PetscInt_FMT " t %.6e dt %.3e mass %.15e (%+.2e) energy %.15e (%+.2e) entropy %.15e (%+.2e) max|w| %.6e min rho %.6e min p %.6e\n", step, (double)t, (double)dt, (double)st.mass,
                        (st.mass - s->diag0[0]) / fabs(s->diag0[0]), (double)st.energy, (st.energy - s->diag0[1]) / fabs(s->diag0[1]), (double)st.entropy, (st.entropy - s->diag0[2]) / fabs(s->diag0[2]), (double)st.maxw, (double)st.minrho,
                        (double)st.minp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TS lsrk's fused stage (see src/ts/lsrk.c): on the GPU the RHS's volume kernels do the stage update;
   only while the TS's RHS is still this one */
static PetscErrorCode ESDGFusedStage(TS ts, PetscReal t, Vec Q, Vec K, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b, PetscBool *done)
{
  SquallESDG s;
  PetscErrorCode (*fn)(TS, PetscReal, Vec, Vec, void *);
  void *ctx;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(TSGetApplicationContext(ts, &s));
  PetscCall(TSGetRHSFunction(ts, NULL, &fn, &ctx));
  if (fn != SquallESDGRHSFunction || ctx != (void *)s || !s->useGPU) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(SQUALL_ESDGRHS, Q, K, 0, 0));
  PetscCall(SquallESDGStage_GPU(s, Q, K, comp, a, dt, b, done));
  (void)t;
  PetscCall(PetscLogEventEnd(SQUALL_ESDGRHS, Q, K, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the solution's field layout, for TS lsrk: per element each of the five conserved fields at its Np nodes in turn */
static PetscErrorCode ESDGFieldLayout(TS ts, PetscInt *stride, PetscInt *nfields)
{
  SquallESDG s;

  PetscFunctionBegin;
  PetscCall(TSGetApplicationContext(ts, &s));
  *stride  = s->mesh->Np;
  *nfields = 5;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGSetUpTS - gives ts the ESDG DM and RHS, rejects stages with unphysical states, and
  installs the -esdg_cfl time-step control and the -esdg_monitor diagnostics. With -esdg_imex vertical
  the RHS is F_H and the IFunction qdot - F_V with its IJacobian (src/ts/esdgimex.c), for TS ARKIMEX;
  in single precision the TS's Newton then defaults to three fixed iterations per stage (docs/precision.md).
  Call it before TSSetFromOptions(), so that options override these defaults.
@*/
PetscErrorCode SquallESDGSetUpTS(SquallESDG s, TS ts)
{
  PetscFunctionBegin;
  PetscCall(SquallESDGSetUp(s));
  PetscCall(TSSetDM(ts, s->mesh->sdm));
  PetscCall(TSSetApplicationContext(ts, s));
  PetscCall(TSSetRHSFunction(ts, NULL, SquallESDGRHSFunction, s));
  PetscCall(TSSetFunctionDomainError(ts, ESDGDomainCheck));
  if (s->useGPU) PetscCall(PetscObjectComposeFunction((PetscObject)ts, "SquallTSLSRKFusedStage_C", ESDGFusedStage));
  /* for -ts_lsrk_compensated_fields (0,4: density and energy), whatever the TS's type becomes later */
  PetscCall(PetscObjectComposeFunction((PetscObject)ts, "SquallTSLSRKFieldLayout_C", ESDGFieldLayout));
  if (s->imex == SQUALL_ESDG_IMEX_VERTICAL) PetscCall(SquallESDGSetUpIMEX(s, ts)); /* F_H as the RHS, F_V implicit */
  if (s->cfl > 0) PetscCall(TSSetPreStep(ts, ESDGPreStep));
  if (s->monitor_every > 0) PetscCall(TSMonitorSet(ts, ESDGMonitor, s, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
