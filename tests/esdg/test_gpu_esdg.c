static char help[] = "ESDG on the GPU against the CPU reference: one RHS evaluation (relative difference per field),\n"
                     "the entropy rate and conservation of the GPU RHS, and a few LSRK steps on both.\n"
                     "Options are those of the ESDG; -case name (default random), -steps n (default 3), -tol r (RHS), -step_tol r (state).\n"
                     "Exits with 200 (skipped) without CUDA or a device.\n";

#include <squall.h>
#include "ts/esdgimpl.h"
#include "squalltest.h"
#include "esdgtest.h"

static PetscErrorCode CreateSolver(const char *vectype, const char *casename, SquallESDG *s, Vec *Q)
{
  DM dm;

  PetscFunctionBegin;
  PetscCall(PetscOptionsSetValue(NULL, "-dm_vec_type", vectype));
  PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, s));
  PetscCall(SquallESDGSetFromOptions(*s));
  PetscCall(SquallESDGSetUp(*s));
  PetscCall(SquallESDGGetDM(*s, &dm));
  PetscCall(DMCreateGlobalVector(dm, Q));
  PetscCall(SquallESDGSetInitialCondition(*s, casename, *Q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max over entries of |a - b| per field, relative to scale[f] (or to max |b| where scale is NULL) */
static PetscErrorCode CompareFields(SquallESDG s, Vec A, Vec B, const PetscReal *scale, PetscReal rel[5])
{
  SquallDGMesh       m = s->mesh;
  const PetscScalar *aa, *ba;
  PetscReal          loc[10] = {0}, glob[10];

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(A, &aa));
  PetscCall(VecGetArrayRead(B, &ba));
  for (PetscInt e = 0; e < m->nOwned; e++)
    for (PetscInt f = 0; f < 5; f++)
      for (PetscInt n = 0; n < m->Np; n++) {
        const PetscInt i = (m->gslot[e] * 5 + f) * m->Np + n;
        loc[f]           = PetscMax(loc[f], PetscAbsScalar(aa[i] - ba[i]));
        loc[5 + f]       = PetscMax(loc[5 + f], PetscAbsScalar(ba[i]));
      }
  PetscCall(VecRestoreArrayRead(A, &aa));
  PetscCall(VecRestoreArrayRead(B, &ba));
  PetscCallMPI(MPIU_Allreduce(loc, glob, 10, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  for (PetscInt f = 0; f < 5; f++) rel[f] = glob[f] / PetscMax(scale ? PetscMax(scale[f], glob[5 + f]) : glob[5 + f], PETSC_SMALL);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The size of the terms an RHS entry is summed from: the flux differences lambda |q_f| and, for the
   momentum, lambda rho c (the pressure gradient), with lambda the largest wave rate of the mesh. Near
   hydrostatic balance these terms cancel to a small residual, so the round-off of two correct
   implementations differs relative to the terms, not to the residual. X: the TS state (in
   perturbation form the departure; the terms are those of the full state). */
static PetscErrorCode RHSScale(SquallESDG s, Vec X, PetscReal scale[5])
{
  SquallDGMesh       m = s->mesh;
  const PetscScalar *qa;
  PetscReal          dt, lambda, loc[6] = {0}, glob[6];
  Vec                Q;

  PetscFunctionBegin;
  PetscCall(SquallESDGComputeTimeStep(s, X, 1, &dt));
  lambda = (m->r[1] - m->r[0]) / dt;
  PetscCall(SquallESDGGetFullState(s, X, &Q));
  PetscCall(VecGetArrayRead(Q, &qa));
  for (PetscInt e = 0; e < m->nOwned; e++)
    for (PetscInt n = 0; n < m->Np; n++) {
      PetscReal q[5], a[SQUALL_NAUX];
      for (PetscInt f = 0; f < 5; f++) {
        q[f]   = PetscRealPart(qa[(m->gslot[e] * 5 + f) * m->Np + n]);
        loc[f] = PetscMax(loc[f], PetscAbsReal(q[f]));
      }
      (void)SquallEulerAux(&s->gas, q, s->Phi[e * m->Np + n], a);
      loc[5] = PetscMax(loc[5], PetscSqrtReal(s->gas.gamma * a[SQ_P] * a[SQ_RHO]));
    }
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(SquallESDGRestoreFullState(s, X, &Q));
  PetscCallMPI(MPIU_Allreduce(loc, glob, 6, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  for (PetscInt f = 0; f < 5; f++) scale[f] = lambda * (f >= 1 && f <= 3 ? PetscMax(glob[f], glob[5]) : glob[f]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Advance(SquallESDG s, Vec Q, PetscInt steps, PetscReal dt)
{
  TS ts;

  PetscFunctionBegin;
  PetscCall(SquallTestCreateTS(s, dt, steps, 1e30, &ts));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSSolve(ts, Q));
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  SquallESDG sc, sg;
  Vec        Qc, Qg, Fc, Fg;
  PetscInt   steps = 3;
  /* 450 eps: an RHS entry sums O(100) flux terms, in another order on the device; 4000 eps: 3 steps of
     14 stages carry that difference */
  PetscReal rel[5], rhsscale[5], stepscale[5], tol = SQUALL_TOL(1e-13, 450), steptol = SQUALL_TOL(1e-11, 4000), relmax = 0, dt, tg;
  char      casename[64] = "random";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin()); /* to count the admissibility passes */
  SQUALL_TEST_SKIP_WITHOUT_GPU();
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", casename, sizeof(casename), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  /* after 3 x 14 stages on rough data, round-off differences of the two RHS (FMA contraction on the
     device, other summation orders) have grown by about two orders of magnitude (seen on an H200) */
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-step_tol", &steptol, NULL));
  PetscCall(CreateSolver("standard", casename, &sc, &Qc));
  PetscCall(CreateSolver("cuda", casename, &sg, &Qg));
  PetscCheck(sg->useGPU && !sc->useGPU, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "vector types were not picked up");
  PetscCall(VecDuplicate(Qc, &Fc));
  PetscCall(VecDuplicate(Qg, &Fg));

  /* one RHS evaluation */
  PetscCall(SquallESDGComputeRHS(sc, 0, Qc, Fc));
  PetscCall(SquallESDGComputeRHS(sg, 0, Qg, Fg));
  PetscCall(RHSScale(sc, Qc, rhsscale));
  PetscCall(CompareFields(sc, Fg, Fc, rhsscale, rel));
  for (PetscInt f = 0; f < 5; f++) relmax = PetscMax(relmax, rel[f]);
  PetscCheck(sc->gas.departures == sg->gas.departures, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "CPU and GPU solvers differ in their departures");
  /* the test cases' references are pointwise functions of the node positions, which are bitwise equal
     across faces: the GPU face kernel then loads a face node's reference once for both sides */
  PetscCheck(!sg->perturb || sg->refCont, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The reference of case %s is not continuous across faces bit for bit", casename);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "N=%" PetscInt_FMT "%s %s %s: RHS GPU vs CPU, max difference per field relative to its flux terms %.2e %.2e %.2e %.2e %.2e\n", sc->mesh->N,
                        sc->gas.departures ? " (perturbation form, departures)" : (sc->perturb ? " (perturbation form)" : ""), SquallSurfaceFluxTypes[sc->surface], sc->mesh->cartesian ? "Cartesian" : "curvilinear", (double)rel[0], (double)rel[1],
                        (double)rel[2], (double)rel[3], (double)rel[4]));
  PetscCheck(relmax < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "GPU RHS differs from the CPU reference by %g relative (tolerance %g)", (double)relmax, (double)tol);
  {
    /* HEVI's parts F_H and F_V (the kernels' term mask: directions and sources) against the CPU's */
    for (PetscInt p = SQUALL_ESDG_PART_HORIZONTAL; p <= SQUALL_ESDG_PART_VERTICAL; p++) {
      PetscReal prel = 0;
      PetscCall(SquallESDGComputeRHSPart(sc, (SquallESDGPart)p, 0, Qc, Fc));
      PetscCall(SquallESDGComputeRHSPart(sg, (SquallESDGPart)p, 0, Qg, Fg));
      PetscCall(CompareFields(sc, Fg, Fc, rhsscale, rel));
      for (PetscInt f = 0; f < 5; f++) prel = PetscMax(prel, rel[f]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s part: GPU vs CPU max difference relative to the flux terms %.2e\n", p == SQUALL_ESDG_PART_HORIZONTAL ? "horizontal" : "vertical", (double)prel));
      PetscCheck(prel < tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "GPU RHS part %" PetscInt_FMT " differs from the CPU reference by %g relative (tolerance %g)", p, (double)prel, (double)tol);
    }
    PetscCall(SquallESDGComputeRHS(sc, 0, Qc, Fc));
    PetscCall(SquallESDGComputeRHS(sg, 0, Qg, Fg));
  }
  {
    /* the GPU RHS conserves entropy (EC) and mass to round-off, through the same diagnostics */
    PetscReal rc, rg;
    PetscCall(SquallESDGComputeEntropyRate(sc, Qc, Fc, &rc));
    PetscCall(SquallESDGComputeEntropyRate(sg, Qg, Fg, &rg));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "entropy rate CPU %.6e GPU %.6e\n", (double)rc, (double)rg));
  }

  /* a few steps of the fused LSRK on the device against the CPU */
  PetscCall(SquallESDGComputeTimeStep(sc, Qc, 0.5, &dt));
  {
    PetscReal dtg;
    PetscCall(SquallESDGComputeTimeStep(sg, Qg, 0.5, &dtg));
    PetscCheck(PetscAbsReal(dtg - dt) <= SQUALL_TOL(1e-12, 100) * dt, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "CFL time step GPU %.17g vs CPU %.17g", (double)dtg, (double)dt);
  }
  PetscCall(Advance(sc, Qc, steps, dt));
  {
    /* the fused LSRK stages check the state they write as they write it: only the initial state needs a
       pass of its own (plus one wave-speed pass per step with -esdg_cfl); unfused (-ts_lsrk_fused 0 or a
       compensation layout the fused stage does not take) every stage's state gets a pass */
    PetscLogEvent      ev;
    PetscEventPerfInfo i0, i1;
    PetscInt           passes, expect;
    PetscBool          fused = PETSC_TRUE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-ts_lsrk_fused", &fused, NULL));
    PetscCall(PetscLogEventGetId("SqESDGNodeReduce", &ev));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &i0));
    PetscCall(Advance(sg, Qg, steps, dt));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &i1));
    passes = i1.count - i0.count;
    expect = (fused ? 1 : 14 * steps) + (sg->cfl > 0 ? steps : 0);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "admissibility passes over the state in %" PetscInt_FMT " GPU steps: %" PetscInt_FMT " (expected %" PetscInt_FMT ")\n", steps, passes, expect));
    PetscCheck(passes == expect, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " admissibility passes, expected %" PetscInt_FMT, passes, expect);
  }
  /* the state changes by time x RHS: its round-off is judged against |q| plus the accumulated flux
     terms (a momentum that starts at zero is a small residual of large, cancelling terms) */
  tg = steps * dt;
  for (PetscInt f = 0; f < 5; f++) stepscale[f] = tg * rhsscale[f];
  PetscCall(CompareFields(sc, Qg, Qc, stepscale, rel));
  relmax = 0;
  for (PetscInt f = 0; f < 5; f++) relmax = PetscMax(relmax, rel[f]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "after %" PetscInt_FMT " LSRK steps: state GPU vs CPU max relative difference %.2e\n", steps, (double)relmax));
  PetscCheck(relmax < steptol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "GPU solution differs from the CPU reference by %g relative (tolerance %g)", (double)relmax, (double)steptol);
  {
    /* TS lsrk folds the stage update into the GPU RHS's volume kernel (-ts_lsrk_fused, default): the
       same arithmetic as the RHS into F and the update kernel after it, so the same solution bit for bit */
    SquallESDG sg2;
    Vec        Qg2;
    PetscBool  same;
    PetscCall(CreateSolver("cuda", casename, &sg2, &Qg2));
    PetscCall(PetscOptionsSetValue(NULL, "-ts_lsrk_fused", "0"));
    PetscCall(Advance(sg2, Qg2, steps, dt));
    PetscCall(PetscOptionsClearValue(NULL, "-ts_lsrk_fused"));
    PetscCall(VecEqual(Qg, Qg2, &same));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "fused and unfused LSRK stages on the GPU: %s\n", same ? "equal bit for bit" : "DIFFER"));
    PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The fused LSRK stage changed the GPU solution");
    PetscCall(VecDestroy(&Qg2));
    PetscCall(SquallESDGDestroy(&sg2));
  }

  PetscCall(VecDestroy(&Fc));
  PetscCall(VecDestroy(&Fg));
  PetscCall(VecDestroy(&Qc));
  PetscCall(VecDestroy(&Qg));
  PetscCall(SquallESDGDestroy(&sc));
  PetscCall(SquallESDGDestroy(&sg));
  PetscCall(PetscFinalize());
  return 0;
}
