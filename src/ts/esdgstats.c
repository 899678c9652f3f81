/* Diagnostics of an ESDG state: conserved integrals, entropy and its rate, extrema, admissibility,
   and the CFL time step. All integrals use the LGL quadrature the scheme is built on. */
#include "ts/esdgimpl.h"

/* Neumaier's compensated sum in double: s + c is the sum to about double precision whatever the
   number of terms (32 M nodes at N = 4, L = 6), so a single-precision run's conservation drift is
   that of the scheme, not of the diagnostic */
typedef struct {
  double s, c;
} SumAcc;

static inline void SumAdd(SumAcc *a, double x)
{
  const double t = a->s + x;
  a->c += PetscAbs(a->s) >= PetscAbs(x) ? (a->s - t) + x : (x - t) + a->s;
  a->s = t;
}

PetscErrorCode SquallESDGComputeStats(SquallESDG s, Vec X, SquallESDGStats *st)
{
  Vec                Q;
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Nq = m->Nq, Np = m->Np;
  const PetscScalar *qa;
  SumAcc             acc[3] = {{0, 0}, {0, 0}, {0, 0}};
  double             loc[3], glob[3];
  PetscReal          ext[4] = {0, -PETSC_MAX_REAL, -PETSC_MAX_REAL, -PETSC_MAX_REAL}, gext[4];

  PetscFunctionBegin;
  PetscCall(SquallESDGSetUp(s));
  PetscCall(SquallESDGGetFullState(s, X, &Q));
  PetscCall(VecGetArrayRead(Q, &qa));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscScalar *qe     = &qa[m->gslot[e] * 5 * Np];
    const PetscReal   *J      = SQUALL_DG_J(m, e);
    const PetscBool    ground = (PetscBool)(m->nbr[6 * e + 4] < 0); /* face 4: k = 0 */
    for (PetscInt n = 0; n < Np; n++) {
      const PetscInt  i = n % Nq, j = (n / Nq) % Nq, k = n / (Nq * Nq);
      const PetscReal wJ = m->w[i] * m->w[j] * m->w[k] * J[n];
      PetscReal       q[5], a[SQUALL_NAUX];
      for (PetscInt f = 0; f < 5; f++) q[f] = PetscRealPart(qe[f * Np + n]);
      (void)SquallEulerAux(&s->gas, q, s->Phi[e * Np + n], a);
      SumAdd(&acc[0], (double)wJ * q[0]);
      SumAdd(&acc[1], (double)wJ * q[4]);
      if (a[SQ_RHO] > 0 && a[SQ_P] > 0) SumAdd(&acc[2], (double)wJ * SquallEulerEntropy(&s->gas, a));
      ext[0] = PetscMax(ext[0], PetscAbsReal(a[SQ_W]));
      ext[1] = PetscMax(ext[1], -a[SQ_RHO]);
      ext[2] = PetscMax(ext[2], -a[SQ_P]);
      if (ground && k == 0) ext[3] = PetscMax(ext[3], -a[SQ_P]);
    }
  }
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(SquallESDGRestoreFullState(s, X, &Q));
  for (PetscInt f = 0; f < 3; f++) loc[f] = acc[f].s + acc[f].c;
  PetscCallMPI(MPIU_Allreduce(loc, glob, 3, MPI_DOUBLE, MPI_SUM, s->comm));
  PetscCallMPI(MPIU_Allreduce(ext, gext, 4, MPIU_REAL, MPIU_MAX, s->comm));
  st->mass    = glob[0];
  st->energy  = glob[1];
  st->entropy = glob[2];
  st->maxw    = gext[0];
  st->minrho  = -gext[1];
  st->minp    = -gext[2];
  st->minps   = -gext[3];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGComputeEntropyRate - dS/dt = sum over nodes of w J v(q) . F, the semi-discrete entropy
  production of the right-hand side F at state Q (zero for EC fluxes, <= 0 for ES and Rusanov).
@*/
PetscErrorCode SquallESDGComputeEntropyRate(SquallESDG s, Vec X, Vec F, PetscReal *rate)
{
  Vec                Q;
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Nq = m->Nq, Np = m->Np;
  const PetscScalar *qa, *fa;
  SumAcc             acc = {0, 0};
  double             loc, glob;

  PetscFunctionBegin;
  PetscCall(SquallESDGGetFullState(s, X, &Q));
  PetscCall(VecGetArrayRead(Q, &qa));
  PetscCall(VecGetArrayRead(F, &fa));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscScalar *qe = &qa[m->gslot[e] * 5 * Np], *fe = &fa[m->gslot[e] * 5 * Np];
    const PetscReal   *J = SQUALL_DG_J(m, e);
    for (PetscInt n = 0; n < Np; n++) {
      const PetscInt  i = n % Nq, j = (n / Nq) % Nq, k = n / (Nq * Nq);
      const PetscReal wJ = m->w[i] * m->w[j] * m->w[k] * J[n];
      PetscReal       q[5], a[SQUALL_NAUX], v[5];
      for (PetscInt f = 0; f < 5; f++) q[f] = PetscRealPart(qe[f * Np + n]);
      (void)SquallEulerAux(&s->gas, q, s->Phi[e * Np + n], a);
      SquallEulerEntropyVariables(&s->gas, a, v);
      for (PetscInt f = 0; f < 5; f++) SumAdd(&acc, (double)(wJ * v[f]) * PetscRealPart(fe[f * Np + n]));
    }
  }
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(VecRestoreArrayRead(F, &fa));
  PetscCall(SquallESDGRestoreFullState(s, X, &Q));
  loc = acc.s + acc.c;
  PetscCallMPI(MPIU_Allreduce(&loc, &glob, 1, MPI_DOUBLE, MPI_SUM, s->comm));
  *rate = (PetscReal)glob;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGComputeTimeStep - dt = cfl * dr_min / max over nodes of sum_d (|u . Ja^d| + c |Ja^d|) / J,
  with dr_min the smallest LGL node spacing on [-1, 1].
@*/
PetscErrorCode SquallESDGComputeTimeStep(SquallESDG s, Vec X, PetscReal cfl, PetscReal *dt)
{
  Vec                Q;
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Np = m->Np;
  const PetscScalar *qa;
  PetscReal          lmax = 0, glmax;

  PetscFunctionBegin;
  if (s->useGPU) {
    PetscInt nbad;
    /* a reduction on the device: the state stays there (its kernel adds the reference itself) */
    PetscCall(SquallESDGNodeReduceGPU(s, X, &lmax, &nbad));
  } else {
    PetscCall(SquallESDGGetFullState(s, X, &Q));
    PetscCall(VecGetArrayRead(Q, &qa));
    for (PetscInt e = 0; e < m->nOwned; e++) {
      const PetscScalar *qe = &qa[m->gslot[e] * 5 * Np];
      const PetscReal   *J = SQUALL_DG_J(m, e), *Ja = SQUALL_DG_JA(m, e);
      for (PetscInt n = 0; n < Np; n++) {
        PetscReal q[5], a[SQUALL_NAUX], lam = 0;
        for (PetscInt f = 0; f < 5; f++) q[f] = PetscRealPart(qe[f * Np + n]);
        (void)SquallEulerAux(&s->gas, q, s->Phi[e * Np + n], a);
        for (PetscInt d = 0; d < 3; d++) {
          const PetscReal nv[3] = {Ja[(d * 3) * Np + n], Ja[(d * 3 + 1) * Np + n], Ja[(d * 3 + 2) * Np + n]};
          lam += SquallEulerMaxWaveSpeed(&s->gas, a, nv);
        }
        lmax = PetscMax(lmax, lam / J[n]);
      }
    }
    PetscCall(VecRestoreArrayRead(Q, &qa));
    PetscCall(SquallESDGRestoreFullState(s, X, &Q));
  }
  PetscCallMPI(MPIU_Allreduce(&lmax, &glmax, 1, MPIU_REAL, MPIU_MAX, s->comm));
  PetscCheck(glmax > 0, s->comm, PETSC_ERR_ARG_WRONG, "Maximum wave speed is zero: cannot form a CFL time step");
  *dt = cfl * (m->r[1] - m->r[0]) / glmax;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallESDGCheckState - ok is false if any node has density or pressure <= 0 (or not finite); the
  first such node is reported with its position.
@*/
PetscErrorCode SquallESDGCheckState(SquallESDG s, Vec X, PetscBool *ok)
{
  Vec                Q;
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Np = m->Np;
  const PetscScalar *qa;
  PetscInt           bad = 0, gbad;

  PetscFunctionBegin;
  if (s->useGPU) {
    /* the state a fused LSRK stage just wrote comes with that stage's verdict (every rank must have it,
       else all count); else count on the device (the admissibility alone, no wave speeds); only a
       failing state comes to the host, to say where */
    PetscBool known, kbad;
    PetscInt  v[2], g[2];
    PetscCall(SquallESDGStageVerdictGPU(s, X, &known, &kbad));
    v[0] = known ? 0 : 1;
    v[1] = known && kbad ? 1 : 0;
    PetscCallMPI(MPIU_Allreduce(v, g, 2, MPIU_INT, MPI_MAX, s->comm));
    if (g[0]) {
      PetscCall(SquallESDGNodeReduceGPU(s, X, NULL, &bad));
      PetscCallMPI(MPIU_Allreduce(&bad, &gbad, 1, MPIU_INT, MPI_SUM, s->comm));
    } else
      gbad = g[1];
    if (!gbad) {
      *ok = PETSC_TRUE;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    bad = 0;
  }
  PetscCall(SquallESDGGetFullState(s, X, &Q));
  PetscCall(VecGetArrayRead(Q, &qa));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscScalar *qe = &qa[m->gslot[e] * 5 * Np];
    for (PetscInt n = 0; n < Np; n++) {
      PetscReal q[5], a[SQUALL_NAUX];
      for (PetscInt f = 0; f < 5; f++) q[f] = PetscRealPart(qe[f * Np + n]);
      if (SquallEulerAux(&s->gas, q, s->Phi[e * Np + n], a)) {
        if (!bad++) {
          const PetscReal *X = SQUALL_DG_X(m, e);
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "squall ESDG: unphysical state at (%g, %g, %g): density %g, pressure %g; rejecting the stage\n", (double)X[n], (double)X[Np + n], (double)X[2 * Np + n], (double)a[SQ_RHO], (double)a[SQ_P]));
        }
      }
    }
  }
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(SquallESDGRestoreFullState(s, X, &Q));
  PetscCallMPI(MPIU_Allreduce(&bad, &gbad, 1, MPIU_INT, MPI_SUM, s->comm));
  *ok = gbad ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
