/* The ESDG right-hand side on the CPU: flux differencing with the two-point EC flux in the volume
   (each unordered node pair evaluated once, the partner's gravity term by rescaling), EC/ES/Rusanov
   fluxes on faces, reflecting walls by the mirror state, Coriolis as a pointwise source.
     J dq_i/dt = - sum_m S_im F(q_i, q_m; {{Ja}}_im) - sum_faces (s_f / w_b) F*(q-, q+; nhat) + J S(q_i),
   with S = 2D - W^-1 B, whose diagonal vanishes. s->rhsParts selects the terms (HEVI's F_H and F_V:
   the directions' volume pairs and faces, the sources) (Gassner, Winters, Kopriva, J. Comput. Phys. 327
   (2016) 39-66; Waruszewski et al., J. Comput. Phys. 468 (2022) 111507). */
#include "ts/esdgimpl.h"

typedef struct {
  PetscInt  count, elem, node;
  PetscReal rho, p;
} BadState;

static void RecordBad(BadState *bad, PetscInt e, PetscInt n, const PetscReal a[])
{
  if (!bad->count++) {
    bad->elem = e;
    bad->node = n;
    bad->rho  = a[SQ_RHO];
    bad->p    = a[SQ_P];
  }
}

/* volume term of one element, accumulated (not yet divided by J) into acc[5][Np] */
static void VolumeElement(SquallESDG s, PetscInt e, const PetscReal *aux, PetscReal *acc)
{
  SquallDGMesh     m  = s->mesh;
  const PetscInt   Nq = m->Nq, Np = m->Np;
  const PetscReal *Ja = SQUALL_DG_JA(m, e), *D = m->D;

  for (PetscInt d = 0; d < 3; d++) {
    const PetscInt stride = d == 0 ? 1 : (d == 1 ? Nq : Nq * Nq);
    if (!((s->rhsParts >> d) & 1)) continue; /* a direction left out of this RHS (HEVI's parts) */
    for (PetscInt line = 0; line < Nq * Nq; line++) {
      const PetscInt t0 = line % Nq, t1 = line / Nq;
      const PetscInt base = d == 0 ? Nq * (t0 + Nq * t1) : (d == 1 ? t0 + Nq * Nq * t1 : t0 + Nq * t1);
      for (PetscInt a = 0; a < Nq; a++) {
        const PetscInt   na = base + a * stride;
        const PetscReal *A  = &aux[na * SQUALL_NAUX];
        for (PetscInt b = a + 1; b < Nq; b++) {
          const PetscInt   nb = base + b * stride;
          const PetscReal *B  = &aux[nb * SQUALL_NAUX];
          PetscReal        nv[3], Fs[5], Ga[3], Gb[3];
          for (PetscInt c = 0; c < 3; c++) nv[c] = m->cartesian ? Ja[(d * 3 + c) * Np + na] : (PetscReal)0.5 * (Ja[(d * 3 + c) * Np + na] + Ja[(d * 3 + c) * Np + nb]);
          SquallEulerECFluxPair(&s->gas, A, B, nv, Fs, Ga, Gb);
          {
            const PetscReal sa = 2 * D[a * Nq + b], sb = 2 * D[b * Nq + a];
            acc[na] -= sa * Fs[0];
            acc[nb] -= sb * Fs[0];
            for (PetscInt c = 0; c < 3; c++) {
              acc[(1 + c) * Np + na] -= sa * (Fs[1 + c] + Ga[c]);
              acc[(1 + c) * Np + nb] -= sb * (Fs[1 + c] + Gb[c]);
            }
            acc[4 * Np + na] -= sa * Fs[4];
            acc[4 * Np + nb] -= sb * Fs[4];
          }
        }
      }
    }
  }
}

static void GatherState(const PetscScalar *qe, PetscInt Np, PetscInt n, PetscReal q[5])
{
  for (PetscInt f = 0; f < 5; f++) q[f] = PetscRealPart(qe[f * Np + n]);
}

/* In perturbation form with departures (s->gas.departures): the TS state X and the reference, owned
   and ghost values, for SquallEulerDepartures() */
typedef struct {
  const PetscScalar *x, *xloc, *r, *rloc;
} Departures;

/* the departures of node n of the element in slot (owned: global vector, ghost: face values) */
static void NodeDepartures(SquallESDG s, const Departures *dep, PetscBool ghost, PetscInt slot, PetscInt n, PetscReal Phi, PetscReal aux[])
{
  PetscReal x[5], qr[5];

  GatherState(&(ghost ? dep->xloc : dep->x)[slot * 5 * s->mesh->Np], s->mesh->Np, n, x);
  GatherState(&(ghost ? dep->rloc : dep->r)[slot * 5 * s->mesh->Np], s->mesh->Np, n, qr);
  SquallEulerDepartures(&s->gas, x, qr, Phi, aux);
}

/* surface terms of one element's six faces, accumulated into acc[5][Np] */
static void SurfaceElement(SquallESDG s, PetscInt e, const PetscScalar *qa, const PetscScalar *qloc, const Departures *dep, PetscReal *acc, BadState *bad)
{
  SquallDGMesh     m  = s->mesh;
  const PetscInt   Np = m->Np, Nfp = m->Nfp;
  const PetscReal *Ja = SQUALL_DG_JA(m, e), wb = m->w[0];

  for (PetscInt f = 0; f < 6; f++) {
    const PetscInt  d = f / 2, nb = m->nbr[6 * e + f];
    const PetscReal sign = (f % 2) ? 1 : -1;
    if (!((s->rhsParts >> d) & 1)) continue; /* the faces normal to a direction left out */
    for (PetscInt k = 0; k < Nfp; k++) {
      const PetscInt n = m->fmask[f * Nfp + k];
      PetscReal      nout[3], sf, nhat[3], qm[5], qp[5], am[SQUALL_NAUX], ap[SQUALL_NAUX], F[5], Phip;
      for (PetscInt c = 0; c < 3; c++) nout[c] = sign * Ja[(d * 3 + c) * Np + n];
      sf = PetscSqrtReal(nout[0] * nout[0] + nout[1] * nout[1] + nout[2] * nout[2]);
      for (PetscInt c = 0; c < 3; c++) nhat[c] = nout[c] / sf;
      GatherState(&qa[m->gslot[e] * 5 * Np], Np, n, qm);
      if (SquallEulerAuxFace(&s->gas, qm, s->Phi[e * Np + n], am)) RecordBad(bad, e, n, am);
      if (dep) NodeDepartures(s, dep, PETSC_FALSE, m->gslot[e], n, s->Phi[e * Np + n], am);
      if (nb >= 0) {
        /* an owned partner from the global vector, a ghost from the face values the exchange brought */
        const PetscInt p = m->vmapP[(e * 6 + f) * Nfp + k], ps = p / Np, pn = p % Np;
        GatherState(nb < m->nOwned ? &qa[m->gslot[nb] * 5 * Np] : &qloc[ps * 5 * Np], Np, pn, qp);
        Phip = s->Phi[nb * Np + pn];
      } else {
        SquallEulerMirrorState(qm, nhat, qp);
        Phip = s->Phi[e * Np + n];
      }
      if (SquallEulerAuxFace(&s->gas, qp, Phip, ap)) RecordBad(bad, nb >= 0 ? nb : e, n, ap);
      if (dep && nb >= 0) {
        const PetscInt p = m->vmapP[(e * 6 + f) * Nfp + k];
        NodeDepartures(s, dep, nb >= m->nOwned ? PETSC_TRUE : PETSC_FALSE, nb < m->nOwned ? m->gslot[nb] : p / Np, p % Np, Phip, ap);
      } else if (dep) {
        /* the mirror state's departures are those of the node: mirroring keeps rho and p */
        ap[SQ_DRHO] = am[SQ_DRHO];
        ap[SQ_DB]   = am[SQ_DB];
        ap[SQ_DLR]  = am[SQ_DLR];
        ap[SQ_DLB]  = am[SQ_DLB];
      }
      SquallEulerSurfaceFlux(&s->gas, s->surface, qm, am, qp, ap, nhat, F);
      for (PetscInt c = 0; c < 5; c++) acc[c * Np + n] -= sf / wb * F[c];
    }
  }
}

static PetscErrorCode ReportBadState(SquallESDG s, BadState *bad)
{
  PetscInt gcount;

  PetscFunctionBegin;
  PetscCallMPI(MPIU_Allreduce(&bad->count, &gcount, 1, MPIU_INT, MPI_SUM, s->comm));
  if (gcount) {
    if (bad->count) {
      const PetscReal *X  = SQUALL_DG_X(s->mesh, bad->elem);
      const PetscInt   Np = s->mesh->Np, n = bad->node;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "squall ESDG: unphysical state at (%g, %g, %g): density %g, pressure %g (%" PetscInt_FMT " bad node values on this rank)\n", (double)X[n], (double)X[Np + n], (double)X[2 * Np + n], (double)bad->rho,
                            (double)bad->p, bad->count));
    }
    PetscCheck(s->domainSoft, s->comm, PETSC_ERR_FP, "Unphysical state (density or pressure <= 0) at %" PetscInt_FMT " node values; see the message above for where", gcount);
    s->domainBad = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X: in perturbation form with departures, the TS state (Q = Qref + X), else NULL */
PetscErrorCode SquallESDGComputeRHS_CPU(SquallESDG s, PetscReal t, Vec Q, Vec X, Vec F)
{
  Departures         d = {NULL, NULL, NULL, NULL}, *dep = NULL;
  PetscScalar       *xl = NULL;
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Np = m->Np;
  const PetscScalar *qa;
  PetscScalar       *fa, *ql;
  PetscReal         *aux = s->work, *acc = s->work + SQUALL_NAUX * Np;
  BadState           bad = {0, 0, 0, 0, 0};

  PetscFunctionBegin;
  PetscCheck(!X || (s->gas.departures && s->Qref && s->QrefLoc && s->Xloc), s->comm, PETSC_ERR_PLIB, "Departures requested without their reference state");
  PetscCall(VecGetArrayRead(Q, &qa));
  PetscCall(VecGetArray(s->Qloc, &ql));
  PetscCall(SquallESDGGhostBegin(s, PETSC_MEMTYPE_HOST, qa, ql));
  if (X) {
    dep = &d;
    PetscCall(VecGetArrayRead(X, &d.x));
    PetscCall(VecGetArrayRead(s->Qref, &d.r));
    PetscCall(VecGetArrayRead(s->QrefLoc, &d.rloc));
    PetscCall(VecGetArray(s->Xloc, &xl));
    PetscCall(SquallESDGGhostBegin(s, PETSC_MEMTYPE_HOST, d.x, xl)); /* hidden by the volume terms too */
    d.xloc = xl;
  }
  /* volume terms need only owned data: they hide the ghost exchange */
  PetscCall(PetscLogEventBegin(SQUALL_ESDGVolume, 0, 0, 0, 0));
  PetscCall(VecGetArrayWrite(F, &fa));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscScalar *qe = &qa[m->gslot[e] * 5 * Np];
    PetscScalar       *fe = &fa[m->gslot[e] * 5 * Np];
    for (PetscInt n = 0; n < Np; n++) {
      PetscReal q[5];
      GatherState(qe, Np, n, q);
      if (SquallEulerAux(&s->gas, q, s->Phi[e * Np + n], &aux[n * SQUALL_NAUX])) RecordBad(&bad, e, n, &aux[n * SQUALL_NAUX]);
      if (dep) NodeDepartures(s, dep, PETSC_FALSE, m->gslot[e], n, s->Phi[e * Np + n], &aux[n * SQUALL_NAUX]);
    }
    PetscCall(PetscArrayzero(acc, 5 * Np));
    VolumeElement(s, e, aux, acc);
    for (PetscInt i = 0; i < 5 * Np; i++) fe[i] = acc[i];
  }
  PetscCall(PetscLogFlops((((s->rhsParts >> 0) & 1) + ((s->rhsParts >> 1) & 1) + ((s->rhsParts >> 2) & 1)) * m->nOwned * Np * m->N / 2.0 * 110)); /* per direction formed */
  PetscCall(PetscLogEventEnd(SQUALL_ESDGVolume, 0, 0, 0, 0));
  PetscCall(SquallESDGGhostEnd(s, qa, ql));
  if (X) PetscCall(SquallESDGGhostEnd(s, d.x, xl));

  PetscCall(PetscLogEventBegin(SQUALL_ESDGSurface, 0, 0, 0, 0));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    PetscScalar     *fe = &fa[m->gslot[e] * 5 * Np];
    const PetscReal *J  = SQUALL_DG_J(m, e);
    PetscCall(PetscArrayzero(acc, 5 * Np));
    SurfaceElement(s, e, qa, ql, dep, acc, &bad);
    for (PetscInt c = 0; c < 5; c++)
      for (PetscInt n = 0; n < Np; n++) fe[c * Np + n] = (PetscRealPart(fe[c * Np + n]) + acc[c * Np + n]) / J[n];
  }
  PetscCall(VecRestoreArray(s->Qloc, &ql));
  if (X) {
    PetscCall(VecRestoreArray(s->Xloc, &xl));
    PetscCall(VecRestoreArrayRead(s->QrefLoc, &d.rloc));
    PetscCall(VecRestoreArrayRead(s->Qref, &d.r));
    PetscCall(VecRestoreArrayRead(X, &d.x));
  }
  PetscCall(PetscLogEventEnd(SQUALL_ESDGSurface, 0, 0, 0, 0));

  if (s->coriolis != SQUALL_CORIOLIS_NONE && (s->rhsParts & SQUALL_ESDG_SOURCES)) {
    /* -f k x (rho u): entropy neutral, added pointwise */
    PetscCall(PetscLogEventBegin(SQUALL_ESDGSource, 0, 0, 0, 0));
    for (PetscInt e = 0; e < m->nOwned; e++) {
      const PetscScalar *qe = &qa[m->gslot[e] * 5 * Np];
      PetscScalar       *fe = &fa[m->gslot[e] * 5 * Np];
      const PetscReal   *X  = SQUALL_DG_X(m, e);
      for (PetscInt n = 0; n < Np; n++) {
        const PetscReal fc = s->f0 + s->beta0 * (X[Np + n] - s->y0);
        fe[1 * Np + n] += fc * qe[2 * Np + n];
        fe[2 * Np + n] -= fc * qe[1 * Np + n];
      }
    }
    PetscCall(PetscLogFlops(6.0 * m->nOwned * Np));
    PetscCall(PetscLogEventEnd(SQUALL_ESDGSource, 0, 0, 0, 0));
  }
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(VecRestoreArrayWrite(F, &fa));
  PetscCall(ReportBadState(s, &bad));
  (void)t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops per pair evaluation, counted from euler.h: every add, multiply and the one division of
   SquallEulerECMeansPair (58, both log-mean branches, an FMA counted as 2; 54 with the scaled pair values
   of the GPU half sweep, gas->scaled) and of the contraction with the gravity terms: 24 for a general
   metric (SquallEulerECContract, G = g n), 12 along an axis (SquallEulerECContractAxis, on boxes); per
   accumulation into a node 5 FMAs and the adds of G: 13 or 11. With departures
   (perturbation form) the means take 15 more: sbr and p_mom, and sbr joining the product that is
   inverted. The GPU half sweep on boxes leaves out the gravity terms of the x and y pairs (Phi is constant
   along those lines): 9 flops fewer there (5 in the means, 2 in the contraction, 1 per accumulation). The GPU runs
   its box kernels only where Phi is indeed constant over each k-plane (ESDG.boxPhiZ), the general ones elsewhere. */
#define SQ_FLOPS_MEANS 58.0
#define SQ_FLOPS_SCALED 4.0
#define SQ_FLOPS_DEP 15.0
#define SQ_FLOPS_GRAV_AXIS 9.0

PetscErrorCode SquallESDGVolumeFlops(SquallESDG s, PetscLogDouble *flops)
{
  SquallDGMesh         m     = s->mesh;
  const PetscLogDouble pairs = (PetscLogDouble)m->Nfp * m->Nq * (m->Nq - 1) / 2.0 * m->nOwned; /* per direction */
  const PetscBool      box   = (PetscBool)(s->boxPhiZ && s->useGPU);                           /* boxPhiZ: Cartesian, and Phi = g z */

  PetscFunctionBegin;
  /* the useful work: each unordered pair once, accumulated into both of its nodes, for the directions
     this RHS forms (HEVI's parts: s->rhsParts) */
  *flops = 0;
  for (PetscInt d = 0; d < 3; d++) {
    if (!((s->rhsParts >> d) & 1)) continue;
    *flops += pairs * ((s->gas.departures ? SQ_FLOPS_DEP : 0) - (s->useGPU ? SQ_FLOPS_SCALED : 0) - (box && d < 2 ? SQ_FLOPS_GRAV_AXIS : 0) +
                       (box ? SQ_FLOPS_MEANS + 12 + 2 * 11 : SQ_FLOPS_MEANS + 24 + 2 * 13)); /* the C reference contracts with the general metric */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the Rayleigh sponge's coefficient at every owned node, once (the RHS reads it like Phi) */
PetscErrorCode SquallESDGSpongeSetUp(SquallESDG s)
{
  SquallDGMesh   m  = s->mesh;
  const PetscInt Np = m->Np;

  PetscFunctionBegin;
  s->nSponge = 0;
  if (s->sponge.rate == 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 0; d < 2; d++) {
    s->sponge.lo[d] = m->lo[d];
    s->sponge.hi[d] = m->hi[d];
  }
  s->sponge.ztop = m->hi[2];
  PetscCall(PetscMalloc1((size_t)m->nOwned * Np, &s->tau));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const PetscReal *X = SQUALL_DG_X(m, e);
    for (PetscInt n = 0; n < Np; n++) {
      /* on the shell the height above the inner sphere (no lateral layers there) */
      s->tau[e * Np + n] = SquallSpongeCoefficient(&s->sponge, X[n], X[Np + n], m->shell ? m->zh[(size_t)e * Np + n] : X[2 * Np + n]);
      if (s->tau[e * Np + n] > 0) s->nSponge++;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a sponge needs the state it damps towards */
PetscErrorCode SquallESDGSpongeCheck(SquallESDG s)
{
  PetscFunctionBegin;
  PetscCheck(!s->tau || s->Qsponge || s->spongeHold, s->comm, PETSC_ERR_ARG_WRONGSTATE,
             "-%ssponge_rate %g needs a background state to damp towards: SquallESDGSetInitialCondition() with a case that has one (bubble, baroclinic, isothermal, schaer) or SquallESDGSetSpongeState()", s->prefix, (double)s->sponge.rate);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* F -= tau (Q - Qsponge) at the nodes inside the layers; Q the full state */
PetscErrorCode SquallESDGAddSponge_CPU(SquallESDG s, Vec Q, Vec F)
{
  SquallDGMesh       m  = s->mesh;
  const PetscInt     Np = m->Np;
  const PetscScalar *qa, *ra;
  PetscScalar       *fa;

  PetscFunctionBegin;
  if (!s->tau || !s->Qsponge || s->spongeHold) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(SQUALL_ESDGSource, 0, 0, 0, 0));
  PetscCall(VecGetArrayRead(Q, &qa));
  PetscCall(VecGetArrayRead(s->Qsponge, &ra));
  PetscCall(VecGetArray(F, &fa));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    const size_t o = (size_t)m->gslot[e] * 5 * Np;
    for (PetscInt n = 0; n < Np; n++) {
      const PetscReal tau = s->tau[e * Np + n];
      if (tau == 0) continue;
      for (PetscInt c = 0; c < 5; c++) fa[o + c * Np + n] -= tau * (qa[o + c * Np + n] - ra[o + c * Np + n]);
    }
  }
  PetscCall(VecRestoreArray(F, &fa));
  PetscCall(VecRestoreArrayRead(s->Qsponge, &ra));
  PetscCall(VecRestoreArrayRead(Q, &qa));
  PetscCall(PetscLogFlops(15.0 * s->nSponge));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGSource, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
