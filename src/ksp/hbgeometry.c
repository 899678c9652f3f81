/* Set-up of the hipBone operator: the elements of each rank (slabs or a p8est partition), the lattice
   keys and the global numbering, the interior/halo element order, the geometric factors and Z^T; and
   the nodal functions of the public interface (right-hand side, interpolation, coordinates). */
#include "ksp/hbimpl.h"
#include "physics/sem.h"
#include <petscdmforest.h>
#include <petscdmplex.h>

/* node coordinates (xyz[3n+a]) of local element e, and optionally its geometric factors and node
   masses; the Jacobian comes from differentiating the coordinates, as for any element map */
PetscErrorCode SquallHBElementGeometry(Mat_HB *hb, PetscInt e, PetscReal *xyz, PetscReal *Ge, PetscReal *wJ)
{
  const PetscInt   Nq = hb->Nq, g = hb->elem[e];
  const PetscInt   ei[3] = {g % hb->E[0], (g / hb->E[0]) % hb->E[1], g / (hb->E[0] * hb->E[1])};
  const PetscReal *D = hb->D, s = hb->shear;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < Nq; k++) {
    for (PetscInt j = 0; j < Nq; j++) {
      for (PetscInt i = 0; i < Nq; i++) {
        const PetscInt  n     = i + Nq * (j + Nq * k);
        const PetscReal rr[3] = {hb->r[i], hb->r[j], hb->r[k]};
        PetscReal       X[3];

        for (PetscInt d = 0; d < 3; d++) X[d] = hb->bounds[2 * d] + (hb->bounds[2 * d + 1] - hb->bounds[2 * d]) * (ei[d] + (1 + rr[d]) / 2) / hb->E[d];
        xyz[3 * n + 0] = X[0] + s * (X[1] + X[2]);
        xyz[3 * n + 1] = X[1] + s * X[2];
        xyz[3 * n + 2] = X[2];
      }
    }
  }
  if (!Ge && !wJ) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < Nq; k++) {
    for (PetscInt j = 0; j < Nq; j++) {
      for (PetscInt i = 0; i < Nq; i++) {
        const PetscInt n    = i + Nq * (j + Nq * k);
        PetscReal      J[9] = {0}, Gn[SQUALL_SEM_NGEO], m;

        for (PetscInt a = 0; a < 3; a++) {
          for (PetscInt l = 0; l < Nq; l++) {
            J[3 * a + 0] += D[i * Nq + l] * xyz[3 * (l + Nq * (j + Nq * k)) + a];
            J[3 * a + 1] += D[j * Nq + l] * xyz[3 * (i + Nq * (l + Nq * k)) + a];
            J[3 * a + 2] += D[k * Nq + l] * xyz[3 * (i + Nq * (j + Nq * l)) + a];
          }
        }
        m = SquallSEMGeometricFactors(J, hb->w[i] * hb->w[j] * hb->w[k], Gn);
        PetscCheck(m > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "element %" PetscInt_FMT " is inverted at node %" PetscInt_FMT " (check -hb_shear, -hb_bounds)", g, n);
        if (Ge)
          for (PetscInt c = 0; c < SQUALL_SEM_NGEO; c++) Ge[SQUALL_SEM_NGEO * n + c] = Gn[c];
        if (wJ) wJ[n] = m;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -hb_scramble_keys: key -> 16 ((a key) mod p), p the smallest prime >= nlat and 0 < a < p, a bijection of
   the lattice's keys onto every 16th number of [0, 16 p). The numbering may rely on nothing but the keys'
   identity: the operator is the same up to the order of its unknowns (the tests compare it by the nodes'
   coordinates and the CG histories across rank counts), and each rank's keys spread over more than four
   times their number (on several ranks; on one from order 2), where the numbering finds the distinct ones
   by sorting instead of a table of the range. */
static PetscBool HBIsPrime(PetscInt64 p)
{
  for (PetscInt64 d = 2; d * d <= p; d++)
    if (p % d == 0) return PETSC_FALSE;
  return PETSC_TRUE;
}

static PetscErrorCode HBScrambleKeys(PetscInt64 nlat, PetscInt n, PetscInt keys[])
{
  PetscInt64 p = PetscMax(nlat, 2), a;

  PetscFunctionBegin;
  while (!HBIsPrime(p)) p++;
  PetscCheck(16 * p <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-hb_scramble_keys: the lattice of %" PetscInt64_FMT " nodes is too large for scrambled keys in PetscInt", nlat);
  a = (PetscInt64)(0.6180339887 * (double)p) % p; /* the golden ratio's fraction of p: consecutive keys land far apart */
  if (a == 0) a = 1;
  for (PetscInt i = 0; i < n; i++)
    if (keys[i] >= 0) keys[i] = (PetscInt)(16 * ((keys[i] * a) % p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -hb_partition forest: the lexicographic indices of the elements p8est gives this rank on a brick of
   hb->E base cells (no refinement, no overlap), sorted. The brick is made with options of its own (a
   private database: the user's -dm_ options are for other DMs) and bounds [0, E], so that a cell's
   centroid is its lattice index + 1/2. */
static PetscErrorCode HBForestElements(Mat_HB *hb, PetscInt *nelem, PetscInt **glist)
{
  PetscOptions opts;
  DM           forest, plex;
  PetscInt     cStart, cEnd;
  char         size[128], bounds[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(size, sizeof(size), "%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT, hb->E[0], hb->E[1], hb->E[2]));
  PetscCall(PetscSNPrintf(bounds, sizeof(bounds), "0,%" PetscInt_FMT ",0,%" PetscInt_FMT ",0,%" PetscInt_FMT, hb->E[0], hb->E[1], hb->E[2]));
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsSetValue(opts, "-dm_p4est_brick_size", size));
  PetscCall(PetscOptionsSetValue(opts, "-dm_p4est_brick_bounds", bounds));
  PetscCall(PetscOptionsSetValue(opts, "-dm_forest_initial_refinement", "0"));
  PetscCall(DMCreate(hb->comm, &forest));
  PetscCall(PetscObjectSetOptions((PetscObject)forest, opts));
  PetscCall(DMSetType(forest, DMP8EST));
  PetscCall(DMForestSetTopology(forest, "brick"));
  PetscCall(DMSetFromOptions(forest));
  PetscCall(DMSetUp(forest));
  PetscCall(DMConvert(forest, DMPLEX, &plex));
  PetscCall(DMPlexGetHeightStratum(plex, 0, &cStart, &cEnd));
  *nelem = cEnd - cStart;
  PetscCall(PetscMalloc1(PetscMax(*nelem, 1), glist));
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscReal vol, x[3];
    PetscInt  l[3];

    PetscCall(DMPlexComputeCellGeometryFVM(plex, c, &vol, x, NULL));
    for (PetscInt d = 0; d < 3; d++) {
      l[d] = (PetscInt)PetscFloorReal(x[d]);
      PetscCheck(l[d] >= 0 && l[d] < hb->E[d] && PetscAbsReal(x[d] - l[d] - (PetscReal)0.5) < (PetscReal)1e-3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-hb_partition forest: cell %" PetscInt_FMT " is not a unit cell of the brick (centroid %g in %c)", c,
                 (double)x[d], "xyz"[d]);
    }
    (*glist)[c - cStart] = l[0] + hb->E[0] * (l[1] + hb->E[1] * l[2]);
  }
  PetscCall(PetscSortInt(*nelem, *glist));
  PetscCall(DMDestroy(&plex));
  PetscCall(DMDestroy(&forest));
  PetscCall(PetscOptionsDestroy(&opts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallHBSetUp(Mat_HB *hb)
{
  const PetscInt N = hb->N, Nq = N + 1, Np = Nq * Nq * Nq;
  const PetscInt L[3] = {hb->E[0] * N + 1, hb->E[1] * N + 1, hb->E[2] * N + 1};
  PetscMPIInt    rank, size;
  PetscInt64     Eg, e0, e1, nkeys64;
  PetscInt      *keys, *order, *glist = NULL, nint = 0, nloc;
  PetscReal     *xyz;
  PetscLogDouble t0, *tlog = hb->logsetup ? &t0 : NULL;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(SQUALL_HBSetUp, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCallMPI(MPI_Comm_rank(hb->comm, &rank));
  PetscCallMPI(MPI_Comm_size(hb->comm, &size));
  hb->Nq = Nq;
  hb->Np = Np;
  PetscCall(SquallLGLNodesWeights(N, hb->r, hb->w));
  PetscCall(SquallLGLDerivativeMatrix(N, NULL, hb->D));
  PetscCheck((PetscInt64)L[0] * L[1] * L[2] <= PETSC_INT_MAX, hb->comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-hb_elements %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT " at -hb_order %" PetscInt_FMT " has more nodes than PetscInt indexes (configure PETSc with 64-bit indices)", hb->E[0], hb->E[1], hb->E[2], N);

  /* contiguous blocks of the lexicographic element order (slabs of the brick), or p8est's partition */
  Eg = (PetscInt64)hb->E[0] * hb->E[1] * hb->E[2];
  if (hb->forest) {
    PetscInt n = 0;

    /* the list's positions 0..n-1 stand for the slab's e0..e1-1 below */
    PetscCall(HBForestElements(hb, &n, &glist));
    e0 = 0;
    e1 = n;
  } else {
    e0 = Eg * rank / size;
    e1 = Eg * (rank + 1) / size;
  }
  nkeys64 = (e1 - e0) * Np;
  PetscCheck(nkeys64 <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "rank %d would hold %" PetscInt64_FMT " element nodes, more than PetscInt indexes: use more ranks or 64-bit indices", rank, nkeys64);
  hb->nelem = (PetscInt)(e1 - e0);
  if (hb->nelem) {
    const PetscInt64 first = glist ? glist[0] : e0, last = glist ? glist[hb->nelem - 1] : e1 - 1;

    PetscCall(PetscInfo(NULL, "-hb_partition %s: %" PetscInt_FMT " elements on this rank, lexicographic indices %" PetscInt64_FMT " to %" PetscInt64_FMT "\n", hb->forest ? "forest" : "slabs", hb->nelem, first, last));
  }
  hb->nelem_global = (PetscInt)Eg;
  nloc             = hb->nelem * Np;

  /* a key per element node: its index in the lattice of all nodes; -1 on a Dirichlet boundary */
  PetscCall(PetscMalloc1(nloc, &keys));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    const PetscInt g = glist ? glist[e] : (PetscInt)(e0 + e), ex = g % hb->E[0], ey = (g / hb->E[0]) % hb->E[1], ez = g / (hb->E[0] * hb->E[1]);

    for (PetscInt k = 0; k < Nq; k++) {
      for (PetscInt j = 0; j < Nq; j++) {
        for (PetscInt i = 0; i < Nq; i++) {
          const PetscInt  ix = ex * N + i, iy = ey * N + j, iz = ez * N + k;
          const PetscBool bdry = (PetscBool)(ix == 0 || iy == 0 || iz == 0 || ix == L[0] - 1 || iy == L[1] - 1 || iz == L[2] - 1);

          keys[e * Np + i + Nq * (j + Nq * k)] = hb->dirichlet && bdry ? -1 : ix + L[0] * (iy + L[1] * iz);
        }
      }
    }
  }
  if (hb->scramble) PetscCall(HBScrambleKeys((PetscInt64)L[0] * L[1] * L[2], nloc, keys));
  PetscCall(SquallHBLogPhase(hb->comm, tlog, "lattice keys"));
  PetscCall(SquallSEMNumberingCreate(hb->comm, nloc, keys, tlog, &hb->num));
  PetscCall(PetscFree(keys));
  hb->nown    = hb->num.nown;
  hb->nshared = hb->num.nshared;
  hb->nghost  = hb->num.nghost;
  hb->nglobal = hb->num.nglobal;

  /* interior elements (no ghost node) first, so that they can be computed while ghosts travel */
  PetscCall(PetscMalloc1(hb->nelem, &order));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    PetscBool halo = PETSC_FALSE;

    for (PetscInt n = 0; n < Np && !halo; n++) halo = (PetscBool)(hb->num.lidx[e * Np + n] >= hb->nown);
    if (!halo) order[nint++] = e;
  }
  hb->nint = nint;
  for (PetscInt e = 0, h = nint; e < hb->nelem; e++) {
    PetscBool halo = PETSC_FALSE;

    for (PetscInt n = 0; n < Np && !halo; n++) halo = (PetscBool)(hb->num.lidx[e * Np + n] >= hb->nown);
    if (halo) order[h++] = e;
  }
  PetscCall(SquallHBLogPhase(hb->comm, tlog, "interior/halo element order"));
  PetscCall(PetscMalloc4(hb->nelem, &hb->elem, nloc, &hb->gidx, (size_t)SQUALL_SEM_NGEO * nloc, &hb->G, nloc, &hb->W));
  PetscCall(PetscMalloc1(3 * Np, &xyz));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    const PetscInt o = order[e];

    hb->elem[e] = glist ? glist[o] : (PetscInt)(e0 + o);
    for (PetscInt n = 0; n < Np; n++) {
      const PetscInt l = hb->num.lidx[o * Np + n];

      hb->gidx[e * Np + n] = l;
      hb->W[e * Np + n]    = l < 0 ? 0 : (PetscReal)1 / hb->num.mult[l];
    }
    PetscCall(SquallHBElementGeometry(hb, e, xyz, hb->G + (size_t)SQUALL_SEM_NGEO * e * Np, NULL));
  }
  PetscCall(PetscFree(xyz));
  PetscCall(PetscFree(order));
  PetscCall(PetscFree(glist));
  PetscCall(SquallHBLogPhase(hb->comm, tlog, "element indices, weights, geometric factors"));

  /* Z^T as CSR over local nodes; positions ascend within a row */
  {
    const PetscInt nrows = hb->nown + hb->nghost;

    PetscCall(PetscCalloc1(nrows + 1, &hb->rowptr));
    for (PetscInt p = 0; p < nloc; p++)
      if (hb->gidx[p] >= 0) hb->rowptr[hb->gidx[p] + 1]++;
    for (PetscInt l = 0; l < nrows; l++) hb->rowptr[l + 1] += hb->rowptr[l];
    PetscCall(PetscMalloc1(hb->rowptr[nrows], &hb->col));
    {
      PetscInt *fill;

      PetscCall(PetscMalloc1(nrows, &fill));
      PetscCall(PetscArraycpy(fill, hb->rowptr, nrows));
      for (PetscInt p = 0; p < nloc; p++)
        if (hb->gidx[p] >= 0) hb->col[fill[hb->gidx[p]]++] = p;
      PetscCall(PetscFree(fill));
    }
  }
  PetscCall(SquallHBLogPhase(hb->comm, tlog, "Z^T (CSR)"));
  PetscCall(PetscLogEventEnd(SQUALL_HBSetUp, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* f at every owned node, or (rhs) Z^T of the node masses times f */
static PetscErrorCode HBNodalLoop(Mat A, SquallHBFunction f, void *ctx, PetscBool rhs, Vec v)
{
  Mat_HB      *hb;
  PetscReal   *xyz, *wJ;
  PetscScalar *va;

  PetscFunctionBegin;
  PetscCall(SquallHBGetContext(A, &hb));
  PetscCall(SquallHBHostWork(hb));
  PetscCall(PetscMalloc2(3 * hb->Np, &xyz, hb->Np, &wJ));
  PetscCall(VecGetArrayWrite(v, &va));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    PetscCall(SquallHBElementGeometry(hb, e, xyz, NULL, rhs ? wJ : NULL));
    for (PetscInt n = 0; n < hb->Np; n++) {
      const PetscInt l = hb->gidx[e * hb->Np + n];
      PetscScalar    fv;

      if (rhs) {
        PetscCall((*f)(xyz + 3 * n, &fv, ctx));
        hb->yL[e * hb->Np + n] = l < 0 ? 0 : wJ[n] * fv;
      } else if (l >= 0 && l < hb->nown) {
        PetscCall((*f)(xyz + 3 * n, &fv, ctx));
        va[l] = fv;
      }
    }
  }
  if (rhs) PetscCall(SquallHBGatherHost(hb, hb->yL, va, NULL, NULL));
  PetscCall(VecRestoreArrayWrite(v, &va));
  PetscCall(PetscFree2(xyz, wJ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBComputeRHS - b = Z^T M_L f: f at the element nodes weighted by the GLL node masses w |J|,
  summed into the global nodes. Collective.
@*/
PetscErrorCode SquallHBComputeRHS(Mat A, SquallHBFunction f, void *ctx, Vec b)
{
  PetscFunctionBegin;
  PetscCall(HBNodalLoop(A, f, ctx, PETSC_TRUE, b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBInterpolate - u = f at the global nodes. Not collective.
@*/
PetscErrorCode SquallHBInterpolate(Mat A, SquallHBFunction f, void *ctx, Vec u)
{
  PetscFunctionBegin;
  PetscCall(HBNodalLoop(A, f, ctx, PETSC_FALSE, u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallHBGetCoordinates - a new host Vec (block size 3, local size 3 x owned unknowns) with the
  coordinates of the owned global nodes, in the operator's numbering. Collective.
@*/
PetscErrorCode SquallHBGetCoordinates(Mat A, Vec *X)
{
  Mat_HB      *hb;
  PetscReal   *xyz;
  PetscScalar *xa;

  PetscFunctionBegin;
  PetscCall(SquallHBGetContext(A, &hb));
  PetscCall(VecCreate(hb->comm, X));
  PetscCall(VecSetSizes(*X, 3 * hb->nown, PETSC_DECIDE));
  PetscCall(VecSetBlockSize(*X, 3));
  PetscCall(VecSetType(*X, VECSTANDARD));
  PetscCall(PetscMalloc1(3 * hb->Np, &xyz));
  PetscCall(VecGetArrayWrite(*X, &xa));
  for (PetscInt e = 0; e < hb->nelem; e++) {
    PetscCall(SquallHBElementGeometry(hb, e, xyz, NULL, NULL));
    for (PetscInt n = 0; n < hb->Np; n++) {
      const PetscInt l = hb->gidx[e * hb->Np + n];

      if (l >= 0 && l < hb->nown)
        for (PetscInt a = 0; a < 3; a++) xa[3 * l + a] = xyz[3 * n + a];
    }
  }
  PetscCall(VecRestoreArrayWrite(*X, &xa));
  PetscCall(PetscFree(xyz));
  PetscFunctionReturn(PETSC_SUCCESS);
}
