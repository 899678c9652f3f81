/* SquallP1SetUp(): the mesh extraction (vertices, elements, orientation and degeneracy checks), the sparsity
   graph of the owned rows and the element geometry (CPU reference). */
#include "mat/p1impl.h"
#include <petscdmplex.h>
#include <petscsf.h>

/* ---- set-up */

static PetscErrorCode P1CheckDM(SquallP1 p1)
{
  PetscInt  dim, cdim;
  PetscBool isplex;
  Vec       cc;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)p1->dm, DMPLEX, &isplex));
  PetscCheck(isplex, p1->comm, PETSC_ERR_ARG_WRONG, "SquallP1 needs a DMPLEX, not a %s", ((PetscObject)p1->dm)->type_name);
  PetscCall(DMGetDimension(p1->dm, &dim));
  PetscCall(DMGetCoordinateDim(p1->dm, &cdim));
  PetscCheck(dim == 3 && cdim == 3, p1->comm, PETSC_ERR_ARG_WRONG, "SquallP1 needs a 3D mesh of tetrahedra; this DMPlex has dimension %" PetscInt_FMT " and coordinate dimension %" PetscInt_FMT, dim, cdim);
  PetscCall(DMGetCellCoordinatesLocal(p1->dm, &cc));
  PetscCheck(!cc, p1->comm, PETSC_ERR_SUP, "SquallP1 does not support periodic meshes (cellwise coordinates)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* global scalar numbering of the vertices from a section with one dof per vertex */
static PetscErrorCode P1NumberVertices(SquallP1 p1)
{
  DM                 vdm;
  PetscSection       gs;
  PetscInt           vStart, vEnd, cnt = 0;
  PetscInt64         n64;
  Vec                cl;
  PetscSection       cs;
  const PetscScalar *ca;

  PetscFunctionBegin;
  PetscCall(DMPlexGetDepthStratum(p1->dm, 0, &vStart, &vEnd));
  p1->nv = vEnd - vStart;
  PetscCall(SquallP1GetVertexDM(p1, 1, &vdm));
  PetscCall(DMGetGlobalSection(vdm, &gs));
  PetscCall(PetscMalloc4(p1->nv, &p1->gidx, p1->nv, &p1->row, p1->nv, &p1->cd, p1->nv, &p1->co));
  PetscCall(PetscMalloc1(3 * p1->nv, &p1->x));
  for (PetscInt v = 0; v < p1->nv; v++) {
    PetscInt off;

    PetscCall(PetscSectionGetOffset(gs, v + vStart, &off));
    p1->gidx[v] = off >= 0 ? off : -(off + 1);
    p1->row[v]  = off >= 0 ? cnt++ : -1;
  }
  p1->nowned = cnt;
  PetscCallMPI(MPI_Scan(&cnt, &p1->rstart, 1, MPIU_INT, MPI_SUM, p1->comm));
  p1->rstart -= cnt;
  n64 = cnt;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &n64, 1, MPIU_INT64, MPI_SUM, p1->comm));
  PetscCall(PetscIntCast(n64, &p1->N));
  for (PetscInt v = 0; v < p1->nv; v++) {
    const PetscInt g = p1->gidx[v];

    /* the global section numbers owned points in order, so row and global index agree */
    PetscCheck(p1->row[v] < 0 || g == p1->rstart + p1->row[v], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Vertex numbering is not contiguous: vertex %" PetscInt_FMT " has global index %" PetscInt_FMT ", expected %" PetscInt_FMT, v, g,
               p1->rstart + p1->row[v]);
    p1->cd[v] = (g >= p1->rstart && g < p1->rstart + p1->nowned) ? g - p1->rstart : -1;
    p1->co[v] = -1; /* set with the graph */
  }

  PetscCall(DMGetCoordinatesLocal(p1->dm, &cl));
  PetscCall(DMGetCoordinateSection(p1->dm, &cs));
  PetscCall(VecGetArrayRead(cl, &ca));
  for (PetscInt v = 0; v < p1->nv; v++) {
    PetscInt off;

    PetscCall(PetscSectionGetOffset(cs, v + vStart, &off));
    for (PetscInt d = 0; d < 3; d++) p1->x[3 * v + d] = PetscRealPart(ca[off + d]);
  }
  PetscCall(VecRestoreArrayRead(cl, &ca));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the four vertices of cell c in the plex's closure order */
static PetscErrorCode P1CellVertices(DM dm, PetscInt depth, PetscInt vStart, PetscInt vEnd, PetscInt c, PetscInt v[4])
{
  PetscInt n = 0;

  PetscFunctionBegin;
  if (depth == 1) {
    const PetscInt *cone;
    PetscInt        csize;

    PetscCall(DMPlexGetConeSize(dm, c, &csize));
    PetscCall(DMPlexGetCone(dm, c, &cone));
    for (PetscInt i = 0; i < csize; i++)
      if (cone[i] >= vStart && cone[i] < vEnd) {
        if (n < 4) v[n] = cone[i] - vStart;
        n++;
      }
  } else {
    PetscInt *cl = NULL, ncl;

    PetscCall(DMPlexGetTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
    for (PetscInt i = 0; i < ncl; i++)
      if (cl[2 * i] >= vStart && cl[2 * i] < vEnd) {
        if (n < 4) v[n] = cl[2 * i] - vStart;
        n++;
      }
    PetscCall(DMPlexRestoreTransitiveClosure(dm, c, PETSC_TRUE, &ncl, &cl));
  }
  PetscCheck(n == 4, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "DMPlex cell %" PetscInt_FMT " has %" PetscInt_FMT " vertices: squall's P1 operators need tetrahedra", c, n);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a bad element found on some rank, reported identically by all of them */
typedef struct {
  PetscReal kind, tet, cell, rank, vol, x[3];
} P1BadElement;

static PetscErrorCode P1ReportBadElement(SquallP1 p1, PetscBool bad, const P1BadElement *mine)
{
  PetscMPIInt  rank, size, first;
  P1BadElement b = *mine;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(p1->comm, &rank));
  PetscCallMPI(MPI_Comm_size(p1->comm, &size));
  first = bad ? rank : size;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, p1->comm));
  if (first == size) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Bcast(&b, sizeof(b) / sizeof(PetscReal), MPIU_REAL, first, p1->comm));
  SETERRQ(p1->comm, PETSC_ERR_ARG_WRONG, "Tetrahedron %" PetscInt_FMT " (DMPlex cell %" PetscInt_FMT " on rank %d, centroid (%g, %g, %g)) is %s: 6 x signed volume = %g%s", (PetscInt)b.tet, (PetscInt)b.cell, (int)b.rank, (double)b.x[0],
          (double)b.x[1], (double)b.x[2], b.kind == 1 ? "inverted" : "degenerate", (double)b.vol,
          b.kind == 1 ? " < 0 (its vertices are ordered against PETSc's convention, or the mesh is folded)" : ", too small for its edge lengths (see -p1_degenerate_tol)");
}

static PetscErrorCode P1ExtractElements(SquallP1 p1)
{
  DM              dm = p1->dm;
  PetscInt        depth, cStart, cEnd, vStart, vEnd, pStart, pEnd, nleaves, ne = 0, *tet, *cell;
  const PetscInt *leaves;
  PetscBT         leaf;
  PetscBool      *own, bad = PETSC_FALSE;
  PetscSF         sf;
  P1BadElement    first = {0, 0, 0, 0, 0, {0, 0, 0}};
  PetscMPIInt     rank;
  PetscInt64      ne64;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(p1->comm, &rank));
  PetscCall(DMPlexGetDepth(dm, &depth));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetChart(dm, &pStart, &pEnd));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, NULL, &nleaves, &leaves, NULL));
  PetscCall(PetscBTCreate(pEnd - pStart, &leaf));
  for (PetscInt i = 0; i < PetscMax(nleaves, 0); i++) PetscCall(PetscBTSet(leaf, (leaves ? leaves[i] : i) - pStart));

  PetscCall(PetscMalloc3(4 * (cEnd - cStart), &tet, cEnd - cStart, &cell, cEnd - cStart, &own));
  p1->neowned = 0;
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt  v[4], sv[4];
    PetscBool owned = PetscBTLookup(leaf, c - pStart) ? PETSC_FALSE : PETSC_TRUE, touches = PETSC_FALSE;
    PetscReal x[4][3], invJ[9], vol, det, l2 = 0;

    PetscCall(P1CellVertices(dm, depth, vStart, vEnd, c, v));
    for (PetscInt a = 0; a < 4; a++) touches = (PetscBool)(touches || p1->row[v[a]] >= 0);
    if (!owned && !touches) continue;
    /* PETSc orders a valid tetrahedron's closure left-handed (its reference cell has inward
       normals); squall stores it right-handed */
    sv[0] = v[0];
    sv[1] = v[2];
    sv[2] = v[1];
    sv[3] = v[3];
    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt d = 0; d < 3; d++) x[a][d] = p1->x[3 * sv[a] + d];
    det = SquallP1Geometry(x, invJ, &vol);
    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt b = a + 1; b < 4; b++) l2 = PetscMax(l2, PetscSqr(x[a][0] - x[b][0]) + PetscSqr(x[a][1] - x[b][1]) + PetscSqr(x[a][2] - x[b][2]));
    if (!bad && (PetscAbsReal(det) <= p1->degtol * l2 * PetscSqrtReal(l2) || det < 0 || PetscIsInfOrNanReal(det))) {
      bad        = PETSC_TRUE;
      first.kind = (det < 0 && PetscAbsReal(det) > p1->degtol * l2 * PetscSqrtReal(l2)) ? 1 : 2;
      first.tet  = (PetscReal)(c - cStart);
      first.cell = (PetscReal)c;
      first.rank = (PetscReal)rank;
      first.vol  = det;
      for (PetscInt d = 0; d < 3; d++) first.x[d] = (PetscReal)0.25 * (x[0][d] + x[1][d] + x[2][d] + x[3][d]);
    }
    for (PetscInt a = 0; a < 4; a++) tet[4 * ne + a] = sv[a];
    cell[ne] = c;
    own[ne]  = owned;
    if (owned) p1->neowned++;
    ne++;
  }
  PetscCall(PetscBTDestroy(&leaf));
  p1->ne     = ne;
  p1->tet    = tet;
  p1->cell   = cell;
  p1->eowned = own;
  ne64       = p1->neowned;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ne64, 1, MPIU_INT64, MPI_SUM, p1->comm));
  PetscCall(PetscIntCast(ne64, &p1->NE));
  PetscCall(P1ReportBadElement(p1, bad, &first));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sparsity of the owned rows from node adjacency (vertices sharing an element), split into the
   diagonal and off-diagonal blocks like MPIAIJ. Built once. */
static PetscErrorCode P1BuildGraph(SquallP1 p1)
{
  const PetscInt n = p1->nowned, rend = p1->rstart + p1->nowned;
  PetscInt      *inc, *incoff, *buf, maxdeg = 0, dcap, ocap, dn = 0, on = 0, *dJ, *oJ, *dI, *oI, *ocols, nocols = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(n + 1, &incoff));
  for (PetscInt e = 0; e < p1->ne; e++)
    for (PetscInt a = 0; a < 4; a++) {
      const PetscInt r = p1->row[p1->tet[4 * e + a]];
      if (r >= 0) incoff[r + 1]++;
    }
  for (PetscInt r = 0; r < n; r++) {
    maxdeg = PetscMax(maxdeg, incoff[r + 1]);
    incoff[r + 1] += incoff[r];
  }
  PetscCall(PetscMalloc2(incoff[n], &inc, 4 * maxdeg + 1, &buf));
  {
    PetscInt *pos;

    PetscCall(PetscMalloc1(n, &pos));
    PetscCall(PetscArraycpy(pos, incoff, n));
    for (PetscInt e = 0; e < p1->ne; e++)
      for (PetscInt a = 0; a < 4; a++) {
        const PetscInt r = p1->row[p1->tet[4 * e + a]];
        if (r >= 0) inc[pos[r]++] = e;
      }
    PetscCall(PetscFree(pos));
  }
  /* a first guess of the sizes (about 15 neighbours per vertex), grown by doubling */
  dcap = ocap = PetscMax(16, 16 * n);
  PetscCall(PetscMalloc2(n + 1, &dI, n + 1, &oI));
  PetscCall(PetscMalloc1(dcap, &dJ));
  PetscCall(PetscMalloc1(ocap, &oJ));
  dI[0] = oI[0] = 0;
  for (PetscInt r = 0; r < n; r++) {
    PetscInt m = 0;

    for (PetscInt k = incoff[r]; k < incoff[r + 1]; k++)
      for (PetscInt a = 0; a < 4; a++) buf[m++] = p1->gidx[p1->tet[4 * inc[k] + a]];
    PetscCall(PetscSortRemoveDupsInt(&m, buf));
    if (dn + m > dcap) {
      dcap = PetscMax(2 * dcap, dn + m);
      PetscCall(PetscRealloc(dcap * sizeof(PetscInt), &dJ));
    }
    if (on + m > ocap) {
      ocap = PetscMax(2 * ocap, on + m);
      PetscCall(PetscRealloc(ocap * sizeof(PetscInt), &oJ));
    }
    for (PetscInt k = 0; k < m; k++) {
      if (buf[k] >= p1->rstart && buf[k] < rend)
        dJ[dn++] = buf[k] - p1->rstart;
      else
        oJ[on++] = buf[k]; /* global for now, compressed below */
    }
    dI[r + 1] = dn;
    oI[r + 1] = on;
  }
  PetscCall(PetscFree2(inc, buf));
  PetscCall(PetscFree(incoff));

  /* garray: the sorted off-process columns; compress oJ to positions in it (order is kept) */
  PetscCall(PetscMalloc1(on + 1, &ocols));
  PetscCall(PetscArraycpy(ocols, oJ, on));
  nocols = on;
  PetscCall(PetscSortRemoveDupsInt(&nocols, ocols));
  for (PetscInt k = 0; k < on; k++) {
    PetscInt loc;

    PetscCall(PetscFindInt(oJ[k], nocols, ocols, &loc));
    oJ[k] = loc;
  }
  for (PetscInt v = 0; v < p1->nv; v++) {
    PetscInt loc = -1;

    if (p1->cd[v] < 0) PetscCall(PetscFindInt(p1->gidx[v], nocols, ocols, &loc));
    p1->co[v] = loc >= 0 ? loc : -1;
  }
  p1->dI      = dI;
  p1->dJ      = dJ;
  p1->oI      = oI;
  p1->oJ      = oJ;
  p1->garray  = ocols;
  p1->ngarray = nocols;
  p1->nnz     = dn + on;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the element kernel's CPU reference: J^{-1} and volume of every element */
PetscErrorCode SquallP1ComputeGeometryHost(SquallP1 p1)
{
  const PetscInt ne = p1->ne;

  PetscFunctionBegin;
  if (!p1->geom) PetscCall(PetscMalloc1(SQUALL_P1_NGEOM * PetscMax(ne, 1), &p1->geom));
  PetscCall(PetscLogEventBegin(SQUALL_P1Geometry, 0, 0, 0, 0));
  for (PetscInt e = 0; e < ne; e++) {
    PetscReal x[4][3], invJ[9], vol;

    for (PetscInt a = 0; a < 4; a++)
      for (PetscInt d = 0; d < 3; d++) x[a][d] = p1->x[3 * p1->tet[4 * e + a] + d];
    (void)SquallP1Geometry(x, invJ, &vol);
    for (PetscInt k = 0; k < 9; k++) p1->geom[k * ne + e] = invJ[k];
    p1->geom[9 * ne + e] = vol;
  }
  PetscCall(PetscLogFlops(60.0 * ne));
  PetscCall(PetscLogEventEnd(SQUALL_P1Geometry, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1SetUp - extracts the mesh (vertices, right-handed tetrahedra; inverted or degenerate ones are
  an error naming the element), numbers the owned rows, builds the sparsity graph once from node
  adjacency, computes the element geometry and, with the CUDA backend, uploads all of it.
@*/
PetscErrorCode SquallP1SetUp(SquallP1 p1)
{
  PetscFunctionBegin;
  if (p1->setup) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(SQUALL_P1SetUp, 0, 0, 0, 0));
  PetscCall(SquallP1DistributeMesh(&p1->dm));
  PetscCall(P1CheckDM(p1));
  PetscCall(P1NumberVertices(p1));
  PetscCall(P1ExtractElements(p1));
  PetscCall(SquallP1OrderElements(p1));
  PetscCall(P1BuildGraph(p1));
  PetscCall(SquallP1ComputeGeometryHost(p1));
  if (p1->backend == SQUALL_P1_CUDA) PetscCall(SquallP1DeviceSetUp(p1));
  p1->setup = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(SQUALL_P1SetUp, 0, 0, 0, 0));
  if (p1->view) PetscCall(SquallP1View(p1, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallP1ComputeGeometry - runs the element kernel again (J, det J, J^{-1} and volume per element;
  on the device with the CUDA backend). SquallP1SetUp() already did; this is for benchmarks.
@*/
PetscErrorCode SquallP1ComputeGeometry(SquallP1 p1)
{
  PetscFunctionBegin;
  PetscCheck(p1->setup, p1->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallP1SetUp() first");
  if (p1->backend == SQUALL_P1_CUDA)
    PetscCall(SquallP1CUDAComputeGeometry(p1->dev, SQUALL_P1Geometry));
  else
    PetscCall(SquallP1ComputeGeometryHost(p1));
  PetscFunctionReturn(PETSC_SUCCESS);
}
