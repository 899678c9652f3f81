/* The ESDG right-hand side on the GPU. Same semi-discretisation and the same pointwise functions
   (src/physics/euler.h) as the C reference in src/ts/esdgrhs.c; only the data movement differs.
   - face fluxes: one thread per face node of every face this rank computes, each shared face once
     (SquallEulerSurfaceFluxPair gives both sides), written already scaled by s_f/w_b into a per
     element-face-node buffer; faces without a ghost partner before the ghost exchange completes;
   - volume: one thread per node, several elements per block for small N, the element's per-node
     values (primitives, logs, 1/b) in shared memory, the three directions fused. Two variants:
     "full" (every node evaluates all its pairs) and "half" (each unordered pair once, with the
     load-balanced cyclic assignment of Waterhouse et al., arXiv:2605.16684 (2026), sec. 4.1:
     thread i takes partners i+1..i+floor(Nq/2) mod Nq, the antipodal pair of an even Nq weighted
     1/2 from both sides, and hands the partner's share over through shared memory). The volume
     kernel finishes the node: adds its faces' fluxes, divides by J, adds the Coriolis force, so
     the RHS is written once;
   - the first version's per-element surface kernel (-esdg_gpu_surface element: every face node of
     every element, shared faces twice, then a second pass over F) is kept for comparison.
   Ablation variants of the volume kernel (no precomputed logs, no load balancing, one direction per
   launch) exist for N = 4 only, for bench/. */
#include "cuda/esdgdevice.cuh"
#include "cuda/esdgvolume.cuh"
#include "cuda/esdgface.cuh"
#include "cuda/esdgreduce.cuh"

/* ---------------------------------------------------------------------------------------------
   host side */

/* the variants of the ablation study and the register-cap tuning, N = 4 on boxes, all elements:
   0 unbalanced half sweep, 1 no precomputed logs, 2 one launch per direction, 3/4/5 the half sweep
   with at least 1/6/8 blocks per multiprocessor (1: no register cap; the production kernel uses 6),
   6 the face kernel capped at 5 blocks per multiprocessor (a former default), 7 the half sweep at 7 blocks (72 registers), 8/9 two share
   buffers and one barrier per direction at 5/6 blocks, 10 the sender-scaled shares of before (RADD),
   11/12 the half sweep at 10/12 blocks (48/40 registers: for single precision, which needs 55 uncapped),
   13/14 the production face kernel capped at 4/6 blocks (128/85 registers; uncapped it takes 132: 3 blocks) */
static PetscErrorCode ESDGLaunchVariantN4(SquallESDG s, const ESDGCuda *c, int variant, const PetscScalar *Q, const PetscScalar *Qloc, PetscScalar *F, cudaStream_t stream)
{
  constexpr int  NQ = 5, NP = NQ * NQ * NQ, EPB = ESDGElementsPerBlock<NQ>();
  const ESDGArgs a = ESDGGetArgs(c, s->mesh->w[0]);
  const dim3     block(NP, EPB);
  const int      grid = (int)((c->nOwned + EPB - 1) / EPB);
  const size_t   shm  = ESDGHalfBytes<NQ, true, false, false>();

  PetscFunctionBegin;
  PetscCheck(s->mesh->N == 4 && s->boxPhiZ, s->comm, PETSC_ERR_SUP, "The ablation variants exist for -esdg_order 4 on boxes (with Phi = g z) only");
  PetscCheck(!s->gas.departures, s->comm, PETSC_ERR_SUP, "The ablation variants have no departures: -esdg_perturbation_pressure 0");
  switch (variant) {
    case 0: {
      const size_t shmu = sizeof(PetscReal) * (NQ * NQ + (size_t)EPB * (SQUALL_NPAIR + 5 * NQ) * NP);
      PetscCallCUDA(cudaFuncSetAttribute(ESDGVolumeHalfUnbalanced<NQ>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmu));
      ESDGVolumeHalfUnbalanced<NQ><<<grid, block, shmu, stream>>>(s->gas, a, Q, F);
    } break;
    case 1: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NOLOG, 1>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 2:
      PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_DIR0, 1>(s->gas, a, grid, block, shm, Q, F, stream)));
      PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_DIR0 + 1, 1>(s->gas, a, grid, block, shm, Q, F, stream)));
      PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_DIR0 + 2, 1>(s->gas, a, grid, block, shm, Q, F, stream)));
      break;
    case 3: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 1>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 4: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 6>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 5: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 8>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 7: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 7>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 8: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 5, true>(s->gas, a, grid, block, ESDGHalfBytes<NQ, true, false, true>(), Q, F, stream))); break;
    case 9: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 6, true>(s->gas, a, grid, block, ESDGHalfBytes<NQ, true, false, true>(), Q, F, stream))); break;
    case 10: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 6, false, true>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 11: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 10>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 12: PetscCall((ESDGLaunchHalf<NQ, true, false, ESDG_ABL_NONE, 12>(s->gas, a, grid, block, shm, Q, F, stream))); break;
    case 6: {
      ESDGArgs af = a;
      af.nList    = c->nFacesEarly + c->nFacesGhost;
      ESDGFaceFlux<NQ, 5><<<(int)(((size_t)af.nList * NQ * NQ + 127) / 128), 128, 0, stream>>>(s->gas, s->surface, af, Q, Qloc);
    } break;
    case 13:
    case 14: {
      /* the production face kernel (per-face geometry on boxes) capped at 4 (128 registers) or 6 blocks per SM */
      ESDGArgs af   = a;
      af.nList      = c->nFacesEarly + c->nFacesGhost;
      const int  g  = (int)(((size_t)af.nList * NQ * NQ + 127) / 128);
      const bool fc = c->FGF != NULL;
      if (variant == 13 && fc)
        ESDGFaceFlux<NQ, 4, false, true><<<g, 128, 0, stream>>>(s->gas, s->surface, af, Q, Qloc);
      else if (variant == 13)
        ESDGFaceFlux<NQ, 4><<<g, 128, 0, stream>>>(s->gas, s->surface, af, Q, Qloc);
      else if (fc)
        ESDGFaceFlux<NQ, 6, false, true><<<g, 128, 0, stream>>>(s->gas, s->surface, af, Q, Qloc);
      else
        ESDGFaceFlux<NQ, 6><<<g, 128, 0, stream>>>(s->gas, s->surface, af, Q, Qloc);
    } break;
    default: SETERRQ(s->comm, PETSC_ERR_ARG_OUTOFRANGE, "Unknown ESDG kernel variant %d", variant);
  }
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the kernels are templated on Nq = N + 1 so every loop bound is a compile-time constant */
#define ESDG_DISPATCH(N, fn, args)                                                                             \
  do {                                                                                                         \
    switch (N) {                                                                                               \
      case 1: PetscCall(fn<2> args); break;                                                                    \
      case 2: PetscCall(fn<3> args); break;                                                                    \
      case 3: PetscCall(fn<4> args); break;                                                                    \
      case 4: PetscCall(fn<5> args); break;                                                                    \
      case 5: PetscCall(fn<6> args); break;                                                                    \
      case 6: PetscCall(fn<7> args); break;                                                                    \
      case 7: PetscCall(fn<8> args); break;                                                                    \
      case 8: PetscCall(fn<9> args); break;                                                                    \
      default: SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "-esdg_order %d has no GPU kernel (1 to 8)", (int)(N)); \
    }                                                                                                          \
  } while (0)

template <typename T> static PetscErrorCode Upload(T **d, const T *h, size_t n)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)d, PetscMax(n, (size_t)1) * sizeof(T)));
  if (n) PetscCallCUDA(cudaMemcpy(*d, h, n * sizeof(T), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * sizeof(T)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* tangential index of element node n on face f, the inverse of FaceNode */
static PetscInt FaceIndex(PetscInt Nq, PetscInt f, PetscInt n)
{
  const PetscInt d = f / 2, idx[3] = {n % Nq, (n / Nq) % Nq, n / (Nq * Nq)}, t0 = d == 0 ? 1 : 0, t1 = d == 2 ? 1 : 2;
  return idx[t0] + Nq * idx[t1];
}

/* The faces this rank computes and, for each computed face node with an owned partner, the partner's
   slot. A face shared by two owned elements is computed by the side with the smaller e*6+f; one with a
   ghost partner by the owned side (the ghost's owner computes its own side); a wall by its element. */
static PetscErrorCode ESDGBuildFaces(SquallESDG s, PetscInt *faces, PetscInt *nEarly, PetscInt *nGhost, PetscInt *plus)
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
        const PetscInt nb = m->nbr[6 * e + f], fp = f ^ 1;
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

PetscErrorCode SquallESDGSetUpCUDA(SquallESDG s)
{
  SquallDGMesh   m = s->mesh;
  ESDGCuda      *c;
  const PetscInt Np = m->Np, Nfp = m->Nfp, E = m->nOwned;
  PetscInt      *vmap, *elist, *faces, *plus, ni = 0, nh = 0;
  PetscReal     *phip, *fcor = NULL;

  PetscFunctionBegin;
  PetscCheck(m->N >= 1 && m->N <= 8, s->comm, PETSC_ERR_SUP, "-esdg_order %" PetscInt_FMT " has no GPU kernel (1 to 8)", m->N);
  PetscCall(PetscNew(&c));
  c->nOwned       = E;
  c->Np           = Np;
  c->Nq           = m->Nq;
  c->half         = s->gpuHalf;
  c->prefetch     = (int)s->gpuPrefetch;
  c->prefetchDist = s->gpuPrefetchDist;
  c->faceMode     = s->gpuSurface == 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscMalloc5((size_t)E * 6 * Nfp, &vmap, (size_t)E * 6 * Nfp, &phip, PetscMax(E, 1), &elist, PetscMax(6 * E, 1), &faces, (size_t)E * 6 * Nfp, &plus));
  for (PetscInt e = 0; e < E; e++) {
    PetscBool halo = PETSC_FALSE;
    for (PetscInt f = 0; f < 6; f++) {
      const PetscInt nb = m->nbr[6 * e + f];
      if (nb >= m->nOwned) halo = PETSC_TRUE;
      for (PetscInt q = 0; q < Nfp; q++) {
        const size_t   k = ((size_t)e * 6 + f) * Nfp + q;
        const PetscInt p = m->vmapP[k];
        if (nb < 0) {
          vmap[k] = SQ_BOUNDARY;
          phip[k] = s->Phi[e * Np + m->fmask[f * Nfp + q]];
        } else {
          vmap[k] = nb < m->nOwned ? m->gslot[nb] * Np + p % Np : -(p + 1);
          phip[k] = s->Phi[nb * Np + p % Np];
        }
      }
    }
    if (!halo) elist[ni++] = e;
  }
  for (PetscInt e = 0; e < E; e++) {
    PetscBool halo = PETSC_FALSE;
    for (PetscInt f = 0; f < 6; f++)
      if (m->nbr[6 * e + f] >= m->nOwned) halo = PETSC_TRUE;
    if (halo) elist[ni + nh++] = e;
  }
  c->nInterior = ni;
  c->nHalo     = nh;
  PetscCall(ESDGBuildFaces(s, faces, &c->nFacesEarly, &c->nFacesGhost, plus));
  PetscCall(Upload(&c->gslot, m->gslot, (size_t)E));
  PetscCall(Upload(&c->vmapP, vmap, (size_t)E * 6 * Nfp));
  PetscCall(Upload(&c->PhiP, phip, (size_t)E * 6 * Nfp));
  PetscCall(Upload(&c->Phi, s->Phi, (size_t)E * Np));
  PetscCall(Upload(&c->J, m->J, (size_t)E * Np));
  PetscCall(Upload(&c->Ja, m->Ja, (size_t)E * 9 * Np));
  if (m->cartesian) /* the box kernels contract along the axis (PairFluxes<true>) */
    for (size_t k = 0; k < (size_t)E * 9 * Np; k++) {
      const PetscInt dc = (PetscInt)((k / Np) % 9);
      PetscCheck(dc / 3 == dc % 3 || m->Ja[k] == 0, s->comm, PETSC_ERR_PLIB, "Cartesian element %" PetscInt_FMT " has an off-axis metric component: the box kernels assume Ja^d = |Ja^d| e_d", (PetscInt)(k / (9 * (size_t)Np)));
    }
  if (m->cartesian && !s->boxPhiZ) PetscCall(PetscInfo(NULL, "Phi varies along x or y within a box element: the general volume kernels run\n"));
  PetscCall(Upload(&c->D, m->D, (size_t)m->Nq * m->Nq));
  PetscCall(Upload(&c->elist, elist, (size_t)E));
  PetscCall(Upload(&c->faces, faces, (size_t)(c->nFacesEarly + c->nFacesGhost)));
  PetscCall(Upload(&c->plus, plus, (size_t)E * 6 * Nfp));
  PetscCallCUDA(cudaMalloc((void **)&c->FB, PetscMax((size_t)5 * E * 6 * Nfp, (size_t)1) * sizeof(PetscReal)));
  {
    /* outward unit normal and s_f of every element face node, with the reference's operations */
    const size_t S = (size_t)E * 6 * Nfp;
    PetscReal   *fg;
    PetscCall(PetscMalloc1(PetscMax(4 * S, (size_t)1), &fg));
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
    PetscCall(Upload(&c->FG, fg, 4 * S));
    {
      /* per element face where every face's nodes have the same values bit for bit (a box element's
         metric is constant): the face kernel then reads one set per face */
      const size_t EF   = (size_t)E * 6;
      PetscBool    same = PETSC_TRUE;
      for (size_t ef = 0; ef < EF && same; ef++)
        for (PetscInt q = 1; q < Nfp && same; q++)
          for (PetscInt c4 = 0; c4 < 4; c4++) same = (PetscBool)(same && fg[c4 * S + ef * Nfp + q] == fg[c4 * S + ef * Nfp]);
      if (same && EF) {
        PetscReal *fgf;
        PetscCall(PetscMalloc1(4 * EF, &fgf));
        for (size_t ef = 0; ef < EF; ef++)
          for (PetscInt c4 = 0; c4 < 4; c4++) fgf[c4 * EF + ef] = fg[c4 * S + ef * Nfp];
        PetscCall(Upload(&c->FGF, fgf, 4 * EF));
        PetscCall(PetscFree(fgf));
      }
    }
    PetscCall(PetscFree(fg));
  }
  if (s->coriolis != SQUALL_CORIOLIS_NONE) {
    PetscCall(PetscMalloc1((size_t)E * Np, &fcor));
    for (PetscInt e = 0; e < E; e++)
      for (PetscInt n = 0; n < Np; n++) fcor[e * Np + n] = s->f0 + s->beta0 * (SQUALL_DG_X(m, e)[Np + n] - s->y0);
    PetscCall(Upload(&c->fcor, fcor, (size_t)E * Np));
    PetscCall(PetscFree(fcor));
  }
  PetscCallCUDA(cudaMalloc((void **)&c->bad, 2 * sizeof(int)));
  PetscCallCUDA(cudaMemset(c->bad, 0, 2 * sizeof(int)));
  PetscCallCUDA(cudaMalloc((void **)&c->red, 2 * sizeof(PetscReal)));
  PetscCall(PetscFree5(vmap, phip, elist, faces, plus));
  s->cuda = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGDestroyCUDA(SquallESDG s)
{
  ESDGCuda *c = (ESDGCuda *)s->cuda;

  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallCUDA(cudaFree(c->gslot));
  PetscCallCUDA(cudaFree(c->vmapP));
  PetscCallCUDA(cudaFree(c->PhiP));
  PetscCallCUDA(cudaFree(c->Phi));
  PetscCallCUDA(cudaFree(c->J));
  PetscCallCUDA(cudaFree(c->Ja));
  PetscCallCUDA(cudaFree(c->D));
  PetscCallCUDA(cudaFree(c->elist));
  PetscCallCUDA(cudaFree(c->faces));
  PetscCallCUDA(cudaFree(c->plus));
  PetscCallCUDA(cudaFree(c->FB));
  PetscCallCUDA(cudaFree(c->FG));
  if (c->FGF) PetscCallCUDA(cudaFree(c->FGF));
  if (c->fcor) PetscCallCUDA(cudaFree(c->fcor));
  PetscCallCUDA(cudaFree(c->bad));
  PetscCallCUDA(cudaFree(c->red));
  PetscCall(PetscFree(c));
  s->cuda = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops per face node of a computed face, counted by hand from euler.h (two per-node value sets, the
   unit normal, the EC pair flux, and the entropy jump + matrix dissipation (ES) or the wave speeds (Rusanov)) */
static PetscLogDouble ESDGFaceFlops(SquallESDG s, PetscInt nfaces)
{
  const PetscLogDouble per = s->surface == SQUALL_FLUX_ES ? 360.0 : (s->surface == SQUALL_FLUX_RUSANOV ? 200.0 : 180.0);
  return per * nfaces * s->mesh->Nfp;
}

static PetscErrorCode ESDGFaces(SquallESDG s, ESDGCuda *c, PetscInt first, PetscInt count, const PetscScalar *Q, const PetscScalar *Qloc, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  ESDG_DISPATCH(s->mesh->N, ESDGLaunchFaces, (s, c, first, count, Q, Qloc, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(ESDGFaceFlops(s, count)));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ESDGVolume(SquallESDG s, ESDGCuda *c, PetscInt first, PetscInt count, PetscBool lift, const PetscScalar *Q, PetscScalar *F, cudaStream_t stream)
{
  SquallDGMesh   m = s->mesh;
  PetscLogDouble vflops;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGVolume, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  ESDG_DISPATCH(m->N, ESDGLaunchVolume, (s, c, first, count, c->half, lift, Q, F, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(SquallESDGVolumeFlops(s, c->half, &vflops));
  PetscCall(PetscLogGpuFlops(m->nOwned ? vflops * count / m->nOwned : 0));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGVolume, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ESDGSurfaceElements(SquallESDG s, ESDGCuda *c, PetscInt first, PetscInt count, const PetscScalar *Q, const PetscScalar *Qloc, PetscScalar *F, cudaStream_t stream)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  ESDG_DISPATCH(s->mesh->N, ESDGLaunchSurface, (s, c, first, count, Q, Qloc, F, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(2 * ESDGFaceFlops(s, 3 * count)));
  PetscCall(PetscLogEventEnd(SQUALL_ESDGSurface, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* in perturbation form, the reference state's device arrays for the kernels (ESDGArgs.Qref, QrefLoc) */
static PetscErrorCode ESDGGetReference(SquallESDG s, ESDGCuda *c)
{
  PetscFunctionBegin;
  c->refCont = s->refCont;
  if (s->perturb) {
    PetscCheck(s->Qref && s->QrefLoc, s->comm, PETSC_ERR_ARG_WRONGSTATE, "-esdg_perturbation needs a reference state: SquallESDGSetInitialCondition() with a case that has one, or SquallESDGSetReferenceState()");
    PetscCall(VecCUDAGetArrayRead(s->Qref, &c->Qref));
    PetscCall(VecCUDAGetArrayRead(s->QrefLoc, &c->QrefLoc));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ESDGRestoreReference(SquallESDG s, ESDGCuda *c)
{
  PetscFunctionBegin;
  if (c->Qref) PetscCall(VecCUDARestoreArrayRead(s->Qref, &c->Qref));
  if (c->QrefLoc) PetscCall(VecCUDARestoreArrayRead(s->QrefLoc, &c->QrefLoc));
  c->Qref = c->QrefLoc = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The RHS into F, or with K (face mode only) a fused LSRK stage: the finishing volume kernels fold
   each node's RHS into K and Q (K = la K + ldt F, Q += lb K) instead of writing F */
static PetscErrorCode ESDGRHS(SquallESDG s, PetscReal t, Vec Q, Vec F, Vec K, const SquallLSRKCompensation *comp, PetscReal la, PetscReal ldt, PetscReal lb)
{
  ESDGCuda          *c = (ESDGCuda *)s->cuda;
  const PetscScalar *qd;
  PetscScalar       *fd = NULL, *qld, *qw = NULL, *kd = NULL;
  cudaStream_t       stream = NULL;

  PetscFunctionBegin;
  PetscCheck(!K || c->faceMode, s->comm, PETSC_ERR_PLIB, "A fused LSRK stage needs the face-mode RHS");
  PetscCall(SquallCUDAGetStream(&stream));
  if (K) {
    PetscCall(VecCUDAGetArray(Q, &qw));
    qd = qw;
    if (la == 0)
      PetscCall(VecCUDAGetArrayWrite(K, &kd)); /* the first stage does not read K */
    else
      PetscCall(VecCUDAGetArray(K, &kd));
    c->K   = kd;
    c->Qw  = qw;
    c->la  = la;
    c->ldt = ldt;
    c->lb  = lb;
    c->C   = NULL;
    if (comp) {
      PetscCall(VecCUDAGetArray(comp->C, &c->C));
      c->cmask = comp->mask ? (int)comp->mask : 31;
    }
  } else {
    PetscCall(VecCUDAGetArrayRead(Q, &qd));
    PetscCall(VecCUDAGetArrayWrite(F, &fd));
  }
  PetscCall(VecCUDAGetArray(s->Qloc, &qld));
  PetscCall(ESDGGetReference(s, c));
  /* the face nodes of ghost elements only (src/ts/esdgghost.c), device to device */
  PetscCall(SquallESDGGhostBegin(s, PETSC_MEMTYPE_CUDA, qd, qld));
  if (c->faceMode) {
    /* what needs no ghost value hides the exchange: the ghost-free faces, then the elements whose
       faces are all among them, finished; then the faces with a ghost side and their elements. The
       finishing volume kernels also subtract the reference residual. */
    if (s->Fref) PetscCall(VecCUDAGetArrayRead(s->Fref, &c->Fref));
    PetscCall(ESDGFaces(s, c, 0, c->nFacesEarly, qd, NULL, stream));
    PetscCall(ESDGVolume(s, c, 0, c->nInterior, PETSC_TRUE, qd, fd, stream));
    PetscCall(SquallESDGGhostEnd(s, qd, qld));
    PetscCall(ESDGFaces(s, c, c->nFacesEarly, c->nFacesGhost, qd, qld, stream));
    PetscCall(ESDGVolume(s, c, c->nInterior, c->nHalo, PETSC_TRUE, qd, fd, stream));
    if (s->Fref) PetscCall(VecCUDARestoreArrayRead(s->Fref, &c->Fref));
    c->Fref = NULL;
  } else {
    PetscCall(ESDGVolume(s, c, 0, c->nOwned, PETSC_FALSE, qd, fd, stream));
    PetscCall(ESDGSurfaceElements(s, c, 0, c->nInterior, qd, NULL, fd, stream));
    PetscCall(SquallESDGGhostEnd(s, qd, qld));
    PetscCall(ESDGSurfaceElements(s, c, c->nInterior, c->nHalo, qd, qld, fd, stream));
  }
  PetscCall(ESDGRestoreReference(s, c));
  PetscCall(VecCUDARestoreArray(s->Qloc, &qld));
  if (K) {
    PetscInt n;
    PetscCall(VecGetLocalSize(Q, &n));
    PetscCall(PetscLogGpuFlops((5.0 + (comp ? 3.0 * __builtin_popcount(c->cmask) / 5 : 0)) * n)); /* the stage update's */
    if (la == 0)
      PetscCall(VecCUDARestoreArrayWrite(K, &kd));
    else
      PetscCall(VecCUDARestoreArray(K, &kd));
    PetscCall(VecCUDARestoreArray(Q, &qw));
    if (comp) PetscCall(VecCUDARestoreArray(comp->C, &c->C));
    c->K = c->Qw = c->C = NULL;
  } else {
    PetscCall(VecCUDARestoreArrayWrite(F, &fd));
    PetscCall(VecCUDARestoreArrayRead(Q, &qd));
  }
  if (s->Fref && !c->faceMode) PetscCall(VecAXPY(F, -1, s->Fref));
  {
    /* the kernels flag density or pressure <= 0; eight bytes back per RHS so that an unphysical state
       is an error naming where (found on the host), never silent NaNs; and a fused stage's verdict on
       the state it wrote, for the next stage's check */
    int      hbad[2] = {0, 0};
    PetscInt gbad[2], lbad[2];
    PetscCallCUDA(cudaMemcpyAsync(hbad, c->bad, 2 * sizeof(int), cudaMemcpyDeviceToHost, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    lbad[0] = hbad[0];
    lbad[1] = hbad[1];
    PetscCallMPI(MPIU_Allreduce(lbad, gbad, 2, MPIU_INT, MPI_MAX, s->comm));
    if (hbad[1]) PetscCallCUDA(cudaMemsetAsync(c->bad + 1, 0, sizeof(int), stream));
    c->nextVec = NULL;
    if (gbad[0]) {
      PetscBool ok;
      PetscCallCUDA(cudaMemsetAsync(c->bad, 0, sizeof(int), stream));
      PetscCall(SquallESDGCheckState(s, Q, &ok));
      SETERRQ(s->comm, PETSC_ERR_FP, "Unphysical state (density or pressure <= 0) in the GPU right-hand side; see the message above for where");
    }
    if (K) {
      c->nextVec = Q;
      c->nextBad = gbad[1] ? PETSC_TRUE : PETSC_FALSE;
      PetscCall(PetscObjectStateGet((PetscObject)Q, &c->nextState));
    }
  }
  (void)t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallESDGComputeRHS_CUDA(SquallESDG s, PetscReal t, Vec Q, Vec F)
{
  PetscFunctionBegin;
  PetscCall(ESDGRHS(s, t, Q, F, NULL, NULL, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one LSRK stage with the RHS of Q fused into the update of K and Q; *done false where the RHS is not
   in face mode (the caller then evaluates F and updates) */
PetscErrorCode SquallESDGStage_CUDA(SquallESDG s, PetscReal t, Vec Q, Vec K, const SquallLSRKCompensation *comp, PetscReal a, PetscReal dt, PetscReal b, PetscBool *done)
{
  ESDGCuda *c = (ESDGCuda *)s->cuda;

  PetscFunctionBegin;
  /* compensation in another layout than the state's five fields per element (SquallTSLSRKSetFieldLayout()) is the
     update kernel's */
  *done = (PetscBool)(c->faceMode && (!comp || !comp->mask || (comp->stride == s->mesh->Np && comp->nfields == 5)));
  if (*done) PetscCall(ESDGRHS(s, t, Q, NULL, K, comp, a, dt, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *known: X is the state the last fused LSRK stage wrote, unchanged since; then *bad is that stage's
   verdict on it (all ranks) */
PetscErrorCode SquallESDGStageVerdictCUDA(SquallESDG s, Vec X, PetscBool *known, PetscBool *bad)
{
  ESDGCuda        *c = (ESDGCuda *)s->cuda;
  PetscObjectState st;

  PetscFunctionBegin;
  *known = PETSC_FALSE;
  *bad   = PETSC_FALSE;
  if (!c || !c->nextVec || c->nextVec != X) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectStateGet((PetscObject)X, &st));
  if (st != c->nextState) PetscFunctionReturn(PETSC_SUCCESS);
  *known = PETSC_TRUE;
  *bad   = c->nextBad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max wave rate (for the CFL step; lmax NULL: the check alone) and the number of inadmissible nodes,
   with one small copy back */
PetscErrorCode SquallESDGNodeReduceCUDA(SquallESDG s, Vec Q, PetscReal *lmax, PetscInt *nbad)
{
  ESDGCuda          *c = (ESDGCuda *)s->cuda;
  const PetscScalar *qd;
  cudaStream_t       stream = NULL;
  PetscReal          h[2];
  int                hb;

  PetscFunctionBegin;
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCall(VecCUDAGetArrayRead(Q, &qd));
  PetscCallCUDA(cudaMemsetAsync(c->red, 0, 2 * sizeof(PetscReal), stream));
  PetscCall(ESDGGetReference(s, c));
  PetscCall(PetscLogEventBegin(SQUALL_ESDGNodeReduce, Q, 0, 0, 0));
  PetscCall(PetscLogGpuTimeBegin());
  ESDG_DISPATCH(s->mesh->N, ESDGLaunchReduce, (s, c, lmax ? PETSC_TRUE : PETSC_FALSE, qd, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogEventEnd(SQUALL_ESDGNodeReduce, Q, 0, 0, 0));
  PetscCall(ESDGRestoreReference(s, c));
  PetscCallCUDA(cudaMemcpyAsync(h, c->red, 2 * sizeof(PetscReal), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(VecCUDARestoreArrayRead(Q, &qd));
  memcpy(&hb, &h[1], sizeof(int));
  if (lmax) *lmax = h[0];
  *nbad = hb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Times one kernel (or the whole RHS) in isolation with CUDA events, for bench/: the median of reps
   launches after one warm-up, in ms; -1 where the variant does not exist for this order. F and the
   face buffer are overwritten; the ghost values are those of the last RHS evaluation.
     volume_full, volume_half      volume kernels over all elements, without faces
     volume_lift                   the face-mode volume kernel (half or full as set), faces added
     faces                         the face kernel over all computed faces
     surface_element               the first version's per-element surface kernel over all elements
     rhs, rhs_element              the whole RHS in face mode / element mode
     abl_unbalanced, abl_nolog, abl_unfused, tune_minb1, tune_minb6, tune_minb8, tune_faces_minb5,
     tune_minb7, tune_db5, tune_db6, tune_recv_add, tune_minb10, tune_minb12, tune_faces_minb4,
     tune_faces_minb6   (N = 4, boxes) */
PetscErrorCode SquallESDGTimeKernelCUDA(SquallESDG s, Vec Q, Vec F, const char *which, PetscInt reps, PetscReal *ms)
{
  SquallDGMesh       m = s->mesh;
  ESDGCuda          *c = (ESDGCuda *)s->cuda;
  const PetscScalar *qd, *qld;
  PetscScalar       *fd;
  cudaStream_t       stream = NULL;
  cudaEvent_t        t0, t1;
  PetscReal         *samples;
  const char        *abl[]   = {"abl_unbalanced", "abl_nolog", "abl_unfused",   "tune_minb1",  "tune_minb6",  "tune_minb8",       "tune_faces_minb5", "tune_minb7",
                                "tune_db5",       "tune_db6",  "tune_recv_add", "tune_minb10", "tune_minb12", "tune_faces_minb4", "tune_faces_minb6"};
  int                variant = -1, kind = -1;
  const PetscBool    half0 = c ? c->half : PETSC_FALSE, face0 = c ? c->faceMode : PETSC_FALSE;
  PetscBool          match;

  PetscFunctionBegin;
  PetscCheck(c, s->comm, PETSC_ERR_ARG_WRONGSTATE, "The ESDG object is not on the GPU (-dm_vec_type cuda)");
  {
    const char *kinds[] = {"volume_full", "volume_half", "volume_lift", "faces", "surface_element", "rhs", "rhs_element"};
    for (int k = 0; k < 7 && kind < 0; k++) {
      PetscCall(PetscStrcmp(which, kinds[k], &match));
      if (match) kind = k;
    }
    for (int k = 0; k < (int)(sizeof(abl) / sizeof(abl[0])) && kind < 0; k++) {
      PetscCall(PetscStrcmp(which, abl[k], &match));
      if (match) {
        kind    = 7;
        variant = k;
      }
    }
  }
  PetscCheck(kind >= 0, s->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown ESDG kernel name %s", which);
  if (kind == 7 && !(m->N == 4 && m->cartesian)) {
    *ms = -1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc1(reps, &samples));
  PetscCall(SquallCUDAGetStream(&stream));
  PetscCallCUDA(cudaEventCreate(&t0));
  PetscCallCUDA(cudaEventCreate(&t1));
  for (PetscInt r = -1; r < reps; r++) {
    if (kind >= 5 && kind <= 6) {
      c->faceMode = kind == 5 ? PETSC_TRUE : PETSC_FALSE;
      PetscCallCUDA(cudaEventRecord(t0, stream));
      PetscCall(SquallESDGComputeRHS_CUDA(s, 0, Q, F));
      PetscCallCUDA(cudaEventRecord(t1, stream));
    } else {
      PetscCall(VecCUDAGetArrayRead(Q, &qd));
      PetscCall(VecCUDAGetArray(F, &fd));
      PetscCall(VecCUDAGetArrayRead(s->Qloc, &qld));
      PetscCallCUDA(cudaEventRecord(t0, stream));
      switch (kind) {
        case 0:
        case 1: ESDG_DISPATCH(m->N, ESDGLaunchVolume, (s, c, 0, c->nOwned, kind == 1 ? PETSC_TRUE : PETSC_FALSE, PETSC_FALSE, qd, fd, stream)); break;
        case 2: ESDG_DISPATCH(m->N, ESDGLaunchVolume, (s, c, 0, c->nOwned, c->half, PETSC_TRUE, qd, fd, stream)); break;
        case 3: ESDG_DISPATCH(m->N, ESDGLaunchFaces, (s, c, 0, c->nFacesEarly + c->nFacesGhost, qd, qld, stream)); break;
        case 4: ESDG_DISPATCH(m->N, ESDGLaunchSurface, (s, c, 0, c->nInterior + c->nHalo, qd, qld, fd, stream)); break;
        default: PetscCall(ESDGLaunchVariantN4(s, c, variant, qd, qld, fd, stream));
      }
      PetscCallCUDA(cudaEventRecord(t1, stream));
      PetscCall(VecCUDARestoreArrayRead(s->Qloc, &qld));
      PetscCall(VecCUDARestoreArray(F, &fd));
      PetscCall(VecCUDARestoreArrayRead(Q, &qd));
    }
    PetscCallCUDA(cudaEventSynchronize(t1));
    if (r >= 0) {
      float t;
      PetscCallCUDA(cudaEventElapsedTime(&t, t0, t1));
      samples[r] = t;
    }
  }
  PetscCall(PetscSortReal(reps, samples));
  *ms         = samples[reps / 2];
  c->half     = half0;
  c->faceMode = face0;
  PetscCallCUDA(cudaEventDestroy(t0));
  PetscCallCUDA(cudaEventDestroy(t1));
  PetscCall(PetscFree(samples));
  PetscFunctionReturn(PETSC_SUCCESS);
}
