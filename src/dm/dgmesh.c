/* SquallDGMesh: a DMForest (p8est brick, uniformly refined, one layer of ghost cells) carrying
   nf*(N+1)^3 LGL nodal values per cell, with node geometry and face-to-face node maps. */
#include "dm/dgmeshimpl.h"
#include <petscdmforest.h>
#include <petscdmplex.h>

const char *const        SquallFaces[]                   = {"xm", "xp", "ym", "yp", "zm", "zp", "SquallFace", "SQUALL_FACE_", NULL};
static const char *const SquallTerrainTypes[]            = {"none", "schaer", "bell", "SquallTerrainType", "SQUALL_TERRAIN_", NULL};
static const char *const SquallVerticalCoordinateTypes[] = {"gal_chen", "sleve", "SquallVerticalCoordinate", "SQUALL_VCOORD_", NULL};
static const char *const SquallDGMeshTypes[]             = {"brick", "shell", "SquallDGMeshType", "SQUALL_DG_MESH_", NULL};

static PetscErrorCode DGMeshTerrainOptions(SquallDGMesh);

PetscErrorCode SquallDGMeshCreate(MPI_Comm comm, SquallDGMesh *mesh)
{
  SquallDGMesh m;

  PetscFunctionBegin;
  PetscAssertPointer(mesh, 2);
  PetscCall(SquallInitializePackage());
  PetscCall(PetscNew(&m));
  m->comm = comm;
  PetscCall(PetscStrallocpy("", &m->prefix));
  m->N              = 3;
  m->nf             = 5;
  m->terrain.type   = SQUALL_TERRAIN_NONE;
  m->terrain.h0     = 250; /* Schaer et al. (2002), sec. 5a */
  m->terrain.a      = 5000;
  m->terrain.lambda = 4000;
  m->terrain.vcoord = SQUALL_VCOORD_GAL_CHEN;
  m->terrain.s1     = 4000; /* ICON's sleve_nml defaults decay_scale_1, decay_scale_2 */
  m->terrain.s2     = 2500;
  m->terrain.xc     = PETSC_MAX_REAL; /* the middle of the brick, once it is known */
  m->terrain.yc     = PETSC_MAX_REAL;
  *mesh             = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallDGMeshSetOptionsPrefix - the prefix of the mesh's options -<prefix>order and -<prefix>mesh_warp,
  given by its owner (the ESDG solver passes its own, "esdg_" by default). The brick itself is described
  by PETSc's DMForest options (-dm_p4est_brick_size, ...).
@*/
PetscErrorCode SquallDGMeshSetOptionsPrefix(SquallDGMesh m, const char prefix[])
{
  PetscFunctionBegin;
  PetscCheck(!m->dm, m->comm, PETSC_ERR_ARG_WRONGSTATE, "Set the options prefix before SquallDGMeshSetFromOptions()");
  PetscCall(PetscFree(m->prefix));
  PetscCall(PetscStrallocpy(prefix ? prefix : "", &m->prefix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshSetOrder(SquallDGMesh m, PetscInt N)
{
  PetscFunctionBegin;
  PetscCheck(!m->setup, m->comm, PETSC_ERR_ARG_WRONGSTATE, "Set the order before SquallDGMeshSetUp()");
  PetscCheck(N >= 1 && N <= SQUALL_DG_MAX_ORDER, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sorder %" PetscInt_FMT " is out of range: valid orders are 1 to %d", m->prefix, N, SQUALL_DG_MAX_ORDER);
  m->N = N;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshSetNumFields(SquallDGMesh m, PetscInt nf)
{
  PetscFunctionBegin;
  PetscCheck(!m->setup, m->comm, PETSC_ERR_ARG_WRONGSTATE, "Set the number of fields before SquallDGMeshSetUp()");
  PetscCheck(nf >= 1, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "Number of fields %" PetscInt_FMT " must be positive", nf);
  m->nf = nf;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The brick is described by PETSc's own DMForest options; read them here only to validate them
   (PETSc would accept nonsense silently) and to know the lattice. Defaults are PETSc's: one unit per base cell. */
static PetscErrorCode DGMeshReadBrickOptions(SquallDGMesh m, const char prefix[], PetscInt *refine)
{
  PetscInt  size[3] = {2, 2, 2}, per[3] = {0, 0, 0}, n = 3, ref = 0; /* PETSc's defaults (pforest) */
  PetscReal bounds[6] = {0, 1, 0, 1, 0, 1};
  PetscBool flg;

  PetscFunctionBegin;
  /* listed by -help with the defaults squall assumes (PETSc's DMForest reads them again) */
  PetscOptionsBegin(m->comm, prefix, "DMForest brick (PETSc's options, checked by squall)", "DMFOREST");
  PetscCall(PetscOptionsIntArray("-dm_p4est_brick_size", "Base cells Kx,Ky,Kz of the brick (each >= 1)", "DMForestSetTopology", size, &n, &flg));
  PetscCall(SquallOptionsCheckArrayCount(m->comm, prefix, "-dm_p4est_brick_size", 3, 0));
  for (PetscInt d = 0; d < 3; d++) PetscCheck(size[d] >= 1, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_p4est_brick_size: %c has %" PetscInt_FMT " base cells; each entry must be >= 1", "xyz"[d], size[d]);
  /* PETSc's default brick spans one unit per base cell */
  for (PetscInt d = 0; d < 3; d++) bounds[2 * d + 1] = size[d];
  n = 6;
  PetscCall(PetscOptionsRealArray("-dm_p4est_brick_bounds", "Extent x0,x1,y0,y1,z0,z1 of the brick (x1 > x0 ...; default one unit per base cell)", "DMForestSetTopology", bounds, &n, &flg));
  PetscCall(SquallOptionsCheckArrayCount(m->comm, prefix, "-dm_p4est_brick_bounds", 6, 0));
  for (PetscInt d = 0; d < 3; d++)
    PetscCheck(bounds[2 * d + 1] > bounds[2 * d], m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_p4est_brick_bounds: the %c extent [%g, %g] must be positive (x1 > x0)", "xyz"[d], (double)bounds[2 * d], (double)bounds[2 * d + 1]);
  n = 3;
  PetscCall(PetscOptionsIntArray("-dm_p4est_brick_periodicity", "Periodic directions px,py,pz (0 or 1; non-periodic sides are reflecting walls)", "DMForestSetTopology", per, &n, &flg));
  PetscCall(SquallOptionsCheckArrayCount(m->comm, prefix, "-dm_p4est_brick_periodicity", 3, 0));
  PetscCall(PetscOptionsInt("-dm_forest_initial_refinement", "Uniform refinement levels of the brick (0 to 12)", "DMForestSetInitialRefinement", ref, &ref, NULL));
  PetscOptionsEnd();
  PetscCheck(ref >= 0 && ref <= 12, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_forest_initial_refinement %" PetscInt_FMT " is out of range: valid levels are 0 to 12", ref);
  for (PetscInt d = 0; d < 3; d++) {
    m->ncell[d]    = size[d] << ref;
    m->periodic[d] = per[d] ? PETSC_TRUE : PETSC_FALSE;
    m->lo[d]       = bounds[2 * d];
    m->hi[d]       = bounds[2 * d + 1];
    m->h[d]        = (m->hi[d] - m->lo[d]) / m->ncell[d];
    /* one cell across a periodic direction is its own neighbour on both sides: the face maps would be ambiguous */
    PetscCheck(!m->periodic[d] || m->ncell[d] >= 2, m->comm, PETSC_ERR_ARG_INCOMP, "-dm_p4est_brick_periodicity: direction %c is periodic with a single cell; it needs at least 2 (raise -dm_p4est_brick_size or -dm_forest_initial_refinement)",
               "xyz"[d]);
  }
  *refine = ref;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshSetFromOptions(SquallDGMesh m)
{
  PetscInt    N = m->N, ref, type = m->shell ? 1 : 0;
  PetscReal   warp   = m->warp;
  const char *prefix = NULL;

  PetscFunctionBegin;
  PetscCheck(!m->setup, m->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallDGMeshSetFromOptions() before SquallDGMeshSetUp()");
  PetscOptionsBegin(m->comm, m->prefix, "squall DG mesh (brick or cubed-sphere shell DMForest with LGL nodes)", "SquallDGMesh");
  PetscCall(PetscOptionsInt("-order", "Polynomial order N of the LGL nodal basis (1 to 8)", "SquallDGMeshSetOrder", N, &N, NULL));
  PetscCall(PetscOptionsReal("-mesh_warp", "Amplitude of a smooth curvilinear warp of the element interiors, as a fraction of the extent (0 to 0.1)", "SquallDGMesh", warp, &warp, NULL));
  PetscCall(
    PetscOptionsEList("-mesh", "The forest: brick (PETSc's -dm_p4est_brick_* options) or shell (the cubed-sphere shell: -shell_radius, -shell_thickness with this prefix)", "SquallDGMesh", SquallDGMeshTypes, 2, SquallDGMeshTypes[type], &type, NULL));
  PetscOptionsEnd();
  PetscCall(SquallDGMeshSetOrder(m, N));
  PetscCheck(warp >= 0 && warp <= 0.1, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smesh_warp %g is out of range: valid amplitudes are 0 to 0.1 (larger ones can fold elements)", m->prefix, (double)warp);
  m->warp  = warp;
  m->shell = type == 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(!m->shell || warp == 0, m->comm, PETSC_ERR_ARG_INCOMP, "-%smesh shell and -%smesh_warp %g together: the warp is defined on the brick only", m->prefix, m->prefix, (double)warp);

  PetscCall(DMCreate(m->comm, &m->dm));
  PetscCall(DMSetType(m->dm, DMP8EST));
  PetscCall(DMForestSetPartitionOverlap(m->dm, 1));
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)m->dm, &prefix));
  if (m->shell)
    PetscCall(SquallDGMeshShellSetFromOptions(m, prefix));
  else {
    PetscCall(DMForestSetTopology(m->dm, "brick"));
    PetscCall(DGMeshReadBrickOptions(m, prefix, &ref));
  }
  PetscCall(DGMeshTerrainOptions(m));
  PetscCall(DMSetFromOptions(m->dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  SquallDGMeshSetTerrainFunction - a user terrain h(x, y) = h1 + h2 (SquallDGTerrainFunction) for the
  terrain-following map of the vertical coordinate, in place of -<prefix>terrain; the vertical coordinate
  (-<prefix>vertical_coordinate, -<prefix>sleve_scales) and the checks (below the model top, positive
  Jacobian, periodic ends) are those of the built-in terrains. Call before SquallDGMeshSetUp().
@*/
PetscErrorCode SquallDGMeshSetTerrainFunction(SquallDGMesh m, SquallDGTerrainFunction fn, void *ctx)
{
  PetscFunctionBegin;
  PetscCheck(!m->setup, m->comm, PETSC_ERR_ARG_WRONGSTATE, "Set the terrain function before SquallDGMeshSetUp()");
  m->terrainFn  = fn;
  m->terrainCtx = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -<prefix>terrain and its parameters, after the brick (the default centre is its middle) */
static PetscErrorCode DGMeshTerrainOptions(SquallDGMesh m)
{
  SquallTerrain *t    = &m->terrain;
  PetscInt       type = t->type, vc = t->vcoord, n;
  PetscReal      c[2] = {t->xc, t->yc}, sc[2] = {t->s1, t->s2};
  PetscBool      flg;

  PetscFunctionBegin;
  for (PetscInt d = 0; d < 2; d++)
    if (c[d] == PETSC_MAX_REAL) c[d] = (m->lo[d] + m->hi[d]) / 2;
  PetscOptionsBegin(m->comm, m->prefix, "squall DG mesh: terrain-following vertical coordinate", "SquallDGMesh");
  PetscCall(PetscOptionsEList("-terrain", "Terrain under the brick: none, schaer (h0 exp(-(x/a)^2) cos^2(pi x/lambda)), bell (h0/(1 + r^2/a^2)^(3/2))", "SquallDGMesh", SquallTerrainTypes, 3, SquallTerrainTypes[type], &type, NULL));
  PetscCall(PetscOptionsReal("-terrain_h0", "Terrain height h0 (m, >= 0)", "SquallDGMesh", t->h0, &t->h0, NULL));
  PetscCall(PetscOptionsReal("-terrain_a", "Terrain half-width a (m, > 0)", "SquallDGMesh", t->a, &t->a, NULL));
  PetscCall(PetscOptionsReal("-terrain_lambda", "Wavelength lambda of Schaer's ripples (m, > 0)", "SquallDGMesh", t->lambda, &t->lambda, NULL));
  n = 2;
  PetscCall(PetscOptionsRealArray("-terrain_center", "Centre x,y of the terrain (m; default the middle of the brick)", "SquallDGMesh", c, &n, &flg));
  PetscCall(SquallOptionsCheckArrayCount(m->comm, m->prefix, "-terrain_center", 2, 0));
  PetscCall(PetscOptionsEList("-vertical_coordinate", "Terrain-following coordinate: gal_chen (z = zeta + h (1 - zeta/H)), sleve (h1, h2 decaying with their own scales)", "SquallDGMesh", SquallVerticalCoordinateTypes, 2,
                              SquallVerticalCoordinateTypes[vc], &vc, NULL));
  n = 2;
  PetscCall(PetscOptionsRealArray("-sleve_scales", "SLEVE decay scales s1,s2 of the large- and small-scale terrain (m, > 0)", "SquallDGMesh", sc, &n, &flg));
  PetscCall(SquallOptionsCheckArrayCount(m->comm, m->prefix, "-sleve_scales", 2, 0));
  PetscOptionsEnd();
  t->type   = (SquallTerrainType)type;
  t->vcoord = (SquallVerticalCoordinate)vc;
  t->xc     = c[0];
  t->yc     = c[1];
  t->s1     = sc[0];
  t->s2     = sc[1];
  if (t->type == SQUALL_TERRAIN_NONE && !m->terrainFn) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(!m->shell, m->comm, PETSC_ERR_ARG_INCOMP, "-%sterrain and -%smesh shell together: the terrain-following map is defined on the brick only", m->prefix, m->prefix);
  PetscCheck(t->h0 >= 0, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sterrain_h0 %g is out of range: it must be >= 0", m->prefix, (double)t->h0);
  PetscCheck(t->a > 0, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sterrain_a %g is out of range: it must be > 0", m->prefix, (double)t->a);
  PetscCheck(t->lambda > 0, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%sterrain_lambda %g is out of range: it must be > 0", m->prefix, (double)t->lambda);
  PetscCheck(t->s1 > 0 && t->s2 > 0, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-%ssleve_scales %g,%g is out of range: both must be > 0", m->prefix, (double)t->s1, (double)t->s2);
  PetscCheck(m->warp == 0, m->comm, PETSC_ERR_ARG_INCOMP, "-%sterrain %s and -%smesh_warp %g together: the warp moves the nodes the terrain map expects on the brick; use one of them", m->prefix,
             m->terrainFn ? "(a user function)" : SquallTerrainTypes[t->type], m->prefix, (double)m->warp);
  PetscCheck(!m->periodic[2], m->comm, PETSC_ERR_ARG_INCOMP, "-%sterrain needs walls at the bottom and the top: z must not be periodic (-dm_p4est_brick_periodicity)", m->prefix);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DGMeshFindElement(PetscInt n, const PetscInt keys[], const PetscInt elem[], PetscInt key, PetscInt *e)
{
  PetscInt loc;

  PetscFunctionBegin;
  PetscCall(PetscFindInt(key, n, keys, &loc));
  *e = loc >= 0 ? elem[loc] : -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* lattice index of an owned cell from its (localized) vertex coordinates */
static PetscErrorCode DGMeshCellLattice(SquallDGMesh m, PetscInt c, PetscInt ijk[3])
{
  PetscBool          isDG;
  PetscInt           nc;
  const PetscScalar *arr;
  PetscScalar       *coords;
  PetscReal          lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL};

  PetscFunctionBegin;
  PetscCall(DMPlexGetCellCoordinates(m->plex, c, &isDG, &nc, &arr, &coords));
  for (PetscInt v = 0; v < nc / 3; v++) {
    for (PetscInt d = 0; d < 3; d++) {
      lo[d] = PetscMin(lo[d], PetscRealPart(coords[3 * v + d]));
      hi[d] = PetscMax(hi[d], PetscRealPart(coords[3 * v + d]));
    }
  }
  PetscCall(DMPlexRestoreCellCoordinates(m->plex, c, &isDG, &nc, &arr, &coords));
  for (PetscInt d = 0; d < 3; d++) {
    PetscReal t = (lo[d] - m->lo[d]) / m->h[d];
    ijk[d]      = (PetscInt)PetscFloorReal(t + 0.5);
    PetscCheck(PetscAbsReal(hi[d] - lo[d] - m->h[d]) < 1e-3 * m->h[d] && PetscAbsReal(t - ijk[d]) < 1e-3, m->comm, PETSC_ERR_SUP,
               "Cell %" PetscInt_FMT " is not a uniform brick cell (%c-width %g, expected %g): squall's DG mesh needs uniform refinement", c, "xyz"[d], (double)(hi[d] - lo[d]), (double)m -> h[d]);
    if (m->periodic[d]) ijk[d] = (ijk[d] % m->ncell[d] + m->ncell[d]) % m->ncell[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscInt DGLatticeKey(SquallDGMesh m, const PetscInt ijk[3])
{
  return ijk[0] + m->ncell[0] * (ijk[1] + m->ncell[1] * ijk[2]);
}

/* the brick's element lattice (owned cells from their coordinates, ghosts from their owners through g
   and l) and its face neighbours through the lattice */
static PetscErrorCode DGMeshBrickConnect(SquallDGMesh m, const PetscInt cellOf[], Vec g, Vec l)
{
  const PetscInt     nloc = m->nOwned + m->nGhost, dofs = m->nf * m->Np;
  PetscInt          *keys, *elemOfKey;
  PetscScalar       *ga;
  const PetscScalar *la;

  PetscFunctionBegin;
  /* Ghost cells' coordinates are not localized across periodic boundaries, so only owned cells
     read their lattice index from coordinates; ghosts receive it from their owners. */
  PetscCall(VecGetArray(g, &ga));
  for (PetscInt e = 0; e < m->nOwned; e++) {
    PetscCall(DGMeshCellLattice(m, cellOf[e], &m->ijk[3 * e]));
    for (PetscInt d = 0; d < 3; d++) ga[m->gslot[e] * dofs + d] = (PetscScalar)m->ijk[3 * e + d];
  }
  PetscCall(VecRestoreArray(g, &ga));
  PetscCall(DMGlobalToLocalBegin(m->sdm, g, INSERT_VALUES, l));
  PetscCall(DMGlobalToLocalEnd(m->sdm, g, INSERT_VALUES, l));
  PetscCall(VecGetArrayRead(l, &la));
  for (PetscInt e = m->nOwned; e < nloc; e++)
    for (PetscInt d = 0; d < 3; d++) m->ijk[3 * e + d] = (PetscInt)PetscRealPart(la[m->slot[e] * dofs + d]);
  PetscCall(VecRestoreArrayRead(l, &la));

  /* face neighbours through the lattice: sort local elements by lattice key */
  PetscCall(PetscMalloc2(nloc, &keys, nloc, &elemOfKey));
  for (PetscInt e = 0; e < nloc; e++) {
    keys[e]      = DGLatticeKey(m, &m->ijk[3 * e]);
    elemOfKey[e] = e;
  }
  PetscCall(PetscSortIntWithArray(nloc, keys, elemOfKey));
  for (PetscInt e = 1; e < nloc; e++) PetscCheck(keys[e] != keys[e - 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Two local cells share lattice index %" PetscInt_FMT, keys[e]);
  for (PetscInt e = 0; e < m->nOwned; e++) {
    for (PetscInt f = 0; f < 6; f++) {
      const PetscInt d = f / 2, side = f % 2;
      PetscInt       nijk[3] = {m->ijk[3 * e], m->ijk[3 * e + 1], m->ijk[3 * e + 2]}, nb = -1;
      nijk[d] += side ? 1 : -1;
      if (m->periodic[d]) nijk[d] = (nijk[d] + m->ncell[d]) % m->ncell[d];
      if (nijk[d] >= 0 && nijk[d] < m->ncell[d]) {
        PetscCall(DGMeshFindElement(nloc, keys, elemOfKey, DGLatticeKey(m, nijk), &nb));
        PetscCheck(nb >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Face neighbour of element %" PetscInt_FMT " missing from the ghost layer", e);
      }
      m->nbr[6 * e + f]     = nb;
      m->nbrFace[6 * e + f] = nb >= 0 ? (f ^ 1) : -1;
      for (PetscInt q = 0; q < m->Nfp; q++) {
        /* the partner sits on the opposite face of the neighbour, same tangential indices */
        const PetscInt nP                          = m->fmask[(f ^ 1) * m->Nfp + q];
        m->vmapP[((size_t)e * 6 + f) * m->Nfp + q] = nb >= 0 ? m->slot[nb] * m->Np + nP : -1;
      }
    }
  }
  PetscCall(PetscFree2(keys, elemOfKey));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solution lives on a clone of the forest's plex with one block of nf*Np values per cell. (A PetscFV field
   with nf*Np components on the forest itself would give the same layout, but PETSc's discretisation set-up costs
   grow with the square of the component count.) */
static PetscErrorCode DGMeshCreateStateDM(SquallDGMesh m, PetscInt cStart, PetscInt cEnd)
{
  PetscSection sec;
  PetscInt     pStart, pEnd;
  VecType      vtype;

  PetscFunctionBegin;
  PetscCall(DMClone(m->plex, &m->sdm));
  PetscCall(PetscObjectSetName((PetscObject)m->sdm, "esdg"));
  PetscCall(PetscSectionCreate(m->comm, &sec));
  PetscCall(DMPlexGetChart(m->plex, &pStart, &pEnd));
  PetscCall(PetscSectionSetChart(sec, pStart, pEnd));
  for (PetscInt c = cStart; c < cEnd; c++) PetscCall(PetscSectionSetDof(sec, c, m->nf * m->Np));
  PetscCall(PetscSectionSetUp(sec));
  PetscCall(DMSetLocalSection(m->sdm, sec));
  PetscCall(PetscSectionDestroy(&sec));
  PetscCall(DMGetVecType(m->dm, &vtype));
  PetscCall(DMSetVecType(m->sdm, vtype));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the elements: owned ones first, then ghosts; each element's slot in the local vector, an owned one's in the
   global vector (rstart: the first global entry of this rank), and its plex cell (*cellOf) */
static PetscErrorCode DGMeshNumberElements(SquallDGMesh m, PetscInt cStart, PetscInt cEnd, PetscInt rstart, PetscInt **cellOf)
{
  const PetscInt nloc = cEnd - cStart, dofs = m->nf * m->Np;
  PetscSection   lsec, gsec;
  PetscInt       eo = 0, eg;

  PetscFunctionBegin;
  PetscCall(DMGetLocalSection(m->sdm, &lsec));
  PetscCall(DMGetGlobalSection(m->sdm, &gsec));
  m->nOwned = m->nGhost = 0;
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt go;
    PetscCall(PetscSectionGetOffset(gsec, c, &go));
    if (go >= 0)
      m->nOwned++;
    else
      m->nGhost++;
  }
  PetscCall(PetscMalloc3(nloc, &m->slot, m->nOwned, &m->gslot, 3 * nloc, &m->ijk));
  PetscCall(PetscMalloc1(nloc, cellOf));
  eg = m->nOwned;
  for (PetscInt c = cStart; c < cEnd; c++) {
    PetscInt go, lo, e;
    PetscCall(PetscSectionGetOffset(gsec, c, &go));
    PetscCall(PetscSectionGetOffset(lsec, c, &lo));
    PetscCheck(lo % dofs == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Unexpected local section layout");
    e            = go >= 0 ? eo++ : eg++;
    m->slot[e]   = lo / dofs;
    (*cellOf)[e] = c;
    if (go >= 0) m->gslot[e] = (go - rstart) / dofs;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fmask[f Nfp + a + Nq b]: the element node at position (a, b) of face f (faces -x, +x, -y, +y, -z, +z) */
static PetscErrorCode DGMeshFaceMask(SquallDGMesh m)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(6 * m->Nfp, &m->fmask));
  for (PetscInt f = 0; f < 6; f++) {
    const PetscInt d = f / 2, side = f % 2, t0 = d == 0 ? 1 : 0, t1 = d == 2 ? 1 : 2;
    for (PetscInt b = 0; b < m->Nq; b++) {
      for (PetscInt a = 0; a < m->Nq; a++) {
        PetscInt idx[3];
        idx[d]                               = side ? m->N : 0;
        idx[t0]                              = a;
        idx[t1]                              = b;
        m->fmask[f * m->Nfp + a + m->Nq * b] = idx[0] + m->Nq * (idx[1] + m->Nq * idx[2]);
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshSetUp(SquallDGMesh m)
{
  PetscInt cStart, cEnd, overlap, *cellOf, rstart;
  Vec      g, l;

  PetscFunctionBegin;
  if (m->setup) PetscFunctionReturn(PETSC_SUCCESS);
  if (!m->dm) PetscCall(SquallDGMeshSetFromOptions(m));
  PetscCall(PetscLogEventBegin(SQUALL_DGMeshSetUp, 0, 0, 0, 0));
  PetscCall(DMForestGetPartitionOverlap(m->dm, &overlap));
  PetscCheck(overlap >= 1, m->comm, PETSC_ERR_ARG_OUTOFRANGE, "-dm_forest_partition_overlap %" PetscInt_FMT ": the DG face coupling needs at least 1", overlap);
  m->Nq  = m->N + 1;
  m->Np  = m->Nq * m->Nq * m->Nq;
  m->Nfp = m->Nq * m->Nq;
  PetscCall(SquallLGLNodesWeights(m->N, m->r, m->w));
  PetscCall(SquallLGLDerivativeMatrix(m->N, m->r, m->D));

  PetscCall(DMSetUp(m->dm));
  PetscCall(DMConvert(m->dm, DMPLEX, &m->plex));
  PetscCall(DMPlexGetHeightStratum(m->plex, 0, &cStart, &cEnd));
  PetscCall(DGMeshCreateStateDM(m, cStart, cEnd));
  PetscCall(DMCreateGlobalVector(m->sdm, &g));
  PetscCall(DMCreateLocalVector(m->sdm, &l));
  PetscCall(VecGetOwnershipRange(g, &rstart, NULL));
  PetscCall(DGMeshNumberElements(m, cStart, cEnd, rstart, &cellOf));
  m->nGlobal = m->ncell[0] * m->ncell[1] * m->ncell[2]; /* the shell: 6 nh^2 nz */
  PetscCall(PetscMalloc2(6 * m->nOwned, &m->nbr, (size_t)6 * m->nOwned * m->Nfp, &m->vmapP));
  PetscCall(PetscMalloc2(6 * m->nOwned, &m->nbrFace, 6 * m->nOwned, &m->nbrPerm));
  PetscCall(DGMeshFaceMask(m));
  if (m->shell)
    PetscCall(SquallDGMeshShellConnect(m, cellOf));
  else
    PetscCall(DGMeshBrickConnect(m, cellOf, g, l));
  PetscCall(VecDestroy(&g));
  PetscCall(VecDestroy(&l));
  PetscCall(SquallDGMeshSetFacePermutations(m));
  PetscCall(PetscFree(cellOf));
  PetscCall(SquallDGMeshComputeGeometry(m));
  m->setup = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(SQUALL_DGMeshSetUp, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshView(SquallDGMesh m, PetscViewer viewer)
{
  PetscBool iascii;
  PetscInt  gmin, gmax;

  PetscFunctionBegin;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(m->comm, &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPIU_Allreduce(&m->nGhost, &gmin, 1, MPIU_INT, MPI_MIN, m->comm));
  PetscCallMPI(MPIU_Allreduce(&m->nGhost, &gmax, 1, MPIU_INT, MPI_MAX, m->comm));
  PetscCall(PetscViewerASCIIPrintf(viewer, "SquallDGMesh: order N = %" PetscInt_FMT " (%" PetscInt_FMT " LGL nodes per element), %" PetscInt_FMT " fields\n", m->N, m->Np, m->nf));
  if (m->shell) {
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "  cubed-sphere shell: 6 x %" PetscInt_FMT " x %" PetscInt_FMT " columns x %" PetscInt_FMT " levels = %" PetscInt_FMT " elements, radius %g m, thickness %g m (equiangular gnomonic, walls at both spheres)\n",
                                     m->shellNh, m->shellNh, m->shellNz, m->nGlobal, (double)m->shellA, (double)m->shellH));
    PetscCall(PetscInfo(m->dm, "ghost elements per rank: %" PetscInt_FMT " to %" PetscInt_FMT "\n", gmin, gmax));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  brick %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " = %" PetscInt_FMT " elements, periodic %c%c%c\n", m->ncell[0], m->ncell[1], m->ncell[2], m->nGlobal, m->periodic[0] ? 'x' : '-',
                                   m->periodic[1] ? 'y' : '-', m->periodic[2] ? 'z' : '-'));
  if (m->terrain.type != SQUALL_TERRAIN_NONE || m->terrainFn)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  terrain %s (h0 %g, a %g, lambda %g, centre %g,%g), %s coordinate (SLEVE scales %g,%g)\n", m->terrainFn ? "user" : SquallTerrainTypes[m->terrain.type], (double)m->terrain.h0, (double)m->terrain.a,
                                     (double)m->terrain.lambda, (double)m->terrain.xc, (double)m->terrain.yc, SquallVerticalCoordinateTypes[m->terrain.vcoord], (double)m->terrain.s1, (double)m->terrain.s2));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  domain [%g, %g] x [%g, %g] x [%g, %g], %s\n", (double)m->lo[0], (double)m->hi[0], (double)m->lo[1], (double)m->hi[1], (double)m->lo[2], (double)m->hi[2],
                                   m->cartesian ? "Cartesian elements" : "curvilinear elements"));
  PetscCall(PetscInfo(m->dm, "ghost elements per rank: %" PetscInt_FMT " to %" PetscInt_FMT "\n", gmin, gmax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshDestroy(SquallDGMesh *mesh)
{
  SquallDGMesh m;

  PetscFunctionBegin;
  if (!mesh || !*mesh) PetscFunctionReturn(PETSC_SUCCESS);
  m = *mesh;
  PetscCall(PetscFree3(m->slot, m->gslot, m->ijk));
  PetscCall(PetscFree2(m->nbr, m->vmapP));
  PetscCall(PetscFree2(m->nbrFace, m->nbrPerm));
  PetscCall(PetscFree(m->zh));
  PetscCall(PetscFree(m->fmask));
  PetscCall(PetscFree(m->prefix));
  PetscCall(PetscFree3(m->x, m->J, m->Ja));
  PetscCall(DMDestroy(&m->sdm));
  PetscCall(DMDestroy(&m->plex));
  PetscCall(DMDestroy(&m->dm));
  PetscCall(PetscFree(m));
  *mesh = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshGetDM(SquallDGMesh m, DM *dm)
{
  PetscFunctionBegin;
  PetscCheck(m->setup, m->comm, PETSC_ERR_ARG_WRONGSTATE, "Call SquallDGMeshSetUp() first");
  *dm = m->sdm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshGetForest(SquallDGMesh m, DM *forest)
{
  PetscFunctionBegin;
  *forest = m->dm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshGetOrder(SquallDGMesh m, PetscInt *N)
{
  PetscFunctionBegin;
  *N = m->N;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SquallDGMeshGetNumElements(SquallDGMesh m, PetscInt *owned, PetscInt *ghost, PetscInt *global)
{
  PetscFunctionBegin;
  if (owned) *owned = m->nOwned;
  if (ghost) *ghost = m->nGhost;
  if (global) *global = m->nGlobal;
  PetscFunctionReturn(PETSC_SUCCESS);
}
