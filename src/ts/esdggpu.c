/* The ESDG right-hand side on the GPU, host side: the device copy of the mesh (the face lists, the
   partner maps and the face geometry the kernels of src/cuda/esdgkernels.h read), and the order of the
   kernels around the ghost exchange. Used when the DM's vectors are device vectors. */
#include "ts/esdgimpl.h"

/* tangential index of element node n on face f, the inverse of the kernels' FaceNode */
static PetscInt FaceIndex(PetscInt Nq, PetscInt f, PetscInt n)
{
  const PetscInt d = f / 2, idx[3] = {n % Nq, (n / Nq) % Nq, n / (Nq * Nq)}, t0 = d == 0 ? 1 : 0, t1 = d == 2 ? 1 : 2;
  return idx[t0] + Nq * idx[t1];
}

/* The faces this rank computes and, for each computed face node with an owned partner, the partner's
   face-node slot (through the mesh's partner face and node map, so the brick and the shell alike). A face shared by two owned elements is computed by the side with the smaller e*6+f; one with a
   ghost partner by the owned side (the ghost's owner computes its own side); a wall by its element. */
static PetscErrorCode ESDGGPUBuildFaces(SquallESDG s, PetscInt *faces, PetscInt *nEarly, PetscInt *nGhost, PetscInt *plus)
{
  SquallDGMesh   m  = s->mesh;
  const PetscInt Np = m->Np, Nfp = m->Nfp, Nq = m->Nq, E = m->nOwned;
  PetscInt       ne = 0, ng = 0;

  PetscFunctionBegin;
  for (PetscInt f = 0; f < 6; f++)
    for (PetscInt q = 0; q < Nfp; q++) PetscCheck(FaceIndex(Nq, f, m->fmask[f * Nfp + q]) == q, s->comm, PETSC_ERR_PLIB, "Face node numbering of the mesh and of the GPU kernels differ");
  for (size_t k = 0; k < (size_t)E * 6 * Nfp; k++) plus[k] = -1;
  /* ghost-free faces first, then those with a ghost partner */
  for (PetscInt pass = 0; pass < 2; pass++) {
    for (PetscInt e = 0; e < E; e++)
      for (PetscInt f = 0; f < 6; f++) {
        const PetscInt nb = m->nbr[6 * e + f], fp = m->nbrFace[6 * e + f];
        if ((nb >= E) != (pass == 1)) continue;
        if (nb >= 0 && nb < E) {
          if (e * 6 + f > nb * 6 + fp) continue; /* the partner computes it */
          PetscCheck(m->nbr[6 * nb + fp] == e, s->comm, PETSC_ERR_PLIB, "Element %" PetscInt_FMT " face %" PetscInt_FMT ": the neighbour's opposite face does not point back", e, f);
          for (PetscInt q = 0; q < Nfp; q++) {
            const PetscInt p = m->vmapP[(e * 6 + f) * Nfp + q], qp = FaceIndex(Nq, fp, p % Np);
            PetscCheck(m->vmapP[(nb * 6 + fp) * Nfp + qp] == m->slot[e] * Np + m->fmask[f * Nfp + q], s->comm, PETSC_ERR_PLIB, "Face node maps of elements %" PetscInt_FMT " and %" PetscInt_FMT " are not each other's inverse", e, nb);
            plus[(e * 6 + f) * Nfp + q] = (nb * 6 + fp) * Nfp + qp;
          }
        }
        faces[ne + ng] = e * 6 + f;
        if (pass == 0)
          ne++;
        else
          ng++;
      }
  }
  *nEarly = ne;
  *nGhost = ng;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* each face node's partner code and Phi, and the elements without a ghost neighbour, then the others */
static PetscErrorCode ESDGGPUBuildElements(SquallESDG s, PetscInt *vmap, PetscReal *phip, PetscInt *elist, PetscInt *nInterior, PetscInt *nHalo)
{
  SquallDGMesh   m  = s->mesh;
  const PetscInt Np = m->Np, Nfp = m->Nfp, E = m->nOwned;
  PetscInt       ni = 0, nh = 0;

  PetscFunctionBegin;
  for (PetscInt e = 0; e < E; e++) {
    PetscBool halo = PETSC_FALSE;
    for (PetscInt f = 0; f < 6; f++) {
      const PetscInt nb = m->nbr[6 * e + f];
      if (nb >= E) halo = PETSC_TRUE;
      for (PetscInt q = 0; q < Nfp; q++) {
        const size_t   k = ((size_t)e * 6 + f) * Nfp + q;
        const PetscInt p = m->vmapP[k];
        if (nb < 0) {
          vmap[k] = SQUALL_ESDG_BOUNDARY;
          phip[k] = s->Phi[e * Np + m->fmask[f * Nfp + q]];
        } else {
          vmap[k] = nb < E ? m->gslot[nb] * Np + p % Np : -(p + 1);
          phip[k] = s->Phi[nb * Np + p % Np];
        }
      }
    }
    if (!halo) elist[ni++] = e;
  }
  for (PetscInt e = 0; e < E; e++) {
    PetscBool halo = PETSC_FALSE;
    for (PetscInt f = 0; f < 6; f++)
      if (m->nbr[6 * e + f] >= E) halo = PETSC_TRUE;
    if (halo) elist[ni + nh++] = e;
  }
  *nInterior = ni;
  *nHalo     = nh;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* outward unit normal and s_f of every element face node, with the reference's operations (fg, [4][S]),
   and where every face's nodes have the same values bit for bit (a box element's metric is constant)
   the same per element face (*fgf, [4][6 nOwned], else NULL): the face kernel then reads one set per face */
static PetscErrorCode ESDGGPUFaceGeometry(SquallESDG s, PetscReal *fg, PetscReal **fgf)
{
  SquallDGMesh   m  = s->mesh;
  const PetscInt Np = m->Np, Nfp = m->Nfp, E = m->nOwned;
  const size_t   S = (size_t)E * 6 * Nfp, EF = (size_t)E * 6;
  PetscBool      same = PETSC_TRUE;

  PetscFunctionBegin;
  for (PetscInt e = 0; e < E; e++)
    for (PetscInt f = 0; f < 6; f++) {
      const PetscReal *Ja = SQUALL_DG_JA(m, e), sign = (f % 2) ? 1 : -1;
      const PetscInt   d = f / 2;
      for (PetscInt q = 0; q < Nfp; q++) {
        const PetscInt n = m->fmask[f * Nfp + q];
        const size_t   k = ((size_t)e * 6 + f) * Nfp + q;
        PetscReal      nout[3], sf;
        for (PetscInt c = 0; c < 3; c++) nout[c] = sign * Ja[(d * 3 + c) * Np + n];
        sf = PetscSqrtReal(nout[0] * nout[0] + nout[1] * nout[1] + nout[2] * nout[2]);
        for (PetscInt c = 0; c < 3; c++) fg[c * S + k] = nout[c] / sf;
        fg[3 * S + k] = sf;
      }
    }
  for (size_t ef = 0; ef < EF && same; ef++)
    for (PetscInt q = 1; q < Nfp && same; q++)
      for (PetscInt c4 = 0; c4 < 4; c4++) same = (PetscBool)(same && fg[c4 * S + ef * Nfp + q] == fg[c4 * S + ef * Nfp]);
  *fgf = NULL;
  if (same && EF) {
    PetscCall(PetscMalloc1(4 * EF, fgf));
    for (size_t ef = 0; ef < EF; ef++)
      for (PetscInt c4 = 0; c4 < 4; c4++) (*fgf)[c4 * EF + ef] = fg[c4 * S + ef * Nfp];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGSetUpGPU(SquallESDG s)
{
  SquallDGMesh           m  = s->mesh;
  const PetscInt         Np = m->Np, E = m->nOwned;
  const size_t           S = (size_t)E * 6 * m->Nfp;
  SquallESDGKernelsSetup in;
  PetscInt              *vmap, *elist, *faces, *plus;
  PetscReal             *phip, *fg, *fgf = NULL, *fcor = NULL;

  PetscFunctionBegin;
  PetscCheck(m->N >= 1 && m->N <= 8, s->comm, PETSC_ERR_SUP, "-%sorder %" PetscInt_FMT " has no GPU kernel (1 to 8)", s->prefix, m->N);
  if (m->cartesian) /* the box kernels contract along the axis */
    for (size_t k = 0; k < (size_t)E * 9 * Np; k++) {
      const PetscInt dc = (PetscInt)((k / Np) % 9);
      PetscCheck(dc / 3 == dc % 3 || m->Ja[k] == 0, s->comm, PETSC_ERR_PLIB, "Cartesian element %" PetscInt_FMT " has an off-axis metric component: the box kernels assume Ja^d = |Ja^d| e_d", (PetscInt)(k / (9 * (size_t)Np)));
    }
  if (m->cartesian && !s->boxPhiZ) PetscCall(PetscInfo(NULL, "Phi varies along x or y within a box element: the general volume kernels run\n"));
  PetscCall(PetscMalloc6(S, &vmap, S, &phip, PetscMax(E, 1), &elist, PetscMax(6 * E, 1), &faces, S, &plus, PetscMax(4 * S, (size_t)1), &fg));
  PetscCall(PetscMemzero(&in, sizeof(in)));
  PetscCall(ESDGGPUBuildElements(s, vmap, phip, elist, &in.nInterior, &in.nHalo));
  PetscCall(ESDGGPUBuildFaces(s, faces, &in.nFacesEarly, &in.nFacesGhost, plus));
  PetscCall(ESDGGPUFaceGeometry(s, fg, &fgf));
  if (s->coriolis != SQUALL_CORIOLIS_NONE) {
    PetscCall(PetscMalloc1((size_t)E * Np, &fcor));
    for (PetscInt e = 0; e < E; e++)
      for (PetscInt n = 0; n < Np; n++) fcor[e * Np + n] = s->f0 + s->beta0 * (SQUALL_DG_X(m, e)[Np + n] - s->y0);
  }
  in.N             = m->N;
  in.nOwned        = E;
  in.gslot         = m->gslot;
  in.elist         = elist;
  in.faces         = faces;
  in.vmapP         = vmap;
  in.plus          = plus;
  in.PhiP          = phip;
  in.Phi           = s->Phi;
  in.J             = m->J;
  in.Ja            = m->Ja;
  in.D             = m->D;
  in.FG            = fg;
  in.FGF           = fgf;
  in.fcor          = fcor;
  in.tau           = s->tau;
  in.wb            = m->w[0];
  in.box           = s->boxPhiZ;
  in.prefetchWaves = s->gpuPrefetchWaves;
  PetscCall(SquallESDGKernelsCreate(s->comm, &in, &s->gpu));
  s->gpuFacesEarly = in.nFacesEarly;
  s->gpuFacesGhost = in.nFacesGhost;
  s->gpuInterior   = in.nInterior;
  s->gpuHalo       = in.nHalo;
  PetscCall(PetscFree(fcor));
  PetscCall(PetscFree(fgf));
  PetscCall(PetscFree6(vmap, phip, elist, faces, plus, fg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the kernels' view of the solver: in perturbation form the reference state's device arrays, for an RHS
   (rhs) also the reference residual's */
static PetscErrorCode ESDGGPUGetArgs(SquallESDG s, PetscBool rhs, SquallESDGKernelArgs *a)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(a, sizeof(*a)));
  a->gas     = s->gas;
  a->surface = s->surface;
  a->refCont = s->refCont;
  a->parts   = s->rhsParts;
  if (s->perturb) {
    PetscCheck(s->Qref && s->QrefLoc, s->comm, PETSC_ERR_ARG_WRONGSTATE, "-%sperturbation needs a reference state: SquallESDGSetInitialCondition() with a case that has one, or SquallESDGSetReferenceState()", s->prefix);
    PetscCall(VecCUDAGetArrayRead(s->Qref, &a->Qref));
    PetscCall(VecCUDAGetArrayRead(s->QrefLoc, &a->QrefLoc));
  }
  if (rhs && s->Fref) PetscCall(VecCUDAGetArrayRead(s->Fref, &a->Fref));
  if (rhs && s->tau && s->Qsponge && !s->spongeHold) PetscCall(VecCUDAGetArrayRead(s->Qsponge, &a->Qsponge));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ESDGGPURestoreArgs(SquallESDG s, SquallESDGKernelArgs *a)
{
  PetscFunctionBegin;
  if (a->Qref) PetscCall(VecCUDARestoreArrayRead(s->Qref, &a->Qref));
  if (a->QrefLoc) PetscCall(VecCUDARestoreArrayRead(s->QrefLoc, &a->QrefLoc));
  if (a->Fref) PetscCall(VecCUDARestoreArrayRead(s->Fref, &a->Fref));
  if (a->Qsponge) PetscCall(VecCUDARestoreArrayRead(s->Qsponge, &a->Qsponge));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops per face node of a computed face, counted by hand from euler.h (two per-node value sets, the
   unit normal, the EC pair flux, and the entropy jump + matrix dissipation (ES) or the wave speeds (Rusanov)) */
static PETSC_UNUSED PetscLogDouble ESDGFaceFlops(SquallESDG s, PetscInt nfaces)
{
  const PetscLogDouble per = s->surface == SQUALL_FLUX_ES ? 360.0 : (s->surface == SQUALL_FLUX_RUSANOV ? 200.0 : 180.0);
  return per * nfaces * s->mesh->Nfp;
}

static PetscErrorCode ESDGGPUFaces(SquallESDG s, const SquallESDGKernelArgs *a, PetscInt first, PetscInt count)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(SquallESDGKernelsFaces(s->gpu, a, first, count));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(ESDGFaceFlops(s, count)));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ESDGGPUVolume(SquallESDG s, const SquallESDGKernelArgs *a, PetscInt first, PetscInt count)
{
  PetscLogDouble vflops;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGVolume, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(SquallESDGKernelsVolume(s->gpu, a, first, count));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(SquallESDGVolumeFlops(s, &vflops));
  if (a->Qsponge) vflops += 15.0 * s->nSponge; /* the sponge's 3 per field at the nodes inside the layers, as the host counts them */
  PetscCall(PetscLogGpuFlops(s->mesh->nOwned ? vflops * count / s->mesh->nOwned : 0));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGVolume, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The kernels flag density or pressure <= 0; eight bytes back per RHS so that an unphysical state is an
   error naming where (found on the host), never silent NaNs; and a fused stage's verdict on the state it
   wrote (Q), for the next stage's check */
static PetscErrorCode ESDGGPUCheckFlags(SquallESDG s, Vec Q, PetscBool fused)
{
  PetscInt lbad[2], gbad[2];

  PetscFunctionBegin;
  PetscCall(SquallESDGKernelsGetFlags(s->gpu, lbad));
  PetscCallMPI(MPIU_Allreduce(lbad, gbad, 2, MPIU_INT, MPI_MAX, s->comm));
  s->gpuNextVec = NULL;
  if (gbad[0]) {
    PetscBool ok;
    PetscCall(SquallESDGCheckState(s, Q, &ok));
    PetscCheck(s->domainSoft, s->comm, PETSC_ERR_FP, "Unphysical state (density or pressure <= 0) in the GPU right-hand side; see the message above for where");
    s->domainBad = PETSC_TRUE;
  }
  if (fused) {
    s->gpuNextVec = Q;
    s->gpuNextBad = gbad[1] ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscObjectStateGet((PetscObject)Q, &s->gpuNextState));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The RHS into F, or with K a fused LSRK stage: the volume kernels fold each node's RHS into K and Q
   (K = la K + ldt F, Q += lb K) instead of writing F. What needs no ghost value hides the exchange: the
   ghost-free faces, then the elements whose faces are all among them; then the faces with a ghost side
   and their elements. */
static PetscErrorCode ESDGGPURHS(SquallESDG s, Vec Q, Vec F, Vec K, const SquallLSRKCompensation *comp, PetscReal la, PetscReal ldt, PetscReal lb)
{
  SquallESDGKernelArgs a;
  const PetscScalar   *qd  = NULL;
  PetscScalar         *qld = NULL, *qw = NULL;

  PetscFunctionBegin;
  PetscCall(ESDGGPUGetArgs(s, PETSC_TRUE, &a));
  if (K) {
    PetscCall(VecCUDAGetArray(Q, &qw));
    qd = qw;
    if (la == 0)
      PetscCall(VecCUDAGetArrayWrite(K, &a.K)); /* the first stage does not read K */
    else
      PetscCall(VecCUDAGetArray(K, &a.K));
    a.Qw  = qw;
    a.la  = la;
    a.ldt = ldt;
    a.lb  = lb;
    if (comp) {
      PetscCall(VecCUDAGetArray(comp->C, &a.C));
      a.cmask = comp->mask ? (int)comp->mask : 31;
    }
  } else {
    PetscCall(VecCUDAGetArrayRead(Q, &qd));
    PetscCall(VecCUDAGetArrayWrite(F, &a.F));
  }
  a.Q = qd;
  PetscCall(VecCUDAGetArray(s->Qloc, &qld));
  /* the face nodes of ghost elements only (src/ts/esdgghost.c), device to device */
  PetscCall(SquallESDGGhostBegin(s, PETSC_MEMTYPE_CUDA, qd, qld));
  PetscCall(ESDGGPUFaces(s, &a, 0, s->gpuFacesEarly));
  PetscCall(ESDGGPUVolume(s, &a, 0, s->gpuInterior));
  PetscCall(SquallESDGGhostEnd(s, qd, qld));
  a.Qloc = qld;
  PetscCall(ESDGGPUFaces(s, &a, s->gpuFacesEarly, s->gpuFacesGhost));
  PetscCall(ESDGGPUVolume(s, &a, s->gpuInterior, s->gpuHalo));
  PetscCall(VecCUDARestoreArray(s->Qloc, &qld));
  if (K) {
    PetscInt       n;
    PetscLogDouble ncomp = 0;
    PetscCall(VecGetLocalSize(Q, &n));
    for (int f = 0; f < 5 && comp; f++) ncomp += (a.cmask >> f) & 1;
    PetscCall(PetscLogGpuFlops((5.0 + 3.0 * ncomp / 5) * n)); /* the stage update's */
    if (la == 0)
      PetscCall(VecCUDARestoreArrayWrite(K, &a.K));
    else
      PetscCall(VecCUDARestoreArray(K, &a.K));
    PetscCall(VecCUDARestoreArray(Q, &qw));
    if (comp) PetscCall(VecCUDARestoreArray(comp->C, &a.C));
  } else {
    PetscCall(VecCUDARestoreArrayWrite(F, &a.F));
    PetscCall(VecCUDARestoreArrayRead(Q, &qd));
  }
  PetscCall(ESDGGPURestoreArgs(s, &a));
  PetscCall(ESDGGPUCheckFlags(s, Q, K ? PETSC_TRUE : PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGComputeRHS_GPU(SquallESDG s, Vec Q, Vec F)
{
  PetscFunctionBegin;
  PetscCall(ESDGGPURHS(s, Q, F, NULL, NULL, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one LSRK stage with the RHS of Q fused into the update of K and Q; *done false where the compensation
   is in another layout than the state's five fields per element (SquallTSLSRKSetFieldLayout()): the
   caller then evaluates F and runs the update kernel */
PetscErrorCode SquallESDGStage_GPU(SquallESDG s, Vec Q, Vec K, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b, PetscBool *done)
{
  PetscFunctionBegin;
  *done = (PetscBool)(!comp || !comp->mask || (comp->stride == s->mesh->Np && comp->nfields == 5));
  if (*done) PetscCall(ESDGGPURHS(s, Q, NULL, K, comp, a, dt, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *known: X is the state the last fused LSRK stage wrote, unchanged since (its object state); then *bad
   is that stage's verdict on it (all ranks), and the next stage's check needs no pass of its own */
PetscErrorCode SquallESDGStageVerdictGPU(SquallESDG s, Vec X, PetscBool *known, PetscBool *bad)
{
  PetscObjectState st;

  PetscFunctionBegin;
  *known = PETSC_FALSE;
  *bad   = PETSC_FALSE;
  if (!s->gpu || !s->gpuNextVec || s->gpuNextVec != X) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectStateGet((PetscObject)X, &st));
  if (st != s->gpuNextState) PetscFunctionReturn(PETSC_SUCCESS);
  *known = PETSC_TRUE;
  *bad   = s->gpuNextBad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max wave rate (for the CFL step; lmax NULL: the check alone) and the number of inadmissible nodes on
   this rank, with one small copy back */
PetscErrorCode SquallESDGNodeReduceGPU(SquallESDG s, Vec Q, PetscReal *lmax, PetscInt *nbad)
{
  SquallESDGKernelArgs a;
  const PetscScalar   *qd = NULL;

  PetscFunctionBegin;
  PetscCall(ESDGGPUGetArgs(s, PETSC_FALSE, &a));
  PetscCall(VecCUDAGetArrayRead(Q, &qd));
  a.Q = qd;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGNodeReduce, Q, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(SquallESDGKernelsReduce(s->gpu, &a, lmax, nbad));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(SQUALL_ESDGNodeReduce, Q, 0, 0, 0));
  PetscCall(VecCUDARestoreArrayRead(Q, &qd));
  PetscCall(ESDGGPURestoreArgs(s, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}
