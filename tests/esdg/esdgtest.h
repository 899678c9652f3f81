#pragma once
/* What the ESDG test programs share: a TS lsrk on a solver (SquallESDGSetUpTS) with a fixed step, the GPU path's
   request, and the quadrature sums over a solver's owned nodes that the conservation checks take. */
#include <squall.h>
#include "ts/esdgimpl.h"

/* the caller sets what its test needs (options, rejections) and destroys the TS */
static inline PetscErrorCode SquallTestCreateTS(SquallESDG s, PetscReal dt, PetscInt steps, PetscReal tmax, TS *ts)
{
  PetscFunctionBegin;
  PetscCall(TSCreate(PETSC_COMM_WORLD, ts));
  PetscCall(TSSetType(*ts, "lsrk"));
  PetscCall(SquallESDGSetUpTS(s, *ts));
  PetscCall(TSSetTimeStep(*ts, dt));
  PetscCall(TSSetMaxSteps(*ts, steps));
  PetscCall(TSSetMaxTime(*ts, tmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether the options ask for the GPU path (-dm_vec_type cuda...) */
static inline PetscErrorCode SquallTestWantsGPU(PetscBool *wantgpu)
{
  char vt[64] = "";

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dm_vec_type", vt, sizeof(vt), NULL));
  PetscCall(PetscStrbeginswith(vt, "cuda", wantgpu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* in main(): a run that asks for the GPU path exits as skipped (200) where there is no device */
#define SQUALL_TEST_SKIP_GPU_PATH_WITHOUT_GPU()   \
  do {                                            \
    PetscBool wantgpu_ = PETSC_FALSE;             \
    PetscCall(SquallTestWantsGPU(&wantgpu_));     \
    if (wantgpu_) SQUALL_TEST_SKIP_WITHOUT_GPU(); \
  } while (0)

/* the quadrature weight w J of node n of owned element e */
static inline PetscReal SquallTestWJ(SquallDGMesh m, PetscInt e, PetscInt n)
{
  const PetscInt Nq = m->Nq;
  return m->w[n % Nq] * m->w[(n / Nq) % Nq] * m->w[n / (Nq * Nq)] * SQUALL_DG_J(m, e)[n];
}

/* sum over the owned nodes of w J a_f and of w J |a_f| for one field of a global vector */
static inline PetscErrorCode SquallTestFieldSums(SquallESDG s, Vec F, PetscInt field, PetscReal *sum, PetscReal *abssum)
{
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Np = m->Np;
  const PetscScalar *fa;
  PetscReal          loc[2] = {0, 0}, glob[2];

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(F, &fa));
  for (PetscInt e = 0; e < m->nOwned; e++)
    for (PetscInt n = 0; n < Np; n++) {
      const PetscReal wJ = SquallTestWJ(m, e, n), v = PetscRealPart(fa[(m->gslot[e] * 5 + field) * Np + n]);
      loc[0] += wJ * v;
      loc[1] += wJ * PetscAbsReal(v);
    }
  PetscCall(VecRestoreArrayRead(F, &fa));
  PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPIU_REAL, MPIU_SUM, s->comm));
  *sum    = glob[0];
  *abssum = glob[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sum over the owned nodes of |w J v_f F_f| (v the entropy variables of Q): what the entropy rate of F would be
   without cancellation, the scale its round-off is measured against */
static inline PetscErrorCode SquallTestEntropyScale(SquallESDG s, Vec Q, Vec F, PetscReal *scale)
{
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Np = m->Np;
  const PetscScalar *qa, *fa;
  PetscReal          loc = 0;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(Q, &qa));
  PetscCall(VecGetArrayRead(F, &fa));
  for (PetscInt e = 0; e < m->nOwned; e++)
    for (PetscInt n = 0; n < Np; n++) {
      PetscReal q[5], a[SQUALL_NAUX], v[5];
      for (PetscInt f = 0; f < 5; f++) q[f] = PetscRealPart(qa[(m->gslot[e] * 5 + f) * Np + n]);
      (void)SquallEulerAux(&s->gas, q, s->Phi[e * Np + n], a);
      SquallEulerEntropyVariables(&s->gas, a, v);
      for (PetscInt f = 0; f < 5; f++) loc += SquallTestWJ(m, e, n) * PetscAbsReal(v[f] * PetscRealPart(fa[(m->gslot[e] * 5 + f) * Np + n]));
    }
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(VecRestoreArrayRead(F, &fa));
  PetscCallMPI(MPIU_Allreduce(&loc, scale, 1, MPIU_REAL, MPIU_SUM, s->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the entropy-conservation test of an RHS F of Q: with EC surface fluxes dS/dt = sum w J v . F is zero to
   round-off (tol times SquallTestEntropyScale()), with dissipative ones it is not positive; mass and total energy
   are conserved (their rates at round-off of their sums of |w J F_f|). label names the mesh in the printed line. */
static inline PetscErrorCode SquallTestCheckEntropyConservation(SquallESDG s, Vec Q, Vec F, PetscReal tol, const char label[])
{
  PetscReal rate, scale, msum, mabs, esum, eabs;

  PetscFunctionBegin;
  PetscCall(SquallTestEntropyScale(s, Q, F, &scale));
  PetscCall(SquallESDGComputeEntropyRate(s, Q, F, &rate));
  PetscCall(SquallTestFieldSums(s, F, 0, &msum, &mabs));
  PetscCall(SquallTestFieldSums(s, F, 4, &esum, &eabs));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%ssurface flux %s: dS/dt / scale = %.3e, mass rate %.3e, energy rate %.3e (relative)\n", label, SquallSurfaceFluxTypes[s->surface], (double)(rate / scale), (double)(msum / mabs), (double)(esum / eabs)));
  if (s->surface == SQUALL_FLUX_EC)
    PetscCheck(PetscAbsReal(rate) < tol * scale, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "EC entropy rate %g is not at round-off (scale %g)", (double)rate, (double)scale);
  else
    PetscCheck(rate < tol * scale, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s entropy rate %g is positive (scale %g)", SquallSurfaceFluxTypes[s->surface], (double)rate, (double)scale);
  PetscCheck(PetscAbsReal(msum) < tol * mabs, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "mass not conserved: rate %g (scale %g)", (double)msum, (double)mabs);
  PetscCheck(PetscAbsReal(esum) < tol * eabs, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "energy not conserved: rate %g (scale %g)", (double)esum, (double)eabs);
  PetscFunctionReturn(PETSC_SUCCESS);
}
