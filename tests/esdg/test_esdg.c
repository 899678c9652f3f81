static char help[] = "ESDG semi-discretisation checks on one RHS evaluation:\n"
                     "  -test entropy     dS/dt = sum w J v.F: zero (EC) or <= 0 (ES, Rusanov); mass and energy rates zero\n"
                     "  -test balance     isothermal atmosphere at rest: RHS at round-off\n"
                     "  -test freestream  constant state without gravity (warped mesh): RHS at round-off\n"
                     "  -test unphysical  a node with negative pressure: the RHS fails with PETSC_ERR_FP, the state check says no,\n"
                     "                    and a TS step is rejected cleanly (TSSetFunctionDomainError) instead of producing NaN\n"
                     "  -test sponge     the sponge term F - F(without sponge): 0 at the background, -tau (q - q_bg) for a perturbed state,\n"
                     "                    zero outside the layers, and it removes perturbation energy (L2 product < 0)\n"
                     "  -test terrain_function  SquallDGMeshSetTerrainFunction() with the P1 mountain's hill gives the mesh of -esdg_terrain bell (to round-off)\n"
                     "  -test api         the setters and getters (gas, surface flux by name, perturbation form) and their checks\n"
                     "  -case name        initial condition (default: random)\n";

#include <squall.h>
#include "squalltest.h"
#include "esdgtest.h"

/* the P1 mountain mesh's hill (SquallP1MountainTerrain, ctx a SquallP1Mountain) as a user function: the same bell
   as -esdg_terrain bell, both from src/physics/terrain.h */
static PetscErrorCode UserBell(PetscReal x, PetscReal y, PetscReal *h1, PetscReal *h2, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(SquallP1MountainTerrain((const SquallP1Mountain *)ctx, x, y, h1, NULL, NULL));
  *h2 = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one step of TS lsrk of length dt that may fail (two rejections allowed): where it stopped and why */
static PetscErrorCode OneStep(SquallESDG s, Vec Q, PetscReal dt, TSConvergedReason *reason, PetscReal *t)
{
  TS ts;

  PetscFunctionBegin;
  PetscCall(SquallTestCreateTS(s, dt, 1, 10 * dt, &ts));
  PetscCall(TSSetMaxStepRejections(ts, 2));
  PetscCall(TSSetErrorIfStepFails(ts, PETSC_FALSE));
  PetscCall(TSSolve(ts, Q));
  PetscCall(TSGetConvergedReason(ts, reason));
  PetscCall(TSGetTime(ts, t));
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  SquallESDG s;
  DM         dm;
  Vec        Q, F;
  char       test[64] = "entropy", casename[64] = "random";
  PetscReal  tol = 1e3 * PETSC_MACHINE_EPSILON;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", casename, sizeof(casename), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  /* the same checks through the GPU path (-dm_vec_type cuda) are skipped where there is no device */
  SQUALL_TEST_SKIP_GPU_PATH_WITHOUT_GPU();
  PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &s));
  if (!strcmp(test, "api")) {
    PetscReal      gamma, R, g;
    PetscErrorCode ierr;

    PetscCall(SquallESDGSetGas(s, 1.3, 300, 9.7));
    PetscCall(SquallESDGGetGas(s, &gamma, &R, &g));
    PetscCheck(gamma == (PetscReal)1.3 && R == 300 && g == (PetscReal)9.7, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SquallESDGGetGas: %g %g %g, set 1.3 300 9.7", (double)gamma, (double)R, (double)g);
    PetscCall(SquallESDGGetGas(s, NULL, NULL, &g)); /* any output may be NULL */
    PetscCall(SquallESDGSetSurfaceFlux(s, "rusanov"));
    PetscCheck(s->surface == SQUALL_FLUX_RUSANOV, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SquallESDGSetSurfaceFlux(rusanov) set %s", SquallSurfaceFluxTypes[s->surface]);
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SquallESDGSetSurfaceFlux(s, "roe");
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_ARG_UNKNOWN_TYPE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SquallESDGSetSurfaceFlux(roe) was not refused (error %d)", (int)ierr);
    PetscCheck(s->surface == SQUALL_FLUX_RUSANOV, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a refused flux name changed the flux to %s", SquallSurfaceFluxTypes[s->surface]);
    PetscCall(SquallESDGSetPerturbation(s, PETSC_TRUE));
    PetscCheck(s->perturb && s->useRef && s->gas.departures == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SquallESDGSetPerturbation(true): perturb %d, reference residual %d, departures %d", (int)s->perturb, (int)s->useRef, (int)s->gas.departures);
    PetscCall(SquallESDGSetPerturbation(s, PETSC_FALSE));
    PetscCheck(!s->perturb && !s->gas.departures, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SquallESDGSetPerturbation(false) left the perturbation form on");
    {
      /* a second solver with its own options prefix reads its own options, its mesh's too; the first keeps "esdg_" */
      SquallESDG   s2;
      SquallDGMesh m1, m2;
      PetscInt     N1, N2;
      PetscCall(PetscOptionsSetValue(NULL, "-esdg_order", "3"));
      PetscCall(PetscOptionsSetValue(NULL, "-second_order", "2"));
      PetscCall(PetscOptionsSetValue(NULL, "-second_mesh_warp", "0.05"));
      PetscCall(PetscOptionsSetValue(NULL, "-second_gamma", "1.2"));
      PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &s2));
      PetscCall(SquallESDGSetOptionsPrefix(s2, "second_"));
      PetscCall(SquallESDGSetFromOptions(s));
      PetscCall(SquallESDGSetFromOptions(s2));
      PetscCall(SquallESDGGetMesh(s, &m1));
      PetscCall(SquallESDGGetMesh(s2, &m2));
      PetscCall(SquallDGMeshGetOrder(m1, &N1));
      PetscCall(SquallDGMeshGetOrder(m2, &N2));
      PetscCall(SquallESDGGetGas(s2, &gamma, NULL, NULL));
      PetscCheck(N1 == 3 && N2 == 2 && m1->warp == 0 && m2->warp == (PetscReal)0.05 && gamma == (PetscReal)1.2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "options prefixes: orders %" PetscInt_FMT " %" PetscInt_FMT " (want 3 2), warps %g %g, second gamma %g",
                 N1, N2, (double)m1->warp, (double)m2->warp, (double)gamma);
      {
        PetscBool same;
        PetscCall(PetscStrcmp(m2->prefix, "second_", &same));
        PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the second solver's mesh has the prefix \"%s\", not \"second_\"", m2->prefix);
      }
      /* once the mesh has read its options a new prefix would not reach it: refused */
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = SquallESDGSetOptionsPrefix(s2, "third_");
      PetscCall(PetscPopErrorHandler());
      PetscCheck(ierr == PETSC_ERR_ARG_WRONGSTATE, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SquallESDGSetOptionsPrefix() after SquallESDGSetFromOptions() was not refused (error %d)", (int)ierr);
      PetscCall(SquallESDGGetGas(s, &gamma, NULL, NULL));
      PetscCheck(gamma == (PetscReal)1.3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-second_gamma changed the first solver's gamma to %g", (double)gamma);
      PetscCall(SquallESDGDestroy(&s2));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "api: gas, surface flux by name (unknown refused), perturbation form on and off, options prefixes\n"));
    PetscCall(SquallESDGDestroy(&s));
    PetscCall(PetscFinalize());
    return 0;
  }
  if (!strcmp(test, "terrain_function")) {
    /* the built-in bell from the options (prefix esdg_) against the P1 mountain's hill as a user function (prefix user_, no
       terrain options) */
    SquallP1Mountain hill = {.h0 = 800, .a = 400};
    SquallESDG       s2;
    SquallDGMesh     m1, m2;
    PetscReal        dx = 0, dJa = 0, xs = 0, jas = 0;
    PetscCall(PetscOptionsSetValue(NULL, "-esdg_terrain", "bell"));
    PetscCall(PetscOptionsSetValue(NULL, "-esdg_terrain_h0", "800"));
    PetscCall(PetscOptionsSetValue(NULL, "-esdg_terrain_a", "400"));
    PetscCall(PetscOptionsSetValue(NULL, "-esdg_terrain_center", "0,0"));
    PetscCall(SquallESDGSetFromOptions(s));
    PetscCall(SquallESDGSetUp(s));
    {
      char     order[8];
      PetscInt N;
      PetscCall(SquallDGMeshGetOrder(s->mesh, &N));
      PetscCall(PetscSNPrintf(order, sizeof(order), "%" PetscInt_FMT, N));
      PetscCall(PetscOptionsSetValue(NULL, "-user_order", order));
    }
    PetscCall(SquallESDGCreate(PETSC_COMM_WORLD, &s2));
    PetscCall(SquallESDGSetOptionsPrefix(s2, "user_"));
    PetscCall(SquallESDGGetMesh(s2, &m2));
    PetscCall(SquallDGMeshSetTerrainFunction(m2, UserBell, &hill));
    PetscCall(SquallESDGSetFromOptions(s2));
    PetscCall(SquallESDGSetUp(s2));
    PetscCall(SquallESDGGetMesh(s, &m1));
    PetscCheck(m1->nOwned == m2->nOwned && m1->nGhost == m2->nGhost, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the two meshes differ in their elements");
    /* the two evaluations of the bell are compiled apart (the contraction of their products may differ): equal to round-off */
    /* the elements of the two forests are matched by their lattice index */
    for (PetscInt e1 = 0; e1 < m1->nOwned + m1->nGhost; e1++) {
      PetscInt e2 = -1;
      for (PetscInt e = 0; e < m2->nOwned + m2->nGhost && e2 < 0; e++)
        if (m2->ijk[3 * e] == m1->ijk[3 * e1] && m2->ijk[3 * e + 1] == m1->ijk[3 * e1 + 1] && m2->ijk[3 * e + 2] == m1->ijk[3 * e1 + 2]) e2 = e;
      PetscCheck(e2 >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "element %" PetscInt_FMT " of the first mesh has no counterpart", e1);
      for (PetscInt i = 0; i < 3 * m1->Np; i++) {
        dx = PetscMax(dx, PetscAbsReal(SQUALL_DG_X(m1, e1)[i] - SQUALL_DG_X(m2, e2)[i]));
        xs = PetscMax(xs, PetscAbsReal(SQUALL_DG_X(m1, e1)[i]));
      }
      for (PetscInt i = 0; i < 9 * m1->Np; i++) {
        dJa = PetscMax(dJa, PetscAbsReal(SQUALL_DG_JA(m1, e1)[i] - SQUALL_DG_JA(m2, e2)[i]));
        jas = PetscMax(jas, PetscAbsReal(SQUALL_DG_JA(m1, e1)[i]));
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "terrain function: the P1 hill's nodes and metric terms against -esdg_terrain bell's: max differences %.2e, %.2e (relative)\n", (double)(dx / xs), (double)(dJa / jas)));
    PetscCheck(dx <= 10 * PETSC_MACHINE_EPSILON * xs && !m2->cartesian, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the user terrain function gives other node positions than -esdg_terrain bell (%g)", (double)dx);
    PetscCheck(dJa <= 1e3 * PETSC_MACHINE_EPSILON * jas, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the user terrain function gives other metric terms than -esdg_terrain bell (%g)", (double)dJa);
    PetscCall(SquallESDGDestroy(&s2));
    PetscCall(SquallESDGDestroy(&s));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(SquallESDGSetFromOptions(s));
  PetscCall(SquallESDGSetUp(s));
  PetscCall(SquallESDGGetDM(s, &dm));
  PetscCall(DMCreateGlobalVector(dm, &Q));
  PetscCall(VecDuplicate(Q, &F));
  PetscCall(SquallESDGSetInitialCondition(s, casename, Q));
  if (strcmp(test, "unphysical")) PetscCall(SquallESDGComputeRHS(s, 0, Q, F));

  if (!strcmp(test, "unphysical")) {
    PetscErrorCode    ierr;
    PetscBool         ok;
    PetscInt          rstart;
    PetscReal         t;
    TSConvergedReason reason;
    /* the third stage of the first step would see the bad node: make the stored state itself bad */
    PetscCall(VecGetOwnershipRange(Q, &rstart, NULL));
    {
      PetscMPIInt rank;
      PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
      if (rank == 0) {
        PetscScalar *qa;
        PetscCall(VecGetArray(Q, &qa));
        qa[4 * s->mesh->Np + 7] = -PetscAbsScalar(qa[4 * s->mesh->Np + 7]); /* negative energy at node 7 of the first element: p < 0 */
        PetscCall(VecRestoreArray(Q, &qa));
      }
    }
    PetscCall(SquallESDGCheckState(s, Q, &ok));
    PetscCheck(!ok, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the state check accepted a negative pressure");
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SquallESDGComputeRHS(s, 0, Q, F);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_FP, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the RHS returned %d for an unphysical state, expected PETSC_ERR_FP", (int)ierr);
    PetscCall(OneStep(s, Q, 0.01, &reason, &t));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "unphysical state: RHS error %d (PETSC_ERR_FP), TS stopped with %s at t = %g\n", (int)ierr, TSConvergedReasons[reason], (double)t));
    PetscCheck(reason < 0 && t == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the TS did not fail cleanly on an unphysical state (%s, t = %g)", TSConvergedReasons[reason], (double)t);
    /* an admissible state that a stage makes unphysical: 100 kg/(m^2 s) of momentum at one node and a
       step far beyond the CFL limit. The next stage's check rejects it (on the GPU from the verdict the
       fused stage formed as it wrote the state) and the TS stops cleanly at t = 0 */
    PetscCall(SquallESDGSetInitialCondition(s, casename, Q));
    {
      PetscMPIInt rank;
      PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
      if (rank == 0) {
        PetscScalar *qa;
        PetscCall(VecGetArray(Q, &qa));
        qa[1 * s->mesh->Np + 7] = 100;
        PetscCall(VecRestoreArray(Q, &qa));
      }
    }
    PetscCall(SquallESDGCheckState(s, Q, &ok));
    PetscCheck(ok, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the state check rejected an admissible state");
    PetscCall(OneStep(s, Q, 1e3, &reason, &t));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "a stage made the state unphysical: TS stopped with %s at t = %g\n", TSConvergedReasons[reason], (double)t));
    PetscCheck(reason < 0 && t == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the TS did not fail cleanly when a stage made the state unphysical (%s, t = %g)", TSConvergedReasons[reason], (double)t);
  } else if (!strcmp(test, "entropy")) {
    PetscCall(SquallTestCheckEntropyConservation(s, Q, F, tol, ""));
  } else if (!strcmp(test, "balance") || !strcmp(test, "freestream")) {
    /* every RHS entry against the size of its flux-divergence terms: rho g for momentum in the
       hydrostatic case, |f| / h otherwise */
    PetscReal       fmax[5], scale[5];
    SquallDGMesh    m    = s->mesh;
    const PetscReal hmin = PetscMin(m->h[0], PetscMin(m->h[1], m->h[2]));
    {
      const PetscScalar *fa, *qa;
      PetscReal          loc[10], glob[10];
      for (PetscInt f = 0; f < 10; f++) loc[f] = 0;
      PetscCall(VecGetArrayRead(F, &fa));
      PetscCall(VecGetArrayRead(Q, &qa));
      for (PetscInt e = 0; e < m->nOwned; e++)
        for (PetscInt f = 0; f < 5; f++)
          for (PetscInt n = 0; n < m->Np; n++) {
            const PetscInt idx = (m->gslot[e] * 5 + f) * m->Np + n;
            loc[f]             = PetscMax(loc[f], PetscAbsReal(PetscRealPart(fa[idx])));
            loc[5 + f]         = PetscMax(loc[5 + f], PetscAbsReal(PetscRealPart(qa[idx])));
          }
      PetscCall(VecRestoreArrayRead(F, &fa));
      PetscCall(VecRestoreArrayRead(Q, &qa));
      PetscCallMPI(MPIU_Allreduce(loc, glob, 10, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
      for (PetscInt f = 0; f < 5; f++) {
        /* a flux difference across the smallest element: |q_f| (|u| + c) / h, plus p / h for the
           momentum and (p |u|) / h for the energy; the hydrostatic momentum balance is rho g */
        const PetscReal pmax = (s->gas.gamma - 1) * glob[9], c = 400;
        fmax[f]  = glob[f];
        scale[f] = (glob[5 + f] * c + (f >= 1 && f <= 3 ? pmax : 0)) / hmin + (f == 3 ? glob[5] * s->gas.g : 0);
      }
    }
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "%s: max|dq/dt| / scale = %.2e %.2e %.2e %.2e %.2e\n", test, (double)(fmax[0] / scale[0]), (double)(fmax[1] / scale[1]), (double)(fmax[2] / scale[2]), (double)(fmax[3] / scale[3]), (double)(fmax[4] / scale[4])));
    for (PetscInt f = 0; f < 5; f++) PetscCheck(fmax[f] < tol * scale[f], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: field %" PetscInt_FMT " has |dq/dt| %g, not at round-off (scale %g)", test, f, (double)fmax[f], (double)scale[f]);
  } else if (!strcmp(test, "sponge")) {
    SquallDGMesh   m  = s->mesh;
    const PetscInt Np = m->Np;
    Vec            F0, Qp;
    PetscReal      loc[4] = {0, 0, 0, 0}, glob[4], diff0;

    PetscCheck(s->tau && s->Qsponge && !s->perturb, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONGSTATE, "-test sponge needs -esdg_sponge_rate with a layer, a case with a background, and the plain form");
    PetscCall(VecDuplicate(F, &F0));
    /* at the background itself (the initial state of the isothermal and Schaer cases) the term vanishes exactly */
    s->spongeHold = PETSC_TRUE;
    PetscCall(SquallESDGComputeRHS(s, 0, Q, F0));
    s->spongeHold = PETSC_FALSE;
    PetscCall(VecAXPY(F0, -1, F));
    PetscCall(VecNorm(F0, NORM_INFINITY, &diff0));
    PetscCheck(diff0 == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the sponge term is %g at the background state, not 0", (double)diff0);
    /* a perturbed state: 0.1% in every field, varying in space */
    PetscCall(VecDuplicate(Q, &Qp));
    {
      const PetscScalar *qa;
      PetscScalar       *pa;
      PetscCall(VecGetArrayRead(Q, &qa));
      PetscCall(VecGetArrayWrite(Qp, &pa));
      for (PetscInt e = 0; e < m->nOwned; e++)
        for (PetscInt f = 0; f < 5; f++)
          for (PetscInt n = 0; n < Np; n++) {
            const PetscReal *X = SQUALL_DG_X(m, e);
            const PetscInt   i = (m->gslot[e] * 5 + f) * Np + n;
            pa[i]              = qa[i] * (1 + 1e-3 * PetscSinReal(1e-3 * X[n] + 2e-3 * X[2 * Np + n] + f)) + (f >= 1 && f <= 3 ? 1e-3 * qa[(m->gslot[e] * 5) * Np + n] : 0);
          }
      PetscCall(VecRestoreArrayWrite(Qp, &pa));
      PetscCall(VecRestoreArrayRead(Q, &qa));
    }
    PetscCall(SquallESDGComputeRHS(s, 0, Qp, F));
    s->spongeHold = PETSC_TRUE;
    PetscCall(SquallESDGComputeRHS(s, 0, Qp, F0));
    s->spongeHold = PETSC_FALSE;
    {
      /* loc: max |D + tau d|, max |tau d|, max |D| outside the layers, sum w J d.D (d = q - q_bg, D the sponge term) */
      const PetscScalar *fa, *f0, *pa, *ra;
      PetscCall(VecGetArrayRead(F, &fa));
      PetscCall(VecGetArrayRead(F0, &f0));
      PetscCall(VecGetArrayRead(Qp, &pa));
      PetscCall(VecGetArrayRead(s->Qsponge, &ra));
      for (PetscInt e = 0; e < m->nOwned; e++)
        for (PetscInt n = 0; n < Np; n++) {
          const PetscReal tau = s->tau[e * Np + n], wJ = SquallTestWJ(m, e, n);
          for (PetscInt f = 0; f < 5; f++) {
            const PetscInt  i = (m->gslot[e] * 5 + f) * Np + n;
            const PetscReal D = PetscRealPart(fa[i] - f0[i]), d = PetscRealPart(pa[i] - ra[i]);
            loc[0] = PetscMax(loc[0], PetscAbsReal(D + tau * d));
            loc[1] = PetscMax(loc[1], PetscAbsReal(tau * d));
            if (tau == 0) loc[2] = PetscMax(loc[2], PetscAbsReal(D));
            /* the perturbation energy in each field, scaled by the field's size so that all five count */
            loc[3] += wJ * d * D / PetscMax(PetscAbsReal(PetscRealPart(ra[(m->gslot[e] * 5 + (f >= 1 && f <= 3 ? 0 : f)) * Np + n])), PETSC_SMALL);
          }
        }
      PetscCall(VecRestoreArrayRead(s->Qsponge, &ra));
      PetscCall(VecRestoreArrayRead(Qp, &pa));
      PetscCall(VecRestoreArrayRead(F0, &f0));
      PetscCall(VecRestoreArrayRead(F, &fa));
      PetscCallMPI(MPIU_Allreduce(loc, glob, 3, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
      PetscCallMPI(MPIU_Allreduce(&loc[3], &glob[3], 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "sponge: 0 at the background; |D + tau (q - q_bg)| / |tau (q - q_bg)| = %.2e, outside the layers |D| = %g, perturbation energy rate %.3e (< 0), %" PetscInt_FMT " nodes in the layers\n",
                          (double)(glob[0] / glob[1]), (double)glob[2], (double)glob[3], s->nSponge));
    PetscCheck(glob[1] > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "no node lies in a sponge layer");
    PetscCheck(glob[0] <= 1e5 * PETSC_MACHINE_EPSILON * glob[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the sponge term differs from -tau (q - q_bg) by %g (relative)", (double)(glob[0] / glob[1]));
    PetscCheck(glob[2] == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the sponge changes the RHS outside its layers by %g", (double)glob[2]);
    PetscCheck(glob[3] < 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the sponge does not remove perturbation energy (rate %g)", (double)glob[3]);
    PetscCall(VecDestroy(&Qp));
    PetscCall(VecDestroy(&F0));
  } else
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "-test %s unknown: valid are entropy, balance, freestream, unphysical, sponge", test);

  PetscCall(VecDestroy(&F));
  PetscCall(VecDestroy(&Q));
  PetscCall(SquallESDGDestroy(&s));
  PetscCall(PetscFinalize());
  return 0;
}
